/* nb tsc load probes: whether another thread shared the core's load
 * pipeline, or its load or store ports, while the tsc backend measured.
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

/* The load-port probe.  A chain waits on one load at a time and hardly
 * notices a neighbour that keeps the load ports busy: on a Zen 5 guest,
 * while the host ran such a neighbour for minutes at a time, independent
 * loads from one L1 line ran 12-36 % slower (0.28-0.34 cycles a load
 * against 0.250), a store and a load of one address a copy 0.68-0.86
 * against 0.50, and the L1 load chain, the ADD chain and the NOP loop
 * within 0-2 % of a quiet core's: a single run of that store-load pair read
 * 0.68 +/- 0.02, unflagged.  So the first pass of every start also times
 * loops of loads that do not wait on each other (`ds mov rax, [r14]`, the
 * line R14 points to), LP_BURST pairs of programs LP_LOOP_B - LP_LOOP_A
 * iterations of CAL_BODY loads apart (8,000 loads, ~2,000 cycles at 4 a
 * cycle).  Six pairs, two stretches of three (tsc_frontend_fit): with
 * three, one stretch, a quiet core's probe read up to 3.5 % slow alone and
 * 4.2 % beside a busy loop on nb's CPU, against 1.4 % with six; bench/batch
 * 210-212x nanoBench's step against 220x without the probe. */
extern const unsigned char tsc_probe_load_port[4];
#define LP_LOOP_A 1
#define LP_LOOP_B 81
#define LP_BURST 6

/* The store-port probe.  Beside the same neighbour a store and a load of
 * one address a copy (bound by the stores: 0.50 cycles a copy on Zen 5,
 * as stores alone) also read 0.677 +/- 0.019 once, unflagged, while the
 * load-port probe read 4 % slow: the stores had been held up more than the
 * loads.  So the first pass also times loops of stores to one L1 line
 * (`ds mov [r14], rax`, a line of its own), SP_BURST pairs of programs
 * SP_LOOP_B - SP_LOOP_A iterations of CAL_BODY stores apart (4,000 stores,
 * ~2,000 cycles at 2 a cycle), judged as the load-port probe is. */
extern const unsigned char tsc_probe_store_port[4];
#define SP_LOOP_A 1
#define SP_LOOP_B 41
#define SP_BURST 6

/* The most cycles one of a port probe's loads (store false) or stores
 * (store true) takes on an idle core of `uarch` (an event table's name,
 * from CPUID): one over the loads from the L1 or the stores to it the core
 * starts a cycle, where that is known for a core with SMT (loads: 2 for
 * Sandy Bridge to Rocket Lake and for Zen 1 and 2; 3 for Golden Cove and
 * Redwood Cove cores and for Zen 3 and 4; 4 for Zen 5.  Stores: 1 for
 * Sandy Bridge to Cascade Lake and for Zen 1 and 2, 2 from Ice Lake and
 * Zen 3 on); 0 where it is not (the probe is then compared with itself
 * only, as the NOP loop is: tsc_frontend_slowdown). */
double tsc_port_floor(const char *uarch, bool store);

/* Whether the load or store ports were shared: a port probe's quietest
 * stretch ran more than LP_SHARED slower than the quiet core's
 * (tsc_frontend_slowdown with that probe's fit and the least of
 * tsc_port_floor and the quietest this process has seen).  On a quiet Zen
 * 5 guest the load-port probe's quietest stretch lay within 1.4 % of 0.25
 * cycles a load and the store-port probe's within 1 % of 0.50 cycles a
 * store; a neighbour on the load ports slowed the first 6-39 %. */
#define LP_SHARED 0.05
bool tsc_port_shared(double slowdown);

#endif
