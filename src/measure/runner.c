/* nb runner: see runner.h.
 *
 * Why a child process: the benchmark may do anything to its registers and
 * memory, fault, or never end; the parent stays intact, enforces -timeout
 * and restores system settings whatever happens.  Results come back through
 * a MAP_SHARED anonymous mapping created before fork().
 *
 * Calibration (tsc backend): two programs run the same dependent chain of
 * `add rax, rax` (one core cycle each on every x86-64 core) in a loop of
 * CAL_LOOP_A and CAL_LOOP_B iterations; the difference of their run times,
 * over the difference in adds, is TSC ticks per core cycle, free of the
 * harness's own cost.  A second pair does the same with `imul rax, rax`,
 * whose latency is found against the ADD chain when the measuring process
 * starts.  Either chain reads at least the true ratio, and the smaller
 * wins: contention from the sibling hyperthread, which stretched 1-cycle
 * ADD chains by up to 4% on a shared host, hardly touches a 3-cycle chain;
 * how much slower the ADD chain ran is reported
 * (bench_calibration.alu_slowdown).  Calibration runs are interleaved with
 * the benchmark's own runs (see measure()), the two chains taking turns
 * after each pair of samples, and the samples of a run are divided by the
 * smaller of the chains' medians over that run: measured in the same
 * milliseconds, so frequency changes between runs are followed, while one
 * disturbed calibration cannot become a sample of its own (which -min and
 * -max would then pick).  Means
 * over many runs, with outliers dropped (robust_mean), resolve far below
 * the coarse steps a VM's TSC may advance in. */
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
    nb_options o;                /* only its numbers are read */
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

static shared_hdr *g_hdr;

/* The samples: after the header and the code_cap bytes of code (a multiple
 * of 64 KiB, so of a double's size). */
static double *hdr_samples(shared_hdr *h)
{
    return (double *)(h + 1) + h->code_cap / sizeof(double);
}
/* Parent: when the last measuring child ended and the TSC frequency it
 * measured; inherited by the next child as g_hot_tsc_ghz (0: not hot). */
static double g_last_end_ns, g_last_tsc_ghz, g_hot_tsc_ghz;
/* The IMUL chain's latency found by the last child (0: none); a hot child
 * reuses it instead of measuring it again (2 x CAL_POINTS points). */
static double g_last_imul_lat, g_hot_imul_lat;
static const codegen_prog *g_cur;
static int g_cur_kind;
static const bench_code *g_code;
static bool g_debug_shown;
static volatile pid_t g_child;
static bool g_sandbox_noted;   /* the note is printed once per nb run */

static uint64_t rdtsc_now(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static bool cpu_has_bmi2(void)
{
    uint32_t r[4];
    cpu_cpuid(0, 0, r);
    if (r[0] < 7)
        return false;
    cpu_cpuid(7, 0, r);
    return (r[1] >> 8) & 1;   /* CPUID.7.0:EBX bit 8 */
}

/* ---- child: faults, system calls, -timeout and -debug ---- */

/* Copy up to n bytes from an address the benchmark may have left anything
 * in; process_vm_readv reports an unmapped page instead of faulting. */
static size_t safe_read(uint64_t addr, void *buf, size_t n)
{
    struct iovec local = {buf, n}, remote = {(void *)(uintptr_t)addr, n};
    ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    return got > 0 ? (size_t)got : 0;
}

/* Everything fault.c needs, into the shared mapping (async-signal-safe). */
static void record_fault(int sig, const siginfo_t *si, const ucontext_t *uc, bool stopped)
{
    fault_record *f = &g_hdr->fault;
    const greg_t *g = uc->uc_mcontext.gregs;
    static const int order[FAULT_NREG] = {
        REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
        REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
        REG_RIP, REG_EFL,
    };
    for (int i = 0; i < FAULT_NREG; i++)
        f->reg[i] = (uint64_t)g[order[i]];
    f->code = si->si_code;
    f->stopped = stopped;
    f->trapno = (int)g[REG_TRAPNO];
    f->err = (uint64_t)g[REG_ERR];
    f->addr = (uint64_t)(uintptr_t)si->si_addr;
    uint64_t rip = f->reg[FAULT_RIP];
    f->insn_addr = rip;
    if (sig == SIGSYS) {
        /* syscall, sysenter and int 0x80 are 2 bytes; RIP is past them */
        f->sys_nr = si->si_syscall;
        f->sys_arch = si->si_arch;
        f->insn_addr = rip - 2;
    } else if (sig == SIGTRAP && f->trapno == 3) {
        /* #BP is a trap: RIP is past the int3 (CC) or int 3 (CD 03) */
        uint8_t b[2];
        if (safe_read(rip - 2, b, 2) == 2)
            f->insn_addr = b[1] == 0xCC ? rip - 1 : b[0] == 0xCD && b[1] == 3 ? rip - 2 : rip;
    }
    uint8_t probe;
    f->addr_readable = safe_read(f->addr, &probe, 1) == 1;
    f->n_insn = safe_read(f->insn_addr, f->insn, sizeof f->insn);
    f->at_rsp_ok = safe_read(f->reg[FAULT_RSP], &f->at_rsp, 8) == 8;
    f->below_rsp_ok = safe_read(f->reg[FAULT_RSP] - 8, &f->below_rsp, 8) == 8;
    f->prog = (fault_prog)g_cur_kind;
    if (g_cur) {
        const codegen_prog *p = g_cur;
        bool once = g_cur_kind == PROG_ONE_TIME, cal = g_cur_kind == PROG_CAL;
        f->lay = (fault_layout){
            .base = (uint64_t)(uintptr_t)p->base, .code_len = p->code_len, .map_len = p->map_len,
            .init_off = p->init_off, .late_init_off = p->late_init_off,
            .init_len = cal ? 0 : once ? g_code->one_time_init_len : g_code->init_len,
            .late_init_len = cal || once ? 0 : g_code->late_init_len,
            .copies_off = p->copies_off, .copy_stride = p->copy_stride,
            .copies_end = p->copies_end, .n_copies = p->n_copies,
        };
    }
    f->signo = sig;   /* last: the parent takes a non-zero signo as a complete record */
}

/* The first thing in every handler: the benchmark may have set EFLAGS.AC
 * (alignment checking), which Linux leaves set in a signal handler, and a
 * misaligned access of nb's own would then raise SIGBUS in the handler. */
#define CLEAR_AC()                                                          \
    __asm__ volatile("lea -128(%%rsp), %%rsp; pushfq; andq $~0x40000, (%%rsp); " \
                     "popfq; lea 128(%%rsp), %%rsp" ::: "memory", "cc")   /* past the red zone */

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    CLEAR_AC();
    record_fault(sig, si, ctx, false);
    g_hdr->status = NB_EFAULT;
    _exit(3);
}

/* -timeout: the parent asks the child to stop; note where the code was. */
static void on_stop(int sig, siginfo_t *si, void *ctx)
{
    CLEAR_AC();
    record_fault(sig, si, ctx, true);
    g_hdr->status = NB_EFAULT;
    _exit(3);
}

/* -debug: the int3 before the second counter read lands here; print the
 * registers once (every run passes the same point) and go on. */
