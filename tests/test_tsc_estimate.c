/* tsc_estimate: the tsc method's estimate from synthetic runs whose truth
 * is known: readings rounded to a coarse TSC step at every phase, with
 * interrupts and preemptions added to some; the interval must hold the
 * truth, and disturbed runs must not move the estimate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "pmu/tsc_estimate.h"

#define STEP 21.0
#define MAX_RUNS 4096

static double v[MAX_RUNS * 2], scratch[MAX_RUNS];
static uint32_t smp[MAX_RUNS];
static uint8_t keep[MAX_RUNS];

/* xorshift: the tests' noise, the same every time */
static uint64_t g_x = 88172645463325252ull;
static double uniform(void)
{
    g_x ^= g_x << 13;
    g_x ^= g_x >> 7;
    g_x ^= g_x << 17;
    return (double)(g_x >> 11) / 9007199254740992.0;
}

/* A run of `t` ticks read by a TSC that advances in STEP ticks, starting at
 * a random phase of a step. */
static double rounded(double t)
{
    double start = uniform() * STEP;
    return floor((start + t) / STEP) * STEP - floor(start / STEP) * STEP;
}

/* n runs of a program of `t` ticks, in `samples` samples, counter 0 the
 * rounded reading, counter 1 the same plus 3 ticks; every `every`-th run
 * disturbed by `extra` ticks. */
static tsc_log make_log(size_t n, size_t samples, double t, size_t every, double extra)
{
    tsc_log l = {.v = v, .sample = smp, .keep = keep, .cap = MAX_RUNS, .n_ctr = 2};
    for (size_t r = 0; r < n; r++) {
        double x = rounded(t) + (every && r % every == every - 1 ? extra : 0);
        double run[2] = {x, x + 3};
        assert_true(tsc_log_add(&l, run, (uint32_t)(r % samples)));
    }
    return l;
}

static void test_rounding_averages_out(void **state)
{
    (void)state;
    /* 200.3 ticks: single readings are 189 or 210, never 200.3 */
    tsc_log l = make_log(2000, 10, 200.3, 0, 0);
    tsc_fit f;
    tsc_fit_log(&l, 3, STEP, scratch, &f);
    assert_int_equal(f.kept, 2000);
    assert_true(fabs(f.mean[0] - 200.3) <= TSC_Z * f.se[0]);
    assert_true(fabs(f.mean[1] - 203.3) <= TSC_Z * f.se[1]);
    /* the rounding's share is counted: step / sqrt(6) / sqrt(runs) at least */
    assert_true(f.se[0] >= STEP / sqrt(6.0) / sqrt(2000.0) - 1e-12);
}

static void test_disturbed_runs_are_dropped(void **state)
{
    (void)state;
    /* every 7th run preempted (a millisecond), as on a loaded host */
    tsc_log l = make_log(700, 10, 1500.0, 7, 2e6);
    tsc_fit f;
    tsc_fit_log(&l, 3, STEP, scratch, &f);
    assert_int_equal(f.kept, 600);
    assert_true(fabs(f.mean[0] - 1500.0) <= TSC_Z * f.se[0]);
    for (size_t r = 0; r < l.n; r++)
        assert_int_equal(l.keep[r], r % 7 != 6);
    /* samples: the means of their kept runs, all near the truth */
    double out[2 * 10], count[10];
    assert_int_equal(tsc_fit_samples(&l, &f, 10, out, count), 0);
    for (int i = 0; i < 10; i++)
        assert_true(fabs(out[i] - 1500.0) < 2 * STEP);
}

static void test_sample_spoiled_entirely_gets_the_mean(void **state)
{
    (void)state;
    /* 4 samples of 3 runs; all of sample 2's runs preempted */
    tsc_log l = {.v = v, .sample = smp, .keep = keep, .cap = MAX_RUNS, .n_ctr = 2};
    for (int r = 0; r < 12; r++) {
        double x = r % 4 == 2 ? 5e6 : 1000.0;
        double run[2] = {x, x};
        tsc_log_add(&l, run, (uint32_t)(r % 4));
    }
    tsc_fit f;
    tsc_fit_log(&l, 3, STEP, scratch, &f);
    double out[2 * 4], count[4];
    assert_int_equal(tsc_fit_samples(&l, &f, 4, out, count), 1);
    assert_float_equal(out[2], 1000.0, 1e-9);
}

