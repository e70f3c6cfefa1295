/* nb child: the measuring process (see worker_shared.h).
 *
 * Forked once by worker.c and kept between runs: pinned to its CPU, isolated
 * (child_isolate), it maps the memory areas, then runs one measurement per
 * byte the parent sends and answers with one byte; results, samples and any
 * fault go into the shared mapping.  The globals the child's signal
 * handlers read (g_hdr, g_cur, ...) are defined here. */

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
#include "events/evdb.h"
#include "harness/codegen.h"
#include "sys/cpu.h"
#include "measure/fault.h"
#include "measure/place.h"
#include "pmu/advice.h"
#include "sys/restore.h"
#include "measure/worker.h"
#include "measure/sandbox.h"
#include "measure/stats.h"
#include "measure/step.h"
#include "sys/status.h"
#include "lib/clock.h"
#include "measure/worker_shared.h"
#include "sys/fileio.h"

shared_hdr *g_hdr;
const codegen_prog *g_cur;
int g_cur_kind;
const bench_code *g_code;
bool g_debug_shown;
bool g_code_ran;
/* Child: how it was started (child_main's argument), its socket to the
 * parent, and whether it is sealed (sandbox.h: no capability, no system
 * call but the filter's few; from before the first generated code runs). */
static child_start g_start;
static int g_sock = -1;
static bool g_sealed;
static bool g_got_run;   /* the first run's byte has come */

_Noreturn void child_end(void)
{
    char b = 0;
    sendto(g_sock, &b, 1, MSG_NOSIGNAL, NULL, 0);
    for (;;) {
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
    }
}

/* The run cannot go on: the error to the parent (worker_run).  One that
 * happens while the process sets itself up waits for the first run's byte:
 * the parent clears the record when it posts that run. */
static _Noreturn void child_fail(const nb_error *e)
{
    char b;
    while (!g_got_run && recv(g_sock, &b, 1, 0) < 0 && errno == EINTR)
        ;
    g_hdr->status = e->status ? e->status : NB_ESYSTEM;
    g_hdr->err = *e;
    child_end();
}

/* A sealed process cannot open counters or a device: the run needs a fresh
 * measuring process, which the parent starts and posts the run to again. */
static _Noreturn void child_need_fresh(void)
{
    g_hdr->need_fresh = 1;
    child_end();
}

/* ---- the FS and GS bases ----
 *
 * With FSGSBASE enabled in CR4, user code can set both bases (wrfsbase,
 * wrgsbase) and they stay set: FS is the base nb's own thread-local data
 * sits on, and GS would be the next run's and the next batch line's. Both
 * are put back after every program; where the instructions fault (CR4 bit
 * clear) the benchmark cannot change them either, and nothing is done. */
static struct {
    bool usable;
    uint64_t fs, gs;
} g_bases;

static volatile sig_atomic_t g_bases_probe_faulted;

static void on_bases_probe(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP] += 5;   /* past the rdfsbase */
    g_bases_probe_faulted = 1;
}

/* Whether rdfsbase works, and the bases now (before any handler of nb's). */
static void bases_probe(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bases_probe;
    sa.sa_flags = SA_SIGINFO;
    if (sigaction(SIGILL, &sa, &old) != 0)
        return;
    uint64_t fs = 0, gs = 0;
    g_bases_probe_faulted = 0;
    __asm__ volatile(".byte 0xf3, 0x48, 0x0f, 0xae, 0xc0" : "+a"(fs) :: "memory");   /* rdfsbase rax */
    sigaction(SIGILL, &old, NULL);
    if (g_bases_probe_faulted)
        return;
    __asm__ volatile(".byte 0xf3, 0x48, 0x0f, 0xae, 0xc8" : "+a"(gs) :: "memory");   /* rdgsbase rax */
    g_bases.fs = fs;
    g_bases.gs = gs;
    g_bases.usable = true;
}

void child_restore_bases(void)
{
    if (!g_bases.usable)
        return;
    uint64_t fs = g_bases.fs, gs = g_bases.gs;
    __asm__ volatile(".byte 0xf3, 0x48, 0x0f, 0xae, 0xd0" :: "a"(fs) : "memory");    /* wrfsbase rax */
    __asm__ volatile(".byte 0xf3, 0x48, 0x0f, 0xae, 0xd8" :: "a"(gs) : "memory");    /* wrgsbase rax */
}

