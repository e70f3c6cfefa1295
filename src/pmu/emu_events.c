/* nb emu events: which emu_kind an event is (see emu.h).
 *
 * An event's codes mean what the table of its microarchitecture says:
 * BR_INST_RETIRED umask 0x01 is CONDITIONAL on Skylake and COND_TAKEN on Ice
 * Lake.  So the emulator never decodes umasks itself: it asks the table for
 * the names of the codes (evdb_names_for_codes) and knows the events below
 * by name.  A name not listed is not emulated.  The same path serves the
 * msr backend's oracle: the codes come from the event-select MSRs nb wrote,
 * decoded here with the register layouts of Intel's architectural PMU and
 * AMD's core PMU. */
#include <string.h>

#include "events/evdb.h"
#include "pmu/emu.h"
#include "pmu/common.h"

#define B(k) EMU_BIT(k)

static const struct {
    const char *name;
    uint32_t kinds;
} known[] = {
    /* AMD (Zen 1-6) */
    {"EX_RET_INSTR", B(EMU_INSTRUCTIONS)},
    {"RETIRED_INSTRUCTIONS", B(EMU_INSTRUCTIONS)},        /* AMD architectural */
    {"EX_RET_BRN", B(EMU_BRANCHES)},
    {"EX_RET_BRN_TKN", B(EMU_BR_TAKEN)},
    {"EX_RET_COND", B(EMU_BR_COND)},
    {"EX_RET_NEAR_RET", B(EMU_BR_NEAR_RETURN)},
    {"EX_RET_IND_BRCH_INSTR", B(EMU_BR_NEAR_INDIRECT)},
    {"EX_RET_BRN_FAR", B(EMU_BR_FAR)},
    {"LS_DISPATCH.LD_DISPATCH", B(EMU_LOAD_OPS)},
    {"LS_DISPATCH.PURE_LD", B(EMU_LOAD_OPS)},
    {"LS_DISPATCH.STORE_DISPATCH", B(EMU_STORE_OPS)},
    {"LS_DISPATCH.PURE_ST", B(EMU_STORE_OPS)},
    {"LS_DISPATCH.LD_ST_DISPATCH", B(EMU_LDST_OPS)},
    {"LS_DISPATCH.LD_ST", B(EMU_LDST_OPS)},
    {"LS_DISPATCH.ALL", B(EMU_LOAD_OPS) | B(EMU_STORE_OPS) | B(EMU_LDST_OPS)},
    /* Intel (core and Atom tables, and the architectural events) */
    {"INST_RETIRED.ANY", B(EMU_INSTRUCTIONS)},
    {"INST_RETIRED.ANY_P", B(EMU_INSTRUCTIONS)},
    {"INST_RETIRED.ANY_PS", B(EMU_INSTRUCTIONS)},
    {"INST_RETIRED.PREC_DIST", B(EMU_INSTRUCTIONS)},
    {"BR_INST_RETIRED.ALL_BRANCHES", B(EMU_BRANCHES)},
    {"BR_INST_RETIRED.ALL_BRANCHES_PEBS", B(EMU_BRANCHES)},
    {"BR_INST_RETIRED.ANY", B(EMU_BRANCHES)},
    {"BR_INST_RETIRED.ALL_TAKEN_BRANCHES", B(EMU_BR_TAKEN)},
    {"BR_INST_RETIRED.NEAR_TAKEN", B(EMU_BR_NEAR_TAKEN)},
    {"BR_INST_RETIRED.CONDITIONAL", B(EMU_BR_COND)},
    {"BR_INST_RETIRED.COND", B(EMU_BR_COND)},
    {"BR_INST_RETIRED.JCC", B(EMU_BR_COND)},
    {"BR_INST_RETIRED.COND_TAKEN", B(EMU_BR_COND_TAKEN)},
    {"BR_INST_RETIRED.TAKEN_JCC", B(EMU_BR_COND_TAKEN)},
    {"BR_INST_RETIRED.COND_NTAKEN", B(EMU_BR_COND_NOT_TAKEN)},
    {"BR_INST_RETIRED.NOT_TAKEN", B(EMU_BR_COND_NOT_TAKEN)},
    {"BR_INST_RETIRED.NEAR_CALL", B(EMU_BR_NEAR_CALL)},
    {"BR_INST_RETIRED.CALL", B(EMU_BR_NEAR_CALL)},
    {"BR_INST_RETIRED.NEAR_RETURN", B(EMU_BR_NEAR_RETURN)},
    {"BR_INST_RETIRED.RETURN", B(EMU_BR_NEAR_RETURN)},
    {"BR_INST_RETIRED.INDIRECT", B(EMU_BR_NEAR_INDIRECT)},
    {"BR_INST_RETIRED.NON_RETURN_IND", B(EMU_BR_NEAR_INDIRECT)},
    {"BR_INST_RETIRED.IND_CALL", B(EMU_BR_NEAR_IND_CALL)},
    {"BR_INST_RETIRED.INDIRECT_CALL", B(EMU_BR_NEAR_IND_CALL)},
    {"BR_INST_RETIRED.NEAR_INDIRECT_CALL", B(EMU_BR_NEAR_IND_CALL)},
    {"BR_INST_RETIRED.INDIRECT_JMP", B(EMU_BR_NEAR_IND_JMP)},
    {"BR_INST_RETIRED.NEAR_INDIRECT_JMP", B(EMU_BR_NEAR_IND_JMP)},
    {"BR_INST_RETIRED.FAR_BRANCH", B(EMU_BR_FAR)},
    {"MEM_INST_RETIRED.ALL_LOADS", B(EMU_LOAD_INSTRUCTIONS)},
    {"MEM_INST_RETIRED.ALL_STORES", B(EMU_STORE_INSTRUCTIONS)},
    {"MEM_INST_RETIRED.ANY", B(EMU_MEM_INSTRUCTIONS)},
    {"MEM_UOPS_RETIRED.ALL_LOADS", B(EMU_LOADS)},
    {"MEM_UOPS_RETIRED.ALL_STORES", B(EMU_STORES)},
};

