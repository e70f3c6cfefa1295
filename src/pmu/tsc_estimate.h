/* nb tsc estimate: from every run the tsc method made of a program to its
 * samples, and an interval that holds the truth (see tsc_estimate.c).
 *
 * A tsc_log lists the runs of one program: each run's reading of every
 * counter and the sample it belongs to; its arrays belong to the caller.
 * Pure functions of their inputs, no clock, no I/O: unit-tested with
 * synthetic runs (tests/test_tsc_estimate.c). */
#ifndef NB_PMU_TSC_ESTIMATE_H
#define NB_PMU_TSC_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu/pmu.h"

/* Standard errors a stated half-width spans: on a normal error, 3 leaves
 * one value in 370 outside its interval. */
#define TSC_Z 3.0

/* What ran right before a run (tsc_method.c): the tsc method takes turns
 * of TSC_PRELUDES preludes, and how far the code's cost moves between
 * them is part of the uncertainty (tsc_prelude_spread). */
#define TSC_PRELUDES 2

typedef struct tsc_log {
    double *v;           /* [run * n_ctr + c] */
    uint32_t *sample;    /* [run]: the sample the run belongs to */
    uint8_t *keep;       /* [run]: set by tsc_fit */
    uint8_t *prelude;    /* [run]: its prelude (< TSC_PRELUDES); NULL: all 0 */
    double *t;           /* [run]: the TSC when it started, set by the caller; NULL: none */
    size_t n, cap;       /* runs logged, room for */
    size_t n_ctr;
} tsc_log;

/* One program: the mean of its kept runs per counter and its standard
 * error; the runs kept, of how many; the longest reading kept. */
/* The window above the lowest quarter of the runs that holds the
 * undisturbed ones (at least 4 TSC steps, and TSC_WINDOW_TICKS: on a fine
 * TSC a tenth of a short program, -basic_mode's harness alone, is 10
 * ticks, narrow enough to drop runs a host slows by a quarter now and then
 * while the second program's window keeps their like, so that the two are
 * not judged alike; 80 is what 4 steps of the coarse TSCs came to, which
 * an interrupt, thousands of ticks, still lies far beyond.  Batch lines on
 * an Emerald Rapids guest: 21 of 1,800 beyond their uncertainty with it,
 * 39 without, in the same run). */
#define TSC_WINDOW 0.1
#define TSC_WINDOW_TICKS 80.0

typedef struct tsc_fit {
    double mean[PMU_MAX_GROUP_CTR];
    double se[PMU_MAX_GROUP_CTR];
    /* how far the mean moves with a third or twice the window */
    double ambiguity[PMU_MAX_GROUP_CTR];
    size_t kept, runs;
    /* runs that lead a stretch of two or more runs of their sample (where
     * the programs take turns, the first after the other program's runs;
     * none where each sample is one run, as in nanoBench's order), and of
     * them how many the window left out */
    size_t lead, lead_out;
    double limit;
    /* the same over the kept runs of each prelude */
    double by_mean[TSC_PRELUDES][PMU_MAX_GROUP_CTR], by_se[TSC_PRELUDES][PMU_MAX_GROUP_CTR];
    size_t by_kept[TSC_PRELUDES];
    /* the same over the kept runs of the log's first and second half (the
     * order they ran in) */
    double half_mean[2][PMU_MAX_GROUP_CTR], half_se[2][PMU_MAX_GROUP_CTR];
    size_t half_kept[2];
} tsc_fit;

/* Appends a run (n_ctr readings) to sample i, after prelude p (l->prelude
 * set) or prelude 0; false when the log is full. */
bool tsc_log_add(tsc_log *l, const double *v, uint32_t sample);
bool tsc_log_add_after(tsc_log *l, const double *v, uint32_t sample, unsigned p);

/* Counter c's difference of two programs (f[1] - f[0]) as the mean of its
 * difference after each prelude, into *diff, and how far those lie apart
 * beyond their own noise (ticks, >= 0): how much what ran right before the
 * code moves its cost.  Where a prelude kept no run of either program, the
 * difference of the means and 0. */
