/* nb pmu tsc: the backend for machines without a PMU (VMs).
 *
 * The only counter is the time-stamp counter, read with rdtsc between two
 * lfences.  TSC ticks are not core cycles (here the TSC runs at ~2.1 GHz and
 * the cores near 3.7 GHz), so core cycles are an estimate: the measuring
 * process times, around each run, a long dependent chain of
 * 1-cycle `add rax, rax` and divides ticks by the ticks-per-cycle it found
 * (counters with tsc_cycles set).  Any config event that is not the core
 * cycles event (Intel 0x3C.00, AMD 0x76.00) is unavailable here, and is
 * reported so, never as 0.
 *
 * Plan: the first group holds what is measured: CORE_CYCLES (estimated)
 * and RDTSC when nb picks the events (no events, -fixed_counters, or the
 * table's default set, of which the cycles event is then left out: it would
 * only repeat CORE_CYCLES), and an explicit config's cycles events, which
 * carry the estimate under their own names (nanoBench prints only the
 * config's lines); the config's other events, all unavailable, follow in
 * groups of TSC_GROUP_MAX, in order, and are never run.  So a run needs one
 * execution, and what was measured is listed first.  Cycles events are
 * recognised in the encoding of the events' table (-uarch), not the CPU's.
 * open() needs no system setting and can run anywhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/pmu.h"
#include "sys/status.h"

/* Config events per group; all but the cycles event are unavailable and cost
 * nothing to read, the bound only keeps a group within what one generated
 * program holds. */
#define TSC_GROUP_MAX 16

static int tsc_probe(const pmu_config *cfg, nb_error *err)
{
    (void)cfg;
    (void)err;
    return 0;   /* rdtsc works in user mode on Linux unless CR4.TSD is set */
}


static bool is_core_cycles(const pmu_config *cfg, const nb_event *e)
{
    if (e->cmask || e->inv || e->edge)
        return false;
    cpu_vendor v = e->table_vendor ? (cpu_vendor)e->table_vendor
                   : cfg->event_vendor != CPU_VENDOR_UNKNOWN ? cfg->event_vendor
                   : cfg->cpu ? cfg->cpu->vendor : CPU_VENDOR_UNKNOWN;
    if (nb_event_is_msr(e))
        return false;
    if (v == CPU_VENDOR_AMD)
        return e->evtsel == 0x76 && e->umask == 0;
    return e->evtsel == 0x3C && e->umask == 0;
}

static int tsc_plan(const pmu_config *cfg, const nb_event *ev, size_t n, pmu_plan *out,
                    nb_error *err)
{
    out->groups = NULL;
    out->n_groups = 0;
    int rc = 0;
    (void)cfg;
    nb_event *cyc = malloc((n ? n : 1) * sizeof *cyc), *rest = malloc((n ? n : 1) * sizeof *rest);
    size_t n_cyc = 0, n_rest = 0;
    if (!cyc || !rest) {
        free(cyc);
        free(rest);
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    }
    bool clock = cfg->fixed_counters || cfg->defaults;
    for (size_t i = 0; i < n; i++) {
        if (is_core_cycles(cfg, &ev[i]) && cfg->defaults && clock)
            continue;   /* the table's cycles event: CORE_CYCLES says it */
        if (is_core_cycles(cfg, &ev[i]) && n_cyc + 2 < PMU_MAX_GROUP_CTR)
            cyc[n_cyc++] = ev[i];
        else
            rest[n_rest++] = ev[i];
    }
    if (clock || n_cyc)
        rc = pmu_plan_push(out, n_cyc ? cyc : NULL, n_cyc);
    if (rc == 0 && clock)
        out->groups[0].with_clock = true;   /* CORE_CYCLES (estimated), RDTSC */
    for (size_t i = 0; rc == 0 && i < n_rest; i += TSC_GROUP_MAX)
        rc = pmu_plan_push(out, rest + i, n_rest - i < TSC_GROUP_MAX ? n_rest - i : TSC_GROUP_MAX);
    free(cyc);
    free(rest);
    if (rc) {
        pmu_plan_free(out);
        nb_error_set(err, rc, "out of memory");
    }
    return rc;
}

static void set_ctr(pmu_counter *c, const char *name, pmu_read_kind k, bool cycles)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->read = k;
    c->width = 64;
    c->scale = 1.0;
    c->tsc_cycles = cycles;
}

static int tsc_open(const pmu_config *cfg, const pmu_group_plan *g, pmu_group *out,
                    nb_error *err)
{
    size_t clock = g->with_clock ? 2 : 0;
    size_t n = clock + g->n_events;
    out->ctr = calloc(n ? n : 1, sizeof *out->ctr);
    out->n_ctr = n;
    out->priv = NULL;
    if (!out->ctr)
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    if (clock) {
        set_ctr(&out->ctr[0], "CORE_CYCLES", PMU_READ_RDTSC, true);
        set_ctr(&out->ctr[1], "RDTSC", PMU_READ_RDTSC, false);
    }
    for (size_t i = 0; i < g->n_events; i++) {
        bool cyc = is_core_cycles(cfg, &g->events[i]);
        set_ctr(&out->ctr[clock + i], g->events[i].name, cyc ? PMU_READ_RDTSC : PMU_READ_NONE,
                cyc);
    }
    return 0;
}

static void tsc_close(pmu_group *g)
{
    free(g->ctr);
    g->ctr = NULL;
    g->n_ctr = 0;
}

static void tsc_dry_run(FILE *f, const pmu_config *cfg, const pmu_plan *plan)
{
    fprintf(f, "backend=tsc\n");
    for (size_t i = 0; i < plan->n_groups; i++) {
        pmu_group g;
        fprintf(f, "group=%zu\n", i);
        if (tsc_open(cfg, &plan->groups[i], &g, NULL) != 0)
            continue;
        for (size_t k = 0; k < g.n_ctr; k++)
            fprintf(f, "  counter=%s read=%s\n", g.ctr[k].name,
                    g.ctr[k].read == PMU_READ_NONE ? "unavailable"
                    : g.ctr[k].tsc_cycles ? "rdtsc/calibrated-cycles" : "rdtsc");
        tsc_close(&g);
    }
}

const pmu_backend pmu_tsc_backend = {
    .name = "tsc",
    .flags = PMU_BE_OPENS_IN_PARENT,
    .probe = tsc_probe,
    .plan = tsc_plan,
    .open = tsc_open,
    .close = tsc_close,
    .dry_run = tsc_dry_run,
};
