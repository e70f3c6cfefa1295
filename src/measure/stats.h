/* nb stats: nanoBench's aggregate functions over one run's measurements.
 *
 *   AGG_AVG     mean of the values from the 20th to the 80th percentile
 *               (the lowest and highest 20% of the sorted values dropped)
 *   AGG_MEDIAN  the middle value; for even n the upper middle one, values[n/2]
 *               of the sorted values, as nanoBench's -median takes it
 *   AGG_MIN, AGG_MAX
 *
 * Inputs are not modified; n == 0 gives 0. */
#ifndef NB_STATS_H
#define NB_STATS_H

#include <stddef.h>

/* Which aggregate: -avg (default), -median, -min, -max. */
typedef enum { AGG_AVG, AGG_MEDIAN, AGG_MIN, AGG_MAX } nb_agg;

double stats_aggregate(const double *v, size_t n, nb_agg agg);
double stats_min(const double *v, size_t n);
double stats_max(const double *v, size_t n);
/* The textbook median (mean of the two middle values for even n), for nb's
 * own calibration; not -median. */
double stats_median(const double *v, size_t n);

/* nanoBench's result: (agg(second) - agg(first)) / max(loop*unroll, unroll). */
double stats_normalize(double first, double second, long loop_count, long unroll_count,
                       int no_normalization);

#endif
