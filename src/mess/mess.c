/* nb mess: the -mess command: options, the measurement loop, the outputs.
 *
 * The loop follows Mess's workflow: the whole set of points is measured once
 * per repetition (so slow drifts spread over the repetitions instead of
 * biasing one point); each point first sets the generators' mix and padding,
 * waits a settling time, measures the core clock under that load, then runs
 * the chase for a time window while reading the generators' byte counts at
 * both ends.  The unloaded point (generators asleep) opens each repetition.
 *
 * The chase runs on the calling thread, pinned for the run; its affinity and
 * the SIGINT/SIGTERM handlers are restored before returning.  A signal only
 * sets a flag: the current window is abandoned and what was measured so far
 * is reduced and written as usual. */
#include "mess/mess.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "sys/cpu.h"
#include "sys/error.h"
#include "sys/fileio.h"
#include "sys/status.h"

#define MIB (1024.0 * 1024.0)
#define MAX_LIST MESS_MAX_LIST

static const int default_mixes[] = { 100, 80, 60, 50, 40, 20, 0 };
/* NOP padding per access; on the development VM one generator goes from
 * saturated (0) through every decade of bandwidth to about 0.01 GB/s (16384). */
static const int default_pads[] = { 0, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256,
                                    512, 1024, 4096, 16384 };

typedef struct opts {
    size_t chase_bytes, gen_bytes;    /* 0: default */
    int chase_cpu;                    /* -1: default */
    int gen_cpus[MAX_LIST], ngen;     /* ngen -1: default */
    int mixes[MAX_LIST], nmix;
    int pads[MAX_LIST], npad;
    int reps;
    double settle_ms, window_ms;
    enum mess_pad pad_kind;
    int sg_window, sg_order;
    const char *out;
    bool huge, unloaded_only, quiet;
    uint64_t seed;
} opts;

void mess_options_defaults(mess_options *o)
{
    memset(o, 0, sizeof *o);
    o->cpu = -1;
    o->n_gen_cpus = -1;
    memcpy(o->mixes, default_mixes, sizeof default_mixes);
    o->n_mixes = (int)(sizeof default_mixes / sizeof *default_mixes);
    memcpy(o->pads, default_pads, sizeof default_pads);
    o->n_pads = (int)(sizeof default_pads / sizeof *default_pads);
    o->pad = MESS_PAD_NOP;   /* Mess pads with NOPs: fine steps */
    o->reps = 3;
    o->settle_ms = 50;
    o->time_ms = 100;
    o->out = "mess";
    o->seed = 1;
}

/* The run's settings from the options (checked by the option table). */
static void opts_of(const mess_options *m, opts *o)
{
    memset(o, 0, sizeof *o);
    o->chase_bytes = (size_t)m->size;
    o->gen_bytes = (size_t)m->gen_size;
    o->chase_cpu = (int)m->cpu;
    o->ngen = m->n_gen_cpus;
    if (o->ngen > 0)
        memcpy(o->gen_cpus, m->gen_cpus, (size_t)o->ngen * sizeof *o->gen_cpus);
    o->nmix = m->n_mixes;
    memcpy(o->mixes, m->mixes, (size_t)o->nmix * sizeof *o->mixes);
    o->npad = m->n_pads;
    memcpy(o->pads, m->pads, (size_t)o->npad * sizeof *o->pads);
    o->reps = (int)m->reps;
    o->settle_ms = (double)m->settle_ms;
    o->window_ms = (double)m->time_ms;
    o->pad_kind = m->pad == MESS_PAD_PAUSE ? MESS_PAD_PAUSE : MESS_PAD_NOP;
    /* -mess_sg W[,ORDER]: the order defaults to 2 (below a window of 3: 1) */
    o->sg_window = m->n_sg ? m->sg[0] : 5;
    o->sg_order = m->n_sg == 2 ? m->sg[1] : o->sg_window > 2 ? 2 : o->sg_window - 1;
    o->out = m->out;
    o->huge = !m->no_huge;
    o->unloaded_only = m->unloaded;
    o->quiet = m->quiet;
    o->seed = m->seed;
}

