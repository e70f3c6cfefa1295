/* nb tsc method: how the measuring process samples a pair of programs, and
 * the tsc backend's calibration (see tsc_method.c for the method).
 *
 * The engine hands in one hook, tsc_run_fn, that runs a generated program
 * (the measuring process notes which one for fault reports); everything
 * else is here.  cal_build() makes the calibration programs, which live as
 * long as the measuring process; run_state's buffers belong to the caller. */
#ifndef NB_PMU_TSC_METHOD_H
#define NB_PMU_TSC_METHOD_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/codegen.h"
#include "pmu/pmu.h"
#include "pmu/tsc_estimate.h"
#include "pmu/tsc_frontend.h"
#include "pmu/tsc_load.h"
#include "pmu/tsc_ports.h"

#define CAL_BODY 100              /* adds per loop iteration */
/* The short program only carries the harness's own cost, which the
 * difference cancels (it had 20 iterations, 14% of the calibration's time). */
#define CAL_LOOP_A 6
/* 11,400 adds more in the long program: ~8,000 TSC ticks, so even a VM's
 * 26-tick TSC steps (seen on a Zen 4 guest) are 0.3% of one reading, and
 * the median over a run's samples goes well below that.  (It was 420: four
 * times the time for no accuracy the tests could tell apart.  60 made the
 * minimum of the two chains' rounded readings read 0.3% fast: medians
 * 2.006, 3.012, 4.014 in bench/accuracy.) */
#define CAL_LOOP_B 120
/* The front-end probe's long program (tsc_frontend.h): 5,400 NOPs more
 * than its short one, ~900 cycles, thirty of a coarse TSC's steps (with
 * 2,400 its half-width over a pass's burst was 10-30 %, its threshold's
 * size). */
#define FE_LOOP 60
#define CAL_REPS 8
#define CAL_POINTS 11
/* Runs averaged into one tsc sample.  A VM's TSC may advance in coarse
 * steps (21 ticks on one development VM, 26 on another); the start of
 * back-to-back runs falls at varying points of a step, so their mean
 * resolves far below one step where a single reading cannot.  How many: as
 * many as fill INNER_TICKS, timed on the sample's first run, within
 * [INNER_MIN, INNER_MAX], so that a short program (-unroll_count 100: a few
 * hundred ticks, a few steps) gets many and a long one, whose readings a
 * step hardly moves, few.  (It was 24 for every program, then 8 at least
 * within 20,000 ticks, with 3 calibrations a pair of samples; bench/accuracy
 * on a busy Zen 4 guest, 1,080 lines each: medians within 0.004 of 2, 3
 * and 4 cycles against 0.005-0.010 before, sd of the default ADD and IMUL
 * lines 0.006-0.009 against 0.004, in half the time a line.) */
#define INNER_MIN 2
#define INNER_MAX 64
#define INNER_TICKS 10000.0
/* ... and no more than INNER_EXEC over the executions of the code the two
 * programs differ by: a step's rounding, spread over back-to-back runs,
 * shrinks with the root of the runs and with those executions, not with a
 * run's length, so 1,000 copies of a NOP need no more runs than 1,000
 * copies of an ADD (they took four times as many: a quarter of a default
 * batch line went to averaging fast snippets far below what the host's
 * own noise lets a result show).  4,000: at most 4 runs for nanoBench's
 * defaults, 40 for -unroll_count 100; bench/accuracy read the same spread
 * as with 8,000, at 0.95 the time.) */
#define INNER_EXEC 4000.0
/* The dither spins a share of this many ticks, a whole number of the TSC's
 * steps, before every run (dither()); of one step where steps are coarser.
 * Over one step of a fine TSC it spun no more than 0-2 iterations (2 ticks,
 * an iteration ~0.8 ticks on an Emerald Rapids guest), a few fixed starts
 * whose rounding stayed with each batch line: 16 lines of `nop
 * -unroll_count 100` in one batch read 0.158-0.186 (sd 0.005-0.007, median
 * 0.169-0.171) against a reference's 0.1795; over 16 ticks, 0.173-0.188
 * (sd 0.0035, median 0.184-0.186), in less time a line (fewer lines
 * measured again). */
