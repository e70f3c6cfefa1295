/* nb session: see session.h.  The glue between options, backend, the
 * measuring process and statistics; the only place that knows the order of
 * the whole run. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/session.h"
#include "events/evdb.h"
#include "harness/codegen.h"
#include "pmu/common.h"
#include "pmu/emu.h"
#include "pmu/pmu.h"
#include "pmu/tsc_estimate.h"
#include "pmu/tsc_frontend.h"
#include "pmu/tsc_load.h"
#include "pmu/tsc_method.h"
#include "sys/error.h"
#include "sys/fileio.h"
#include "sys/restore.h"
#include "measure/place.h"
#include "measure/worker.h"
#include "measure/stats.h"
#include "sys/status.h"

static void config_from(const nb_options *o, const cpu_info *cpu, size_t n_events,
                        bool emu_auto, pmu_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->cpu = cpu;
    cfg->cpu_index = o->cpu >= 0 ? (int)o->cpu : sched_getcpu();
    if (cfg->cpu_index < 0)
        cfg->cpu_index = 0;
    cfg->count_usr = o->usr != 0;
    cfg->count_os = o->os != 0;
    /* Without events, measure what the backend offers on its own. */
    cfg->fixed_counters = o->fixed_counters || n_events == 0;
    cfg->no_mem = o->no_mem;
    cfg->sysfs_root = "";
    cfg->dev_root = "";
    cfg->defaults = !o->config && !o->events;
    const char *uarch = NULL;
    nb_error e;
    cfg->event_vendor = o->uarch && evdb_select(cpu, o->uarch, &uarch, &e) == 0 && uarch
                            ? evdb_uarch_vendor(uarch) : cpu->vendor;
    /* the table the emulator resolves event codes through (-uarch's or
     * the CPU's; a bad -uarch was refused before any measurement) */
    if (evdb_select(cpu, o->uarch, &cfg->uarch, &e) != 0)
        cfg->uarch = NULL;
    cfg->emu_auto = emu_auto;
}

/* The copies of the two runs, and a size check with the limit in the message. */
static int plan_copies(const nb_options *o, const bench_code *c, long copies[2], nb_error *err)
{
    copies[0] = o->basic_mode ? 0 : o->unroll_count;
    copies[1] = o->basic_mode ? o->unroll_count : 2 * o->unroll_count;
    if (c->code_len && (unsigned long)copies[1] > CODEGEN_MAX_BYTES / c->code_len)
        return nb_error_set(err, NB_EUSAGE, "-unroll_count %ld: %ld copies of %zu bytes of code "
                            "do not fit: the generated code is limited to %u MiB (lower "
                            "-unroll_count, or use -loop_count)",
                            o->unroll_count, copies[1], c->code_len, CODEGEN_MAX_BYTES >> 20);
    if (o->n_measurements < 1)
        return nb_error_set(err, NB_EUSAGE, "-n_measurements must be at least 1");
    return 0;
}

/* The half-width of e's value before normalization (see
 * bench_event_result.uncertainty). */
static double raw_uncertainty(const bench_event_result *e, const worker_output *ro, size_t k,
                              nb_agg agg)
{
    if (e->exact)
        return 0;
    if (ro->has_unc && k < PMU_MAX_GROUP_CTR)
        return ro->unc[k];
    if (e->n_samples < 2)
        return NAN;
    /* -avg prints trimmed means: their own standard error (the mean's grew
     * with the few stretched samples they drop, to 0.07-2.3 cycles a copy
     * for IMUL chains of 70,000 samples, or lay below what the value
     * missed by: an ADD pair 1.9978 +/- 0.0015), and samples of two
     * speeds, which move them by more than that (an IMUL chain read
     * 3.0024, its error 0.0017, its middle fifths 0.0079 from it); the
     * other aggregates by their distance from the trimmed means too */
    double u = stats_diff_error(e->samples[0], e->samples[1], e->n_samples, agg, TSC_Z);
    /* estimated cycles whose runs the tsc method could not keep (more
     * samples than its log holds): the clock's share too (a clock that
     * moved 5 % while 200,000 samples of 2 MB of NOPs ran left a 0.6 %
     * half-width from the samples alone) */
    if (e->estimated && ro->cal_run[0] > 0)
        u += fabs(e->agg[1] - e->agg[0]) * ro->cal_hw / ro->cal_run[0];
    /* and what the samples' spread does not show: where the code meets
     * the harness, a neighbour's share (1 NOP with -n_measurements 1000000
     * read -0.01 unflagged, the same with 10,000 +/- 3.5) */
    if (k < PMU_MAX_GROUP_CTR)
        u += ro->fixed[k];
    return u;
}

/* "by up to 26%": how far something moved the value, as a share of it;
 * past ten times the value (a value near 0) the share says nothing and the
 * text says so instead of printing 125236%. */
static const char *moved_by(char *buf, size_t n, const char *by, double frac)
{
    if (frac <= 10)
        snprintf(buf, n, "%s %.1f%%", by, 100 * frac);
    else
        snprintf(buf, n, "by more than ten times the value");
    return buf;
}

/* Whether e is pinned down (see bench_event_result.uncertain); where not,
 * a warning on text output (JSON and CSV carry the flag). */
