/* nb worker_shared: what the parent (worker.c) and the measuring process
 * (child.c, trap.c, gdb.c) share: the job crossing fork()
 * (worker_job), the shared mapping's layout (shared_hdr, hdr_samples), the
 * engine's constants, and the process-wide state those files read.  Private
 * to the engine: nothing outside src/measure includes it. */
#ifndef NB_MEASURE_WORKER_SHARED_H
#define NB_MEASURE_WORKER_SHARED_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "harness/codegen.h"
#include "measure/session.h"
#include "measure/fault.h"
#include "measure/worker.h"
#include "pmu/pmu.h"
#include "pmu/tsc_method.h"
#include "sys/cpu.h"
#include "sys/error.h"
#include "sys/mapping.h"


#define AREA_SIZE (1u << 20)
/* A measurement that starts within HOT_NS of the previous one's end (the
 * next event group, the next line of a batch) finds the core still at speed:
 * it skips the warm-up spin and the calibration's settling points and reuses
 * the TSC frequency measured then. */
#define HOT_NS 50000000.0
/* No-access pages on both sides of every memory area: a stack that
 * overflows, or a pointer that runs off an area, faults there instead of
 * landing in the next mapping (which may be the generated code itself). */
#define GUARD_SIZE MAP_GUARD_SIZE
/* Sent by the parent at -timeout: the child notes where it was, then exits. */
#define STOP_SIGNAL SIGUSR1
#define STOP_GRACE_NS 500000000.0

/* The measured programs and the calibration are FAULT_PROG_MEASURE and
 * FAULT_PROG_CAL; -asm_one_time_init's is FAULT_PROG_ONE_TIME. */
#define PROG_NONE FAULT_PROG_NONE
#define PROG_ONE_TIME FAULT_PROG_ONE_TIME
#define PROG_MEASURE FAULT_PROG_MEASURE
#define PROG_CAL FAULT_PROG_CAL

/* One run, by value (see "the measuring process" below); the code bytes
 * follow the header in the mapping, then the samples. */
typedef struct worker_job {
    measure_params p;
    const pmu_backend *backend;  /* static data: the same in both processes */
    pmu_config cfg;              /* its pointers are set to the fields below */
    cpu_info cpu;
    char sysfs_root[256], dev_root[256];
    nb_event events[CODEGEN_MAX_CTR];   /* the group, when the child opens it */
    size_t n_events;
    bool with_clock;
    bool opened;                 /* opened by the parent: counters in ctr[] */
    long copies[2], loops[2];
    bool fresh;                  /* see worker_request.fresh */
    bool prepare_only;           /* open the group, run nothing, stay unsealed */
    bool stepped;                /* pmu_group.stepped of the opened group */
    unsigned long step_budget;
    size_t len[4];               /* code, init, late_init, one_time_init */
} worker_job;

/* The header of the shared mapping.  The measuring process runs benchmark
 * code that can write anywhere in it: the parent copies it out once and
 * checks every field before using any (worker.c); the job it posts is its
 * own copy's.  The canaries are written by the parent only. */
