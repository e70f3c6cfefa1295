/* nb sort: see sort.h. */
#include "lib/sort.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sort_doubles(double *v, size_t n)
{
    if (n > 64) {
        qsort(v, n, sizeof *v, cmp_double);
        return;
    }
    for (size_t i = 1; i < n; i++) {   /* insertion sort */
        double x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}
