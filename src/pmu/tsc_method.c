/* nb tsc method: how the tsc backend measures, run inside the measuring
 * process (child.c calls measure()); calibration included.
 *
 * Calibration (tsc backend): two programs run the same dependent chain of
 * `add rax, rax` (one core cycle each on every x86-64 core) in a loop of
 * CAL_LOOP_A and CAL_LOOP_B iterations; the difference of their run times,
 * over the difference in adds, is TSC ticks per core cycle, free of the
 * harness's own cost.  A second pair does the same with `imul rax, rax`,
 * whose latency is found against the ADD chain when the measuring process
 * starts.  Either chain reads at least the true ratio, and the smaller
 * wins: contention from the sibling hyperthread, which stretched 1-cycle
 * ADD chains by up to 4% on a shared host, hardly touches a 3-cycle chain;
 * how much slower the ADD chain ran is reported
 * (bench_calibration.alu_slowdown).  Calibration runs are interleaved with
 * the benchmark's own runs (see measure()), the two chains taking turns
 * after each pair of samples, so frequency changes are followed; each
 * chain's short and long program runs are judged as the benchmark's
 * (tsc_chain_fit), and the samples are divided by the clock found.  Probes
 * run in a burst once a pass: a loop of NOPs (tsc_frontend.h), and in the
 * first pass a chain of loads (tsc_load.h) and loops of loads, stores and
 * POPCNTs that do not wait on each other (tsc_ports.h), which see a
 * neighbour that shares the front end, the load pipeline, the load or
 * store ports or the ALUs' slots and leaves the ALU chains alone.
 *
 * Runs: every run is dithered over a TSC step (dither()), every other one
 * after a second prelude (prelude_loop()), checked for an impossible
 * reading, and logged; the estimate over all of them
 * (tsc_estimate.h) keeps the undisturbed ones and says how uncertain the
 * difference of the two programs is, and measure() makes further passes
 * while it is not within the tolerance (tsc_goal).  Where the samples are
 * too many for the log, each is the robust mean of its own runs, as
 * before. */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "lib/clock.h"
#include "measure/stats.h"
#include "pmu/tsc_estimate.h"
#include "pmu/tsc_method.h"
#include "sys/status.h"

/* Mean of the values within max(ROBUST_TOL_TICKS, 2%) of their median: the
 * mean keeps the dithering that sub-step resolution needs (see INNER_TICKS),
 * the window drops runs an interrupt or a preemption landed in. */
static double robust_mean(const double *v, size_t n)
{
    double m = stats_median(v, n);
    double tol = fmax(ROBUST_TOL_TICKS, 0.02 * fabs(m));
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(v[i] - m) <= tol) {
            sum += v[i];
            k++;
        }
    return k ? sum / (double)k : m;
}

static double counter_diff(const codegen_prog *p, const pmu_counter *ctr, size_t c, bool *ovf)
{
    uint64_t d = p->data->m2[c] - p->data->m1[c];
    if (ctr[c].width > 0 && ctr[c].width < 64)
        d &= (UINT64_C(1) << ctr[c].width) - 1;
    if ((int64_t)d < 0)
        *ovf = true;
    return (double)(int64_t)d * ctr[c].scale;
}


static int cal_chain_build(cal_chain *c, const uint8_t insn[4], long loop_a, long loop_b,
                           uintptr_t mem, nb_error *err)
{
    uint8_t body[CAL_BODY * 4];
    for (size_t i = 0; i < CAL_BODY; i++)
        memcpy(body + 4 * i, insn, 4);
    static const codegen_read rd = {PMU_READ_RDTSC, 0};
    static uint64_t stack[64];
    codegen_params p = {
        .code = body, .code_len = sizeof body, .copies = 1, .reads = &rd, .n_reads = 1,
        .r14 = mem ? mem : (uintptr_t)&stack[32], .rdi = (uintptr_t)&stack[32],
        .rsi = (uintptr_t)&stack[32], .rbp = (uintptr_t)&stack[32], .rsp = (uintptr_t)&stack[48],
    };
    p.loop_count = loop_a;
    int rc = codegen_build(&p, &c->a, err);
    if (rc)
        return rc;
    p.loop_count = loop_b;
    if ((rc = codegen_build(&p, &c->b, err))) {
        codegen_free(&c->a);
        return rc;
    }
    c->ops = (double)(loop_b - loop_a) * CAL_BODY;
    c->latency = 1;
    return 0;
}

static double cal_run_ticks(const cal_progs *cp, const codegen_prog *p)
{
    cp->run(p, true);
    return (double)(p->data->m2[0] - p->data->m1[0]);
}

/* Ticks per core cycle from n runs of each program of a chain.  The fastest
 * run of each: a chain can only be slowed (an interrupt, or the other
 * hyperthread of the core competing for the ALUs), never sped up, and what
 * is wanted is the clock. */
static double cal_chain_ratio(const cal_chain *c, const double *a, const double *b, size_t n)
{
    return (stats_min(b, n) - stats_min(a, n)) / (c->ops * c->latency);
}

/* One calibration point of every chain; the smallest ratio.  Each chain's
 * ratio is at least the true one, so the minimum is safe; two chains are
 * used because contention from the sibling hyperthread, which on a shared
 * host stretched the 1-cycle ADD chain by up to 4% for seconds at a time,
 * hardly touches a 3-cycle IMUL chain. */
static double cal_point_n(const cal_progs *cp, int reps)
{
    double best = 0;
    for (size_t k = 0; k < cp->n; k++) {
        double a[CAL_REPS], b[CAL_REPS];
        for (int r = 0; r < reps; r++) {
            a[r] = cal_run_ticks(cp, &cp->ch[k].a);
            b[r] = cal_run_ticks(cp, &cp->ch[k].b);
        }
        double v = cal_chain_ratio(&cp->ch[k], a, b, (size_t)reps);
        if (k == 0 || v < best)
            best = v;
    }
    return best;
}

void cal_points(const cal_progs *cp, double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = cal_point_n(cp, CAL_REPS);
}

/* Chain c's latency in whole cycles, measured against the ADD chain's
 * points (add_v, CAL_POINTS of them): the fastest of each; 0 where it does
 * not come out a whole number from lo to hi (within a quarter). */
static double whole_latency(const cal_progs *cp, const cal_chain *c, const double *add_v,
                            double lo, double hi)
{
    double v[CAL_POINTS];
    cal_progs one = {.ch = {*c}, .n = 1, .run = cp->run};
    cal_points(&one, v, CAL_POINTS);
    double lat = stats_min(v, CAL_POINTS) / stats_min(add_v, CAL_POINTS);
    double whole = round(lat);
    return whole < lo || whole > hi || fabs(lat - whole) > 0.25 ? 0 : whole;
}

static void chain_free(cal_chain *c)
{
    codegen_free(&c->a);
    codegen_free(&c->b);
}

/* The ADD chain, and the IMUL chain with its latency in whole cycles as
 * measured against the ADD chain here (3 on current x86-64 cores); the IMUL
 * chain is left out if that does not come out a plausible whole number.
 * The probes: the front end's, the load chain's (tsc_load.h) with its
 * latency found the same way, and the port probes (tsc_ports.h). */
