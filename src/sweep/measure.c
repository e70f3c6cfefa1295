/* Sweep measurement: a plan's code run by the engine, and the values that
 * follow from it (see sweep_internal.h).
 *
 * Every piece of code goes through asm_assemble (the statements a record
 * shows are what ran), is checked (each instance must decode as the form:
 * an assembler that chose another encoding would measure another form),
 * and runs in one bench_session for the whole sweep, so the backend, the
 * measuring process and its clock calibration are set up once.  A fault
 * ends the form (its row says what happened) and the session's next run
 * gets a fresh measuring process.
 *
 * A value is measured twice; when the two differ by more than 3% (and
 * 0.03 cycles) up to three more runs are taken and the median kept.  A run
 * during which the tsc backend saw its 1-cycle ALU chains slowed by more
 * than 5%, or its front end shared (a busy sibling hyperthread,
 * pmu/tsc_frontend.h), is taken again, up to three times
 * a value; kept anyway, it marks the value noisy.  Its
 * uncertainty is half the spread of the runs kept (the outer two dropped
 * from five), or the engine's stated half-width (engine_uncertainty) where
 * that is larger.
 *
 * Latency of a pair: chains without a closer give it directly (cycles per
 * copy / instances per copy).  An exact closer's own latency (its self
 * chain: the closer there and back, halved) is subtracted.  A closer
 * across kinds is known only with its way back, as the round trip R, and
 * each of the two takes at least its `min`: with M the chain's cycles per
 * copy, the pair lies in [M - R + min_fwd, M - min_back]; the upper end is
 * the value reported, and it is marked a bound unless the interval is
 * narrower than a quarter cycle (never through memory: the chain's store
 * and load may forward worse than the round trip's, which have one width). */
#include "sweep/sweep_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "events/evdb.h"
#include "lib/sort.h"
#include "measure/session.h"
#include "pmu/tsc_estimate.h"
#include "pmu/tsc_frontend.h"
#include "pmu/tsc_load.h"
#include "pmu/tsc_ports.h"
#include "sys/status.h"

#define CACHE_SIZE 1024
#define RUNS_FIRST 2
#define RUNS_MAX 5
#define COPY_STATEMENTS 600   /* statements per copy x copies, about */
#define COPY_CYCLES 40000.0   /* cycles of a run's copies, at most (cpuid) */
#define BUSY_SLOWDOWN 0.05    /* a run whose 1-cycle ALU chains ran this much slow */
#define BUSY_RETAKES 3        /* is taken again, this many times a value */

typedef struct cache_entry {
    char *key;
    sw_value v;
} cache_entry;

struct sw_meas {
    bench_session *s;
    nb_options o;
    const cpu_info *cpu;
    bool pmu;                        /* a PMU backend: the events below */
    nb_event_list cycles, all;
    const volatile sig_atomic_t *stop;
    cache_entry cache[CACHE_SIZE];   /* closers' self chains */
    char backend[512];
    double tsc_ghz;
    long runs;
};

/* ---- PMU events -------------------------------------------------------------- */

static const char *const cycles_names[] = {"CPU_CLK_UNHALTED.THREAD_P", "CPU_CLK_UNHALTED.THREAD",
                                           "CPU_CLK_UNHALTED.CORE_P", "CPU_CLK_UNHALTED.CORE",
                                           "LS_NOT_HALTED_CYC", NULL};
static const char *const uops_names[] = {"UOPS_RETIRED.RETIRE_SLOTS", "UOPS_RETIRED.SLOTS",
                                         "UOPS_RETIRED.ALL", "UOPS_ISSUED.ANY", "EX_RET_OPS",
                                         NULL};
static const char *const port_prefixes[] = {"UOPS_DISPATCHED_PORT.PORT_",
                                            "UOPS_DISPATCHED.PORT_", "UOPS_EXECUTED_PORT.PORT_",
                                            NULL};

/* The first of names the table has, pushed to the lists; its name or NULL. */
static const char *push_first(const char *uarch, const char *const *names, nb_event_list *a,
                              nb_event_list *b)
{
    for (; *names; names++) {
        nb_event ev;
        if (evdb_lookup(uarch, *names, &ev, NULL) != 0)
            continue;
        if ((a && event_list_push(a, &ev)) || event_list_push(b, &ev))
            return NULL;
        return *names;
    }
    return NULL;
}