static void judge_uncertainty(bench_event_result *e, double norm, double per_copy, bool works,
                              const worker_output *ro, const nb_options *o)
{
    if (e->unavailable || !isfinite(e->uncertainty))
        return;
    double v = e->value * norm / per_copy, u = e->uncertainty * norm / per_copy;
    bool impossible = e->estimated && works && v + u < 0;
    /* another thread used the core even after starting over: the code ran
     * slower by what it shares with it, which the ADD chain's slowdown
     * does not tell (a 1 % slower ADD chain beside 1.5-2.3 times slower
     * NOPs), so the interval holds only where nothing shared the core */
    bool shared = e->estimated &&
                  tsc_neighbour_seen(ro->alu_slowdown, ro->alu_slowdown_hw, ro->fe_slowdown,
                                     ro->ld_slowdown, ro->ld_slowdown_hw, ro->port_slowdown);
    /* or came and went: a fifth of a program's runs or more far above the
     * rest, and those kept slowed part of the way (tsc_disturbed) */
    bool disturbed = e->estimated && ro->disturbed;
    bool wide = u > tsc_tolerance(v);
    e->uncertain = wide || impossible || shared || disturbed;
    if (o->output != OUTPUT_TEXT)
        return;
    char by[48];
    if (impossible)
        nb_warn("%s: %.4f +/- %.4f per copy: negative cycles on code that does something: "
                "impossible; the host disturbed the measurement (measure again)", e->name, v, u);
    else if (shared)
        nb_warn("%s: %.4f +/- %.4f per copy: not pinned down: measured while another thread "
                "shared the core (see the backend line), which slows code by what the two "
                "share: an upper bound; measure again when the core is quiet", e->name, v, u);
    else if (disturbed)
        nb_warn("%s: %.4f +/- %.4f per copy: not pinned down: %.0f%% of a program's runs read "
                "far above the rest (the core was disturbed while it ran, by another thread "
                "or the host, or the code's cost varies from run to run; see the backend "
                "line); measure again", e->name, v, u,
                100 * fmax(1 - (double)ro->kept[0] / (double)(ro->runs[0] ? ro->runs[0] : 1),
                           1 - (double)ro->kept[1] / (double)(ro->runs[1] ? ro->runs[1] : 1)));
    else if (e->uncertain && ro->data_pages > PLACE_DATA_PAGES)
        nb_warn("%s: %.4f +/- %.4f per copy: not pinned down: its data lay on %zu pages, more "
                "than an L1 data TLB holds (%d): what it costs moves with the physical pages it "
                "gets and the TLBs' state, which nb neither sets nor samples (%.0f%% of the "
                "value in the uncertainty; see the backend line)", e->name, v, u, ro->data_pages,
                PLACE_DATA_PAGES, 100 * PLACE_DATA_SHARE);
    else if (e->uncertain && e->estimated && ro->context * fabs(v) > tsc_tolerance(v) / 2)
        nb_warn("%s: %.4f +/- %.4f per copy: not pinned down to max(0.02, 1.5 %%) (%s: where it "
                "meets the harness moves its cost %s, JSON harness_context: raise "
                "-unroll_count%s)", e->name, v, u,
                ro->fe_bound ? "short code that the front end bounds"
                             : "short code, or a loop of code that keeps the core's units busy",
                moved_by(by, sizeof by, "by up to", ro->context),
                o->loop_count > 1 ? " or -loop_count" : "");
    else if (e->uncertain && e->estimated && ro->passes == 0 && ro->placement_off * fabs(v) > tsc_tolerance(v) / 2)
        nb_warn("%s: %.4f +/- %.4f per copy: not pinned down to max(0.02, 1.5 %%) (measured at "
                "one place in memory, which can move its cost by %.1f%%, see the backend line: "
                "fewer -n_measurements measure it at others)", e->name, v, u,
                100 * ro->placement_off);
    else if (e->uncertain && e->estimated && fabs(ro->loop_misfit) * fabs(v) > tsc_tolerance(v) / 2)
        nb_warn("%s: %.4f +/- %.4f per copy: not pinned down to max(0.02, 1.5 %%) (in the loop, "
                "the first program's copies cost %+.1f%% a copy against the ones the second has "
                "more: the code's cost grows with its size, a cache it outgrows or shares with "
                "another thread; see the backend line)", e->name, v, u, 100 * ro->loop_misfit);
    else if (e->uncertain && e->estimated && ro->prelude_spread * fabs(v) > tsc_tolerance(v))
        nb_warn("%s: %.4f +/- %.4f per copy: not pinned down to max(0.02, 1.5 %%) (what ran "
                "right before the code moved its cost %s, see the backend line: raise "
                "-unroll_count or -loop_count)", e->name, v, u,
                moved_by(by, sizeof by, "by", ro->prelude_spread));
    else if (e->uncertain && e->estimated && ro->settle_spread * fabs(v) > tsc_tolerance(v))
        nb_warn("%s: %.4f +/- %.4f per copy: not pinned down to max(0.02, 1.5 %%) (the code's "
                "cost moved %s while it was measured, see the backend line: raise "
                "-warm_up_count or -n_measurements)", e->name, v, u,
                moved_by(by, sizeof by, "by", ro->settle_spread));
    else if (e->uncertain)
        nb_warn("%s: %.4f +/- %.4f per copy: not pinned down to max(0.02, 1.5 %%) (%s)",
                e->name, v, u,
                ro->placement_averaged
                    ? "the code's cost depends on where it lies in memory, see the backend "
                      "line; or the host is busy"
                    : "the host is busy, or the difference is too small for the clock: "
                      "raise -unroll_count or -loop_count");
}

