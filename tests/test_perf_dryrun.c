/* Tests for the perf_event backend: encodings, grouping, every
 * perf_event_attr field through dry runs compared with tests/pmu/NAME.expected
 * (NB_REGEN=1 rewrites them), and the real open path with its advice. */
#include "pmu_fixtures.h"

#include <linux/perf_event.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmu/advice.h"
#include "pmu/common.h"
#include "sys/error.h"
#include "sys/status.h"

static void test_intel_encoding(void **st)
{
    (void)st;
    nb_event e = fx_event("RS_EVENTS.EMPTY_END", 0x5E, 0x01);
    e.cmask = 1, e.edge = true, e.inv = true;
    /* event | umask<<8 | edge<<18 | inv<<23 | cmask<<24 */
    assert_int_equal(pmu_event_config(CPU_VENDOR_INTEL, &e), 0x184015E);
    nb_event a = fx_event("INT_MISC.RECOVERY_CYCLES_ANY", 0x0D, 0x01);
    a.any = true;
    assert_int_equal(pmu_event_config(CPU_VENDOR_INTEL, &a), 0x20010D);
}

static void test_amd_encoding(void **st)
{
    (void)st;
    /* EventSelect[11:8] goes to config bits 35:32. */
    nb_event e = fx_event("ex_ret_ucode_ops", 0x1C2, 0x00);
    assert_int_equal(pmu_event_config(CPU_VENDOR_AMD, &e), 0x1000000C2ULL);
    nb_event f = fx_event("fp_ret_sse_avx_ops.all", 0x003, 0x1F);
    f.cmask = 2, f.inv = true;
    assert_int_equal(pmu_event_config(CPU_VENDOR_AMD, &f), 0x2801F03);
    /* AnyT has no AMD bit: it is never encoded there. */
    f.any = true;
    assert_int_equal(pmu_event_config(CPU_VENDOR_AMD, &f), 0x2801F03);
}

static void test_intel_grouping(void **st)
{
    (void)st;
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 2, true);
    nb_event ev[32];
    size_t n = fx_intel_events(ev);
    pmu_plan plan;
    assert_int_equal(pmu_perf_backend.plan(&cfg, ev, n, &plan, NULL), 0);
    /* fixed | 4 core | rsp0+rsp1 | load latency alone | frontend alone |
     * CTR=2 | CTR=2 + rsp0 | rsp0 with another value */
    static const size_t sizes[] = {0, 4, 2, 1, 1, 1, 2, 1};
    assert_int_equal(plan.n_groups, sizeof sizes / sizeof sizes[0]);
    for (size_t i = 0; i < plan.n_groups; i++)
        assert_int_equal(plan.groups[i].n_events, sizes[i]);
    assert_string_equal(plan.groups[3].events[0].name, "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4");
    /* File order is kept across groups. */
    size_t k = 0;
    for (size_t g = 0; g < plan.n_groups; g++)
        for (size_t i = 0; i < plan.groups[g].n_events; i++)
            assert_string_equal(plan.groups[g].events[i].name, ev[k++].name);
    assert_int_equal(k, n);
    fx_plan_free(&plan);
}

static void test_no_fixed_group_without_option(void **st)
{
    (void)st;
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 0, false);
    nb_event ev = fx_event("UOPS_ISSUED.ANY", 0x0E, 0x01);
    pmu_plan plan;
    assert_int_equal(pmu_perf_backend.plan(&cfg, &ev, 1, &plan, NULL), 0);
    assert_int_equal(plan.n_groups, 1);
    assert_int_equal(plan.groups[0].n_events, 1);
    fx_plan_free(&plan);
    assert_int_equal(pmu_perf_backend.plan(&cfg, NULL, 0, &plan, NULL), 0);
    assert_int_equal(plan.n_groups, 0);
}

/* nanoBench's configs pin some events to counters a CPU lacks (CTR=37 on
 * Skymont): such an event is skipped with a warning, the others are planned. */