/* Which port prefix an event name has; -1: none. */
static int port_prefix(const char *name)
{
    for (int k = 0; port_prefixes[k]; k++)
        if (strncmp(name, port_prefixes[k], strlen(port_prefixes[k])) == 0)
            return k;
    return -1;
}

int sw_pmu_events(const char *uarch, nb_event_list *cycles, nb_event_list *all)
{
    if (!uarch || !push_first(uarch, cycles_names, cycles, all))
        return NB_EUNSUPPORTED;
    push_first(uarch, uops_names, NULL, all);
    nb_event_list table = {0};
    if (evdb_events(uarch, EVDB_SET_ALL, &table) != 0)
        return 0;
    int prefix = -1;   /* one family of port events: the first the table has */
    for (size_t i = 0; i < table.n; i++) {
        int k = port_prefix(table.v[i].name);
        if (k >= 0 && (prefix < 0 || k == prefix) && strchr(table.v[i].name + strlen(
                port_prefixes[k]), '.') == NULL) {
            prefix = k;
            event_list_push(all, &table.v[i]);
        }
    }
    event_list_free(&table);
    return 0;
}

/* ---- the context ----------------------------------------------------------------- */

sw_meas *sw_meas_new(const nb_options *base, const cpu_info *cpu, const char *uarch,
                     const volatile sig_atomic_t *stop, nb_error *err)
{
    sw_meas *m = calloc(1, sizeof *m);
    if (!m || !(m->s = bench_session_new())) {
        free(m);
        nb_error_set(err, NB_ENOMEM, "out of memory");
        return NULL;
    }
    options_defaults(&m->o);
    m->o.backend = base->backend;
    m->o.cpu = base->cpu;
    m->o.timeout = base->timeout < 10 ? base->timeout : 10;
    m->o.n_measurements = 10;
    m->o.warm_up_count = 2;
    m->o.output = OUTPUT_JSON;   /* nothing is printed by the engine */
    m->o.sweep = true;           /* one form of many: no waiting out a shared core */
    m->cpu = cpu;
    m->stop = stop;
    const char *be = bench_backend_name(&m->o, cpu, NULL);
    m->pmu = be && (strncmp(be, "perf", 4) == 0 || strncmp(be, "msr", 3) == 0);
    if (m->pmu && sw_pmu_events(uarch, &m->cycles, &m->all) != 0) {
        nb_error_set(err, NB_EUNSUPPORTED, "the %s backend needs a core cycles event, and "
                     "the event table %s has none that nb knows", be, uarch ? uarch : "(none)");
        sw_meas_free(m);
        return NULL;
    }
    return m;
}

void sw_meas_free(sw_meas *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < CACHE_SIZE; i++)
        free(m->cache[i].key);
    event_list_free(&m->cycles);
    event_list_free(&m->all);
    bench_session_free(m->s);
    free(m);
}

void sw_meas_backend(const sw_meas *m, char *buf, size_t len, double *tsc_ghz)
{
    snprintf(buf, len, "%s", m->backend[0] ? m->backend : "none");
    *tsc_ghz = m->tsc_ghz;
}

long sw_meas_runs(const sw_meas *m)
{
    return m->runs;
}

/* ---- one run --------------------------------------------------------------- */

static int assemble(const char *text, const char *what, asm_code *out, nb_error *err)
{
    nb_error e;
    int rc = asm_assemble(text, what, out, &e);
    if (rc == 0)
        return 0;
    return nb_error_set(err, rc, "nb's assembler refuses the %s: %s (column %d of '%.200s')",
                        what, e.message, e.col, e.source);
}

/* Every statement the chain marks as an instance decodes as the form. */
static int check_instances(const sweep_form *f, const sw_chain *ch, const asm_code *c,
                           nb_error *err)
{
    for (size_t i = 0; i < c->n_stmts && i < SW_MAX_STMTS; i++) {
        if (!(ch->inst_stmt[i / 64] & (1ull << (i % 64))))
            continue;
        char name[160];
        const asm_stmt *s = &c->stmts[i];
        if (!sweep_form_name_of(c->bytes + s->offset, s->size, name, sizeof name))
            return nb_error_set(err, NB_EINPUT, "'%s' does not decode", s->text);
        if (strcmp(name, f->name) != 0)
            return nb_error_set(err, NB_EINPUT, "nb's assembler encodes '%s' as '%s'",
                                s->text, name);
    }
    return 0;
}

