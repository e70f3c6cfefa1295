/* nb place: the tsc method's measurement made again with the code at
 * another place in memory, where it ran slower than it can.
 *
 * Where the code lies in memory can slow it: 6 independent ADDs x 2,000
 * copies ran at 1.2-1.9 TSC ticks a copy instead of 0.9 in about 3 of 100
 * mappings (the 1,000-copy program beside them at 0.9), for every
 * measurement in that measuring process, since its mappings come back at
 * the same places.  A PMU would count those cycles too, but they are the
 * mapping's, not the code's.  The two programs give it away: the first
 * program's ticks over its executions of the code bound one execution from
 * above (tsc_superlinear).  When the second ran slower than that, both are
 * built again while the old ones are still mapped (so at other addresses,
 * on other pages) and measured again; the placement whose code ran faster
 * per execution beyond both half-widths is kept, the first otherwise.
 * Code that outgrows a cache between the two programs also runs slower
 * per copy in the second: it reads the same at the other place, and costs
 * one more measurement. */
#ifndef NB_MEASURE_PLACE_H
#define NB_MEASURE_PLACE_H

#include <stddef.h>

#include "harness/codegen.h"
#include "pmu/tsc_method.h"
#include "sys/error.h"

/* One measure() call as it was made, and what builds its programs. */
typedef struct place_job {
    codegen_params params;       /* as the programs were built, less copies and loops */
    long copies[2], loops[2];
    codegen_prog *prog[2];       /* rs[r].p: replaced where the other place is kept */
    run_state *rs;               /* [2] */
    long warm, n;
    const cal_progs *cp;
    size_t n_ctr;
    const pmu_counter *ctr;
    bool *ovf;
    const tsc_goal *goal;
    size_t doubles;              /* the results' block from rs[0].samples on */
} place_job;

typedef struct place_outcome {
    unsigned placements;         /* 1, or 2 where the code was measured again */
    bool moved;                  /* the second placement was kept */
    double slower;               /* how much slower a copy ran at the place not
                                    kept (a fraction; 0 with one placement) */
} place_outcome;

/* After measure() gave *to for job j: measures again at another place if
 * the second program ran superlinearly slow, and leaves the kept one's
 * outcome in *to, its samples in place.  0, or a status with *err set. */
int place_check(const place_job *j, tsc_outcome *to, place_outcome *po, nb_error *err);

#endif
