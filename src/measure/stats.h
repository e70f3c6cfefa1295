/* nb stats: nanoBench's aggregate functions over one run's measurements,
 * and the half-width that the difference of two runs' has from their spread.
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
/* For -avg: the standard error of the trimmed mean of n values (from
 * their winsorized variance: each dropped value counted as the nearest
 * kept one) and, in *middle, the mean of the middle fifth (the 40th to the
 * 60th percentile; the trimmed mean where n < 2).  Values from one
 * distribution put the two within that error of each other; values from
 * two (some runs slowed part of the time) put them apart by a share of the
 * slowdown that no standard error shows.  INFINITY where memory is short. */
double stats_avg_error(const double *v, size_t n, double *middle);
/* The half-width of agg(second) - agg(first) over n values each, from
 * their spread: z standard errors of the trimmed means' difference and
 * how far it lies from the middle fifths' (stats_avg_error: what samples
 * of two speeds move it by); for the other aggregates, whose own error
 * the spread does not give (the minimum's and the maximum's lie where the
 * noise put a few samples), that and how far their difference lies from
 * the trimmed means' (as the tsc method's agg_off). */
double stats_diff_error(const double *first, const double *second, size_t n, nb_agg agg, double z);
double stats_min(const double *v, size_t n);
double stats_max(const double *v, size_t n);
/* The textbook median (mean of the two middle values for even n), for nb's
 * own calibration; not -median. */
double stats_median(const double *v, size_t n);

/* nanoBench's result: (agg(second) - agg(first)) / max(loop*unroll, unroll). */
double stats_normalize(double first, double second, long loop_count, long unroll_count,
                       int no_normalization);

#endif
