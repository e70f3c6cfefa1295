/* nb run: one run-and-record step.  What `nb -asm ...` does once and what
 * every line of a batch does: the code fragments assembled or read, the
 * events resolved, the measurement (or -dry_run, -emit, -print_code), and
 * the result written as one record in the -output format.
 *
 * main runs one step with a session of its own; a batch runs one per line,
 * sharing a bench_session and an nb_out.  A failure comes back in the
 * nb_error for the caller to print (main with nb_error_print, the batch
 * prefixed with its line); the record carries the same text. */
#ifndef NB_CLI_RUN_H
#define NB_CLI_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/options.h"
#include "measure/session.h"
#include "report/subject.h"
#include "sys/cpu.h"
#include "sys/error.h"

struct nb_out;
struct nb_fingerprint;

/* What stays the same from step to step. */
typedef struct run_env {
    const cpu_info *cpu;
    const char *uarch;               /* the event table, NULL: none */
    const struct nb_fingerprint *fp;
    bench_session *session;          /* NULL: a session of the step's own */
    struct nb_out *out;              /* where records go */
    long line;                       /* batch line number; 0: a single run */
    const char *line_text;           /* the batch line as written, or NULL */
    /* Called before the step writes anything to stdout or stderr (a
     * batch's progress line clears itself); may be NULL. */
    void (*before_output)(void *ctx);
    void *ctx;
    bool backend_noted;              /* "nb: backend: ..." was said */
} run_env;

/* One step.  Returns 0, or a negative status with *err filled; the record
 * is written in either case, except for a failed single run in text mode
 * (nanoBench prints nothing then).  A record that cannot be written makes
 * NB_ESYSTEM (with the measurement's own status kept when it failed). */
int run_and_record(run_env *env, const nb_options *o, nb_error *err);

/* The record of a step that failed before it had a benchmark (a batch
 * line's words or options): `o` as far as they were parsed; `unread`: the
 * line could not even be read as text, so no command reproduces it. */
int run_record_failure(run_env *env, const nb_options *o, bool unread, const nb_error *err);

#endif
