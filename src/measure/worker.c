/* nb worker: the parent side of a measurement (see worker.h).
 *
 * Why a child process: the benchmark may do anything to its registers and
 * memory, fault, or never end; the parent stays intact, enforces -timeout
 * and restores system settings whatever happens.  Results come back through
 * a MAP_SHARED anonymous mapping created before fork().  This file forks,
 * posts runs to, waits for, reaps and kills the measuring process (child.c). */

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
#include "measure/worker.h"
#include "measure/sandbox.h"
#include "measure/stats.h"
#include "sys/status.h"
#include "lib/clock.h"
#include "sys/error.h"
#include "measure/worker_shared.h"

/* When the last measuring child ended, the TSC frequency and the IMUL
 * chain's latency it measured: a child started within HOT_NS gets them
 * (child_start). */
static double g_last_end_ns, g_last_tsc_ghz, g_last_imul_lat;
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

/* Wait at most limit_ns (0: no limit) for the child to end: 1 when it did
 * (*st), 0 on timeout, -1 on error.  A pidfd wakes the parent the moment the
 * child exits; kernels without pidfd_open (before 5.3) fall back to polling
 * with growing sleeps. */
static int wait_child(pid_t pid, int *st, double limit_ns)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    double t0 = clock_ns();
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
        double left = limit_ns > 0 ? limit_ns - (clock_ns() - t0) : 1e9;
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
    g_last_end_ns = clock_ns();
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

void worker_stop(void)
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

/* An nb_error the benchmark may have scribbled on: every string ends. */
static void error_terminate(nb_error *e)
{
    e->origin[sizeof e->origin - 1] = 0;
    e->message[sizeof e->message - 1] = 0;
    e->source[sizeof e->source - 1] = 0;
    e->advice[sizeof e->advice - 1] = 0;
}

static size_t round_up_pow2(size_t v, size_t min)
{
    size_t r = min;
    while (r < v)
        r *= 2;
    return r;
}

/* A measuring process fit for this job: the running one, or a new one. */
static int worker_for(const worker_request *job, size_t code_len, nb_error *err)
{
    const measure_params *o = &job->p;
    long n = o->n_measurements;
    if (g_worker.pid && g_worker.cpu == job->cpu && g_worker.r14_size == o->r14_size &&
        !o->debug && !g_worker.debug && n <= g_worker.n_cap && code_len <= g_worker.code_cap)
        return 0;
    worker_stop();
    int arc = areas_map(o->r14_size, err);
    if (arc)
        return arc;
    size_t code_cap = round_up_pow2(code_len, 64u << 10);
    long n_cap = n > 64 ? n : 64;
    size_t per_run = CODEGEN_MAX_CTR * (size_t)n_cap;
    size_t map_len = sizeof(shared_hdr) + code_cap + (2 * per_run + 4 * (size_t)n_cap) * sizeof(double);
    void *m = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return nb_error_set(err, NB_ENOMEM, "cannot map %zu bytes for the results", map_len);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        nb_error_set(err, NB_ESYSTEM, "socketpair: %s", strerror(errno));
        munmap(m, map_len);
        return NB_ESYSTEM;
    }
    shared_hdr *h = m;
    h->code_cap = code_cap;
    char gdb_buf[512];
    /* gdb would stop at every step of a stepped group: its register dump */
    bool stepped = job->opened && job->opened->stepped;
    const char *gdb = o->debug && !stepped ? find_gdb(gdb_buf, sizeof gdb_buf) : NULL;
    bool hot = g_last_tsc_ghz > 0 && clock_ns() - g_last_end_ns < HOT_NS;
    child_start st = {
        .h = h, .sock = sv[1], .cpu = job->cpu, .parent = getpid(), .debug = o->debug,
        .wait_for_gdb = gdb != NULL, .hot_tsc_ghz = hot ? g_last_tsc_ghz : 0,
        .hot_imul_lat = hot ? g_last_imul_lat : 0,
    };
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        nb_error_set(err, NB_ESYSTEM, "fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        munmap(m, map_len);
        return NB_ESYSTEM;
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
    if (gdb)
        run_gdb(gdb, pid);
    return 0;
}