/* Child: an address in each page R14, RDI, RSI, RBP and RSP point into
 * (areas_present; 0: none), read after each measured run, so that the
 * next one finds their translations in the data TLB, as after an init
 * that touched them (read right before each run instead, they put 10 of
 * 430 single runs of a DIV x 100 beyond their uncertainty, 6.06-6.11
 * +/- 0.07, against none of 300 read after and none of 430 unread).  A software prefetch that misses the TLB does not
 * fill it: `prefetcht0 [r14]` read 0.98 cycles in half the processes and
 * 0.25 in the others (all 0.98 with ASLR off), 0.25 in every one where
 * -asm_init loaded from that page, 0.98 where it loaded from another (a
 * Zen 5 guest). */
static uintptr_t g_touch[5];

static void touch_pages(void)
{
    for (size_t i = 0; i < sizeof g_touch / sizeof g_touch[0]; i++)
        if (g_touch[i])
            (void)*(volatile const uint8_t *)g_touch[i];
}

void run_prog(const codegen_prog *p, int kind)
{
    g_cur = p;
    g_cur_kind = kind;
    g_code_ran |= kind == PROG_MEASURE || kind == PROG_ONE_TIME;
    codegen_call(p);
    child_restore_bases();
    if (kind == PROG_MEASURE)
        touch_pages();
    g_cur = NULL;
    g_cur_kind = PROG_NONE;
}

/* The counters of the current group read outside the code (MSR events):
 * the backend, its settings and the open group; g NULL when there are none. */
static struct {
    const pmu_backend *be;
    pmu_config cfg;
    pmu_group *g;
} g_outside;

static void read_outside(uint64_t *v)
{
    nb_error err;
    for (size_t k = 0; k < g_outside.g->n_ctr; k++) {
        if (g_outside.g->ctr[k].read != PMU_READ_OUTSIDE)
            continue;
        if (g_outside.be->read_outside(&g_outside.cfg, g_outside.g, k, &v[k], &err))
            child_fail(&err);
    }
}

/* Child: the backend and device root whose MSR device the process opened
 * before it was sealed; a sealed process reads no other. */
static struct {
    const pmu_backend *be;
    char dev_root[256];
} g_outside_ready;

/* Before the seal, one read of every counter read outside the code opens
 * what the backend reads them through; after it, the run needs what was
 * opened then. */
static void outside_prepare(const worker_job *w)
{
    if (g_sealed) {
        if (g_outside_ready.be != w->backend || strcmp(g_outside_ready.dev_root, w->dev_root) != 0)
            child_need_fresh();
        return;
    }
    uint64_t v[CODEGEN_MAX_CTR];
    read_outside(v);
    g_outside_ready.be = w->backend;
    snprintf(g_outside_ready.dev_root, sizeof g_outside_ready.dev_root, "%s", w->dev_root);
}

/* Seal the process (sandbox.h) before the first generated code runs in it:
 * a filter that cannot be had is a note; a capability that cannot be
 * dropped ends the run before any code runs. */
static void child_seal(void)
{
    if (g_sealed)
        return;
    nb_error err;
    nb_error_clear(&err);
    int rc = sandbox_seal(g_sock, getpid(), &err);
    if (rc == NB_EUNSUPPORTED)
        snprintf(g_hdr->sandbox_note, sizeof g_hdr->sandbox_note, "%.*s",
                 (int)sizeof g_hdr->sandbox_note - 1, err.message);
    else if (rc)
        child_fail(&err);
    g_sealed = true;
}

/* The tsc method's hook: the same, the kind said for fault reports; the
 * counters the code cannot read are read right before and after it, into
 * the slots the code leaves alone. */
static void run_measured(const codegen_prog *p, bool calibration)
{
    if (calibration || !g_outside.g) {
        run_prog(p, calibration ? PROG_CAL : PROG_MEASURE);
        return;
    }
    uint64_t before[CODEGEN_MAX_CTR], after[CODEGEN_MAX_CTR];
    read_outside(before);
    run_prog(p, PROG_MEASURE);
    read_outside(after);
    for (size_t k = 0; k < g_outside.g->n_ctr; k++)
        if (g_outside.g->ctr[k].read == PMU_READ_OUTSIDE) {
            p->data->m1[k] = before[k];
            p->data->m2[k] = after[k];
        }
}

