/* nb pmu emu: the backends "emu" and "tsc+emu" (see emu.h, pmu.h).
 *
 * emu: every event the emulator can count goes into as few groups as the
 * generated code can read at once (PMU_MAX_GROUP_CTR counters, six with
 * -no_mem), each counter an rdpmc with the counter's slot as its index;
 * the events it cannot count follow in groups that are never run
 * (unavailable).  A group is stepped and measured once per program
 * (pmu_group.once): the counts do not depend on timing.  With no events
 * (or -fixed_counters) a first group counts what Intel's fixed counter 0
 * does, the instructions retired.
 *
 * tsc+emu: what auto picks where there is no PMU.  The tsc backend's clock
 * group first (CORE_CYCLES estimated, RDTSC, the cycles events), then the
 * emulated groups, then the events neither can count.  A trap of the
 * stepper costs ~20 microseconds, so an emulated group here has a budget
 * (TSC_EMU_BUDGET traps, a few tenths of a second): past it the group is
 * abandoned, its events print unavailable and nb says that -backend emu
 * counts them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/codegen.h"
#include "pmu/emu.h"
#include "pmu/emu_step.h"
#include "sys/status.h"

/* Traps a tsc+emu run may take in one group: nanoBench's defaults with a
 * straight-line snippet take ~40 (its copies run natively, emu_step.h);
 * each iteration of a loop takes at least one (its JNZ is stepped), each
 * branch in the code one. */
#define TSC_EMU_BUDGET 10000
/* Events per group of events no backend here counts (never run). */
#define NONE_GROUP_MAX 16

static int emu_probe(const pmu_config *cfg, nb_error *err)
{
    (void)cfg;
    char why[256];
    if (emu_step_works(why, sizeof why))
        return 0;
    return nb_error_set(err, NB_EUNSUPPORTED, "%s", why);
}

static cpu_vendor vendor_of(const pmu_config *cfg)
{
    return cfg->cpu ? cfg->cpu->vendor : CPU_VENDOR_UNKNOWN;
}

/* What the emulator counts for ev with this configuration: nothing it can
 * see when kernel mode is asked for (-os 1: the kernel's work is never
 * stepped), nothing at all without user mode either (a counter that counts
 * no mode stays put), else what the table says. */
static uint32_t kinds_for(const pmu_config *cfg, const nb_event *ev)
{
    if (cfg->count_os)
        return 0;
    if (!cfg->count_usr)
        return EMU_BIT(EMU_NOTHING);
    return emu_resolve_event(cfg->uarch, vendor_of(cfg), ev);
}

static size_t emu_group_max(const pmu_config *cfg)
{
    return cfg->no_mem ? CODEGEN_NO_MEM_MAX_CTR : PMU_MAX_GROUP_CTR;
}

/* ev[0..n) into groups of at most max, marked emulated or not. */
static int push_groups(pmu_plan *out, const nb_event *ev, size_t n, size_t max, bool emulated)
{
    for (size_t i = 0; i < n; i += max) {
        int rc = pmu_plan_push(out, ev + i, n - i < max ? n - i : max);
        if (rc)
            return rc;
        out->groups[out->n_groups - 1].emulated = emulated;
    }
    return 0;
}

/* Splits ev into what the emulator counts and the rest, in order. */
static int split(const pmu_config *cfg, const nb_event *ev, size_t n, nb_event **yes,
                 size_t *n_yes, nb_event **no, size_t *n_no)
{
    *yes = malloc((n ? n : 1) * sizeof **yes);
    *no = malloc((n ? n : 1) * sizeof **no);
    *n_yes = *n_no = 0;
    if (!*yes || !*no) {
        free(*yes);
        free(*no);
        return NB_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        if (kinds_for(cfg, &ev[i]))
            (*yes)[(*n_yes)++] = ev[i];
        else
            (*no)[(*n_no)++] = ev[i];
    }
    return 0;
}

