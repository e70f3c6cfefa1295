/* Golden-corpus test of the assembler: every tests/asm/golden/NAME.s (one
 * statement per line) against NAME.hex (the bytes GNU as produced for each
 * line, written by `make golden`; nb_*.hex by hand).
 *
 * Files without labels or alignment directives are checked line by line, so
 * one statement nb rejects does not hide the rest of its file.  Files with
 * labels or .p2align/.align depend on layout and are assembled whole; each
 * line's bytes are then the bytes of the statements nb reports on that line.
 *
 * Every mismatch is printed as "FILE:LINE: STATEMENT | expected: .. | got: .."
 * (or the error nb gave); the run ends with a per-file pass count.  Runs from
 * the repository root, as `make test` does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"

#define GOLDEN_DIR "tests/asm/golden"
#define MIN_STATEMENTS 1000 /* the floor; guards an emptied corpus */

typedef struct lines {
    char **v;
    size_t n;
} lines;

typedef struct tally {
    size_t total, passed, mismatched;
} tally;

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

/* Splits text into lines (without the newline); the last line may lack one. */
static lines split_lines(char *text)
{
    lines l = {0};
    size_t cap = 0;
    char *p = text;
    while (*p) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (l.n == cap) {
            cap = cap ? cap * 2 : 256;
            l.v = realloc(l.v, cap * sizeof *l.v);
        }
        l.v[l.n++] = p;
        if (!nl)
            break;
        p = nl + 1;
    }
    return l;
}

/* Parses "0f 1f 00" into out; returns the count, or -1 on a malformed line. */
static int parse_hex(const char *s, uint8_t *out, int max)
{
    int n = 0;
    while (*s) {
        if (isspace((unsigned char)*s)) {
            s++;
            continue;
        }
        unsigned v;
        int used;
        if (n >= max || sscanf(s, "%2x%n", &v, &used) != 1 || used != 2)
            return -1;
        out[n++] = (uint8_t)v;
        s += used;
    }
    return n;
}

static void hex_string(const uint8_t *b, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && o + 4 < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%02x", i ? " " : "", b[i]);
}

static bool is_segment(const char *s, size_t n)
{
    static const char *const segs[] = {"cs", "ds", "es", "fs", "gs", "ss"};
    for (size_t i = 0; i < sizeof segs / sizeof *segs; i++)
        if (n == 2 && strncasecmp(s, segs[i], 2) == 0)
            return true;
    return false;
}

/* A line that defines a label or aligns makes the file layout-dependent. */
static bool needs_whole_file(const lines *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const char *s = src->v[i];
        while (isspace((unsigned char)*s))
            s++;
        if (strncasecmp(s, ".p2align", 8) == 0 || strncasecmp(s, ".align", 6) == 0)
            return true;
        size_t n = 0;
        while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.' || s[n] == '$')
            n++;
        if (n > 0 && s[n] == ':' && !is_segment(s, n))
            return true;
    }
    return false;
}

static void report(const char *file, size_t line, const char *stmt, const uint8_t *exp,
                   int nexp, const uint8_t *got, size_t ngot, const char *error)
{
    char e[256], g[256];
    hex_string(exp, (size_t)nexp, e, sizeof e);
    if (error) {
        printf("MISMATCH %s:%zu: %s | expected: %s | error: %s\n", file, line, stmt, e, error);
        return;
    }
    hex_string(got, ngot, g, sizeof g);
    printf("MISMATCH %s:%zu: %s | expected: %s | got: %s\n", file, line, stmt, e, g);
}

static void check_line(const char *file, size_t line, const char *stmt, const char *hex,
                       const uint8_t *got, size_t ngot, const char *error, tally *t)
{
    uint8_t exp[512];
    int nexp = parse_hex(hex, exp, (int)sizeof exp);
    t->total++;
    if (nexp < 0) {
        printf("BADHEX %s:%zu: '%s'\n", file, line, hex);
        t->mismatched++;
        return;
    }
    if (!error && ngot == (size_t)nexp && memcmp(got, exp, ngot) == 0) {
        t->passed++;
        return;
    }
    t->mismatched++;
    report(file, line, stmt, exp, nexp, got, ngot, error);
}