static int add_results(const nb_options *o, const worker_output *ro, size_t group, size_t n,
                       bool stepped, bench_result *r, double norm, double per_copy, bool works)
{
    bench_event_result *ev = realloc(r->ev, (r->n_ev + ro->n_ctr) * sizeof *ev);
    if (!ev)
        return NB_ENOMEM;
    r->ev = ev;
    for (size_t k = 0; k < ro->n_ctr; k++) {
        bench_event_result *e = &r->ev[r->n_ev];
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "%s", ro->ctr[k].name);
        e->unavailable = ro->ctr[k].read == PMU_READ_NONE;
        e->estimated = ro->ctr[k].tsc_cycles;
        e->exact = stepped && !e->unavailable;
        e->step_over = ro->step_over && ro->ctr[k].emu;
        e->overflow = ro->overflow[k];
        e->lost = k < PMU_MAX_GROUP_CTR ? ro->lost[k] : PMU_KEPT;
        e->uncertainty = NAN;
        if (e->lost) {
            e->unavailable = true;
            nb_warn("%s: not read: %s", e->name, pmu_lost_text((pmu_lost)e->lost));
        }
        e->group = group;
        r->n_ev++;
        if (e->unavailable)   /* no samples kept: -config all names hundreds of these */
            continue;
        e->n_samples = n;
        for (int run = 0; run < 2; run++) {
            if (!(e->samples[run] = malloc(n * sizeof(double))))
                return NB_ENOMEM;
            memcpy(e->samples[run], ro->samples[run] + k * n, n * sizeof(double));
        }
        for (int run = 0; run < 2; run++)
            e->agg[run] = stats_aggregate(e->samples[run], n, o->agg);
        e->value = (e->agg[1] - e->agg[0]) / norm;
        e->uncertainty = raw_uncertainty(e, ro, k, o->agg) / norm;
        judge_uncertainty(e, norm, per_copy, works, ro, o);
        /* -range: the widest per-copy difference the samples allow (second
         * run's min minus first run's max, and the reverse), so the range
         * always contains the aggregate. */
        double lo = (stats_min(e->samples[1], n) - stats_max(e->samples[0], n)) / norm;
        double hi = (stats_max(e->samples[1], n) - stats_min(e->samples[0], n)) / norm;
        e->min = fmin(lo, hi);
        e->max = fmax(lo, hi);
    }
    return 0;
}

static bool group_reads_anything(const pmu_group *g)
{
    for (size_t i = 0; i < g->n_ctr; i++)
        if (g->ctr[i].read != PMU_READ_NONE)
            return true;
    return false;
}

/* The worker's output for a group of events none of which can be counted
 * (over: a group the emulator was to count, but not within its budget). */
static int unavailable_output(const pmu_group *g, long n, bool over, worker_output *ro)
{
    memset(ro, 0, sizeof *ro);
    ro->n_ctr = g->n_ctr;
    ro->ctr = calloc(g->n_ctr + 1, sizeof *ro->ctr);
    ro->overflow = calloc(g->n_ctr + 1, sizeof *ro->overflow);
    for (int r = 0; r < 2; r++)
        ro->samples[r] = calloc(g->n_ctr * (size_t)n + 1, sizeof(double));
    if (!ro->ctr || !ro->overflow || !ro->samples[0] || !ro->samples[1]) {
        worker_output_free(ro);
        return NB_ENOMEM;
    }
    memcpy(ro->ctr, g->ctr, g->n_ctr * sizeof *g->ctr);
    for (size_t k = 0; over && k < g->n_ctr; k++)
        ro->ctr[k].read = PMU_READ_NONE;
    ro->step_over = over;
    return 0;
}