/* The value of event `name` in a result; NAN when absent or unavailable. */
static double event_value(const bench_result *r, const char *name)
{
    for (size_t i = 0; i < r->n_ev; i++)
        if (!r->ev[i].unavailable && strcmp(r->ev[i].name, name) == 0)
            return r->ev[i].value;
    return NAN;
}

/* The core cycles event of a result: CORE_CYCLES (tsc) or the table's
 * cycles event (a PMU); NULL when absent or unavailable. */
static const bench_event_result *cycles_event(const sw_meas *m, const bench_result *r)
{
    const char *name = m->pmu ? m->cycles.v[0].name : "CORE_CYCLES";
    for (size_t i = 0; i < r->n_ev; i++)
        if (!r->ev[i].unavailable && strcmp(r->ev[i].name, name) == 0)
            return &r->ev[i];
    return NULL;
}

/* The engine's uncertainty of one result, per copy: the half-width it
 * states (bench_event_result.uncertainty; 0 where it states none: a single
 * sample). */
static double engine_uncertainty(const bench_event_result *e)
{
    return isfinite(e->uncertainty) ? e->uncertainty : 0;
}

/* What else a throughput run counted, per copy: uops, and by port. */
typedef struct sw_extra {
    double uops;
    char ports[160];
} sw_extra;

static void extra_of(const sw_meas *m, const bench_result *r, double per, sw_extra *x)
{
    x->uops = NAN;
    x->ports[0] = '\0';
    for (size_t i = 1; i < m->all.n; i++) {
        const char *name = m->all.v[i].name;
        double v = event_value(r, name) / per;
        int k = port_prefix(name);
        if (k < 0) {
            x->uops = v;
        } else if (v >= 0.05) {
            size_t n = strlen(x->ports);
            snprintf(x->ports + n, sizeof x->ports - n, "%sp%s:%.2f", n ? " " : "",
                     name + strlen(port_prefixes[k]), v);
        }
    }
}

/* Copies of the code in a run: about COPY_STATEMENTS statements, fewer
 * where one copy took long (`slow`: its cycles per copy, 0 unknown). */
static long unroll_for(int n_stmts, double slow)
{
    long unroll = COPY_STATEMENTS / (n_stmts > 0 ? n_stmts : 1);
    if (slow > 0 && unroll > (long)(COPY_CYCLES / slow))
        unroll = (long)(COPY_CYCLES / slow);
    return unroll < 2 ? 2 : unroll > 200 ? 200 : unroll;
}

/* Run code (one copy: n_stmts statements) once: cycles per copy (and with
 * `extra`, on a PMU, what else the run counted). */
static int run_once(sw_meas *m, const asm_code *code, const asm_code *init, int n_stmts,
                    double slow, double per, double *cycles, double *unc, double *alu,
                    sw_extra *extra, nb_error *err)
{
    bench_code bc = {.code = code->bytes, .code_len = code->size,
                     .init = init->bytes, .init_len = init->size};
    m->o.unroll_count = unroll_for(n_stmts, slow);
    bench_result res;
    memset(&res, 0, sizeof res);
    m->runs++;
    const nb_event_list *ev = extra && m->pmu ? &m->all : &m->cycles;
    int rc = bench_session_run(m->s, &m->o, &bc, ev->v, ev->n, m->cpu, &res, err);
    if (rc)
        return rc;
    if (extra)
        extra_of(m, &res, per, extra);
    if (!m->backend[0] || res.cal.n_cal) {
        bench_backend_line(&res, m->backend, sizeof m->backend);
        m->tsc_ghz = res.cal.tsc_ghz;
    }
    const bench_event_result *e = cycles_event(m, &res);
    *cycles = e ? e->value : NAN;
    *unc = e ? engine_uncertainty(e) : 0;
    /* a front end, load pipeline or ports shared with another thread
     * count as busy as well */
    *alu = res.cal.alu_slowdown;
    if (tsc_frontend_shared(res.cal.fe_slowdown))
        *alu = fmax(*alu, res.cal.fe_slowdown);
    if (tsc_load_shared(res.cal.ld_slowdown, res.cal.ld_slowdown_hw))
        *alu = fmax(*alu, res.cal.ld_slowdown);
    for (int k = 0; k < TSC_PORTS; k++)
        if (tsc_port_shared(res.cal.port_slowdown[k]))
            *alu = fmax(*alu, res.cal.port_slowdown[k]);
    if (res.cal.disturbed)   /* ... and a disturbed core (tsc_disturbed) */
        *alu = fmax(*alu, TSC_SHARED_SPAN);
    bench_result_free(&res);
    if (isnan(*cycles))
        return nb_error_set(err, NB_EUNSUPPORTED, "the %s backend counts no core cycles",
                            res.backend ? res.backend : "chosen");
    return 0;
}

