/* Tests for the msr backend: every MSR write of a dry run compared with
 * tests/pmu/NAME.expected (NB_REGEN=1 rewrites them), and the real
 * open/close path against a fake /dev/cpu/N/msr (a sparse regular file with
 * MSR m at byte 8*m): values are
 * programmed, and every MSR is restored on close. */
#include "pmu_fixtures.h"

#include <fcntl.h>
#include <unistd.h>

#include "pmu/advice.h"
#include "pmu/common.h"
#include "sys/status.h"

static void test_intel_dry_run(void **st)
{
    (void)st;
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 2, true);
    nb_event ev[32];
    size_t n = fx_intel_events(ev);
    char *text = fx_dry_run(&pmu_msr_backend, &cfg, ev, n);
    /* Facts first, then every line against the golden file. */
    assert_non_null(strstr(text, "write cpu=2 msr=0x38D value=0x222 "));
    assert_non_null(strstr(text, "write cpu=2 msr=0x1A6 value=0x10001 "));
    assert_non_null(strstr(text, "write cpu=2 msr=0x1A7 value=0x10002 "));
    assert_non_null(strstr(text, "write cpu=2 msr=0x3F6 value=0x4 "));
    assert_non_null(strstr(text, "write cpu=2 msr=0x3F7 value=0x11 "));
    /* L1D_PEND_MISS.PENDING with CTR=2 sits on IA32_PERFEVTSEL2, USR+EN. */
    assert_non_null(strstr(text, "write cpu=2 msr=0x188 value=0x410148 "));
    assert_non_null(strstr(text, "read name=Core cycles rdpmc ecx=0x40000001 width=48"));
    fx_golden("msr_skylake", text);
    free(text);
}

static void test_intel_os_and_slots(void **st)
{
    (void)st;
    cpu_info ci = fx_icelake();
    pmu_config cfg = fx_config(&ci, 0, true);
    cfg.count_os = true;
    nb_event ev = fx_event("UOPS_ISSUED.ANY", 0x0E, 0x01);
    char *text = fx_dry_run(&pmu_msr_backend, &cfg, &ev, 1);
    /* four fixed counters, OS+USR each: 0x3333; global enables bits 32-35 */
    assert_non_null(strstr(text, "msr=0x38D value=0x3333 "));
    assert_non_null(strstr(text, "msr=0x38F value=0xF00000000 "));
    assert_non_null(strstr(text, "msr=0x186 value=0x43010E "));
    fx_golden("msr_icelake_fixed", text);
    free(text);
}

/* A CPU that reports no fixed counters gets RDTSC only, and no write to
 * IA32_FIXED_CTR_CTRL (which would fault there). */
static void test_intel_without_fixed_counters(void **st)
{
    (void)st;
    cpu_info ci = fx_skylake_x();
    ci.n_fixed_counters = 0;
    pmu_config cfg = fx_config(&ci, 0, true);
    char *text = fx_dry_run(&pmu_msr_backend, &cfg, NULL, 0);
    assert_non_null(strstr(text, "read name=RDTSC rdtsc\n"));
    assert_null(strstr(text, "0x38D"));
    assert_null(strstr(text, "Core cycles"));
    free(text);
}

static void test_amd_dry_run(void **st)
{
    (void)st;
    cpu_info ci = fx_zen4();
    pmu_config cfg = fx_config(&ci, 3, true);
    nb_event ev[32];
    size_t n = fx_amd_events(ev);
    char *text = fx_dry_run(&pmu_msr_backend, &cfg, ev, n);
    /* ex_ret_ucode_ops (0x1C2) on PERF_CTL0 of its group: select bits 35:32 */
    assert_non_null(strstr(text, "msr=0xC0010200 value=0x1004100C2 "));
    /* CTR=3 -> PERF_CTL3 */
    assert_non_null(strstr(text, "msr=0xC0010206 value=0x4100C2 "));
    assert_non_null(strstr(text, "msr=0xC0000301 value=0x3F "));
    assert_non_null(strstr(text, "read name=APERF none"));
    fx_golden("msr_zen4", text);
    free(text);
}