static void test_ctr_out_of_range(void **st)
{
    (void)st;
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 0, false);
    nb_event ev[2] = {fx_event("X", 0x48, 0x01), fx_event("Y", 0x0E, 0x01)};
    ev[0].ctr = 4;
    pmu_plan plan;
    char *msg = NULL;
    size_t len = 0;
    FILE *diag = open_memstream(&msg, &len);
    assert_non_null(diag);
    nb_diag_redirect(diag);
    assert_int_equal(pmu_perf_backend.plan(&cfg, ev, 2, &plan, NULL), 0);
    nb_diag_redirect(NULL);
    fclose(diag);
    assert_non_null(strstr(msg, "X: CTR=4"));
    assert_non_null(strstr(msg, "4 programmable counters"));
    assert_non_null(strstr(msg, "skipped"));
    free(msg);
    size_t n = 0;
    for (size_t g = 0; g < plan.n_groups; g++)
        for (size_t i = 0; i < plan.groups[g].n_events; i++, n++)
            assert_string_equal(plan.groups[g].events[i].name, "Y");
    assert_int_equal(n, 1);
    fx_plan_free(&plan);
}

static void test_two_extra_msrs_rejected(void **st)
{
    (void)st;
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 0, false);
    nb_event ev = fx_event("BAD", 0xB7, 0x01);
    ev.has_msr_rsp0 = ev.has_msr_3f6h = true;
    pmu_plan plan;
    nb_error e;
    assert_int_equal(pmu_perf_backend.plan(&cfg, &ev, 1, &plan, &e), NB_EINPUT);
    assert_int_equal(e.status, NB_EINPUT);
    assert_non_null(strstr(e.message, "BAD"));
}

static void test_intel_dry_run(void **st)
{
    (void)st;
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 2, true);
    nb_event ev[32];
    size_t n = fx_intel_events(ev);
    char *text = fx_dry_run(&pmu_perf_backend, &cfg, ev, n);
    fx_golden("perf_skylake", text);
    free(text);
}

static void test_intel_topdown_dry_run(void **st)
{
    (void)st;
    cpu_info ci = fx_icelake();
    pmu_config cfg = fx_config(&ci, 0, true);
    cfg.count_os = true;
    nb_event ev = fx_event("UOPS_ISSUED.ANY", 0x0E, 0x01);
    char *text = fx_dry_run(&pmu_perf_backend, &cfg, &ev, 1);
    assert_non_null(strstr(text, "name=Topdown slots\n"));
    fx_golden("perf_icelake_fixed", text);
    free(text);
}

static void test_amd_dry_run(void **st)
{
    (void)st;
    cpu_info ci = fx_zen4();
    pmu_config cfg = fx_config(&ci, 3, true);
    nb_event ev[32];
    size_t n = fx_amd_events(ev);
    char *text = fx_dry_run(&pmu_perf_backend, &cfg, ev, n);
    fx_golden("perf_zen4", text);
    free(text);
}

/* An offcore value on an event the kernel does not attach it to is refused
 * with a clear message instead of being silently dropped. */
static void test_offcore_on_wrong_event(void **st)
{
    (void)st;
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 0, false);
    nb_event ev = fx_event("WRONG", 0x0E, 0x01);
    ev.has_msr_rsp0 = true, ev.msr_rsp0 = 1;
    char *text = fx_dry_run(&pmu_perf_backend, &cfg, &ev, 1);
    assert_non_null(strstr(text, "error=WRONG: the kernel writes MSR_OFFCORE_RSP_0 (config1) only for event 0xB7 or 0x2A"));
    free(text);
}

/* Offcore response through config1 as the kernel's extra_regs map it: 0x2A
 * and 0x2B (Golden Cove, Lion Cove, Granite Rapids: OCR events) and Atom's
 * 0xB7 umask 0x02 for RSP_1, besides 0xB7/0xBB; load latency opened without
 * large PEBS (wakeup_events=1), which would take user rdpmc away. */