static void on_debug_trap(int sig, siginfo_t *si, void *ctx)
{
    CLEAR_AC();
    (void)si;
    ucontext_t *uc = ctx;
    if (g_debug_shown)
        return;
    g_debug_shown = true;
    static const struct { const char *name; int reg; } gpr[] = {
        {"rax", REG_RAX}, {"rbx", REG_RBX}, {"rcx", REG_RCX}, {"rdx", REG_RDX},
        {"rsi", REG_RSI}, {"rdi", REG_RDI}, {"rbp", REG_RBP}, {"rsp", REG_RSP},
        {"r8", REG_R8}, {"r9", REG_R9}, {"r10", REG_R10}, {"r11", REG_R11},
        {"r12", REG_R12}, {"r13", REG_R13}, {"r14", REG_R14}, {"r15", REG_R15},
        {"rip", REG_RIP}, {"eflags", REG_EFL},
    };
    fprintf(stderr, "nb: -debug: registers before the second counter read (signal %d, "
            "first run of %zu copies):\n", sig, g_cur ? g_cur->n_copies : 0);
    for (size_t i = 0; i < sizeof gpr / sizeof gpr[0]; i++)
        fprintf(stderr, "  %-7s 0x%016llx  %lld\n", gpr[i].name,
                (unsigned long long)uc->uc_mcontext.gregs[gpr[i].reg],
                (long long)uc->uc_mcontext.gregs[gpr[i].reg]);
    if (uc->uc_mcontext.fpregs) {
        struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
        fprintf(stderr, "  mxcsr   0x%08x\n", fp->mxcsr);
        for (int i = 0; i < 16; i++) {
            fprintf(stderr, "  xmm%-4d", i);
            for (int k = 3; k >= 0; k--)
                fprintf(stderr, " %08x", fp->_xmm[i].element[k]);
            fputc('\n', stderr);
        }
        for (int i = 0; i < 8; i++)
            fprintf(stderr, "  st%d     %04x %04x%04x%04x%04x\n", i, fp->_st[i].exponent,
                    fp->_st[i].significand[3], fp->_st[i].significand[2],
                    fp->_st[i].significand[1], fp->_st[i].significand[0]);
    }
    fflush(stderr);
}

static int install_handlers(bool debug)
{
    static uint8_t altstack[65536];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0)
        return NB_ESYSTEM;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigfillset(&sa.sa_mask);
    /* SIGSYS: a system call the sandbox trapped (sandbox.h) */
    int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (sigaction(sigs[i], &sa, NULL) != 0)
            return NB_ESYSTEM;
    sa.sa_sigaction = on_stop;
    if (sigaction(STOP_SIGNAL, &sa, NULL) != 0)
        return NB_ESYSTEM;
    if (debug) {
        sa.sa_sigaction = on_debug_trap;
        sigaction(SIGTRAP, &sa, NULL);
    }
    return 0;
}

/* ---- child: programs ---- */

static _Noreturn void child_fail(int status, const char *fmt, const char *a)
{
    g_hdr->status = status;
    snprintf(g_hdr->msg, sizeof g_hdr->msg, fmt, a);
    _exit(1);
}

static void run_prog(const codegen_prog *p, int kind)
{
    g_cur = p;
    g_cur_kind = kind;
    codegen_call(p);
    g_cur = NULL;
    g_cur_kind = PROG_NONE;
}

/* Mean of the values within max(ROBUST_TOL_TICKS, 2%) of their median: the
 * mean keeps the dithering that sub-step resolution needs (see INNER_TICKS),
 * the window drops runs an interrupt or a preemption landed in. */
static double robust_mean(const double *v, size_t n)
{
    double m = stats_median(v, n);
    double tol = fmax(ROBUST_TOL_TICKS, 0.02 * fabs(m));
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(v[i] - m) <= tol) {
            sum += v[i];
            k++;
        }
    return k ? sum / (double)k : m;
}

static double counter_diff(const codegen_prog *p, const pmu_counter *ctr, size_t c, bool *ovf)
{
    uint64_t d = p->data->m2[c] - p->data->m1[c];
    if (ctr[c].width > 0 && ctr[c].width < 64)
        d &= (UINT64_C(1) << ctr[c].width) - 1;
    if ((int64_t)d < 0)
        *ovf = true;
    return (double)(int64_t)d * ctr[c].scale;
}

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

static int cal_chain_build(cal_chain *c, const uint8_t insn[4], long loop_a, long loop_b,
                           char *err, size_t errlen)
{
    uint8_t body[CAL_BODY * 4];
    for (size_t i = 0; i < CAL_BODY; i++)
        memcpy(body + 4 * i, insn, 4);
    static const codegen_read rd = {PMU_READ_RDTSC, 0};
    static uint64_t stack[64];
    codegen_params p = {
        .code = body, .code_len = sizeof body, .copies = 1, .reads = &rd, .n_reads = 1,
        .r14 = (uintptr_t)&stack[32], .rdi = (uintptr_t)&stack[32], .rsi = (uintptr_t)&stack[32],
        .rbp = (uintptr_t)&stack[32], .rsp = (uintptr_t)&stack[48],
    };
    p.loop_count = loop_a;
    int rc = codegen_build(&p, &c->a, err, errlen);
    if (rc)
        return rc;
    p.loop_count = loop_b;
    if ((rc = codegen_build(&p, &c->b, err, errlen))) {
        codegen_free(&c->a);
        return rc;
    }
    c->ops = (double)(loop_b - loop_a) * CAL_BODY;
    c->latency = 1;
    return 0;
}

static double cal_run_ticks(const codegen_prog *p)
{
    run_prog(p, PROG_CAL);
    return (double)(p->data->m2[0] - p->data->m1[0]);
}

/* Ticks per core cycle from n runs of each program of a chain.  The fastest
 * run of each: a chain can only be slowed (an interrupt, or the other
 * hyperthread of the core competing for the ALUs), never sped up, and what
 * is wanted is the clock. */
static double cal_chain_ratio(const cal_chain *c, const double *a, const double *b, size_t n)
{
    return (stats_min(b, n) - stats_min(a, n)) / (c->ops * c->latency);
}

/* One calibration point of every chain; the smallest ratio.  Each chain's
 * ratio is at least the true one, so the minimum is safe; two chains are
 * used because contention from the sibling hyperthread, which on a shared
 * host stretched the 1-cycle ADD chain by up to 4% for seconds at a time,
 * hardly touches a 3-cycle IMUL chain. */
static double cal_point_n(const cal_progs *cp, int reps)
{
    double best = 0;
    for (size_t k = 0; k < cp->n; k++) {
        double a[CAL_REPS], b[CAL_REPS];
        for (int r = 0; r < reps; r++) {
            a[r] = cal_run_ticks(&cp->ch[k].a);
            b[r] = cal_run_ticks(&cp->ch[k].b);
        }
        double v = cal_chain_ratio(&cp->ch[k], a, b, (size_t)reps);
        if (k == 0 || v < best)
            best = v;
    }
    return best;
}

static void cal_points(const cal_progs *cp, double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = cal_point_n(cp, CAL_REPS);
}

static void cal_free(cal_progs *cp)
{
    for (size_t k = 0; k < cp->n; k++) {
        codegen_free(&cp->ch[k].a);
        codegen_free(&cp->ch[k].b);
    }
    cp->n = 0;
}