/* An area with GUARD_SIZE of no-access pages on both sides, or NULL. */
static uint8_t *area_map(size_t size)
{
    return map_guarded(size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
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
 * Ctrl-C reaches both), nb's output out of the benchmark's reach (its
 * stdin, stdout and stderr are /dev/null: what it has to say goes through
 * the shared mapping), and no descriptor of nb's but the socket to the
 * parent: a file nb reads (a batch file, or stdin) shares its offset with
 * the child, and whatever moved it there (valgrind's libc clean-up at the
 * child's exit did: a batch read its lines twice) would move nb's.
 * Returns the socket's new number. */
static int child_isolate(pid_t parent, int sock)
{
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != parent)
        _exit(1);   /* nb died before the line above */
    restore_child_signals();
    int null_in = open("/dev/null", O_RDONLY), null_out = open("/dev/null", O_WRONLY);
    if (null_in >= 0)
        dup2(null_in, STDIN_FILENO);
    if (null_in < 0 || null_out < 0 || dup2(null_out, STDOUT_FILENO) < 0 ||
        dup2(null_out, STDERR_FILENO) < 0)
        return -1;
    /* the socket becomes fd 3 */
    if (sock != 3) {
        if (dup2(sock, 3) != 3)
            return -1;
        sock = 3;
    }
    if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
        for (int fd = 4; fd < 1024; fd++)   /* kernels before 5.9 */
            close(fd);
    return sock;
}

/* The memory areas R14, RDI, RSI, RBP and RSP point into: mapped by the
 * parent once, private and zero-filled on demand; the measuring process
 * gives them back (MADV_DONTNEED) after every run, so each run starts from
 * all-zero areas and takes its first-touch page faults in the warm-up runs,
 * but for the pages around where the registers point (areas_present),
 * which it keeps and zeroes.  (They were populated up front: that cost a
 * single run ~3 ms for 5 MB and spared the child only its read faults,
 * since every write to an inherited page faults to copy it anyway.) */
enum { AREA_R14, AREA_RDI, AREA_RSI, AREA_RBP, AREA_RSP, N_AREAS };
static const char *const area_name[N_AREAS] = {"R14", "RDI", "RSI", "RBP", "RSP"};
_Static_assert(sizeof g_touch / sizeof g_touch[0] == N_AREAS, "a page to touch per area");
static struct {
    uint8_t *base[N_AREAS];
    size_t size[N_AREAS];
    uintptr_t kept[N_AREAS][2];   /* the child's pages kept mapped: [from, to) */
} g_areas;

int areas_map(size_t r14_size, nb_error *err)
{
    bool ok = true;
    if (!g_areas.base[AREA_R14] || g_areas.size[AREA_R14] != r14_size) {
        unmap_guarded(g_areas.base[AREA_R14], g_areas.size[AREA_R14]);
        g_areas.base[AREA_R14] = area_map(r14_size);
        g_areas.size[AREA_R14] = g_areas.base[AREA_R14] ? r14_size : 0;
        g_areas.kept[AREA_R14][0] = g_areas.kept[AREA_R14][1] = 0;
    }
    for (int i = 0; i < N_AREAS; i++) {
        if (!g_areas.base[i]) {
            g_areas.base[i] = area_map(AREA_SIZE);
            g_areas.size[i] = g_areas.base[i] ? AREA_SIZE : 0;
        }
        ok &= g_areas.base[i] != NULL;
    }
    if (!ok)
        return nb_error_set(err, NB_ENOMEM, "cannot map the memory areas (R14's: -r14_size %zu "
                            "bytes, others 1 MB each)", r14_size);
    return 0;
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

static void child_ready(const worker_job *w)
{
    shared_hdr *h = g_hdr;
    for (int i = 0; i < N_AREAS; i++)   /* the parent emptied the record */
        note_area(area_name[i], g_areas.base[i], g_areas.size[i]);
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
    double fe_floor;   /* tsc_frontend_floor of this core */
    double port_floor[TSC_PORTS];   /* tsc_port_floor's */
} g_isa;

static void child_isa(void)
{
    cpu_info ci;
    cpu_detect(&ci);
    g_isa.bmi2 = ci.has_bmi2;
    g_isa.avx = ci.has_avx;
    g_isa.amx = ci.has_amx_tile;
    g_isa.avx512 = ci.has_avx && ci.has_avx512f;
    g_isa.fe_floor = tsc_frontend_floor(evdb_uarch_for_cpu(&ci));
    for (int k = 0; k < TSC_PORTS; k++)
        g_isa.port_floor[k] = tsc_port_floor(evdb_uarch_for_cpu(&ci), k);
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
    for (int i = 0; i < N_AREAS; i++) {
        uintptr_t lo = (uintptr_t)g_areas.base[i], hi = lo + g_areas.size[i];
        uintptr_t from = g_areas.kept[i][0], to = g_areas.kept[i][1];
        /* kept pages, within [lo, hi), are zeroed (code that unmapped them
         * could have unmapped the measuring process's own code as well) */
        if (from < to) {
            madvise((void *)lo, from - lo, MADV_DONTNEED);
            memset((void *)from, 0, to - from);
            madvise((void *)to, hi - to, MADV_DONTNEED);
        } else {
            madvise((void *)lo, hi - lo, MADV_DONTNEED);
        }
    }
    __asm__ volatile("fninit" ::: "memory");
    if (g_isa.avx)   /* the OS enables AVX state wherever CPUID has AVX on Linux x86-64 */
        __asm__ volatile("vzeroupper" ::: "memory");
    if (g_isa.amx)
        __asm__ volatile(".byte 0xc4, 0xe2, 0x78, 0x49, 0xc0" ::: "memory");   /* tilerelease */
}

/* Child: the pages around where R14, RDI, RSI, RBP and RSP point (the one
 * before, the one at, the one after), present and writable before a run's
 * code, as nanoBench's kernel module's areas always are.  A load or store
 * takes its page fault in the warm-ups anyway; a prefetch takes none and
 * never maps its page, so it paid a page walk that found nothing on every
 * run, and what that cost moved from one process to the next
 * (`prefetcht0 [r14]` read 1.88-2.41 cycles in twelve processes on a Zen 5
 * guest, 0.24-0.26 with its page present; `prefetchw` read 1.00 on the
 * read-only zero page, 0.25 on a writable one).  Not the whole areas: 5 MB
 * of pages cost ~0.7 ms a run.  child_reset zeroes these pages rather than
 * give them back (mapping them again cost ~25 us a benchmark, 6 % of a
 * batch's time). */
static void areas_present(const codegen_params *p)
{
    uintptr_t at[N_AREAS] = {p->r14, p->rdi, p->rsi, p->rbp, p->rsp};
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t pg = page > 0 ? (uintptr_t)page : 4096;
    for (int i = 0; i < N_AREAS; i++) {
        if (!g_areas.base[i])
            continue;
        uintptr_t lo = (uintptr_t)g_areas.base[i], hi = lo + g_areas.size[i], mine = at[i] & ~(pg - 1);
        uintptr_t from = mine >= lo + pg ? mine - pg : lo, to = mine + 2 * pg < hi ? mine + 2 * pg : hi;
        g_touch[i] = mine >= lo && mine < hi ? mine : 0;
        if (from >= to || (g_areas.kept[i][0] == from && g_areas.kept[i][1] == to))
            continue;   /* kept from the run before: mapped, zeroed by child_reset */
        if (g_areas.kept[i][0] < g_areas.kept[i][1])   /* kept before, not now */
            madvise((void *)g_areas.kept[i][0], g_areas.kept[i][1] - g_areas.kept[i][0],
                    MADV_DONTNEED);
        g_areas.kept[i][0] = from;
        g_areas.kept[i][1] = to;
        /* MADV_POPULATE_WRITE (Linux 5.14) in one call; before it, a write a
         * page (the areas are all zero: a zero leaves them so) */
        if (madvise((void *)from, to - from, MADV_POPULATE_WRITE) != 0 && errno == EINVAL)
            for (uintptr_t a = from; a < to; a += pg)
                *(volatile uint8_t *)a = 0;
    }
}

/* Child: the pages of the areas present now (mincore): those the code and
 * its init touched since child_reset, and the ones areas_present maps
 * (place.h: PLACE_DATA_PAGES).  0 where mincore fails. */
static size_t areas_resident(void)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t pg = page > 0 ? (size_t)page : 4096, n = 0;
    unsigned char vec[1024];
    for (int i = 0; i < N_AREAS; i++) {
        for (size_t off = 0; g_areas.base[i] && off < g_areas.size[i]; off += sizeof vec * pg) {
            size_t len = g_areas.size[i] - off < sizeof vec * pg ? g_areas.size[i] - off
                                                                 : sizeof vec * pg;
            if (mincore(g_areas.base[i] + off, len, vec) != 0)
                return 0;
            for (size_t k = 0; k < (len + pg - 1) / pg; k++)
                n += vec[k] & 1;
        }
    }
    return n;
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

static bool events_equal(const nb_event *a, const nb_event *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!pmu_event_equal(&a[i], &b[i]))
            return false;
    return true;
}

static bool same_group(const struct kept_group *k, const worker_job *w)
{
    return k->used && k->backend == w->backend && k->n_events == w->n_events &&
           k->with_clock == w->with_clock && k->cfg.cpu_index == w->cfg.cpu_index &&
           k->cfg.count_usr == w->cfg.count_usr && k->cfg.count_os == w->cfg.count_os &&
           k->cfg.fixed_counters == w->cfg.fixed_counters &&
           events_equal(k->events, w->events, w->n_events);
}

static pmu_group *child_group(const worker_job *w)
{
    struct kept_group *k = NULL;
    for (size_t i = 0; i < KEPT_GROUPS && !k; i++)
        if (same_group(&g_kept[i], w))
            k = &g_kept[i];
    if (!k && g_sealed)
        child_need_fresh();
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
        nb_error e;
        nb_error_clear(&e);
        int rc = w->backend->open(&cfg, &plan, &k->grp, &e);
        if (rc) {
            e.status = rc;
            nb_error_prefix(&e, "%s", w->backend->name);
            child_fail(&e);
        }
        if (k->grp.n_ctr > CODEGEN_MAX_CTR) {
            nb_error_set(&e, NB_EUNSUPPORTED, "too many counters in one group");
            child_fail(&e);
        }
        k->used = true;
        k->backend = w->backend;
        k->cfg = w->cfg;
        k->n_events = w->n_events;
        k->with_clock = w->with_clock;
    }
    k->last = ++g_kept_clock;
    return &k->grp;
}