/* Runs that spread over the window (long code whose speed depends on a
 * shared cache): the window decides the mean, and says by how much; runs
 * in one tight cluster leave nothing to decide. */
static void test_window_ambiguity(void **state)
{
    (void)state;
    tsc_log l = {.v = v, .sample = smp, .keep = keep, .cap = MAX_RUNS, .n_ctr = 2};
    for (int r = 0; r < 400; r++) {
        double x = 150000 + 400 * (r % 100);   /* 150,000 .. 189,600 evenly */
        double run[2] = {x, x};
        tsc_log_add(&l, run, (uint32_t)(r % 10));
    }
    tsc_fit f;
    tsc_fit_log(&l, 3, STEP, scratch, &f);
    assert_true(f.ambiguity[0] > 2000);
    tsc_log m = make_log(400, 10, 150000, 0, 0);
    tsc_fit_log(&m, 3, STEP, scratch, &f);
    assert_true(f.ambiguity[0] < 1);
}

/* A short program on a fine TSC (2-tick steps): runs a quarter slow now
 * and then stay inside the window's floor (TSC_WINDOW_TICKS), as they do in
 * a long program's window; an interrupt does not. */
static void test_window_floor(void **state)
{
    (void)state;
    tsc_log l = {.v = v, .sample = smp, .keep = keep, .cap = MAX_RUNS, .n_ctr = 2};
    for (int r = 0; r < 400; r++) {
        double x = r % 5 == 4 ? 125 : r == 7 ? 4000 : 100;
        double run[2] = {x, x};
        tsc_log_add(&l, run, (uint32_t)(r % 10));
    }
    tsc_fit f;
    tsc_fit_log(&l, 3, 2.0, scratch, &f);
    assert_int_equal(f.kept, 399);
    assert_false(l.keep[7]);
    assert_float_equal(f.mean[0], (319 * 100.0 + 80 * 125.0) / 399, 1e-9);
}

/* An interrupt between the two counters' reads of a run hits one of them
 * only: the run is dropped for both. */
static void test_each_clock_read_is_judged(void **state)
{
    (void)state;
    tsc_log l = {.v = v, .sample = smp, .keep = keep, .cap = MAX_RUNS, .n_ctr = 2};
    for (int r = 0; r < 40; r++) {
        double run[2] = {426, r == 7 ? 1286 : 240};
        tsc_log_add(&l, run, (uint32_t)(r % 4));
    }
    tsc_fit f;
    tsc_fit_log(&l, 3, STEP, scratch, &f);
    assert_int_equal(f.kept, 39);
    assert_false(l.keep[7]);
    assert_float_equal(f.mean[1], 240, 1e-9);
}

static void test_log_full(void **state)
{
    (void)state;
    tsc_log l = {.v = v, .sample = smp, .keep = keep, .cap = 2, .n_ctr = 2};
    double run[2] = {1, 1};
    assert_true(tsc_log_add(&l, run, 0));
    assert_true(tsc_log_add(&l, run, 0));
    assert_false(tsc_log_add(&l, run, 0));
}

static void test_chain_fit(void **state)
{
    (void)state;
    /* a chain of 11,400 cycles more in b at 0.6 ticks a cycle; a run of the
     * short program slowed by an interrupt must not make it read fast */
    double a[40], b[40];
    for (int i = 0; i < 40; i++) {
        a[i] = rounded(400) + (i == 5 || i == 17 ? 3000 : 0);
        b[i] = rounded(400 + 0.6 * 11400) + (i == 9 ? 4000 : 0);
    }
    double hw, r = tsc_chain_fit(a, b, 40, 11400, STEP, scratch, &hw);
    assert_true(hw > 0 && hw < 0.003);
    assert_true(fabs(r - 0.6) <= hw);
    double none;
    tsc_chain_fit(a, b, 0, 11400, STEP, scratch, &none);
    assert_true(isinf(none));
}

/* A core that ran its first stretch at 3/4 of the frequency of the rest
 * (0.8 ticks a cycle, then 0.6): the clock moved by 0.2 less the
 * half-widths; a steady clock with rounding and interrupts did not move. */