static void fingerprint(mess_machine *m, int cpu)
{
    memset(m, 0, sizeof *m);
    cpu_info ci;
    cpu_detect(&ci);
    memcpy(m->vendor, ci.vendor_string, sizeof m->vendor);
    memcpy(m->brand, ci.brand, sizeof m->brand);
    m->family = ci.family;
    m->model = ci.model;
    m->stepping = ci.stepping;
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(m->kernel, sizeof m->kernel, "%s", u.release);
    char buf[64] = "", path[96];
    file_read_line("", "/sys/devices/system/cpu/smt/active", buf, sizeof buf);
    m->smt = buf[0] == '1' ? 1 : buf[0] == '0' ? 0 : -1;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
    file_read_line("", path, m->governor, sizeof m->governor);
    m->llc_bytes = cpu_llc_bytes(&m->llc_source);
}

static size_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[128];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (size_t)kb * 1024;
}

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static void sleep_ms(double ms)
{
    double end = clock_ns() * 1e-9 + ms / 1000;
    while (!stop_flag) {
        double left = end - clock_ns() * 1e-9;
        if (left <= 0)
            break;
        if (left > 0.01)
            left = 0.01;   /* wake often enough to see Ctrl-C */
        struct timespec ts = { 0, (long)(left * 1e9) };
        nanosleep(&ts, NULL);
    }
}

#define CHUNK 256   /* loads timed together: ~50 us from memory */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

typedef struct run_ctx {
    uint32_t *chunk, *sorted;   /* per-chunk TSC ticks of one window */
    size_t nchunk;              /* capacity: a window of 2 ns loads */
    mess_result *r;
    mess_traffic *t;
    void *chase;
    double tsc_ghz;
    bool progress;
    double t0;
} run_ctx;

/* One measurement of point p under the load currently set. */
static bool measure(run_ctx *c, mess_point *p)
{
    mess_result *r = c->r;
    sleep_ms(r->settle_ms);
    if (stop_flag)
        return false;
    double core = mess_core_ghz(c->tsc_ghz);
    uint64_t window = (uint64_t)(r->window_ms * 1e6 * c->tsc_ghz);
    uint64_t b0 = c->t ? mess_traffic_bytes(c->t) : 0;
    uint64_t t0 = clock_tsc(), t1, prev = t0;
    size_t n = 0;
    do {
        c->chase = mess_chase_walk(c->chase, CHUNK);
        t1 = clock_tsc();
        c->chunk[n++] = (uint32_t)(t1 - prev < UINT32_MAX ? t1 - prev : UINT32_MAX);
        prev = t1;
    } while (t1 - t0 < window && n < c->nchunk && !stop_flag);
    uint64_t b1 = c->t ? mess_traffic_bytes(c->t) : 0;
    if (stop_flag)
        return false;
    /* A chunk that took more than twice the median was preempted or hit an
     * interrupt (the CPUs may be shared): its time is not load latency. */
    memcpy(c->sorted, c->chunk, n * sizeof *c->chunk);
    qsort(c->sorted, n, sizeof *c->sorted, cmp_u32);
    uint64_t limit = 2 * (uint64_t)c->sorted[n / 2], sum = 0, kept = 0;
    for (size_t i = 0; i < n; i++)
        if (c->chunk[i] <= limit) {
            sum += c->chunk[i];
            kept++;
        }
    r->chunks += n;
    r->chunks_dropped += n - kept;
    double ns = (double)(t1 - t0) / c->tsc_ghz;
    int k = p->reps++;
    p->rep_ns[k] = (double)sum / c->tsc_ghz / (double)(kept * CHUNK);
    p->rep_cyc[k] = p->rep_ns[k] * core;
    p->rep_bw[k] = (double)(b1 - b0) / ns;   /* bytes per ns = GB/s */
    r->measured++;
    if (c->progress) {
        double el = clock_ns() * 1e-9 - c->t0, eta = el / r->measured * (r->total - r->measured);
        fprintf(stderr, "\rnb -mess: %d/%d points, ETA %d:%02d   ", r->measured, r->total,
                (int)eta / 60, (int)eta % 60);
    }
    return true;
}