static uint32_t known_kinds(const char *name)
{
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i].name, name) == 0)
            return known[i].kinds;
    return 0;
}

#define MAX_NAMES 16

/* The kinds the table's names for ev's exact codes agree on; 0 if none is
 * known or two known names disagree.  *n_names: how many names there are. */
static uint32_t resolve_exact(const char *uarch, cpu_vendor v, const nb_event *ev,
                              size_t *n_names)
{
    const char *names[MAX_NAMES];
    size_t n = evdb_names_for_codes(uarch, v, ev, names, MAX_NAMES);
    *n_names = n;
    uint32_t kinds = 0;
    for (size_t i = 0; i < n && i < MAX_NAMES; i++) {
        uint32_t k = known_kinds(names[i]);
        if (k && kinds && k != kinds)
            return 0;
        if (k)
            kinds = k;
    }
    return kinds;
}

uint32_t emu_resolve_event(const char *uarch, cpu_vendor vendor, const nb_event *ev)
{
    if (uarch)
        vendor = evdb_uarch_vendor(uarch);
    if (ev->cmask || ev->edge || ev->inv || ev->any || ev->has_msr_3f6h || ev->has_msr_pf ||
        ev->has_msr_rsp0 || ev->has_msr_rsp1 || nb_event_is_msr(ev))
        return 0;
    size_t n;
    uint32_t kinds = resolve_exact(uarch, vendor, ev, &n);
    if (kinds || n || vendor != CPU_VENDOR_AMD || !ev->umask)
        return kinds;
    /* AMD adds the counts of a umask's bits ("Unit masks ADDed"); only
     * LS_DISPATCH's operand kinds are additive here. */
    const uint32_t ops = B(EMU_LOAD_OPS) | B(EMU_STORE_OPS) | B(EMU_LDST_OPS);
    for (unsigned b = 0; b < 8; b++) {
        if (!(ev->umask & (1u << b)))
            continue;
        nb_event one = *ev;
        one.umask = (uint8_t)(1u << b);
        uint32_t k = resolve_exact(uarch, vendor, &one, &n);
        if (!k || (k & ~ops))
            return 0;
        kinds |= k;
    }
    return kinds;
}

/* ---- the msr oracle ---- */

#define SEL_USR (UINT64_C(1) << 16)
#define SEL_OS (UINT64_C(1) << 17)
#define SEL_EN (UINT64_C(1) << 22)

