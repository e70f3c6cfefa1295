/* Folder pmu/: the counters.  One interface (this header) and each backend
 * whole in its own files: perf_event+rdpmc, msr+rdpmc, the calibrated TSC
 * with its method, the emulated PMU; what perf and msr share (common.h);
 * errno turned into advice in one place (advice.h).  A backend fills the
 * caller's nb_error when it cannot do something.
 *
 * nb pmu: one interface, four counter backends.
 *
 *   perf.c  perf_event_open per event + rdpmc in the generated code
 *   msr.c   IA32_PERFEVTSELx / AMD PERF_CTL via /dev/cpu/N/msr + rdpmc
 *   tsc.c   no PMU: serialized rdtsc, core cycles from a calibrated clock
 *   emu.c   no PMU needed: the rdpmc reads are answered by an emulator that
 *           steps the measured code (emu.h); also "tsc+emu", the two
 *           together, which auto picks where there is no PMU
 *   advice.c  errno -> what the user should change (the one place for it)
 *
 * A backend turns a list of events into groups that fit the counters
 * (pmu_plan), opens one group at a time, and tells the code generator how to
 * read each counter (pmu_counter.read).  Every system setting a backend
 * changes goes through restore.h so that it is undone on every exit path.
 * dry_run() prints, as key=value text, every perf_event_attr field or MSR
 * write it would make: that is how the perf and msr paths are tested on
 * machines without a PMU. */
#ifndef NB_PMU_H
#define NB_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sys/cpu.h"
#include "sys/error.h"
#include "events/config.h"
#include "harness/read.h"


typedef enum {
    PMU_BACKEND_AUTO, PMU_BACKEND_PERF, PMU_BACKEND_MSR, PMU_BACKEND_TSC, PMU_BACKEND_EMU
} pmu_backend_kind;


typedef struct pmu_counter {
    char name[NB_EVENT_NAME_MAX];
    pmu_read_kind read;
    uint32_t rdpmc_ecx;
    uint32_t msr;          /* PMU_READ_OUTSIDE of an MSR event: its address */
    unsigned width;        /* counter width in bits, for wrap-around */
    double scale;          /* result multiplier (1.0 unless derived) */
    bool tsc_cycles;       /* tsc backend: rdtsc ticks turned into core cycles
                              with the run's calibration (an estimate) */
    /* In a stepped group (pmu_group.stepped): what the emulator counts for
     * this counter, a set of emu_kind bits (emu.h); 0: nothing it can
     * count, the result is unavailable. */
    uint32_t emu;
} pmu_counter;

/* Settings every backend sees. */
typedef struct pmu_config {
    const cpu_info *cpu;
    int cpu_index;           /* CPU the benchmark is pinned to */
    bool count_usr, count_os;
    bool fixed_counters;
    const char *sysfs_root;  /* "" in production; a fake tree in tests */
    const char *dev_root;    /* "" in production ("/dev/cpu/N/msr") */
    bool no_mem;             /* -no_mem: a group holds what fits in R8-R13 */
    /* The events are the table's default set, not the user's (no -config,
     * -events): a backend without a PMU leads with what it measures itself. */
    bool defaults;
    /* Whose encoding the events use (-uarch's table; CPU_VENDOR_UNKNOWN:
     * the CPU's own). */
    cpu_vendor event_vendor;
    /* The event table events are resolved through (evdb.h; NULL: none
     * covers the CPU, architectural events only): the emulator maps an
     * event's codes back to the table's names to know what it counts. */
    const char *uarch;
    /* auto may add the emulator to the tsc backend (tsc+emu) */
    bool emu_auto;
} pmu_config;

/* Events split into groups that fit the hardware counters at once. */
typedef struct pmu_group_plan {
    nb_event *events;
    size_t n_events;
    bool with_clock;         /* tsc: CORE_CYCLES and RDTSC come first */
    bool emulated;           /* tsc+emu: a group the emulator counts */
} pmu_group_plan;

typedef struct pmu_plan {
    pmu_group_plan *groups;
    size_t n_groups;
} pmu_plan;

/* An open group: the counters as the generated code must read them. */
typedef struct pmu_group {
    pmu_counter *ctr;
    size_t n_ctr;
    void *priv;              /* backend state: fds, mmaps, saved MSRs */
    /* The measuring process steps the measured runs and answers their rdpmc
     * reads from the emulator (counter.emu says what each counts): the emu
     * backend's groups, and the msr backend's on a fake msr device (tests). */
    bool stepped;
    bool once;               /* one measurement per program: the counts do not
                                depend on timing (the emu backend) */
    unsigned long step_budget;   /* most traps of the stepper for the group, 0:
                                    no limit (tsc+emu keeps a run short) */
} pmu_group;