static void test_clock_drift(void **state)
{
    (void)state;
    double a[24], b[24];
    for (int i = 0; i < 24; i++) {
        double ratio = i < 6 ? 0.8 : 0.6;
        a[i] = rounded(400) + (i == 13 ? 3000 : 0);
        b[i] = rounded(400 + ratio * 11400) + (i == 20 ? 4000 : 0);
    }
    double d = tsc_clock_drift(a, b, 24, 11400, STEP, scratch);
    assert_true(d > 0.19 && d <= 0.2);
    for (int i = 0; i < 6; i++)
        b[i] = rounded(400 + 0.6 * 11400);
    assert_float_equal(tsc_clock_drift(a, b, 24, 11400, STEP, scratch), 0, 0);
    /* a move of 0.3 %, smaller than TSC_DRIFT_MIN, is not one */
    for (int i = 0; i < 12; i++)
        b[i] = 400 + 0.6018 * 11400;
    for (int i = 12; i < 24; i++)
        b[i] = 400 + 0.6 * 11400;
    for (int i = 0; i < 24; i++)
        a[i] = 400;
    assert_float_equal(tsc_clock_drift(a, b, 24, 11400, 1, scratch), 0, 0);
    /* too few runs to cut in two */
    assert_float_equal(tsc_clock_drift(a, b, 5, 11400, STEP, scratch), 0, 0);
    /* the frequency going back and forth run by run, 6 of 10 pairs at the
     * slower clock: every stretch reads alike, the window keeps the faster
     * runs (0.7436 ticks a cycle), the median of the pairs is 0.768 */
    for (int i = 0; i < 10; i++) {
        double ratio = i % 5 == 0 || i % 5 == 3 ? 0.7436 : 0.768;
        a[i] = rounded(400 + ratio * 3000);
        b[i] = rounded(400 + ratio * 14400);
    }
    d = tsc_clock_drift(a, b, 10, 11400, STEP, scratch);
    assert_true(d > 0.02 && d < 0.0245);
}

/* Too few calibrations for stretches: two readings in a row at another
 * level are a move (by the nearer of them, less the fit's half-width and a
 * reading's rounding); one alone, two apart, or two interrupted far off
 * are not, nor two within the rounding. */
static void test_clock_stepped(void **state)
{
    (void)state;
    double r[10] = {0.768, 0.7685, 0.743, 0.743, 0.7432, 0.7428, 0.743, 0.743, 0.743, 0.743};
    double d = tsc_clock_stepped(r, 10, 0.743, 0.001, 0.0005);
    assert_true(fabs(d - (0.025 - 0.0015)) < 1e-9);
    /* both chains' readings taking turns: the move shows in pairs still */
    double one[10] = {0.768, 0.743, 0.743, 0.743, 0.743, 0.743, 0.7431, 0.743, 0.743, 0.743};
    assert_float_equal(tsc_clock_stepped(one, 10, 0.743, 0.001, 0.0005), 0, 0);
    double apart[10] = {0.768, 0.743, 0.768, 0.743, 0.743, 0.743, 0.743, 0.743, 0.743, 0.743};
    assert_float_equal(tsc_clock_stepped(apart, 10, 0.743, 0.001, 0.0005), 0, 0);
    double far[10] = {1.2, 1.5, 0.743, 0.743, 0.743, 0.743, 0.743, 0.743, 0.743, 0.743};
    assert_float_equal(tsc_clock_stepped(far, 10, 0.743, 0.001, 0.0005), 0, 0);
    double close[4] = {0.7455, 0.7455, 0.743, 0.743};
    assert_float_equal(tsc_clock_stepped(close, 4, 0.743, 0.001, 0.0005), 0, 0);
    /* a faster clock for a stretch is a move too */
    double fast[5] = {0.743, 0.7195, 0.7196, 0.743, 0.743};
    assert_true(tsc_clock_stepped(fast, 5, 0.743, 0.001, 0.0005) > 0.02);
}

/* Each run's clock: the usable calibration nearest in time; readings
 * outside [lo, hi] (interrupted ones) are passed over; none usable: 0. */