/* The job, by value, into the mapping (see worker_job). */
static void worker_post(const worker_request *job)
{
    shared_hdr *h = g_worker.h;
    worker_job *w = &h->job;
    memset(&h->fault, 0, sizeof h->fault);
    h->done = 0;
    h->status = 0;
    nb_error_clear(&h->err);
    h->n_cal = 0;
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
    uint8_t *dst = (uint8_t *)(h + 1);
    for (int i = 0; i < 4; i++) {
        w->len[i] = job->frag[i].bytes ? job->frag[i].len : 0;
        if (w->len[i])
            memcpy(dst, job->frag[i].bytes, w->len[i]);
        dst += w->len[i];
    }
}

/* Wait at most limit_ns (0: none) for the run's answer: 1 done, 0 timeout,
 * -1 the process ended (or the socket failed). */
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

int worker_run(const worker_request *job, worker_output *out, nb_error *err)
{
    memset(out, 0, sizeof *out);
    long n = job->p.n_measurements;
    size_t per_run = CODEGEN_MAX_CTR * (size_t)n;
    size_t code_len = 0;
    for (int k = 0; k < NB_FRAG_MAX; k++)
        code_len += job->frag[k].len;
    int wrc = worker_for(job, code_len, err);
    if (wrc)
        return wrc;
    shared_hdr *h = g_worker.h;
    worker_post(job);
    char b = 1;
    int w;
    if (send(g_worker.sock, &b, 1, MSG_NOSIGNAL) != 1)
        w = -1;
    else   /* no timeout while a person debugs */
        w = worker_wait(job->p.debug ? 0 : job->p.timeout * 1e9);

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
    error_terminate(&h->err);
    h->sandbox_note[sizeof h->sandbox_note - 1] = 0;
    if (h->fault.n_insn > sizeof h->fault.insn)
        h->fault.n_insn = sizeof h->fault.insn;
    if (h->n_ctr > CODEGEN_MAX_CTR)
        h->n_ctr = CODEGEN_MAX_CTR;
    if (h->n_cal > 2 * (size_t)n)
        h->n_cal = 2 * (size_t)n;

    if (h->sandbox_note[0] && !g_sandbox_noted) {
        nb_note("note: system calls of the benchmark code are not trapped: %s", h->sandbox_note);
        g_sandbox_noted = true;
    }
    fault_context fc;
    fault_context_of(job, &fc);
    char sn[32];
    if (h->fault.signo) {
        rc = nb_error_set(err, NB_EFAULT, "%s", "");
        if (err)
            fault_describe(&h->fault, &fc, err->message, sizeof err->message);
    } else if (stopped) {
        rc = nb_error_set(err, NB_EFAULT, "the benchmark code did not finish within %g s "
                          "(-timeout); it was stopped", job->p.timeout);
    } else if (ended && WIFSIGNALED(st)) {
        rc = nb_error_set(err, NB_EFAULT, "the measuring process died of %s (signal %d)",
                          fault_signal_name(WTERMSIG(st), sn, sizeof sn), WTERMSIG(st));
    } else if (!h->done && h->status) {
        rc = h->status;
        if (err && h->err.message[0]) {
            *err = h->err;
            err->status = rc;
        } else {
            nb_error_set(err, rc, "the measuring process failed");
        }
    } else if (!h->done) {
        /* Ended without a word: only an exit system call does that
         * (where seccomp could not trap it). */
        rc = nb_error_set(err, NB_EFAULT, "the measuring process ended (exit status %d) before "
                          "the measurement was done: the benchmark code probably made an exit "
                          "system call", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
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
            worker_output_free(out);
            rc = nb_error_set(err, NB_ENOMEM, "out of memory");
        } else {
            memcpy(out->ctr, h->ctr, h->n_ctr * sizeof *out->ctr);
            memcpy(out->overflow, h->overflow, h->n_ctr * sizeof *out->overflow);
            for (size_t k = 0; k < h->n_ctr && k < CODEGEN_MAX_CTR; k++)
                out->lost[k] = h->lost[k] <= PMU_LOST_MULTIPLEXED ? h->lost[k] : PMU_LOST_MOVED;
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
                g_last_end_ns = clock_ns();
            }
            out->alu_slowdown = h->alu_slowdown;
            out->steps = h->steps;
            out->retired = h->retired;
            out->step_over = h->step_over;
        }
    }
    if (ended)
        worker_forget();
    else if (job->p.debug)
        worker_stop();   /* -debug: a process of its own per run, as gdb saw it */
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