static int run(run_ctx *c)
{
    mess_result *r = c->r;
    /* Warm up: caches, TLBs and the clock reach their steady state. */
    uint64_t w0 = clock_tsc();
    while (clock_tsc() - w0 < (uint64_t)(200e6 * c->tsc_ghz) && !stop_flag)
        c->chase = mess_chase_walk(c->chase, CHUNK);
    for (int rep = 0; rep < r->reps && !stop_flag; rep++) {
        if (c->t)
            mess_traffic_set(c->t, 100, -1, r->pad_kind);
        if (!measure(c, &r->unloaded))
            break;
        if (rep == 0)
            r->m.core_ghz = r->unloaded.rep_cyc[0] / r->unloaded.rep_ns[0];
        for (int m = 0; m < r->nmix && !stop_flag; m++)
            for (int p = 0; p < r->npad && !stop_flag; p++) {
                mess_traffic_set(c->t, r->mixes[m], r->pads[p], r->pad_kind);
                measure(c, &r->pts[m * r->npad + p]);
            }
    }
    if (c->t)
        mess_traffic_set(c->t, 100, -1, r->pad_kind);
    if (c->progress)
        fputc('\n', stderr);
    return NB_OK;
}

static int alloc_point(mess_point *p, int read_pct, int pad, int reps)
{
    memset(p, 0, sizeof *p);
    p->read_pct = read_pct;
    p->pad = pad;
    p->rep_bw = calloc((size_t)reps * 3, sizeof(double));
    if (!p->rep_bw)
        return NB_ENOMEM;
    p->rep_ns = p->rep_bw + reps;
    p->rep_cyc = p->rep_ns + reps;
    return NB_OK;
}

/* Frees what result_init allocated and leaves r without it, so a second
 * call frees nothing. */
static void free_result(mess_result *r)
{
    free(r->unloaded.rep_bw);
    r->unloaded.rep_bw = NULL;
    if (r->pts)
        for (int i = 0; i < r->nmix * r->npad; i++)
            free(r->pts[i].rep_bw);
    free(r->pts);
    r->pts = NULL;
}

static int write_file(const char *prefix, const char *ext, const mess_result *r,
                      int (*fn)(FILE *, const mess_result *), nb_error *err)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s.%s", prefix, ext) >= (int)sizeof path)
        return nb_error_at(err, NB_EUSAGE, "-mess_out", 0, 0, "is too long: '%s'", prefix);
    FILE *f = fopen(path, "w");
    if (!f)
        return nb_error_at(err, NB_ESYSTEM, "-mess_out", 0, 0, "cannot write %s: %s", path,
                           strerror(errno));
    int st = fn(f, r);
    if (fclose(f) != 0 && st == 0)
        st = NB_ESYSTEM;
    if (st)
        nb_error_at(err, st, "-mess_out", 0, 0, "error writing %s", path);
    return st;
}

/* The outputs PREFIX.csv/.json/.svg can be written, checked before any
 * measuring (a run takes a minute, and its results were lost to a typo): a
 * prefix naming a directory ("dir/", ".", "..") would write hidden files; a
 * missing or read-only directory, or an output that is a directory, fails
 * here.  Nothing is created. */
static int check_outputs(const char *prefix, nb_error *err)
{
    const char *base = strrchr(prefix, '/');
    base = base ? base + 1 : prefix;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return nb_error_at(err, NB_EUSAGE, "-mess_out", 0, 0,
                           "%s names a directory: the files would be hidden (.csv, .json, "
                           ".svg); give a prefix such as %s%smess", prefix, prefix,
                           *base ? "/" : "");
    char dir[PATH_MAX];
    size_t dlen = (size_t)(base - prefix);
    if (dlen + 8 > sizeof dir || strlen(prefix) + 8 > sizeof dir)
        return nb_error_at(err, NB_EUSAGE, "-mess_out", 0, 0, "is too long: '%s'", prefix);
    snprintf(dir, sizeof dir, "%.*s", (int)dlen, prefix);
    static const char *const ext[] = {"csv", "json", "svg"};
    for (int i = 0; i < 3; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s.%s", prefix, ext[i]);
        struct stat st;
        int e = 0;
        if (stat(path, &st) == 0)   /* there: a file nb may overwrite */
            e = S_ISDIR(st.st_mode) ? EISDIR : access(path, W_OK) != 0 ? errno : 0;
        else if (errno != ENOENT || access(dlen ? dir : ".", W_OK | X_OK) != 0)
            e = errno;   /* stat's, or that of the folder the file is to be made in */
        if (e)
            return nb_error_at(err, NB_ESYSTEM, "-mess_out", 0, 0, "cannot write %s: %s", path,
                               strerror(e));
    }
    return NB_OK;
}

