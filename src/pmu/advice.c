/* nb pmu advice: errno + system state -> what to change.
 *
 * Modelled on what a user needs to hear, most specific cause first: no PMU
 * at all (a VM) beats a permission problem, lockdown beats "not root".  Every
 * message names the object (event, MSR, file) and gives one concrete action. */
#include "pmu/advice.h"

#include "sys/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_int(const char *root, const char *path, int dflt)
{
    char buf[64];
    if (!file_read_line(root, path, buf, sizeof buf))
        return dflt;
    char *end;
    long v = strtol(buf, &end, 10);
    return end == buf ? dflt : (int)v;
}

static bool exists(const char *root, const char *path)
{
    char full[512];
    snprintf(full, sizeof full, "%s%s", root, path);
    return access(full, F_OK) == 0;
}

void pmu_sysinfo_read(const char *root, pmu_sysinfo *si)
{
    memset(si, 0, sizeof *si);
    si->paranoid = read_int(root, "/proc/sys/kernel/perf_event_paranoid", -100);
    si->nmi_watchdog = read_int(root, "/proc/sys/kernel/nmi_watchdog", -1);
    si->have_cpu_pmu = exists(root, "/sys/bus/event_source/devices/cpu") ||
                       exists(root, "/sys/bus/event_source/devices/cpu_core");
    si->rdpmc = read_int(root, "/sys/bus/event_source/devices/cpu/rdpmc", -1);
    if (si->rdpmc < 0)
        si->rdpmc = read_int(root, "/sys/bus/event_source/devices/cpu_core/rdpmc", -1);
    si->have_msr_module = exists(root, "/sys/module/msr") || exists(root, "/dev/cpu/0/msr");
    /* The lockdown file lists every mode with the active one in brackets. */
    char lock[128];
    if (file_read_line(root, "/sys/kernel/security/lockdown", lock, sizeof lock)) {
        char *open = strchr(lock, '['), *close = open ? strchr(open, ']') : NULL;
        if (open && close) {
            *close = '\0';
            snprintf(si->lockdown, sizeof si->lockdown, "%s", open + 1);
        }
    }
    file_read_line(root, "/sys/module/msr/parameters/allow_writes", si->msr_allow_writes,
              sizeof si->msr_allow_writes);
    si->root = geteuid() == 0;
}

static bool locked_down(const pmu_sysinfo *si)
{
    return si->lockdown[0] && strcmp(si->lockdown, "none") != 0;
}