/* What a backend needs from the engine (pmu_backend.flags). */
enum {
    /* Its counters are read with rdpmc: user-mode rdpmc is switched on in
     * the parent before the measuring process starts. */
    PMU_BE_RDPMC = 1u << 0,
    /* ... and always, even where the kernel would allow it only to a task
     * with a perf event open (the msr backend has none). */
    PMU_BE_RDPMC_ALWAYS = 1u << 1,
    /* Its groups are opened once by the parent (session start) and handed
     * to the measuring process; otherwise the measuring process opens them. */
    PMU_BE_OPENS_IN_PARENT = 1u << 2,
};

/* Why a counter's readings of a group's runs cannot be used
 * (pmu_backend.verify); PMU_KEPT: they can. */
typedef enum {
    PMU_KEPT = 0,
    PMU_LOST_MOVED,          /* the kernel moved it to another counter (the rdpmc
                                index compiled into the code went stale) */
    PMU_LOST_MULTIPLEXED,    /* it did not count the whole time (scheduled out) */
} pmu_lost;

/* "moved to another counter during the runs", ... for a warning or a record. */
const char *pmu_lost_text(pmu_lost why);

typedef struct pmu_backend {
    const char *name;        /* "perf_event+rdpmc", "msr+rdpmc", "tsc" */
    unsigned flags;          /* PMU_BE_* */
    /* probe, plan and open return 0, or a negative status with the reason
     * (errno turned into advice, advice.h) in *err. */
    /* 0 if usable here. */
    int (*probe)(const pmu_config *cfg, nb_error *err);
    int (*plan)(const pmu_config *cfg, const nb_event *ev, size_t n, pmu_plan *out,
                nb_error *err);
    int (*open)(const pmu_config *cfg, const pmu_group_plan *g, pmu_group *out,
                nb_error *err);
    void (*close)(pmu_group *g);
    void (*dry_run)(FILE *f, const pmu_config *cfg, const pmu_plan *plan);
    /* After a group's runs, in the process that opened it: lost[i] says
     * whether counter i stayed where the generated code reads it, counting,
     * the whole time since the previous verify (or open).  NULL where
     * nothing can move (nb programs the counters itself). */
    void (*verify)(pmu_group *g, unsigned char *lost);
    /* Read counter k of an open group whose read is PMU_READ_OUTSIDE, in
     * the measuring process, right before or after a run.  0, or a negative
     * status described in *err.  NULL: the backend reads no MSR events
     * (they are planned with the others and print unavailable). */
    int (*read_outside)(const pmu_config *cfg, pmu_group *g, size_t k, uint64_t *value,
                        nb_error *err);
} pmu_backend;

extern const pmu_backend pmu_perf_backend;
extern const pmu_backend pmu_msr_backend;
extern const pmu_backend pmu_tsc_backend;
extern const pmu_backend pmu_emu_backend;
extern const pmu_backend pmu_tsc_emu_backend;

/* Pick the backend: the forced one, or the best usable one (auto: perf,
 * msr, then tsc, or tsc+emu where cfg->emu_auto and stepping works).  The refusals
 * of the backends tried before it ("perf_event+rdpmc: ...; msr+rdpmc: ...")
 * are the message of *why (NULL allowed); when none is usable, NULL is
 * returned and why's status is NB_EUNSUPPORTED, else it is 0. */
const pmu_backend *pmu_select(pmu_backend_kind kind, const pmu_config *cfg, nb_error *why);

/* Append a group holding a copy of ev[0..n) (n may be 0: a group of fixed
 * counters only). NB_ENOMEM on failure; the plan stays freeable. */
int pmu_plan_push(pmu_plan *plan, const nb_event *ev, size_t n);

void pmu_plan_free(pmu_plan *plan);

/* be->plan for ev[0..n), with each MSR event (nb_event_is_msr) in a group
 * of its own after the others where the backend reads them (read_outside),
 * as nanoBench measures one msr config line at a time. */
int pmu_plan_make(const pmu_backend *be, const pmu_config *cfg, const nb_event *ev, size_t n,
                  pmu_plan *out, nb_error *err);

/* Whether two events program the same thing (name, codes, flags and the
 * extra MSR values): the one test of event equality. */
bool pmu_event_equal(const nb_event *a, const nb_event *b);

#endif
