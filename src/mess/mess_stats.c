/* nb mess: statistics as Mess post-processes its points.
 *
 * Repetitions of a point are reduced by dropping values further than three
 * standard deviations from their mean, then averaging the rest.  Each curve
 * is then smoothed with a Savitzky-Golay filter (a local least-squares
 * polynomial), which removes run-to-run noise but keeps the knee of the
 * curve where a moving average would flatten it.  Raw values stay beside the
 * smoothed ones in every output. */
#include "mess/mess.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sys/status.h"

void mess_stats_mean_sd(const double *x, const bool *keep, int n, double *mean,
                        double *sd)
{
    double s = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!keep || keep[i]) {
            s += x[i];
            k++;
        }
    *mean = k ? s / k : NAN;
    double v = 0;
    for (int i = 0; i < n; i++)
        if (!keep || keep[i])
            v += (x[i] - *mean) * (x[i] - *mean);
    *sd = k > 1 ? sqrt(v / (k - 1)) : 0;
}

int mess_stats_outliers(const double *x, int n, bool *keep)
{
    double mean, sd;
    mess_stats_mean_sd(x, NULL, n, &mean, &sd);
    int kept = 0;
    for (int i = 0; i < n; i++) {
        keep[i] = !(sd > 0 && fabs(x[i] - mean) > 3 * sd);
        kept += keep[i];
    }
    return kept;
}

/* Solves the (order+1)^2 normal equations by Gaussian elimination with
 * partial pivoting; a is row-major, b the right side, result in b. */
static int solve(double *a, double *b, int m)
{
    for (int c = 0; c < m; c++) {
        int p = c;
        for (int r = c + 1; r < m; r++)
            if (fabs(a[r * m + c]) > fabs(a[p * m + c]))
                p = r;
        if (fabs(a[p * m + c]) < 1e-12)
            return -1;
        if (p != c) {
            for (int k = 0; k < m; k++) {
                double t = a[c * m + k];
                a[c * m + k] = a[p * m + k];
                a[p * m + k] = t;
            }
            double t = b[c];
            b[c] = b[p];
            b[p] = t;
        }
        for (int r = c + 1; r < m; r++) {
            double f = a[r * m + c] / a[c * m + c];
            for (int k = c; k < m; k++)
                a[r * m + k] -= f * a[c * m + k];
            b[r] -= f * b[c];
        }
    }
    for (int c = m - 1; c >= 0; c--) {
        for (int k = c + 1; k < m; k++)
            b[c] -= a[c * m + k] * b[k];
        b[c] /= a[c * m + c];
    }
    return 0;
}

int mess_savgol(const double *y, int n, int window, int order, double *out)
{
    if (n <= 0)
        return NB_OK;
    if (window > n)
        window = n;
    if (window % 2 == 0)
        window--;
    if (order >= window)
        order = window - 1;
    if (window < 1 || order < 0)
        return NB_EUSAGE;
    int m = order + 1, h = window / 2;
    double a[64], b[8];
    if (m > 8)
        return NB_EUSAGE;
    for (int i = 0; i < n; i++) {
        int s = i - h;
        if (s < 0)
            s = 0;
        if (s > n - window)
            s = n - window;
        /* Fit y ~ sum c_k t^k with t = j - i, then the value at t = 0 is c_0. */
        memset(a, 0, sizeof a);
        memset(b, 0, sizeof b);
        for (int j = s; j < s + window; j++) {
            /* pw[k] = t^k; zeroed first, as the analyzer cannot tie 2 * m to
             * the r + c < 2 * m - 1 read below */
            double t = j - i, pw[16] = {0};
            pw[0] = 1;
            for (int k = 1; k < 2 * m; k++)
                pw[k] = pw[k - 1] * t;
            for (int r = 0; r < m; r++) {
                for (int c = 0; c < m; c++)
                    a[r * m + c] += pw[r + c];
                b[r] += pw[r] * y[j];
            }
        }
        if (solve(a, b, m))
            return NB_EINPUT;
        out[i] = b[0];
    }
    return NB_OK;
}

double mess_interp(const double *bw, const double *lat, int n, double target)
{
    /* Points are sorted by bandwidth by the caller; find the bracketing pair. */
    for (int i = 0; i + 1 < n; i++) {
        double x0 = bw[i], x1 = bw[i + 1];
        if ((x0 <= target && target <= x1) || (x1 <= target && target <= x0)) {
            if (x1 == x0)
                return lat[i];
            return lat[i] + (lat[i + 1] - lat[i]) * (target - x0) / (x1 - x0);
        }
    }
    if (n == 1 && bw[0] == target)
        return lat[0];
    return NAN;
}