/* The ADD chain, and the IMUL chain with its latency in whole cycles as
 * measured against the ADD chain here (3 on current x86-64 cores); the IMUL
 * chain is left out if that does not come out a plausible whole number. */
static int cal_build(cal_progs *cp, char *err, size_t errlen)
{
    /* add rax, rax and not add rax, imm: Golden Cove and later fold small
     * immediate ADDs at rename, so an immediate chain runs faster than one
     * cycle per ADD there (seen on an Emerald Rapids guest: "8.9 GHz"). A
     * register-register ADD has a true 1-cycle dependency everywhere; the DS
     * prefix (ignored on ADD) keeps the body 4 bytes long like the IMUL's. */
    static const uint8_t add1[4] = {0x3E, 0x48, 0x01, 0xC0};   /* ds add rax, rax */
    static const uint8_t imul[4] = {0x48, 0x0F, 0xAF, 0xC0};   /* imul rax, rax */
    cp->n = 0;
    int rc = cal_chain_build(&cp->ch[0], add1, CAL_LOOP_A, CAL_LOOP_B, err, errlen);
    if (rc)
        return rc;
    cp->n = 1;
    if (cal_chain_build(&cp->ch[1], imul, CAL_LOOP_A / 3, CAL_LOOP_B / 3, err, errlen) != 0)
        return 0;
    cp->n = 2;
    if (g_hot_imul_lat > 0) {
        cp->ch[1].latency = g_hot_imul_lat;
        return 0;
    }
    double add_v[CAL_POINTS], imul_v[CAL_POINTS];
    cal_progs one = {.ch = {cp->ch[0]}, .n = 1}, two = {.ch = {cp->ch[1]}, .n = 1};
    cal_points(&one, add_v, CAL_POINTS);
    cal_points(&two, imul_v, CAL_POINTS);
    double lat = stats_min(imul_v, CAL_POINTS) / stats_min(add_v, CAL_POINTS);
    double whole = round(lat);
    if (whole < 2 || whole > 8 || fabs(lat - whole) > 0.25) {
        codegen_free(&cp->ch[1].a);
        codegen_free(&cp->ch[1].b);
        cp->n = 1;
    } else {
        cp->ch[1].latency = whole;
    }
    return 0;
}

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

/* Whether calibration chain k runs beside sample i of n: the chains take
 * turns (each costs as much as the benchmark's runs at nanoBench's
 * defaults), both run where a run has too few samples for turns. */
static bool chain_runs(const cal_progs *cp, size_t k, long i, long n)
{
    return n < CAL_TURNS_MIN || (size_t)i % cp->n == k;
}

/* Sample i of a run (i < 0: a discarded warm-up run).  With the
 * calibration chains (tsc backend) a kept sample is the robust mean of
 * INNER_MIN..INNER_MAX back-to-back runs (see INNER_TICKS, INNER_EXEC), and
 * the first CAL_PER_SAMPLE of them are each followed by one run of the
 * chains whose turn it is (see chain_runs()). */
static void sample(run_state *rs, int kind, long i, long n, const cal_progs *cp, bool calibrate,
                   size_t n_ctr, const pmu_counter *ctr, bool *ovf)
{
    double tmp[CODEGEN_MAX_CTR][INNER_MAX];
    double ca[2][CAL_PER_SAMPLE], cb[2][CAL_PER_SAMPLE];
    if (i < 0) {
        run_prog(rs->p, kind);
        return;
    }
    size_t runs = cp && rs->inner > 1 ? rs->inner : 1;
    for (size_t r = 0; r < runs; r++) {
        uint64_t t0 = cp && i == 0 && r == 0 ? rdtsc_now() : 0;
        run_prog(rs->p, kind);
        if (t0) {
            double t = (double)(rdtsc_now() - t0), want = INNER_TICKS / (t > 1 ? t : 1);
            if (want > rs->enough)
                want = rs->enough;
            rs->inner = want >= INNER_MAX ? INNER_MAX : want <= INNER_MIN ? INNER_MIN
                                                                           : (size_t)want;
            runs = rs->inner;
        }
        for (size_t c = 0; c < n_ctr; c++)
            tmp[c][r] = ctr[c].read == PMU_READ_NONE ? 0 : counter_diff(rs->p, ctr, c, &ovf[c]);
        for (size_t k = 0; calibrate && cp && r < CAL_PER_SAMPLE && k < cp->n; k++) {
            if (!chain_runs(cp, k, i, n))
                continue;
            ca[k][r] = cal_run_ticks(&cp->ch[k].a);
            cb[k][r] = cal_run_ticks(&cp->ch[k].b);
        }
    }
    for (size_t c = 0; c < n_ctr; c++)
        rs->samples[c * (size_t)n + (size_t)i] = runs > 1 ? robust_mean(tmp[c], runs) : tmp[c][0];
    if (calibrate && cp) {
        /* add_ratio[i] from the ADD chain, ratio[i] from the IMUL chain,
         * where each ran; a chain whose short program an interrupt slowed
         * gives nothing or less: NAN, left out */
        rs->ratio[i] = rs->add_ratio[i] = NAN;
        for (size_t k = 0; k < cp->n; k++) {
            if (!chain_runs(cp, k, i, n))
                continue;
            double v = cal_chain_ratio(&cp->ch[k], ca[k], cb[k], CAL_PER_SAMPLE);
            if (v > 0)
                *(k == 0 ? &rs->add_ratio[i] : &rs->ratio[i]) = v;
        }
    }
}

/* Moves v's positive values to its front, in order; returns how many. */
static size_t keep_positive(double *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > 0)
            v[k++] = v[i];
    return k;
}

/* Both runs: `warm` discarded runs, then n kept samples of each.  With a
 * counter backend as nanoBench does it, the first program's samples, then
 * the second's.  With the tsc backend (cp) interleaved, sample i of the
 * first program next to sample i of the second, and one calibration after
 * both, which the two share: on a VM the host can slow the core for a
 * millisecond or more at a time (seen: 8 samples in a row of one run 2.7x
 * slow, which made a load chain read -3.07 cycles), and a slow stretch then
 * falls on both runs, whose difference is the result, and on the clock
 * ratio they are divided by, instead of on one run only.  Returns how many
 * usable calibration ratios were taken, all in rs[0] (the second run uses
 * them too), and in *n_add how many of the ADD chain's. */
