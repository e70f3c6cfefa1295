/* nb pmu advice: the ONE place where a failed counter operation (errno)
 * becomes a sentence that says what went wrong and what to change.
 *
 * The system state that decides the advice (perf_event_paranoid, lockdown,
 * user-space rdpmc, the msr module, the NMI watchdog, root) is read once into
 * a pmu_sysinfo from a root prefix, so tests can build a fake tree or fill
 * the struct directly.  Backends put the sentence into the caller's nb_error
 * (pmu_advice_set); there is no process-wide "last error". */
#ifndef NB_PMU_ADVICE_H
#define NB_PMU_ADVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "sys/error.h"

/* What nb was doing when errno came back. */
typedef enum {
    PMU_OP_PERF_OPEN,    /* perf_event_open() */
    PMU_OP_PERF_MMAP,    /* mmap of the event's first page */
    PMU_OP_PERF_RDPMC,   /* the page says user-space rdpmc is off (err unused) */
    PMU_OP_PERF_INDEX,   /* event opened but not on a hardware counter (err unused) */
    PMU_OP_MSR_OPEN,     /* open("/dev/cpu/N/msr") */
    PMU_OP_MSR_READ,     /* pread of one MSR */
    PMU_OP_MSR_WRITE,    /* pwrite of one MSR */
    PMU_OP_SYSFS_WRITE,  /* writing a sysfs/procfs setting */
    PMU_OP_MAX
} pmu_op;

typedef struct pmu_sysinfo {
    int paranoid;          /* kernel.perf_event_paranoid; -100 if unreadable */
    int nmi_watchdog;      /* kernel.nmi_watchdog; -1 if unreadable */
    int rdpmc;             /* .../devices/cpu/rdpmc; -1 if missing */
    bool have_cpu_pmu;     /* /sys/bus/event_source/devices/{cpu,cpu_core} exists */
    bool have_msr_module;  /* /sys/module/msr or /dev/cpu/0/msr exists */
    char lockdown[32];     /* active lockdown mode ("none", "integrity", ...) or "" */
    char msr_allow_writes[16]; /* /sys/module/msr/parameters/allow_writes or "" */
    bool root;             /* effective uid 0 */
} pmu_sysinfo;

/* Read the system state below `root` ("" for the real system; applies to
 * /proc and /sys alike). */
void pmu_sysinfo_read(const char *root, pmu_sysinfo *si);

/* Format "<what>: <strerror>: <advice>" into buf. `what` names the event,
 * file or MSR; err is the errno (0 for the ops that have none). */
void pmu_advice_format(pmu_op op, int err, const char *what,
                       const pmu_sysinfo *si, char *buf, size_t len);

/* For backends: read the sysinfo below root and put the sentence into *e
 * (NULL allowed) as its message, with `status`.  Returns status. */
int pmu_advice_set(nb_error *e, int status, pmu_op op, int err, const char *what,
                   const char *root);

#endif