/* The advice proper: the action, without the "what: strerror" prefix. */
static const char *advice(pmu_op op, int err, const pmu_sysinfo *si, char *tmp, size_t len)
{
    switch (op) {
    case PMU_OP_PERF_OPEN:
        if (!si->have_cpu_pmu)
            return "the kernel exposes no hardware PMU (/sys/bus/event_source/devices/cpu "
                   "is missing): this is typical of a VM without a virtual PMU; enable it "
                   "in the hypervisor (e.g. QEMU/KVM '-cpu host,pmu=on') or use -backend tsc";
        if (err == EACCES || err == EPERM) {
            if (locked_down(si) && si->paranoid >= 3)
                return "kernel lockdown or a distribution patch forbids perf events; "
                       "run as root or with CAP_PERFMON";
            if (si->paranoid > 2) {
                snprintf(tmp, len,
                         "kernel.perf_event_paranoid is %d, which forbids perf events for "
                         "users; run 'sysctl kernel.perf_event_paranoid=2' (or 1 with -os 1 "
                         "and AnyT), or run nb as root / with CAP_PERFMON", si->paranoid);
                return tmp;
            }
            if (si->paranoid > 1) {
                snprintf(tmp, len,
                         "kernel.perf_event_paranoid is %d: counting the kernel (-os 1) or "
                         "AnyT events needs 'sysctl kernel.perf_event_paranoid=1', root or "
                         "CAP_PERFMON", si->paranoid);
                return tmp;
            }
            return "permission denied: run nb as root or give it CAP_PERFMON";
        }
        if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
            return "the kernel's PMU driver does not support this event here "
                   "(an encoding for another CPU, or a feature this PMU lacks); check the "
                   "event against 'nb -list_events' or try -backend msr as root";
        if (err == EINVAL)
            return "the kernel rejected the encoding: a bit or extra MSR value it does "
                   "not accept on this CPU (AnyT on PMU v5, a load-latency/frontend/offcore "
                   "value outside its mask); try -backend msr as root";
        if (err == EBUSY)
            return "the counters are taken (another perf user, or the NMI watchdog: "
                   "'sysctl kernel.nmi_watchdog=0')";
        if (err == EMFILE || err == ENFILE)
            return "too many open files: raise 'ulimit -n'";
        if (err == E2BIG)
            return "this kernel's perf_event_attr is older than nb's: update the kernel";
        return "see perf_event_open(2)";
    case PMU_OP_PERF_MMAP:
        return "cannot map the event's control page; check 'ulimit -l' and "
               "kernel.perf_event_mlock_kb";
    case PMU_OP_PERF_RDPMC:
        if (si->rdpmc == 0 && !si->root)
            return "user-space rdpmc is disabled (/sys/bus/event_source/devices/cpu/rdpmc "
                   "is 0): as root run 'echo 2 > /sys/bus/event_source/devices/cpu/rdpmc' "
                   "(nb does this itself for the run when it runs as root)";
        if (si->rdpmc == 1)
            return "rdpmc=1 allows user-space rdpmc only to tasks with their own perf "
                   "events; the msr backend needs 'echo 2 > "
                   "/sys/bus/event_source/devices/cpu/rdpmc' (nb does it when run as root)";
        return "the kernel does not allow user-space rdpmc for this event "
               "(/sys/bus/event_source/devices/cpu/rdpmc must be 1 or 2)";
    case PMU_OP_PERF_INDEX:
        if (si->nmi_watchdog == 1)
            return "the group was not scheduled on hardware counters; the NMI watchdog "
                   "holds one: 'sysctl kernel.nmi_watchdog=0', or use fewer events";
        return "the group was not scheduled on hardware counters (another perf user "
               "holds them, or more events than counters); use fewer events";
    case PMU_OP_MSR_OPEN:
        if (err == ENOENT || err == ENXIO || err == ENODEV)
            return si->root ? "the msr driver is not loaded: run 'modprobe msr'"
                            : "the msr driver is not loaded ('modprobe msr' as root), "
                              "and the msr backend needs root";
        if (err == EACCES || err == EPERM) {
            if (!si->root)
                return "the msr backend needs root (CAP_SYS_RAWIO); run nb as root or "
                       "use -backend perf";
            if (locked_down(si))
                return "kernel lockdown forbids raw MSR access; use -backend perf";
            return "access to /dev/cpu/N/msr denied: nb needs CAP_SYS_RAWIO";
        }
        return "cannot open the MSR device";
    case PMU_OP_MSR_READ:
    case PMU_OP_MSR_WRITE:
        if (err == EIO)
            return "the CPU refused the access (#GP): this MSR does not exist here or "
                   "the value is reserved; a VM without a virtual PMU does this";
        if (err == EPERM || err == EACCES) {
            if (locked_down(si))
                return "kernel lockdown forbids MSR writes; use -backend perf";
            if (strcmp(si->msr_allow_writes, "off") == 0)
                return "the msr driver refuses writes (msr.allow_writes=off): "
                       "'echo on > /sys/module/msr/parameters/allow_writes'";
            return "MSR writes are not allowed for this process: run as root";
        }
        return "MSR access failed";
    case PMU_OP_SYSFS_WRITE:
        if (err == EACCES || err == EPERM || err == EROFS)
            return "nb may change this setting only as root";
        return "cannot change the setting";
    default:
        return "unexpected failure";
    }
}

void pmu_advice_format(pmu_op op, int err, const char *what, const pmu_sysinfo *si,
                       char *buf, size_t len)
{
    char tmp[512];
    const char *a = advice(op, err, si, tmp, sizeof tmp);
    if (err)
        snprintf(buf, len, "%s: %s: %s", what, strerror(err), a);
    else
        snprintf(buf, len, "%s: %s", what, a);
}

int pmu_advice_set(nb_error *e, int status, pmu_op op, int err, const char *what,
                   const char *root)
{
    if (!e)
        return status;
    pmu_sysinfo si;
    pmu_sysinfo_read(root ? root : "", &si);
    nb_error_clear(e);
    e->status = status;
    pmu_advice_format(op, err, what, &si, e->message, sizeof e->message);
    return status;
}
