/* nb sort: see sort.h. */
#include "lib/sort.h"

/* Below this many values, insertion sort. */
#define SMALL 24

static void insertion(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* Quicksort on the median of three, going on with the smaller part and
 * keeping the larger on a stack of its own (so below 64 deep for any n):
 * no call per comparison, nothing allocated. */
void sort_doubles(double *v, size_t n)
{
    struct part {
        double *v;
        size_t n;
    } stack[64];
    size_t top = 0;
    for (;;) {
        while (n > SMALL) {
            size_t mid = n / 2, last = n - 1;
            if (v[mid] < v[0])
                swap(&v[mid], &v[0]);
            if (v[last] < v[0])
                swap(&v[last], &v[0]);
            if (v[last] < v[mid])
                swap(&v[last], &v[mid]);
            /* v[0] <= pivot <= v[last]: both scans stop inside */
            double pivot = v[mid];
            size_t i = 0, j = last;
            for (;;) {
                while (v[i] < pivot)
                    i++;
                while (pivot < v[j])
                    j--;
                if (i >= j)
                    break;
                swap(&v[i], &v[j]);
                i++;
                j--;
            }
            /* v[0..j] <= pivot <= v[j+1..n) */
            size_t left = j + 1, right = n - left;
            if (left < right) {
                stack[top++] = (struct part){v + left, right};
                n = left;
            } else {
                stack[top++] = (struct part){v, left};
                v += left;
                n = right;
            }
        }
        insertion(v, n);
        if (top == 0)
            return;
        top--;
        v = stack[top].v;
        n = stack[top].n;
    }
}