double tsc_prelude_spread(const tsc_fit f[2], size_t c, double *diff);

/* The standard error of that distance (ticks): a spread within a few of
 * them can be the runs' noise, which more runs shrink. */
double tsc_prelude_noise(const tsc_fit f[2], size_t c);

/* How far counter c's difference of two programs moved from the first
 * half of their runs to the second beyond twice its noise (ticks, >= 0):
 * code whose cost settles while it is measured.  A store and a load of one
 * address a copy on a Zen 5 guest: one process in a few dozen read its
 * second program's samples falling from 1,212 to 1,185 ticks and its
 * first's rising from 674 to 690, and 0.517 +/- 0.014 cycles against the
 * 0.500 every longer measurement read; no disturbance or neighbour
 * showed.  Twice the noise, so that code whose cost holds still keeps its
 * half-width (a difference of noise alone lies beyond it one time in 20,
 * and then by little).  0 where a half kept no run of either program. */
double tsc_settle_spread(const tsc_fit f[2], size_t c);

/* The standard error of the mean of the samples' differences (s1[i] -
 * s0[i], ticks; 0 below TSC_PAIRED_MIN samples): the runs' standard error
 * where each run's noise is its own, more where runs slow together for a
 * stretch.  Sample i of the two programs runs at one time in every pass,
 * a stretch of runs each: an ADD pair x 100 read 2.031 +/- 0.030,
 * unflagged, on a Zen 5 guest (1 of 2,000 single runs), three of its
 * second program's ten samples 13 cycles slower than the other seven
 * (their runs kept: 2 % is within the window); the samples' differences
 * put the mean's standard error at 2.1 cycles, +/- 0.063 a copy.  The
 * difference's noise is the samples' standard error where it exceeds the
 * runs' by TSC_PAIRED_SIG, the runs' otherwise: ten samples' spread is an
 * estimate of few degrees of freedom, which lies above 1.5 times the
 * runs' by chance one time in 60 (a chi-square of 9), and above it at all
 * nearly half the time, which took more passes of every measurement (the
 * sweep's ALU forms 9-14 % longer). */
#define TSC_PAIRED_MIN 5
#define TSC_PAIRED_SIG 1.5
double tsc_paired_se(const double *s0, const double *s1, size_t n);

/* Which runs are undisturbed (l->keep) and their means: noise only adds
 * time, so a run is kept when every counter of `judged` (bit c: counter c;
 * the clock's reads, each of which an interrupt can hit on its own) reads
 * at most max(4 TSC steps, TSC_WINDOW) above the lowest quarter of its runs;
 * the standard error counts at least the rounding of a TSC step (step:
 * ticks); the ambiguity, how much the window decides.
 * `scratch` holds l->n doubles.  f->limit: counter 0's bound. */
void tsc_fit_log(tsc_log *l, uint32_t judged, double step, double *scratch, tsc_fit *f);

/* The value of sample i of counter c (out[c * n + i]): the mean of its
 * kept runs, or the program's mean where an interrupt or preemption spoiled
 * them all.  `count` holds n doubles.  Returns how many samples had no kept
 * run. */
size_t tsc_fit_samples(const tsc_log *l, const tsc_fit *f, size_t n, double *out,
                       double *count);

/* A calibration chain's clock: ticks per core cycle from n runs of its
 * short (a) and long (b) program, `cycles` apart: the difference of their
 * undisturbed means, as for runs, but with a window of max(4 steps,
 * TSC_CAL_REL) (a chain can be slowed a little by a busy neighbour on the
 * core, which is not the clock), and its half-width.  A chain's reading
 * (b - a) cannot be judged on its own: a slowed short program makes it
 * read fast.  `scratch` holds n doubles. */
#define TSC_CAL_REL 0.01
double tsc_chain_fit(const double *a, const double *b, size_t n, double cycles, double step,
                     double *scratch, double *half_width);

