/* nb stats: see stats.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/stats.h"
#include "lib/sort.h"

/* Not an nb_agg: the textbook median (mean of the two middle values) that
 * nb's own calibration uses through stats_median. */
#define AGG_TRUE_MEDIAN ((nb_agg)-1)

/* The median or trimmed mean of sorted values. */
static double aggregate_sorted(const double *s, size_t n, nb_agg agg)
{
    switch ((int)agg) {   /* min and max need no sort: see stats_aggregate */
    case AGG_MEDIAN:   /* -median: nanoBench takes the upper middle of an even count */
        return s[n / 2];
    case AGG_TRUE_MEDIAN:
        return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    case AGG_AVG:
    default: {
        size_t drop = n / 5;   /* 20% at each end */
        double sum = 0;
        for (size_t i = drop; i < n - drop; i++)
            sum += s[i];
        return sum / (double)(n - 2 * drop);
    }
    }
}

double stats_aggregate(const double *v, size_t n, nb_agg agg)
{
    if (n == 0)
        return 0;
    if (agg == AGG_MIN || agg == AGG_MAX) {
        double r = v[0];
        for (size_t i = 1; i < n; i++)
            if (agg == AGG_MIN ? v[i] < r : v[i] > r)
                r = v[i];
        return r;
    }
    double small[256];
    double *s = n <= 256 ? small : malloc(n * sizeof *s);
    if (!s)
        return 0;
    memcpy(s, v, n * sizeof *s);
    sort_doubles(s, n);
    double r = aggregate_sorted(s, n, agg);
    if (s != small)
        free(s);
    return r;
}

/* stats_avg_error over values already sorted. */
static double avg_error_sorted(const double *s, size_t n, double *middle)
{
    if (n < 2) {
        *middle = n ? s[0] : 0;
        return 0;
    }
    /* the winsorized values: each dropped one counts as the nearest kept */
    size_t drop = n / 5, kept = n - 2 * drop;
    double mean = 0, q = 0, mid = 0;
    for (size_t i = 0; i < n; i++)
        mean += s[i < drop ? drop : i >= n - drop ? n - drop - 1 : i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++) {
        double w = s[i < drop ? drop : i >= n - drop ? n - drop - 1 : i];
        q += (w - mean) * (w - mean);
    }
    size_t lo = 2 * n / 5, hi = n - lo;
    for (size_t i = lo; i < hi; i++)
        mid += s[i];
    *middle = mid / (double)(hi - lo);
    return sqrt(q / (double)(n - 1) / (double)n) * (double)n / (double)kept;
}

/* A sorted copy of n values (NULL where memory is short). */
static double *sorted_copy(const double *v, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (s) {
        memcpy(s, v, n * sizeof *s);
        sort_doubles(s, n);
    }
    return s;
}

double stats_avg_error(const double *v, size_t n, double *middle)
{
    double *s = sorted_copy(v, n);
    if (!s) {
        *middle = stats_aggregate(v, n, AGG_AVG);
        return INFINITY;
    }
    double e = avg_error_sorted(s, n, middle);
    free(s);
    return e;
}

/* agg of n sorted values, min and max too. */
static double any_sorted(const double *s, size_t n, nb_agg agg)
{
    return agg == AGG_MIN ? s[0] : agg == AGG_MAX ? s[n - 1] : aggregate_sorted(s, n, agg);
}

double stats_diff_error(const double *first, const double *second, size_t n, nb_agg agg, double z)
{
    double *a = sorted_copy(first, n), *b = sorted_copy(second, n);
    double u = INFINITY;
    if (a && b && n > 0) {
        /* one sort a run: the trimmed means, their errors, the middle fifths */
        double m0, m1;
        double e0 = avg_error_sorted(a, n, &m0), e1 = avg_error_sorted(b, n, &m1);
        double d = aggregate_sorted(b, n, AGG_AVG) - aggregate_sorted(a, n, AGG_AVG);
        u = z * hypot(e0, e1) + fabs(d - (m1 - m0));
        if (agg != AGG_AVG)
            u += fabs(any_sorted(b, n, agg) - any_sorted(a, n, agg) - d);
    } else if (n == 0) {
        u = 0;
    }
    free(a);
    free(b);
    return u;
}

double stats_min(const double *v, size_t n) { return stats_aggregate(v, n, AGG_MIN); }
double stats_max(const double *v, size_t n) { return stats_aggregate(v, n, AGG_MAX); }
double stats_median(const double *v, size_t n) { return stats_aggregate(v, n, AGG_TRUE_MEDIAN); }

double stats_normalize(double first, double second, long loop_count, long unroll_count,
                       int no_normalization)
{
    double d = second - first;
    if (no_normalization)
        return d;
    long reps = loop_count * unroll_count > unroll_count ? loop_count * unroll_count : unroll_count;
    return reps > 0 ? d / (double)reps : d;
}
