/* Shared by the pmu tests: CPUs as cpu_info values, events as nb_event
 * structs (built directly, independent of the config parser), and golden
 * files: tests/pmu/NAME.expected, rewritten with NB_REGEN=1. */
#ifndef NB_TEST_PMU_FIXTURES_H
#define NB_TEST_PMU_FIXTURES_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sys/cpu.h"
#include "events/config.h"
#include "pmu/pmu.h"

static inline nb_event fx_event(const char *name, unsigned evtsel, unsigned umask)
{
    nb_event e;
    memset(&e, 0, sizeof e);
    snprintf(e.name, sizeof e.name, "%s", name);
    e.evtsel = (uint16_t)evtsel;
    e.umask = (uint8_t)umask;
    e.ctr = -1;
    return e;
}

/* Skylake-SP: family 6 model 0x55, PMU v4, 4 GP counters (HT on), 3 fixed. */
static inline cpu_info fx_skylake_x(void)
{
    cpu_info c;
    memset(&c, 0, sizeof c);
    c.vendor = CPU_VENDOR_INTEL;
    snprintf(c.vendor_string, sizeof c.vendor_string, "GenuineIntel");
    c.family = 6, c.model = 0x55, c.stepping = 4;
    c.pmu_version = 4;
    c.n_gp_counters = 4, c.gp_counter_width = 48;
    c.n_fixed_counters = 3, c.fixed_counter_width = 48;
    c.has_rdtscp = c.has_invariant_tsc = c.has_avx = c.has_avx2 = c.has_avx512f = true;
    return c;
}

/* Ice Lake client: adds topdown slots on fixed counter 3, 8 GP counters. */
static inline cpu_info fx_icelake(void)
{
    cpu_info c = fx_skylake_x();
    c.model = 0x7E;
    c.pmu_version = 5;
    c.n_gp_counters = 8;
    c.n_fixed_counters = 4;
    c.has_topdown_slots = true;
    return c;
}

/* Zen 4 (Raphael): family 0x19 model 0x61, PerfMonV2, 6 core counters. */
static inline cpu_info fx_zen4(void)
{
    cpu_info c;
    memset(&c, 0, sizeof c);
    c.vendor = CPU_VENDOR_AMD;
    snprintf(c.vendor_string, sizeof c.vendor_string, "AuthenticAMD");
    c.family = 0x19, c.model = 0x61, c.stepping = 2;
    c.pmu_version = 2;
    c.n_gp_counters = 6, c.gp_counter_width = 48;
    c.has_rdtscp = c.has_invariant_tsc = c.has_avx = c.has_avx2 = c.has_avx512f = true;
    return c;
}

/* An AMD part without PerfCtrExtCore: legacy MSRs, 4 counters. */
static inline cpu_info fx_amd_legacy(void)
{
    cpu_info c = fx_zen4();
    c.family = 0x15, c.model = 0x02;
    c.pmu_version = 1;
    c.n_gp_counters = 4;
    return c;
}

static inline pmu_config fx_config(const cpu_info *ci, int cpu, bool fixed)
{
    pmu_config cfg = {
        .cpu = ci, .cpu_index = cpu, .count_usr = true, .count_os = false,
        .fixed_counters = fixed, .sysfs_root = "/nonexistent-nb-test-root", .dev_root = "",
    };
    return cfg;
}

static inline void fx_plan_free(pmu_plan *p)
{
    for (size_t i = 0; i < p->n_groups; i++)
        free(p->groups[i].events);
    free(p->groups);
    p->groups = NULL;
    p->n_groups = 0;
}

/* Compare text with tests/pmu/NAME.expected (NB_REGEN=1 rewrites it). */
static inline void fx_golden(const char *name, const char *actual)
{
    char path[512];
    const char *dir = getenv("NB_SRCDIR");
    snprintf(path, sizeof path, "%s/tests/pmu/%s.expected", dir ? dir : ".", name);
    const char *regen = getenv("NB_REGEN");
    if (regen && *regen && strcmp(regen, "0") != 0) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(actual, f);
        fclose(f);
        return;
    }
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("missing %s (run the test with NB_REGEN=1 to create it)", path);
    static char buf[1 << 18];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    if (strcmp(buf, actual) != 0) {
        /* Point at the first differing line: easier than two whole texts. */
        size_t line = 1, i = 0;
        while (buf[i] && buf[i] == actual[i]) {
            if (buf[i] == '\n')
                line++;
            i++;
        }
        fail_msg("%s differs at line %zu (NB_REGEN=1 rewrites it after review)\n"
                 "--- got:\n%s", path, line, actual);
    }
}

