/* nb stats: see stats.h. */
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