/* Measure (code, init) until two runs agree or RUNS_MAX are taken: cycles
 * per copy divided by `per`.  Returns 0, 1 when stopped, or a status. */
static int measure_value(sw_meas *m, const asm_code *code, const asm_code *init, int n_stmts,
                         double per, sw_value *out, sw_extra *extra, nb_error *err)
{
    double x[RUNS_MAX], engine = 0;
    int n = 0, retakes = 0;
    bool busy_kept = false;
    memset(out, 0, sizeof *out);
    while (n < RUNS_MAX) {
        if (*m->stop)
            return 1;
        double u, alu;
        int rc = run_once(m, code, init, n_stmts, n ? x[0] * per : 0, per, &x[n], &u, &alu,
                          n ? NULL : extra, err);
        if (rc)
            return rc;
        if (alu > BUSY_SLOWDOWN) {   /* the sibling hyperthread was busy */
            if (retakes++ < BUSY_RETAKES)
                continue;
            busy_kept = true;
        }
        x[n] /= per;
        if (u / per > engine)
            engine = u / per;
        n++;
        if (n < RUNS_FIRST)
            continue;
        sort_doubles(x, (size_t)n);
        double lo = x[0], hi = x[n - 1];
        if (n >= 4) {   /* the outer two dropped */
            lo = x[1];
            hi = x[n - 2];
        }
        double mid = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
        double tol = 0.03 * fabs(mid) + 0.03;
        out->v = mid;
        out->unc = (hi - lo) / 2 > engine ? (hi - lo) / 2 : engine;
        out->runs = n;
        out->ok = true;
        /* still spread by a tenth (and 0.05 cycles) after the runs: noisy */
        out->noisy = busy_kept || out->unc > 0.1 * fabs(mid) + 0.05;
        if (hi - lo <= tol && (n == RUNS_FIRST || n >= 3))
            return 0;
        if (n >= 3 && out->unc <= tol)
            return 0;
    }
    out->noisy = true;
    return 0;
}

/* Assemble, check and measure a chain: cycles per instance. */
static int measure_chain(sw_meas *m, const sweep_form *f, const sw_chain *ch, double per,
                         bool check, sw_value *out, sw_extra *extra, nb_error *err)
{
    asm_code code = {0}, init = {0};
    int rc = assemble(ch->code, "chain", &code, err);
    if (rc == 0 && ch->init[0])
        rc = assemble(ch->init, "init", &init, err);
    if (rc == 0 && check)
        rc = check_instances(f, ch, &code, err);
    if (rc == 0)
        rc = measure_value(m, &code, &init, ch->n_stmts, per, out, extra, err);
    asm_code_free(&code);
    asm_code_free(&init);
    return rc;
}

/* ---- closers ------------------------------------------------------------------ */

