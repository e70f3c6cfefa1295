/* nb sort: doubles in ascending order, in place.
 *
 * nb sorts small arrays many times a run (a program's samples, the runs of
 * a sample, calibrations: 1-64 values at a time, and a measurement's
 * runs, up to thousands), where qsort's call per comparison costs more
 * than the sort (and glibc's allocates). */
#ifndef NB_LIB_SORT_H
#define NB_LIB_SORT_H

#include <stddef.h>

void sort_doubles(double *v, size_t n);

#endif