static void add_calibration(bench_result *r, const worker_output *ro, double **all,
                            size_t *n_all)
{
    if (ro->n_cal == 0)
        return;
    double *v = realloc(*all, (*n_all + ro->n_cal) * sizeof *v);
    if (!v)
        return;
    memcpy(v + *n_all, ro->cal, ro->n_cal * sizeof *v);
    *all = v;
    *n_all += ro->n_cal;
    if (r->cal.n_cal == 0) {
        r->cal.ticks_per_cycle_run[0] = ro->cal_run[0];
        r->cal.ticks_per_cycle_run[1] = ro->cal_run[1];
        r->cal.ticks_per_cycle_hw = ro->cal_hw;
        r->cal.tsc_ghz = ro->tsc_ghz;
        r->cal.alu_slowdown = ro->alu_slowdown;
        r->cal.alu_slowdown_hw = ro->alu_slowdown_hw;
        r->cal.fe_slowdown = ro->fe_slowdown;
        r->cal.fe_slowdown_hw = ro->fe_slowdown_hw;
        r->cal.ld_slowdown = ro->ld_slowdown;
        r->cal.ld_slowdown_hw = ro->ld_slowdown_hw;
        memcpy(r->cal.port_slowdown, ro->port_slowdown, sizeof r->cal.port_slowdown);
        memcpy(r->cal.port_slowdown_hw, ro->port_slowdown_hw, sizeof r->cal.port_slowdown_hw);
        r->cal.clock_moved = ro->clock_moved;
        r->cal.restarts = ro->restarts;
        r->cal.shared_waits = ro->shared_waits;
        r->cal.placements = ro->placements;
        r->cal.placement_moved = ro->placement_moved;
        r->cal.placement_averaged = ro->placement_averaged;
        r->cal.placement_compared = ro->placement_compared;
        r->cal.placement_off = ro->placement_off;
        r->cal.loop_misfit = ro->loop_misfit;
        r->cal.data_pages = ro->data_pages;
        r->cal.disturbed = ro->disturbed;
        r->cal.prelude_spread = ro->prelude_spread;
        r->cal.settle_spread = ro->settle_spread;
        r->cal.harness_context = ro->context;
        r->cal.fe_bound = ro->fe_bound;
        r->cal.tsc_step = ro->tsc_step;
        for (int i = 0; i < 2; i++) {
            r->cal.runs[i] = ro->runs[i];
            r->cal.kept[i] = ro->kept[i];
        }
        r->cal.passes = ro->passes;
    }
    r->cal.n_cal = *n_all;
    r->cal.calibrations += ro->cal_runs;   /* >= n_cal: worker.c checks */
    r->cal.ticks_per_cycle = *n_all == ro->n_cal ? ro->cal_run[0] : stats_median(v, *n_all);
    r->cal.ticks_per_cycle_min = stats_min(v, *n_all);
    r->cal.ticks_per_cycle_max = stats_max(v, *n_all);
    if (r->cal.ticks_per_cycle > 0)
        r->cal.core_ghz = r->cal.tsc_ghz / r->cal.ticks_per_cycle;
}

/* What a session keeps from one benchmark to the next: the backend chosen
 * for (backend option, CPU, usr, os), user-mode rdpmc switched on once, and
 * for the last event set its grouping and, for backends that open in the
 * parent (msr: programmed MSRs; tsc), the open groups. */
struct bench_session {
    bool have_backend;
    pmu_backend_kind kind;
    int cpu_index;
    bool usr, os, fixed;
    pmu_config cfg;
    const cpu_info *cpu;
    const pmu_backend *be;
    size_t restore_mark;        /* registry entries before the session's */
    /* the cached plan */
    bool have_plan;
    nb_event *events;
    size_t n_events;
    pmu_plan plan;
    pmu_group *opened;          /* [plan.n_groups] when open_in_parent */
    size_t n_opened;
    /* auto adds the emulator to the tsc backend for every benchmark (a
     * single run), not only where a batch line names events */
    bool emu_default;
    const char *dev_root, *sysfs_root;   /* bench_session_set_roots (tests) */
};

/* The session whose groups are open, closed from the restore registry if nb
 * is stopped by a signal meanwhile (one session at a time has groups). */
static bench_session *g_open_session;

static void close_groups(bench_session *s)
{
    for (size_t g = s->n_opened; g-- > 0;)
        s->be->close(&s->opened[g]);
    s->n_opened = 0;
}

static void close_open_groups(void)
{
    if (g_open_session)
        close_groups(g_open_session);
    g_open_session = NULL;
}

static void drop_plan(bench_session *s)
{
    if (s->n_opened) {
        restore_forget_fn(close_open_groups);
        close_open_groups();
    }
    free(s->opened);
    s->opened = NULL;
    if (s->have_plan)
        pmu_plan_free(&s->plan);
    free(s->events);
    s->events = NULL;
    s->have_plan = false;
}

static void drop_backend(bench_session *s)
{
    /* the measuring process first: restore_all() below would kill it
     * behind the worker's back (its kill_child entry), and the next run
     * would post to a dead process */
    worker_stop();
    drop_plan(s);
    while (restore_pending() > s->restore_mark)
        restore_all();
    s->have_backend = false;
}

void bench_session_set_roots(bench_session *s, const char *dev_root, const char *sysfs_root)
{
    s->dev_root = dev_root;
    s->sysfs_root = sysfs_root;
    s->have_backend = false;
}

bench_session *bench_session_new(void)
{
    bench_session *s = calloc(1, sizeof *s);
    if (s)
        s->restore_mark = restore_pending();
    return s;
}

void bench_session_free(bench_session *s)
{
    if (!s)
        return;
    worker_stop();
    drop_backend(s);
    free(s);
}

static bool same_events(const bench_session *s, const nb_event *ev, size_t n)
{
    if (!s->have_plan || s->n_events != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!pmu_event_equal(&s->events[i], &ev[i]))
            return false;
    return true;
}