static int emu_plan(const pmu_config *cfg, const nb_event *ev, size_t n, pmu_plan *out,
                    nb_error *err)
{
    out->groups = NULL;
    out->n_groups = 0;
    nb_event *yes, *no;
    size_t n_yes, n_no;
    int rc = split(cfg, ev, n, &yes, &n_yes, &no, &n_no);
    if (rc)
        return nb_error_set(err, rc, "out of memory");
    if (cfg->fixed_counters && (rc = pmu_plan_push(out, NULL, 0)) == 0)
        out->groups[0].emulated = true;
    if (rc == 0)
        rc = push_groups(out, yes, n_yes, emu_group_max(cfg), true);
    if (rc == 0)
        rc = push_groups(out, no, n_no, NONE_GROUP_MAX, false);
    free(yes);
    free(no);
    if (rc) {
        pmu_plan_free(out);
        nb_error_set(err, rc, "out of memory");
    }
    return rc;
}

static void set_counter(pmu_counter *c, const char *name, uint32_t emu, uint32_t slot)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->read = emu ? PMU_READ_RDPMC : PMU_READ_NONE;
    c->rdpmc_ecx = slot;
    c->width = 48;
    c->scale = 1.0;
    c->emu = emu;
}

static int emu_open(const pmu_config *cfg, const pmu_group_plan *g, pmu_group *out,
                    nb_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = g->n_events ? g->n_events : 1;
    out->ctr = calloc(n, sizeof *out->ctr);
    if (!out->ctr)
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    out->n_ctr = n;
    if (g->n_events == 0)   /* what Intel's fixed counter 0 counts */
        set_counter(&out->ctr[0], "Instructions retired",
                    cfg->count_os ? 0 : EMU_BIT(EMU_INSTRUCTIONS), 0);
    for (size_t i = 0; i < g->n_events; i++)
        set_counter(&out->ctr[i], g->events[i].name,
                    g->emulated ? kinds_for(cfg, &g->events[i]) : 0, (uint32_t)i);
    out->stepped = g->emulated;
    out->once = true;
    return 0;
}

static void emu_close(pmu_group *g)
{
    free(g->ctr);
    g->ctr = NULL;
    g->n_ctr = 0;
}

/* What each counter counts, as text. */
static void print_counts(FILE *f, uint32_t kinds)
{
    const char *sep = "";
    for (unsigned k = 0; k < EMU_KIND_MAX; k++)
        if (kinds & EMU_BIT(k)) {
            fprintf(f, "%s%s", sep, emu_kind_name((emu_kind)k));
            sep = " + ";
        }
}

static void dry_run_group(FILE *f, const pmu_config *cfg, const pmu_group_plan *gp, size_t i)
{
    pmu_group g;
    fprintf(f, "group=%zu%s\n", i, gp->emulated ? " stepped" : "");
    if (emu_open(cfg, gp, &g, NULL) != 0)
        return;
    for (size_t k = 0; k < g.n_ctr; k++) {
        fprintf(f, "  counter=%s ", g.ctr[k].name);
        if (g.ctr[k].read == PMU_READ_NONE) {
            fprintf(f, "unavailable\n");
            continue;
        }
        fprintf(f, "rdpmc=%u counts=", (unsigned)g.ctr[k].rdpmc_ecx);
        print_counts(f, g.ctr[k].emu);
        fputc('\n', f);
    }
    emu_close(&g);
}

static void emu_dry_run(FILE *f, const pmu_config *cfg, const pmu_plan *plan)
{
    fprintf(f, "backend=emu table=%s\n", cfg->uarch ? cfg->uarch : "(architectural events)");
    for (size_t i = 0; i < plan->n_groups; i++)
        dry_run_group(f, cfg, &plan->groups[i], i);
}

const pmu_backend pmu_emu_backend = {
    .name = "emu",
    .flags = PMU_BE_OPENS_IN_PARENT,
    .probe = emu_probe,
    .plan = emu_plan,
    .open = emu_open,
    .close = emu_close,
    .dry_run = emu_dry_run,
};

/* ---- tsc+emu ---- */

