/* nb tsc estimate: see tsc_estimate.h.
 *
 * What disturbs a run on a shared machine only adds time: an interrupt
 * (microseconds), a preemption or the host descheduling the VM
 * (milliseconds; seen: 3 samples of 10 in one run 100x long), another
 * program's cache traffic.  Nothing makes a run faster than the code runs.
 * So the undisturbed runs are the lowest ones, and the estimate of a
 * program is the mean of the runs near the bottom: within max(4 TSC steps,
 * TSC_WINDOW_TICKS, 10 %: TSC_WINDOW) above the lowest quarter of all its
 * runs.  The lowest quarter and
 * not the minimum: a TSC step makes single readings one step low, and some
 * code has rare fast runs of its own.  4 steps cover the two readings a
 * step rounds a run to; 10 % the code's own run-to-run variation, which a
 * PMU would count too (2 MB of NOPs streamed from a shared L3 varied by
 * more than 2 % from run to run), while a preemption (milliseconds) or an
 * interrupt in all but long code (microseconds) lies beyond it.
 * The mean, not a lower quantile: the readings are rounded to TSC steps,
 * and only their mean over runs that start at every phase of a step (the
 * tsc method spreads them) is unbiased.  Where the runs spread so that the
 * window decides (2 MB of code streamed from a shared L3: runs 154,000 to
 * 417,000 ticks), the means with a third and twice the window say by how
 * much, and that counts as uncertainty. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/tsc_estimate.h"
#include "lib/sort.h"
#include "pmu/tsc_frontend.h"
#include "pmu/tsc_load.h"
#include "pmu/tsc_ports.h"

bool tsc_log_add_after(tsc_log *l, const double *v, uint32_t sample, unsigned p)
{
    if (l->n >= l->cap)
        return false;
    memcpy(l->v + l->n * l->n_ctr, v, l->n_ctr * sizeof *v);
    l->sample[l->n] = sample;
    if (l->prelude)
        l->prelude[l->n] = (uint8_t)(p < TSC_PRELUDES ? p : 0);
    l->n++;
    return true;
}

bool tsc_log_add(tsc_log *l, const double *v, uint32_t sample)
{
    return tsc_log_add_after(l, v, sample, 0);
}

/* The mean of k readings from their sum and sum of squares, and its
 * standard error: from the sample variance (n-1), at least the rounding's
 * (q per reading). */
static double mean_se(double sum, double sq, double k, double q, double *se)
{
    double m = sum / k;
    double var = fmax(0, sq / k - m * m) * (k > 1 ? k / (k - 1) : 1);
    *se = sqrt(fmax(var, q * q) / k);
    return m;
}

/* The mean and standard error (at least the rounding's, q per run) of
 * the kept runs of each of two groups: each prelude's (halves false; see
 * TSC_PRELUDES, which is 2) or the log's first and second half. */
_Static_assert(TSC_PRELUDES == 2, "group_means() keeps two groups");
static void group_means(const tsc_log *l, double q, bool halves, double mean[2][PMU_MAX_GROUP_CTR],
                        double se[2][PMU_MAX_GROUP_CTR], size_t kept[2])
{
    double sum[2][PMU_MAX_GROUP_CTR] = {{0}}, sq[2][PMU_MAX_GROUP_CTR] = {{0}};
    for (size_t r = 0; r < l->n; r++) {
        if (!l->keep[r])
            continue;
        unsigned p = halves ? 2 * r >= l->n : l->prelude ? l->prelude[r] : 0;
        kept[p]++;
        for (size_t c = 0; c < l->n_ctr; c++) {
            double x = l->v[r * l->n_ctr + c];
            sum[p][c] += x;
            sq[p][c] += x * x;
        }
    }
    for (unsigned p = 0; p < 2; p++) {
        double k = (double)kept[p];
        for (size_t c = 0; k > 0 && c < l->n_ctr; c++)
            mean[p][c] = mean_se(sum[p][c], sq[p][c], k, q, &se[p][c]);
    }
}