static void test_offcore_ocr_and_load_latency(void **st)
{
    (void)st;
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 0, false);
    nb_event ev[4] = {fx_event("OCR.DEMAND_DATA_RD.ANY_RESPONSE", 0x2A, 0x01),
                      fx_event("OCR1", 0x2B, 0x01), fx_event("ATOM_RSP1", 0xB7, 0x02),
                      fx_event("LOAD_LATENCY_GT_16", 0xCD, 0x01)};
    ev[0].has_msr_rsp0 = true, ev[0].msr_rsp0 = 0x10001;
    ev[1].has_msr_rsp1 = true, ev[1].msr_rsp1 = 0x10002;
    ev[2].has_msr_rsp1 = true, ev[2].msr_rsp1 = 0x10004;
    ev[3].has_msr_3f6h = true, ev[3].msr_3f6h = 0x10;
    for (int i = 0; i < 4; i++) {
        char *text = fx_dry_run(&pmu_perf_backend, &cfg, &ev[i], 1);
        if (strstr(text, "error="))
            fail_msg("%s refused: %s", ev[i].name, text);
        free(text);
    }
    char *text = fx_dry_run(&pmu_perf_backend, &cfg, &ev[0], 1);
    assert_non_null(strstr(text, "config=0x12a\nconfig1=0x10001\n"));
    free(text);
    text = fx_dry_run(&pmu_perf_backend, &cfg, &ev[2], 1);
    assert_non_null(strstr(text, "config1=0x10004\n"));
    assert_non_null(strstr(text, "MSR 0x1A7"));
    free(text);
    text = fx_dry_run(&pmu_perf_backend, &cfg, &ev[3], 1);
    assert_non_null(strstr(text, "precise_ip=1\nwakeup_events=1\n"));
    free(text);
    nb_event rsp1_on_2a = ev[0];
    rsp1_on_2a.has_msr_rsp0 = false, rsp1_on_2a.has_msr_rsp1 = true;
    text = fx_dry_run(&pmu_perf_backend, &cfg, &rsp1_on_2a, 1);
    assert_non_null(strstr(text, "error="));
    free(text);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path)
{
    static char buf[64];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* rdpmc switch on a fake sysfs tree: root turns 0 into 2 and puts 0 back;
 * anyone else gets advice that names the file. */
static void test_rdpmc_switch(void **st)
{
    (void)st;
    char root[] = "/tmp/nb-pmu-test-XXXXXX";
    assert_non_null(mkdtemp(root));
    char path[512], dir[256];
    snprintf(dir, sizeof dir, "%s/sys/bus/event_source/devices/cpu", root);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/rdpmc", dir);
    write_text(path, "0\n");
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 0, false);
    cfg.sysfs_root = root;
    nb_error e;
    int rc = pmu_rdpmc_enable(&cfg, false, &e);
    if (geteuid() == 0) {
        assert_int_equal(rc, 1);
        assert_string_equal(read_text(path), "2");
        pmu_rdpmc_restore();
        assert_string_equal(read_text(path), "0");
    } else {
        assert_int_equal(rc, NB_ESYSTEM);
        assert_non_null(strstr(e.message, "echo 2 >"));
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* The real kernel: either the event opens and yields an rdpmc index, or the
 * failure comes with advice (on a VM without PMU: says so and names -backend
 * tsc). */
static void test_real_open(void **st)
{
    (void)st;
    cpu_info ci;
    cpu_detect(&ci);
    pmu_config cfg = fx_config(&ci, 0, false);
    cfg.sysfs_root = "";
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int i = 0; i < CPU_SETSIZE; i++)
            if (CPU_ISSET(i, &set)) {
                cfg.cpu_index = i;
                break;
            }
    nb_event ev = fx_event("INST_RETIRED", 0xC0, 0x00);
    pmu_group_plan gp = {&ev, 1, false, false};
    pmu_group g;
    nb_error e, w;
    int rc = pmu_perf_backend.open(&cfg, &gp, &g, &e);
    const char *msg = e.message;
    int prc = pmu_perf_backend.probe(&cfg, &w);
    const char *why = w.message;
    if (rc == 0) {
        assert_int_equal(g.n_ctr, 1);
        assert_int_equal(g.ctr[0].read, PMU_READ_RDPMC);
        assert_true(g.ctr[0].width >= 32);
        pmu_perf_backend.close(&g);
        print_message("perf_event opened: rdpmc works here\n");
        return;
    }
    assert_int_equal(rc, NB_ESYSTEM);
    print_message("perf open failed as expected here: %s\n", msg);
    assert_non_null(strstr(msg, "perf_event_open(INST_RETIRED"));
    assert_int_not_equal(prc, 0);
    assert_true(strlen(why) > 0);
    if (access("/sys/bus/event_source/devices/cpu", F_OK) != 0 &&
        access("/sys/bus/event_source/devices/cpu_core", F_OK) != 0) {
        assert_non_null(strstr(msg, "no hardware PMU"));
        assert_non_null(strstr(msg, "-backend tsc"));
        assert_non_null(strstr(why, "no hardware PMU"));
    }
}

/* -msr_config on perf: a RAPL MSR opens on the power PMU sysfs describes
 * (system-wide on the CPU, read(2) around each run, microjoules); another
 * MSR, or no power PMU, is unavailable with the reason. */
static void test_msr_events_on_perf(void **st)
{
    (void)st;
    char root[] = "/tmp/nb-power-test-XXXXXX";
    assert_non_null(mkdtemp(root));
    char cmd[512], path[512];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/sys/bus/event_source/devices/power/events", root);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/sys/bus/event_source/devices/power/type", root);
    write_text(path, "23\n");
    snprintf(path, sizeof path, "%s/sys/bus/event_source/devices/power/events/energy-pkg", root);
    write_text(path, "event=0x02\n");
    snprintf(path, sizeof path, "%s/sys/bus/event_source/devices/power/events/energy-pkg.scale",
             root);
    write_text(path, "2.3283064365386962890625e-10\n");
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 0, false);
    cfg.sysfs_root = root;
    nb_msr_event m[2] = {{.name = "RAPL_PKG_ENERGY", .read_msr = 0x611},
                         {.name = "LLC_LOOKUP_CBO_0", .n_writes = 1, .write_msr = {0xE01},
                          .write_val = {0x20000000}, .read_msr = 0x706}};
    nb_event ev[2];
    msr_event_to_event(&m[0], &ev[0]);
    msr_event_to_event(&m[1], &ev[1]);
    char *text = fx_dry_run(&pmu_perf_backend, &cfg, ev, 2);
    assert_non_null(strstr(text, "name=RAPL_PKG_ENERGY\npid=-1\ncpu=0\n"));
    assert_non_null(strstr(text, "type=23 "));
    assert_non_null(strstr(text, "config=0x2\n"));
    assert_non_null(strstr(text, "msr=0x611\nread=read(2) before and after each run, x 0.000232831"));
    assert_non_null(strstr(text, "name=LLC_LOOKUP_CBO_0\nread=none\nreason=perf reads MSRs only"));
    free(text);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    text = fx_dry_run(&pmu_perf_backend, &cfg, ev, 1);
    assert_non_null(strstr(text, "name=RAPL_PKG_ENERGY\nread=none\nreason=no RAPL counter through perf"));
    free(text);
}