/* The tsc method's outcome into the mapping: estimated-cycles samples
 * divided by the clock, each counter's difference and its half-width
 * (cycles: the clock's own half-width added, in proportion), the clock. */
static void tsc_finish(const tsc_outcome *to, const pmu_group *grp, double *samples,
                       size_t per_run, long n)
{
    shared_hdr *h = g_hdr;
    double ratio = to->ratio;
    h->n_cal = to->n_cal;
    h->cal_runs = to->cal_runs;
    h->cal_run[0] = h->cal_run[1] = ratio;
    h->cal_hw = to->ratio_hw;
    h->alu_slowdown = tsc_alu_slowdown(to, &h->alu_slowdown_hw);
    h->fe_slowdown = to->fe_slowdown;
    h->fe_slowdown_hw = to->fe_slowdown_hw;
    h->ld_slowdown = to->ld_slowdown;
    h->ld_slowdown_hw = to->ld_slowdown_hw;
    memcpy(h->port_slowdown, to->port_slowdown, sizeof h->port_slowdown);
    memcpy(h->port_slowdown_hw, to->port_slowdown_hw, sizeof h->port_slowdown_hw);
    h->disturbed = to->disturbed;
    h->clock_moved = to->drift / ratio;
    h->restarts = to->restarts;
    h->shared_waits = to->waits;
    h->has_unc = to->logged;
    h->runs[0] = to->runs[0];
    h->runs[1] = to->runs[1];
    h->kept[0] = to->kept[0];
    h->kept[1] = to->kept[1];
    h->passes = to->passes;
    h->tsc_step = g_cal.cp.step;
    h->prelude_spread = h->settle_spread = h->context = 0;
    h->fe_bound = false;
    for (size_t k = 0; k < grp->n_ctr; k++) {
        bool cyc = grp->ctr[k].tsc_cycles;
        if (cyc && fabs(to->diff[k]) > 0) {
            h->prelude_spread = fmax(h->prelude_spread, to->prelude[k] / fabs(to->diff[k]));
            h->settle_spread = fmax(h->settle_spread, to->settle[k] / fabs(to->diff[k]));
            h->context = fmax(h->context, to->context[k] * ratio / fabs(to->diff[k]));
            h->fe_bound |= to->fe_bound[k];
        }
        h->diff[k] = cyc ? to->diff[k] / ratio : to->diff[k];
        h->unc[k] = tsc_half_width(to->diff[k], to->unc[k], to->agg_off[k], cyc ? ratio : 0,
                                   to->ratio_hw);
        h->fixed[k] = cyc && !to->logged ? to->fixed[k] / ratio : 0;
        if (!cyc)
            continue;
        for (int r = 0; r < 2; r++)
            for (long i = 0; i < n; i++)
                samples[(size_t)r * per_run + k * (size_t)n + (size_t)i] /= ratio;
    }
}

