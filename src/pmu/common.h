/* nb pmu common: what the perf and msr backends share.
 *
 *   - the event-select encoding of an nb_event (Intel and AMD layouts),
 *   - the extra MSR (offcore response, load latency, frontend) an event needs,
 *   - counter assignment: which programmable counter each event of a group
 *     sits on (CTR=, TakenAlone, extra-MSR conflicts), and the grouping of a
 *     list of events into groups that fit,
 *   - the user-space rdpmc switch in sysfs (needed by both: rdpmc faults in
 *     user mode unless the kernel sets CR4.PCE).
 *
 * Plans built here own their memory: groups[] and each group's events[] are
 * malloc'ed copies (pmu_plan_free in pmu.c releases exactly that). */
#ifndef NB_PMU_COMMON_H
#define NB_PMU_COMMON_H

#include "pmu/pmu.h"

#define PMU_MAX_GP 16   /* more programmable counters than any x86 core has */

/* The PMU's MSRs: what the msr backend programs and the emulator's msr
 * oracle reads back (Intel SDM vol. 3 ch. 20; AMD PPR, core performance
 * monitor counters). */
enum {
    IA32_PMC0 = 0xC1,
    IA32_PERFEVTSEL0 = 0x186,
    IA32_FIXED_CTR0 = 0x309,
    IA32_FIXED_CTR_CTRL = 0x38D,
    IA32_PERF_GLOBAL_CTRL = 0x38F,
};
#define AMD_PERF_CTL_LEGACY 0xC0010000u
#define AMD_PERF_CTR_LEGACY 0xC0010004u
#define AMD_PERF_CTL_EXT 0xC0010200u
#define AMD_GLOBAL_STATUS_CLR 0xC0000302u
#define AMD_GLOBAL_CTL 0xC0000301u


/* Event select bits without USR/OS/EN: what perf's PERF_TYPE_RAW takes. */
uint64_t pmu_event_config(cpu_vendor v, const nb_event *ev);

/* The one extra MSR an event needs on Intel, if any. */
typedef struct pmu_extra {
    uint32_t msr;           /* 0 if none */
    uint64_t value;
    const char *what;       /* "MSR_OFFCORE_RSP_0", ... */
} pmu_extra;

/* Returns 0, or NB_EINPUT if the event asks for two extra MSRs at once or
 * for one on AMD (message in *err; NULL allowed). */
int pmu_event_extra(cpu_vendor v, const nb_event *ev, pmu_extra *out, nb_error *err);

/* Place ev[0..n) on n_counters counters: CTR=k events on k, the others on the
 * lowest free counter, in order.  idx[i] receives the counter of ev[i].
 * Returns 0, or NB_EUNSUPPORTED if they do not fit together (also when two
 * events need different values of the same extra MSR, or a TakenAlone event
 * is not alone). */
int pmu_assign_counters(cpu_vendor v, const nb_event *ev, size_t n,
                        unsigned n_counters, int idx[]);

/* Split events into groups, in order, each fitting n_counters.  With
 * `fixed_group`, group 0 has no events: it is the fixed-counter run, which
 * nanoBench makes first.  Returns 0 or a negative status (message in
 * *err). */
int pmu_common_plan(cpu_vendor v, const nb_event *ev, size_t n, unsigned n_counters,
                    bool fixed_group, pmu_plan *out, nb_error *err);

/* Programmable counters usable for a plan: CPUID's count, less one on AMD
 * when the NMI watchdog (a perf cycles event there) holds one, never 0 so
 * dry runs for a PMU-less CPU still group events. */
unsigned pmu_usable_counters(const pmu_config *cfg, bool perf);

/* User-space rdpmc.  If the sysfs rdpmc file of the core PMU (cpu, or
 * cpu_core and cpu_atom on hybrid parts) reads 0 (or anything but 2 with
 * `always`: the msr backend has no perf event that would let the kernel allow
 * rdpmc for this task) and nb is root, set it to 2 for the run;
 * pmu_rdpmc_restore() puts back what was there.  Returns 0, 1 if a file was
 * changed, or NB_ESYSTEM (advice in *err) when rdpmc stays off. */
int pmu_rdpmc_enable(const pmu_config *cfg, bool always, nb_error *err);
void pmu_rdpmc_restore(void);

/* sysfs path of the core PMU device for cfg's CPU ("cpu", "cpu_core" or
 * "cpu_atom"), without root prefix. */
const char *pmu_core_pmu_name(const pmu_config *cfg);

/* perf.c: whether a counter read with rdpmc index `ecx` is still there
 * (the event's mmap page, read under its lock) and counted the whole time
 * (time running = time enabled, as differences since the previous look). */
struct perf_event_mmap_page;
pmu_lost perf_counter_check(const struct perf_event_mmap_page *page, uint32_t ecx,
                            uint64_t d_enabled, uint64_t d_running);

#endif