static void test_local_clock(void **state)
{
    (void)state;
    const double cal_t[6] = {10, 20, 30, 40, 50, 60};
    const double cal_r[6] = {0.72, 1.30, 0.77, 0.50, 0.74, 0.72};
    const double run_t[7] = {0, 14, 16, 26, 44, 46, 99};
    const double want[7] = {0.72, 0.72, 0.72, 0.77, 0.74, 0.74, 0.72};
    double local[7];
    tsc_local_clock(run_t, 7, cal_t, cal_r, 6, 0.70, 0.90, local);
    for (int r = 0; r < 7; r++)
        assert_float_equal(local[r], want[r], 0);
    tsc_local_clock(run_t, 7, cal_t, cal_r, 6, 0.80, 0.90, local);
    for (int r = 0; r < 7; r++)
        assert_float_equal(local[r], 0, 0);
    tsc_local_clock(run_t, 7, cal_t, cal_r, 0, 0.70, 0.90, local);
    assert_float_equal(local[3], 0, 0);
}

/* The core's clock taking turns between 0.72 and 0.77 ticks a cycle every
 * few calibrations while two programs 100,000 cycles apart run, a
 * calibration beside every pair of runs: with the clock of the fastest
 * calibrations (what the chains' window keeps) the runs' difference reads
 * 2-4 % high; at each run's own clock it reads the truth, even with an
 * interrupted calibration among them and a run whose counter 1 (the TSC
 * itself) must stay as read. */
static void test_local_clock_rescale(void **state)
{
    (void)state;
    enum { N = 400 };
    static double va[N * 2], vb[N * 2], ta[N], tb[N], cal_t[N], cal_r[N], local[N], out[2][N * 2];
    static uint32_t sa[N], sb[N];
    static uint8_t ka[N], kb[N];
    tsc_log l[2] = {{.v = va, .sample = sa, .keep = ka, .t = ta, .cap = N, .n_ctr = 2},
                    {.v = vb, .sample = sb, .keep = kb, .t = tb, .cap = N, .n_ctr = 2}};
    for (int i = 0; i < N; i++) {
        double ratio = (i / 3) % 2 ? 0.77 : 0.72, t = 100.0 * i;
        double a = rounded(101000 * ratio), b = rounded(201000 * ratio);
        double ra[2] = {a, a}, rb[2] = {b, b};
        assert_true(tsc_log_add(&l[0], ra, (uint32_t)i));
        assert_true(tsc_log_add(&l[1], rb, (uint32_t)i));
        ta[i] = t;
        tb[i] = t + 10;
        cal_t[i] = t + 5;
        cal_r[i] = i == 76 ? 1.4 : ratio;   /* its neighbours at its clock */
    }
    tsc_fit f[2];
    for (int r = 0; r < 2; r++)
        tsc_fit_log(&l[r], 1, STEP, scratch, &f[r]);
    double raw = (f[1].mean[0] - f[0].mean[0]) / 0.72;
    assert_true(raw > 102000 && raw < 104000);
    for (int r = 0; r < 2; r++) {
        tsc_local_clock(l[r].t, l[r].n, cal_t, cal_r, N, 0.72 * 0.99, 0.72 * 1.25, local);
        tsc_log_rescale(&l[r], local, 0.72, 1, out[r]);
        assert_float_equal(out[r][2 * 3 + 1], l[r].v[2 * 3 + 1], 0);   /* counter 1 as read */
        l[r].v = out[r];
        tsc_fit_log(&l[r], 1, STEP, scratch, &f[r]);
    }
    double at_own = (f[1].mean[0] - f[0].mean[0]) / 0.72;
    assert_true(fabs(at_own - 100000) < 10);
}

/* The harness alone 87 ticks; 1,000 copies in 987 ticks, 2,000 in 1,890
 * (linear), or in 2,436 (the second program slowed where it lay), or the
 * first in 1,600 (it slowed) */
