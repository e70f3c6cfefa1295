/* nb worker: the parent side of a measurement (see worker.h).
 *
 * Why a child process: the benchmark may do anything to its registers and
 * memory, fault, or never end; the parent stays intact, enforces -timeout
 * and restores system settings whatever happens.  Results come back through
 * a MAP_SHARED anonymous mapping created before fork(), with guard pages on
 * both sides.  This file forks, posts runs to, waits for, kills and reaps
 * the measuring process (child.c).
 *
 * The measuring process runs the benchmark code, which can write anywhere
 * in it, the shared mapping too, and send bytes on the socket: nothing it
 * leaves there is trusted.  The parent copies the mapping's header out once
 * (the copy cannot change under it), checks every field it will use
 * (counts, lengths, strings, enumerations, numbers) and reports a record
 * that fails a check as "the benchmark code overwrote nb's results",
 * a fault like any other; sizes it set itself (the code's room, the
 * number of samples) it takes from its own books, never from the mapping.
 *
 * The measuring process never exits by itself (the sandbox traps exit):
 * it answers one byte when a run is done or when it has finished (a fault,
 * a failure, the stop signal), and the parent kills and reaps it. */

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
#include "measure/place.h"
#include "pmu/advice.h"
#include "sys/restore.h"
#include "measure/worker.h"
#include "measure/sandbox.h"
#include "measure/stats.h"
#include "sys/status.h"
#include "lib/clock.h"
#include "sys/error.h"
#include "measure/worker_shared.h"
#include "sys/fileio.h"
#include "sys/mapping.h"

/* When the last measuring child ended, the TSC frequency and the IMUL
 * chain's latency it measured: a child started within HOT_NS gets them
 * (child_start). */
static double g_last_end_ns, g_last_tsc_ghz, g_last_imul_lat, g_last_load_lat;
static volatile pid_t g_child;
static bool g_sandbox_noted;   /* the note is printed once per nb run */


/* The fragments as fault.c names them: after the option they came from. */
static void fault_context_of(const worker_request *job, fault_context *fc)
{
    const nb_fragment *f = job->frag;
    memset(fc, 0, sizeof *fc);
    fc->code = f[NB_FRAG_CODE];
    fc->init = f[NB_FRAG_INIT];
    fc->late_init = f[NB_FRAG_LATE_INIT];
    fc->one_time_init = f[NB_FRAG_ONE_TIME_INIT];
    fc->timeout = job->p.timeout;
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
    pid_t gdb;                 /* -debug's gdb, attached to this process, or 0 */
    struct sigaction sigint;   /* nb's SIGINT action while gdb has it */
    bool prepared;           /* worker_prepare() has run for it */
    uint64_t canary;
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

/* Kill the measuring process (it never ends itself), reap it, forget it;
 * its wait status in *st when st is not NULL. */
static void worker_end(int *st)
{
    int s = 0;
    if (g_worker.pid) {
        kill(g_worker.pid, SIGKILL);
        while (waitpid(g_worker.pid, &s, 0) < 0 && errno == EINTR)
            ;
    }
    if (st)
        *st = s;
    if (g_worker.gdb) {
        end_gdb(g_worker.gdb);   /* the user leaves gdb; Ctrl-C is nb's again */
        g_worker.gdb = 0;
        sigaction(SIGINT, &g_worker.sigint, NULL);
    }
    g_child = 0;
    restore_forget_fn(kill_child);
    if (g_worker.sock >= 0)
        close(g_worker.sock);
    unmap_guarded(g_worker.h, g_worker.map_len);
    g_worker.pid = 0;
    g_worker.sock = -1;
    g_worker.h = NULL;
    g_hdr = NULL;
    g_last_end_ns = clock_ns();
}

void worker_stop(void)
{
    if (g_worker.pid)
        worker_end(NULL);
}

static size_t round_up_pow2(size_t v, size_t min)
{
    size_t r = min;
    while (r < v)
        r *= 2;
    return r;
}

/* A value the benchmark code is unlikely to leave in the mapping by chance. */
static uint64_t new_canary(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)getpid() << 32 ^
                 (uint64_t)(uintptr_t)&ts;
    return x ^ x >> 29;
}

