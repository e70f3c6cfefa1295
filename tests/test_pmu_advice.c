/* Tests for src/pmu/advice.c: each errno/system-state case yields the one
 * action a user needs, and the system state is read from a (fake) tree. */
#include "pmu_fixtures.h"

#include <errno.h>
#include <unistd.h>

#include "pmu/advice.h"
#include "pmu/common.h"
#include "sys/status.h"

static pmu_sysinfo base(void)
{
    pmu_sysinfo si;
    memset(&si, 0, sizeof si);
    si.paranoid = 2;
    si.nmi_watchdog = 0;
    si.rdpmc = 1;
    si.have_cpu_pmu = true;
    si.have_msr_module = true;
    return si;
}

static const char *fmt(pmu_op op, int err, const pmu_sysinfo *si)
{
    static char buf[1024];
    pmu_advice_format(op, err, "X", si, buf, sizeof buf);
    return buf;
}

static void test_no_pmu_says_vm_and_tsc(void **st)
{
    (void)st;
    pmu_sysinfo si = base();
    si.have_cpu_pmu = false;
    const char *m = fmt(PMU_OP_PERF_OPEN, ENOENT, &si);
    assert_non_null(strstr(m, "X: No such file or directory: "));
    assert_non_null(strstr(m, "no hardware PMU"));
    assert_non_null(strstr(m, "-backend tsc"));
}

static void test_paranoid_3(void **st)
{
    (void)st;
    pmu_sysinfo si = base();
    si.paranoid = 3;
    const char *m = fmt(PMU_OP_PERF_OPEN, EACCES, &si);
    assert_non_null(strstr(m, "perf_event_paranoid is 3"));
    assert_non_null(strstr(m, "sysctl kernel.perf_event_paranoid=2"));
}

static void test_paranoid_2_os(void **st)
{
    (void)st;
    pmu_sysinfo si = base();
    const char *m = fmt(PMU_OP_PERF_OPEN, EACCES, &si);
    assert_non_null(strstr(m, "perf_event_paranoid is 2"));
    assert_non_null(strstr(m, "-os 1"));
}

static void test_busy_watchdog(void **st)
{
    (void)st;
    pmu_sysinfo si = base();
    assert_non_null(strstr(fmt(PMU_OP_PERF_OPEN, EBUSY, &si), "nmi_watchdog=0"));
    si.nmi_watchdog = 1;
    assert_non_null(strstr(fmt(PMU_OP_PERF_INDEX, 0, &si), "nmi_watchdog=0"));
}

static void test_rdpmc_off(void **st)
{
    (void)st;
    pmu_sysinfo si = base();
    si.rdpmc = 0;
    si.root = false;
    const char *m = fmt(PMU_OP_PERF_RDPMC, 0, &si);
    assert_int_equal(strncmp(m, "X: ", 3), 0);   /* no strerror for err 0 */
    assert_non_null(strstr(m, "echo 2 > /sys/bus/event_source/devices/cpu/rdpmc"));
    si.rdpmc = 1;   /* the msr backend has no perf event: needs 2 */
    assert_non_null(strstr(fmt(PMU_OP_PERF_RDPMC, 0, &si), "msr backend needs 'echo 2 >"));
}

static void test_msr_not_loaded(void **st)
{
    (void)st;
    pmu_sysinfo si = base();
    si.root = true;
    assert_non_null(strstr(fmt(PMU_OP_MSR_OPEN, ENOENT, &si), "modprobe msr"));
    si.root = false;
    const char *m = fmt(PMU_OP_MSR_OPEN, ENOENT, &si);
    assert_non_null(strstr(m, "modprobe msr"));
    assert_non_null(strstr(m, "needs root"));
}

static void test_msr_not_root_and_lockdown(void **st)
{
    (void)st;
    pmu_sysinfo si = base();
    assert_non_null(strstr(fmt(PMU_OP_MSR_OPEN, EACCES, &si), "needs root"));
    si.root = true;
    snprintf(si.lockdown, sizeof si.lockdown, "integrity");
    assert_non_null(strstr(fmt(PMU_OP_MSR_OPEN, EPERM, &si), "lockdown"));
    assert_non_null(strstr(fmt(PMU_OP_MSR_WRITE, EPERM, &si), "lockdown"));
}