double tsc_prelude_spread(const tsc_fit f[2], size_t c, double *diff)
{
    *diff = f[1].mean[c] - f[0].mean[c];
    double d[TSC_PRELUDES], sum = 0;
    for (unsigned p = 0; p < TSC_PRELUDES; p++) {
        if (!f[0].by_kept[p] || !f[1].by_kept[p])
            return 0;
        d[p] = f[1].by_mean[p][c] - f[0].by_mean[p][c];
        sum += d[p];
    }
    *diff = sum / TSC_PRELUDES;
    /* two preludes: their distance less its own noise (one standard
     * error of it: a difference of noise alone mostly stays below) */
    return fmax(0, fabs(d[1] - d[0]) - tsc_prelude_noise(f, c));
}

double tsc_prelude_noise(const tsc_fit f[2], size_t c)
{
    double v = 0;
    for (unsigned p = 0; p < TSC_PRELUDES; p++)
        v += f[0].by_se[p][c] * f[0].by_se[p][c] + f[1].by_se[p][c] * f[1].by_se[p][c];
    return sqrt(v);
}

double tsc_settle_spread(const tsc_fit f[2], size_t c)
{
    double d[2], se[2];
    for (int h = 0; h < 2; h++) {
        if (!f[0].half_kept[h] || !f[1].half_kept[h])
            return 0;
        d[h] = f[1].half_mean[h][c] - f[0].half_mean[h][c];
        se[h] = hypot(f[0].half_se[h][c], f[1].half_se[h][c]);
    }
    return fmax(0, fabs(d[1] - d[0]) - 2 * hypot(se[0], se[1]));
}

double tsc_paired_se(const double *s0, const double *s1, size_t n)
{
    if (n < TSC_PAIRED_MIN)
        return 0;
    double mean = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        mean += s1[i] - s0[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++) {
        double d = s1[i] - s0[i] - mean;
        sq += d * d;
    }
    return sqrt(sq / (double)(n - 1) / (double)n);
}

/* The narrowest a program's window is (ticks): 4 TSC steps, and never
 * below TSC_WINDOW_TICKS. */
static double window_floor(double step)
{
    return fmax(4 * step, TSC_WINDOW_TICKS);
}

/* The sums over the runs every judged counter reads at most max(4 steps,
 * rel) above its lowest quarter (low[c]) at; how many; which (keep, if
 * not NULL). */
static size_t window_sums(const tsc_log *l, uint32_t judged, const double *low, double step,
                          double rel, double *sum, double *sq, uint8_t *keep)
{
    double limit[PMU_MAX_GROUP_CTR];
    for (size_t c = 0; c < l->n_ctr; c++) {
        limit[c] = judged >> c & 1 ? low[c] + fmax(window_floor(step), rel * fabs(low[c]))
                                   : INFINITY;
        sum[c] = sq[c] = 0;
    }
    size_t kept = 0;
    for (size_t r = 0; r < l->n; r++) {
        const double *v = l->v + r * l->n_ctr;
        bool in = true;
        for (size_t c = 0; c < l->n_ctr; c++)
            in &= v[c] <= limit[c];
        if (keep)
            keep[r] = in;
        if (!in)
            continue;
        kept++;
        for (size_t c = 0; c < l->n_ctr; c++) {
            sum[c] += v[c];
            sq[c] += v[c] * v[c];
        }
    }
    return kept;
}