static void test_linear(void **state)
{
    (void)state;
    double fe = tsc_linear_floor(false, STEP, 0.6);
    assert_true(tsc_linear(987, 1000, 87, 3, 1890 - 987, 1000, 10, fe));
    assert_false(tsc_linear(987, 1000, 87, 3, 2436 - 987, 1000, 10, fe));
    assert_false(tsc_linear(1600, 1000, 87, 3, 1890 - 1600, 1000, 10, fe));
    /* off by less than 8 steps (small code), or by less than 1.5 % */
    assert_true(tsc_linear(87 + 15 + 100, 100, 87, 3, 15, 100, 2, fe));
    assert_true(tsc_linear(87 + 90000 + 1200, 10000, 87, 3, 90000, 10000, 10, fe));
    assert_false(tsc_linear(87 + 90000 + 1500, 10000, 87, 3, 90000, 10000, 10, fe));
    /* a fine TSC (2-tick steps): the floor is TSC_LINEAR_TICKS, not 8 steps */
    double fine = tsc_linear_floor(false, 2.0, 0.6);
    assert_true(tsc_linear(87 + 15 + 150, 100, 87, 3, 15, 100, 2, fine));
    assert_false(tsc_linear(87 + 15 + 200, 100, 87, 3, 15, 100, 2, fine));
    /* -basic_mode: no copies in the first program, nothing to compare */
    assert_true(tsc_linear(87, 0, 87, 3, 900, 1000, 10, fe));
}

/* A chain x 100 (POPCNT: 100 cycles, 58 ticks at 0.58 a cycle) whose first
 * program ran 5 ticks slow at its place: its misfit of 10 ticks (5 in the
 * first program, 5 less in the difference) is beyond a chain's floor and
 * the runs' noise (1 tick, 2 in the harness alone), within the front end's
 * floor; 3 ticks of misfit are within the chain's too. */
static void test_linear_chain_floor(void **state)
{
    (void)state;
    double chain = tsc_linear_floor(true, STEP, 0.58), fe = tsc_linear_floor(false, STEP, 0.58);
    assert_float_equal(chain, TSC_LINEAR_CHAIN_CYCLES * 0.58, 1e-12);
    assert_true(chain < STEP);
    assert_true(tsc_linear(87 + 5 + 58, 100, 87, 2, 58 - 5, 100, 1, fe));
    assert_false(tsc_linear(87 + 5 + 58, 100, 87, 2, 58 - 5, 100, 1, chain));
    assert_true(tsc_linear(87 + 3 + 58, 100, 87, 2, 58, 100, 1, chain));
    /* what it lets pass: the larger of 1.5 % of the copies' 58 ticks and
     * the floor, plus the harness's 2 and the difference's 1 twice over
     * (the first program's copies are the difference's) in quadrature */
    double allow = tsc_linear_allow(100, 2, 58, 100, 1, chain);
    assert_float_equal(allow, chain + hypot(2, 2), 1e-12);
    assert_true(tsc_linear(87 + allow + 58, 100, 87, 2, 58, 100, 1, chain));
    assert_false(tsc_linear(87 + allow + 0.01 + 58, 100, 87, 2, 58, 100, 1, chain));
    assert_float_equal(tsc_linear_allow(100, 0, 58, 100, 1, chain), chain + 2, 1e-12);
    /* no clock known: the front end's floor */
    assert_float_equal(tsc_linear_floor(true, STEP, 0), fe, 0);
}

static void test_half_width_and_tolerance(void **state)
{
    (void)state;
    assert_float_equal(tsc_tolerance(1.0), 0.02, 1e-12);
    assert_float_equal(tsc_tolerance(-10.0), 0.15, 1e-12);
    /* ticks: the statistical part plus the aggregate's offset */
    assert_float_equal(tsc_half_width(600, 6, 1, 0, 0), 7, 1e-12);
    /* cycles: the clock's share (1 % of 600 ticks) in quadrature, then / ratio */
    double u = tsc_half_width(600, 8, 0, 0.6, 0.006);
    assert_float_equal(u, 10.0 / 0.6, 1e-9);
}

/* The ADD chain ran slow beyond both chains' half-width and by more than
 * half a percent: another thread shared the core's ALUs.  Within its
 * half-width, or with the ADD chain as the clock (hw 0), it did not. */
static void test_core_shared(void **state)
{
    (void)state;
    assert_true(tsc_core_shared(0.03, 0.01));
    assert_false(tsc_core_shared(0.03, 0.04));     /* within the chains' noise */
    assert_false(tsc_core_shared(0.004, 0.001));   /* below half a percent */
    assert_false(tsc_core_shared(0.0, 0.0));       /* the ADD chain was the clock */
    assert_false(tsc_core_shared(0.05, 0.0));
}

/* Fewer than 80 % of a program's runs kept: the core was disturbed; not
 * judged from fewer than TSC_KEPT_RUNS runs; where the runs left out are
 * (nearly) all the first of their sample, judged from the runs after
 * them. */