#define TSC_DITHER_TICKS 16.0
/* The two calibration chains take turns from this many samples a run on
 * (see chain_runs()).  (Both after every pair of samples, the smaller of
 * the two single readings winning, took a fifth more time a default batch line
 * and read the clock 0.1-0.3% fast from the TSC's rounding; bench/accuracy
 * read the same or tighter spreads with turns.) */
#define CAL_TURNS_MIN 6
#define ROBUST_TOL_TICKS 64.0
/* Warm-up spin before a measuring process's first calibration (the core
 * leaves any idle frequency; the calibration next to every sample follows
 * what changes after); also times the TSC.  It was 10 ms, half of a whole
 * single run. */
#define SPIN_NS 3000000L

/* Runs program p once; `calibration`: one of the calibration chains. */
typedef void (*tsc_run_fn)(const codegen_prog *p, bool calibration);

/* One calibration chain: the same body in a loop of CAL_LOOP_A and
 * CAL_LOOP_B iterations; `latency` core cycles per instruction. */
typedef struct cal_chain {
    codegen_prog a, b;
    double ops;          /* instructions more in b than in a */
    double latency;
} cal_chain;

#define CAL_CHAINS 2
typedef struct cal_progs {
    cal_chain ch[CAL_CHAINS];   /* add rax, 1 (1 cycle); imul rax, rax (found) */
    size_t n;
    tsc_run_fn run;
    double step;         /* the TSC's step: the smallest change it shows, ticks */
    /* the front-end probe (tsc_frontend.h): CAL_BODY NOPs in loops of
     * CAL_LOOP_A and FE_LOOP iterations, run a few times every pass over
     * the samples; the fewest cycles a NOP takes on this core idle
     * (tsc_frontend_floor; 0: not known), and the most it can take by the
     * quietest stretch of this process (tsc_keep_quietest; 0: none yet;
     * the measuring process keeps it from one measurement to the next) */
    cal_chain probe;
    bool has_probe;
    double fe_floor, fe_best;
    /* the load probe (tsc_load.h): CAL_BODY dependent loads in loops of
     * LD_LOOP_A and LD_LOOP_B iterations, run a few times every pass; its
     * latency (load.latency) in whole cycles; has_load false where that did
     * not come out a plausible whole number */
    cal_chain load;
    bool has_load;
    /* the port probes (tsc_ports.h), in the first pass; the most cycles
     * one of each one's instructions takes on this core idle
     * (tsc_port_floor; 0: not known) and the most by the quietest stretch
     * of this process (as fe_best) */
    cal_chain port[TSC_PORTS];
    bool has_port[TSC_PORTS];
    double port_floor[TSC_PORTS], port_best[TSC_PORTS];
} cal_progs;

/* The least the clock's half-width is, a fraction of it: thousands of
 * calibrations (samples too many to keep, beside every few) shrink their
 * fit's error to 0.03 %, while the chains, quiet, put nb's IMUL chain 0.1-
 * 0.16 % above 3 cycles in such runs (3.0031 +/- 0.0024 and 3.0049 +/-
 * 0.0051 of 70,000 samples; its median over single default runs 3.000-
 * 3.003 against references of 2.999-3.001) and the ADD pair 0.05 % below:
 * what a chain of one instruction tells of the clock within its noise is
 * not closer than that to what other code sees.  Fewer calibrations
 * (nanoBench's sample counts) read 0.17-0.33 % already. */
#define TSC_CLOCK_FLOOR 0.002

/* Room for one program's runs: TSC_LOG_DOUBLES readings (runs x counters);
 * a measurement with more samples than fit is estimated sample by sample
 * (each sample the robust mean of its runs) and measured once. */
#define TSC_LOG_DOUBLES (1u << 17)
/* Calibration readings kept per chain. */
#define TSC_CAL_MAX 4096
/* How long measuring again may take, after the first pass (tsc_goal). */
#define TSC_BUDGET_NS 200e6
/* Core cycles of the two programs' difference that no measurement in one
 * context can pin down, in every estimated value's uncertainty: where the
 * code meets the harness (the serializing reads around it, and what the
 * core holds of nb's own code) moves short code by about a cycle a
 * program where a chain or the ports bound it (an ADD pair and six
 * independent ADDs, 100 copies, read alike in every build of nb to 0.01 a
 * copy; nanoBench's 1,000 copies: 0.001). */
