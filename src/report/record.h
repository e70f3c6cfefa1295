/* nb record: one benchmark's result (or its failure) as a value tree, the
 * single source of the JSON object and the CSV rows (output.c).  The keys
 * are documented in docs/output-schema.md and checked against
 * docs/output-schema.json by tests/cli/output_schema.sh. */
#ifndef NB_RECORD_H
#define NB_RECORD_H

#include "report/fingerprint.h"
#include "report/subject.h"
#include "lib/json.h"

#define RECORD_SCHEMA "nb-result-1"

typedef struct record_ctx {
    const nb_fingerprint *fp;
    const char *command;      /* the nb command line that reproduces it */
    long line;                /* batch line number; 0: not in a batch */
    const char *line_text;    /* the batch line as written, or NULL */
} record_ctx;

/* status 0: a result (j measured); else an error record carrying message and
 * whatever j holds so far (j or o may be NULL). */
jv *record_build(const record_ctx *ctx, const nb_options *o, const nb_run *j, int status,
                 const char *message);

/* "nb -asm '...' -unroll_count 100": every option that differs from its
 * default, quoted for a POSIX shell; nb's actions (-batch, -output, -emit,
 * -list_*, ...) left out.  malloc'd (NULL when out of memory). */
char *record_command(const nb_options *o);

/* "fault", "timeout", "input", "usage", "system", "memory", "unsupported". */
const char *record_error_kind(int status, const char *message);

#endif
