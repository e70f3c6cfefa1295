/* nb tsc load probe: whether another thread shared the core's load
 * pipeline while the tsc backend measured (its load ports: tsc_ports.h).
 *
 * The ADD chain beside the clock (tsc_core_shared) sees a neighbour that
 * competes for the ALUs, the loop of NOPs (tsc_frontend.h) one that shares
 * the front end; one that keeps the load ports and the L1 data cache busy
 * leaves both alone, yet slows what waits on loads: on an Emerald Rapids
 * guest two single runs of an L1 load chain with -basic_mode read 5.22 and
 * 5.23 cycles a load, +/- 0.07 and unflagged, between references of 5.00,
 * while the ADD chain ran at the clock and the NOP loop as on a quiet core.
 * So the measuring process also times a chain of dependent loads from one
 * cache line (`mov r14, [r14]`, the line holding its own address) a few
 * times in the first pass over the samples (of every start), and compares its cycles a load with
 * the chain's latency in whole cycles, found against the ADD chain when the
 * measuring process starts (5 on Golden Cove, 4 on Zen 4 and 5): on a core
 * nothing shares, a load that hits the L1 takes that many cycles, every
 * time. */
#ifndef NB_PMU_TSC_LOAD_H
#define NB_PMU_TSC_LOAD_H

#include <stdbool.h>

#include "pmu/tsc_frontend.h"

/* The probe's instruction: ds mov r14, [r14] (4D 8B 36 behind a DS
 * prefix, which a load ignores), as long as the calibration chains'. */
extern const unsigned char tsc_probe_load[4];

/* The probe's loops of CAL_BODY loads: 600 loads more in the long
 * program than in the short one, ~3,000 cycles at 5 a load (a hundred
 * steps of a coarse TSC: its pairs' mean is then within about 0.3 %);
 * LD_BURST pairs, after one run of the long program not kept (its code
 * and the line fetched again after the code measured).  About 20,000
 * cycles with the dithers, 3-4 % of a default batch line's time (every
 * pass: 4.6-6 %). */
#define LD_LOOP_A 1
#define LD_LOOP_B 7
#define LD_BURST 3

/* How much slower than `latency` (whole cycles) the probe's mean cycles a
 * load (f: tsc_frontend_fit over its pairs) ran, as a fraction; its
 * half-width in *hw: the fit's and the clock's (clock_rel: the clock's
 * half-width over the clock), since the cycles come through it.  0 and 0
 * where either is unknown. */
double tsc_load_slowdown(const fe_fit *f, double latency, double clock_rel, double *hw);

/* Whether the load pipeline was shared: the probe ran more than LD_SHARED
 * slower than its latency, and beyond its half-width.  (On a quiet core its
 * runs read the latency within 0.1-0.3 %; the references of bench/accuracy
 * read L1 load chains 0.4-0.8 % slow beside a busy host now and then, and
 * 4.4 % where nb missed it; LD_SHARED is below the 1.5 % that a value may
 * be off.) */
#define LD_SHARED 0.01
bool tsc_load_shared(double slowdown, double hw);

#endif