#define TSC_CONTEXT_CYCLES 1.0
/* ... and for code that runs about as fast as the core's front end
 * delivers NOPs (fewer than TSC_FE_BOUND times the front end's cycles a
 * NOP, per instruction: tsc_context_cycles), which the front end bounds,
 * more: where it meets the harness, TSC_FE_CONTEXT_CYCLES a program (100
 * NOPs read 0.158-0.198 a NOP in four builds of nb whose code lay
 * differently, each steady to 0.004, their reference 0.177-0.186: up to
 * 2.4 cycles a program), and in a loop of more than one iteration
 * TSC_LOOP_CONTEXT_CYCLES more: the loop's taken branch and how the first
 * iterations overlap depend on which part of the front end delivers the
 * body and on what ran before.  The same goes for code of TSC_WIDE_IPC
 * instructions a cycle and more, which keeps the back end's units as busy
 * as the front end lets it.  A Zen 5 guest's reference, timing nb's own
 * programs after four harnesses (a spin of varying length, none, two fixed
 * ones), read the two programs' difference of 4, 6 and 8 independent
 * ADDs, 3 loads from one line and 10 NOPs up to 71 cycles apart peak to
 * peak (8 ADDs x 100 copies in 10 iterations: 1.527-1.598 a copy), up to
 * 59 with x 10 in 100 (10 NOPs) and x 1 in 10,000 (six ADDs), 2-20 in
 * loops of 100 executions or fewer; from 10,000 executions on what moved
 * (10-167 cycles) grew with the programs' length, 0.3-0.6 % of it each way
 * (the clock's, within the tolerance), not with the iterations; so a
 * fixed amount, not one an iteration (the 0.3 an iteration that loops of
 * 100 need would put +/- 0.3 a copy on one copy in 10,000 iterations,
 * whose references agree within 0.003).  Chains (an ADD pair, an IMUL
 * chain, two POPCNT chains) read within 0.005 a copy after all four. */
#define TSC_FE_BOUND 1.25
#define TSC_FE_CONTEXT_CYCLES 3.0
#define TSC_LOOP_CONTEXT_CYCLES 60.0
#define TSC_WIDE_IPC 2.5
/* Times a measurement starts over where the clock moved while it ran
 * (tsc_clock_drift), or another thread shared the core (tsc_core_shared,
 * tsc_frontend_shared), within the budget. */
#define TSC_RESTARTS 2
/* ... of which no more than this many for a shared core: a neighbour stays
 * for seconds to minutes, and three tries of every batch line while it did
 * cut a default batch from 4,700 lines a second to 1,200. */
#define TSC_SHARED_RESTARTS 1
/* A single benchmark (tsc_goal.wait_ticks, not a batch line or a sweep's
 * form) whose core is still seen shared after that waits for the
 * neighbour to leave: it spins TSC_SHARED_PAUSE_NS and starts over, while
 * TSC_SHARED_WAIT_NS from its start last, at most TSC_SHARED_WAITS times.
 * On a Zen 5 guest the host's neighbour shared the core in stretches of
 * about a second with quiet ones of a few hundred milliseconds between
 * (150 single runs of an ADD pair, one every ~70 ms); one restart right
 * away seldom finds it gone. */
#define TSC_SHARED_PAUSE_NS 40e6
#define TSC_SHARED_WAIT_NS 400e6
#define TSC_SHARED_WAITS 8
/* Where the clock kept moving (it moved after every restart), the passes
 * that follow calibrate whenever this many ticks passed since the last
 * calibration (~9 us at 2.3 GHz; a calibration takes ~9,000): each run is
 * read at the clock of the calibration nearest to it, and the Emerald
 * Rapids guest's core changed its clock every few calibrations while 2 MB
 * of NOPs ran, one calibration every 2-4 of their runs (~300 us). */