int cal_build(cal_progs *cp, tsc_run_fn run, double hot_imul_lat, double hot_load_lat,
              double fe_floor, const double port_floor[TSC_PORTS], bool avx, nb_error *err)
{
    cp->run = run;
    cp->step = 1;
    cp->fe_floor = fe_floor;
    cp->fe_best = 0;
    cp->has_probe = cp->has_load = false;
    /* add rax, rax and not add rax, imm: Golden Cove and later fold small
     * immediate ADDs at rename, so an immediate chain runs faster than one
     * cycle per ADD there (seen on an Emerald Rapids guest: "8.9 GHz"). A
     * register-register ADD has a true 1-cycle dependency everywhere; the DS
     * prefix (ignored on ADD) keeps the body 4 bytes long like the IMUL's. */
    static const uint8_t add1[4] = {0x3E, 0x48, 0x01, 0xC0};   /* ds add rax, rax */
    static const uint8_t imul[4] = {0x48, 0x0F, 0xAF, 0xC0};   /* imul rax, rax */
    /* the load probe's line, holding its own address */
    static _Alignas(64) uint64_t line[8];
    line[0] = (uintptr_t)line;
    /* a line of the port probes' own where they store */
    static _Alignas(64) uint64_t store_line[8];
    cp->n = 0;
    int rc = cal_chain_build(&cp->ch[0], add1, CAL_LOOP_A, CAL_LOOP_B, 0, err);
    if (rc)
        return rc;
    cp->n = 1;
    cp->has_probe = cal_chain_build(&cp->probe, tsc_probe_nop, CAL_LOOP_A, FE_LOOP, 0, NULL) == 0;
    bool load = cal_chain_build(&cp->load, tsc_probe_load, LD_LOOP_A, LD_LOOP_B,
                                (uintptr_t)line, NULL) == 0;
    for (int k = 0; k < TSC_PORTS; k++) {
        const tsc_port_probe *pp = &tsc_ports[k];
        cp->port_floor[k] = tsc_port_probe_floor(k, port_floor[k], CAL_BODY);
        cp->port_best[k] = 0;
        cp->has_port[k] = (avx || !pp->avx) &&
                          cal_chain_build(&cp->port[k], pp->insn, pp->loop_a, pp->loop_b,
                                          (uintptr_t)(pp->line ? store_line : line), NULL) == 0;
    }
    if (cal_chain_build(&cp->ch[1], imul, CAL_LOOP_A / 3, CAL_LOOP_B / 3, 0, NULL) == 0)
        cp->n = 2;
    double add_v[CAL_POINTS];
    bool search = (cp->n > 1 && !(hot_imul_lat > 0)) || (load && !(hot_load_lat > 0));
    if (search) {
        cal_progs one = {.ch = {cp->ch[0]}, .n = 1, .run = run};
        cal_points(&one, add_v, CAL_POINTS);
    }
    if (cp->n > 1) {
        cp->ch[1].latency = hot_imul_lat > 0 ? hot_imul_lat
                                              : whole_latency(cp, &cp->ch[1], add_v, 2, 8);
        if (!(cp->ch[1].latency > 0)) {
            chain_free(&cp->ch[1]);
            cp->n = 1;
        }
    }
    if (load) {
        cp->load.latency = hot_load_lat > 0 ? hot_load_lat
                                             : whole_latency(cp, &cp->load, add_v, 3, 8);
        cp->has_load = cp->load.latency > 0;
        if (!cp->has_load)
            chain_free(&cp->load);
    }
    return 0;
}

/* Whether calibration chain k runs beside sample i of n: the chains take
 * turns (each costs as much as the benchmark's runs at nanoBench's
 * defaults), both run where a run has too few samples for turns. */
static bool chain_runs(const cal_progs *cp, size_t k, long i, long n)
{
    return n < CAL_TURNS_MIN || (size_t)i % cp->n == k;
}

/* The tsc method's working state for one measurement (child only). */
typedef struct tsc_work {
    const cal_progs *cp;
    size_t n_ctr;
    const pmu_counter *ctr;
    bool *ovf;
    bool logged;             /* runs go to the logs (see TSC_LOG_DOUBLES) */
    unsigned phase;          /* the dither's counter */
    double spins;            /* its spin's iterations over its whole span (dither_spins) */
    size_t inner;            /* runs per sample of the first pass, 0: not sized yet */
    /* each chain's runs: ticks of its short and long program, and their
     * single readings, ticks per core cycle (reported) */
    double *cal_a[2], *cal_b[2], *cal[2];
    double *cal_t[2];        /* the TSC when each one's long program started */
    size_t n_cal[2];
    /* every cal_every-th calibration of a chain is kept (cal_seen so far),
     * so that those kept span all the first pass's samples, whose clock
     * they are (see legacy_outcome() and at_local_clock(); kept from the
     * first only, the 4,096 of -n_measurements 60000 spanned its first
     * 14 %, and an L1 load chain whose core's clock moved after them read
     * 4.048 +/- 0.043, unflagged, its later samples 4.06-4.13) */
    size_t cal_every, cal_seen[2];
    double *sample_t[2];     /* there, the TSC at each sample's first run */
    const run_state *rs;     /* the two programs' (sample_t's index) */
    /* the clock kept moving (tsc_outcome.drift after every restart): a
     * calibration whenever TSC_LOCAL_TICKS passed since the last one
     * (last_cal), the chains taking turns (turn), for each run's own clock */
    bool dense;
    double moved;            /* the move (tsc_outcome.drift) that made it dense */
    uint64_t last_cal;
    unsigned turn;
    /* code beyond the L1 instruction cache (tsc_goal.big): each pass runs
     * the programs one after the other, each after its warm-up runs, a run
     * a sample (see measure()) */
    bool blocked;
    double *fe_a, *fe_b;     /* the front-end probe's runs (ticks), n_fe of them */
    size_t n_fe;
    double *ld_a, *ld_b;     /* the load probe's, n_ld */
    size_t n_ld;
    double *port_a[TSC_PORTS], *port_b[TSC_PORTS];   /* the port probes', n_port */
    size_t n_port[TSC_PORTS];
    nb_error *err;
    int status;              /* an impossible reading stops the measurement */
} tsc_work;

/* Iterations of the dither's spin per TSC tick, timed now: the core's
 * clock moves (3.4-3.7 GHz here within seconds), and a rate from another
 * moment spreads the runs over less or more than one step.  The fastest of
 * three timings: an interrupt only slows one. */
static double spin_rate(void)
{
    double best = 0;
    for (int i = 0; i < 3; i++) {
        unsigned long k = 2000;
        uint64_t t0 = clock_tsc();
        __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(k) : : "cc");
        uint64_t t1 = clock_tsc();
        if (t1 > t0 && 2000.0 / (double)(t1 - t0) > best)
            best = 2000.0 / (double)(t1 - t0);
    }
    return best;
}

/* The dither's spin iterations over its span, whole TSC steps that make at
 * least TSC_DITHER_TICKS, at the spin's rate now: once a measurement, not
 * before every run. */
static double dither_spins(const cal_progs *cp)
{
    return cp->step * ceil(TSC_DITHER_TICKS / cp->step) * spin_rate();
}

/* Waits for the TSC to tick, then spins a fraction of `spins` (its span:
 * dither_spins) that moves on with every run (the golden ratio's
 * multiples, which fill [0, 1) evenly at any count): back-to-back runs
 * otherwise start at the same phase of a coarse TSC step again and again
 * (seen: the 4 runs of a sample reading the same 252 ticks), and their mean
 * cannot resolve below the step.  Returns the TSC at the tick, before the
 * run. */
static uint64_t dither(double spins, unsigned j)
{
    uint64_t t0 = __rdtsc(), t;
    while ((t = __rdtsc()) == t0)
        ;
    /* j times the golden ratio, mod 1, in fixed point: no call into libm
     * between two runs (its code competes for the L1 instruction cache
     * with code of the cache's size) */
    double frac = (double)((uint64_t)j * UINT64_C(0x9E3779B97F4A7C15) >> 11) * 0x1p-53;
    unsigned long k = (unsigned long)(frac * spins);
    if (k)
        __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(k) : : "cc");
    return t;
}