/* How far a chain's clock moved while it was measured (ticks per core
 * cycle): its runs, a and b in the order they ran, cut into up to
 * TSC_DRIFT_CHUNKS stretches of at least TSC_DRIFT_CAL runs; the largest
 * distance of a stretch's clock from the whole's beyond both half-widths,
 * or of the median of the pairs' clocks above it beyond the whole's
 * half-width; 0 where that is less than TSC_DRIFT_MIN of the clock or
 * there are fewer than TSC_DRIFT_CAL runs.  (The core's frequency is not
 * the TSC's: a core that ramps up after idling, seen in a batch, runs the
 * first stretch slow; under a busy loop sharing its CPU, a core's clock
 * read 0.7436 ticks a cycle from the fastest of 10 calibrations that ran
 * up to 0.768, and a loop of 1,000 NOPs 179.7 +/- 2.1 cycles against
 * 175.0-175.5.)
 * `scratch` holds n doubles. */
#define TSC_DRIFT_CHUNKS 8
#define TSC_DRIFT_CAL 3
#define TSC_DRIFT_MIN 0.005
double tsc_clock_drift(const double *a, const double *b, size_t n, double cycles, double step,
                       double *scratch);

/* How far the clock moved, from too few calibrations for stretches of
 * them (tsc_clock_drift: fewer than 2 * TSC_DRIFT_CAL of a chain): two
 * readings in a row (cal_r, ticks per core cycle, in the order they ran;
 * both chains' on the same clock) on the same side of the fit `ratio`,
 * within TSC_LOCAL_SPAN of it, the nearer of them beyond the fit's
 * half-width hw and a reading's rounding `quantum`; 0 where that is less
 * than TSC_DRIFT_MIN of the clock.  One reading off can be an interrupted
 * calibration, two in a row at one level are the clock.  (nanoBench's 10
 * samples give each chain 5: an IMUL chain with -basic_mode read 3.054 +/-
 * 0.029 in a batch under a busy loop, its first 5 samples at 0.768 ticks
 * a cycle and its last 5 at 0.743, two readings of each chain at 0.768
 * and their medians at 0.743.) */
double tsc_clock_stepped(const double *cal_r, size_t n, double ratio, double hw, double quantum);

/* Where the clock moved while the runs were made (tsc_clock_drift), each
 * run's own clock: the reading (ticks per core cycle) of the calibration
 * nearest in time to the run's start, into local[r].  Runs (run_t) and
 * calibrations (cal_t, cal_r) in the order they ran; only readings within
 * [lo, hi] count (an interrupted calibration reads far off either way);
 * 0 where none does; local may be run_t.  (On an Emerald Rapids guest the
 * core's clock took turns between 3.2, 3.1 and 3.0 GHz every few
 * calibrations while 2 MB of NOPs ran: the window kept the runs of every
 * speed and the chains' the fastest only, and 1,000 NOPs a copy read
 * 185-194 cycles against a reference's 182-184.) */
#define TSC_LOCAL_SPAN 0.25
void tsc_local_clock(const double *run_t, size_t n_runs, const double *cal_t, const double *cal_r,
                     size_t n_cal, double lo, double hi, double *local);

/* Log `in`'s readings as if every run had run at clock `ratio`: counter c
 * of `mask` times ratio / local[r] (unchanged where local[r] is 0), the
 * others as they are, into v_out (in->n * in->n_ctr doubles). */
void tsc_log_rescale(const tsc_log *in, const double *local, double ratio, uint32_t mask,
                     double *v_out);

/* Whether the first program's ticks (`first`, over `first_execs`
 * executions of the code) are what the harness alone (`h0`, ticks, with
 * half-width `h0_hw`) and those executions at the difference's rate
 * (`diff` ticks over `diff_execs`, half-width `unc`) make: for code whose
 * cost is its copies', they are, within max(TSC_LINEAR_REL of the copies'
 * part, `floor` ticks: tsc_linear_floor) and the half-widths (in
 * quadrature: the two programs and the harness are timed apart).  Not where the
 * code lay badly in memory (6 ADDs x 1,000 copies read 0.26-0.44 cycles a
 * copy in about 3 of 100 processes, the first program slowed; x 2,000
 * copies 2.2-2.8, the second slowed), nor where it outgrows a cache
 * between the two programs.  TSC_LINEAR_REL is the tolerance, and `unc`
 * the runs' noise alone (tsc_outcome.noise): a loop of 1,000 NOPs x 10
 * copies read 269.5 +/- 3.8 where its programs read 250 elsewhere, the
 * second slowed (a probe halfway between the two sees half of that), and
 * passed at 5 % with the value's whole half-width; now 1 of 15 lines of
 * six ADDs x 1,000 is measured at a second place, none of that loop's. */