#define TSC_LOCAL_TICKS 20000.0
/* Runs of a program after which a window that still decides the estimate
 * (tsc_fit.ambiguity) beyond the tolerance stops measuring again. */
#define TSC_AMBIGUOUS_RUNS 200
/* Measuring again stops before a program's runs exceed this many times the
 * first pass's: what 16 times the runs (a quarter of the statistical
 * uncertainty) do not pin down is flagged rather than chased (fast
 * snippets with a noisy front end took 50 times the runs, a millisecond a
 * batch line, on a busy host). */
#define TSC_MAX_GROWTH 16
/* ...or this many runs, where that is more: a first pass of 20 runs of
 * 100 copies of an ADD pair allowed 320, fewer than pinning 1.5 % down
 * against 21-tick steps takes (~400-1,000), and a fresh process flagged
 * half of such lines. */
#define TSC_GROWTH_FLOOR 2000
/* ...or as many as take this many ticks (the two programs' runs, without
 * the harness around them: ~1.5 ms at 2.6 GHz), where that is more: an ADD
 * pair x 100 (~120 ticks apart on a Zen 5 guest's 26-tick steps) needs
 * ~3,000 runs for its noise to leave the harness context room within
 * 1.5 %, and 2,000 of nanoBench's 1,000 copies already take ~4 ms. */
#define TSC_GROWTH_TICKS 4e6   /* (not where the fixed part alone exceeds it) */

/* What a tsc measurement aims for: every estimated-cycles value per
 * execution of the code within tsc_tolerance(); after the first pass over
 * the samples, passes with twice the runs each follow while it is not, for
 * at most budget_ticks. */
typedef struct tsc_goal {
    double execs;        /* executions of the code per result (the normalization) */
    double budget_ticks;
    double wait_ticks;   /* how long a shared core may be waited out (TSC_SHARED_WAIT_NS; 0: not) */
    bool big;            /* code beyond the L1 instruction cache (no tsc_disturbed) */
    double insns;        /* instructions of the code the programs differ by (0: not known) */
    double loops;        /* iterations of the programs' loop (0: none) */
    int agg;             /* nb_agg: how the samples become the printed value */
} tsc_goal;