/* Prelude 1: what a harness written in C runs before it calls the code, a
 * loop over a counter kept in memory (PRELUDE_LOOPS iterations, ~100
 * cycles).  Prelude 0 is the dither alone.  What ran right before the code
 * moves the cost of short throughput-bound code: 100 NOPs read 12.0 TSC
 * ticks more than the harness after the dither's spin loop, 13.0 after
 * nothing, 13.8-14.3 after a C loop like this (an Emerald Rapids guest, in
 * one process, taking turns); six independent ADDs x 100 read 106.9-110.7
 * after nine different preludes.  Code of more copies hardly moves (a tick
 * or two in thousands). */
#define PRELUDE_LOOPS 16
static void prelude_loop(void)
{
    unsigned long slot = 0;
    __asm__ volatile("1: mov %0, %%rax\n\t"
                     "add $1, %%rax\n\t"
                     "mov %%rax, %0\n\t"
                     "cmp %1, %%rax\n\t"
                     "jb 1b"
                     : "+m"(slot) : "r"((unsigned long)PRELUDE_LOOPS) : "rax", "cc", "memory");
}

/* A run's readings of the clock must lie within the time the call took:
 * otherwise the code did not run between nb's reads (it jumped into the
 * harness, say: one printed RDTSC 717703902385538.88, days of ticks). */
static bool readings_possible(tsc_work *w, const double *v, double took)
{
    for (size_t c = 0; c < w->n_ctr; c++) {
        if (w->ctr[c].read != PMU_READ_RDTSC || (v[c] >= 0 && v[c] <= took))
            continue;
        w->status = nb_error_set(w->err, NB_EFAULT, "%s: a run read %.0f TSC ticks, but %.0f "
                                 "passed during the whole call: impossible, so nothing measured "
                                 "can be trusted (does the code jump into nb's harness, or use "
                                 "-no_mem's pause/resume markers unpaired?)",
                                 w->ctr[c].name, v[c], took);
        return false;
    }
    return true;
}

/* The runs per sample (tsc), sized on the first run of sample 0 (see
 * INNER_TICKS, INNER_EXEC), and no more than the log holds for n samples. */
static size_t inner_runs(const run_state *rs, double ticks, long n, const tsc_work *w)
{
    if (w->blocked)
        return 1;
    double want = INNER_TICKS / (ticks > 1 ? ticks : 1);
    if (want > rs->enough)
        want = rs->enough;
    size_t inner = want >= INNER_MAX ? INNER_MAX : want <= INNER_MIN ? INNER_MIN : (size_t)want;
    inner += inner % TSC_PRELUDES;   /* as many runs after each prelude */
    if (w->logged && inner * (size_t)n > rs->log.cap)
        inner = rs->log.cap / (size_t)n;
    return inner ? inner : 1;
}

/* One run of chain k's two programs after a run of the benchmark. */
static void calibrate_once(tsc_work *w, size_t k)
{
    const cal_chain *ch = &w->cp->ch[k];
    /* dithered as the runs are: the mean of a chain's runs resolves below a
     * step only if they start at every phase of one */
    dither(w->spins, w->phase++);
    double a = cal_run_ticks(w->cp, &ch->a);
    uint64_t t = dither(w->spins, w->phase++);
    double b = cal_run_ticks(w->cp, &ch->b);
    if (w->n_cal[k] >= TSC_CAL_MAX || w->cal_seen[k]++ % w->cal_every)
        return;
    w->cal_t[k][w->n_cal[k]] = (double)t;
    w->cal_a[k][w->n_cal[k]] = a;
    w->cal_b[k][w->n_cal[k]] = b;
    w->cal[k][w->n_cal[k]++] = cal_chain_ratio(ch, &a, &b, 1);
    w->last_cal = clock_tsc();
}

/* `pairs` runs of a probe's two programs into a[], b[] (*n so far, at
 * most TSC_CAL_MAX), after one run of its long program not kept: the
 * probe's code and branches, and the load probe's line, fetched afresh
 * after the code measured. */
static void probe_pairs(tsc_work *w, const cal_chain *ch, int pairs, double *a, double *b,
                        size_t *n)
{
    dither(w->spins, w->phase++);
    cal_run_ticks(w->cp, &ch->b);
    for (int i = 0; i < pairs && *n < TSC_CAL_MAX; i++) {
        dither(w->spins, w->phase++);
        a[*n] = cal_run_ticks(w->cp, &ch->a);
        dither(w->spins, w->phase++);
        b[(*n)++] = cal_run_ticks(w->cp, &ch->b);
    }
}

/* FE_BURST runs of the front-end probe's two programs once a pass over the
 * samples, and LD_BURST of the load probe's in the first pass (of every
 * start: every pass, 4.6-6 % of a default batch line's time, against 3-4 %),
 * before the last sample's chain (so that what runs before the next run is
 * a chain, as everywhere).  A burst of short runs rather than a pair of the
 * chains' length beside every sample, which cost 5-6 % of a default batch
 * line's time (bench/batch 111-113x against 119-121x). */
#define FE_BURST 6
static void probe_burst(tsc_work *w)
{
    if (w->cp->has_probe)
        probe_pairs(w, &w->cp->probe, FE_BURST, w->fe_a, w->fe_b, &w->n_fe);
    if (w->cp->has_load && w->n_ld == 0)
        probe_pairs(w, &w->cp->load, LD_BURST, w->ld_a, w->ld_b, &w->n_ld);
    for (int k = 0; k < TSC_PORTS; k++)
        if (w->cp->has_port[k] && w->n_port[k] == 0)
            probe_pairs(w, &w->cp->port[k], tsc_ports[k].burst, w->port_a[k], w->port_b[k],
                        &w->n_port[k]);
}

/* Sample i of a run (i < 0: a discarded warm-up run).  With the
 * calibration chains (tsc backend) a sample is rs->inner back-to-back runs,
 * each dithered (see dither()), logged run by run (the estimate is made
 * over all of them: tsc_estimate.h) or, where the log cannot hold them,
 * their robust mean; the first is followed by one run of the chains whose
 * turn it is (see chain_runs()). */
static void sample(run_state *rs, long i, long n, bool calibrate, bool first_pass, tsc_work *w)
{
    const cal_progs *cp = w->cp;
    const size_t n_ctr = w->n_ctr;
    double tmp[PMU_MAX_GROUP_CTR][INNER_MAX], v[PMU_MAX_GROUP_CTR] = {0};
    if (i < 0) {
        rs->run(rs->p, false);
        return;
    }
    size_t runs = cp ? rs->inner : 1;
    for (size_t r = 0; r < runs && w->status == 0; r++) {
        unsigned prelude = (unsigned)(r % TSC_PRELUDES);
        if (cp && cp->n && w->dense && (double)(clock_tsc() - w->last_cal) >= TSC_LOCAL_TICKS)
            calibrate_once(w, w->turn++ % cp->n);   /* before the dither: still what precedes the run */
        uint64_t t0 = cp ? dither(w->spins, w->phase++) : 0;
        if (cp && prelude == 1)
            prelude_loop();
        rs->run(rs->p, false);
        if (cp) {
            double took = (double)(clock_tsc() - t0);
            /* sized on the first run of the second program (the longer),
             * the first program gets as many: both weigh in the difference */
            if (first_pass && i == 0 && r == 0) {
                if (!w->inner)
                    w->inner = inner_runs(rs, took, n, w);
                runs = rs->inner = w->inner;
            }
            for (size_t c = 0; c < n_ctr; c++)
                v[c] = w->ctr[c].read == PMU_READ_NONE ? 0
                                                         : counter_diff(rs->p, w->ctr, c, &w->ovf[c]);
            if (!readings_possible(w, v, took))
                return;
        } else {
            for (size_t c = 0; c < n_ctr; c++)
                v[c] = w->ctr[c].read == PMU_READ_NONE ? 0
                                                         : counter_diff(rs->p, w->ctr, c, &w->ovf[c]);
        }
        if (w->logged) {
            if (tsc_log_add_after(&rs->log, v, (uint32_t)i, prelude) && rs->log.t)
                rs->log.t[rs->log.n - 1] = (double)t0;
        } else {
            for (size_t c = 0; c < n_ctr; c++)
                tmp[c][r] = v[c];
            if (r == 0 && cp && w->sample_t[rs - w->rs])
                w->sample_t[rs - w->rs][i] = (double)t0;
        }
        if (calibrate && cp && r == 0 && i == n - 1)
            probe_burst(w);
        for (size_t k = 0; calibrate && cp && r == 0 && k < cp->n && k < CAL_CHAINS; k++)
            if (chain_runs(cp, k, i, n))
                calibrate_once(w, k);
    }
    if (w->status || runs == 0)   /* runs missing: nothing to average */
        return;
    if (!w->logged)
        for (size_t c = 0; c < n_ctr; c++)
            rs->samples[c * (size_t)n + (size_t)i] = runs > 1 ? robust_mean(tmp[c], runs)
                                                              : tmp[c][0];
}