/* Whether the tsc backend's group measures anything (its clock group). */
static bool tsc_measures(const pmu_config *cfg, const pmu_group_plan *gp)
{
    pmu_group g;
    if (pmu_tsc_backend.open(cfg, gp, &g, NULL) != 0)
        return false;
    bool any = false;
    for (size_t k = 0; k < g.n_ctr; k++)
        any |= g.ctr[k].read != PMU_READ_NONE;
    pmu_tsc_backend.close(&g);
    return any;
}

static int tsc_emu_plan(const pmu_config *cfg, const nb_event *ev, size_t n, pmu_plan *out,
                        nb_error *err)
{
    out->groups = NULL;
    out->n_groups = 0;
    nb_event *yes, *no;
    size_t n_yes, n_no;
    int rc = split(cfg, ev, n, &yes, &n_yes, &no, &n_no);
    if (rc)
        return nb_error_set(err, rc, "out of memory");
    pmu_plan tsc = {0}, emu = {0};
    rc = pmu_tsc_backend.plan(cfg, no, n_no, &tsc, err);
    if (rc == 0 && (rc = push_groups(&emu, yes, n_yes, emu_group_max(cfg), true)) != 0)
        nb_error_set(err, rc, "out of memory");
    /* what tsc measures (the clock, cycles events), the emulated groups,
     * the rest */
    size_t total = tsc.n_groups + emu.n_groups, k = 0;
    if (rc == 0 && total && !(out->groups = calloc(total, sizeof *out->groups)))
        rc = nb_error_set(err, NB_ENOMEM, "out of memory");
    if (rc == 0 && out->groups) {
        size_t lead = tsc.n_groups && tsc_measures(cfg, &tsc.groups[0]) ? 1 : 0;
        for (size_t i = 0; i < lead; i++)
            out->groups[k++] = tsc.groups[i];
        for (size_t j = 0; j < emu.n_groups; j++)
            out->groups[k++] = emu.groups[j];
        for (size_t i = lead; i < tsc.n_groups; i++)
            out->groups[k++] = tsc.groups[i];
    }
    if (rc == 0) {
        out->n_groups = k;
        free(tsc.groups);
        free(emu.groups);
    } else {
        pmu_plan_free(&tsc);
        pmu_plan_free(&emu);
    }
    free(yes);
    free(no);
    return rc;
}

static int tsc_emu_open(const pmu_config *cfg, const pmu_group_plan *g, pmu_group *out,
                        nb_error *err)
{
    if (!g->emulated)
        return pmu_tsc_backend.open(cfg, g, out, err);
    int rc = emu_open(cfg, g, out, err);
    if (rc == 0)
        out->step_budget = TSC_EMU_BUDGET;
    return rc;
}

static void tsc_emu_dry_run(FILE *f, const pmu_config *cfg, const pmu_plan *plan)
{
    fprintf(f, "backend=tsc+emu table=%s budget=%d\n",
            cfg->uarch ? cfg->uarch : "(architectural events)", TSC_EMU_BUDGET);
    for (size_t i = 0; i < plan->n_groups; i++) {
        const pmu_group_plan *gp = &plan->groups[i];
        if (gp->emulated) {
            dry_run_group(f, cfg, gp, i);
            continue;
        }
        pmu_plan one = {.groups = (pmu_group_plan *)gp, .n_groups = 1};
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (!m)
            continue;
        pmu_tsc_backend.dry_run(m, cfg, &one);
        fclose(m);
        /* the tsc backend's lines for this one group, renumbered */
        const char *body = strstr(text, "\ngroup=0\n");
        fprintf(f, "group=%zu\n%s", i, body ? body + strlen("\ngroup=0\n") : "");
        free(text);
    }
}

const pmu_backend pmu_tsc_emu_backend = {
    .name = "tsc+emu",
    .flags = PMU_BE_OPENS_IN_PARENT,
    .probe = emu_probe,
    .plan = tsc_emu_plan,
    .open = tsc_emu_open,
    .close = emu_close,
    .dry_run = tsc_emu_dry_run,
};
