#include "lib/clock.h"

#include <time.h>
#include <x86intrin.h>

double clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

uint64_t clock_tsc(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

double clock_tsc_ghz(double spin_ns)
{
    static double ghz;
    if (ghz > 0)
        return ghz;
    double t0 = clock_ns(), t;
    uint64_t c0 = clock_tsc();
    while ((t = clock_ns()) - t0 < spin_ns)
        ;
    uint64_t c1 = clock_tsc();
    ghz = t > t0 && c1 > c0 ? (double)(c1 - c0) / (t - t0) : 1.0;
    return ghz;
}