/* The counters read with rdtsc (a bit each): the ones whose runs decide
 * which are undisturbed. */
static uint32_t clock_counters(size_t n_ctr, const pmu_counter *ctr)
{
    uint32_t m = 0;
    for (size_t c = 0; c < n_ctr; c++)
        if (ctr[c].read == PMU_READ_RDTSC)
            m |= UINT32_C(1) << c;
    return m;
}

/* A throughput probe's n pairs of runs (a, b: `ops` instructions apart)
 * against `ratio` into *f (its bound with a half-width of a TSC `step` at
 * least), and how much slower its quietest stretch ran than the quiet
 * core's (*slow, its half-width *hw): the most cycles an instruction of it
 * takes on this core (floor, where known), the least bound an earlier
 * measurement of this process read (best: tsc_keep_quietest), or this
 * one's best stretch, whichever is least. */
static void quiet_fit(const double *a, const double *b, size_t n, double ops, double ratio,
                      double step, double floor, double best, fe_fit *f, double *slow, double *hw)
{
    static double scratch[TSC_CAL_MAX];
    tsc_frontend_fit(a, b, n, ops, ratio, scratch, f);
    f->bound = f->best > 0 ? f->best + fmax(f->best_hw, step / ratio / ops) : 0;
    double quiet = 0, seen[3] = {floor, best, f->best};
    for (int i = 0; i < 3; i++)
        if (seen[i] > 0 && (quiet == 0 || seen[i] < quiet))
            quiet = seen[i];
    *slow = tsc_frontend_slowdown(f, quiet, hw);
}

/* The front-end probe's runs so far against the clock o found (quiet_fit:
 * the fewest cycles a NOP takes on this core, its width's). */
static void frontend_fit(const tsc_work *w, tsc_outcome *o)
{
    const cal_progs *cp = w->cp;
    o->fe = (fe_fit){0};
    o->fe_slowdown = o->fe_slowdown_hw = o->fe_ref = o->fe_ref_loop = 0;
    if (!cp->has_probe || !(o->ratio > 0))
        return;
    quiet_fit(w->fe_a, w->fe_b, w->n_fe, cp->probe.ops, o->ratio, cp->step, cp->fe_floor,
              cp->fe_best, &o->fe, &o->fe_slowdown, &o->fe_slowdown_hw);
    /* what code the front end bounds runs at (tsc_context_cycles).  In a
     * loop, what the probe (itself a loop) delivers, unless the core's
     * width says it can go faster (the quietest stretch can read low by
     * chance: 0.12 where the width allows 0.167).  Straight code, which each
     * program runs once, can come from the slower decoders: the slower of
     * the width and the probe (100 NOPs read 0.19-0.21 a NOP on a Zen 5
     * whose probe read 0.14-0.15, its decoders' 4 a cycle 0.25). */
    double floor = cp->fe_floor, cost = o->fe.cost > 0 ? o->fe.cost : 0;
    o->fe_ref_loop = floor > 0 && (floor < cost || cost == 0) ? floor : cost;
    o->fe_ref = fmax(floor, cost);
}

/* The load probe's runs so far against the clock o found (its half-width
 * included), and how much slower they ran than its latency. */
static void load_fit(const tsc_work *w, tsc_outcome *o)
{
    static double scratch[TSC_CAL_MAX];
    const cal_progs *cp = w->cp;
    o->ld = (fe_fit){0};
    o->ld_slowdown = o->ld_slowdown_hw = 0;
    if (!cp->has_load || !(o->ratio > 0))
        return;
    tsc_frontend_fit(w->ld_a, w->ld_b, w->n_ld, cp->load.ops, o->ratio, scratch, &o->ld);
    o->ld_slowdown = tsc_load_slowdown(&o->ld, cp->load.latency, o->ratio_hw / o->ratio,
                                       &o->ld_slowdown_hw);
}

/* The port probes' runs so far against the clock o found (quiet_fit: the
 * most cycles one of each one's instructions takes on this core, its
 * ports'). */
static void port_fits(const tsc_work *w, tsc_outcome *o)
{
    const cal_progs *cp = w->cp;
    for (int k = 0; k < TSC_PORTS; k++) {
        o->port[k] = (fe_fit){0};
        o->port_slowdown[k] = o->port_slowdown_hw[k] = 0;
        if (cp->has_port[k] && o->ratio > 0)
            quiet_fit(w->port_a[k], w->port_b[k], w->n_port[k], cp->port[k].ops, o->ratio,
                      cp->step, cp->port_floor[k], cp->port_best[k], &o->port[k],
                      &o->port_slowdown[k], &o->port_slowdown_hw[k]);
    }
}

/* Both chains' calibrations (ticks per core cycle) in the order they
 * ran, *cal_t when each ran and *cal_r its reading (until the next call):
 * the other chain's taken by how its fit stands to o's (the ADD chain
 * reads slower where another thread shares its ALUs); how many. */
static size_t merged_calibrations(const tsc_work *w, const tsc_outcome *o, const double **cal_t,
                                  const double **cal_r)
{
    static double scratch[TSC_CAL_MAX], t[CAL_CHAINS * TSC_CAL_MAX], v[CAL_CHAINS * TSC_CAL_MAX];
    const cal_progs *cp = w->cp;
    double scale[CAL_CHAINS];
    size_t at[CAL_CHAINS] = {0}, n = 0;
    for (size_t k = 0; k < cp->n && k < CAL_CHAINS; k++) {
        double hw, fit = tsc_chain_fit(w->cal_a[k], w->cal_b[k], w->n_cal[k],
                                       cp->ch[k].ops * cp->ch[k].latency, cp->step, scratch, &hw);
        scale[k] = k == o->chain ? 1 : fit > 0 ? o->ratio / fit : 0;
    }
    for (;;) {
        size_t k = CAL_CHAINS;
        for (size_t j = 0; j < cp->n && j < CAL_CHAINS; j++)
            if (at[j] < w->n_cal[j] && scale[j] > 0 &&
                (k == CAL_CHAINS || w->cal_t[j][at[j]] < w->cal_t[k][at[k]]))
                k = j;
        if (k == CAL_CHAINS)
            break;
        t[n] = w->cal_t[k][at[k]];
        v[n++] = w->cal[k][at[k]++] * scale[k];
    }
    *cal_t = t;
    *cal_r = v;
    return n;
}