/* What measure() found (tsc backend). */
typedef struct tsc_outcome {
    double ratio, ratio_hw;          /* ticks per core cycle used; its half-width */
    size_t chain;                    /* the chain it came from (0 ADD, 1 IMUL) */
    size_t n_cal, n_add;             /* its readings (in rs[0].ratio), the ADD chain's
                                        (in rs[0].add_ratio) */
    size_t cal_runs;                 /* its runs over all passes */
    double add_ratio, add_ratio_hw;  /* the ADD chain's median, half-width */
    /* Per counter: second minus first program, from the means of their kept
     * runs (ticks), its half-width (TSC_Z standard errors), and how far the
     * difference of the samples' aggregates (the printed value) lies from it. */
    double diff[PMU_MAX_GROUP_CTR], unc[PMU_MAX_GROUP_CTR], agg_off[PMU_MAX_GROUP_CTR];
    /* ... the part of unc that is the runs' noise alone (TSC_Z standard
     * errors: no window's ambiguity, context or neighbour), which a
     * program timed beside the two is set against (place.c) */
    double noise[PMU_MAX_GROUP_CTR];
    /* how far the difference read after each prelude lay apart beyond their
     * noise (ticks; tsc_prelude_spread), in unc */
    double prelude[PMU_MAX_GROUP_CTR];
    /* how far it moved from the first half of the runs to the second
     * beyond twice their noise (ticks; tsc_settle_spread), in unc */
    double settle[PMU_MAX_GROUP_CTR];
    double first[PMU_MAX_GROUP_CTR];    /* the first program's mean (ticks) */
    size_t runs[2], kept[2];         /* runs made and kept per program */
    size_t lead[2], lead_out[2];     /* runs leading their sample, left out (tsc_fit) */
    size_t passes;
    double need;                     /* runs needed over runs made (estimate) */
    bool fixed_over;                 /* a value whose fixed part alone (see tsc_need)
                                        exceeds its tolerance: no runs pin it down */
    double drift;                    /* how far the clock moved (tsc_clock_drift),
                                        included in ratio_hw */
    size_t restarts;                 /* measurements started over for it */
    size_t waits;                    /* ...and, besides, after waiting for a shared core
                                        (TSC_SHARED_PAUSE_NS) */
    /* the front-end probe's fit (cycles per NOP) and how much slower it ran
     * than the quiet core's (the least of cal_progs' two and this
     * measurement's best stretch), its half-width; 0 where not known */
    fe_fit fe;
    double fe_slowdown, fe_slowdown_hw;
    /* cycles a NOP where the front end bounds straight code and a loop
     * (tsc_context_cycles; 0: not known) */
    double fe_ref, fe_ref_loop;
    /* the load probe's fit (cycles a load) and how much slower it ran than
     * its latency (tsc_load_slowdown), its half-width; 0 where not known */
    fe_fit ld;
    double ld_slowdown, ld_slowdown_hw;
    /* each port probe's fit (cycles an instruction) and how much slower
     * its quietest stretch ran than the quiet core's (as fe_slowdown) */
    fe_fit port[TSC_PORTS];
    double port_slowdown[TSC_PORTS], port_slowdown_hw[TSC_PORTS];
    /* per counter: the core cycles of context in unc (tsc_context_cycles;
     * more than TSC_CONTEXT_CYCLES where the front end bounds the code or
     * wide code loops), and whether the front end bounds it (tsc_fe_bound) */
    double context[PMU_MAX_GROUP_CTR];
    bool fe_bound[PMU_MAX_GROUP_CTR];
    bool disturbed;                  /* tsc_disturbed (not for goal.big code) */
    bool logged;                     /* diff/unc are set (see TSC_LOG_DOUBLES) */
    /* Not logged (more samples than the logs hold): per estimated-cycles
     * counter, the part of a half-width that the samples' spread does not
     * show (ticks: the harness context, a neighbour's share, what the
     * code's place may move it by (place.c); what unc carries besides the
     * runs' noise when logged), with diff the difference of the samples'
     * aggregates it was taken against, first the first program's
     * aggregate, and noise the samples' (stats_diff_error). */
    double fixed[PMU_MAX_GROUP_CTR];
} tsc_outcome;


/* One program's measurement: its kept samples (samples[c * n + i]) and,
 * with the tsc backend's calibration, add_ratio[i] and ratio[i] (ticks per
 * core cycle from the ADD and the IMUL chain next to sample i; NAN where
 * that chain did not run); measure() leaves the chosen chain's in ratio[]. */
typedef struct run_state {
    const codegen_prog *p;
    tsc_run_fn run;      /* runs p (the measuring process's hook) */
    double *samples, *ratio, *add_ratio;
    size_t inner;        /* runs per sample (tsc), set on the first kept run */
    double enough;       /* runs that resolve the TSC's steps (see INNER_EXEC) */
    size_t n;            /* samples (set by measure) */
    tsc_log log;         /* every run (tsc; set by measure) */
} run_state;

/* Code beyond the L1 instruction cache (tsc_goal.big) is streamed from the
 * L2 and L3, which the host's other tenants share, unseen: TSC_BIG_REL of
 * the programs' difference is in every estimated value's uncertainty
 * (tsc_big_share, in ticks).  100 KB of NOPs (1,000 x 100 copies) read
 * 175.55-175.64 a copy in every process of nb in two runs of
 * bench/accuracy, each line +/- 0.3-0.5, while the reference, timing the
 * same programs in processes of its own on the same CPU, read 173.8-178.6,
 * twice 176.5-178.6 on both sides of a stretch of such lines. */
#define TSC_BIG_REL 0.01
double tsc_big_share(const tsc_goal *goal, double diff);

/* Whether the front end bounds code of `cycles` for the programs'
 * difference, goal->insns instructions, against fe_ref cycles a NOP
 * (tsc_outcome.fe_ref, fe_ref_loop in a loop): TSC_FE_BOUND. */