static void check_by_line(const char *file, const lines *src, const lines *hex, tally *t)
{
    for (size_t i = 0; i < src->n; i++) {
        asm_code code = {0};
        nb_error err;
        if (asm_assemble(src->v[i], "asm", &code, &err) != 0) {
            char msg[sizeof err.message + 32];
            snprintf(msg, sizeof msg, "%d:%d: %s", err.line, err.col, err.message);
            check_line(file, i + 1, src->v[i], hex->v[i], NULL, 0, msg, t);
            continue;
        }
        check_line(file, i + 1, src->v[i], hex->v[i], code.bytes, code.size, NULL, t);
        asm_code_free(&code);
    }
}

static void check_whole(const char *file, const char *text, const lines *src, const lines *hex,
                        tally *t)
{
    asm_code code = {0};
    nb_error err;
    if (asm_assemble(text, "asm", &code, &err) != 0) {
        /* One line for the file, not one per statement: the cause is one. */
        printf("MISMATCH %s:%d: %s | whole file (%zu statements) rejected: %d:%d: %s\n", file,
               err.line, err.line >= 1 && (size_t)err.line <= src->n ? src->v[err.line - 1] : "?",
               src->n, err.line, err.col, err.message);
        t->total += src->n;
        t->mismatched += src->n;
        return;
    }
    /* Statements come in source order; collect each line's byte range. */
    size_t k = 0;
    for (size_t i = 0; i < src->n; i++) {
        size_t line = i + 1, first = SIZE_MAX, end = 0;
        while (k < code.n_stmts && (size_t)code.stmts[k].line < line)
            k++;
        for (; k < code.n_stmts && (size_t)code.stmts[k].line == line; k++) {
            if (first == SIZE_MAX)
                first = code.stmts[k].offset;
            end = code.stmts[k].offset + code.stmts[k].size;
        }
        if (first == SIZE_MAX)
            first = end = 0;
        check_line(file, line, src->v[i], hex->v[i], code.bytes + first, end - first, NULL, t);
    }
    asm_code_free(&code);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_golden_corpus(void **state)
{
    (void)state;
    DIR *d = opendir(GOLDEN_DIR);
    assert_non_null(d);
    char *names[256];
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < 256) {
        size_t l = strlen(e->d_name);
        if (l > 2 && strcmp(e->d_name + l - 2, ".s") == 0)
            names[nn++] = strndup(e->d_name, l - 2);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_names);

    tally all = {0};
    char summary[4096] = "";
    size_t so = 0;
    for (size_t f = 0; f < nn; f++) {
        char spath[512], hpath[512], file[300];
        snprintf(spath, sizeof spath, GOLDEN_DIR "/%s.s", names[f]);
        snprintf(hpath, sizeof hpath, GOLDEN_DIR "/%s.hex", names[f]);
        snprintf(file, sizeof file, "%s.s", names[f]);
        char *stext = read_file(spath), *htext = read_file(hpath);
        assert_non_null(stext);
        if (!htext)
            fail_msg("%s has no %s (run make golden)", spath, hpath);
        char *whole = strdup(stext);
        lines src = split_lines(stext), hex = split_lines(htext);
        if (src.n != hex.n)
            fail_msg("%s has %zu lines but %s has %zu", spath, src.n, hpath, hex.n);
        tally t = {0};
        if (needs_whole_file(&src))
            check_whole(file, whole, &src, &hex, &t);
        else
            check_by_line(file, &src, &hex, &t);
        so += (size_t)snprintf(summary + so, sizeof summary - so, "  %-16s %5zu/%zu\n", file,
                               t.passed, t.total);
        all.total += t.total;
        all.passed += t.passed;
        all.mismatched += t.mismatched;
        free(src.v);
        free(hex.v);
        free(stext);
        free(htext);
        free(whole);
        free(names[f]);
    }
    printf("golden corpus: %zu/%zu statements match GNU as (%.2f%%)\n%s", all.passed, all.total,
           all.total ? 100.0 * (double)all.passed / (double)all.total : 0.0, summary);
    fflush(stdout); /* the summary before cmocka's verdict on stderr */
    if (all.total < MIN_STATEMENTS)
        fail_msg("golden corpus holds only %zu statements (< %d)", all.total, MIN_STATEMENTS);
    if (all.mismatched)
        fail_msg("%zu golden statements differ from GNU as (MISMATCH lines above)",
                 all.mismatched);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