/* What a counter counts from its select, given whether it is enabled. */
static uint32_t from_select(const pmu_config *cfg, uint64_t sel, bool enabled)
{
    cpu_vendor v = cfg->cpu->vendor;
    if (!enabled || !(sel & SEL_EN) || !(sel & (SEL_USR | SEL_OS)))
        return B(EMU_NOTHING);
    if (sel & SEL_OS)
        return 0;   /* kernel mode: the emulator sees only the user-mode code */
    nb_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ctr = -1;
    ev.evtsel = (uint16_t)(sel & 0xFF);
    if (v == CPU_VENDOR_AMD)
        ev.evtsel |= (uint16_t)(((sel >> 32) & 0xF) << 8);
    else
        ev.any = (sel >> 21) & 1;
    ev.umask = (uint8_t)(sel >> 8);
    ev.edge = (sel >> 18) & 1;
    ev.inv = (sel >> 23) & 1;
    ev.cmask = (uint8_t)(sel >> 24);
    return emu_resolve_event(cfg->uarch, v, &ev);
}

/* Intel fixed counter i: only counter 0 (instructions retired) is
 * emulated; its field in IA32_FIXED_CTR_CTRL is bit 0 OS, 1 USR, 2 AnyThread. */
static uint32_t from_fixed(uint64_t ctrl, unsigned i, bool enabled)
{
    unsigned f = (unsigned)(ctrl >> (4 * i)) & 0xF;
    if (!enabled || !(f & 3))
        return B(EMU_NOTHING);
    if ((f & 1) || (f & 4) || i != 0)
        return 0;
    return B(EMU_INSTRUCTIONS);
}

static int resolve_intel(const pmu_config *cfg, pmu_group *g, emu_msr_read_fn rd, void *ctx)
{
    const cpu_info *ci = cfg->cpu;
    uint64_t global = ~UINT64_C(0), fixed = 0;
    if ((ci->pmu_version >= 2 || ci->pmu_version == 0) && !rd(ctx, IA32_PERF_GLOBAL_CTRL, &global))
        return -1;
    uint32_t kinds[PMU_MAX_GROUP_CTR] = {0};
    for (size_t k = 0; k < g->n_ctr && k < PMU_MAX_GROUP_CTR; k++) {
        uint32_t ecx = g->ctr[k].rdpmc_ecx;
        if (g->ctr[k].read != PMU_READ_RDPMC)
            continue;
        if (ecx & (UINT32_C(1) << 30)) {
            unsigned i = ecx & 0xFF;
            if (!rd(ctx, IA32_FIXED_CTR_CTRL, &fixed))
                return -1;
            kinds[k] = from_fixed(fixed, i, (global >> (32 + i)) & 1);
        } else {
            uint64_t sel;
            if (ecx >= 32 || !rd(ctx, IA32_PERFEVTSEL0 + ecx, &sel))
                return -1;
            kinds[k] = from_select(cfg, sel, (global >> ecx) & 1);
        }
    }
    for (size_t k = 0; k < g->n_ctr && k < PMU_MAX_GROUP_CTR; k++)
        g->ctr[k].emu = kinds[k];
    return 0;
}

static int resolve_amd(const pmu_config *cfg, pmu_group *g, emu_msr_read_fn rd, void *ctx)
{
    const cpu_info *ci = cfg->cpu;
    bool v2 = ci->pmu_version >= 2, ext = ci->n_gp_counters > 4 || v2;
    uint64_t global = ~UINT64_C(0);
    if (v2 && !rd(ctx, AMD_GLOBAL_CTL, &global))
        return -1;
    uint32_t kinds[PMU_MAX_GROUP_CTR] = {0};
    for (size_t k = 0; k < g->n_ctr && k < PMU_MAX_GROUP_CTR; k++) {
        uint32_t c = g->ctr[k].rdpmc_ecx;
        if (g->ctr[k].read != PMU_READ_RDPMC)
            continue;
        uint64_t sel;
        uint32_t msr = ext ? AMD_PERF_CTL_EXT + 2 * c : AMD_PERF_CTL_LEGACY + c;
        if (c >= 16 || !rd(ctx, msr, &sel))
            return -1;
        kinds[k] = from_select(cfg, sel, (global >> c) & 1);
    }
    for (size_t k = 0; k < g->n_ctr && k < PMU_MAX_GROUP_CTR; k++)
        g->ctr[k].emu = kinds[k];
    return 0;
}

int emu_resolve_selects(const pmu_config *cfg, pmu_group *g, emu_msr_read_fn rd, void *ctx)
{
    if (cfg->cpu->vendor == CPU_VENDOR_INTEL)
        return resolve_intel(cfg, g, rd, ctx);
    if (cfg->cpu->vendor == CPU_VENDOR_AMD)
        return resolve_amd(cfg, g, rd, ctx);
    return -1;
}