/* A measuring process fit for this job: the running one, or a new one. */
static int worker_for(const worker_request *job, size_t code_len, bool must_be_new, nb_error *err)
{
    const measure_params *o = &job->p;
    long n = o->n_measurements;
    if (g_worker.pid && !must_be_new && g_worker.cpu == job->cpu &&
        g_worker.r14_size == o->r14_size && !o->debug && !g_worker.debug &&
        n <= g_worker.n_cap && code_len <= g_worker.code_cap)
        return 0;
    worker_stop();
    int arc = areas_map(o->r14_size, err);
    if (arc)
        return arc;
    size_t code_cap = round_up_pow2(code_len, 64u << 10);
    long n_cap = n > 64 ? n : 64;
    size_t per_run = CODEGEN_MAX_CTR * (size_t)n_cap;
    size_t map_len = sizeof(shared_hdr) + code_cap + (2 * per_run + 4 * (size_t)n_cap) * sizeof(double);
    map_len = (map_len + 4095) & ~(size_t)4095;
    shared_hdr *h = map_guarded(map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS);
    if (!h)
        return nb_error_set(err, NB_ENOMEM, "cannot map %zu bytes for the results", map_len);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        int e = errno;
        nb_error_set(err, NB_ERESOURCE, "cannot start the measuring process: socketpair: %s",
                     strerror(e));
        file_open_status(e, err);
        if (err)
            err->status = NB_ERESOURCE;
        unmap_guarded(h, map_len);
        return NB_ERESOURCE;
    }
    char gdb_buf[512];
    /* gdb would stop at every step of a stepped group: its register dump */
    bool stepped = job->opened && job->opened->stepped;
    const char *gdb = o->debug && !stepped ? find_gdb(gdb_buf, sizeof gdb_buf) : NULL;
    bool hot = g_last_tsc_ghz > 0 && clock_ns() - g_last_end_ns < HOT_NS;
    child_start st = {
        .h = h, .code_cap = code_cap, .sock = sv[1], .cpu = job->cpu, .parent = getpid(),
        .debug = o->debug, .wait_for_gdb = gdb != NULL, .hot_tsc_ghz = hot ? g_last_tsc_ghz : 0,
        .hot_imul_lat = hot ? g_last_imul_lat : 0, .hot_load_lat = hot ? g_last_load_lat : 0,
    };
    fflush(stdout);
    fflush(stderr);
    /* No signal reaches the child until its own handlers are in place: nb's
     * (restore settings, report, die) must never run in it. */
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &st.mask);
    pid_t pid = fork();
    if (pid != 0)
        sigprocmask(SIG_SETMASK, &st.mask, NULL);
    if (pid < 0) {
        int e = errno;
        nb_error_set(err, NB_ERESOURCE, "cannot start the measuring process: fork: %s",
                     strerror(e));
        struct rlimit r;
        if (err && e == EAGAIN && getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
            snprintf(err->advice, sizeof err->advice, "the user may run %llu processes at "
                     "once (ulimit -u)", (unsigned long long)r.rlim_cur);
        close(sv[0]);
        close(sv[1]);
        unmap_guarded(h, map_len);
        return NB_ERESOURCE;
    }
    if (pid == 0) {
        close(sv[0]);
        child_main(st);
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
    g_worker.r14_size = o->r14_size;
    g_worker.debug = o->debug;
    g_worker.canary = new_canary();
    g_worker.prepared = false;
    if (gdb && (g_worker.gdb = run_gdb(gdb, pid)) > 0) {
        /* Ctrl-C belongs to gdb (it interrupts the code) while it is attached */
        struct sigaction ign = {.sa_handler = SIG_IGN};
        sigaction(SIGINT, &ign, &g_worker.sigint);
    }
    return 0;
}

/* The job, by value, into the mapping (see worker_job). */
static void worker_post(const worker_request *job, bool prepare_only)
{
    shared_hdr *h = g_worker.h;
    worker_job *w = &h->job;
    h->canary_head = h->canary_tail = g_worker.canary;
    memset(&h->fault, 0, sizeof h->fault);
    h->done = 0;
    h->status = 0;
    h->need_fresh = 0;
    nb_error_clear(&h->err);
    h->debug_text[0] = 0;
    h->n_cal = h->cal_runs = h->restarts = h->shared_waits = h->data_pages = 0;
    h->clock_moved = h->placement_off = h->loop_misfit = h->prelude_spread = h->settle_spread = h->context =
        h->tsc_step = 0;
    h->placements = 1;
    h->placement_moved = h->placement_averaged = h->placement_compared = false;
    h->disturbed = h->fe_bound = false;
    h->has_unc = false;
    memset(h->fixed, 0, sizeof h->fixed);
    memset(h->overflow, 0, sizeof h->overflow);
    memset(h->lost, 0, sizeof h->lost);
    w->p = job->p;
    w->backend = job->backend;
    w->cfg = *job->cfg;
    w->cpu = job->cfg->cpu ? *job->cfg->cpu : (cpu_info){0};
    snprintf(w->sysfs_root, sizeof w->sysfs_root, "%s", job->cfg->sysfs_root ? job->cfg->sysfs_root : "");
    snprintf(w->dev_root, sizeof w->dev_root, "%s", job->cfg->dev_root ? job->cfg->dev_root : "");
    w->cfg.cpu = NULL;
    w->cfg.sysfs_root = NULL;
    w->cfg.dev_root = NULL;
    w->opened = job->opened != NULL;
    w->stepped = job->opened && job->opened->stepped;
    w->step_budget = job->opened ? job->opened->step_budget : 0;
    h->steps = h->retired = 0;
    h->step_over = false;
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
    w->loops[0] = job->loops[0];
    w->loops[1] = job->loops[1];
    w->fresh = job->fresh;
    w->prepare_only = prepare_only;
    uint8_t *dst = (uint8_t *)(h + 1);
    for (int i = 0; i < 4; i++) {
        w->len[i] = job->frag[i].bytes ? job->frag[i].len : 0;
        if (w->len[i])
            memcpy(dst, job->frag[i].bytes, w->len[i]);
        dst += w->len[i];
    }
}

/* Wait at most limit_ns (0: none) for the measuring process's byte: 1 it
 * came, 0 timeout, -1 the process ended (or the socket failed). */
static int worker_wait(double limit_ns)
{
    double t0 = clock_ns();
    for (;;) {
        double left = limit_ns > 0 ? limit_ns - (clock_ns() - t0) : 1e9;
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

/* ---- what the measuring process left: copied, then checked ---- */

static shared_hdr g_snap;   /* the parent's copy of the header */

static bool terminated(const char *s, size_t cap) { return memchr(s, 0, cap) != NULL; }

#define TERMINATED(field) terminated((field), sizeof(field))

/* The byte of a bool at `off` in the copy is 0 or 1 (anything else would
 * make reading it as a bool undefined). */
static bool bool_at(size_t off)
{
    unsigned char b;
    memcpy(&b, (const unsigned char *)&g_snap + off, 1);
    return b <= 1;
}

static bool status_ok(int st) { return st <= 0 && st >= NB_ERESOURCE; }

static bool finite_ge0(double v) { return isfinite(v) && v >= 0; }

static bool ports_sane(const shared_hdr *s)
{
    for (int k = 0; k < TSC_PORTS; k++)
        if (!isfinite(s->port_slowdown[k]) || !finite_ge0(s->port_slowdown_hw[k]))
            return false;
    return true;
}

/* What is wrong with the fault record, or NULL. */
static const char *fault_damage(const fault_record *f)
{
    if (f->signo < 0 || f->signo > 64)
        return "fault signal";
    if (!bool_at(offsetof(shared_hdr, fault.stopped)) ||
        !bool_at(offsetof(shared_hdr, fault.code_ran)) ||
        !bool_at(offsetof(shared_hdr, fault.addr_readable)) ||
        !bool_at(offsetof(shared_hdr, fault.at_rsp_ok)) ||
        !bool_at(offsetof(shared_hdr, fault.below_rsp_ok)))
        return "fault record";
    if (f->n_insn > sizeof f->insn || f->n_area > FAULT_MAX_AREAS)
        return "fault record's lengths";
    if ((unsigned)f->prog > FAULT_PROG_CAL)
        return "fault record's program";
    for (size_t i = 0; i < FAULT_MAX_AREAS; i++)
        if (!TERMINATED(f->area[i].name))
            return "fault record's areas";
    return NULL;
}

/* What is wrong with the results of a run that says it is done, or NULL. */
static const char *result_damage(const worker_request *job, long n)
{
    const shared_hdr *s = &g_snap;
    if (s->n_ctr > CODEGEN_MAX_CTR)
        return "counter count";
    if (job->opened && (s->n_ctr != job->opened->n_ctr))
        return "counter count";
    for (size_t k = 0; k < s->n_ctr; k++) {
        const pmu_counter *c = &s->ctr[k];
        if (!TERMINATED(c->name) || (unsigned)c->read > PMU_READ_OUTSIDE || c->width > 64 ||
            !isfinite(c->scale) ||
            !bool_at(offsetof(shared_hdr, ctr) + k * sizeof *c + offsetof(pmu_counter, tsc_cycles)))
            return "counters";
        if (!bool_at(offsetof(shared_hdr, overflow) + k))
            return "overflow flags";
        if (s->lost[k] > PMU_LOST_MULTIPLEXED)
            return "lost flags";
    }
    if (s->n_cal > 2 * (size_t)n || (s->n_cal && s->cal_runs < s->n_cal))
        return "calibration count";
    if (!bool_at(offsetof(shared_hdr, step_over)))
        return "step count";
    if (!finite_ge0(s->cal_run[0]) || !finite_ge0(s->cal_run[1]) || !finite_ge0(s->tsc_ghz) ||
        !isfinite(s->alu_slowdown) || !finite_ge0(s->imul_latency) ||
        !isfinite(s->fe_slowdown) || !finite_ge0(s->fe_slowdown_hw) ||
        !isfinite(s->ld_slowdown) || !finite_ge0(s->ld_slowdown_hw) ||
        !ports_sane(s) ||
        !finite_ge0(s->load_latency) ||
        !finite_ge0(s->clock_moved) || s->restarts > TSC_RESTARTS || s->shared_waits > TSC_SHARED_WAITS ||
        s->placements > PLACE_MAX ||
        !isfinite(s->placement_off) || !isfinite(s->loop_misfit) || !bool_at(offsetof(shared_hdr, placement_moved)) ||
        !finite_ge0(s->prelude_spread) || !finite_ge0(s->settle_spread) ||
        !finite_ge0(s->context) || !finite_ge0(s->tsc_step) ||
        !bool_at(offsetof(shared_hdr, fe_bound)) ||
        !bool_at(offsetof(shared_hdr, placement_averaged)) ||
        !bool_at(offsetof(shared_hdr, placement_compared)) ||
        !bool_at(offsetof(shared_hdr, disturbed)))
        return "calibration";
    return NULL;
}

/* Copy the header out and check it; NULL when it can be used, else what is
 * damaged. */
static const char *take_header(const worker_request *job, long n)
{
    memcpy(&g_snap, g_worker.h, sizeof g_snap);
    const shared_hdr *s = &g_snap;
    if (s->canary_head != g_worker.canary || s->canary_tail != g_worker.canary)
        return "the guard values around them";
    if ((s->done != 0 && s->done != 1) || (s->need_fresh != 0 && s->need_fresh != 1))
        return "its state";
    if (!status_ok(s->status) || !status_ok(s->err.status) || s->err.line < 0 || s->err.col < 0)
        return "its status";
    if (!TERMINATED(s->err.origin) || !TERMINATED(s->err.message) ||
        !TERMINATED(s->err.source) || !TERMINATED(s->err.advice))
        return "its error message";
    if (!TERMINATED(s->sandbox_note) || !TERMINATED(s->debug_text))
        return "its notes";
    for (const char *c = s->sandbox_note; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            return "its notes";
    const char *f = fault_damage(&s->fault);
    if (f)
        return f;
    return s->done ? result_damage(job, n) : NULL;
}

/* A new measuring process opens the benchmark's other groups before it
 * runs anything (see worker_request.groups): one exchange each, nothing
 * measured.  One that fails is left to its own run to report. */
static void worker_prepare(const worker_request *job)
{
    if (job->opened || !job->groups)
        return;
    size_t n = job->n_groups < 16 ? job->n_groups : 16;
    for (size_t g = 0; g < n && g_worker.pid; g++) {
        if (&job->groups[g] == job->plan)
            continue;
        worker_request pj = *job;
        pj.plan = &job->groups[g];
        worker_post(&pj, true);
        char b = 1;
        int w = -1;
        if (send(g_worker.sock, &b, 1, MSG_NOSIGNAL) == 1)
            w = worker_wait(job->p.timeout * 1e9);
        if (w != 1 || take_header(&pj, 0) || !g_snap.done)
            worker_end(NULL);
    }
}

/* The samples of a checked run into *out. */
static int copy_results(const worker_request *job, long n, worker_output *out, nb_error *err)
{
    const shared_hdr *s = &g_snap;
    size_t per_run = CODEGEN_MAX_CTR * (size_t)n;
    double *samples = hdr_samples(g_worker.h, g_worker.code_cap);
    out->n_ctr = s->n_ctr;
    out->ctr = calloc(s->n_ctr ? s->n_ctr : 1, sizeof *out->ctr);
    out->overflow = calloc(s->n_ctr ? s->n_ctr : 1, sizeof *out->overflow);
    out->cal = calloc(2 * (size_t)n, sizeof *out->cal);
    for (int r = 0; r < 2; r++)
        out->samples[r] = calloc(s->n_ctr * (size_t)n + 1, sizeof(double));
    if (!out->ctr || !out->overflow || !out->cal || !out->samples[0] || !out->samples[1]) {
        worker_output_free(out);
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    }
    memcpy(out->ctr, job->opened ? job->opened->ctr : s->ctr, s->n_ctr * sizeof *out->ctr);
    /* of a group nb opened, the child may only say a counter was not read
     * (the stepper does) */
    for (size_t k = 0; job->opened && k < s->n_ctr; k++)
        if (s->ctr[k].read == PMU_READ_NONE)
            out->ctr[k].read = PMU_READ_NONE;
    memcpy(out->overflow, s->overflow, s->n_ctr * sizeof *out->overflow);
    memcpy(out->lost, s->lost, s->n_ctr);
    for (int r = 0; r < 2; r++)
        memcpy(out->samples[r], samples + (size_t)r * per_run,
               s->n_ctr * (size_t)n * sizeof(double));
    out->n_cal = s->n_cal;
    memcpy(out->cal, samples + 2 * per_run, s->n_cal * sizeof *out->cal);
    bool bad = false;
    for (int r = 0; r < 2; r++)
        for (size_t i = 0; i < s->n_ctr * (size_t)n; i++)
            bad |= !isfinite(out->samples[r][i]);
    for (size_t i = 0; i < s->n_cal; i++)
        bad |= !isfinite(out->cal[i]);
    for (size_t k = 0; k < s->n_ctr; k++)
        bad |= !isfinite(s->diff[k]) || !isfinite(s->unc[k]) || s->unc[k] < 0 ||
               !finite_ge0(s->fixed[k]);
    if (bad) {
        worker_output_free(out);
        return nb_error_set(err, NB_EFAULT, "the benchmark code overwrote nb's results (its "
                            "samples): they are not reported");
    }
    out->cal_run[0] = s->cal_run[0];
    out->cal_run[1] = s->cal_run[1];
    out->cal_hw = s->cal_hw;
    out->alu_slowdown_hw = s->alu_slowdown_hw;
    out->fe_slowdown = s->fe_slowdown;
    out->fe_slowdown_hw = s->fe_slowdown_hw;
    out->ld_slowdown = s->ld_slowdown;
    out->ld_slowdown_hw = s->ld_slowdown_hw;
    memcpy(out->port_slowdown, s->port_slowdown, sizeof out->port_slowdown);
    memcpy(out->port_slowdown_hw, s->port_slowdown_hw, sizeof out->port_slowdown_hw);
    out->has_unc = s->has_unc;
    memcpy(out->diff, s->diff, sizeof out->diff);
    memcpy(out->unc, s->unc, sizeof out->unc);
    memcpy(out->fixed, s->fixed, sizeof out->fixed);
    memcpy(out->runs, s->runs, sizeof out->runs);
    memcpy(out->kept, s->kept, sizeof out->kept);
    out->passes = s->passes;
    out->tsc_ghz = s->tsc_ghz;
    out->alu_slowdown = s->alu_slowdown;
    out->clock_moved = s->clock_moved;
    out->cal_runs = s->cal_runs;
    out->placements = s->placements;
    out->placement_moved = s->placement_moved;
    out->placement_averaged = s->placement_averaged;
    out->placement_compared = s->placement_compared;
    out->disturbed = s->disturbed;
    out->placement_off = s->placement_off;
    out->loop_misfit = s->loop_misfit;
    out->data_pages = s->data_pages;
    out->prelude_spread = s->prelude_spread;
    out->settle_spread = s->settle_spread;
    out->context = s->context;
    out->fe_bound = s->fe_bound;
    out->tsc_step = s->tsc_step;
    out->restarts = s->restarts;
    out->shared_waits = s->shared_waits;
    out->steps = s->steps;
    out->retired = s->retired;
    out->step_over = s->step_over;
    if (s->n_cal) {
        g_last_tsc_ghz = s->tsc_ghz;
        g_last_imul_lat = s->imul_latency;
        g_last_load_lat = s->load_latency;
        g_last_end_ns = clock_ns();
    }
    return 0;
}

/* The error a finished run leaves (a fault, a timeout, a failure), or 0. */
static int verdict(const worker_request *job, bool stopped, int halted, bool ended, int st,
                   nb_error *err)
{
    const shared_hdr *s = &g_snap;
    fault_context fc;
    fault_context_of(job, &fc);
    char sn[32];
    if (s->fault.signo && !halted) {
        /* stopped before any benchmark code ran: -timeout was too short */
        int rc = nb_error_set(err, s->fault.stopped && !s->fault.code_ran ? NB_EUSAGE : NB_EFAULT,
                              "%s", "");
        if (err)
            fault_describe(&s->fault, &fc, err->message, sizeof err->message);
        return rc;
    }
    if (halted)
        return nb_error_set(err, NB_ESYSTEM, "the measuring process was stopped by %s from "
                            "outside nb (it does not stop itself) and had not finished after "
                            "%g s (-timeout): nothing was measured",
                            fault_signal_name(halted, sn, sizeof sn), job->p.timeout);
    if (stopped && ended && WIFSIGNALED(st) && WTERMSIG(st) == STOP_SIGNAL) {
        /* it died of the stop signal: its handlers were not set up yet, so
         * no benchmark code had run */
        fault_record r;
        memset(&r, 0, sizeof r);
        r.signo = STOP_SIGNAL;
        r.stopped = true;
        nb_error_set(err, NB_EUSAGE, "%s", "");
        if (err)
            fault_describe(&r, &fc, err->message, sizeof err->message);
        return NB_EUSAGE;
    }
    if (stopped)
        return nb_error_set(err, NB_EFAULT, "the benchmark code did not finish within %g s "
                            "(-timeout); it was stopped", job->p.timeout);
    if (s->status && !s->done) {
        if (err && s->err.message[0]) {
            *err = s->err;
            err->status = s->status;
            return s->status;
        }
        return nb_error_set(err, s->status, "the measuring process failed");
    }
    if (ended && WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
        return nb_error_set(err, NB_EFAULT, "the measuring process died of %s (signal %d)",
                            fault_signal_name(WTERMSIG(st), sn, sizeof sn), WTERMSIG(st));
    if (!s->done)
        return nb_error_set(err, NB_EFAULT, "the measuring process ended before the "
                            "measurement was done, without saying why");
    return 0;
}

/* One posting of the job: 0 with *out filled, a status with *err, or 1
 * when the process was sealed and the job needs a fresh one. */
static int run_once(const worker_request *job, bool must_be_new, worker_output *out, nb_error *err)
{
    long n = job->p.n_measurements;
    size_t code_len = 0;
    for (int k = 0; k < NB_FRAG_MAX; k++)
        code_len += job->frag[k].len;
    int wrc = worker_for(job, code_len, must_be_new, err);
    if (wrc)
        return wrc;
    if (!g_worker.prepared) {
        worker_prepare(job);
        if (!g_worker.pid && (wrc = worker_for(job, code_len, true, err)))
            return wrc;
        g_worker.prepared = true;
    }
    worker_post(job, false);
    char b = 1;
    int w = -1;
    /* With gdb attached a person decides how long the run takes: no
     * -timeout then (the register dump of -debug without gdb has one). */
    if (send(g_worker.sock, &b, 1, MSG_NOSIGNAL) == 1)
        w = worker_wait(g_worker.gdb ? 0 : job->p.timeout * 1e9);
    bool stopped = w == 0;
    int halted = 0;   /* the signal that stopped the child from outside nb */
    if (stopped) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)g_worker.pid, &si, WSTOPPED | WNOHANG | WNOWAIT) == 0 &&
            si.si_pid == g_worker.pid && si.si_code == CLD_STOPPED)
            halted = si.si_status;
        /* Ask the child to note where it is; it is killed either way. */
        kill(g_worker.pid, STOP_SIGNAL);
        if (!halted)
            worker_wait(STOP_GRACE_NS);
    }
    const char *damage = take_header(job, n);
    bool ended = w != 1 || !g_snap.done || damage;
    int st = 0;
    if (ended)
        worker_end(&st);
    if (g_snap.debug_text[0] && !damage)
        nb_note("%s", g_snap.debug_text);
    if (!damage && g_snap.sandbox_note[0] && !g_sandbox_noted) {
        nb_note("note: system calls of the benchmark code are not trapped: %s",
                g_snap.sandbox_note);
        g_sandbox_noted = true;
    }
    if (damage)
        return nb_error_set(err, NB_EFAULT, "the benchmark code overwrote nb's results (%s): "
                            "they are not reported", damage);
    if (g_snap.need_fresh && !g_snap.fault.signo && !stopped)
        return must_be_new ? nb_error_set(err, NB_EFAULT, "the benchmark code overwrote nb's "
                                          "results (its state): they are not reported")
                           : 1;
    int rc = verdict(job, stopped, halted, ended, st, err);
    if (rc == 0)
        rc = copy_results(job, n, out, err);
    /* -debug: a process of its own per run, as gdb saw it; after an error,
     * what the code left in the process is not trusted */
    if (g_worker.pid && (rc || job->p.debug))
        worker_stop();
    return rc;
}

int worker_run(const worker_request *job, worker_output *out, nb_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = run_once(job, false, out, err);
    if (rc == 1)   /* once more, in a process that has not run any code yet */
        rc = run_once(job, true, out, err);
    return rc;
}

void worker_output_free(worker_output *out)
{
    free(out->ctr);
    free(out->overflow);
    free(out->cal);
    free(out->samples[0]);
    free(out->samples[1]);
    memset(out, 0, sizeof *out);
}