#define TSC_LINEAR_REL 0.015
bool tsc_linear(double first, double first_execs, double h0, double h0_hw, double diff,
                double diff_execs, double unc, double floor);
/* The misfit tsc_linear lets pass with these (ticks). */
double tsc_linear_allow(double first_execs, double h0_hw, double diff, double diff_execs,
                        double unc, double floor);
/* The part of that which is the misfit's own noise (ticks): h0's half-width
 * and the difference's in quadrature. */
double tsc_misfit_noise(double first_execs, double h0_hw, double diff_execs, double unc);
/* The least misfit tsc_linear lets pass (ticks), whatever the copies.
 * Code the front end bounds, and loops: TSC_LINEAR_STEPS of the TSC's
 * `step` and TSC_LINEAR_TICKS at least (what a run's start costs moves by
 * that much where the TSC is fine, 2 ticks on an Emerald Rapids guest, and
 * 8 of its steps re-placed 15-byte NOPs x 1,000 at the L1 instruction
 * cache's edge, whose programs read alike at every place, three times a
 * line).  A chain, or code its ports bound (`chain`: straight code the
 * front end does not bound, whose harness context is TSC_CONTEXT_CYCLES a
 * program): TSC_LINEAR_CHAIN_CYCLES core cycles at `ratio` ticks a cycle,
 * the context of the two programs compared.  With the front end's floor
 * (168 ticks on a Zen 5 guest, ~290 cycles) about one single run in 500 of
 * a POPCNT, ADD-pair or L1-load chain x 100 read 2-8 % off, unflagged: one
 * program had run ~5 ticks slow at its place (misfits of 9.5-10.3 ticks,
 * the noise allowing 5-7).  With this floor and the noise in quadrature,
 * 2 of 3,000 runs of those chains and of three independent IMULs (x 100,
 * x 1,000, -basic_mode x 100) lay beyond it (their misfits -148..+16
 * ticks), one a POPCNT chain x 100 at 1.082 +/- 0.019 that the noise
 * summed let pass (the second program slow: misfit -5.0 ticks, allowed 5.5
 * summed, 4.8 in quadrature). */
#define TSC_LINEAR_STEPS 8
#define TSC_LINEAR_TICKS 160.0
#define TSC_LINEAR_CHAIN_CYCLES 2.0
double tsc_linear_floor(bool chain, double step, double ratio);
/* How far `first` lies from h0 plus its executions at the difference's
 * rate (ticks, signed): what tsc_linear judges; 0 with nothing to compare. */
double tsc_misfit(double first, double first_execs, double h0, double diff, double diff_execs);

/* The TSC's step (the quantum its readings are rounded to, ticks) from n
 * differences of reads taken a varying time apart: the largest step of
 * 4..TSC_STEP_MAX ticks that TSC_STEP_SHARE of them lie within a tick of a
 * multiple of (a host's TSC scaled from a 100 MHz reference advances by 21
 * ticks, now and then 20 or 22), else 3 or 2 where that share are exact
 * multiples of it, else 1.  Not the smallest difference: that is the time a
 * read takes where the TSC is fine (22 ticks on an Emerald Rapids guest
 * whose TSC counts in 2s).  Differences beyond TSC_STEP_SPAN ticks (an
 * interrupt) are left out. */
#define TSC_STEP_MAX 64
#define TSC_STEP_SHARE 0.97
#define TSC_STEP_SPAN 4096
double tsc_step_of(const uint64_t *diff, size_t n);

/* The tolerance a value of `v` per copy is held to: max(0.02, 1.5 %). */
double tsc_tolerance(double v);

