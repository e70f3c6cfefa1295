/* nb worker: the measuring process, seen from the session: runs one event
 * group's measurement in a pinned child process.
 *
 * The child is kept from run to run (the groups of a benchmark, the lines of
 * a batch) until it faults, times out, needs other settings (CPU, -r14_size,
 * -debug) or worker_stop() ends it; each run gets zeroed memory areas.
 * The child pins itself to the CPU, catches faults on an alternate stack,
 * opens the group's counters (when the backend opens in the measuring
 * process), maps the memory areas, generates the programs (codegen.h), runs
 * code_one_time_init once, the initial warm-up, then run(first) and
 * run(second); the tsc backend's calibration brackets each run.  Results go
 * to a shared mapping the parent reads and checks (worker.c).  Before the
 * first generated code runs, the child is sealed (sandbox.h: no capability,
 * a seccomp filter that traps every system call but a few harmless ones,
 * wherever the call comes from), writes no core file, dies with nb
 * (PR_SET_PDEATHSIG) and has /dev/null as stdin, stdout and stderr; its
 * memory areas, its generated code and the shared mapping have guard pages.
 * A run that needs new counters opened in a sealed child gets a new one.
 * The parent waits at most -timeout seconds, then asks the child where it
 * is (SIGUSR1) and kills it, and turns a fault, a system call or the
 * timeout into one message (fault.h): what happened, address, fragment,
 * offset, copy and the instruction there.  While the child runs, a
 * SIGINT/SIGTERM/SIGHUP of nb kills and reaps it (restore.h).
 *
 * -debug: the generated code has an int3 right before the second counter
 * read.  With gdb on PATH and a terminal on stdin, gdb is attached to the
 * child and stops there; otherwise the child's SIGTRAP handler prints every
 * general-purpose register, the flags, MXCSR, XMM0-15 and ST0-7 once (into
 * the shared mapping; the parent prints them) and the run goes on.  The run
 * is posted after gdb has left, so -timeout applies with -debug as always.
 *
 * Where it lives: worker.c (the parent: fork, post, wait, reap, kill),
 * child.c (the measuring process), trap.c (its signal handlers), gdb.c,
 * pmu/tsc_method.c (sampling and the tsc calibration); worker_shared.h
 * describes what crosses fork().  The caller owns the fragments' bytes;
 * worker_output_free() frees an output. */
#ifndef NB_MEASURE_WORKER_H
#define NB_MEASURE_WORKER_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/fragment.h"
#include "pmu/pmu.h"
#include "pmu/tsc_ports.h"
#include "sys/error.h"

/* The numbers of the options the engine uses, built once by the caller
 * (measure_params_of); this, not the command line, crosses fork(). */
typedef struct measure_params {
    long n_measurements, warm_up_count, initial_warm_up_count;
    long loop_count, alignment_offset;
    bool no_mem, df, debug;
    size_t r14_size;             /* bytes */
    bool r14_mid;                /* R14 in the middle of its area (no -r14_size) */
    double timeout;              /* seconds, 0 = none */
    int agg;                     /* nb_agg: the tsc method aims the printed value */
    bool patient;                /* one benchmark on its own (not a batch line or a
                                    sweep's form): a shared core may be waited out
                                    (pmu/tsc_method.h: TSC_SHARED_WAIT_NS) */
} measure_params;

typedef struct worker_request {
    measure_params p;
    nb_fragment frag[NB_FRAG_MAX];   /* the code, named for fault reports */
    const pmu_backend *backend;
    const pmu_config *cfg;
    const pmu_group_plan *plan;
    const pmu_group *opened;     /* opened by the parent, or NULL: child opens */
    int cpu;
    long copies[2];              /* copies of the code in the first and second program */
    long loops[2];               /* their loop counts (-basic_mode: the first has none) */
    /* The first group of a benchmark: the measuring process starts from
     * zeroed memory areas and reset x87/AVX/AMX state, and runs
     * -asm_one_time_init and the initial warm-up, once per benchmark as
     * nanoBench does; later groups find the memory as the previous left it. */
    bool fresh;
    /* Every group of the benchmark (plan's among them), for a backend that
     * opens its groups in the measuring process: a new process opens them
     * all before it is sealed (sandbox.h), so that the benchmark's later
     * groups, and the same groups of the next batch line, need no new
     * process.  NULL/0: only plan's. */
    const pmu_group_plan *groups;
    size_t n_groups;
} worker_request;