static bool disturbed(size_t runs0, size_t runs1, size_t kept0, size_t kept1)
{
    /* no run leads its sample */
    return tsc_disturbed((size_t[]){runs0, runs1}, (size_t[]){kept0, kept1},
                         (size_t[]){0, 0}, (size_t[]){0, 0});
}

static void test_disturbed(void **state)
{
    (void)state;
    assert_false(disturbed(200, 200, 200, 192));
    assert_false(disturbed(200, 200, 160, 160));   /* 80 % */
    assert_true(disturbed(200, 200, 200, 159));
    assert_true(disturbed(200, 200, 152, 114));
    assert_false(disturbed(19, 19, 10, 10));      /* too few */
    assert_true(disturbed(20, 20, 10, 19));
    assert_false(disturbed(20, 20, 16, 20));
    assert_true(disturbed(40, 8, 31, 1));
    assert_false(disturbed(0, 0, 0, 0));
    /* 10 samples of 4 runs, the first of each out: the cost of taking
     * turns (both programs) */
    assert_false(tsc_disturbed((size_t[]){40, 40}, (size_t[]){30, 30}, (size_t[]){10, 10},
                               (size_t[]){10, 10}));
    /* ... and one more run out: 10 of 11 out lead theirs (91 %) */
    assert_false(tsc_disturbed((size_t[]){40, 40}, (size_t[]){30, 29}, (size_t[]){10, 10},
                               (size_t[]){10, 10}));
    /* 2 runs a sample, a neighbour hitting either run alike: 5 of 10 out lead */
    assert_true(tsc_disturbed((size_t[]){40, 40}, (size_t[]){40, 30}, (size_t[]){20, 20},
                              (size_t[]){0, 5}));
    /* the leading runs out and half the others too */
    assert_true(tsc_disturbed((size_t[]){40, 40}, (size_t[]){15, 40}, (size_t[]){10, 10},
                              (size_t[]){10, 0}));
}

/* 10 samples of 4 runs of 1,000 ticks, run `slow` of each 30 % slower. */
static tsc_log samples_of_four(size_t slow)
{
    tsc_log l = {.v = v, .sample = smp, .keep = keep, .cap = MAX_RUNS, .n_ctr = 2};
    for (size_t r = 0; r < 40; r++) {
        double x = r % 4 == slow ? 1300.0 : 1000.0;
        double run[2] = {x, x};
        assert_true(tsc_log_add(&l, run, (uint32_t)(r / 4)));
    }
    return l;
}

/* tsc_fit_log counts the runs that lead their sample's stretch and those of
 * them the window leaves out: the first run of each sample slow (the code
 * fetched again after the other program's runs). */
static void test_leading_runs(void **state)
{
    (void)state;
    tsc_log l = samples_of_four(0);
    tsc_fit f;
    tsc_fit_log(&l, 1, STEP, scratch, &f);
    assert_int_equal(f.kept, 30);
    assert_int_equal(f.lead, 10);
    assert_int_equal(f.lead_out, 10);
    assert_true(fabs(f.mean[0] - 1000.0) < 1e-9);
    size_t runs[2] = {f.runs, f.runs}, kept[2] = {f.kept, f.kept};
    size_t lead[2] = {f.lead, f.lead}, out[2] = {f.lead_out, f.lead_out};
    assert_false(tsc_disturbed(runs, kept, lead, out));
    /* the same runs, every fourth slow but not the first of its sample:
     * disturbed */
    l = samples_of_four(2);
    tsc_fit_log(&l, 1, STEP, scratch, &f);
    assert_int_equal(f.kept, 30);
    assert_int_equal(f.lead_out, 0);
    size_t kept2[2] = {f.kept, f.kept}, out2[2] = {0, 0};
    assert_true(tsc_disturbed(runs, kept2, lead, out2));
}

/* Two programs' runs taking turns after two preludes; after prelude 1 the
 * second program takes `moved` ticks more (what ran before it moved its
 * cost).  Each a rounded reading at a random phase. */