/* Select the backend for these options (again only if they changed). */
static int session_backend(bench_session *s, const nb_options *o, const cpu_info *cpu,
                           size_t n_events, nb_error *err)
{
    pmu_config cfg;
    config_from(o, cpu, n_events, s->emu_default || o->events || o->config, &cfg);
    if (s->dev_root)
        cfg.dev_root = s->dev_root;
    if (s->sysfs_root)
        cfg.sysfs_root = s->sysfs_root;
    if (s->have_backend && s->kind == o->backend && s->cpu_index == cfg.cpu_index &&
        s->usr == cfg.count_usr && s->os == cfg.count_os && s->fixed == cfg.fixed_counters &&
        s->cfg.defaults == cfg.defaults && s->cfg.event_vendor == cfg.event_vendor &&
        s->cfg.emu_auto == cfg.emu_auto && s->cfg.uarch == cfg.uarch &&
        s->cfg.no_mem == cfg.no_mem && s->cpu == cpu)
        return 0;
    if (s->have_backend)
        drop_backend(s);
    const pmu_backend *be = pmu_select(o->backend, &cfg, err);
    if (!be) {
        nb_error_prefix(err, "no usable counter backend");
        return NB_EUNSUPPORTED;
    }
    nb_error_clear(err);   /* the refusals of the backends above it */
    restore_install_signals();
    if (be->flags & PMU_BE_RDPMC) {
        /* rdpmc in user mode: switched on (root) in the parent, so that a
         * child killed mid-run cannot leave it changed. */
        int e = pmu_rdpmc_enable(&cfg, be->flags & PMU_BE_RDPMC_ALWAYS, err);
        if (e < 0)
            return e;
        if (e == 1)
            restore_push_fn(pmu_rdpmc_restore);
    }
    s->have_backend = true;
    s->kind = o->backend;
    s->cpu_index = cfg.cpu_index;
    s->usr = cfg.count_usr;
    s->os = cfg.count_os;
    s->fixed = cfg.fixed_counters;
    s->cpu = cpu;
    s->cfg = cfg;
    s->be = be;
    return 0;
}

/* Group the events (again only if they changed); MSRs are per CPU (msr.c):
 * programmed by the parent, so a crashed child cannot leave them set.  The
 * tsc backend changes nothing: opened here too, so that a group it cannot
 * count at all is not run. */
static int session_plan(bench_session *s, const nb_event *events, size_t n_events,
                        nb_error *err)
{
    if (same_events(s, events, n_events))
        return 0;
    drop_plan(s);
    const pmu_backend *be = s->be;
    if (pmu_plan_make(be, &s->cfg, events, n_events, &s->plan, err)) {
        nb_error_prefix(err, "%s: cannot group the events", be->name);
        err->status = NB_EUNSUPPORTED;
        return NB_EUNSUPPORTED;
    }
    s->have_plan = true;
    s->events = malloc((n_events ? n_events : 1) * sizeof *s->events);
    if (!s->events) {
        drop_plan(s);
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    }
    if (n_events)
        memcpy(s->events, events, n_events * sizeof *events);
    s->n_events = n_events;
    if (!(be->flags & PMU_BE_OPENS_IN_PARENT))
        return 0;
    s->opened = calloc(s->plan.n_groups + 1, sizeof *s->opened);
    if (!s->opened) {
        drop_plan(s);
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    }
    g_open_session = s;
    restore_push_fn(close_open_groups);
    for (size_t g = 0; g < s->plan.n_groups; g++) {
        int rc = be->open(&s->cfg, &s->plan.groups[g], &s->opened[g], err);
        if (rc) {
            nb_error_prefix(err, "%s", be->name);
            err->status = rc;
            drop_plan(s);
            return rc;
        }
        s->n_opened = g + 1;
    }
    return 0;
}

/* The numbers of the options the engine uses (see measure_params). */
static measure_params measure_params_of(const nb_options *o)
{
    return (measure_params){
        .n_measurements = o->n_measurements, .warm_up_count = o->warm_up_count,
        .initial_warm_up_count = o->initial_warm_up_count, .loop_count = o->loop_count,
        .alignment_offset = o->alignment_offset, .no_mem = o->no_mem, .df = o->df,
        .debug = o->debug, .r14_size = o->r14_size > 0 ? (size_t)o->r14_size : (size_t)1 << 20,
        .r14_mid = o->r14_size <= 0, .timeout = o->timeout, .agg = (int)o->agg,
        .patient = !o->batch && !o->sweep,
    };
}

/* The four code fragments, each named after the option it came from. */
static void fragments_of(const nb_options *o, const bench_code *c, nb_fragment f[NB_FRAG_MAX])
{
    f[NB_FRAG_CODE] = (nb_fragment){o->code && !o->asm_code ? "-code" : "-asm", c->code,
                                    c->code_len};
    f[NB_FRAG_INIT] = (nb_fragment){o->code_init && !o->asm_init ? "-code_init" : "-asm_init",
                                    c->init, c->init_len};
    f[NB_FRAG_LATE_INIT] = (nb_fragment){o->code_late_init && !o->asm_late_init
                                             ? "-code_late_init" : "-asm_late_init",
                                         c->late_init, c->late_init_len};
    f[NB_FRAG_ONE_TIME_INIT] = (nb_fragment){o->code_one_time_init && !o->asm_one_time_init
                                                 ? "-code_one_time_init" : "-asm_one_time_init",
                                             c->one_time_init, c->one_time_init_len};
}

