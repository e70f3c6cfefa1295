/* nb worker_shared: what the parent (worker.c) and the measuring process
 * (child.c, trap.c, gdb.c, pmu/tsc_method.c) share: the job crossing fork()
 * (worker_job), the shared mapping's layout (shared_hdr, hdr_samples), the
 * engine's constants, and the process-wide state those files read.  Private
 * to the engine: nothing outside src/measure and pmu/tsc_method.c includes it. */
#ifndef NB_MEASURE_WORKER_SHARED_H
#define NB_MEASURE_WORKER_SHARED_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "asm/asm.h"
#include "harness/codegen.h"
#include "sys/cpu.h"
#include "measure/fault.h"
#include "pmu/advice.h"
#include "sys/restore.h"
#include "measure/runner.h"
#include "measure/sandbox.h"
#include "measure/stats.h"
#include "sys/status.h"
#include "lib/clock.h"


#define AREA_SIZE (1u << 20)
#define CAL_BODY 100              /* adds per loop iteration */
/* The short program only carries the harness's own cost, which the
 * difference cancels (it had 20 iterations, 14% of the calibration's time). */
#define CAL_LOOP_A 6
/* 11,400 adds more in the long program: ~8,000 TSC ticks, so even a VM's
 * 26-tick TSC steps (seen on a Zen 4 guest) are 0.3% of one reading, and
 * the median over a run's samples goes well below that.  (It was 420: four
 * times the time for no accuracy the tests could tell apart.  60 made the
 * minimum of the two chains' rounded readings read 0.3% fast: medians
 * 2.006, 3.012, 4.014 in bench/accuracy.) */
#define CAL_LOOP_B 120
#define CAL_REPS 8
#define CAL_POINTS 11
/* Runs averaged into one tsc sample.  A VM's TSC may advance in coarse
 * steps (21 ticks on one development VM, 26 on another); the start of
 * back-to-back runs falls at varying points of a step, so their mean
 * resolves far below one step where a single reading cannot.  How many: as
 * many as fill INNER_TICKS, timed on the sample's first run, within
 * [INNER_MIN, INNER_MAX], so that a short program (-unroll_count 100: a few
 * hundred ticks, a few steps) gets many and a long one, whose readings a
 * step hardly moves, few.  (It was 24 for every program, then 8 at least
 * within 20,000 ticks, with 3 calibrations a pair of samples; bench/accuracy
 * on a busy Zen 4 guest, 1,080 lines each: medians within 0.004 of 2, 3
 * and 4 cycles against 0.005-0.010 before, sd of the default ADD and IMUL
 * lines 0.006-0.009 against 0.004, in half the time a line.) */
#define INNER_MIN 2
#define INNER_MAX 64
#define INNER_TICKS 10000.0
/* ... and no more than INNER_EXEC over the executions of the code the two
 * programs differ by: a step's rounding, spread over back-to-back runs,
 * shrinks with the root of the runs and with those executions, not with a
 * run's length, so 1,000 copies of a NOP need no more runs than 1,000
 * copies of an ADD (they took four times as many: a quarter of a default
 * batch line went to averaging fast snippets far below what the host's
 * own noise lets a result show).  4,000: at most 4 runs for nanoBench's
 * defaults, 40 for -unroll_count 100; bench/accuracy read the same spread
 * as with 8,000, at 0.95 the time.) */
#define INNER_EXEC 4000.0
/* Calibration runs of a chain after each pair of samples (one of each
 * program) it takes its turn at, shared by both; a run an interrupt
 * spoiled is dropped (see sample()) and medians over the run are used. */
#define CAL_PER_SAMPLE 1
/* The two calibration chains take turns from this many samples a run on
 * (see chain_runs()).  (Both after every pair of samples, the smaller of
 * the two single readings winning, took a fifth more time a default batch line
 * and read the clock 0.1-0.3% fast from the TSC's rounding; bench/accuracy
 * read the same or tighter spreads with turns.) */
#define CAL_TURNS_MIN 6
#define ROBUST_TOL_TICKS 64.0
/* Warm-up spin before a measuring process's first calibration (the core
 * leaves any idle frequency; the calibration next to every sample follows
 * what changes after); also times the TSC.  It was 10 ms, half of a whole
 * single run. */
#define SPIN_NS 3000000L
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
#define PROG_FIRST FAULT_PROG_MEASURE
#define PROG_SECOND FAULT_PROG_MEASURE
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
    long copies[2];
    size_t len[4];               /* code, init, late_init, one_time_init */
} worker_job;

typedef struct shared_hdr {
    worker_job job;
    size_t code_cap;             /* bytes for the code after the header */
    int done, status;
    char msg[512];
    fault_record fault;
    char sandbox_note[512];  /* why system calls are not trapped, if they are not */
    /* results */
    size_t n_ctr;
    pmu_counter ctr[CODEGEN_MAX_CTR];
    bool overflow[CODEGEN_MAX_CTR];
    double cal_run[2];
    size_t n_cal;            /* ratios after the samples in the mapping */
    double alu_slowdown;
    double tsc_ghz;
    double imul_latency;     /* the IMUL chain's, 0 if not used */
} shared_hdr;

/* One calibration chain: the same body in a loop of CAL_LOOP_A and
 * CAL_LOOP_B iterations; `latency` core cycles per instruction. */
typedef struct cal_chain {
    codegen_prog a, b;
    double ops;          /* instructions more in b than in a */
    double latency;
} cal_chain;

typedef struct cal_progs {
    cal_chain ch[2];     /* add rax, 1 (1 cycle); imul rax, rax (found) */
    size_t n;
} cal_progs;


/* One program's measurement: its kept samples (samples[c * n + i]) and,
 * with the tsc backend's calibration, add_ratio[i] and ratio[i] (ticks per
 * core cycle from the ADD and the IMUL chain next to sample i; NAN where
 * that chain did not run); measure() leaves the chosen chain's in ratio[]. */
typedef struct run_state {
    const codegen_prog *p;
    double *samples, *ratio, *add_ratio;
    size_t inner;        /* runs per sample (tsc), set on the first kept run */
    double enough;       /* runs that resolve the TSC's steps (see INNER_EXEC) */
} run_state;

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
int areas_map(size_t r14_size, char *err, size_t errlen);

/* gdb.c */
void wait_for_tracer(void);
const char *find_gdb(char *buf, size_t len);
void run_gdb(const char *gdb, pid_t child);

/* pmu/tsc_method.c */
void cal_points(const cal_progs *cp, double *v, size_t n);
int cal_build(cal_progs *cp, double hot_imul_lat, char *err, size_t errlen);
size_t measure(run_state rs[2], long warm, long n, const cal_progs *cp, size_t n_ctr,
               const pmu_counter *ctr, bool *ovf, size_t *n_add);
double spin_tsc_ghz(void);

#endif
