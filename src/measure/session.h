/* Folder measure/: running a benchmark and turning readings into results.
 * The session (this header) picks the backend and the event groups and
 * normalizes the results; the measuring process runs the generated code
 * pinned, apart from nb (worker.h: nb's side; child.c, step.c, trap.c,
 * gdb.c and sandbox.c: its side; worker_shared.h: what crosses fork()); a
 * fault in it becomes one message (fault.h); stats.h aggregates.
 *
 * nb session: the measuring session, one benchmark at a time from code
 * bytes and events to per-copy figures (bench_*: a benchmark's code, its
 * result).
 *
 * bench_run() measures one benchmark in a session of its own: it picks the
 * backend (-backend, else the best usable one), splits the events into
 * groups, and for each group runs the generated code in the measuring
 * process (worker.h):
 * run(unroll_count) and run(2 x unroll_count) (-basic_mode: 0 and
 * unroll_count), each warm_up_count discarded runs then n_measurements kept
 * ones.  The result of an event is (agg(second) - agg(first)) /
 * max(loop_count x unroll_count, unroll_count) (-no_normalization: the raw
 * difference).  Every system setting changed on the way goes through
 * restore.h and is undone before bench_run returns.
 *
 * The bench_result owns its arrays; free it with bench_result_free(). */
#ifndef NB_MEASURE_SESSION_H
#define NB_MEASURE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmu/tsc_ports.h"
#include "sys/cpu.h"
#include "sys/error.h"
#include "events/config.h"
#include "cli/options.h"

typedef struct bench_code {
    const uint8_t *code, *init, *late_init, *one_time_init;
    size_t code_len, init_len, late_init_len, one_time_init_len;
} bench_code;

typedef struct bench_event_result {
    char name[NB_EVENT_NAME_MAX];
    bool unavailable;        /* the backend cannot count it: never printed as 0 */
    bool estimated;          /* tsc backend: core cycles from the calibration */
    bool exact;              /* counted by the emulator (pmu/emu.h): exact */
    bool step_over;          /* the emulator was to count it but gave up
                                (tsc+emu's budget): unavailable, with a note */
    bool overflow;           /* a reading went backwards (counter wrapped) */
    unsigned char lost;      /* pmu_lost: the counter moved or was multiplexed
                                during the runs; its readings are not used
                                (unavailable is set too) */
    size_t group;            /* which group (benchmark execution) measured it */
    double value;            /* the result, normalized unless -no_normalization */
    /* The half-width of nb's interval for value, in its unit: the truth
     * lies within value +/- uncertainty (statistical: TSC_Z standard errors
     * of the difference of the two runs, the clock's share for estimated
     * cycles, and how far the printed aggregate lies from the estimate it
     * came with); 0 for exact counts, NAN where unavailable or unknown (a
     * counter with one sample). */
    double uncertainty;
    /* The value is not pinned down: its uncertainty per copy is above
     * max(0.02, 1.5 %) of it (tsc_tolerance), or it is impossible
     * (negative estimated cycles beyond its uncertainty on code that does
     * work), or it is estimated cycles measured while another thread
     * shared the core (tsc_core_shared, tsc_frontend_shared,
     * tsc_load_shared: the value is
     * near an upper bound, TSC_SHARED_SPAN of it in the interval).  A
     * warning says so; the value is
     * printed as measured. */
    bool uncertain;
    double min, max;         /* -range: from the per-run minima and maxima */
    double agg[2];           /* aggregate of the first and second run */
    double *samples[2];      /* n_samples raw m2-m1 readings of each run */
    size_t n_samples;
} bench_event_result;