typedef struct worker_output {
    size_t n_ctr;
    pmu_counter *ctr;            /* as opened */
    double *samples[2];          /* [run][ctr * n_measurements + i] */
    bool *overflow;              /* per counter */
    unsigned char lost[PMU_MAX_GROUP_CTR];   /* per counter: pmu_lost */
    uint64_t steps;              /* a stepped group (pmu_group.stepped): the
                                    traps it took (emu_step.h) */
    uint64_t retired;            /* ... and the instructions it counted */
    bool step_over;              /* ... ran over its step_budget: its counters
                                    are unavailable */
    double cal_run[2];           /* ticks per core cycle used for each run */
    double cal_hw;               /* its half-width */
    double *cal;                 /* every calibration value */
    size_t n_cal;
    size_t cal_runs;             /* the clock's runs (n_cal holds the first) */
    double tsc_ghz;
    double alu_slowdown;         /* how much slower the 1-cycle ADD chain ran
                                    than the clock (sibling hyperthread) */
    double alu_slowdown_hw;      /* its half-width (0: the clock is the ADD chain) */
    double fe_slowdown;          /* how much slower the front-end probe ran than
                                    the quiet core (pmu/tsc_frontend.h) */
    double fe_slowdown_hw;       /* its half-width */
    double ld_slowdown;          /* how much slower the load probe ran than its
                                    latency (pmu/tsc_load.h) */
    double ld_slowdown_hw;       /* its half-width */
    double port_slowdown[TSC_PORTS];      /* how much slower each port probe
                                             ran than the quiet core
                                             (pmu/tsc_ports.h) */
    double port_slowdown_hw[TSC_PORTS];   /* its half-width */
    double clock_moved;          /* how far the clock moved while measured
                                    (a fraction; in cal_hw) */
    size_t restarts;             /* measurements started over for it */
    size_t shared_waits;         /* ...and, besides, after waiting for a shared core
                                    (tsc_outcome.waits) */
    unsigned placements;         /* places of the code measured (measure/place.h) */
    bool placement_moved;        /* the second was kept */
    bool disturbed;              /* the runs showed the core disturbed
                                    (pmu/tsc_estimate.h: tsc_disturbed) */
    bool placement_averaged;     /* the value is the mean of several places */
    bool placement_compared;     /* front-end-bound code compared at two or three */
    double placement_off;        /* the value at the other, relative to the kept */
    double loop_misfit;          /* a loop's first program's rate a copy against the
                                    difference's, where they lay apart (a fraction) */
    size_t data_pages;           /* pages of the areas present (measure/place.h) */
    double prelude_spread;       /* how far the preludes moved the value (a fraction) */
    double settle_spread;        /* how far it moved from the first half of the
                                    runs to the second (a fraction) */
    double context;              /* where the code meets the harness, in the uncertainty
                                    (a fraction of the value) */
    bool fe_bound;               /* the code the front end bounds (tsc_context_cycles) */
    double tsc_step;             /* the TSC's step (ticks) */
    /* The tsc method's estimate (has_unc): per counter, second minus first
     * program (the means of their undisturbed runs) and its half-width, in
     * the counter's unit, before normalization; runs made and kept, passes. */
    bool has_unc;
    double diff[PMU_MAX_GROUP_CTR], unc[PMU_MAX_GROUP_CTR];
    /* without has_unc: the part of each half-width that the samples' spread
     * does not show (the harness context, a neighbour's share), in the
     * counter's unit, before normalization; 0 where none */
    double fixed[PMU_MAX_GROUP_CTR];
    size_t runs[2], kept[2], passes;
} worker_output;

/* Returns 0, or NB_EFAULT or another negative status with the message in
 * *err.  The measuring process is kept for the next run (see worker_stop). */
int worker_run(const worker_request *job, worker_output *out, nb_error *err);

/* End the measuring process kept between runs, if there is one. */
void worker_stop(void);

void worker_output_free(worker_output *out);


#endif
