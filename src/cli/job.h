/* nb job: one benchmark from its options: the code fragments assembled or
 * read, the events resolved, the measurement.  main runs one job; a batch
 * runs one per line through the same functions, sharing a bench_session.
 *
 * Diagnostics go to the FILE the caller passes: stderr for a single run, a
 * memory stream per batch line (so that the line's error record carries
 * them).  Every function returns 0 or a negative NB_E* status after writing
 * its diagnostic. */
#ifndef NB_JOB_H
#define NB_JOB_H

#include <stdio.h>

#include "asm/asm.h"
#include "measure/bench.h"
#include "sys/cpu.h"
#include "events/config.h"
#include "cli/options.h"

enum { FRAG_CODE, FRAG_INIT, FRAG_LATE_INIT, FRAG_ONE_TIME_INIT, FRAG_COUNT };

/* One of the four code fragments, from -asm* or -code*. */
typedef struct job_fragment {
    const char *origin;    /* "asm", "asm_init", ... or "code", ... */
    const char *asm_text;
    const char *code_path;
    asm_code code;         /* the assembled or read bytes */
} job_fragment;

typedef struct nb_job {
    const nb_options *o;
    job_fragment fr[FRAG_COUNT];
    nb_event_list ev;
    nb_msr_event_list msr;
    bench_result res;
    bool measured;         /* res is filled */
} nb_job;

/* The fragments' names as records and listings call them. */
extern const char *const job_fragment_names[FRAG_COUNT];

/* Assemble or read every fragment the options name. */
int job_load_code(nb_job *j, const nb_options *o, FILE *diag);

/* -config FILE | -config all | -events | the table's common set. */
int job_resolve_events(nb_job *j, const cpu_info *cpu, const char *uarch, FILE *diag);

/* Measure (s may be NULL: a one-off session). */
int job_measure(nb_job *j, bench_session *s, const cpu_info *cpu, FILE *diag);

/* bench_code view of the loaded fragments. */
bench_code job_bench_code(const nb_job *j);

void job_free(nb_job *j);

#endif