/* How the code reads each counter of grp into reads[]; the counters read
 * outside the code are set up (g_outside), their device opened before the
 * seal.  Returns whether a counter is in TSC ticks to be calibrated. */
static bool child_reads(const worker_job *w, pmu_group *grp, codegen_read *reads)
{
    bool tsc_cal = false;
    g_outside.g = NULL;
    for (size_t i = 0; i < grp->n_ctr; i++) {
        /* the code leaves the slots of counters read outside it alone */
        if (grp->ctr[i].read == PMU_READ_OUTSIDE && w->backend->read_outside && !g_outside.g) {
            g_outside.be = w->backend;
            g_outside.cfg = w->cfg;
            g_outside.cfg.cpu = &w->cpu;
            g_outside.cfg.sysfs_root = w->sysfs_root;
            g_outside.cfg.dev_root = w->dev_root;
            g_outside.g = grp;
        }
        reads[i].kind = grp->ctr[i].read == PMU_READ_OUTSIDE ? PMU_READ_NONE : grp->ctr[i].read;
        reads[i].ecx = grp->ctr[i].rdpmc_ecx;
        tsc_cal |= grp->ctr[i].tsc_cycles;
    }
    if (g_outside.g)
        outside_prepare(w);
    return tsc_cal;
}

/* One run, as the parent described it in h->job; results into the mapping. */
static void child_run(double *samples)
{
    shared_hdr *h = g_hdr;
    const worker_job *w = &h->job;
    const measure_params *o = &w->p;
    const bench_code *c = &g_job_code;
    nb_error err;
    nb_error_clear(&err);
    g_code_ran = false;
    if (w->prepare_only) {
        child_group(w);
        h->done = 1;
        return;
    }
    if (w->fresh)
        child_reset();
    child_ready(w);

    pmu_group grp, *kept = NULL;
    if (w->opened) {
        memset(&grp, 0, sizeof grp);
        grp.ctr = h->ctr;
        grp.n_ctr = h->n_ctr;
    } else {
        kept = child_group(w);
        grp = *kept;
        h->n_ctr = grp.n_ctr;
        memcpy(h->ctr, grp.ctr, grp.n_ctr * sizeof *grp.ctr);
    }

    codegen_read reads[CODEGEN_MAX_CTR];
    bool tsc_cal = child_reads(w, &grp, reads);
    child_seal();

    codegen_params p = {
        .code = c->code, .code_len = c->code_len,
        .init = c->init, .init_len = c->init_len,
        .late_init = c->late_init, .late_init_len = c->late_init_len,
        .loop_count = o->loop_count, .alignment_offset = o->alignment_offset,
        .no_mem = o->no_mem, .df = o->df, .debug = o->debug, .bmi2 = g_isa.bmi2,
        .avx = g_isa.avx, .avx512 = g_isa.avx512,
        .reads = reads, .n_reads = grp.n_ctr,
        /* nanoBench: the middle of 1 MB; -r14_size: the start ([R14+addr]) */
        .r14 = (uintptr_t)(g_areas.base[AREA_R14] + (o->r14_mid ? g_areas.size[AREA_R14] / 2 : 0)),
        .rdi = (uintptr_t)(g_areas.base[AREA_RDI] + AREA_SIZE / 2),
        .rsi = (uintptr_t)(g_areas.base[AREA_RSI] + AREA_SIZE / 2),
        .rbp = (uintptr_t)(g_areas.base[AREA_RBP] + AREA_SIZE / 2),
        .rsp = (uintptr_t)(g_areas.base[AREA_RSP] + AREA_SIZE / 2),
    };
    if (w->fresh)
        areas_present(&p);
    codegen_prog first, second, once = {0};
    if (c->one_time_init_len && w->fresh) {
        codegen_params q = p;
        q.code = NULL; q.code_len = 0; q.copies = 0; q.loop_count = 0;
        q.init = c->one_time_init; q.init_len = c->one_time_init_len;
        q.late_init = NULL; q.late_init_len = 0;
        q.n_reads = 0; q.df = false; q.debug = false;
        if (codegen_build(&q, &once, &err))
            child_fail(&err);
    }
    p.copies = (size_t)w->copies[0];
    p.loop_count = w->loops[0];
    if (codegen_build(&p, &first, &err))
        child_fail(&err);
    p.copies = (size_t)w->copies[1];
    p.loop_count = w->loops[1];
    if (codegen_build(&p, &second, &err))
        child_fail(&err);

    if (w->stepped && step_begin(grp.ctr, grp.n_ctr, &err))
        child_fail(&err);
    bool settle = false;
    if (tsc_cal && !g_cal.built) {
        if (cal_build(&g_cal.cp, run_measured, g_start.hot_imul_lat, g_start.hot_load_lat,
                      g_isa.fe_floor, g_isa.port_floor, g_isa.avx, &err))
            child_fail(&err);
        g_cal.built = true;
        g_cal.tsc_ghz = g_start.hot_tsc_ghz > 0 ? g_start.hot_tsc_ghz : spin_tsc_ghz();
        settle = g_start.hot_tsc_ghz <= 0;
        cal_dither_setup(&g_cal.cp);
    }
    if (tsc_cal) {
        h->imul_latency = g_cal.cp.n > 1 ? g_cal.cp.ch[1].latency : 0;
        h->load_latency = g_cal.cp.has_load ? g_cal.cp.load.latency : 0;
        h->tsc_ghz = g_cal.tsc_ghz;
    }
    if (once.base && w->fresh)
        run_prog(&once, PROG_ONE_TIME);
    /* nanoBench warms up with unroll_count copies and the loop: the first
     * program, or -basic_mode's second (its first has no copies). */
    const codegen_prog *warm = w->copies[0] > 0 || w->copies[1] == 0 ? &first : &second;
    for (long i = 0; w->fresh && i < o->initial_warm_up_count; i++)
        w->stepped ? step_warm(warm) : run_prog(warm, PROG_MEASURE);

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
    double execs = (double)second.n_copies * (double)(w->loops[1] > 0 ? w->loops[1] : 1) -
                   (double)first.n_copies * (double)(w->loops[0] > 0 ? w->loops[0] : 1);
    double enough = execs >= 1 ? INNER_EXEC / execs : INNER_MAX;
    run_state rs[2] = {
        {.p = &first, .run = run_measured, .samples = samples, .ratio = ratio, .add_ratio = add_ratio, .enough = enough},
        {.p = &second, .run = run_measured, .samples = samples + per_run, .enough = enough},
    };
    step_outcome so;
    tsc_outcome to;
    memset(&to, 0, sizeof to);
    if (w->stepped) {
        step_measure(rs, o->warm_up_count, n, grp.n_ctr, grp.ctr, h->overflow, w->step_budget, &so);
        h->steps = so.steps;
        h->retired = so.retired;
        h->step_over = so.over;
    } else {
        /* a result per execution of the code: the second program's
         * executions of it beyond the first's (see INNER_EXEC) */
        double per = execs >= 1 ? execs : 1;
        /* code beyond the L1 instruction cache is measured at PLACE_MEAN
         * places (place_check), which share the budget: with one each,
         * 1000 NOPs took 600 ms a process */
        bool big = place_big(&p, w->copies[1]);
        tsc_goal goal = {.execs = per,
                         .budget_ticks = TSC_BUDGET_NS * g_cal.tsc_ghz / (big ? PLACE_MEAN : 1),
                         .wait_ticks = o->patient ? TSC_SHARED_WAIT_NS * g_cal.tsc_ghz : 0,
                         .agg = o->agg, .big = big,
                         .insns = per * (double)asm_count_insns(p.code, p.code_len),
                         .loops = (double)w->loops[1]};
        if (measure(rs, o->warm_up_count, n, cpp, grp.n_ctr, grp.ctr, h->overflow, &goal,
                   &to, &err))
            child_fail(&err);
        goal.wait_ticks = 0;   /* the other places are measured right away */
        place_job pj = {.params = p, .copies = {w->copies[0], w->copies[1]},
                        .loops = {w->loops[0], w->loops[1]}, .prog = {&first, &second},
                        .rs = rs, .warm = o->warm_up_count, .n = n, .cp = cpp,
                        .n_ctr = grp.n_ctr, .ctr = grp.ctr, .ovf = h->overflow, .goal = &goal,
                        .doubles = 2 * per_run + 4 * (size_t)n};
        place_outcome po = {.placements = 1};
        if (cpp && place_check(&pj, &to, &po, &err))
            child_fail(&err);
        if (cpp) {
            po.data_pages = areas_resident();
            place_data(&pj, &to, &po);
        }
        /* the quietest the front end and the ports have been in this
         * process, for the measurements after this one (tsc_frontend.h,
         * tsc_ports.h) */
        if (cpp)
            tsc_keep_quietest(&g_cal.cp, &to);
        h->placements = po.placements;
        h->placement_moved = po.moved;
        h->placement_averaged = po.averaged;
        h->placement_compared = po.compared;
        h->placement_off = po.off;
        h->loop_misfit = po.loop_misfit;
        h->data_pages = po.data_pages;
    }
    if (kept && w->backend->verify)
        w->backend->verify(kept, h->lost);
    if (tsc_cal)
        tsc_finish(&to, &grp, samples, per_run, n);
    codegen_free(&first);
    codegen_free(&second);
    if (once.base)
        codegen_free(&once);
    g_outside.g = NULL;
    h->done = 1;
}