static void test_msr_allow_writes_off(void **st)
{
    (void)st;
    pmu_sysinfo si = base();
    si.root = true;
    snprintf(si.msr_allow_writes, sizeof si.msr_allow_writes, "off");
    assert_non_null(strstr(fmt(PMU_OP_MSR_WRITE, EPERM, &si), "allow_writes"));
}

static void test_msr_gp_fault(void **st)
{
    (void)st;
    pmu_sysinfo si = base();
    assert_non_null(strstr(fmt(PMU_OP_MSR_READ, EIO, &si), "#GP"));
}

static void put_file(const char *root, const char *rel, const char *text)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s%s')\" && printf '%%s' '%s' > '%s%s'",
             root, rel, text, root, rel);
    assert_int_equal(system(cmd), 0);
}

static void test_sysinfo_from_tree(void **st)
{
    (void)st;
    char root[] = "/tmp/nb-advice-test-XXXXXX";
    assert_non_null(mkdtemp(root));
    put_file(root, "/proc/sys/kernel/perf_event_paranoid", "4\n");
    put_file(root, "/proc/sys/kernel/nmi_watchdog", "1\n");
    put_file(root, "/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
    put_file(root, "/sys/bus/event_source/devices/cpu_core/rdpmc", "0\n");
    put_file(root, "/sys/module/msr/parameters/allow_writes", "off\n");
    pmu_sysinfo si;
    pmu_sysinfo_read(root, &si);
    assert_int_equal(si.paranoid, 4);
    assert_int_equal(si.nmi_watchdog, 1);
    assert_string_equal(si.lockdown, "integrity");
    assert_true(si.have_cpu_pmu);
    assert_int_equal(si.rdpmc, 0);
    assert_true(si.have_msr_module);
    assert_string_equal(si.msr_allow_writes, "off");
    assert_int_equal(si.root, geteuid() == 0);

    /* The AMD NMI watchdog takes a core counter away from perf plans. */
    cpu_info zen = fx_zen4();
    pmu_config cfg = fx_config(&zen, 0, false);
    cfg.sysfs_root = root;
    assert_int_equal(pmu_usable_counters(&cfg, true), 5);
    assert_int_equal(pmu_usable_counters(&cfg, false), 6);

    /* Hybrid: perf uses the core PMU's dynamic type from sysfs. */
    put_file(root, "/sys/bus/event_source/devices/cpu_core/type", "8\n");
    cpu_info adl = fx_icelake();
    adl.model = 0x97, adl.hybrid = true, adl.core_type = CPU_CORE_CORE;
    pmu_config hcfg = fx_config(&adl, 0, true);
    hcfg.sysfs_root = root;
    nb_event ev = fx_event("UOPS_ISSUED.ANY", 0x0E, 0x01);
    char *text = fx_dry_run(&pmu_perf_backend, &hcfg, &ev, 1);
    assert_non_null(strstr(text, "type=8 (dynamic PMU type from sysfs)\n"));
    /* PERF_TYPE_HARDWARE instructions with the PMU type in config[63:32] */
    assert_non_null(strstr(text, "config=0x800000001\n"));
    free(text);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static void test_empty_tree(void **st)
{
    (void)st;
    pmu_sysinfo si;
    pmu_sysinfo_read("/nonexistent-nb-root", &si);
    assert_int_equal(si.paranoid, -100);
    assert_int_equal(si.rdpmc, -1);
    assert_false(si.have_cpu_pmu);
    assert_string_equal(si.lockdown, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_pmu_says_vm_and_tsc),
        cmocka_unit_test(test_paranoid_3),
        cmocka_unit_test(test_paranoid_2_os),
        cmocka_unit_test(test_busy_watchdog),
        cmocka_unit_test(test_rdpmc_off),
        cmocka_unit_test(test_msr_not_loaded),
        cmocka_unit_test(test_msr_not_root_and_lockdown),
        cmocka_unit_test(test_msr_allow_writes_off),
        cmocka_unit_test(test_msr_gp_fault),
        cmocka_unit_test(test_sysinfo_from_tree),
        cmocka_unit_test(test_empty_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