static void summary(const mess_result *r, const opts *o)
{
    printf("mess: unloaded latency: %.1f ns (%.0f core cycles at %.2f GHz; TSC %.3f GHz)\n",
           r->unloaded.ns, r->unloaded.cyc, r->m.core_ghz, r->m.tsc_ghz);
    if (!isnan(r->peak_bw)) {
        printf("mess: peak bandwidth: %.2f GB/s (%d%% read, pad %d), latency there %.1f ns\n",
               r->peak_bw, r->peak_mix, r->peak_pad, r->peak_ns);
        if (!isnan(r->lat90_ns) && r->npad >= 2)
            printf("mess: latency at 90%% of peak (%.2f GB/s): %.1f ns\n", 0.9 * r->peak_bw,
                   r->lat90_ns);
        else
            printf("mess: latency at 90%% of peak: not known (%s)\n",
                   r->npad < 2 ? "one point per curve: give -mess_pads two or more"
                               : "the peak's curve has no point at or below 90% of its peak");
    }
    printf("mess: chase %.0f MiB on CPU %d, huge pages %s", r->chase_bytes / MIB, r->chase_cpu,
           !o->huge ? "not asked" : r->chase_huge < 0 ? "unknown" : "");
    if (o->huge && r->chase_huge >= 0)
        printf("%.0f%%", 100 * r->chase_huge);
    if (r->ngen) {
        printf("; %d generator(s) x %.0f MiB, huge pages ", r->ngen, r->gen_bytes / MIB);
        if (r->gen_huge >= 0 && o->huge)
            printf("%.0f%%", 100 * r->gen_huge);
        else
            printf("%s", o->huge ? "unknown" : "not asked");
    }
    printf("\nmess: bandwidth from the generators' byte counts (no uncore counters)\n");
    printf("mess: %d of %d measurements in %.1f s%s\n", r->measured, r->total, r->seconds,
           r->interrupted ? " (interrupted)" : "");
}

/* The chase CPU (the first allowed one unless named) and the generators'
 * CPUs (every other allowed one unless named), checked against `allowed`. */
static int choose_cpus(opts *o, const cpu_set_t *allowed, nb_error *err)
{
    if (o->chase_cpu < 0)
        for (int i = 0; i < CPU_SETSIZE && o->chase_cpu < 0; i++)
            if (CPU_ISSET(i, allowed))
                o->chase_cpu = i;
    for (int i = 0; i < o->ngen; i++)
        for (int k = 0; k < i; k++)
            if (o->gen_cpus[k] == o->gen_cpus[i])
                return nb_error_at(err, NB_EUSAGE, "-mess_gen_cpus", 0, 0,
                                   "CPU %d is named twice (one generator a CPU)", o->gen_cpus[i]);
    if (!CPU_ISSET(o->chase_cpu, allowed))
        return nb_error_at(err, NB_EUSAGE, "-mess_cpu", 0, 0, "CPU %d is not available to nb",
                           o->chase_cpu);
    if (o->unloaded_only)
        o->ngen = 0;
    else if (o->ngen < 0) {
        o->ngen = 0;
        for (int i = 0; i < CPU_SETSIZE && o->ngen < MAX_LIST; i++)
            if (CPU_ISSET(i, allowed) && i != o->chase_cpu)
                o->gen_cpus[o->ngen++] = i;
        if (o->ngen == 0)
            return nb_error_at(err, NB_EUNSUPPORTED, "-mess", 0, 0,
                               "only CPU %d is available; the generators need another "
                               "(-mess_unloaded measures latency alone)", o->chase_cpu);
    } else
        for (int i = 0; i < o->ngen; i++)
            if (o->gen_cpus[i] == o->chase_cpu || !CPU_ISSET(o->gen_cpus[i], allowed))
                return nb_error_at(err, NB_EUSAGE, "-mess_gen_cpus", 0, 0, "CPU %d is %s",
                                   o->gen_cpus[i],
                                   o->gen_cpus[i] == o->chase_cpu ? "the chase CPU"
                                                                  : "not available to nb");
    return NB_OK;
}

