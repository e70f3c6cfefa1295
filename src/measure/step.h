/* nb step: how the measuring process measures a stepped group
 * (pmu_group.stepped: the emu backend's, or the msr backend's on a fake
 * msr device), with the stepper of pmu/emu_step.h.
 *
 * The order is nanoBench's, as measure() (pmu/tsc_method.h) keeps it for
 * the counter backends: for the first program its warm-up runs, then its n
 * measurements, then the same for the second.  Warm-up runs (and the
 * initial warm-up, step_warm) run natively, as fast as ever, so that code
 * whose behaviour depends on what earlier runs left in memory sees what it
 * would see under a PMU; only the measurements are stepped.  A
 * measurement's readings are m2 - m1 of each counter, as with a PMU, so
 * nanoBench's two-run difference cancels the harness exactly.
 *
 * After the runs, every counter the emulator cannot count (counter.emu 0,
 * e.g. the cycle counters the msr backend programs) is marked unavailable
 * (read = PMU_READ_NONE), as are all of them when the budget ran out, and
 * those that need the decoder's classes when an instruction it does not
 * know ran. */
#ifndef NB_MEASURE_STEP_H
#define NB_MEASURE_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu/pmu.h"
#include "pmu/tsc_method.h"
#include "sys/error.h"

typedef struct step_outcome {
    uint64_t steps;          /* traps taken in the stepped runs */
    uint64_t retired;        /* instructions they retired */
    bool over;               /* the budget ran out: nothing was counted */
    bool unknown;            /* the decoder did not know an instruction */
} step_outcome;

/* Install the stepper for a group's counters; 0 or a status in *err. */
int step_begin(const pmu_counter *ctr, size_t n, nb_error *err);

/* One run of p, native (a warm-up). */
void step_warm(const codegen_prog *p);

/* Warm-ups and n stepped measurements of both programs (rs[r].p,
 * rs[r].samples[c * n + i]); budget: the most traps in all (0: none).
 * Marks the counters that cannot be used (see above) and uninstalls the
 * stepper. */
void step_measure(run_state rs[2], long warm, long n, size_t n_ctr, pmu_counter *ctr,
                  bool *ovf, uint64_t budget, step_outcome *out);

#endif