void tsc_fit_log(tsc_log *l, uint32_t judged, double step, double *scratch, tsc_fit *f)
{
    memset(f, 0, sizeof *f);
    f->runs = l->n;
    if (l->n == 0)
        return;
    double low[PMU_MAX_GROUP_CTR] = {0};
    for (size_t c = 0; c < l->n_ctr; c++) {
        if (!(judged >> c & 1))
            continue;
        for (size_t r = 0; r < l->n; r++)
            scratch[r] = l->v[r * l->n_ctr + c];
        sort_doubles(scratch, l->n);
        low[c] = scratch[(l->n - 1) / 4];
    }
    f->limit = low[0] + fmax(window_floor(step), TSC_WINDOW * fabs(low[0]));
    double sum[PMU_MAX_GROUP_CTR], sq[PMU_MAX_GROUP_CTR];
    f->kept = window_sums(l, judged, low, step, TSC_WINDOW, sum, sq, l->keep);
    for (size_t r = 0; r + 1 < l->n; r++)
        if ((r == 0 || l->sample[r] != l->sample[r - 1]) && l->sample[r + 1] == l->sample[r]) {
            f->lead++;
            f->lead_out += !l->keep[r];
        }
    if (f->kept == 0) {   /* no run below every bound at once: judge none */
        tsc_fit_log(l, 0, step, scratch, f);
        return;
    }
    /* the rounding of a reading to a step: uniform, sd step / sqrt(12),
     * for each of the two reads of a run */
    double q = step / sqrt(6.0);
    group_means(l, q, false, f->by_mean, f->by_se, f->by_kept);
    group_means(l, q, true, f->half_mean, f->half_se, f->half_kept);
    for (size_t c = 0; c < l->n_ctr; c++)
        f->mean[c] = mean_se(sum[c], sq[c], (double)f->kept, q, &f->se[c]);
    /* where the runs do not fall into one cluster and the disturbed ones
     * apart, the window decides the mean: how much a narrower or a wider
     * one would move it is an uncertainty of its own */
    static const double alt[2] = {TSC_WINDOW / 3, TSC_WINDOW * 2};
    for (int a = 0; a < 2; a++) {
        size_t ka = window_sums(l, judged, low, step, alt[a], sum, sq, NULL);
        for (size_t c = 0; ka && c < l->n_ctr; c++)
            f->ambiguity[c] = fmax(f->ambiguity[c], fabs(sum[c] / (double)ka - f->mean[c]));
    }
}

size_t tsc_fit_samples(const tsc_log *l, const tsc_fit *f, size_t n, double *out,
                       double *count)
{
    memset(count, 0, n * sizeof *count);
    for (size_t c = 0; c < l->n_ctr; c++)
        memset(out + c * n, 0, n * sizeof *out);
    for (size_t r = 0; r < l->n; r++) {
        size_t i = l->sample[r];
        if (i >= n || !l->keep[r])
            continue;
        for (size_t c = 0; c < l->n_ctr; c++)
            out[c * n + i] += l->v[r * l->n_ctr + c];
        count[i]++;
    }
    size_t missing = 0;
    for (size_t i = 0; i < n; i++) {
        missing += count[i] == 0;
        for (size_t c = 0; c < l->n_ctr; c++)
            out[c * n + i] = count[i] > 0 ? out[c * n + i] / count[i] : f->mean[c];
    }
    return missing;
}

/* The mean of v's values up to max(4 steps, rel) above their lowest
 * quarter (see the top), and its standard error (at least the rounding's). */
static double window_mean(const double *v, size_t n, double step, double rel, double *scratch,
                          double *se)
{
    memcpy(scratch, v, n * sizeof *v);
    sort_doubles(scratch, n);
    double low = scratch[(n - 1) / 4], limit = low + fmax(4 * step, rel * fabs(low));
    double sum = 0, sq = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] <= limit) {
            sum += v[i];
            sq += v[i] * v[i];
            k++;
        }
    return mean_se(sum, sq, (double)k, step / sqrt(6.0), se);
}

double tsc_chain_fit(const double *a, const double *b, size_t n, double cycles, double step,
                     double *scratch, double *half_width)
{
    if (n == 0 || !(cycles > 0)) {
        *half_width = INFINITY;
        return 0;
    }
    double se_a, se_b;
    double ma = window_mean(a, n, step, TSC_CAL_REL, scratch, &se_a);
    double mb = window_mean(b, n, step, TSC_CAL_REL, scratch, &se_b);
    *half_width = TSC_Z * hypot(se_a, se_b) / cycles;
    return (mb - ma) / cycles;
}