static size_t measure(run_state rs[2], long warm, long n, const cal_progs *cp, size_t n_ctr,
                      const pmu_counter *ctr, bool *ovf, size_t *n_add)
{
    static const int RUN_KIND[2] = {PROG_FIRST, PROG_SECOND};
    for (int r = 0; r < 2; r++)
        rs[r].inner = cp ? INNER_MIN : 1;
    *n_add = 0;
    if (!cp) {
        for (int r = 0; r < 2; r++)
            for (long i = -warm; i < n; i++)
                sample(&rs[r], RUN_KIND[r], i, n, NULL, false, n_ctr, ctr, ovf);
        return 0;
    }
    for (int r = 0; r < 2; r++)
        for (long i = -warm; i < 0; i++)
            sample(&rs[r], RUN_KIND[r], i, n, cp, false, n_ctr, ctr, ovf);
    for (long i = 0; i < n; i++) {
        sample(&rs[1], RUN_KIND[1], i, n, cp, false, n_ctr, ctr, ovf);
        sample(&rs[0], RUN_KIND[0], i, n, cp, true, n_ctr, ctr, ovf);
    }
    /* Each chain's median over the run, and the smaller one: either chain
     * reads at least the true ratio (it can be slowed, by an interrupt or
     * the other hyperthread, never sped up), and medians leave behind what
     * the TSC's steps and interrupts did to single readings, where the
     * smaller of two single readings leant fast.  The chosen chain's ratios
     * go to ratio[], which the run is divided by (their median) and which
     * are reported; the ADD chain's stay in add_ratio[] (*n_add), for how
     * much slower that chain ran. */
    size_t na = keep_positive(rs[0].add_ratio, (size_t)n);
    size_t ni = keep_positive(rs[0].ratio, (size_t)n);
    *n_add = na;
    if (ni && (!na || stats_median(rs[0].ratio, ni) < stats_median(rs[0].add_ratio, na)))
        return ni;
    if (na) {
        memcpy(rs[0].ratio, rs[0].add_ratio, na * sizeof *rs[0].ratio);
        return na;
    }
    /* every one interrupted (hardly possible): one full calibration point */
    rs[0].ratio[0] = rs[0].add_ratio[0] = cal_point_n(cp, CAL_REPS);
    *n_add = 1;
    return 1;
}

double runner_calibrate_once(void)
{
    cal_progs cp;
    char err[256];
    if (cal_build(&cp, err, sizeof err))
        return 0;
    double v[CAL_POINTS];
    cal_points(&cp, v, CAL_POINTS);
    cal_free(&cp);
    return stats_median(v, CAL_POINTS);
}

/* Busy-wait SPIN_NS so the core leaves any idle frequency, timing the TSC on
 * the way. */
static double spin_tsc_ghz(void)
{
    double t0 = now_ns();
    uint64_t c0 = rdtsc_now();
    double t;
    while ((t = now_ns()) - t0 < SPIN_NS)
        ;
    uint64_t c1 = rdtsc_now();
    return (double)(c1 - c0) / (t - t0);
}

/* An area with GUARD_SIZE of no-access pages on both sides, or NULL. */
static uint8_t *map_guarded(size_t size)
{
    size_t total = size + 2 * (size_t)GUARD_SIZE;
    uint8_t *g = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (g == MAP_FAILED)
        return NULL;
    void *m = mmap(g + GUARD_SIZE, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (m == MAP_FAILED) {
        munmap(g, total);
        return NULL;
    }
    return m;
}

static void unmap_guarded(uint8_t *m, size_t size)
{
    if (m)
        munmap(m - GUARD_SIZE, size + 2 * (size_t)GUARD_SIZE);
}

/* Child: name an area in the fault record, so that a fault report can say
 * "in RSP's guard page" or "R14's area". */
static void note_area(const char *name, const uint8_t *m, size_t size)
{
    fault_record *f = &g_hdr->fault;
    if (f->n_area < FAULT_MAX_AREAS) {
        fault_area *a = &f->area[f->n_area++];
        snprintf(a->name, sizeof a->name, "%s", name);
        a->start = (uint64_t)(uintptr_t)m;
        a->size = size;
        a->guard = GUARD_SIZE;
    }
}

/* The child's own safety before any benchmark code: no core file, death
 * with nb (even SIGKILL of nb leaves no child running), the default action
 * for the signals nb handles (the parent restores settings, not the child:
 * Ctrl-C reaches both), nb's output out of the benchmark's reach, and no
 * descriptor of nb's but the socket to the parent: a file nb reads (a batch
 * file, or stdin) shares its offset with the child, and whatever moved it
 * there (valgrind's libc clean-up at the child's exit did: a batch read its
 * lines twice) would move nb's.  Returns the socket's new number. */
static int child_isolate(pid_t parent, int sock)
{
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != parent)
        _exit(1);   /* nb died before the line above */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    int null_in = open("/dev/null", O_RDONLY), null_out = open("/dev/null", O_WRONLY);
    if (null_in >= 0)
        dup2(null_in, STDIN_FILENO);
    if (null_out >= 0)
        dup2(null_out, STDOUT_FILENO);
    /* stderr stays: nb's own last-resort messages; the socket becomes fd 3 */
    if (sock != 3) {
        if (dup2(sock, 3) != 3)
            _exit(1);
        sock = 3;
    }
    if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
        for (int fd = 4; fd < 1024; fd++)   /* kernels before 5.9 */
            close(fd);
    return sock;
}

static bool g_wait_for_gdb;

/* The memory areas R14, RDI, RSI, RBP and RSP point into: mapped by the
 * parent once, private and zero-filled on demand; the measuring process
 * gives them back (MADV_DONTNEED) after every run, so each run starts from
 * all-zero areas and takes its first-touch page faults in the warm-up runs.
 * (They were populated up front: that cost a single run ~3 ms for 5 MB and
 * spared the child only its read faults, since every write to an inherited
 * page faults to copy it anyway.) */
static struct {
    uint8_t *r14, *rdi, *rsi, *rbp, *rsp;
    size_t r14_size;
} g_areas;

static int areas_map(size_t r14_size, char *err, size_t errlen)
{
    if (g_areas.r14 && g_areas.r14_size == r14_size && g_areas.rdi)
        return 0;
    unmap_guarded(g_areas.r14, g_areas.r14_size);
    g_areas.r14 = map_guarded(r14_size);
    g_areas.r14_size = g_areas.r14 ? r14_size : 0;
    uint8_t **small[4] = {&g_areas.rdi, &g_areas.rsi, &g_areas.rbp, &g_areas.rsp};
    bool ok = g_areas.r14 != NULL;
    for (int i = 0; i < 4; i++) {
        if (!*small[i])
            *small[i] = map_guarded(AREA_SIZE);
        ok &= *small[i] != NULL;
    }
    if (!ok) {
        snprintf(err, errlen, "cannot map the memory areas (R14's: -r14_size %zu bytes, "
                 "others 1 MB each)", r14_size);
        return NB_ENOMEM;
    }
    return 0;
}

/* -debug under gdb: let gdb attach (Yama may require the permission), and
 * wait until it has, at most 30 s. */
static void wait_for_tracer(void)
{
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    for (int i = 0; i < 3000; i++) {
        char buf[4096];
        FILE *f = fopen("/proc/self/status", "r");
        long tracer = 0;
        if (f) {
            while (fgets(buf, sizeof buf, f))
                if (sscanf(buf, "TracerPid: %ld", &tracer) == 1)
                    break;
            fclose(f);
        }
        if (tracer > 0)
            return;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
}

/* gdb on PATH, if stdin is a terminal to run it on; else NULL. */
static const char *find_gdb(char *buf, size_t len)
{
    const char *path = getenv("PATH");
    if (!isatty(0) || !path)
        return NULL;
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(buf, len, "%.*s/gdb", (int)n, path);
        if (n && access(buf, X_OK) == 0)
            return buf;
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* Start gdb on the child and wait until the user leaves it. */
static void run_gdb(const char *gdb, pid_t child)
{
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)child);
    fprintf(stderr, "nb: -debug: gdb attaches to the measuring process %s; it stops at the int3 "
            "right before the second counter read of every run (try `info all-registers`, "
            "`x/4gx $r14`; `continue` runs on, `quit` leaves gdb and lets the run finish)\n", pid);
    fflush(stderr);
    pid_t g = fork();
    if (g == 0) {
        execl(gdb, "gdb", "-q", "-p", pid, "-ex", "continue", (char *)NULL);
        _exit(127);
    }
    if (g > 0)
        waitpid(g, NULL, 0);
}