typedef struct shared_hdr {
    uint64_t canary_head;
    worker_job job;
    int done, status;
    int need_fresh;              /* the run needs a process that is not sealed yet */
    nb_error err;                /* why the child stopped (child_fail) */
    fault_record fault;
    char sandbox_note[512];  /* why system calls are not trapped, if they are not */
    char debug_text[4096];   /* -debug: the registers at the int3, as text */
    /* results */
    size_t n_ctr;
    pmu_counter ctr[CODEGEN_MAX_CTR];
    bool overflow[CODEGEN_MAX_CTR];
    unsigned char lost[CODEGEN_MAX_CTR];   /* pmu_lost, from backend->verify */
    uint64_t steps, retired;     /* a stepped group: the traps taken, and the
                                    instructions counted */
    bool step_over;              /* ... and whether its budget ran out */
    double cal_run[2];
    double cal_hw;           /* the clock's half-width (tsc) */
    size_t n_cal;            /* ratios after the samples in the mapping */
    size_t cal_runs;         /* runs of the clock's chain that made it */
    double alu_slowdown, alu_slowdown_hw;
    double fe_slowdown, fe_slowdown_hw;   /* tsc_outcome's */
    double ld_slowdown, ld_slowdown_hw;   /* tsc_outcome's */
    double port_slowdown[TSC_PORTS], port_slowdown_hw[TSC_PORTS];   /* tsc_outcome's */
    bool disturbed;                       /* tsc_outcome's */
    double clock_moved;      /* tsc_outcome.drift over the clock */
    size_t restarts;
    size_t shared_waits;     /* tsc_outcome.waits */
    unsigned placements;     /* place_outcome (tsc) */
    bool placement_moved, placement_averaged, placement_compared;
    double placement_off;
    double loop_misfit;      /* place_outcome's */
    size_t data_pages;       /* place_outcome's */
    double prelude_spread;   /* tsc_outcome.prelude over the value (tsc cycles) */
    double settle_spread;    /* tsc_outcome.settle over the value (tsc cycles) */
    double context;          /* tsc_outcome.context over the value (tsc cycles) */
    bool fe_bound;           /* tsc_outcome's */
    double tsc_step;         /* the TSC's step, ticks (cal_progs.step) */
    /* the tsc method's estimate (has_unc): per counter, second minus first
     * program and its half-width, in the counter's unit (estimated cycles
     * for tsc_cycles counters), before normalization */
    bool has_unc;
    double diff[CODEGEN_MAX_CTR], unc[CODEGEN_MAX_CTR];
    /* without it: the half-width's part the samples do not show
     * (tsc_outcome.fixed), in the same unit */
    double fixed[CODEGEN_MAX_CTR];
    size_t runs[2], kept[2], passes;
    double tsc_ghz;
    double imul_latency;     /* the IMUL chain's, 0 if not used */
    double load_latency;     /* the load probe's, 0 if not used */
    uint64_t canary_tail;
} shared_hdr;


/* The shared mapping (MAP_SHARED, made before fork()); defined in child.c. */
extern shared_hdr *g_hdr;

/* The samples: after the header and the code_cap bytes of code (a multiple
 * of 64 KiB, so of a double's size); code_cap is each side's own, never
 * read back from the mapping. */
static inline double *hdr_samples(shared_hdr *h, size_t code_cap)
{
    return (double *)(h + 1) + code_cap / sizeof(double);
}
/* What the parent hands the measuring process at fork(), by value: the
 * one thing besides the shared mapping that crosses it. */
typedef struct child_start {
    shared_hdr *h;
    sigset_t mask;           /* nb's signal mask, once the child's handlers are in */
    size_t code_cap;
    int sock, cpu;
    pid_t parent;
    bool debug;
    bool wait_for_gdb;       /* gdb is being started on the child */
    /* The TSC frequency, the IMUL chain's and the load probe's latency the
     * previous child measured when it ended within HOT_NS (0: not hot): the
     * core is still at speed, so the warm-up spin and the latency searches
     * are skipped. */
    double hot_tsc_ghz, hot_imul_lat, hot_load_lat;
} child_start;
extern const codegen_prog *g_cur;
extern int g_cur_kind;
extern const bench_code *g_code;
extern bool g_debug_shown;
extern bool g_code_ran;      /* benchmark code ran in the current run */

/* trap.c */
int install_handlers(bool debug);

/* child.c */
_Noreturn void child_main(child_start st);
void run_prog(const codegen_prog *p, int kind);
int areas_map(size_t r14_size, nb_error *err);
/* The measuring process never ends itself (exit is a system call the
 * sandbox traps): it tells the parent it is finished, one byte on the
 * socket, and waits to be killed (async-signal-safe). */
_Noreturn void child_end(void);
/* Put back the FS and GS bases nb's own code runs with (the benchmark may
 * have changed them with wrfsbase/wrgsbase): after every program, and first
 * thing in every signal handler (async-signal-safe). */
void child_restore_bases(void);

/* gdb.c */
void wait_for_tracer(void);
const char *find_gdb(char *buf, size_t len);
/* gdb attached to the measuring process, running beside nb (the run is
 * posted while it is attached, so it stops at -debug's int3); its pid, 0 if
 * it could not start.  end_gdb waits until the user has left it. */
pid_t run_gdb(const char *gdb, pid_t child);
void end_gdb(pid_t gdb);


#endif
