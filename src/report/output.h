/* Folder report/: what a result looks like once measured.  nanoBench's
 * text lines (text.c), the record tree behind JSON and CSV (record.c),
 * the machine's fingerprint in every record (fingerprint.c) and the writer
 * that picks the format and streams it (output.c).  report/ reads results;
 * it never runs a benchmark.
 *
 * nb output: results in the format -output asks for.
 *
 *   text  nanoBench's "NAME: value" lines (text.c); in a batch each
 *         line's block is headed by "# line N: <the line>" and failures
 *         show as "error: <message>".
 *   json  one JSON object per benchmark (record.c), one per line (JSON
 *         lines), flushed as each finishes.
 *   csv   a header row, then one row per (benchmark, event): the record's
 *         keys flattened with '.', the event's under "event.".
 * The schema is in docs/output-schema.md. */
#ifndef NB_OUTPUT_H
#define NB_OUTPUT_H

#include <stdio.h>

#include "report/record.h"

typedef struct nb_out {
    nb_output fmt;
    FILE *f;
    bool batch;
    char **cols;          /* CSV header, once written */
    size_t n_cols;
    long *slot;           /* column numbers by name (output.c), -1: free */
    size_t n_slot;
    int write_errno;      /* why the last record could not be written; 0 */
} nb_out;

void out_init(nb_out *out, nb_output fmt, FILE *f, bool batch);

/* One benchmark's result (status 0) or failure.  Returns 0, or NB_ESYSTEM
 * when the output cannot be written (a closed pipe, a full disk). */
int out_record(nb_out *out, const record_ctx *ctx, const nb_options *o, const nb_run *j,
               int status, const char *message);

void out_free(nb_out *out);

#endif