/* The calibrated-TSC backend's figures (n_cal == 0 for other backends). */
typedef struct bench_calibration {
    double ticks_per_cycle;          /* the value used (median of all) */
    double ticks_per_cycle_hw;       /* its half-width (as bench_event_result's) */
    double ticks_per_cycle_run[2];   /* used for the first and second run */
    double ticks_per_cycle_min, ticks_per_cycle_max;
    size_t n_cal;                    /* calibration values kept (0: not tsc) */
    size_t calibrations;             /* calibration runs of the clock, all groups */
    double tsc_ghz;                  /* TSC frequency, measured against the clock */
    double core_ghz;                 /* = tsc_ghz / ticks_per_cycle */
    /* How much slower a dependent chain of 1-cycle ADDs ran than the clock
     * (e.g. 0.03: 3%), from the IMUL chain that calibrates alongside it: the
     * other hyperthread of the core competing for the ALUs.  Short-latency
     * benchmarks read that much high then, as a PMU would count them. */
    double alu_slowdown;
    double alu_slowdown_hw;          /* its half-width; 0: not known (the ADD
                                        chain is the clock) */
    /* How much slower a loop of NOPs ran than the core takes when nothing
     * shares it (pmu/tsc_frontend.h: another thread sharing the front
     * end), and its half-width; 0: not known. */
    double fe_slowdown;
    double fe_slowdown_hw;
    /* How much slower a chain of L1 loads ran than its latency in whole
     * cycles (pmu/tsc_load.h: another thread sharing the load pipeline),
     * and its half-width; 0: not known. */
    double ld_slowdown;
    double ld_slowdown_hw;
    /* How much slower each port probe's instructions, which do not wait
     * on each other, ran than the quiet core's (pmu/tsc_ports.h: another
     * thread sharing the load ports, the store ports, the ALUs), and its
     * half-width; 0: not known. */
    double port_slowdown[TSC_PORTS];
    double port_slowdown_hw[TSC_PORTS];
    /* How far the core's clock moved while it was measured, beyond its
     * noise (a fraction, 0: it did not; part of ticks_per_cycle_hw), and
     * how often the measurement started over for it; how often, besides,
     * it waited for a shared core to be left alone and started over again
     * (pmu/tsc_method.h: TSC_SHARED_PAUSE_NS). */
    double clock_moved;
    size_t restarts;
    size_t shared_waits;
    /* Places in memory the code was measured at (2: its programs' cost was
     * not their copies', measure/place.h), whether the second was kept, and
     * how far the value at the place not kept lay from the kept one's (a
     * signed fraction); averaged: code beyond the L1 instruction cache,
     * whose value is the mean of `placements` places (off: the furthest
     * from the first's); compared: code the front end bounds, measured at
     * a second place (and a third where the two disagreed; moved: the
     * second and third agreed). */
    unsigned placements;
    bool placement_moved, placement_averaged, placement_compared;
    double placement_off;
    /* A loop whose first program's copies cost a copy what the difference
     * does not: how far its rate lay from the difference's (a fraction,
     * signed; both in the uncertainty), 0 otherwise (measure/place.h). */
    double loop_misfit;
    /* Pages of the areas R14 and the others point into that were present
     * after the measurement; beyond PLACE_DATA_PAGES (measure/place.h) the
     * value depends on the pages its data got, a share of it in its
     * uncertainty. */
    size_t data_pages;
    /* Whether a fifth or more of a program's runs read beyond the rest
     * (pmu/tsc_estimate.h: tsc_disturbed; runs and kept say how many). */
    bool disturbed;
    /* How far what ran right before the code moved its estimated cycles:
     * the distance of the values after the tsc method's two preludes,
     * beyond their noise, as a fraction of the value (0: not at all; in
     * the uncertainty). */
    double prelude_spread;
    /* How far the estimated cycles moved from the first half of the runs to
     * the second, beyond twice their noise, as a fraction of the value (0:
     * they held still; in the uncertainty). */
    double settle_spread;
    /* Where the code meets the harness, in the uncertainty, as a fraction of
     * the value (tsc_context_cycles); fe_bound: code the front end bounds,
     * which takes more of it. */
    double harness_context;
    bool fe_bound;
    /* The TSC's step: the quantum its readings come in (ticks; 2 on an
     * Emerald Rapids guest, 21 on a Zen 5 host's guest). */
    double tsc_step;
    /* The tsc method's work for the clock's group: runs of each program
     * made and kept as undisturbed, passes over the samples (0: none). */
    size_t runs[2], kept[2], passes;
} bench_calibration;

typedef struct bench_result {
    const char *backend;             /* pmu_backend.name */
    bench_event_result *ev;
    size_t n_ev;
    size_t n_groups;
    long copies[2];                  /* local unroll count of the two runs */
    long loops[2];                   /* their loop counts (-basic_mode: 0 for the first) */
    /* The emulator's work (pmu/emu_step.h): instructions it counted in the
     * measured runs, and the traps that took (0, 0: it did not run). */
    unsigned long long emu_instructions, emu_traps;
    double normalization;            /* the divisor (1 with -no_normalization) */
    bench_calibration cal;
} bench_result;

/* One benchmark in a session of its own.  Returns 0, or a negative status
 * with the message in *err (as for every function here). */
int bench_run(const nb_options *o, const bench_code *c, const nb_event *events,
              size_t n_events, const cpu_info *cpu, bench_result *out, nb_error *err);

/* A session shares set-up between benchmarks (a batch): the backend and
 * user-mode rdpmc once per (backend option, CPU, -usr, -os), the event
 * grouping once per event set, and for the msr and tsc backends (which
 * program counters in nb itself) the open groups too.  The perf backend
 * opens its counters in each measuring child (perf_event counts the task
 * that opened it).  bench_session_free() undoes every system setting the
 * session changed. */
typedef struct bench_session bench_session;
bench_session *bench_session_new(void);
int bench_session_run(bench_session *s, const nb_options *o, const bench_code *c,
                      const nb_event *events, size_t n_events, const cpu_info *cpu,
                      bench_result *out, nb_error *err);
void bench_session_free(bench_session *s);

/* Tests: the msr device and sysfs under these roots instead of / (a fake
 * msr device, a regular file, makes the msr backend's groups stepped: the
 * emulator answers the counters from the event selects nb wrote there). */
void bench_session_set_roots(bench_session *s, const char *dev_root, const char *sysfs_root);

/* -dry_run: what the backend would program, for every group; no code runs. */
int bench_dry_run(FILE *f, const nb_options *o, const nb_event *events, size_t n_events,
                  const cpu_info *cpu, nb_error *err);

/* "tsc (CORE_CYCLES estimated: TSC 2.096 GHz, 0.6020 +/- 0.0015 ticks/core
 * cycle from 5 calibrations, core ~3.48 GHz)" — what main prints after
 * "nb: backend: ". */
void bench_backend_line(const bench_result *r, char *buf, size_t buflen);

void bench_result_free(bench_result *r);

/* The backend bench_run would use with these options (-cpu_info), or NULL;
 * the refusals of the backends tried before it are the message of *why. */
const char *bench_backend_name(const nb_options *o, const cpu_info *cpu, nb_error *why);

#endif
