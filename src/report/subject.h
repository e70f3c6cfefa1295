/* nb subject: what a record describes — one benchmark as a run-and-record
 * step (cli/run.c) holds it: its code fragments as given and assembled, its
 * events, and its result once measured.  The type lives here, below both
 * the step that fills it and the report that shows it (record.c, output.c),
 * so that the report layer reads data and depends on no orchestration. */
#ifndef NB_REPORT_SUBJECT_H
#define NB_REPORT_SUBJECT_H

#include <stdbool.h>

#include "asm/asm.h"
#include "cli/options.h"
#include "events/config.h"
#include "harness/fragment.h"
#include "measure/session.h"

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

#endif