/* The clock from the chains' runs so far (tsc_chain_fit): the chain that
 * reads the fewer ticks per cycle (either can only read slow: an interrupt,
 * the other hyperthread), its half-width; the ADD chain's beside it. */
static void clock_fit(const tsc_work *w, tsc_outcome *o)
{
    static double scratch[TSC_CAL_MAX];
    const cal_progs *cp = w->cp;
    double v[2] = {0, 0}, hw[2] = {INFINITY, INFINITY};
    for (size_t k = 0; k < cp->n; k++) {
        const cal_chain *ch = &cp->ch[k];
        v[k] = tsc_chain_fit(w->cal_a[k], w->cal_b[k], w->n_cal[k], ch->ops * ch->latency,
                             cp->step, scratch, &hw[k]);
    }
    size_t best = cp->n > 1 && v[1] > 0 && (!(v[0] > 0) || v[1] < v[0]) ? 1 : 0;
    const cal_chain *ch = &cp->ch[best];
    /* a clock that moved while it was measured is known no better than by
     * how far: the runs kept may be from any stretch of it */
    o->drift = tsc_clock_drift(w->cal_a[best], w->cal_b[best], w->n_cal[best],
                               ch->ops * ch->latency, cp->step, scratch);
    o->ratio = v[best];
    o->chain = best;
    if (o->drift == 0 && w->n_cal[best] < (size_t)2 * TSC_DRIFT_CAL && o->ratio > 0) {
        /* too few for stretches: two readings in a row, of either chain */
        const double *cal_t, *cal_r;
        double cycles = INFINITY;
        for (size_t k = 0; k < cp->n; k++)
            cycles = fmin(cycles, cp->ch[k].ops * cp->ch[k].latency);
        size_t n = merged_calibrations(w, o, &cal_t, &cal_r);
        o->drift = tsc_clock_stepped(cal_r, n, o->ratio, hw[best], 2 * cp->step / cycles);
    }
    o->ratio_hw = fmax(hw[best], TSC_CLOCK_FLOOR * o->ratio) + o->drift;
    o->n_add = w->n_cal[0];
    o->add_ratio = v[0];
    o->add_ratio_hw = hw[0];
    frontend_fit(w, o);
    load_fit(w, o);
    port_fits(w, o);
}

/* The estimated-cycles counters read with rdtsc (a bit each). */
static uint32_t cycle_counters(const tsc_work *w)
{
    uint32_t cycles = 0;
    for (size_t c = 0; c < w->n_ctr; c++)
        if (w->ctr[c].tsc_cycles && w->ctr[c].read == PMU_READ_RDTSC)
            cycles |= UINT32_C(1) << c;
    return cycles;
}

/* Where the clock moved while the runs were made (o->drift), the logs'
 * estimated-cycles readings each at its own clock (tsc_local_clock: the
 * calibration nearest in time, of either chain: merged_calibrations), as
 * if made at o->ratio; the counters that then decide which runs are kept
 * (those readings, not the plain TSC's, where there are any).  The clock's
 * half-width keeps the drift: what a run's clock is between calibrations
 * is not measured. */
static uint32_t at_local_clock(const tsc_work *w, const tsc_outcome *o, tsc_log log[2],
                               uint32_t judged)
{
    static double local[TSC_LOG_DOUBLES], v[2][TSC_LOG_DOUBLES];
    const double *cal_t, *cal_r;
    uint32_t cycles = cycle_counters(w);
    if (!cycles || !(o->ratio > 0) || !log[0].t || !log[1].t)
        return judged;
    size_t n = merged_calibrations(w, o, &cal_t, &cal_r);
    double lo = o->ratio * (1 - TSC_CAL_REL), hi = o->ratio * (1 + TSC_LOCAL_SPAN);
    for (int r = 0; r < 2; r++) {
        tsc_local_clock(log[r].t, log[r].n, cal_t, cal_r, n, lo, hi, local);
        tsc_log_rescale(&log[r], local, o->ratio, cycles, v[r]);
        log[r].v = v[r];
    }
    return cycles;
}

/* The part of counter c's half-width (ticks) that more runs do not shrink:
 * `slow` (a fraction) of the programs' difference, the harness context
 * (tsc_context_cycles, kept in o->context[c]) and the big code's share
 * (tsc_big_share). */
static double fixed_ticks(const tsc_goal *goal, tsc_outcome *o, size_t c, double slow)
{
    double cycles = fabs(o->diff[c]) / o->ratio, fe = goal->loops > 0 ? o->fe_ref_loop : o->fe_ref;
    o->context[c] = tsc_context_cycles(goal, cycles, fe);
    o->fe_bound[c] = tsc_fe_bound(goal, cycles, fe);
    return fmax(slow, 0) * fabs(o->diff[c]) + o->context[c] * o->ratio +
           tsc_big_share(goal, o->diff[c]);
}

/* The difference of the two programs' kept runs per counter, its
 * half-width; whether every estimated-cycles value per execution of the
 * code is within its tolerance (tsc_tolerance). */
static bool estimate(run_state rs[2], const tsc_work *w, const tsc_goal *g, tsc_outcome *o)
{
    static double scratch[TSC_LOG_DOUBLES];
    tsc_fit f[2];
    tsc_log log[2] = {rs[0].log, rs[1].log};
    uint32_t judged = clock_counters(w->n_ctr, w->ctr);
    clock_fit(w, o);
    /* calibrations beside every few runs can average a clock taking turns
     * out of every stretch (and half of them at each speed, out of the
     * median too): the move seen before stands */
    if (w->dense && w->moved > o->drift) {
        o->ratio_hw += w->moved - o->drift;
        o->drift = w->moved;
    }
    if (o->drift > 0)
        judged = at_local_clock(w, o, log, judged);
    for (int r = 0; r < 2; r++) {
        tsc_fit_log(&log[r], judged, w->cp->step, scratch, &f[r]);
        o->runs[r] = f[r].runs;
        o->kept[r] = f[r].kept;
        o->lead[r] = f[r].lead;
        o->lead_out[r] = f[r].lead_out;
    }
    for (int r = 0; r < 2; r++)
        tsc_fit_samples(&log[r], &f[r], rs[r].n, rs[r].samples, scratch);
    bool pinned = true;
    double need = 1;
    o->fixed_over = false;
    for (size_t c = 0; c < w->n_ctr; c++) {
        size_t n = rs[0].n;
        /* the mean over the preludes; how far apart they read, whole:
         * other code before the program (another harness's) can move it
         * as far again */
        o->prelude[c] = tsc_prelude_spread(f, c, &o->diff[c]);
        o->first[c] = f[0].mean[c];
        double amb = f[0].ambiguity[c] + f[1].ambiguity[c];
        double run_se = hypot(f[0].se[c], f[1].se[c]);
        double pair_se = tsc_paired_se(rs[0].samples + c * n, rs[1].samples + c * n, n);
        o->noise[c] = TSC_Z * (pair_se > TSC_PAIRED_SIG * run_se ? pair_se : run_se);
        o->settle[c] = tsc_settle_spread(f, c);
        o->unc[c] = o->noise[c] + amb + o->prelude[c] + o->settle[c];
        o->agg_off[c] = fabs(stats_aggregate(rs[1].samples + c * n, n, (nb_agg)g->agg) -
                             stats_aggregate(rs[0].samples + c * n, n, (nb_agg)g->agg) -
                             o->diff[c]);
        if (!w->ctr[c].tsc_cycles || w->ctr[c].read != PMU_READ_RDTSC)
            continue;
        if (!(o->ratio > 0) || !isfinite(o->ratio_hw)) {
            pinned = false;
            continue;
        }
        /* judged with what the end adds that more runs leave as it is
         * (measure): without it, an ADD pair x 100 stopped at a noise of
         * 0.021 against its tolerance of 0.03 and was flagged at 0.031
         * with the harness context's 0.01.  Not the ADD chain's slowdown,
         * which the end adds too: more passes calibrate again, and a
         * neighbour that slowed the first ones may be gone */
        double fixed = fixed_ticks(g, o, c, 0);
        double v = o->diff[c] / o->ratio / g->execs;
        double u = tsc_half_width(o->diff[c], o->unc[c] + fixed, o->agg_off[c], o->ratio,
                                  o->ratio_hw) / g->execs;
        double tol = tsc_tolerance(v), x = o->ratio * g->execs;
        pinned &= u <= tol;
        o->fixed_over |= fixed / x >= tol;
        /* the preludes' spread stops the measurement (tsc_need) only
         * beyond TSC_Z standard errors of its noise, which more runs
         * shrink: net of one, the noise of 10 IMULs a copy, 17 ticks, read
         * as the preludes' at 700 runs and stopped them at +/- 0.49 a copy */
        double sure = fmax(0, o->prelude[c] - (TSC_Z - 1) * tsc_prelude_noise(f, c));
        need = fmax(need, tsc_need(u, o->unc[c] / x, amb / x, sure / x,
                                   fabs(v) * o->ratio_hw / o->ratio, fixed / x, tol, f[0].runs));
    }
    o->need = need;
    return pinned;
}

