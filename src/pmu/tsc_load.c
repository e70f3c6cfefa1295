/* nb tsc load probe: see tsc_load.h. */
#include <math.h>
#include <string.h>

#include "pmu/tsc_load.h"

const unsigned char tsc_probe_load[4] = {0x3E, 0x4D, 0x8B, 0x36};
const unsigned char tsc_probe_load_port[4] = {0x3E, 0x49, 0x8B, 0x06};   /* ds mov rax, [r14] */
const unsigned char tsc_probe_store_port[4] = {0x3E, 0x49, 0x89, 0x06};  /* ds mov [r14], rax */

/* Cores with SMT and the loads from the L1 and the stores to it they start
 * a cycle.  Those without SMT (the E-cores, Lion Cove) and those not sure
 * are left out. */
static const struct {
    const char *uarch;
    double loads, stores;
} g_ports[] = {
    {"SandyBridge", 2, 1}, {"JakeTown", 2, 1}, {"IvyBridge", 2, 1}, {"IvyTown", 2, 1},
    {"Haswell", 2, 1}, {"HaswellX", 2, 1}, {"Broadwell", 2, 1}, {"BroadwellX", 2, 1},
    {"BroadwellDE", 2, 1}, {"Skylake", 2, 1}, {"SkylakeX", 2, 1}, {"CascadeLakeX", 2, 1},
    {"IceLake", 2, 2}, {"IceLakeX", 2, 2}, {"TigerLake", 2, 2}, {"RocketLake", 2, 2},
    {"AlderLakeP", 3, 2}, {"SapphireRapids", 3, 2}, {"EmeraldRapids", 3, 2},
    {"GraniteRapids", 3, 2}, {"MeteorLakeP", 3, 2},
    {"Zen1", 2, 1}, {"Zen2", 2, 1}, {"Zen3", 3, 2}, {"Zen4", 3, 2}, {"Zen5", 4, 2},
};

double tsc_port_floor(const char *uarch, bool store)
{
    for (size_t i = 0; uarch && i < sizeof g_ports / sizeof g_ports[0]; i++)
        if (strcmp(uarch, g_ports[i].uarch) == 0)
            return 1 / (store ? g_ports[i].stores : g_ports[i].loads);
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

bool tsc_port_shared(double slowdown)
{
    return slowdown > LP_SHARED;
}