/* Whether stepping a group with a budget (tsc+emu) is sure to run over
 * it: every iteration of the loop steps its JNZ, a trap each, in both
 * programs (what the code itself costs comes on top). */
static bool surely_over_budget(const pmu_group *g, const long loops[2])
{
    return g && g->stepped && g->step_budget &&
           (double)loops[0] + (double)loops[1] > (double)g->step_budget;
}

/* tsc+emu gave up stepping a group: its events are unavailable, and
 * -backend emu would count them. */
static void note_over_budget(const worker_output *ro, unsigned long budget)
{
    size_t n = 0;
    const char *first = "";
    for (size_t k = 0; k < ro->n_ctr; k++)
        if (ro->ctr[k].emu && !n++)
            first = ro->ctr[k].name;
    char more[48] = "";
    if (n > 1)
        snprintf(more, sizeof more, " and %zu more events", n - 1);
    nb_note("note: %s%s: not counted: the emulator would take more than %lu traps, too long "
            "to add to this run; -backend emu counts them", first, more, budget);
}

/* The table's default events this backend cannot count are left out (the
 * user did not ask for them), said in one note, once a process for as many
 * (a batch said it for every line); -config or -events list every event,
 * unavailable ones included. */
static void drop_unmeasured(bench_result *r)
{
    static size_t said;
    size_t kept = 0, dropped = 0;
    for (size_t i = 0; i < r->n_ev; i++) {
        if (r->ev[i].unavailable && !r->ev[i].lost && !r->ev[i].step_over) {
            free(r->ev[i].samples[0]);
            free(r->ev[i].samples[1]);
            dropped++;
            continue;
        }
        r->ev[kept++] = r->ev[i];
    }
    r->n_ev = kept;
    if (dropped && dropped != said) {
        nb_note("%zu of the event table's default events need a hardware PMU and are not "
                "shown (nb -cpu_info says why there is none; -config all or -events lists "
                "them)", dropped);
        said = dropped;
    }
}

int bench_session_run(bench_session *s, const nb_options *o, const bench_code *c,
                      const nb_event *events, size_t n_events, const cpu_info *cpu,
                      bench_result *out, nb_error *err)
{
    nb_error dummy;
    if (!err)
        err = &dummy;
    nb_error_clear(err);
    memset(out, 0, sizeof *out);
    long copies[2];
    int rc = plan_copies(o, c, copies, err);
    if (rc)
        return rc;
    if ((rc = session_backend(s, o, cpu, n_events, err)) ||
        (rc = session_plan(s, events, n_events, err)))
        return rc;
    const pmu_backend *be = s->be;
    out->backend = be->name;
    out->copies[0] = copies[0];
    out->copies[1] = copies[1];
    /* nanoBench's base run of -basic_mode has neither copies nor the loop, so
     * the loop's own dec/jnz are part of the result per iteration. */
    out->loops[0] = o->basic_mode ? 0 : o->loop_count;
    out->loops[1] = o->loop_count;
    long reps = o->loop_count * o->unroll_count > o->unroll_count ? o->loop_count * o->unroll_count
                                                                  : o->unroll_count;
    out->normalization = o->no_normalization ? 1.0 : (double)reps;
    out->n_groups = s->plan.n_groups;
    double *cal_all = NULL;
    size_t n_cal_all = 0;
    measure_params params = measure_params_of(o);
    nb_fragment frag[NB_FRAG_MAX];
    fragments_of(o, c, frag);
    bool fresh = true;
    for (size_t g = 0; g < s->plan.n_groups && rc == 0; g++) {
        const pmu_group *opened = s->opened ? &s->opened[g] : NULL;
        worker_request job = {
            .p = params, .backend = be, .cfg = &s->cfg, .plan = &s->plan.groups[g],
            .opened = opened, .cpu = s->cfg.cpu_index,
            .copies = {copies[0], copies[1]}, .loops = {out->loops[0], out->loops[1]},
            .fresh = fresh, .groups = s->plan.groups, .n_groups = s->plan.n_groups,
        };
        /* an emulated group's counts do not depend on timing: one
         * measurement of each program */
        if (opened && opened->once)
            job.p.n_measurements = 1;
        memcpy(job.frag, frag, sizeof frag);
        worker_output ro;
        bool over = surely_over_budget(opened, out->loops);
        bool runs = (!opened || group_reads_anything(opened)) && !over;
        if (!runs)
            rc = unavailable_output(opened, job.p.n_measurements, over, &ro);
        else
            rc = worker_run(&job, &ro, err);
        fresh &= !runs;
        if (rc == NB_ENOMEM && !err->message[0])
            nb_error_set(err, rc, "out of memory");
        if (rc == 0) {
            rc = add_results(o, &ro, g, (size_t)job.p.n_measurements, opened && opened->stepped,
                             out, out->normalization, (double)reps, c->code_len > 0);
            if (rc)
                nb_error_set(err, rc, "out of memory");
            add_calibration(out, &ro, &cal_all, &n_cal_all);
            if (ro.step_over && opened)   /* only stepped groups go over */
                note_over_budget(&ro, opened->step_budget);
            else
                out->emu_instructions += ro.retired, out->emu_traps += ro.steps;
            worker_output_free(&ro);
        }
    }
    free(cal_all);
    if (rc == 0 && s->cfg.defaults)
        drop_unmeasured(out);
    if (rc)
        bench_result_free(out);
    return rc;
}

