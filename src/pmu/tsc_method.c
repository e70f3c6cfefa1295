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
 * after each pair of samples, and the samples of a run are divided by the
 * smaller of the chains' medians over that run: measured in the same
 * milliseconds, so frequency changes between runs are followed, while one
 * disturbed calibration cannot become a sample of its own (which -min and
 * -max would then pick).  Means
 * over many runs, with outliers dropped (robust_mean), resolve far below
 * the coarse steps a VM's TSC may advance in. */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lib/clock.h"
#include "measure/stats.h"
#include "pmu/tsc_method.h"

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
                           nb_error *err)
{
    uint8_t body[CAL_BODY * 4];
    for (size_t i = 0; i < CAL_BODY; i++)
        memcpy(body + 4 * i, insn, 4);
    static const codegen_read rd = {PMU_READ_RDTSC, 0};
    static uint64_t stack[64];
    codegen_params p = {
        .code = body, .code_len = sizeof body, .copies = 1, .reads = &rd, .n_reads = 1,
        .r14 = (uintptr_t)&stack[32], .rdi = (uintptr_t)&stack[32], .rsi = (uintptr_t)&stack[32],
        .rbp = (uintptr_t)&stack[32], .rsp = (uintptr_t)&stack[48],
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

/* The ADD chain, and the IMUL chain with its latency in whole cycles as
 * measured against the ADD chain here (3 on current x86-64 cores); the IMUL
 * chain is left out if that does not come out a plausible whole number. */
int cal_build(cal_progs *cp, tsc_run_fn run, double hot_imul_lat, nb_error *err)
{
    cp->run = run;
    /* add rax, rax and not add rax, imm: Golden Cove and later fold small
     * immediate ADDs at rename, so an immediate chain runs faster than one
     * cycle per ADD there (seen on an Emerald Rapids guest: "8.9 GHz"). A
     * register-register ADD has a true 1-cycle dependency everywhere; the DS
     * prefix (ignored on ADD) keeps the body 4 bytes long like the IMUL's. */
    static const uint8_t add1[4] = {0x3E, 0x48, 0x01, 0xC0};   /* ds add rax, rax */
    static const uint8_t imul[4] = {0x48, 0x0F, 0xAF, 0xC0};   /* imul rax, rax */
    cp->n = 0;
    int rc = cal_chain_build(&cp->ch[0], add1, CAL_LOOP_A, CAL_LOOP_B, err);
    if (rc)
        return rc;
    cp->n = 1;
    if (cal_chain_build(&cp->ch[1], imul, CAL_LOOP_A / 3, CAL_LOOP_B / 3, NULL) != 0)
        return 0;
    cp->n = 2;
    if (hot_imul_lat > 0) {
        cp->ch[1].latency = hot_imul_lat;
        return 0;
    }
    double add_v[CAL_POINTS], imul_v[CAL_POINTS];
    cal_progs one = {.ch = {cp->ch[0]}, .n = 1, .run = run},
              two = {.ch = {cp->ch[1]}, .n = 1, .run = run};
    cal_points(&one, add_v, CAL_POINTS);
    cal_points(&two, imul_v, CAL_POINTS);
    double lat = stats_min(imul_v, CAL_POINTS) / stats_min(add_v, CAL_POINTS);
    double whole = round(lat);
    if (whole < 2 || whole > 8 || fabs(lat - whole) > 0.25) {
        codegen_free(&cp->ch[1].a);
        codegen_free(&cp->ch[1].b);
        cp->n = 1;
    } else {
        cp->ch[1].latency = whole;
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

/* Sample i of a run (i < 0: a discarded warm-up run).  With the
 * calibration chains (tsc backend) a kept sample is the robust mean of
 * INNER_MIN..INNER_MAX back-to-back runs (see INNER_TICKS, INNER_EXEC), and
 * the first CAL_PER_SAMPLE of them are each followed by one run of the
 * chains whose turn it is (see chain_runs()). */
static void sample(run_state *rs, long i, long n, const cal_progs *cp, bool calibrate,
                   size_t n_ctr, const pmu_counter *ctr, bool *ovf)
{
    double tmp[PMU_MAX_GROUP_CTR][INNER_MAX];
    double ca[2][CAL_PER_SAMPLE], cb[2][CAL_PER_SAMPLE];
    if (i < 0) {
        rs->run(rs->p, false);
        return;
    }
    size_t runs = cp && rs->inner > 1 ? rs->inner : 1;
    for (size_t r = 0; r < runs; r++) {
        uint64_t t0 = cp && i == 0 && r == 0 ? clock_tsc() : 0;
        rs->run(rs->p, false);
        if (t0) {
            double t = (double)(clock_tsc() - t0), want = INNER_TICKS / (t > 1 ? t : 1);
            if (want > rs->enough)
                want = rs->enough;
            rs->inner = want >= INNER_MAX ? INNER_MAX : want <= INNER_MIN ? INNER_MIN
                                                                           : (size_t)want;
            runs = rs->inner;
        }
        for (size_t c = 0; c < n_ctr; c++)
            tmp[c][r] = ctr[c].read == PMU_READ_NONE ? 0 : counter_diff(rs->p, ctr, c, &ovf[c]);
        for (size_t k = 0; calibrate && cp && r < CAL_PER_SAMPLE && k < cp->n; k++) {
            if (!chain_runs(cp, k, i, n))
                continue;
            ca[k][r] = cal_run_ticks(cp, &cp->ch[k].a);
            cb[k][r] = cal_run_ticks(cp, &cp->ch[k].b);
        }
    }
    for (size_t c = 0; c < n_ctr; c++)
        rs->samples[c * (size_t)n + (size_t)i] = runs > 1 ? robust_mean(tmp[c], runs) : tmp[c][0];
    if (calibrate && cp) {
        /* add_ratio[i] from the ADD chain, ratio[i] from the IMUL chain,
         * where each ran; a chain whose short program an interrupt slowed
         * gives nothing or less: NAN, left out */
        rs->ratio[i] = rs->add_ratio[i] = NAN;
        for (size_t k = 0; k < cp->n; k++) {
            if (!chain_runs(cp, k, i, n))
                continue;
            double v = cal_chain_ratio(&cp->ch[k], ca[k], cb[k], CAL_PER_SAMPLE);
            if (v > 0)
                *(k == 0 ? &rs->add_ratio[i] : &rs->ratio[i]) = v;
        }
    }
}

/* Moves v's positive values to its front, in order; returns how many. */
static size_t keep_positive(double *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > 0)
            v[k++] = v[i];
    return k;
}

/* Both runs: `warm` discarded runs, then n kept samples of each.  With a
 * counter backend as nanoBench does it, the first program's samples, then
 * the second's.  With the tsc backend (cp) interleaved, sample i of the
 * first program next to sample i of the second, and one calibration after
 * both, which the two share: on a VM the host can slow the core for a
 * millisecond or more at a time (seen: 8 samples in a row of one run 2.7x
 * slow, which made a load chain read -3.07 cycles), and a slow stretch then
 * falls on both runs, whose difference is the result, and on the clock
 * ratio they are divided by, instead of on one run only.  Returns how many
 * usable calibration ratios were taken, all in rs[0] (the second run uses
 * them too), and in *n_add how many of the ADD chain's. */
size_t measure(run_state rs[2], long warm, long n, const cal_progs *cp, size_t n_ctr,
                      const pmu_counter *ctr, bool *ovf, size_t *n_add)
{
    for (int r = 0; r < 2; r++)
        rs[r].inner = cp ? INNER_MIN : 1;
    *n_add = 0;
    if (!cp) {
        for (int r = 0; r < 2; r++)
            for (long i = -warm; i < n; i++)
                sample(&rs[r], i, n, NULL, false, n_ctr, ctr, ovf);
        return 0;
    }
    for (int r = 0; r < 2; r++)
        for (long i = -warm; i < 0; i++)
            sample(&rs[r], i, n, cp, false, n_ctr, ctr, ovf);
    for (long i = 0; i < n; i++) {
        sample(&rs[1], i, n, cp, false, n_ctr, ctr, ovf);
        sample(&rs[0], i, n, cp, true, n_ctr, ctr, ovf);
    }
    /* Each chain's median over the run, and the smaller one: either chain
     * reads at least the true ratio (it can be slowed, by an interrupt or
     * the other hyperthread, never sped up), and medians leave behind what
     * the TSC's steps and interrupts did to single readings, where the
     * smaller of two single readings leant fast.  The chosen chain's ratios
     * go to ratio[], which the run is divided by (their median) and which
     * are reported; the ADD chain's stay in add_ratio[] (*n_add), for how
     * much slower that chain ran. */
    size_t na = keep_positive(rs[0].add_ratio, (size_t)n);
    size_t ni = keep_positive(rs[0].ratio, (size_t)n);
    *n_add = na;
    if (ni && (!na || stats_median(rs[0].ratio, ni) < stats_median(rs[0].add_ratio, na)))
        return ni;
    if (na) {
        memcpy(rs[0].ratio, rs[0].add_ratio, na * sizeof *rs[0].ratio);
        return na;
    }
    /* every one interrupted (hardly possible): one full calibration point */
    rs[0].ratio[0] = rs[0].add_ratio[0] = cal_point_n(cp, CAL_REPS);
    *n_add = 1;
    return 1;
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