static void reduce_point(mess_point *p)
{
    p->kept = 0;
    p->bw = p->ns = p->cyc = p->bw_sd = p->ns_sd = NAN;
    p->bw_smooth = p->ns_smooth = NAN;
    if (p->reps == 0)
        return;
    bool kb[64], kn[64], keep[64];
    int n = p->reps > 64 ? 64 : p->reps;
    mess_stats_outliers(p->rep_bw, n, kb);
    mess_stats_outliers(p->rep_ns, n, kn);
    for (int i = 0; i < n; i++) {
        keep[i] = kb[i] && kn[i];
        p->kept += keep[i];
    }
    if (p->kept == 0) {   /* cannot happen with 3 sigma, but stay defined */
        for (int i = 0; i < n; i++)
            keep[i] = true;
        p->kept = n;
    }
    double sd;
    mess_stats_mean_sd(p->rep_bw, keep, n, &p->bw, &p->bw_sd);
    mess_stats_mean_sd(p->rep_ns, keep, n, &p->ns, &p->ns_sd);
    mess_stats_mean_sd(p->rep_cyc, keep, n, &p->cyc, &sd);
    p->bw_smooth = p->bw;
    p->ns_smooth = p->ns;
}

static int cmp_bw(const void *a, const void *b)
{
    const mess_point *x = *(mess_point *const *)a, *y = *(mess_point *const *)b;
    return (x->bw > y->bw) - (x->bw < y->bw);
}
/* The kept points of curve m in c, ordered by bandwidth (a curve runs from
 * idle to saturated), with their bandwidths in x and latencies in y. */
static int curve_points(const mess_result *r, int m, mess_point **c, double *x, double *y)
{
    int n = 0;
    for (int p = 0; p < r->npad; p++) {
        mess_point *pt = &r->pts[m * r->npad + p];
        if (pt->kept)
            c[n++] = pt;
    }
    /* c holds pointers to points, so sizeof *c is one pointer, as meant (the
     * check's option to allow that needs clang-tidy 16).
     * NOLINTNEXTLINE(bugprone-sizeof-expression) */
    qsort(c, (size_t)n, sizeof *c, cmp_bw);
    for (int i = 0; i < n; i++) {
        x[i] = c[i]->bw;
        y[i] = c[i]->ns;
    }
    return n;
}


void mess_result_reduce(mess_result *r)
{
    reduce_point(&r->unloaded);
    r->peak_bw = NAN;
    r->peak_ns = NAN;
    r->lat90_ns = NAN;
    r->peak_mix = r->peak_pad = -1;
    /* c holds pointers to points, so sizeof *c is one pointer, as meant (the
     * check's option to allow that needs clang-tidy 16).
     * NOLINTNEXTLINE(bugprone-sizeof-expression) */
    mess_point **c = malloc((size_t)(r->npad > 0 ? r->npad : 1) * sizeof *c);
    double *x = malloc((size_t)(r->npad > 0 ? r->npad : 1) * 4 * sizeof *x);
    if (!c || !x) {
        free(c);
        free(x);
        return;
    }
    double *y = x + r->npad, *xs = y + r->npad, *ys = xs + r->npad;
    int peak_curve = -1;
    for (int m = 0; m < r->nmix; m++) {
        for (int p = 0; p < r->npad; p++)
            reduce_point(&r->pts[m * r->npad + p]);
        int n = curve_points(r, m, c, x, y);
        if (mess_savgol(x, n, r->sg_window, r->sg_order, xs) == 0 &&
            mess_savgol(y, n, r->sg_window, r->sg_order, ys) == 0)
            for (int i = 0; i < n; i++) {
                c[i]->bw_smooth = xs[i];
                c[i]->ns_smooth = ys[i];
            }
        for (int i = 0; i < n; i++)
            if (isnan(r->peak_bw) || c[i]->bw > r->peak_bw) {
                r->peak_bw = c[i]->bw;
                r->peak_ns = c[i]->ns;
                r->peak_mix = c[i]->read_pct;
                r->peak_pad = c[i]->pad;
                peak_curve = m;
            }
    }
    if (peak_curve >= 0) {
        int n = curve_points(r, peak_curve, c, x, y);
        r->lat90_ns = mess_interp(x, y, n, 0.9 * r->peak_bw);
    }
    free(c);
    free(x);
}