double tsc_clock_drift(const double *a, const double *b, size_t n, double cycles, double step,
                       double *scratch)
{
    double hw, r = tsc_chain_fit(a, b, n, cycles, step, scratch, &hw);
    size_t k = n / TSC_DRIFT_CAL;
    if (k > TSC_DRIFT_CHUNKS)
        k = TSC_DRIFT_CHUNKS;
    if (k < 1 || !(r > 0) || !isfinite(hw))
        return 0;
    double drift = 0;
    for (size_t j = 0; k > 1 && j < k; j++) {
        size_t lo = j * n / k, hi = (j + 1) * n / k;
        double hw_j, r_j = tsc_chain_fit(a + lo, b + lo, hi - lo, cycles, step, scratch, &hw_j);
        drift = fmax(drift, fabs(r_j - r) - hw_j - hw);
    }
    /* a frequency going back and forth faster than the stretches: the
     * window keeps the runs of the fastest, while the code's runs kept are
     * of any (the median of the pairs, each a short and a long run side by
     * side, which an interrupt in a few does not move) */
    for (size_t i = 0; i < n; i++)
        scratch[i] = (b[i] - a[i]) / cycles;
    sort_doubles(scratch, n);
    double median = n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
    drift = fmax(drift, median - r - hw);
    return drift > TSC_DRIFT_MIN * r ? drift : 0;
}

double tsc_clock_stepped(const double *cal_r, size_t n, double ratio, double hw, double quantum)
{
    double drift = 0, span = TSC_LOCAL_SPAN * ratio;
    for (size_t i = 0; i + 1 < n; i++) {
        double d0 = cal_r[i] - ratio, d1 = cal_r[i + 1] - ratio;
        if ((d0 > 0) != (d1 > 0) || fabs(d0) > span || fabs(d1) > span)
            continue;
        drift = fmax(drift, fmin(fabs(d0), fabs(d1)) - hw - quantum);
    }
    return drift > TSC_DRIFT_MIN * ratio ? drift : 0;
}

static size_t next_usable(const double *cal_r, size_t n_cal, size_t k, double lo, double hi)
{
    while (k < n_cal && !(cal_r[k] >= lo && cal_r[k] <= hi))
        k++;
    return k;
}

void tsc_local_clock(const double *run_t, size_t n_runs, const double *cal_t, const double *cal_r,
                     size_t n_cal, double lo, double hi, double *local)
{
    /* prev: the last usable calibration that started no later than the
     * run (n_cal: none), next: the first after it */
    size_t prev = n_cal, next = next_usable(cal_r, n_cal, 0, lo, hi);
    for (size_t r = 0; r < n_runs; r++) {
        while (next < n_cal && cal_t[next] <= run_t[r]) {
            prev = next;
            next = next_usable(cal_r, n_cal, next + 1, lo, hi);
        }
        bool take_next = next < n_cal &&
                         (prev == n_cal || cal_t[next] - run_t[r] < run_t[r] - cal_t[prev]);
        local[r] = take_next ? cal_r[next] : prev < n_cal ? cal_r[prev] : 0;
    }
}

void tsc_log_rescale(const tsc_log *in, const double *local, double ratio, uint32_t mask,
                     double *v_out)
{
    for (size_t r = 0; r < in->n; r++)
        for (size_t c = 0; c < in->n_ctr; c++) {
            double v = in->v[r * in->n_ctr + c];
            v_out[r * in->n_ctr + c] = mask >> c & 1 && local[r] > 0 ? v * ratio / local[r] : v;
        }
}

bool tsc_linear(double first, double first_execs, double h0, double h0_hw, double diff,
                double diff_execs, double unc, double floor)
{
    if (!(first_execs >= 1) || !(diff_execs >= 1))
        return true;   /* nothing to compare */
    return fabs(tsc_misfit(first, first_execs, h0, diff, diff_execs)) <=
           tsc_linear_allow(first_execs, h0_hw, diff, diff_execs, unc, floor);
}