static void prelude_fit(double moved, tsc_fit f[2])
{
    static double w[2][MAX_RUNS * 2], sc[MAX_RUNS];
    static uint32_t s[2][MAX_RUNS];
    static uint8_t k[2][MAX_RUNS], p[2][MAX_RUNS];
    for (int r = 0; r < 2; r++) {
        tsc_log l = {.v = w[r], .sample = s[r], .keep = k[r], .prelude = p[r], .cap = MAX_RUNS,
                     .n_ctr = 2};
        for (unsigned i = 0; i < 2000; i++) {
            double x = rounded(r ? 1326.0 + (i % 2 ? moved : 0) : 114.0);
            double run[2] = {x, x};
            assert_true(tsc_log_add_after(&l, run, i / 20, i % 2));
        }
        tsc_fit_log(&l, 3, STEP, sc, &f[r]);
        assert_int_equal(f[r].by_kept[0] + f[r].by_kept[1], f[r].kept);
    }
}

/* The difference is the mean over the preludes; where they read apart
 * beyond their noise, by how much (less that noise), and where they read
 * alike, nothing. */
static void test_prelude_spread(void **state)
{
    (void)state;
    tsc_fit f[2];
    double diff;
    prelude_fit(60, f);
    double spread = tsc_prelude_spread(f, 0, &diff);
    assert_true(fabs(diff - (1212 + 30)) <= 3);
    assert_true(spread > 50 && spread <= 61);
    prelude_fit(0, f);
    assert_true(tsc_prelude_spread(f, 0, &diff) < 3);
    assert_true(fabs(diff - 1212) <= 3);
    /* no run after prelude 1 (a log without preludes): the plain difference */
    f[0].by_kept[1] = 0;
    assert_float_equal(tsc_prelude_spread(f, 0, &diff), 0, 0);
    assert_float_equal(diff, f[1].mean[0] - f[0].mean[0], 1e-9);
}

/* The spread's own noise: the standard error of the preludes' distance,
 * the four means' errors together (worked by hand: 3, 4, 12 and 0 make 13);
 * where they read alike, the spread stays within three of it. */
static void test_prelude_noise(void **state)
{
    (void)state;
    tsc_fit f[2];
    memset(f, 0, sizeof f);
    f[0].by_se[0][1] = 3;
    f[0].by_se[1][1] = 4;
    f[1].by_se[0][1] = 12;
    assert_float_equal(tsc_prelude_noise(f, 1), 13, 1e-12);
    assert_float_equal(tsc_prelude_noise(f, 0), 0, 0);
    double diff;
    prelude_fit(0, f);
    double noise = tsc_prelude_noise(f, 0);
    assert_true(noise > 0);
    assert_true(tsc_prelude_spread(f, 0, &diff) <= 2 * noise);
    prelude_fit(60, f);
    assert_true(tsc_prelude_spread(f, 0, &diff) > 3 * tsc_prelude_noise(f, 0));
}

/* Two programs' runs, the second's cost falling by `fall` ticks evenly
 * from its first run to its last (code that settles while measured), each
 * a rounded reading at a random phase. */
static void settle_fit(double fall, tsc_fit f[2])
{
    static double w[2][MAX_RUNS * 2], sc[MAX_RUNS];
    static uint32_t s[2][MAX_RUNS];
    static uint8_t k[2][MAX_RUNS];
    for (int r = 0; r < 2; r++) {
        tsc_log l = {.v = w[r], .sample = s[r], .keep = k[r], .cap = MAX_RUNS, .n_ctr = 1};
        for (unsigned i = 0; i < 2000; i++) {
            double x = rounded(r ? 1212.0 + fall * (1 - i / 1999.0) : 114.0);
            assert_true(tsc_log_add(&l, &x, i / 20));
        }
        tsc_fit_log(&l, 1, STEP, sc, &f[r]);
        assert_int_equal(f[r].half_kept[0] + f[r].half_kept[1], f[r].kept);
    }
}

/* A difference that moves from the first half of the runs to the second
 * counts by how far (its halves' means 30 ticks apart, less twice their
 * noise, about 1); one that holds still, hardly at all; a half with no
 * kept run, not at all. */
static void test_settle_spread(void **state)
{
    (void)state;
    tsc_fit f[2];
    settle_fit(60, f);
    double spread = tsc_settle_spread(f, 0);
    assert_true(spread > 27 && spread <= 30);
    settle_fit(0, f);
    assert_true(tsc_settle_spread(f, 0) < 1);
    f[1].half_kept[1] = 0;
    assert_float_equal(tsc_settle_spread(f, 0), 0, 0);
}