/* Run a backend's plan + dry_run into a string (caller frees). */
static inline char *fx_dry_run(const pmu_backend *b, const pmu_config *cfg,
                               const nb_event *ev, size_t n)
{
    pmu_plan plan;
    nb_error e;
    if (pmu_plan_make(b, cfg, ev, n, &plan, &e) != 0)
        fail_msg("plan: %s", e.message);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    b->dry_run(f, cfg, &plan);
    fclose(f);
    fx_plan_free(&plan);
    return text;
}

/* A Skylake config covering every field: CMSK, EDG, INV, AnyT, both offcore
 * MSRs, load latency and frontend (TakenAlone in Intel's tables), CTR=, and
 * an offcore conflict.  Returns the count. */
static inline size_t fx_intel_events(nb_event *e)
{
    size_t n = 0;
    e[n++] = fx_event("UOPS_ISSUED.ANY", 0x0E, 0x01);
    e[n] = fx_event("UOPS_EXECUTED.CORE_CYCLES_GE_1", 0xB1, 0x02);
    e[n++].cmask = 1;
    e[n] = fx_event("RS_EVENTS.EMPTY_END", 0x5E, 0x01);
    e[n].cmask = 1, e[n].edge = true, e[n++].inv = true;
    e[n] = fx_event("INT_MISC.RECOVERY_CYCLES_ANY", 0x0D, 0x01);
    e[n++].any = true;
    e[n] = fx_event("OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE", 0xB7, 0x01);
    e[n].has_msr_rsp0 = true, e[n++].msr_rsp0 = 0x10001;
    e[n] = fx_event("OFFCORE_RESPONSE_1.DEMAND_RFO.ANY_RESPONSE", 0xBB, 0x01);
    e[n].has_msr_rsp1 = true, e[n++].msr_rsp1 = 0x10002;
    e[n] = fx_event("MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4", 0xCD, 0x01);
    e[n].taken_alone = true, e[n].has_msr_3f6h = true, e[n++].msr_3f6h = 0x4;
    e[n] = fx_event("FRONTEND_RETIRED.DSB_MISS", 0xC6, 0x01);
    e[n].taken_alone = true, e[n].has_msr_pf = true, e[n++].msr_pf = 0x11;
    e[n] = fx_event("L1D_PEND_MISS.PENDING", 0x48, 0x01);
    e[n++].ctr = 2;
    e[n] = fx_event("CYCLE_ACTIVITY.STALLS_L1D_MISS", 0xA3, 0x0C);
    e[n].cmask = 12, e[n++].ctr = 2;
    e[n] = fx_event("OFFCORE_RESPONSE.DEMAND_CODE_RD.ANY_RESPONSE", 0xB7, 0x01);
    e[n].has_msr_rsp0 = true, e[n++].msr_rsp0 = 0x10004;
    e[n] = fx_event("OFFCORE_RESPONSE.DEMAND_DATA_RD.L3_HIT", 0xB7, 0x01);
    e[n].has_msr_rsp0 = true, e[n++].msr_rsp0 = 0x3FC01C0001;
    return n;
}

/* A Zen 4 config: 12-bit event selects, CMSK/INV/EDG, TakenAlone, CTR=, and
 * more events than its six counters. */
static inline size_t fx_amd_events(nb_event *e)
{
    size_t n = 0;
    e[n++] = fx_event("ls_not_halted_cyc", 0x076, 0x00);
    e[n++] = fx_event("ex_ret_instr", 0x0C0, 0x00);
    e[n++] = fx_event("ex_ret_ops", 0x0C1, 0x00);
    e[n++] = fx_event("de_src_op_disp.decoder", 0x0AA, 0x01);
    e[n++] = fx_event("de_src_op_disp.op_cache", 0x0AA, 0x02);
    e[n++] = fx_event("fp_ret_sse_avx_ops.all", 0x003, 0x1F);
    e[n++] = fx_event("ex_ret_ucode_ops", 0x1C2, 0x00);
    e[n] = fx_event("ex_ret_ops.cycles_none", 0x0C1, 0x00);
    e[n].cmask = 1, e[n++].inv = true;
    e[n] = fx_event("ex_ret_ops.edges", 0x0C1, 0x00);
    e[n].cmask = 1, e[n++].edge = true;
    e[n] = fx_event("ex_ret_fused_instr.alone", 0x1D0, 0x00);
    e[n++].taken_alone = true;
    e[n] = fx_event("ex_ret_brn.ctr3", 0x0C2, 0x00);
    e[n++].ctr = 3;
    e[n++] = fx_event("ex_ret_brn_misp", 0x0C3, 0x00);
    return n;
}

#endif