/* ---- the measuring process ----
 *
 * One process measures run after run (every event group of a benchmark,
 * every line of a batch) until it faults, times out or is told to end: the
 * parent forks it once, and what set-up it does (pinning, fault handlers,
 * the system-call filter, the calibration programs, the TSC's frequency) is
 * done once.  It was forked before the runs it is given existed, so a run
 * reaches it by value through the shared mapping (worker_job and the code
 * bytes after the header), never as a pointer into the parent's heap.
 * Between runs it puts back what the benchmark code could leave behind: the
 * memory areas are zeroed again (MADV_DONTNEED: fresh zero pages, as a new
 * child would have got), the x87 stack, the AVX upper halves and AMX tiles
 * are reset; the generated harness already restores the GPRs, the flags,
 * MXCSR and the x87 control word. */

/* Child: the code fragments of the current run, in the shared mapping. */
static bench_code g_job_code;

static void child_ready(const worker_job *w, size_t r14_size)
{
    shared_hdr *h = g_hdr;
    note_area("R14", g_areas.r14, r14_size);   /* the parent emptied the record */
    note_area("RDI", g_areas.rdi, AREA_SIZE);
    note_area("RSI", g_areas.rsi, AREA_SIZE);
    note_area("RBP", g_areas.rbp, AREA_SIZE);
    note_area("RSP", g_areas.rsp, AREA_SIZE);
    const uint8_t *b = (const uint8_t *)(h + 1);
    g_job_code = (bench_code){
        .code = b, .code_len = w->len[0],
        .init = b + w->len[0], .init_len = w->len[1],
        .late_init = b + w->len[0] + w->len[1], .late_init_len = w->len[2],
        .one_time_init = b + w->len[0] + w->len[1] + w->len[2], .one_time_init_len = w->len[3],
    };
    g_code = &g_job_code;
}

/* Child: what CPUID says, asked once (CPUID exits to the hypervisor in a
 * VM: microseconds each). */
static struct {
    bool bmi2, avx, amx, avx512;
} g_isa;

static void child_isa(void)
{
    uint32_t r[4];
    g_isa.bmi2 = cpu_has_bmi2();
    cpu_cpuid(1, 0, r);
    g_isa.avx = (r[2] >> 28) & 1;
    cpu_cpuid(0, 0, r);
    if (r[0] >= 7) {
        cpu_cpuid(7, 0, r);
        g_isa.amx = (r[3] >> 24) & 1;
        g_isa.avx512 = g_isa.avx && ((r[1] >> 16) & 1);   /* AVX512F */
    }
}

/* Linux hands out AMX tile state only on request: ask, so that AMX code
 * can be benchmarked where the CPU has it (child_isa() found out). */
static void request_amx(void)
{
#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18
    if (g_isa.amx)
        syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA);
}

/* Put back what one run's benchmark code may have changed (see above). */
static void child_reset(void)
{
    madvise(g_areas.r14, g_areas.r14_size, MADV_DONTNEED);
    uint8_t *small[4] = {g_areas.rdi, g_areas.rsi, g_areas.rbp, g_areas.rsp};
    for (int i = 0; i < 4; i++)
        madvise(small[i], AREA_SIZE, MADV_DONTNEED);
    __asm__ volatile("fninit" ::: "memory");
    if (g_isa.avx)   /* the OS enables AVX state wherever CPUID has AVX on Linux x86-64 */
        __asm__ volatile("vzeroupper" ::: "memory");
    if (g_isa.amx)
        __asm__ volatile(".byte 0xc4, 0xe2, 0x78, 0x49, 0xc0" ::: "memory");   /* tilerelease */
}

/* The calibration state the measuring process keeps from run to run. */
static struct {
    bool built;
    cal_progs cp;
    double tsc_ghz;
} g_cal;

/* Child: the groups a backend opens in the measuring process (perf), kept
 * open for later runs that count the same events with the same settings:
 * a batch opens each event group once, not once per line.  The least
 * recently used is closed when all KEPT_GROUPS are taken. */
#define KEPT_GROUPS 16
static struct kept_group {
    bool used;
    unsigned long last;
    const pmu_backend *backend;
    pmu_config cfg;              /* the numbers; its pointers are not compared */
    nb_event events[CODEGEN_MAX_CTR];
    size_t n_events;
    bool with_clock;
    pmu_group grp;
} g_kept[KEPT_GROUPS];
static unsigned long g_kept_clock;

static bool same_group(const struct kept_group *k, const worker_job *w)
{
    return k->used && k->backend == w->backend && k->n_events == w->n_events &&
           k->with_clock == w->with_clock && k->cfg.cpu_index == w->cfg.cpu_index &&
           k->cfg.count_usr == w->cfg.count_usr && k->cfg.count_os == w->cfg.count_os &&
           k->cfg.fixed_counters == w->cfg.fixed_counters &&
           memcmp(k->events, w->events, w->n_events * sizeof *w->events) == 0;
}

static const pmu_group *child_group(const worker_job *w)
{
    struct kept_group *k = NULL;
    for (size_t i = 0; i < KEPT_GROUPS && !k; i++)
        if (same_group(&g_kept[i], w))
            k = &g_kept[i];
    if (!k) {
        k = &g_kept[0];
        for (size_t i = 0; i < KEPT_GROUPS && k->used; i++)
            if (!g_kept[i].used || g_kept[i].last < k->last)
                k = &g_kept[i];
        if (k->used)
            k->backend->close(&k->grp);
        memset(k, 0, sizeof *k);
        pmu_config cfg = w->cfg;
        cfg.cpu = &w->cpu;
        cfg.sysfs_root = w->sysfs_root;
        cfg.dev_root = w->dev_root;
        memcpy(k->events, w->events, sizeof k->events);
        pmu_group_plan plan = {.events = k->events, .n_events = w->n_events,
                               .with_clock = w->with_clock};
        int rc = w->backend->open(&cfg, &plan, &k->grp);
        if (rc) {
            char err[512];
            snprintf(err, sizeof err, "%s: %s", w->backend->name, pmu_last_error());
            child_fail(rc, "%s", err);
        }
        if (k->grp.n_ctr > CODEGEN_MAX_CTR)
            child_fail(NB_EUNSUPPORTED, "%s", "too many counters in one group");
        k->used = true;
        k->backend = w->backend;
        k->cfg = w->cfg;
        k->n_events = w->n_events;
        k->with_clock = w->with_clock;
    }
    k->last = ++g_kept_clock;
    return &k->grp;
}