/* The samples' differences' standard error: 0 where they all differ
 * alike; the standard error of their mean where not (three of ten 13
 * ticks slower: 2.1); 0 below TSC_PAIRED_MIN samples. */
static void test_paired_se(void **state)
{
    (void)state;
    double a[10], b[10];
    for (int i = 0; i < 10; i++) {
        a[i] = 350 + 3 * i;
        b[i] = a[i] + 200;
    }
    assert_float_equal(tsc_paired_se(a, b, 10), 0, 1e-9);
    b[1] += 13;
    b[3] += 13;
    b[4] += 13;
    /* sd of {13 x 3, 0 x 7}: 13 sqrt(0.21 x 10 / 9) = 6.28; / sqrt(10) */
    assert_float_equal(tsc_paired_se(a, b, 10), 13 * sqrt(0.21 * 10 / 9) / sqrt(10), 1e-9);
    assert_float_equal(tsc_paired_se(a, b, TSC_PAIRED_MIN - 1), 0, 0);
}

/* Differences of two reads `gap` ticks apart (plus what a read takes,
 * 22 ticks) on a TSC that shows multiples of `quantum` (fractional: a host's
 * scaled TSC, 20.96 ticks every 10 ns, now and then one tick off), some
 * of them an interrupt long. */
static size_t read_pairs(uint64_t *d, size_t n, double quantum)
{
    for (size_t i = 0; i < n; i++) {
        double t0 = uniform() * 1e6, t1 = t0 + 22 + (double)(i * 37 % 200) * 0.77;
        d[i] = (uint64_t)(floor(t1 / quantum) * quantum + 0.5) -
               (uint64_t)(floor(t0 / quantum) * quantum + 0.5);
        if (i % 97 == 0)
            d[i] += 40000;   /* an interrupt: left out */
    }
    return n;
}

/* The step is the quantum the readings come in, not the time a read takes:
 * 2 on a guest whose TSC counts in 2s (its back-to-back reads differ by 22
 * at least), 21 on a host that advances it by 20.96 every 10 ns, 26 on
 * another, 1 on a fine TSC. */
static void test_step_of(void **state)
{
    (void)state;
    static uint64_t d[4000];
    assert_float_equal(tsc_step_of(d, read_pairs(d, 4000, 2)), 2, 0);
    assert_float_equal(tsc_step_of(d, read_pairs(d, 4000, 20.96)), 21, 0);
    assert_float_equal(tsc_step_of(d, read_pairs(d, 4000, 26)), 26, 0);
    assert_float_equal(tsc_step_of(d, read_pairs(d, 4000, 1)), 1, 0);
    assert_float_equal(tsc_step_of(d, read_pairs(d, 4000, 3)), 3, 0);
    /* nothing usable: every difference an interrupt's */
    for (size_t i = 0; i < 4000; i++)
        d[i] = 100000;
    assert_float_equal(tsc_step_of(d, 4000), 1, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounding_averages_out),
        cmocka_unit_test(test_disturbed_runs_are_dropped),
        cmocka_unit_test(test_sample_spoiled_entirely_gets_the_mean),
        cmocka_unit_test(test_each_clock_read_is_judged),
        cmocka_unit_test(test_window_ambiguity),
        cmocka_unit_test(test_window_floor),
        cmocka_unit_test(test_log_full),
        cmocka_unit_test(test_chain_fit),
        cmocka_unit_test(test_clock_drift),
        cmocka_unit_test(test_clock_stepped),
        cmocka_unit_test(test_local_clock),
        cmocka_unit_test(test_local_clock_rescale),
        cmocka_unit_test(test_linear),
        cmocka_unit_test(test_linear_chain_floor),
        cmocka_unit_test(test_half_width_and_tolerance),
        cmocka_unit_test(test_core_shared),
        cmocka_unit_test(test_disturbed),
        cmocka_unit_test(test_leading_runs),
        cmocka_unit_test(test_step_of),
        cmocka_unit_test(test_prelude_spread),
        cmocka_unit_test(test_prelude_noise),
        cmocka_unit_test(test_settle_spread),
        cmocka_unit_test(test_paired_se),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