int bench_run(const nb_options *o, const bench_code *c, const nb_event *events,
              size_t n_events, const cpu_info *cpu, bench_result *out, nb_error *err)
{
    bench_session *s = bench_session_new();
    if (!s)
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    s->emu_default = true;
    int rc = bench_session_run(s, o, c, events, n_events, cpu, out, err);
    bench_session_free(s);
    return rc;
}

int bench_dry_run(FILE *f, const nb_options *o, const nb_event *events, size_t n_events,
                  const cpu_info *cpu, nb_error *err)
{
    nb_error dummy;
    if (!err)
        err = &dummy;
    nb_error_clear(err);
    pmu_config cfg;
    config_from(o, cpu, n_events, true, &cfg);
    const pmu_backend *be = NULL;
    /* A forced backend prints its plan even where it could not run. */
    switch (o->backend) {
    case PMU_BACKEND_PERF: be = &pmu_perf_backend; break;
    case PMU_BACKEND_MSR: be = &pmu_msr_backend; break;
    case PMU_BACKEND_TSC: be = &pmu_tsc_backend; break;
    case PMU_BACKEND_EMU: be = &pmu_emu_backend; break;
    default: be = pmu_select(PMU_BACKEND_AUTO, &cfg, err); break;
    }
    if (!be) {
        nb_error_prefix(err, "no usable counter backend");
        return NB_EUNSUPPORTED;
    }
    nb_error_clear(err);
    pmu_plan plan;
    int rc = pmu_plan_make(be, &cfg, events, n_events, &plan, err);
    if (rc) {
        nb_error_prefix(err, "%s: cannot group the events", be->name);
        return rc;
    }
    be->dry_run(f, &cfg, &plan);
    pmu_plan_free(&plan);
    return 0;
}