/* One run, as the parent described it in h->job; results into the mapping. */
static void child_run(double *samples)
{
    shared_hdr *h = g_hdr;
    const worker_job *w = &h->job;
    const nb_options *o = &w->o;
    const bench_code *c = &g_job_code;
    char err[512];
    child_ready(w, g_areas.r14_size);

    pmu_group grp;
    if (w->opened) {
        memset(&grp, 0, sizeof grp);
        grp.ctr = h->ctr;
        grp.n_ctr = h->n_ctr;
    } else {
        grp = *child_group(w);
        h->n_ctr = grp.n_ctr;
        memcpy(h->ctr, grp.ctr, grp.n_ctr * sizeof *grp.ctr);
    }

    codegen_read reads[CODEGEN_MAX_CTR];
    bool tsc_cal = false;
    for (size_t i = 0; i < grp.n_ctr; i++) {
        reads[i].kind = grp.ctr[i].read;
        reads[i].ecx = grp.ctr[i].rdpmc_ecx;
        tsc_cal |= grp.ctr[i].tsc_cycles;
    }

    codegen_params p = {
        .code = c->code, .code_len = c->code_len,
        .init = c->init, .init_len = c->init_len,
        .late_init = c->late_init, .late_init_len = c->late_init_len,
        .loop_count = o->loop_count, .alignment_offset = o->alignment_offset,
        .no_mem = o->no_mem, .df = o->df, .debug = o->debug, .bmi2 = g_isa.bmi2,
        .avx = g_isa.avx, .avx512 = g_isa.avx512,
        .reads = reads, .n_reads = grp.n_ctr,
        .r14 = (uintptr_t)g_areas.r14,   /* the start: [R14+addr], addr < -r14_size */
        .rdi = (uintptr_t)(g_areas.rdi + AREA_SIZE / 2),
        .rsi = (uintptr_t)(g_areas.rsi + AREA_SIZE / 2),
        .rbp = (uintptr_t)(g_areas.rbp + AREA_SIZE / 2),
        .rsp = (uintptr_t)(g_areas.rsp + AREA_SIZE / 2),
    };
    codegen_prog first, second, once = {0};
    int rc;
    if (c->one_time_init_len) {
        codegen_params q = p;
        q.code = NULL; q.code_len = 0; q.copies = 0; q.loop_count = 0;
        q.init = c->one_time_init; q.init_len = c->one_time_init_len;
        q.late_init = NULL; q.late_init_len = 0;
        q.n_reads = 0; q.df = false; q.debug = false;
        if ((rc = codegen_build(&q, &once, err, sizeof err)))
            child_fail(rc, "%s", err);
    }
    p.copies = (size_t)w->copies[0];
    if ((rc = codegen_build(&p, &first, err, sizeof err)))
        child_fail(rc, "%s", err);
    p.copies = (size_t)w->copies[1];
    if ((rc = codegen_build(&p, &second, err, sizeof err)))
        child_fail(rc, "%s", err);

    bool settle = false;
    if (tsc_cal && !g_cal.built) {
        if ((rc = cal_build(&g_cal.cp, err, sizeof err)))
            child_fail(rc, "%s", err);
        g_cal.built = true;
        g_cal.tsc_ghz = g_hot_tsc_ghz > 0 ? g_hot_tsc_ghz : spin_tsc_ghz();
        settle = g_hot_tsc_ghz <= 0;
    }
    if (tsc_cal) {
        h->imul_latency = g_cal.cp.n > 1 ? g_cal.cp.ch[1].latency : 0;
        h->tsc_ghz = g_cal.tsc_ghz;
    }
    if (once.base)
        run_prog(&once, PROG_ONE_TIME);
    for (long i = 0; i < o->initial_warm_up_count; i++)
        run_prog(&first, PROG_FIRST);

    long n = o->n_measurements;
    size_t per_run = CODEGEN_MAX_CTR * (size_t)n;
    double *ratio = samples + 2 * per_run;   /* [i], shared by both runs */
    double *add_ratio = ratio + 2 * n;       /* the ADD chain's alone */
    if (settle) {
        /* a few calibration points before the first kept sample */
        double warm[CAL_POINTS];
        cal_points(&g_cal.cp, warm, CAL_POINTS);
    }
    const cal_progs *cpp = tsc_cal ? &g_cal.cp : NULL;
    /* the executions of the code the two programs differ by: a TSC step's
     * share of the result per run (see INNER_EXEC) */
    double execs = ((double)second.n_copies - (double)first.n_copies) *
                   (double)(o->loop_count > 0 ? o->loop_count : 1);
    double enough = execs >= 1 ? INNER_EXEC / execs : INNER_MAX;
    run_state rs[2] = {
        {.p = &first, .samples = samples, .ratio = ratio, .add_ratio = add_ratio, .enough = enough},
        {.p = &second, .samples = samples + per_run, .enough = enough},
    };
    size_t n_add;
    size_t n_cal = measure(rs, o->warm_up_count, n, cpp, grp.n_ctr, grp.ctr, h->overflow, &n_add);
    if (tsc_cal) {
        h->n_cal = n_cal;
        h->cal_run[0] = h->cal_run[1] = stats_median(ratio, n_cal);
        h->alu_slowdown = n_add ? stats_median(add_ratio, n_add) / h->cal_run[0] - 1 : 0;
        for (int r = 0; r < 2; r++)
            for (size_t k = 0; k < grp.n_ctr; k++)
                if (grp.ctr[k].tsc_cycles)
                    for (long i = 0; i < n; i++)
                        samples[(size_t)r * per_run + k * (size_t)n + (size_t)i] /= h->cal_run[r];
    }
    codegen_free(&first);
    codegen_free(&second);
    if (once.base)
        codegen_free(&once);
    child_reset();
    h->done = 1;
}

/* The measuring process: set up once, then one run per byte received on
 * `sock`, one byte sent back after each; ends when the parent closes it. */
static _Noreturn void child_main(int sock, int cpu, bool debug, pid_t parent)
{
    shared_hdr *h = g_hdr;
    char err[512];
    sock = child_isolate(parent, sock);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        child_fail(NB_ESYSTEM, "cannot pin to CPU %s (sched_setaffinity failed)",
                   (snprintf(err, sizeof err, "%d", cpu), err));
    if (install_handlers(debug) != 0)
        child_fail(NB_ESYSTEM, "%s", "cannot install the fault handlers");
    child_isa();
    if (g_wait_for_gdb) {
        wait_for_tracer();
        g_debug_shown = true;   /* gdb showed them; later traps just go on */
    }
    request_amx();
    /* Last: from here on a system call from anywhere but nb's own code traps. */
    if (sandbox_trap_syscalls(err, sizeof err) != 0)
        snprintf(h->sandbox_note, sizeof h->sandbox_note, "%s", err);
    double *samples = hdr_samples(h);
    for (;;) {
        char b;
        ssize_t got = recv(sock, &b, 1, 0);
        if (got == 0)
            _exit(0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            _exit(1);
        }
        child_run(samples);
        if (send(sock, &b, 1, MSG_NOSIGNAL) != 1)
            _exit(1);
    }
}

/* ---- parent ---- */