bool tsc_fe_bound(const tsc_goal *goal, double cycles, double fe_ref);
/* TSC_CONTEXT_CYCLES, or for code that the front end bounds
 * TSC_FE_CONTEXT_CYCLES; and TSC_LOOP_CONTEXT_CYCLES more in a loop of
 * more than one iteration (goal->loops) where the front end bounds it or
 * it runs TSC_WIDE_IPC instructions a cycle or more. */
double tsc_context_cycles(const tsc_goal *goal, double cycles, double fe_ref);

/* Builds the calibration chains (hot_imul_lat > 0: the IMUL chain's latency
 * is known, not searched), the front-end probe (fe_floor: see cal_progs)
 * the load probe (hot_load_lat > 0: its latency known, not searched) and
 * the port probes (port_floor: see cal_progs; those of AVX instructions
 * only where `avx`).  0 or a negative status with *err filled. */
int cal_build(cal_progs *cp, tsc_run_fn run, double hot_imul_lat, double hot_load_lat,
              double fe_floor, const double port_floor[TSC_PORTS], bool avx, nb_error *err);
void cal_points(const cal_progs *cp, double *v, size_t n);
/* The TSC's step (cal_progs.step: tsc_step_of over reads a varying spin
 * apart), measured once. */
void cal_dither_setup(cal_progs *cp);
/* The warm-up and kept samples of both programs (cp NULL: no calibration,
 * goal and out unused).  0, or NB_EFAULT with *err filled where a reading
 * is impossible (the code did not run between the reads). */
int measure(run_state rs[2], long warm, long n, const cal_progs *cp, size_t n_ctr,
            const pmu_counter *ctr, bool *ovf, const tsc_goal *goal, tsc_outcome *out,
            nb_error *err);
/* The runs a measurement needs over those it made (tsc_outcome.need), from
 * a value's half-width u and its parts, per copy: the statistical one, the
 * window's ambiguity, the preludes' spread, the clock's, and the fixed one
 * that more runs leave as it is (the harness context and the big code's
 * share), which the others must leave
 * room for; runs: the first program's.  INFINITY where more runs cannot
 * pin it down (the window's ambiguity or the preludes' spread beyond the
 * tolerance after TSC_AMBIGUOUS_RUNS runs; the fixed part beyond it, once
 * the statistical part is no larger), unless the clock's part is
 * beyond most of it: more passes calibrate again. */
double tsc_need(double u, double stat, double amb, double prelude, double clock, double fixed,
                double tol, size_t runs);
/* How much slower the ADD chain ran than the clock o used implies (a
 * fraction), and its half-width in *hw (0 where the ADD chain is the clock,
 * or did not run: nothing compared); see tsc_core_shared. */
double tsc_alu_slowdown(const tsc_outcome *o, double *hw);
/* Program p's ticks (counter c's reading, an rdtsc one) over `runs`
 * dithered runs (at most TSC_TIME_RUNS): the mean of the undisturbed ones
 * (tsc_fit_log) and its half-width (TSC_Z standard errors). */
#define TSC_TIME_RUNS 1024
double tsc_time_program(const cal_progs *cp, const codegen_prog *p, size_t c, size_t runs,
                        double *half_width);
/* What the later measurements of this measuring process compare their
 * front-end and port probes with (cp->fe_best, cp->port_best): the least
 * bound (fe_fit.bound) any measurement so far read, o's included.  Not a
 * stretch's own mean: the least of every batch line's stretches is the
 * luckiest reading of them all, a chance low far below what the quiet core
 * takes (a line's quietest stretch read 0.103 +/- 0.135 cycles a NOP where
 * the probe reads 0.138-0.148 on a quiet Zen 5 guest, and every later line
 * of that batch read 37-41 % slow, flagged as shared; the store, load or
 * vector port probes' floors were undercut the same way, and 24-100 % of a
 * default 1,000-line batch's values were flagged, against 0.7-1.7 % with
 * the bound on a quiet host). */
void tsc_keep_quietest(cal_progs *cp, const tsc_outcome *o);
/* Busy-waits SPIN_NS so the core leaves any idle frequency; the TSC's rate. */
double spin_tsc_ghz(void);

#endif