/* After a group's runs the index in the event's mmap page must still be the
 * one compiled into the code, and the event must have run the whole time:
 * anything else is a lost counter, never a stale reading. */
static void test_counter_check(void **st)
{
    (void)st;
    struct perf_event_mmap_page pg;
    memset(&pg, 0, sizeof pg);
    pg.lock = 4;
    pg.index = 3;                 /* rdpmc ecx 2 */
    pg.cap_user_rdpmc = 1;
    assert_int_equal(perf_counter_check(&pg, 2, 1000, 1000), PMU_KEPT);
    assert_int_equal(perf_counter_check(&pg, 1, 1000, 1000), PMU_LOST_MOVED);
    assert_int_equal(perf_counter_check(&pg, 2, 1000, 999), PMU_LOST_MULTIPLEXED);
    pg.index = 0;                 /* not on a counter now */
    assert_int_equal(perf_counter_check(&pg, 2, 1000, 1000), PMU_LOST_MOVED);
    pg.index = 3;
    pg.cap_user_rdpmc = 0;        /* rdpmc no longer allowed */
    assert_int_equal(perf_counter_check(&pg, 2, 1000, 1000), PMU_LOST_MOVED);
    assert_non_null(strstr(pmu_lost_text(PMU_LOST_MULTIPLEXED), "multiplexed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intel_encoding),
        cmocka_unit_test(test_amd_encoding),
        cmocka_unit_test(test_intel_grouping),
        cmocka_unit_test(test_no_fixed_group_without_option),
        cmocka_unit_test(test_ctr_out_of_range),
        cmocka_unit_test(test_two_extra_msrs_rejected),
        cmocka_unit_test(test_intel_dry_run),
        cmocka_unit_test(test_intel_topdown_dry_run),
        cmocka_unit_test(test_amd_dry_run),
        cmocka_unit_test(test_offcore_on_wrong_event),
        cmocka_unit_test(test_offcore_ocr_and_load_latency),
        cmocka_unit_test(test_rdpmc_switch),
        cmocka_unit_test(test_real_open),
        cmocka_unit_test(test_counter_check),
        cmocka_unit_test(test_msr_events_on_perf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