/* The fragments as fault.c names them: after the option they came from. */
static void fault_context_of(const runner_job *job, fault_context *fc)
{
    const nb_options *o = job->o;
    const bench_code *c = job->c;
    memset(fc, 0, sizeof *fc);
    fc->code = (fault_fragment){o->code && !o->asm_code ? "-code" : "-asm", c->code, c->code_len};
    fc->init = (fault_fragment){o->code_init && !o->asm_init ? "-code_init" : "-asm_init",
                                c->init, c->init_len};
    fc->late_init = (fault_fragment){o->code_late_init && !o->asm_late_init ? "-code_late_init"
                                                                           : "-asm_late_init",
                                     c->late_init, c->late_init_len};
    fc->one_time_init = (fault_fragment){o->code_one_time_init && !o->asm_one_time_init
                                             ? "-code_one_time_init" : "-asm_one_time_init",
                                         c->one_time_init, c->one_time_init_len};
    fc->timeout = o->timeout;
}

/* Wait at most limit_ns (0: no limit) for the child to end: 1 when it did
 * (*st), 0 on timeout, -1 on error.  A pidfd wakes the parent the moment the
 * child exits; kernels without pidfd_open (before 5.3) fall back to polling
 * with growing sleeps. */
static int wait_child(pid_t pid, int *st, double limit_ns)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    double t0 = now_ns();
    long sleep_ns = 20000;
    int rc;
    for (;;) {
        pid_t w = waitpid(pid, st, WNOHANG);
        if (w == pid) {
            rc = 1;
            break;
        }
        if (w < 0 && errno != EINTR) {
            rc = -1;
            break;
        }
        double left = limit_ns > 0 ? limit_ns - (now_ns() - t0) : 1e9;
        if (left <= 0) {
            rc = 0;
            break;
        }
        if (pfd >= 0) {
            struct pollfd p = {.fd = pfd, .events = POLLIN};
            poll(&p, 1, left > 1e9 ? 1000 : (int)(left / 1e6) + 1);
        } else {
            struct timespec ts = {0, sleep_ns};
            nanosleep(&ts, NULL);
            if (sleep_ns < 2000000)
                sleep_ns *= 2;
        }
    }
    if (pfd >= 0)
        close(pfd);
    return rc;
}

/* Parent: the measuring process and what it was started with (a run that
 * needs another CPU, other memory areas, a bigger mapping or -debug gets a
 * new one). */
static struct {
    pid_t pid;
    int sock;                /* the parent's end of the socket pair */
    shared_hdr *h;
    size_t map_len, code_cap;
    long n_cap;
    int cpu;
    size_t r14_size;
    bool debug;
} g_worker = {.sock = -1};

/* Registered with restore.h while a measuring process lives: a
 * SIGINT/SIGTERM/SIGHUP of nb kills and reaps it before nb dies
 * (async-signal-safe). */
static void kill_child(void)
{
    pid_t c = g_child;
    if (c > 0) {
        kill(c, SIGKILL);
        while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
            ;
        g_child = 0;
    }
}

/* After the measuring process has ended and been reaped. */
static void worker_forget(void)
{
    g_child = 0;
    restore_forget_fn(kill_child);
    if (g_worker.sock >= 0)
        close(g_worker.sock);
    if (g_worker.h)
        munmap(g_worker.h, g_worker.map_len);
    g_worker.pid = 0;
    g_worker.sock = -1;
    g_worker.h = NULL;
    g_hdr = NULL;
    g_last_end_ns = now_ns();
}

/* Wait up to the grace time for the measuring process to end, then kill
 * it; reaped either way, its status in *st. */
static void reap_worker(int *st)
{
    if (wait_child(g_worker.pid, st, STOP_GRACE_NS) != 1) {
        kill(g_worker.pid, SIGKILL);
        while (waitpid(g_worker.pid, st, 0) < 0 && errno == EINTR)
            ;
    }
}

void runner_stop(void)
{
    if (!g_worker.pid)
        return;
    /* Closing the socket tells it to end; it is killed if it does not. */
    close(g_worker.sock);
    g_worker.sock = -1;
    int st;
    reap_worker(&st);
    worker_forget();
}

static size_t round_up_pow2(size_t v, size_t min)
{
    size_t r = min;
    while (r < v)
        r *= 2;
    return r;
}

/* A measuring process fit for this job: the running one, or a new one. */
static int worker_for(const runner_job *job, size_t code_len, char *err, size_t errlen)
{
    const nb_options *o = job->o;
    long n = o->n_measurements;
    if (g_worker.pid && g_worker.cpu == job->cpu && g_worker.r14_size == (size_t)o->r14_size &&
        !o->debug && !g_worker.debug && n <= g_worker.n_cap && code_len <= g_worker.code_cap)
        return 0;
    runner_stop();
    int arc = areas_map((size_t)o->r14_size, err, errlen);
    if (arc)
        return arc;
    size_t code_cap = round_up_pow2(code_len, 64u << 10);
    long n_cap = n > 64 ? n : 64;
    size_t per_run = CODEGEN_MAX_CTR * (size_t)n_cap;
    size_t map_len = sizeof(shared_hdr) + code_cap + (2 * per_run + 4 * (size_t)n_cap) * sizeof(double);
    void *m = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        snprintf(err, errlen, "cannot map %zu bytes for the results", map_len);
        return NB_ENOMEM;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(err, errlen, "socketpair: %s", strerror(errno));
        munmap(m, map_len);
        return NB_ESYSTEM;
    }
    shared_hdr *h = m;
    h->code_cap = code_cap;
    char gdb_buf[512];
    const char *gdb = o->debug ? find_gdb(gdb_buf, sizeof gdb_buf) : NULL;
    g_wait_for_gdb = gdb != NULL;
    bool hot = g_last_tsc_ghz > 0 && now_ns() - g_last_end_ns < HOT_NS;
    g_hot_tsc_ghz = hot ? g_last_tsc_ghz : 0;
    g_hot_imul_lat = hot ? g_last_imul_lat : 0;
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        munmap(m, map_len);
        return NB_ESYSTEM;
    }
    if (pid == 0) {
        close(sv[0]);
        g_hdr = h;
        child_main(sv[1], job->cpu, o->debug, parent);
    }
    close(sv[1]);
    g_child = pid;
    restore_push_fn(kill_child);   /* a SIGINT/SIGTERM/SIGHUP of nb also ends the child */
    g_worker.pid = pid;
    g_worker.sock = sv[0];
    g_worker.h = h;
    g_worker.map_len = map_len;
    g_worker.code_cap = code_cap;
    g_worker.n_cap = n_cap;
    g_worker.cpu = job->cpu;
    g_worker.r14_size = (size_t)o->r14_size;
    g_worker.debug = o->debug;
    if (gdb)
        run_gdb(gdb, pid);
    return 0;
}