/* The measuring process: set up once, then one run per byte received on
 * `sock`, one byte sent back after each; it is killed when the parent is
 * done with it (or when the parent dies). */
_Noreturn void child_main(child_start st)
{
    g_start = st;
    g_hdr = st.h;
    g_sock = st.sock;
    /* Faults are not blocked (a blocked one would kill it): nb handles none
     * of them itself, so no handler of nb's can run for them here. */
    sigset_t faults;
    sigemptyset(&faults);
    int fault_sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof fault_sigs / sizeof fault_sigs[0]; i++)
        sigaddset(&faults, fault_sigs[i]);
    sigprocmask(SIG_UNBLOCK, &faults, NULL);
    int cpu = st.cpu;
    nb_error err;
    nb_error_clear(&err);
    int sock = child_isolate(st.parent, st.sock);
    if (sock < 0) {
        int e = errno;
        nb_error_set(&err, NB_ERESOURCE, "the measuring process cannot open /dev/null: %s",
                     strerror(e));
        file_open_status(e, &err);
        err.status = NB_ERESOURCE;
        child_fail(&err);
    }
    g_sock = sock;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        nb_error_set(&err, NB_ESYSTEM, "cannot pin to CPU %d (sched_setaffinity failed)", cpu);
        child_fail(&err);
    }
    bases_probe();
    if (install_handlers(st.debug) != 0) {
        nb_error_set(&err, NB_ESYSTEM, "cannot install the fault handlers");
        child_fail(&err);
    }
    sigprocmask(SIG_SETMASK, &st.mask, NULL);   /* blocked since fork() */
    child_isa();
    if (st.wait_for_gdb) {
        wait_for_tracer();
        g_debug_shown = true;   /* gdb showed them; later traps just go on */
    }
    request_amx();
    double *samples = hdr_samples(g_hdr, st.code_cap);
    for (;;) {
        char b;
        ssize_t got = recv(sock, &b, 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got != 1)
            child_end();   /* the parent is done with it */
        g_got_run = true;
        child_run(samples);
        if (send(sock, &b, 1, MSG_NOSIGNAL) != 1)
            child_end();
    }
}

/* ---- parent ---- */