/* The legacy of a measurement whose samples the log cannot hold: the
 * clock, no run-level estimate; where the clock moved (o->drift), each
 * sample's estimated-cycles readings at the clock of the calibration
 * nearest to its first run (as at_local_clock does runs), as if made at
 * o->ratio.  (An IMUL chain with -n_measurements 200000 read 3.02 and 3.19
 * while the clock took turns 5 % apart.)  o->diff: the difference of the
 * samples' aggregates (the printed value), which the half-width's fixed
 * part is taken against. */
static void legacy_outcome(const tsc_work *w, tsc_outcome *o, run_state rs[2], size_t n,
                           const tsc_goal *goal)
{
    const double *cal_t, *cal_r;
    clock_fit(w, o);
    o->logged = false;
    o->passes = 0;
    uint32_t cycles = cycle_counters(w);
    if (w->status || !(o->ratio > 0) || !cycles)
        return;
    if (o->drift > 0 && w->sample_t[0] && w->sample_t[1]) {
        size_t n_cal = merged_calibrations(w, o, &cal_t, &cal_r);
        double lo = o->ratio * (1 - TSC_CAL_REL), hi = o->ratio * (1 + TSC_LOCAL_SPAN);
        for (int r = 0; r < 2; r++) {
            double *local = w->sample_t[r];   /* (in place: see tsc_local_clock) */
            tsc_local_clock(w->sample_t[r], n, cal_t, cal_r, n_cal, lo, hi, local);
            for (size_t c = 0; c < w->n_ctr; c++)
                for (size_t i = 0; cycles >> c & 1 && i < n; i++)
                    if (local[i] > 0)
                        rs[r].samples[c * n + i] *= o->ratio / local[i];
        }
    }
    /* what the fixed part of the half-width is taken against (measure), the
     * first program's aggregate and the samples' noise (place.c's check) */
    for (size_t c = 0; c < w->n_ctr; c++)
        if (cycles >> c & 1) {
            const double *a = rs[0].samples + c * n, *b = rs[1].samples + c * n;
            o->first[c] = stats_aggregate(a, n, (nb_agg)goal->agg);
            o->diff[c] = stats_aggregate(b, n, (nb_agg)goal->agg) - o->first[c];
            o->noise[c] = stats_diff_error(a, b, n, (nb_agg)goal->agg, TSC_Z);
        }
}

/* Whether the outcome saw another thread on the core (its ALUs, its
 * front end, its load pipeline or its ports) or the runs disturbed
 * (not for goal.big code): the measurement
 * starts over for it and, still so, its values take TSC_SHARED_SPAN. */
static bool core_busy(const tsc_outcome *o)
{
    double hw, slow = tsc_alu_slowdown(o, &hw);
    return tsc_neighbour_seen(slow, hw, o->fe_slowdown, o->ld_slowdown, o->ld_slowdown_hw,
                              o->port_slowdown) ||
           o->disturbed;
}

/* The most runs of a program measuring again may reach: TSC_MAX_GROWTH
 * times the first pass's, TSC_GROWTH_FLOOR, or what TSC_GROWTH_TICKS
 * allow runs of both programs as long as o's (its slowest clock-read
 * counter), whichever is most; not the last where a value cannot be
 * pinned down whatever the runs (o->fixed_over: 10 copies of nanoBench's
 * defaults took 6 ms a batch line instead of 0.25). */
static size_t growth_cap(const tsc_outcome *o, size_t n_ctr, const pmu_counter *ctr,
                         size_t first)
{
    double pair = 0;
    for (size_t c = 0; c < n_ctr; c++)
        if (ctr[c].read == PMU_READ_RDTSC)
            pair = fmax(pair, 2 * o->first[c] + o->diff[c]);
    double by_time = pair > 0 && !o->fixed_over ? TSC_GROWTH_TICKS / pair : 0;
    double cap = fmax(fmax((double)TSC_MAX_GROWTH * (double)first, TSC_GROWTH_FLOOR), by_time);
    return (size_t)cap;
}

/* Both runs: `warm` discarded runs, then n kept samples of each.  With a
 * counter backend as nanoBench does it, the first program's samples, then
 * the second's.  With the tsc backend (cp) interleaved, sample i of the
 * first program next to sample i of the second, and one calibration after
 * both, which the two share: on a VM the host can slow the core for a
 * millisecond or more at a time (seen: 8 samples in a row of one run 2.7x
 * slow, which made a load chain read -3.07 cycles), and a slow stretch then
 * falls on both runs, whose difference is the result, and on the clock
 * ratio they are divided by, instead of on one run only.  Then, while an
 * estimated-cycles value is not within its tolerance, the goal's budget
 * lasts and the runs are fewer than TSC_MAX_GROWTH times the first pass's
 * (or TSC_GROWTH_FLOOR),
 * further passes over the samples with the runs the estimate asks for,
 * each calibrating beside its samples as the first does: the clock is then
 * measured over the same stretch of time as the runs (it was measured in
 * the first pass only, and a batch line whose core ramped up after the
 * first millisecond read an ADD pair at 1.5 cycles).  Where the clock
 * moved all the same (tsc_clock_drift), the measurement starts over, at
 * most TSC_RESTARTS times within the budget; what moved then widens the
 * clock's half-width.
 * Code beyond the L1 instruction cache (goal->big) is run in nanoBench's
 * order instead, every pass: the second program's `warm` runs not kept and
 * its n samples of one run each, then the first's, calibrating beside both.
 * Streamed from the L2 and L3, such code slows after the other program's
 * runs and speeds up over several of its own (2 MB of NOPs on an Emerald
 * Rapids guest: the second program's first run after the first's ~460,000
 * cycles, its second ~420,000, its fifteenth ~360,000); runs taken in
 * turns read 1,000 NOPs a copy at 188-250 cycles from one pass to the
 * next, and at 179-193 with longer turns, where nanoBench's order (the
 * reference's) reads 182-189. */