double tsc_linear_allow(double first_execs, double h0_hw, double diff, double diff_execs,
                        double unc, double floor)
{
    double copies = diff_execs > 0 ? first_execs * diff / diff_execs : 0;
    return fmax(TSC_LINEAR_REL * fabs(copies), floor) +
           tsc_misfit_noise(first_execs, h0_hw, diff_execs, unc);
}

double tsc_misfit_noise(double first_execs, double h0_hw, double diff_execs, double unc)
{
    /* the misfit is first (1 + r) - h0 - r second, r = first_execs /
     * diff_execs, of independent means: its half-width at most h0's and
     * (1 + r) the difference's in quadrature */
    double r = diff_execs > 0 ? first_execs / diff_execs : 0;
    return hypot(h0_hw, unc * (1 + r));
}

double tsc_linear_floor(bool chain, double step, double ratio)
{
    if (chain && ratio > 0)
        return TSC_LINEAR_CHAIN_CYCLES * ratio;
    return fmax(TSC_LINEAR_STEPS * step, TSC_LINEAR_TICKS);
}

double tsc_misfit(double first, double first_execs, double h0, double diff, double diff_execs)
{
    if (!(first_execs >= 1) || !(diff_execs >= 1))
        return 0;
    return first - h0 - first_execs * diff / diff_execs;
}

/* Whether TSC_STEP_SHARE of the differences lie within `slack` ticks of a
 * multiple of g. */
static bool multiples_of(const uint64_t *diff, size_t n, uint64_t g, uint64_t slack)
{
    size_t in = 0, all = 0;
    for (size_t i = 0; i < n; i++) {
        if (diff[i] == 0 || diff[i] > TSC_STEP_SPAN)
            continue;
        uint64_t r = diff[i] % g;
        all++;
        in += r <= slack || g - r <= slack;
    }
    return all > 0 && (double)in >= TSC_STEP_SHARE * (double)all;
}

double tsc_step_of(const uint64_t *diff, size_t n)
{
    /* within a tick: below 4, every difference is within a tick of a
     * multiple, so those are judged exactly */
    for (uint64_t g = TSC_STEP_MAX; g >= 4; g--)
        if (multiples_of(diff, n, g, 1))
            return (double)g;
    for (uint64_t g = 3; g >= 2; g--)
        if (multiples_of(diff, n, g, 0))
            return (double)g;
    return 1;
}

double tsc_tolerance(double v)
{
    return fmax(0.02, 0.015 * fabs(v));
}

double tsc_half_width(double diff, double unc, double agg_off, double ratio, double ratio_hw)
{
    if (!(ratio > 0))
        return unc + agg_off;
    return (hypot(unc, diff * ratio_hw / ratio) + agg_off) / ratio;
}

bool tsc_core_shared(double slowdown, double hw)
{
    return hw > 0 && slowdown > hw && slowdown > TSC_SHARED;
}

bool tsc_neighbour_seen(double alu, double alu_hw, double fe, double ld, double ld_hw,
                        const double *port)
{
    return tsc_core_shared(alu, alu_hw) || tsc_frontend_shared(fe) ||
           tsc_load_shared(ld, ld_hw) || tsc_ports_shared(port);
}

bool tsc_disturbed(const size_t runs[2], const size_t kept[2], const size_t lead[2],
                   const size_t lead_out[2])
{
    for (int r = 0; r < 2; r++) {
        size_t n = runs[r], k = kept[r], out = runs[r] - kept[r];
        if (out > 0 && lead_out[r] <= lead[r] && lead[r] <= n &&
            (double)lead_out[r] >= TSC_LEAD_SHARE * (double)out) {
            n -= lead[r];
            k -= lead[r] - lead_out[r];
        }
        if (n >= TSC_KEPT_RUNS && (double)k < TSC_KEPT_MIN * (double)n)
            return true;
    }
    return false;
}