void bench_backend_line(const bench_result *r, char *buf, size_t buflen)
{
    const bench_calibration *k = &r->cal;
    char stepped[96] = "";
    if (r->emu_traps)
        snprintf(stepped, sizeof stepped, "%sexact counts: %llu instructions, %llu traps",
                 k->n_cal ? "; " : "", r->emu_instructions, r->emu_traps);
    if (k->n_cal == 0) {
        snprintf(buf, buflen, "%s%s%s%s", r->backend ? r->backend : "?",
                 r->emu_traps ? " (" : "", stepped, r->emu_traps ? ")" : "");
        return;
    }
    /* the ADD chain ran slower than the clock beyond both chains'
     * uncertainty: something shares the core's ALUs; the NOP loop slower
     * than the quiet core's: something shares its front end; the chain of
     * loads slower than its latency: something shares its load pipeline;
     * a port probe slower than the quiet core's: its load ports, store
     * ports or ALUs; a sibling hyperthread only where this system has SMT
     * on */
    char busy[560] = "", what[400] = "", smt[8] = "";
    bool alu = tsc_core_shared(k->alu_slowdown, k->alu_slowdown_hw),
         fe = tsc_frontend_shared(k->fe_slowdown),
         ld = tsc_load_shared(k->ld_slowdown, k->ld_slowdown_hw), any = alu || fe || ld;
    if (alu)
        snprintf(what, sizeof what, "1-cycle ALU chains ran %.1f%% slow, +/- %.1f%%",
                 100 * k->alu_slowdown, 100 * k->alu_slowdown_hw);
    if (fe)
        snprintf(what + strlen(what), sizeof what - strlen(what),
                 "%sa loop of NOPs ran %.0f%% slower than on a quiet core", alu ? "; " : "",
                 100 * k->fe_slowdown);
    if (ld)
        snprintf(what + strlen(what), sizeof what - strlen(what),
                 "%sa chain of L1 loads ran %.1f%% slower than its latency, +/- %.1f%%",
                 alu || fe ? "; " : "", 100 * k->ld_slowdown, 100 * k->ld_slowdown_hw);
    for (int p = 0; p < TSC_PORTS; p++)
        if (tsc_port_shared(k->port_slowdown[p])) {
            snprintf(what + strlen(what), sizeof what - strlen(what),
                     "%s%s ran %.0f%% slower than on a quiet core", any ? "; " : "",
                     tsc_ports[p].what, 100 * k->port_slowdown[p]);
            any = true;
        }
    if (any)
        snprintf(busy, sizeof busy, "; %s (%s)", what,
                 file_read_line("", "/sys/devices/system/cpu/smt/active", smt, sizeof smt) &&
                         strcmp(smt, "1") == 0
                     ? "the other hyperthread of this core is busy"
                     : "SMT is off here: the core is shared from outside, e.g. by a VM's host");
    /* the clock moved beyond its noise even after starting over: its
     * half-width covers the move, and says so */
    char moved[128] = "";
    if (k->clock_moved > 0)
        snprintf(moved, sizeof moved, "; the core's clock moved %.1f%% while measured%s",
                 100 * k->clock_moved, k->restarts ? ", after starting over" : "");
    char place[256] = "";
    if (k->passes == 0 && k->placement_off > 0)
        snprintf(place, sizeof place, "; measured at one place in memory (samples too many to "
                 "measure again elsewhere: fewer -n_measurements would), what its place can move "
                 "it by (%.1f%%) in the uncertainty", 100 * k->placement_off);
    else if (k->placement_averaged)
        snprintf(place, sizeof place, "; code beyond the L1 instruction cache costs what its "
                 "pages make it cost: the middle of %u places in memory (the furthest %+.1f%% from "
                 "the first), their spread in the uncertainty", k->placements,
                 100 * k->placement_off);
    else if (k->placement_compared && k->placement_moved)
        snprintf(place, sizeof place, "; the code read %+.1f%% off where it first lay in memory: "
                 "measured at %u places, another kept (where no two agreed, their distance in the "
                 "uncertainty)", 100 * k->placement_off, k->placements);
    else if (k->placement_compared && k->placements > 2 && k->placement_off != 0)
        snprintf(place, sizeof place, "; the code read up to %+.1f%% apart at %u places in "
                 "memory: the first kept (where no two agreed, their distance in the "
                 "uncertainty)", 100 * k->placement_off, k->placements);
    else if (k->placement_compared)
        ;   /* two places agreed, or the others were not linear: nothing to say */
    else if (k->placements > 1 && k->placement_moved)
        snprintf(place, sizeof place, "; where the code first lay in memory its cost was not its "
                 "copies' (the value %+.0f%% off): measured again at another place, that kept",
                 100 * k->placement_off);
    else if (k->placements > 1)
        snprintf(place, sizeof place, "; the code's cost did not grow with its copies alone, "
                 "at a second place in memory too (%+.0f%% there): the first kept",
                 100 * k->placement_off);
    /* data beyond an L1 data TLB's reach (place.h) */
    char data[192] = "";
    if (k->data_pages > PLACE_DATA_PAGES)
        snprintf(data, sizeof data, "; the data lay on %zu pages, more than an L1 data TLB "
                 "holds: its cost moves with the pages it gets (%.0f%% of the value in the "
                 "uncertainty)", k->data_pages, 100 * PLACE_DATA_SHARE);
    /* the preludes moved the value beyond the tolerance's share of it */
    char prelude[192] = "", by[48];
    if (k->prelude_spread > 0.015)
        snprintf(prelude, sizeof prelude, "; what ran right before the code moved its cost %s "
                 "(two preludes, their mean printed, their distance in the uncertainty)",
                 moved_by(by, sizeof by, "by", k->prelude_spread));
    /* the code's cost moved while it was measured */
    char settle[160] = "";
    if (k->settle_spread > 0.015)
        snprintf(settle, sizeof settle, "; the code's cost moved %s from the first half of its "
                 "runs to the second (their distance in the uncertainty)",
                 moved_by(by, sizeof by, "by", k->settle_spread));
    /* a loop's first program's copies against the difference (place.h) */
    char loop[224] = "";
    if (k->loop_misfit != 0)
        snprintf(loop, sizeof loop, "; in the loop the first program's copies cost %+.1f%% a copy "
                 "against the ones the second has more (the code's cost grows with its size: a "
                 "cache it outgrows, or shares with another thread), both in the uncertainty",
                 100 * k->loop_misfit);
    /* a fifth of a program's runs or more beyond the rest (tsc_disturbed) */
    char dist[160] = "";
    if (k->disturbed)
        snprintf(dist, sizeof dist, "; only %zu and %zu of the programs' %zu and %zu runs read "
                 "alike, the rest far above (the core was disturbed while they ran)",
                 k->kept[0], k->kept[1], k->runs[0], k->runs[1]);
    /* a shared core waited out (tsc_method.h: TSC_SHARED_PAUSE_NS) */
    char waited[160] = "";
    if (k->shared_waits)
        snprintf(waited, sizeof waited, any || k->disturbed
                     ? "; still so after waiting %zu times %.0f ms for the core to be left alone"
                     : "; measured after waiting %zu times %.0f ms for the core to be left alone",
                 k->shared_waits, TSC_SHARED_PAUSE_NS / 1e6);
    char hw[48] = "";
    if (isfinite(k->ticks_per_cycle_hw))
        snprintf(hw, sizeof hw, " +/- %.4f", k->ticks_per_cycle_hw);
    snprintf(buf, buflen, "%s (CORE_CYCLES estimated: TSC %.3f GHz, %.4f%s ticks/core cycle "
             "from %zu calibrations, core ~%.2f GHz%s%s%s%s%s%s%s%s%s%s)",
             r->backend, k->tsc_ghz, k->ticks_per_cycle, hw, k->calibrations, k->core_ghz, moved,
             place, data, loop, prelude, settle, dist, busy, waited, stepped);
}

void bench_result_free(bench_result *r)
{
    for (size_t i = 0; i < r->n_ev; i++) {
        free(r->ev[i].samples[0]);
        free(r->ev[i].samples[1]);
    }
    free(r->ev);
    r->ev = NULL;
    r->n_ev = 0;
}

const char *bench_backend_name(const nb_options *o, const cpu_info *cpu, nb_error *why)
{
    pmu_config cfg;
    config_from(o, cpu, 0, true, &cfg);
    const pmu_backend *be = pmu_select(o->backend, &cfg, why);
    return be ? be->name : NULL;
}