int measure(run_state rs[2], long warm, long n, const cal_progs *cp, size_t n_ctr,
            const pmu_counter *ctr, bool *ovf, const tsc_goal *goal, tsc_outcome *out,
            nb_error *err)
{
    static double cal_buf[2][TSC_CAL_MAX], cal_a[2][TSC_CAL_MAX], cal_b[2][TSC_CAL_MAX];
    static double cal_t[2][TSC_CAL_MAX], logt[2][TSC_LOG_DOUBLES];
    static double fe_a[TSC_CAL_MAX], fe_b[TSC_CAL_MAX], ld_a[TSC_CAL_MAX], ld_b[TSC_CAL_MAX];
    static double port_ab[TSC_PORTS][2][TSC_CAL_MAX];
    static double logv[2][TSC_LOG_DOUBLES];
    static uint32_t logs[2][TSC_LOG_DOUBLES];
    static uint8_t logk[2][TSC_LOG_DOUBLES], logp[2][TSC_LOG_DOUBLES];
    memset(out, 0, sizeof *out);
    tsc_work w = {.cp = cp, .n_ctr = n_ctr, .ctr = ctr, .ovf = ovf, .err = err,
                  .cal = {cal_buf[0], cal_buf[1]}, .cal_a = {cal_a[0], cal_a[1]},
                  .cal_b = {cal_b[0], cal_b[1]}, .cal_t = {cal_t[0], cal_t[1]},
                  .fe_a = fe_a, .fe_b = fe_b, .ld_a = ld_a, .ld_b = ld_b, .cal_every = 1, .rs = rs};
    for (int k = 0; k < TSC_PORTS; k++) {
        w.port_a[k] = port_ab[k][0];
        w.port_b[k] = port_ab[k][1];
    }
    for (int r = 0; r < 2; r++) {
        rs[r].inner = cp ? INNER_MIN : 1;
        rs[r].n = (size_t)n;
    }
    if (!cp) {
        for (int r = 0; r < 2; r++)
            for (long i = -warm; i < n; i++)
                sample(&rs[r], i, n, false, true, &w);
        return 0;
    }
    w.spins = dither_spins(cp);
    w.blocked = goal->big;
    size_t cap = TSC_LOG_DOUBLES / (n_ctr ? n_ctr : 1);
    w.logged = (size_t)n <= cap;
    /* a chain calibrates beside every cp->n-th sample (chain_runs) */
    w.cal_every = ((size_t)n / (n < CAL_TURNS_MIN || !cp->n ? 1 : cp->n) + TSC_CAL_MAX - 1) /
                  TSC_CAL_MAX;
    if (!w.logged) {
        /* without it, the samples are not read at their own clocks */
        w.sample_t[0] = malloc(2 * (size_t)n * sizeof(double));
        w.sample_t[1] = w.sample_t[0] ? w.sample_t[0] + n : NULL;
    }
    for (int r = 0; r < 2; r++)
        rs[r].log = (tsc_log){.v = logv[r], .sample = logs[r], .keep = logk[r],
                              .prelude = logp[r], .t = logt[r], .cap = cap,
                              .n_ctr = n_ctr};
    for (int r = 0; r < 2 && !w.blocked; r++)   /* (blocked: every pass warms up) */
        for (long i = -warm; i < 0; i++)
            sample(&rs[r], i, n, false, true, &w);
    uint64_t t0 = clock_tsc(), begun = t0;
    size_t first = 0;
    for (int pass = 0; w.status == 0; pass++) {
        for (int r = 1; w.blocked && r >= 0; r--)
            for (long i = -warm; i < n && w.status == 0; i++)
                sample(&rs[r], i, n, true, pass == 0, &w);
        for (long i = 0; !w.blocked && i < n && w.status == 0; i++) {
            sample(&rs[1], i, n, false, pass == 0, &w);
            sample(&rs[0], i, n, true, pass == 0, &w);
        }
        if (w.status || !w.logged || n < 1) {   /* (n >= 1: the options see to it) */
            legacy_outcome(&w, out, rs, (size_t)n, goal);
            break;
        }
        out->passes = (size_t)pass + 1;
        if (pass == 0)
            first = rs[0].log.n > rs[1].log.n ? rs[0].log.n : rs[1].log.n;
        out->logged = true;
        bool pinned = estimate(rs, &w, goal, out);
        bool in_budget = (double)(clock_tsc() - t0) <= goal->budget_ticks;
        out->disturbed = !goal->big && tsc_disturbed(out->runs, out->kept, out->lead, out->lead_out);
        bool again = out->drift > 0 ? out->restarts < TSC_RESTARTS
                                    : core_busy(out) && out->restarts < TSC_SHARED_RESTARTS;
        /* the clock moved after every start: once more, calibrating often,
         * so that each run's own clock is known (at_local_clock) */
        bool dense = out->drift > 0 && !again && !w.dense;
        /* still shared after starting over: wait for the neighbour to
         * leave, where the goal allows it (TSC_SHARED_WAIT_NS) */
        double pause = goal->wait_ticks * (TSC_SHARED_PAUSE_NS / TSC_SHARED_WAIT_NS);
        bool wait = !again && out->drift <= 0 && core_busy(out) && pause > 0 &&
                    out->waits < TSC_SHARED_WAITS &&
                    (double)(clock_tsc() - begun) + pause <= goal->wait_ticks;
        if (wait) {
            uint64_t until = clock_tsc() + (uint64_t)pause;
            while (clock_tsc() < until)
                ;   /* spinning: the core's clock stays where it was */
            out->waits++;
            t0 = clock_tsc();   /* the passes' budget starts again */
            in_budget = true;
        }
        if ((again || dense || wait) && in_budget) {
            /* the clock moved, or another thread used the core (which
             * slows the code by what it shares, unknown), or came and
             * went: start over rather
             * than mix runs and a clock from different stretches; the
             * neighbour may be gone */
            if (dense) {
                w.dense = true;
                w.moved = out->drift;
            } else if (!wait)
                out->restarts++;
            rs[0].log.n = rs[1].log.n = 0;
            w.n_cal[0] = w.n_cal[1] = 0;
            w.n_fe = w.n_ld = 0;
            memset(w.n_port, 0, sizeof w.n_port);
            pass = -1;
            continue;
        }
        /* a port probe saw another thread after the restarts it may cause:
         * the probes run in the first pass only, so every value takes
         * TSC_SHARED_SPAN whatever the runs, which more passes would only
         * spend time on (CRC32 beside the host's neighbour: 3,000 runs
         * instead of 40, the same +/- 1.82).  (The chains and the other
         * probes run in every pass: a neighbour gone by then leaves them
         * quiet.) */
        if (pinned || !isfinite(out->need) || !in_budget || tsc_ports_shared(out->port_slowdown))
            break;
        /* the runs the estimate says are needed (a quarter more at least,
         * at most 4 times as many again), as far as the logs hold them */
        size_t have = rs[0].log.n > rs[1].log.n ? rs[0].log.n : rs[1].log.n;
        size_t room = (rs[0].log.cap - have) / (size_t)n;
        double want = fmin(fmax(out->need - 1, 0.25), 4) * (double)have / (double)n;
        size_t more = want < (double)room ? (size_t)ceil(want) : room;
        if (w.blocked && more > 0)
            more = 1;   /* another pass as the first: the runs a block of each stay nanoBench's */
        /* as many as the cap leaves, where the estimate asks for more
         * (it stopped 10 IMULs a copy at 700 runs, +/- 0.34 a copy, where
         * 2,000 were allowed) */
        size_t cap = growth_cap(out, n_ctr, ctr, first);
        if (have + more * (size_t)n > cap)
            more = cap > have ? (cap - have) / (size_t)n : 0;
        if (more == 0)
            break;
        if (!w.blocked && more % TSC_PRELUDES && more + 1 <= room)
            more++;   /* as many runs after each prelude */
        rs[0].inner = rs[1].inner = more;
    }
    free(w.sample_t[0]);
    if (w.status)
        return w.status;
    out->cal_runs = w.n_cal[out->chain];
    out->n_cal = w.n_cal[out->chain] < 2 * (size_t)n ? w.n_cal[out->chain] : 2 * (size_t)n;
    out->n_add = w.n_cal[0] < 2 * (size_t)n ? w.n_cal[0] : 2 * (size_t)n;
    memcpy(rs[0].ratio, w.cal[out->chain], out->n_cal * sizeof *rs[0].ratio);
    memcpy(rs[0].add_ratio, w.cal[0], out->n_add * sizeof *rs[0].add_ratio);
    if (!(out->ratio > 0)) {
        /* every calibration interrupted (hardly possible): one full point */
        out->ratio = out->add_ratio = rs[0].ratio[0] = rs[0].add_ratio[0] = cal_point_n(cp, CAL_REPS);
        out->ratio_hw = INFINITY;
        out->n_cal = out->n_add = out->cal_runs = 1;
    }
    /* code that shares the core with another thread runs at least as
     * much slower as the ADD chain did (an ADD pair read 2.03-2.04 +/-
     * 0.025 while the chain ran 0.7-1.6 % slow), and where the chains or
     * a probe saw the core shared or its runs it disturbed, up to TSC_SHARED_SPAN
     * of its value (then it is flagged: see tsc_core_shared) */
    double slow_hw, slow = tsc_alu_slowdown(out, &slow_hw);
    if (core_busy(out))
        slow = fmax(slow, TSC_SHARED_SPAN);
    for (size_t c = 0; c < n_ctr; c++) {
        if (!ctr[c].tsc_cycles)
            continue;
        if (out->logged)
            out->unc[c] += fixed_ticks(goal, out, c, slow);
        else if (out->ratio > 0)
            out->fixed[c] = fixed_ticks(goal, out, c, slow);
    }
    return 0;
}

