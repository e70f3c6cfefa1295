/* nb clock: the one place nb reads a clock.
 *
 * clock_ns() is CLOCK_MONOTONIC_RAW in nanoseconds (immune to NTP slewing);
 * clock_tsc() a serialized RDTSC (lfence on both sides); clock_tsc_ghz()
 * the TSC's rate against clock_ns(), measured once per process by spinning
 * (the spin also takes the core out of any idle frequency) and cached. */
#ifndef NB_LIB_CLOCK_H
#define NB_LIB_CLOCK_H

#include <stdint.h>

double clock_ns(void);
uint64_t clock_tsc(void);

/* TSC ticks per nanosecond over a spin of `spin_ns` (the first call's
 * measurement is kept; later calls return it).  Always > 0. */
double clock_tsc_ghz(double spin_ns);

#endif
