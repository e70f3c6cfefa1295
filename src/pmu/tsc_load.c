/* nb tsc load probe: see tsc_load.h. */
#include <math.h>
#include <string.h>

#include "pmu/tsc_load.h"

const unsigned char tsc_probe_load[4] = {0x3E, 0x4D, 0x8B, 0x36};
const unsigned char tsc_probe_load_port[4] = {0x3E, 0x49, 0x8B, 0x06};   /* ds mov rax, [r14] */

/* Cores with SMT and the loads from the L1 they start a cycle.  Those
 * without SMT (the E-cores, Lion Cove) and those not sure are left out. */
static const struct {
    const char *uarch;
    double loads;
} g_loads[] = {
    {"SandyBridge", 2}, {"JakeTown", 2}, {"IvyBridge", 2}, {"IvyTown", 2},
    {"Haswell", 2}, {"HaswellX", 2}, {"Broadwell", 2}, {"BroadwellX", 2},
    {"BroadwellDE", 2}, {"Skylake", 2}, {"SkylakeX", 2}, {"CascadeLakeX", 2},
    {"IceLake", 2}, {"IceLakeX", 2}, {"TigerLake", 2}, {"RocketLake", 2},
    {"AlderLakeP", 3}, {"SapphireRapids", 3}, {"EmeraldRapids", 3},
    {"GraniteRapids", 3}, {"MeteorLakeP", 3},
    {"Zen1", 2}, {"Zen2", 2}, {"Zen3", 3}, {"Zen4", 3}, {"Zen5", 4},
};

double tsc_load_port_floor(const char *uarch)
{
    for (size_t i = 0; uarch && i < sizeof g_loads / sizeof g_loads[0]; i++)
        if (strcmp(uarch, g_loads[i].uarch) == 0)
            return 1 / g_loads[i].loads;
    return 0;
}

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

bool tsc_load_port_shared(double slowdown)
{
    return slowdown > LP_SHARED;
}
