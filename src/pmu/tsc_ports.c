/* nb tsc port probes: see tsc_ports.h. */
#include <string.h>

#include "pmu/tsc_ports.h"

/* loops: ~2,000 cycles of the long program on Zen 5 (8,000 loads at 4 a
 * cycle, 4,000 stores at 2, 6,000 multiplies at 3, 8,000 vector adds at 4,
 * 12,000 POPCNTs at 6: with 8,000, 1,300 cycles,
 * the POPCNTs' quietest stretch read up to 4.0 % slow beside a busy loop
 * on nb's CPU; 1,000 vector divides at one in 2.5 cycles, 2,500: ten
 * iterations more than the short program's one, as every probe but the
 * integer divider's has, whose 200 chained DIVs at 10 cycles take 2,000 in
 * two more, its short program alone 1,000) */
const tsc_port_probe tsc_ports[TSC_PORTS] = {
    [TSC_PORT_LOAD] = {.json = "load_port_slowdown",
                       .json_hw = "load_port_slowdown_uncertainty",
                       .what = "loads from one L1 line",
                       .insn = {0x3E, 0x49, 0x8B, 0x06},   /* ds mov rax, [r14] */
                       .loop_a = 1, .loop_b = 81, .burst = 6},
    [TSC_PORT_STORE] = {.json = "store_port_slowdown",
                        .json_hw = "store_port_slowdown_uncertainty",
                        .what = "stores to one L1 line",
                        .insn = {0x3E, 0x49, 0x89, 0x06},   /* ds mov [r14], rax */
                        .loop_a = 1, .loop_b = 41, .burst = 6, .line = true},
    [TSC_PORT_ALU] = {.json = "alu_port_slowdown",
                      .json_hw = "alu_port_slowdown_uncertainty",
                      .what = "POPCNTs that wait on nothing",
                      .insn = {0xF3, 0x0F, 0xB8, 0xC3},   /* popcnt eax, ebx */
                      .loop_a = 1, .loop_b = 121, .burst = 6, .loop_ops = 1},
    [TSC_PORT_MUL] = {.json = "mul_port_slowdown",
                      .json_hw = "mul_port_slowdown_uncertainty",
                      .what = "multiplies that wait on nothing",
                      .insn = {0x48, 0x6B, 0xC3, 0x03},   /* imul rax, rbx, 3 */
                      .loop_a = 1, .loop_b = 61, .burst = 6},
    [TSC_PORT_VEC] = {.json = "vector_port_slowdown",
                      .json_hw = "vector_port_slowdown_uncertainty",
                      .what = "vector adds that wait on nothing",
                      .insn = {0xC5, 0xF1, 0xFE, 0xC2},   /* vpaddd xmm0, xmm1, xmm2 */
                      .loop_a = 1, .loop_b = 81, .burst = 6, .avx = true},
    [TSC_PORT_DIV] = {.json = "divider_slowdown",
                      .json_hw = "divider_slowdown_uncertainty",
                      .what = "vector divides that wait on nothing",
                      .insn = {0xC5, 0xF0, 0x5E, 0xC2},   /* vdivps xmm0, xmm1, xmm2 */
                      .loop_a = 1, .loop_b = 11, .burst = 6, .avx = true},
    [TSC_PORT_IDIV] = {.json = "int_divider_slowdown",
                       .json_hw = "int_divider_slowdown_uncertainty",
                       .what = "a chain of integer divides",
                       .insn = {0x3E, 0x49, 0xF7, 0xF6},   /* ds div r14 */
                       .loop_a = 1, .loop_b = 3, .burst = 6},
};

/* Cores with SMT and the loads from the L1, the stores to it, the POPCNTs,
 * the 64-bit multiplies, the 128-bit vector adds and the 128-bit vector
 * divides they start a cycle, and the probe's chained integer divides they
 * finish one (0: not known).  Those without SMT (the
 * E-cores, Lion Cove) and those not sure are left out. */
static const struct {
    const char *uarch;
    double per_cycle[TSC_PORTS];
} g_ports[] = {
    {"SandyBridge", {2, 1, 0, 1, 2}}, {"JakeTown", {2, 1, 0, 1, 2}},
    {"IvyBridge", {2, 1, 0, 1, 2}}, {"IvyTown", {2, 1, 0, 1, 2}},
    {"Haswell", {2, 1, 0, 1, 2}}, {"HaswellX", {2, 1, 0, 1, 2}},
    {"Broadwell", {2, 1, 0, 1, 2}}, {"BroadwellX", {2, 1, 0, 1, 2}},
    {"BroadwellDE", {2, 1, 0, 1, 2}}, {"Skylake", {2, 1, 0, 1, 3}},
    {"SkylakeX", {2, 1, 0, 1, 3}}, {"CascadeLakeX", {2, 1, 0, 1, 3}},
    {"IceLake", {2, 2, 0, 1, 3}}, {"IceLakeX", {2, 2, 0, 1, 3}},
    {"TigerLake", {2, 2, 0, 1, 3}}, {"RocketLake", {2, 2, 0, 1, 3}},
    {"AlderLakeP", {3, 2, 0, 1, 3}}, {"SapphireRapids", {3, 2, 0, 1, 3}},
    {"EmeraldRapids", {3, 2, 0, 1, 3}}, {"GraniteRapids", {3, 2, 0, 1, 3}},
    {"MeteorLakeP", {3, 2, 0, 1, 3}}, {"Zen1", {2, 1, 0, 1}}, {"Zen2", {2, 1, 0, 1}},
    {"Zen3", {3, 2, 0, 1}}, {"Zen4", {3, 2, 0, 1}}, {"Zen5", {4, 2, 6, 3, 4, 0.4, 0.1}},
};

double tsc_port_floor(const char *uarch, int port)
{
    if (port < 0 || port >= TSC_PORTS)
        return 0;
    for (size_t i = 0; uarch && i < sizeof g_ports / sizeof g_ports[0]; i++)
        if (strcmp(uarch, g_ports[i].uarch) == 0)
            return g_ports[i].per_cycle[port] > 0 ? 1 / g_ports[i].per_cycle[port] : 0;
    return 0;
}

double tsc_port_probe_floor(int port, double floor, double body)
{
    return floor * (body + tsc_ports[port].loop_ops) / body;
}

bool tsc_port_shared(double slowdown)
{
    return slowdown > TSC_PORT_SHARED;
}

bool tsc_ports_shared(const double slowdown[TSC_PORTS])
{
    bool seen = false;
    for (int k = 0; k < TSC_PORTS; k++)
        seen |= tsc_port_shared(slowdown[k]);
    return seen;
}
