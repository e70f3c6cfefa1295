/* nb: the pipeline, and the only place that exits.
 *
 *   argv -> options -> code (assembled or read) -> events -> backend
 *        -> measurement (child process) -> statistics -> report
 *
 * Each stage returns a status; main turns the first failure into an exit
 * code (src/status.h) after everything acquired has been released. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asm/asm.h"
#include "fileio.h"
#include "options.h"
#include "status.h"

#ifndef NB_VERSION
#define NB_VERSION "0.1.0"
#endif

#define CODE_FILE_MAX (64u << 20)

/* One of the four code fragments, from -asm* or -code*. */
typedef struct fragment {
    const char *origin;    /* "asm", "asm_init", ... for diagnostics */
    const char *asm_text;
    const char *code_path;
    asm_code code;         /* the assembled or read bytes */
} fragment;

enum { FRAG_CODE, FRAG_INIT, FRAG_LATE_INIT, FRAG_ONE_TIME_INIT, FRAG_COUNT };

static int fragment_load(fragment *fr)
{
    if (fr->asm_text) {
        asm_error e;
        if (asm_assemble(fr->asm_text, &fr->code, &e) != 0) {
            asm_error_print(stderr, fr->origin, &e);
            return NB_EINPUT;
        }
        return 0;
    }
    if (fr->code_path) {
        char err[512];
        char *buf;
        size_t len;
        int rc = file_read_all(fr->code_path, CODE_FILE_MAX, false, &buf, &len, err, sizeof err);
        if (rc) {
            fprintf(stderr, "nb: -%s: %s\n", fr->origin, err);
            return rc;
        }
        fr->code.bytes = (uint8_t *)buf;
        fr->code.size = len;
    }
    return 0;
}

static int emit_code(const char *path, const asm_code *c)
{
    if (strcmp(path, "-") == 0) {
        for (size_t i = 0; i < c->size; i++)
            printf("%02x%s", c->bytes[i], i + 1 < c->size ? " " : "");
        printf("\n");
        return fflush(stdout) == 0 ? 0 : NB_ESYSTEM;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "nb: -emit %s: %s\n", path, strerror(errno));
        return NB_ESYSTEM;
    }
    size_t w = fwrite(c->bytes, 1, c->size, f);
    if (fclose(f) != 0 || w != c->size) {
        fprintf(stderr, "nb: -emit %s: write failed\n", path);
        return NB_ESYSTEM;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (getuid() != geteuid() || getgid() != getegid()) {
        fprintf(stderr, "nb: refusing to run setuid/setgid: nb runs arbitrary code by design\n");
        return NB_EXIT_USAGE;
    }
    nb_options o;
    options_defaults(&o);
    char err[1024];
    if (argc < 2) {
        fprintf(stderr, "usage: nb -asm \"<code>\" [options]   (nb -help lists them)\n");
        return NB_EXIT_USAGE;
    }
    if (options_parse(argc, argv, 1, &o, err, sizeof err) != 0) {
        fprintf(stderr, "nb: %s\n", err);
        return NB_EXIT_USAGE;
    }
    if (o.help) {
        options_print_help(stdout);
        printf("\nExit codes:\n");
#define NB_X(name, code, text) printf("  %d  %s\n", code, text);
        NB_EXIT_LIST(NB_X)
#undef NB_X
        return NB_EXIT_OK;
    }
    if (o.version) {
        printf("nb %s\n", NB_VERSION);
        return NB_EXIT_OK;
    }

    fragment fr[FRAG_COUNT] = {
        [FRAG_CODE] = {"asm", o.asm_code, o.code, {0}},
        [FRAG_INIT] = {"asm_init", o.asm_init, o.code_init, {0}},
        [FRAG_LATE_INIT] = {"asm_late_init", o.asm_late_init, o.code_late_init, {0}},
        [FRAG_ONE_TIME_INIT] = {"asm_one_time_init", o.asm_one_time_init, o.code_one_time_init, {0}},
    };
    static const char *code_origin[FRAG_COUNT] = {"code", "code_init", "code_late_init", "code_one_time_init"};
    for (int i = 0; i < FRAG_COUNT; i++)
        if (fr[i].code_path)
            fr[i].origin = code_origin[i];
    int rc = 0;
    for (int i = 0; i < FRAG_COUNT && rc == 0; i++)
        rc = fragment_load(&fr[i]);
    /* Init fragments may be empty; the benchmarked code may not: with no
     * bytes there is nothing to unroll and every result would be overhead. */
    if (rc == 0 && (o.asm_code || o.code) && fr[FRAG_CODE].code.size == 0) {
        if (o.asm_code) {
            fprintf(stderr, "nb: option -asm: no instructions (only blanks, comments or labels)\n");
            rc = NB_EUSAGE;
        } else {
            fprintf(stderr, "nb: -code: %s: empty file\n", o.code);
            rc = NB_EINPUT;
        }
    }

    if (rc == 0 && o.emit)
        rc = emit_code(o.emit, &fr[FRAG_CODE].code);
    else if (rc == 0 && o.print_code) {
        static const char *titles[FRAG_COUNT] = {"code", "init", "late_init", "one_time_init"};
        for (int i = 0; i < FRAG_COUNT; i++) {
            if (!fr[i].code.size && i != FRAG_CODE)
                continue;
            printf("%s%s:\n", i ? "\n" : "", titles[i]);
            asm_print_listing(stdout, &fr[i].code);
        }
    } else if (rc == 0) {
        fprintf(stderr, "nb: measurement is not built into this version yet\n");
        rc = NB_EUNSUPPORTED;
    }

    for (int i = 0; i < FRAG_COUNT; i++)
        asm_code_free(&fr[i].code);
    return nb_status_exit_code(rc);
}