/* Whether the clock saw another thread share the core: the 1-cycle ADD
 * chain ran slower (`slowdown`, a fraction) than the clock used implies,
 * beyond both chains' half-width (`hw`; 0 where the ADD chain was the
 * clock, so nothing was compared) and by more than TSC_SHARED. */
#define TSC_SHARED 0.005
bool tsc_core_shared(double slowdown, double hw);

/* Whether any probe saw another thread on the core: the ADD chain
 * (tsc_core_shared: alu, alu_hw), the NOP loop (tsc_frontend_shared: fe),
 * the chain of loads (tsc_load_shared: ld, ld_hw) or a port probe
 * (tsc_port_shared: port, TSC_PORTS of them).  The one place that says
 * which probes count, for the measuring process and for the flags. */
bool tsc_neighbour_seen(double alu, double alu_hw, double fe, double ld, double ld_hw,
                        const double *port);

/* Whether a program's runs show the core disturbed while they ran: of one
 * program's runs (TSC_KEPT_RUNS at least), fewer than TSC_KEPT_MIN read
 * within the window the estimate keeps (tsc_fit_log).  Noise only adds
 * time, and on a quiet core nearly every run of code within the L1
 * instruction cache lands in the window (95-100 % of them here, in six
 * processes of each case bench/accuracy runs); a neighbour that comes and
 * goes by the microsecond puts the rest beyond it, and slows the runs kept
 * part of the way too, unseen by the probes' quietest stretches: one NOP
 * read 0.219 +/- 0.019 against 0.175, unflagged, with 76 % and 57 % of the
 * runs kept, and six independent ADDs 1.28, 1.33, 2.45 and 2.80 against
 * 1.53 with 33-72 %.  Not for code beyond that cache (place.h's
 * PLACE_BIG), whose runs vary on their own (73-85 % kept of 2 MB of NOPs
 * on a quiet host).  From 20 runs: an ADD pair with -no_mem read 1.967
 * +/- 0.022 against 2.00, unflagged, with 10 of its first program's 20
 * runs kept, while of 1,170 programs of 20 runs in three quiet 1,000-line
 * batches none kept fewer than 16.
 * Where TSC_LEAD_SHARE or more of the runs left out lead their sample's
 * stretch (lead, lead_out: tsc_fit), it is the runs after them that are
 * judged: code whose two programs the L1 instruction cache cannot hold
 * together runs slow the first time after the other program's runs, which
 * is the cost of taking turns, not a neighbour (`4*|add rax, 1|`, 16 and
 * 32 KB, kept exactly 30 of 40 runs of each program in every process,
 * the leading run of each sample out, and was flagged at 0.83 +/- 0.50;
 * with 800 copies, 38 KB together, 0.826 +/- 0.012 with 50 of 60 kept). */
#define TSC_KEPT_MIN 0.8
#define TSC_KEPT_RUNS 20
#define TSC_LEAD_SHARE 0.8
bool tsc_disturbed(const size_t runs[2], const size_t kept[2], const size_t lead[2],
                   const size_t lead_out[2]);

/* How much of a value measured on a shared core (tsc_core_shared or
 * tsc_frontend_shared) or a disturbed one (tsc_disturbed) a quiet core may
 * not need, whichever saw it:
 * 100 NOPs took 2.2 times as long beside a busy sibling, and six
 * independent ADDs read 1.78-1.84 against 1.52 while the ADD chain ran
 * only 0.8-1.1 % slow (the chain is latency-bound; code bound by the
 * core's width loses what the neighbour takes of it). */
#define TSC_SHARED_SPAN 0.6

/* The half-width of a printed difference: `unc` (ticks) of the estimate
 * `diff` and, for estimated cycles (ratio > 0: ticks per core cycle, with
 * half-width ratio_hw), the clock's share, independent, so in quadrature;
 * plus `agg_off`, how far the printed aggregate lies from the estimate.
 * In cycles where ratio > 0, else in ticks. */
double tsc_half_width(double diff, double unc, double agg_off, double ratio, double ratio_hw);

#endif