/* Default buffer sizes from the LLC's (128 MiB if unknown), kept within
 * half of the available memory. */
static int size_buffers(opts *o, size_t llc_bytes, nb_error *err)
{
    size_t llc = llc_bytes ? llc_bytes : (size_t)128 << 20;
    size_t min_size = (size_t)64 << 20;
    bool chase_default = o->chase_bytes == 0, gen_default = o->gen_bytes == 0;
    if (chase_default)
        o->chase_bytes = 2 * llc > min_size ? 2 * llc : min_size;
    if (gen_default) {
        size_t g = o->ngen ? 2 * llc / (size_t)o->ngen : 0;
        o->gen_bytes = g > min_size ? g : min_size;
    }
    /* Stay within half of the available memory: shrink defaults, refuse
     * explicit sizes that do not fit. */
    size_t avail = mem_available() / 2;
    size_t need = o->chase_bytes + (size_t)o->ngen * o->gen_bytes;
    if (avail && need > avail) {
        if (!chase_default || !gen_default)
            return nb_error_at(err, NB_ENOMEM, "-mess_size/-mess_gen_size", 0, 0,
                               "%.0f MiB in all exceeds half of the available memory (%.0f MiB)",
                               need / MIB, avail / MIB);
        double f = (double)avail / (double)need;
        o->chase_bytes = (size_t)(o->chase_bytes * f);
        o->gen_bytes = (size_t)(o->gen_bytes * f);
    }
    o->chase_bytes = o->chase_bytes / 64 * 64;
    if (o->chase_bytes < 128)
        return nb_error_at(err, NB_EUSAGE, "-mess_size", 0, 0, "must be at least 128 bytes");
    return NB_OK;
}

/* The result's settings from the options (its lists point into *o) and
 * room for every point. */
static int result_init(mess_result *r, opts *o, nb_error *err)
{
    int st;
    r->chase_bytes = o->chase_bytes;
    r->gen_bytes = o->ngen ? o->gen_bytes : 0;
    r->chase_cpu = o->chase_cpu;
    r->ngen = o->ngen;
    r->gen_cpus = o->gen_cpus;
    r->nmix = o->unloaded_only ? 0 : o->nmix;
    r->npad = o->unloaded_only ? 0 : o->npad;
    r->mixes = o->mixes;
    r->pads = o->pads;
    r->reps = o->reps;
    r->settle_ms = o->settle_ms;
    r->window_ms = o->window_ms;
    r->pad_kind = o->pad_kind;
    r->sg_window = o->sg_window;
    r->sg_order = o->sg_order;
    r->chase_huge = r->gen_huge = -1;
    r->total = o->reps * (1 + r->nmix * r->npad);
    r->pts = calloc((size_t)(r->nmix * r->npad > 0 ? r->nmix * r->npad : 1), sizeof *r->pts);
    st = r->pts ? alloc_point(&r->unloaded, -1, MESS_UNLOADED, o->reps) : NB_ENOMEM;
    for (int m = 0; m < r->nmix && st == 0; m++)
        for (int p = 0; p < r->npad && st == 0; p++)
            st = alloc_point(&r->pts[m * r->npad + p], o->mixes[m], o->pads[p], o->reps);
    if (st) {
        free_result(r);
        return nb_error_at(err, st, "-mess", 0, 0, "out of memory for the results");
    }
    return NB_OK;
}