static uint32_t hash_text(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* The closer's self chain (its round trip), per copy; cached by text. */
static int closer_value(sw_meas *m, const sweep_form *f, const sw_chain *ch, sw_value *out,
                        nb_error *err)
{
    size_t h = hash_text(ch->closer_self) & (CACHE_SIZE - 1);
    for (size_t k = 0; k < CACHE_SIZE && m->cache[h].key; k++, h = (h + 1) & (CACHE_SIZE - 1))
        if (strcmp(m->cache[h].key, ch->closer_self) == 0) {
            *out = m->cache[h].v;
            return 0;
        }
    sw_chain self;
    memset(&self, 0, sizeof self);
    snprintf(self.code, sizeof self.code, "%s", ch->closer_self);
    memcpy(self.init, ch->init, sizeof self.init);
    self.n_stmts = 2;
    int rc = measure_chain(m, f, &self, 1, false, out, NULL, err);
    if (rc)
        return rc;
    if (!m->cache[h].key && (m->cache[h].key = strdup(ch->closer_self)))
        m->cache[h].v = *out;
    return 0;
}

/* ---- a form ---------------------------------------------------------------------- */

/* A pair's latency from its chain (and closer). */
static int measure_pair(sw_meas *m, const sweep_form *f, const sw_pair *q, sw_pair_result *r,
                        nb_error *err)
{
    const sw_chain *ch = &q->chain;
    sw_value M;
    int rc = measure_chain(m, f, ch, ch->closer ? 1 : ch->instances, true, &M, NULL, err);
    if (rc)
        return rc;
    r->m = M;
    r->lower = M.v;
    r->ok = true;
    if (ch->closer == SWC_NONE)
        return 0;
    sw_value S;
    if ((rc = closer_value(m, f, ch, &S, err)) != 0)
        return rc;
    r->m.noisy |= S.noisy;
    if (ch->closer == SWC_EXACT) {
        r->m.v = M.v - S.v / 2;
        r->m.unc = M.unc + S.unc / 2;
        r->lower = r->m.v;
        return 0;
    }
    double upper = M.v - ch->min_back, lower = M.v - (S.v - ch->min_fwd);
    if (lower > upper)   /* the round trip read below its parts' least: noise */
        lower = upper;
    r->m.v = upper;
    r->m.unc = M.unc + S.unc;
    r->lower = lower < 0 ? 0 : lower;
    r->bound = upper - r->lower > 0.25 + r->m.unc || ch->closer_mem;
    return 0;
}

static void row_fail(sweep_row *row, int rc, const nb_error *err)
{
    row->status = rc == NB_EFAULT ? SWS_FAULT : SWS_ERROR;
    nb_error_format(err, row->error, sizeof row->error);
}

/* The latency: the largest pair measured. */
static void summarize_latency(sweep_row *row)
{
    const sw_plan *p = row->plan;
    for (int k = 0; k < p->n_pairs; k++) {
        const sw_pair_result *r = &row->pair[k];
        if (!r->ok)
            continue;
        if (!row->has_latency || r->m.v > row->latency.v) {
            row->latency = r->m;
            row->latency_lower = r->lower;
            row->latency_bound = r->bound;
            row->has_latency = true;
        }
    }
    if (row->has_latency && row->latency.v < 0)
        row->latency.v = 0;
}

/* The throughput: the plain block, and the block with breakers where the
 * plain one may be held up by its own chains. */
static int measure_tp(sw_meas *m, const sweep_form *f, const sw_plan *p, sweep_row *row,
                      nb_error *err)
{
    sw_extra x;
    int rc = measure_chain(m, f, &p->tp, p->tp.instances, true, &row->tp, &x, err);
    if (rc == 0) {
        row->uops = x.uops;
        snprintf(row->ports, sizeof row->ports, "%s", x.ports);
    }
    if (rc || !p->tp_broken.instances)
        return rc;
    /* instances x throughput well below the latency: no chain holds it up */
    if (row->has_latency && row->tp.v * p->tp.instances < 0.8 * row->latency.v)
        return 0;
    sw_value t2;
    nb_error e2;
    nb_error_clear(&e2);
    rc = measure_chain(m, f, &p->tp_broken, p->tp_broken.instances, true, &t2, NULL, &e2);
    if (rc == 1)
        return 1;
    if (rc == 0 && t2.v < row->tp.v) {
        row->tp = t2;
        row->tp_broken = true;
    }
    return 0;
}

int sw_measure_form(sw_meas *m, const sweep_form *f, const sw_plan *p, sweep_row *row,
                    nb_error *err)
{
    memset(row, 0, sizeof *row);
    row->f = f;
    row->plan = p;
    row->uops = NAN;
    nb_error e;
    for (int k = 0; k < p->n_pairs; k++) {
        if (p->pair[k].not_measured)
            continue;
        nb_error_clear(&e);
        int rc = measure_pair(m, f, &p->pair[k], &row->pair[k], &e);
        if (rc == 1)
            return 1;
        if (rc == NB_EFAULT) {
            row_fail(row, rc, &e);
            return 0;
        }
        if (rc && rc != NB_EINPUT && rc != NB_EUNSUPPORTED) {
            *err = e;
            return rc;
        }
        if (rc)
            nb_error_format(&e, row->pair[k].error, sizeof row->pair[k].error);
    }
    summarize_latency(row);
    nb_error_clear(&e);
    int rc = measure_tp(m, f, p, row, &e);
    if (rc == 1)
        return 1;
    if (rc && rc != NB_EFAULT && rc != NB_EINPUT && rc != NB_EUNSUPPORTED) {
        *err = e;
        return rc;
    }
    if (rc) {
        row_fail(row, rc, &e);
        return 0;
    }
    bool noisy = row->tp.noisy || (row->has_latency && row->latency.noisy);
    row->status = noisy ? SWS_NOISY : SWS_OK;
    return 0;
}
