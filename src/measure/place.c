/* nb place: see place.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/place.h"
#include "pmu/tsc_estimate.h"

/* The counter whose ticks are the estimated cycles, or -1. */
static int clock_counter(size_t n_ctr, const pmu_counter *ctr)
{
    for (size_t c = 0; c < n_ctr; c++)
        if (ctr[c].tsc_cycles && ctr[c].read == PMU_READ_RDTSC)
            return (int)c;
    return -1;
}

static int build_pair(const place_job *j, codegen_prog out[2], nb_error *err)
{
    codegen_params p = j->params;
    for (int r = 0; r < 2; r++) {
        p.copies = (size_t)j->copies[r];
        p.loop_count = j->loops[r];
        int rc = codegen_build(&p, &out[r], err);
        if (rc) {
            if (r)
                codegen_free(&out[0]);
            return rc;
        }
    }
    return 0;
}

int place_check(const place_job *j, tsc_outcome *to, place_outcome *po, nb_error *err)
{
    *po = (place_outcome){.placements = 1};
    int c = clock_counter(j->n_ctr, j->ctr);
    double first_execs = (double)j->copies[0] * (double)(j->loops[0] > 0 ? j->loops[0] : 1);
    if (c < 0 || !to->logged ||
        !tsc_superlinear(to->first[c], first_execs, to->diff[c], j->goal->execs, to->unc[c]))
        return 0;
    size_t bytes = j->doubles * sizeof(double);
    double *kept = malloc(bytes);
    if (!kept)
        return 0;   /* not measured again: the first placement's result stands */
    memcpy(kept, j->rs[0].samples, bytes);
    /* built while the old programs are mapped: other addresses, other pages */
    codegen_prog fresh[2], old[2] = {*j->prog[0], *j->prog[1]};
    int rc = build_pair(j, fresh, err);
    if (rc) {
        free(kept);
        return rc;
    }
    *j->prog[0] = fresh[0];
    *j->prog[1] = fresh[1];
    tsc_outcome again;
    rc = measure(j->rs, j->warm, j->n, j->cp, j->n_ctr, j->ctr, j->ovf, j->goal, &again, err);
    if (rc) {
        free(kept);
        codegen_free(&old[0]);
        codegen_free(&old[1]);
        return rc;
    }
    double was = to->diff[c], now = again.diff[c];
    po->placements = 2;
    po->moved = now > 0 && now < was - hypot(to->unc[c], again.unc[c]);
    if (po->moved) {
        po->slower = was / now - 1;
        *to = again;
        codegen_free(&old[0]);
        codegen_free(&old[1]);
    } else {
        po->slower = now > was ? now / was - 1 : 0;
        memcpy(j->rs[0].samples, kept, bytes);
        for (int r = 0; r < 2; r++) {
            codegen_free(j->prog[r]);
            *j->prog[r] = old[r];
        }
    }
    free(kept);
    return 0;
}
