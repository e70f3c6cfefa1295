/* nb pmu: backend selection and plan ownership (see pmu.h).
 *
 * The grouping of events onto counters (CTR=, TakenAlone, extra MSRs) lives
 * in common.c (pmu_common_plan), which the perf and msr backends call; the
 * tsc backend puts everything in one group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/pmu.h"
#include "sys/error.h"
#include "sys/status.h"

const pmu_backend *pmu_select(pmu_backend_kind kind, const pmu_config *cfg, nb_error *why)
{
    const pmu_backend *ladder[] = {&pmu_perf_backend, &pmu_msr_backend,
                                   cfg->emu_auto ? &pmu_tsc_emu_backend : &pmu_tsc_backend,
                                   &pmu_tsc_backend, &pmu_emu_backend};
    size_t first = 0, last = 3;   /* auto: tsc+emu, and tsc if it cannot step */
    if (kind == PMU_BACKEND_PERF)
        first = last = 0;
    else if (kind == PMU_BACKEND_MSR)
        first = last = 1;
    else if (kind == PMU_BACKEND_TSC)
        first = last = 3;
    else if (kind == PMU_BACKEND_EMU)
        first = last = 4;
    nb_error_set(why, NB_EUNSUPPORTED, "%s", "");
    char *msg = why ? why->message : NULL;
    size_t len = why ? sizeof why->message : 0, used = 0;
    for (size_t i = first; i <= last; i++) {
        nb_error r;
        nb_error_clear(&r);
        if (ladder[i]->probe(cfg, &r) == 0) {
            if (why)
                why->status = 0;
            return ladder[i];
        }
        /* Collect every refusal: "perf_event+rdpmc: ...; msr+rdpmc: ..." */
        if (used < len) {
            int n = snprintf(msg + used, len - used, "%s%s: %.511s", used ? "; " : "",
                             ladder[i]->name, r.message[0] ? r.message : "not usable");
            if (n > 0)
                used += (size_t)n;
        }
    }
    return NULL;
}

void pmu_plan_free(pmu_plan *plan)
{
    if (!plan)
        return;
    for (size_t i = 0; i < plan->n_groups; i++)
        free(plan->groups[i].events);
    free(plan->groups);
    plan->groups = NULL;
    plan->n_groups = 0;
}

bool pmu_event_equal(const nb_event *a, const nb_event *b)
{
    return strcmp(a->name, b->name) == 0 && a->evtsel == b->evtsel && a->umask == b->umask &&
           a->cmask == b->cmask && a->any == b->any && a->edge == b->edge && a->inv == b->inv &&
           a->taken_alone == b->taken_alone && a->ctr == b->ctr &&
           a->has_msr_3f6h == b->has_msr_3f6h && a->has_msr_pf == b->has_msr_pf &&
           a->has_msr_rsp0 == b->has_msr_rsp0 && a->has_msr_rsp1 == b->has_msr_rsp1 &&
           a->msr_3f6h == b->msr_3f6h && a->msr_pf == b->msr_pf &&
           a->msr_rsp0 == b->msr_rsp0 && a->msr_rsp1 == b->msr_rsp1 &&
           a->read_msr == b->read_msr && a->n_msr_writes == b->n_msr_writes &&
           memcmp(a->msr_write, b->msr_write, a->n_msr_writes * sizeof *a->msr_write) == 0 &&
           memcmp(a->msr_value, b->msr_value, a->n_msr_writes * sizeof *a->msr_value) == 0;
}

int pmu_plan_make(const pmu_backend *be, const pmu_config *cfg, const nb_event *ev, size_t n,
                  pmu_plan *out, nb_error *err)
{
    out->groups = NULL;
    out->n_groups = 0;
    if (!be->read_outside)
        return be->plan(cfg, ev, n, out, err);
    nb_event *pmc = calloc(n ? n : 1, sizeof *pmc);
    if (!pmc)
        return NB_ENOMEM;
    size_t n_pmc = 0;
    for (size_t i = 0; i < n; i++)
        if (!nb_event_is_msr(&ev[i]))
            pmc[n_pmc++] = ev[i];
    int rc = 0;
    /* Only MSR events: no counter group (nor the fixed-counter one) */
    if (n_pmc || n == 0)
        rc = be->plan(cfg, pmc, n_pmc, out, err);
    free(pmc);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (nb_event_is_msr(&ev[i]))
            rc = pmu_plan_push(out, &ev[i], 1);
    if (rc == NB_ENOMEM)
        nb_error_set(err, rc, "out of memory");
    if (rc)
        pmu_plan_free(out);
    return rc;
}

int pmu_plan_push(pmu_plan *p, const nb_event *ev, size_t n)
{
    pmu_group_plan *g = realloc(p->groups, (p->n_groups + 1) * sizeof *g);
    if (!g)
        return NB_ENOMEM;
    p->groups = g;
    g = &p->groups[p->n_groups];
    g->events = NULL;
    g->n_events = n;
    g->with_clock = false;
    g->emulated = false;
    if (n) {
        g->events = malloc(n * sizeof *ev);
        if (!g->events)
            return NB_ENOMEM;
        memcpy(g->events, ev, n * sizeof *ev);
    }
    p->n_groups++;
    return 0;
}

const char *pmu_lost_text(pmu_lost why)
{
    switch (why) {
    case PMU_LOST_MOVED: return "the kernel moved it to another counter during the runs";
    case PMU_LOST_MULTIPLEXED: return "it was scheduled out for part of the runs (multiplexed)";
    case PMU_KEPT: break;
    }
    return "kept";
}