static void test_amd_legacy_dry_run(void **st)
{
    (void)st;
    cpu_info ci = fx_amd_legacy();
    pmu_config cfg = fx_config(&ci, 0, false);
    nb_event ev[2] = {fx_event("cycles", 0x076, 0), fx_event("instructions", 0x0C0, 0)};
    char *text = fx_dry_run(&pmu_msr_backend, &cfg, ev, 2);
    assert_non_null(strstr(text, "msr=0xC0010000 value=0x410076 "));
    assert_non_null(strstr(text, "msr=0xC0010005 value=0x0 "));
    assert_null(strstr(text, "0xC0000301"));   /* no PerfMonV2 */
    fx_golden("msr_amd_legacy", text);
    free(text);
}

/* ---- real open/close on a fake device tree ---- */

static char g_root[64];

static void fake_path(char *buf, size_t len, const char *rel)
{
    snprintf(buf, len, "%s%s", g_root, rel);
}

/* A regular file stands for the device: MSR m at byte 8*m (see msr.c). */
static void msr_put(int fd, uint32_t msr, uint64_t v)
{
    assert_int_equal(pwrite(fd, &v, 8, (off_t)msr * 8), 8);
}

static uint64_t msr_get(int fd, uint32_t msr)
{
    uint64_t v = 0;
    assert_int_equal(pread(fd, &v, 8, (off_t)msr * 8), 8);
    return v;
}

/* A fake root: /dev/cpu/1/msr and the core PMU's sysfs rdpmc file. */
static int make_tree(const char *rdpmc)
{
    snprintf(g_root, sizeof g_root, "/tmp/nb-msr-test-XXXXXX");
    assert_non_null(mkdtemp(g_root));
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/dev/cpu/1' '%s/sys/bus/event_source/devices/cpu' && "
             "echo %s > '%s/sys/bus/event_source/devices/cpu/rdpmc'",
             g_root, g_root, rdpmc, g_root);
    assert_int_equal(system(cmd), 0);
    char path[256];
    fake_path(path, sizeof path, "/dev/cpu/1/msr");
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    assert_true(fd >= 0);
    /* Every MSR up to AMD's counters reads (as 0) unless set: sparse. */
    assert_int_equal(ftruncate(fd, (off_t)0xC0010300 * 8), 0);
    return fd;
}

static void drop_tree(int fd)
{
    close(fd);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    assert_int_equal(system(cmd), 0);
}

static void test_intel_open_restores(void **st)
{
    (void)st;
    int fd = make_tree("1");
    /* What the kernel had programmed: the NMI watchdog on fixed counter 1. */
    msr_put(fd, 0x38F, 0x20000000FULL);
    msr_put(fd, 0x38D, 0xB0);
    msr_put(fd, 0x186, 0x53003C);
    msr_put(fd, 0xC1, 12345);
    msr_put(fd, 0x1A6, 0x777);
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 1, false);
    cfg.sysfs_root = g_root;
    cfg.dev_root = g_root;
    nb_event ev[2] = {fx_event("UOPS_ISSUED.ANY", 0x0E, 0x01),
                      fx_event("OFFCORE", 0xB7, 0x01)};
    ev[1].has_msr_rsp0 = true, ev[1].msr_rsp0 = 0x10001;
    pmu_group_plan gp = {ev, 2, false, false};
    pmu_group g;
    nb_error e;
    int rc = pmu_msr_backend.open(&cfg, &gp, &g, &e);
    char path[256];
    fake_path(path, sizeof path, "/sys/bus/event_source/devices/cpu/rdpmc");
    if (geteuid() != 0) {
        /* rdpmc=1 must become 2 for the msr backend, which only root may do. */
        assert_int_equal(rc, NB_ESYSTEM);
        assert_non_null(strstr(e.message, "rdpmc"));
        drop_tree(fd);
        return;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(g.n_ctr, 2);
    assert_int_equal(g.ctr[0].read, PMU_READ_RDPMC);
    assert_int_equal(g.ctr[0].rdpmc_ecx, 0);
    assert_int_equal(g.ctr[1].rdpmc_ecx, 1);
    assert_int_equal(g.ctr[1].width, 48);
    assert_int_equal(msr_get(fd, 0x186), 0x41010E);
    assert_int_equal(msr_get(fd, 0x187), 0x4101B7);
    assert_int_equal(msr_get(fd, 0xC1), 0);
    assert_int_equal(msr_get(fd, 0x1A6), 0x10001);
    assert_int_equal(msr_get(fd, 0x38F), 0x3);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fgetc(f), '2');
    fclose(f);
    pmu_msr_backend.close(&g);
    assert_null(g.ctr);
    assert_int_equal(msr_get(fd, 0x38F), 0x20000000FULL);
    assert_int_equal(msr_get(fd, 0x38D), 0xB0);
    assert_int_equal(msr_get(fd, 0x186), 0x53003C);
    assert_int_equal(msr_get(fd, 0xC1), 12345);
    assert_int_equal(msr_get(fd, 0x187), 0);
    assert_int_equal(msr_get(fd, 0x1A6), 0x777);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fgetc(f), '1');
    fclose(f);
    drop_tree(fd);
}