int mess_main(const mess_options *mo, nb_error *err)
{
    opts o;
    opts_of(mo, &o);
    int st;

    cpu_set_t allowed, one;
    if ((st = check_outputs(o.out, err)) != 0)
        return st;
    if (sched_getaffinity(0, sizeof allowed, &allowed)) {
        return nb_error_at(err, NB_ESYSTEM, "-mess", 0, 0, "cannot read the CPU affinity: %s",
                           strerror(errno));
    }
    st = choose_cpus(&o, &allowed, err);
    if (st)
        return st;

    mess_result r;
    memset(&r, 0, sizeof r);
    fingerprint(&r.m, o.chase_cpu);
    st = size_buffers(&o, r.m.llc_bytes, err);
    if (st)
        return st;
    st = result_init(&r, &o, err);
    if (st)
        return st;

    /* Pin the chase (this thread) for the run; restored below. */
    CPU_ZERO(&one);
    CPU_SET(o.chase_cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one)) {
        int e = errno;
        free_result(&r);
        return nb_error_at(err, NB_ESYSTEM, "-mess_cpu", 0, 0, "cannot pin to CPU %d: %s",
                           o.chase_cpu, strerror(e));
    }
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    stop_flag = 0;
    sigaction(SIGINT, NULL, &old_int);
    sigaction(SIGTERM, NULL, &old_term);
    /* A signal the caller ignores (a background job's SIGINT) stays ignored. */
    if (old_int.sa_handler != SIG_IGN)
        sigaction(SIGINT, &sa, NULL);
    if (old_term.sa_handler != SIG_IGN)
        sigaction(SIGTERM, &sa, NULL);

    double start = clock_ns() * 1e-9;
    run_ctx c = { .r = &r, .progress = !o.quiet && isatty(2), .t0 = start };
    mess_buf chase;
    st = mess_buf_alloc(&chase, o.chase_bytes, o.huge, err);
    if (st == 0) {
        if (c.progress)
            fprintf(stderr, "nb -mess: building a %.0f MiB chase and %d generator buffer(s)...",
                    o.chase_bytes / MIB, o.ngen);
        st = mess_chase_init(&chase, o.seed, &c.chase, err);
        r.chase_huge = mess_buf_huge_fraction(&chase);
        if (st == 0 && o.ngen) {
            st = mess_traffic_start(&c.t, o.gen_cpus, o.ngen, o.gen_bytes, o.huge, err);
            if (st == 0)
                r.gen_huge = mess_traffic_huge_fraction(c.t);
        }
        if (c.progress)
            fputc('\n', stderr);
        if (st == 0) {
            c.tsc_ghz = clock_tsc_ghz(20e6);
            r.m.tsc_ghz = c.tsc_ghz;
            c.nchunk = (size_t)(o.window_ms * 1e6 / (2.0 * CHUNK)) + 16;
            c.chunk = malloc(2 * c.nchunk * sizeof *c.chunk);
            c.sorted = c.chunk + c.nchunk;
            c.t0 = clock_ns() * 1e-9;
            st = c.chunk ? run(&c) : nb_error_at(err, NB_ENOMEM, "-mess", 0, 0,
                                                 "out of memory for the chase's timings");
            free(c.chunk);
        }
        mess_traffic_stop(c.t);
        mess_buf_free(&chase);
    }
    r.seconds = clock_ns() * 1e-9 - start;
    r.interrupted = stop_flag != 0;

    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sched_setaffinity(0, sizeof allowed, &allowed);

    if (st == 0 || r.measured > 0) {
        mess_result_reduce(&r);
        /* A failure to write comes after any failure to measure. */
        nb_error werr;
        nb_error_clear(&werr);
        int w = write_file(o.out, "csv", &r, mess_write_csv, &werr);
        if (w == 0)
            w = write_file(o.out, "json", &r, mess_write_json, &werr);
        if (w == 0)
            w = write_file(o.out, "svg", &r, mess_write_svg, &werr);
        if (st == 0 && w) {
            st = w;
            *err = werr;
        } else if (w) {
            char text[sizeof werr.origin + sizeof werr.message + 8];
            nb_error_format(&werr, text, sizeof text);
            nb_warn("%s", text);
        }
        if (r.measured > 0)
            summary(&r, &o);
        if (w == 0)
            printf("mess: wrote %s.csv, %s.json, %s.svg\n", o.out, o.out, o.out);
        if (r.interrupted)
            nb_note("-mess: interrupted after %d of %d measurements; wrote what was measured",
                    r.measured, r.total);
    }
    free_result(&r);
    return st;
}
