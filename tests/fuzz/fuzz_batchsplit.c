/* libFuzzer target for batch_split, the -batch line splitter: the input, up
 * to its first NUL byte (a line never holds one: batch_main refuses it), is
 * one line.  A crash, a leak or a sanitizer report fails; so does
 *  - an error that is not "column N: unterminated Q quote" with a column
 *    inside the line that holds that quote,
 *  - words that are not laid out one after another in the store, within the
 *    line's length, with argv NULL-terminated,
 *  - words that do not come back the same when written out again, once
 *    in single quotes and once in double quotes, and split again. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/batch.h"
#include "sys/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The words written as one line, each quoted: single quotes (a ' as '\''),
 * or double quotes (with \ before " \ $ `). */
static char *requote(char **argv, int n, int dbl)
{
    size_t cap = 1;
    for (int i = 0; i < n; i++)
        cap += 4 * strlen(argv[i]) + 3;
    char *out = malloc(cap), *w = out;
    if (!out)
        abort();
    for (int i = 0; i < n; i++) {
        *w++ = dbl ? '"' : '\'';
        for (const char *p = argv[i]; *p; p++) {
            if (!dbl && *p == '\'') {
                memcpy(w, "'\\''", 4);
                w += 4;
                continue;
            }
            if (dbl && strchr("\"\\$`", *p))
                *w++ = '\\';
            *w++ = *p;
        }
        *w++ = dbl ? '"' : '\'';
        *w++ = ' ';
    }
    *w = '\0';
    return out;
}

static void same_words(char **a, int na, const char *line)
{
    char **b = NULL, *store = NULL;
    nb_error err;
    nb_error_clear(&err);
    int nb = batch_split(line, &b, &store, &err);
    if (nb != na)
        abort();
    for (int i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            abort();
    free(b);
    free(store);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1);
    if (!line)
        return 0;
    memcpy(line, data, size);
    line[size] = '\0';
    size_t len = strlen(line);

    char **argv = NULL, *store = NULL;
    nb_error err;
    nb_error_clear(&err);
    int n = batch_split(line, &argv, &store, &err);
    if (n < 0) {
        size_t col = 0;
        char q = 0, tail[32] = "";
        if (sscanf(err.message, "column %zu: unterminated %c quote%31s", &col, &q, tail) != 2 ||
            col < 1 || col > len || line[col - 1] != q || (q != '\'' && q != '"') ||
            err.col != (int)col || err.status != NB_EUSAGE)
            abort();
        free(line);
        return 0;
    }
    if (argv[n] != NULL)
        abort();
    const char *next = store;
    for (int i = 0; i < n; i++) {
        if (argv[i] != next)
            abort();
        next += strlen(argv[i]) + 1;
    }
    if ((size_t)(next - store) > len + 1)
        abort();
    for (int dbl = 0; dbl < 2; dbl++) {
        char *again = requote(argv, n, dbl);
        same_words(argv, n, again);
        free(again);
    }
    free(argv);
    free(store);
    free(line);
    return 0;
}