static void test_amd_open_restores(void **st)
{
    (void)st;
    int fd = make_tree("2");   /* rdpmc already always-on: no root needed */
    msr_put(fd, 0xC0000301, 0x1);
    msr_put(fd, 0xC0010200, 0x430076);   /* the NMI watchdog's cycles */
    cpu_info ci = fx_zen4();
    pmu_config cfg = fx_config(&ci, 1, false);
    cfg.sysfs_root = g_root;
    cfg.dev_root = g_root;
    nb_event ev[2] = {fx_event("ex_ret_ucode_ops", 0x1C2, 0), fx_event("brn", 0x0C2, 0)};
    ev[1].ctr = 4;
    pmu_group_plan gp = {ev, 2, false, false};
    pmu_group g;
    nb_error e;
    int rc = pmu_msr_backend.open(&cfg, &gp, &g, &e);
    if (rc != 0)
        fail_msg("open: %s", e.message);
    assert_int_equal(g.ctr[1].rdpmc_ecx, 4);
    assert_int_equal(msr_get(fd, 0xC0010200), 0x1004100C2ULL);
    assert_int_equal(msr_get(fd, 0xC0010208), 0x4100C2);
    assert_int_equal(msr_get(fd, 0xC0000301), 0x11);
    assert_int_equal(msr_get(fd, 0xC0000302), 0x11);   /* status clear command */
    pmu_msr_backend.close(&g);
    assert_int_equal(msr_get(fd, 0xC0000301), 0x1);
    assert_int_equal(msr_get(fd, 0xC0010200), 0x430076);
    assert_int_equal(msr_get(fd, 0xC0010208), 0);
    drop_tree(fd);
}

/* nanoBench's uncore example (README: LLC lookups in C-Box 0 on Skylake):
 * the msr_ADDR=VAL writes land in the device and are restored; the counter
 * MSR is read outside the code; no rdpmc, so no root needed for the switch. */
static void test_msr_event_group(void **st)
{
    (void)st;
    int fd = make_tree("1");
    msr_put(fd, 0xE01, 0x5);
    nb_msr_event_list ml = {0};
    nb_error e;
    assert_int_equal(msr_config_parse_text("msr_0xE01=0x20000000.msr_700=0x408F34 msr_706 "
                                           "LLC_LOOKUP_CBO_0\n", "uncore.txt", &ml, &e), 0);
    assert_int_equal(ml.n, 1);
    nb_event ev[2] = {fx_event("UOPS_ISSUED.ANY", 0x0E, 0x01)};
    msr_event_to_event(&ml.v[0], &ev[1]);
    assert_true(nb_event_is_msr(&ev[1]));
    cpu_info ci = fx_skylake_x();
    pmu_config cfg = fx_config(&ci, 1, false);
    cfg.sysfs_root = g_root;
    cfg.dev_root = g_root;
    pmu_plan plan;
    nb_error e2;
    assert_int_equal(pmu_plan_make(&pmu_msr_backend, &cfg, ev, 2, &plan, &e2), 0);
    assert_int_equal(plan.n_groups, 2);     /* the counter event, then the MSR event alone */
    assert_int_equal(plan.groups[1].n_events, 1);
    assert_string_equal(plan.groups[1].events[0].name, "LLC_LOOKUP_CBO_0");
    pmu_group g;
    int rc = pmu_msr_backend.open(&cfg, &plan.groups[1], &g, &e2);
    if (rc != 0)
        fail_msg("open: %s", e2.message);
    assert_int_equal(g.n_ctr, 1);
    assert_int_equal(g.ctr[0].read, PMU_READ_OUTSIDE);
    assert_int_equal(g.ctr[0].msr, 0x706);
    assert_int_equal(msr_get(fd, 0xE01), 0x20000000);
    assert_int_equal(msr_get(fd, 0x700), 0x408F34);
    msr_put(fd, 0x706, 4242);
    uint64_t v = 0;
    assert_int_equal(pmu_msr_backend.read_outside(&cfg, &g, 0, &v, &e2), 0);
    assert_int_equal(v, 4242);
    pmu_msr_backend.close(&g);
    assert_int_equal(msr_get(fd, 0xE01), 0x5);
    assert_int_equal(msr_get(fd, 0x700), 0);
    /* the tsc backend reads no MSRs: planned with the others, unavailable */
    pmu_plan_free(&plan);
    assert_int_equal(pmu_plan_make(&pmu_tsc_backend, &cfg, ev, 2, &plan, &e2), 0);
    bool seen = false;
    for (size_t gi = 0; gi < plan.n_groups; gi++) {
        pmu_group tg;
        assert_int_equal(pmu_tsc_backend.open(&cfg, &plan.groups[gi], &tg, &e2), 0);
        for (size_t k = 0; k < tg.n_ctr; k++)
            if (strcmp(tg.ctr[k].name, "LLC_LOOKUP_CBO_0") == 0) {
                assert_int_equal(tg.ctr[k].read, PMU_READ_NONE);
                seen = true;
            }
        pmu_tsc_backend.close(&tg);
    }
    assert_true(seen);
    pmu_plan_free(&plan);
    msr_event_list_free(&ml);
    drop_tree(fd);
}

