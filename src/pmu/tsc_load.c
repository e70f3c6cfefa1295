/* nb tsc load probe: see tsc_load.h. */
#include <math.h>

#include "pmu/tsc_load.h"

const unsigned char tsc_probe_load[4] = {0x3E, 0x4D, 0x8B, 0x36};

double tsc_load_slowdown(const fe_fit *f, double latency, double clock_rel, double *hw)
{
    bool known = f->cost > 0 && latency > 0 && isfinite(f->hw) && isfinite(clock_rel);
    *hw = known ? f->hw / latency + clock_rel : 0;
    return known ? f->cost / latency - 1 : 0;
}

bool tsc_load_shared(double slowdown, double hw)
{
    return slowdown > hw && slowdown > LD_SHARED;
}