/* The job, by value, into the mapping (see worker_job). */
static void worker_post(const runner_job *job)
{
    shared_hdr *h = g_worker.h;
    const bench_code *c = job->c;
    worker_job *w = &h->job;
    memset(&h->fault, 0, sizeof h->fault);
    h->done = 0;
    h->status = 0;
    h->msg[0] = 0;
    h->n_cal = 0;
    memset(h->overflow, 0, sizeof h->overflow);
    w->o = *job->o;
    w->backend = job->backend;
    w->cfg = *job->cfg;
    w->cpu = job->cfg->cpu ? *job->cfg->cpu : (cpu_info){0};
    snprintf(w->sysfs_root, sizeof w->sysfs_root, "%s", job->cfg->sysfs_root ? job->cfg->sysfs_root : "");
    snprintf(w->dev_root, sizeof w->dev_root, "%s", job->cfg->dev_root ? job->cfg->dev_root : "");
    w->cfg.cpu = NULL;
    w->cfg.sysfs_root = NULL;
    w->cfg.dev_root = NULL;
    w->opened = job->opened != NULL;
    if (job->opened) {
        h->n_ctr = job->opened->n_ctr;
        memcpy(h->ctr, job->opened->ctr, job->opened->n_ctr * sizeof *h->ctr);
        w->n_events = 0;
    } else {
        h->n_ctr = 0;
        w->n_events = job->plan->n_events < CODEGEN_MAX_CTR ? job->plan->n_events : CODEGEN_MAX_CTR;
        memcpy(w->events, job->plan->events, w->n_events * sizeof *w->events);
        w->with_clock = job->plan->with_clock;
    }
    w->copies[0] = job->copies[0];
    w->copies[1] = job->copies[1];
    const uint8_t *part[4] = {c->code, c->init, c->late_init, c->one_time_init};
    size_t len[4] = {c->code_len, c->init_len, c->late_init_len, c->one_time_init_len};
    uint8_t *dst = (uint8_t *)(h + 1);
    for (int i = 0; i < 4; i++) {
        w->len[i] = part[i] ? len[i] : 0;
        if (w->len[i])
            memcpy(dst, part[i], w->len[i]);
        dst += w->len[i];
    }
}

/* Wait at most limit_ns (0: none) for the run's answer: 1 done, 0 timeout,
 * -1 the process ended (or the socket failed). */
static int worker_wait(double limit_ns)
{
    double t0 = now_ns();
    for (;;) {
        double left = limit_ns > 0 ? limit_ns - (now_ns() - t0) : 1e9;
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = g_worker.sock, .events = POLLIN};
        int r = poll(&p, 1, left > 1e9 ? 1000 : (int)(left / 1e6) + 1);
        if (r < 0 && errno != EINTR)
            return -1;
        if (r > 0) {
            char b;
            ssize_t got = recv(g_worker.sock, &b, 1, 0);
            if (got == 1)
                return 1;
            if (got == 0 || errno != EINTR)
                return -1;
        }
    }
}

int runner_run(const runner_job *job, runner_output *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    long n = job->o->n_measurements;
    size_t per_run = CODEGEN_MAX_CTR * (size_t)n;
    const bench_code *c = job->c;
    size_t code_len = c->code_len + c->init_len + c->late_init_len + c->one_time_init_len;
    int wrc = worker_for(job, code_len, err, errlen);
    if (wrc)
        return wrc;
    shared_hdr *h = g_worker.h;
    worker_post(job);
    char b = 1;
    int w;
    if (send(g_worker.sock, &b, 1, MSG_NOSIGNAL) != 1)
        w = -1;
    else   /* no timeout while a person debugs */
        w = worker_wait(job->o->debug ? 0 : job->o->timeout * 1e9);

    int st = 0, rc = 0;
    bool stopped = false, ended = w != 1;
    if (w == 0) {
        /* Ask the child to note where it is and exit; kill it if it does
         * not within the grace time. */
        stopped = true;
        kill(g_worker.pid, STOP_SIGNAL);
    }
    if (ended)   /* stopped, or it ended: a fault, a failure, or killed */
        reap_worker(&st);
    /* The benchmark could write anywhere in the child, this mapping too:
     * take nothing from it on trust. */
    h->msg[sizeof h->msg - 1] = 0;
    h->sandbox_note[sizeof h->sandbox_note - 1] = 0;
    if (h->fault.n_insn > sizeof h->fault.insn)
        h->fault.n_insn = sizeof h->fault.insn;
    if (h->n_ctr > CODEGEN_MAX_CTR)
        h->n_ctr = CODEGEN_MAX_CTR;
    if (h->n_cal > 2 * (size_t)n)
        h->n_cal = 2 * (size_t)n;

    if (h->sandbox_note[0] && !g_sandbox_noted) {
        fprintf(stderr, "nb: note: system calls of the benchmark code are not trapped: %s\n",
                h->sandbox_note);
        g_sandbox_noted = true;
    }
    fault_context fc;
    fault_context_of(job, &fc);
    char sn[32];
    if (h->fault.signo) {
        fault_describe(&h->fault, &fc, err, errlen);
        rc = NB_EFAULT;
    } else if (stopped) {
        snprintf(err, errlen, "the benchmark code did not finish within %g s (-timeout); "
                 "it was stopped", job->o->timeout);
        rc = NB_EFAULT;
    } else if (ended && WIFSIGNALED(st)) {
        snprintf(err, errlen, "the measuring process died of %s (signal %d)",
                 fault_signal_name(WTERMSIG(st), sn, sizeof sn), WTERMSIG(st));
        rc = NB_EFAULT;
    } else if (!h->done && h->status) {
        snprintf(err, errlen, "%s", h->msg[0] ? h->msg : "the measuring process failed");
        rc = h->status;
    } else if (!h->done) {
        /* Ended without a word: only an exit system call does that
         * (where seccomp could not trap it). */
        snprintf(err, errlen, "the measuring process ended (exit status %d) before the "
                 "measurement was done: the benchmark code probably made an exit system call",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        rc = NB_EFAULT;
    }
    if (rc == 0) {
        double *samples = hdr_samples(h);
        out->n_ctr = h->n_ctr;
        out->ctr = calloc(h->n_ctr ? h->n_ctr : 1, sizeof *out->ctr);
        out->overflow = calloc(h->n_ctr ? h->n_ctr : 1, sizeof *out->overflow);
        out->cal = calloc(2 * (size_t)n, sizeof *out->cal);
        for (int r = 0; r < 2; r++)
            out->samples[r] = calloc(h->n_ctr * (size_t)n + 1, sizeof(double));
        if (!out->ctr || !out->overflow || !out->cal || !out->samples[0] || !out->samples[1]) {
            runner_output_free(out);
            rc = NB_ENOMEM;
        } else {
            memcpy(out->ctr, h->ctr, h->n_ctr * sizeof *out->ctr);
            memcpy(out->overflow, h->overflow, h->n_ctr * sizeof *out->overflow);
            for (int r = 0; r < 2; r++)
                memcpy(out->samples[r], samples + (size_t)r * per_run,
                       h->n_ctr * (size_t)n * sizeof(double));
            out->n_cal = h->n_cal;
            memcpy(out->cal, samples + 2 * per_run, h->n_cal * sizeof *out->cal);
            out->cal_run[0] = h->cal_run[0];
            out->cal_run[1] = h->cal_run[1];
            out->tsc_ghz = h->tsc_ghz;
            if (h->n_cal) {
                g_last_tsc_ghz = h->tsc_ghz;
                g_last_imul_lat = h->imul_latency;
                g_last_end_ns = now_ns();
            }
            out->alu_slowdown = h->alu_slowdown;
        }
    }
    if (ended)
        worker_forget();
    else if (job->o->debug)
        runner_stop();   /* -debug: a process of its own per run, as gdb saw it */
    return rc;
}

void runner_output_free(runner_output *out)
{
    free(out->ctr);
    free(out->overflow);
    free(out->cal);
    free(out->samples[0]);
    free(out->samples[1]);
    memset(out, 0, sizeof *out);
}
