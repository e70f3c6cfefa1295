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

#include "asm/asm.h"
#include "cli/options.h"
#include "events/config.h"
#include "harness/fragment.h"
#include "measure/session.h"
#include "sys/cpu.h"
#include "sys/error.h"

struct nb_out;
struct nb_fingerprint;

/* One of the four code fragments, from -asm* or -code*. */
typedef struct run_fragment {
    const char *origin;    /* "asm", "asm_init", ... or "code", ... */
    const char *asm_text;
    const char *code_path;
    asm_code code;         /* the assembled or read bytes */
} run_fragment;

/* A benchmark as one step sees it, owned by the step: what the record of
 * report/record.c shows. */
typedef struct nb_run {
    const nb_options *o;
    run_fragment fr[NB_FRAG_MAX];
    nb_event_list ev;
    nb_msr_event_list msr;
    bench_result res;
    bool measured;         /* res is filled */
} nb_run;

/* The fragments' names as records and listings call them. */
extern const char *const run_fragment_names[NB_FRAG_MAX];

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
