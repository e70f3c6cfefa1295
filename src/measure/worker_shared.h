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


#define AREA_SIZE (1u << 20)
/* A measurement that starts within HOT_NS of the previous one's end (the
 * next event group, the next line of a batch) finds the core still at speed:
 * it skips the warm-up spin and the calibration's settling points and reuses
 * the TSC frequency measured then. */
#define HOT_NS 50000000.0
/* No-access pages on both sides of every memory area: a stack that
 * overflows, or a pointer that runs off an area, faults there instead of
 * landing in the next mapping (which may be the generated code itself). */
#define GUARD_SIZE (64u << 10)
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
    bool stepped;                /* pmu_group.stepped of the opened group */
    unsigned long step_budget;
    size_t len[4];               /* code, init, late_init, one_time_init */
} worker_job;

typedef struct shared_hdr {
    worker_job job;
    size_t code_cap;             /* bytes for the code after the header */
    int done, status;
    nb_error err;                /* why the child stopped (child_fail) */
    fault_record fault;
    char sandbox_note[512];  /* why system calls are not trapped, if they are not */
    /* results */
    size_t n_ctr;
    pmu_counter ctr[CODEGEN_MAX_CTR];
    bool overflow[CODEGEN_MAX_CTR];
    unsigned char lost[CODEGEN_MAX_CTR];   /* pmu_lost, from backend->verify */
    uint64_t steps, retired;     /* a stepped group: the traps taken, and the
                                    instructions counted */
    bool step_over;              /* ... and whether its budget ran out */
    double cal_run[2];
    size_t n_cal;            /* ratios after the samples in the mapping */
    double alu_slowdown;
    double tsc_ghz;
    double imul_latency;     /* the IMUL chain's, 0 if not used */
} shared_hdr;


/* The shared mapping (MAP_SHARED, made before fork()); defined in child.c. */
extern shared_hdr *g_hdr;

/* The samples: after the header and the code_cap bytes of code (a multiple
 * of 64 KiB, so of a double's size). */
static inline double *hdr_samples(shared_hdr *h)
{
    return (double *)(h + 1) + h->code_cap / sizeof(double);
}
/* What the parent hands the measuring process at fork(), by value: the
 * one thing besides the shared mapping that crosses it. */
typedef struct child_start {
    shared_hdr *h;
    int sock, cpu;
    pid_t parent;
    bool debug;
    bool wait_for_gdb;       /* gdb is being started on the child */
    /* The TSC frequency and the IMUL chain's latency the previous child
     * measured when it ended within HOT_NS (0: not hot): the core is still at
     * speed, so the warm-up spin and the IMUL search are skipped. */
    double hot_tsc_ghz, hot_imul_lat;
} child_start;
extern const codegen_prog *g_cur;
extern int g_cur_kind;
extern const bench_code *g_code;
extern bool g_debug_shown;

/* trap.c */
int install_handlers(bool debug);

/* child.c */
_Noreturn void child_main(child_start st);
void run_prog(const codegen_prog *p, int kind);
int areas_map(size_t r14_size, nb_error *err);

/* gdb.c */
void wait_for_tracer(void);
const char *find_gdb(char *buf, size_t len);
void run_gdb(const char *gdb, pid_t child);


#endif