/* A missing device is an error with advice, and nothing is left changed. */
static void test_missing_device_advice(void **st)
{
    (void)st;
    int fd = make_tree("2");
    cpu_info ci = fx_zen4();
    pmu_config cfg = fx_config(&ci, 7, false);   /* no /dev/cpu/7 in the tree */
    cfg.sysfs_root = g_root;
    cfg.dev_root = g_root;
    nb_event ev = fx_event("ex_ret_instr", 0x0C0, 0);
    pmu_group_plan gp = {&ev, 1, false, false};
    pmu_group g;
    nb_error e;
    assert_int_equal(pmu_msr_backend.open(&cfg, &gp, &g, &e), NB_ESYSTEM);
    assert_int_equal(e.status, NB_ESYSTEM);
    assert_non_null(strstr(e.message, "/dev/cpu/7/msr: No such file or directory"));
    assert_non_null(strstr(e.message, "modprobe msr"));
    assert_null(g.ctr);
    nb_error why;
    assert_int_equal(pmu_msr_backend.probe(&cfg, &why), NB_EUNSUPPORTED);
    assert_int_equal(why.status, NB_EUNSUPPORTED);
    assert_non_null(strstr(why.message, "modprobe msr"));
    drop_tree(fd);
}

/* The real machine: usable, or refused with advice that says why. */
static void test_real_probe(void **st)
{
    (void)st;
    cpu_info ci;
    cpu_detect(&ci);
    pmu_config cfg = fx_config(&ci, 0, false);
    cfg.sysfs_root = "";
    nb_error why;
    int rc = pmu_msr_backend.probe(&cfg, &why);
    print_message("msr probe here: %s\n", rc == 0 ? "usable" : why.message);
    if (rc == 0)
        return;
    assert_int_equal(rc, NB_EUNSUPPORTED);
    assert_true(strlen(why.message) > 10);
    if (access("/dev/cpu/0/msr", F_OK) != 0 && ci.vendor != CPU_VENDOR_UNKNOWN &&
        !(ci.vendor == CPU_VENDOR_INTEL && ci.pmu_version == 0))
        assert_non_null(strstr(why.message, "modprobe msr"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intel_dry_run),
        cmocka_unit_test(test_intel_os_and_slots),
        cmocka_unit_test(test_intel_without_fixed_counters),
        cmocka_unit_test(test_amd_dry_run),
        cmocka_unit_test(test_amd_legacy_dry_run),
        cmocka_unit_test(test_intel_open_restores),
        cmocka_unit_test(test_amd_open_restores),
        cmocka_unit_test(test_missing_device_advice),
        cmocka_unit_test(test_msr_event_group),
        cmocka_unit_test(test_real_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