/* *least becomes v where v is known (> 0) and less, or *least is not yet. */
static void keep_least(double *least, double v)
{
    if (v > 0 && (*least == 0 || v < *least))
        *least = v;
}

void tsc_keep_quietest(cal_progs *cp, const tsc_outcome *o)
{
    keep_least(&cp->fe_best, o->fe.bound);
    for (int k = 0; k < TSC_PORTS; k++)
        keep_least(&cp->port_best[k], o->port[k].bound);
}

double tsc_big_share(const tsc_goal *goal, double diff)
{
    return goal->big ? TSC_BIG_REL * fabs(diff) : 0;
}

bool tsc_fe_bound(const tsc_goal *goal, double cycles, double fe_ref)
{
    return goal->insns > 0 && fe_ref > 0 && cycles < TSC_FE_BOUND * fe_ref * goal->insns;
}

double tsc_context_cycles(const tsc_goal *goal, double cycles, double fe_ref)
{
    bool fe = tsc_fe_bound(goal, cycles, fe_ref);
    bool wide = goal->insns > 0 && cycles * TSC_WIDE_IPC <= goal->insns;
    return (fe ? TSC_FE_CONTEXT_CYCLES : TSC_CONTEXT_CYCLES) +
           ((fe || wide) && goal->loops > 1 ? TSC_LOOP_CONTEXT_CYCLES : 0);
}

double tsc_need(double u, double stat, double amb, double prelude, double clock, double fixed,
                double tol, size_t runs)
{
    /* what the fixed part leaves of the tolerance, most of it (a quarter
     * of the tolerance at least: fixed parts near it would ask for runs
     * without end); where it takes the whole, the value is flagged
     * whatever the runs, and they need only bring the rest down to the
     * fixed part (100 NOPs took 12 passes and 18,000 runs to no avail,
     * 10 copies of a batch line 1 ms instead of 0.25) */
    double need = 1, want = fixed < tol ? fmax(0.7 * (tol - fixed), 0.25 * tol) : fixed;
    /* the runs the statistical part needs to come within most of the
     * tolerance: it shrinks with their root (the window's part may not) */
    if (u > tol && stat > 0)
        need = fmax(need, (stat / want) * (stat / want));
    /* the clock's part: further passes calibrate again beside their
     * samples (a clock from 5 calibrations, most of them slowed, read
     * 0.968 +/- 0.15 ticks a cycle against 0.768, and a load chain 4.15
     * +/- 0.72, when the preludes' spread had stopped the measurement
     * after one pass) */
    if (clock > want)
        return fmax(need, (clock / want) * (clock / want));
    /* more runs do not settle which runs were disturbed, nor how far the
     * preludes move the code (its spread is net of one standard error of
     * their noise), once there are enough to show them: a few slowed runs
     * among 20 can make the window look decisive by chance, and the
     * preludes' noise among 100 runs of an ADD pair x 100 read as 2.5-5 %
     * apart, which stopped a fifth of such measurements after one pass at
     * +/- 0.13-0.19 */
    if ((amb > tol || prelude > tol) && runs >= TSC_AMBIGUOUS_RUNS)
        return INFINITY;
    return fixed >= tol && need <= 1 ? INFINITY : need;
}

double tsc_alu_slowdown(const tsc_outcome *o, double *hw)
{
    bool compared = o->n_add && o->chain != 0 && o->ratio > 0;
    *hw = compared ? (o->add_ratio_hw + o->ratio_hw) / o->ratio : 0;
    return compared ? o->add_ratio / o->ratio - 1 : 0;
}

double tsc_time_program(const cal_progs *cp, const codegen_prog *p, size_t c, size_t runs,
                        double *half_width)
{
    static double v[TSC_TIME_RUNS], scratch[TSC_TIME_RUNS];
    static uint32_t smp[TSC_TIME_RUNS];
    static uint8_t keep[TSC_TIME_RUNS];
    tsc_log l = {.v = v, .sample = smp, .keep = keep, .cap = TSC_TIME_RUNS, .n_ctr = 1};
    double spins = dither_spins(cp);
    for (size_t r = 0; r < runs && r < TSC_TIME_RUNS; r++) {
        dither(spins, (unsigned)r);
        cp->run(p, false);
        double t = (double)(p->data->m2[c] - p->data->m1[c]);
        tsc_log_add(&l, &t, 0);
    }
    tsc_fit f;
    tsc_fit_log(&l, 1, cp->step, scratch, &f);
    *half_width = TSC_Z * f.se[0] + f.ambiguity[0];
    return f.mean[0];
}

void cal_dither_setup(cal_progs *cp)
{
    /* pairs of reads a varying spin apart (0-199 iterations, a few TSC
     * steps where they are coarse), so that the differences fall on
     * several multiples of the step (tsc_step_of) */
    static uint64_t diff[4000];
    for (unsigned i = 0; i < sizeof diff / sizeof diff[0]; i++) {
        unsigned long k = (i * 37u) % 200u + 1;
        uint64_t t0 = __rdtsc();
        __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(k) : : "cc");
        uint64_t t1 = __rdtsc();
        diff[i] = t1 - t0;
    }
    cp->step = tsc_step_of(diff, sizeof diff / sizeof diff[0]);
}

/* Busy-wait SPIN_NS so the core leaves any idle frequency, timing the TSC on
 * the way. */
double spin_tsc_ghz(void)
{
    double t0 = clock_ns();
    uint64_t c0 = clock_tsc();
    double t;
    while ((t = clock_ns()) - t0 < SPIN_NS)
        ;
    uint64_t c1 = clock_tsc();
    return (double)(c1 - c0) / (t - t0);
}
