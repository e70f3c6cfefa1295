/* nb record: see record.h. */
#include "report/record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "sys/status.h"
#include "sys/version.h"


const char *record_error_kind(int status, const char *message)
{
    switch (status) {
    case NB_EFAULT:
        return message && strstr(message, "(-timeout)") ? "timeout" : "fault";
    case NB_EINPUT: return "input";
    case NB_EUSAGE: return "usage";
    case NB_ENOMEM: return "memory";
    case NB_EUNSUPPORTED: return "unsupported";
    default: return "system";
    }
}

/* A word for a POSIX shell: as is where safe, else in single quotes. */
static void sb_word(strbuf *b, const char *w)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_@%+=:,./-";
    strbuf_add(b, " ", 1);
    if (w[0] && strspn(w, safe) == strlen(w)) {
        strbuf_add(b, w, strlen(w));
        return;
    }
    strbuf_add(b, "'", 1);
    for (const char *p = w; *p; p++)
        strbuf_add(b, *p == '\'' ? "'\\''" : p, *p == '\'' ? 4 : 1);
    strbuf_add(b, "'", 1);
}

typedef struct cmd_ctx {
    strbuf *b;
    nb_options defaults;
    const nb_optval *defv;   /* filled by the first walk */
    nb_optval dv[128];
    size_t n_dv, at;
} cmd_ctx;

static void collect_default(void *ctx, const nb_optval *v)
{
    cmd_ctx *c = ctx;
    if (c->n_dv < sizeof c->dv / sizeof c->dv[0])
        c->dv[c->n_dv++] = *v;
}

static bool same_value(const nb_optval *a, const nb_optval *b)
{
    switch (a->kind) {
    case OPTVAL_BOOL: return a->b == b->b;
    case OPTVAL_LONG: return a->l == b->l;
    case OPTVAL_DOUBLE: return a->d == b->d;
    case OPTVAL_STRING:
        return (!a->s && !b->s) || (a->s && b->s && strcmp(a->s, b->s) == 0);
    }
    return false;
}

static void command_word(void *ctx, const nb_optval *v)
{
    static const char *const actions[] = {"batch", "output", "emit", "print_code", "list_events",
                                          "list_uarchs", "cpu_info", "help", "version", "dry_run"};
    cmd_ctx *c = ctx;
    const nb_optval *d = c->at < c->n_dv ? &c->dv[c->at] : NULL;
    c->at++;
    if (d && same_value(v, d))
        return;
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
        if (strcmp(v->name, actions[i]) == 0)
            return;
    char name[64], num[64];
    if (strcmp(v->name, "agg") == 0) {
        snprintf(name, sizeof name, "-%s", v->s);
        sb_word(c->b, name);
        return;
    }
    snprintf(name, sizeof name, "-%s", v->name);
    sb_word(c->b, name);
    switch (v->kind) {
    case OPTVAL_BOOL: break;
    case OPTVAL_LONG: snprintf(num, sizeof num, "%ld", v->l); sb_word(c->b, num); break;
    case OPTVAL_DOUBLE: jv_format_num(v->d, num, sizeof num); sb_word(c->b, num); break;
    case OPTVAL_STRING: if (v->s) sb_word(c->b, v->s); break;
    }
}

char *record_command(const nb_options *o)
{
    strbuf b = {0};
    strbuf_add(&b, "nb", 2);
    cmd_ctx c = {.b = &b};
    options_defaults(&c.defaults);
    options_each(&c.defaults, collect_default, &c);
    options_each(o, command_word, &c);
    if (b.oom) {
        strbuf_free(&b);
        return NULL;
    }
    return b.s;
}

static jv *hex_of(const uint8_t *b, size_t n)
{
    char *s = malloc(2 * n + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++)
        snprintf(s + 2 * i, 3, "%02x", b[i]);
    s[2 * n] = '\0';
    jv *v = jv_str(s);
    free(s);
    return v;
}

const char *const run_fragment_names[NB_FRAG_MAX] = {"code", "init", "late_init",
                                                     "one_time_init"};

static jv *fragment_json(const run_fragment *fr)
{
    const asm_code *c = &fr->code;
    if (!fr->asm_text && !fr->code_path)
        return jv_null();
    jv *o = jv_obj();
    jv_set(o, "source", jv_str(fr->asm_text ? "asm" : "file"));
    jv_set(o, "path", fr->code_path ? jv_str(fr->code_path) : jv_null());
    jv_set(o, "size", jv_int((long long)c->size));
    jv_set(o, "hex", hex_of(c->bytes, c->size));
    jv *st = jv_set(o, "statements", jv_arr());
    for (size_t i = 0; i < c->n_stmts; i++) {
        const asm_stmt *s = &c->stmts[i];
        jv *e = jv_push(st, jv_obj());
        jv_set(e, "offset", jv_int((long long)s->offset));
        jv_set(e, "text", jv_str(s->text));
        jv_set(e, "hex", hex_of(c->bytes + s->offset, s->size));
    }
    return o;
}

static void option_json(void *ctx, const nb_optval *v)
{
    jv *o = ctx;
    switch (v->kind) {
    case OPTVAL_BOOL: jv_set(o, v->name, jv_bool(v->b)); break;
    case OPTVAL_LONG: jv_set(o, v->name, jv_int(v->l)); break;
    case OPTVAL_DOUBLE: jv_set(o, v->name, jv_num(v->d)); break;
    case OPTVAL_STRING: jv_set(o, v->name, jv_str(v->s)); break;
    }
}

static jv *num_array(const double *v, size_t n)
{
    jv *a = jv_arr();
    for (size_t i = 0; v && i < n; i++)
        jv_push(a, jv_num(v[i] + 0.0));
    return a;
}

static jv *backend_json(const bench_result *r)
{
    jv *b = jv_obj();
    const bench_calibration *k = &r->cal;
    jv_set(b, "name", jv_str(r->backend));
    jv_set(b, "groups", jv_int((long long)r->n_groups));
    jv *c = jv_set(b, "copies", jv_arr());
    jv_push(c, jv_int(r->copies[0]));
    jv_push(c, jv_int(r->copies[1]));
    jv *l = jv_set(b, "loops", jv_arr());
    jv_push(l, jv_int(r->loops[0]));
    jv_push(l, jv_int(r->loops[1]));
    jv_set(b, "normalization", jv_num(r->normalization));
    if (r->emu_traps) {
        jv *e = jv_set(b, "emulator", jv_obj());
        jv_set(e, "instructions", jv_int((long long)r->emu_instructions));
        jv_set(e, "traps", jv_int((long long)r->emu_traps));
    } else {
        jv_set(b, "emulator", jv_null());
    }
    /* Resolution of one reading, and of one result (divided by the
     * normalization).  A counter counts single events; the tsc backend
     * reads TSC ticks, each worth 1/ticks_per_cycle core cycles. */
    jv *res = jv_set(b, "resolution", jv_obj());
    double per_reading = k->n_cal && k->ticks_per_cycle > 0 ? 1.0 / k->ticks_per_cycle : 1.0;
    jv_set(res, "unit", jv_str(k->n_cal ? "core cycles per TSC tick" : "events"));
    jv_set(res, "per_reading", jv_num(per_reading));
    jv_set(res, "per_result", jv_num(per_reading / (r->normalization > 0 ? r->normalization : 1)));
    if (!k->n_cal) {
        jv_set(b, "calibration", jv_null());
        return b;
    }
    jv *cal = jv_set(b, "calibration", jv_obj());
    jv_set(cal, "ticks_per_cycle", jv_num(k->ticks_per_cycle));
    jv_set(cal, "ticks_per_cycle_uncertainty",
           isfinite(k->ticks_per_cycle_hw) ? jv_num(k->ticks_per_cycle_hw) : jv_null());
    jv_set(cal, "ticks_per_cycle_runs", num_array(k->ticks_per_cycle_run, 2));
    jv_set(cal, "ticks_per_cycle_min", jv_num(k->ticks_per_cycle_min));
    jv_set(cal, "ticks_per_cycle_max", jv_num(k->ticks_per_cycle_max));
    jv_set(cal, "calibrations", jv_int((long long)k->calibrations));
    jv_set(cal, "tsc_ghz", jv_num(k->tsc_ghz));
    jv_set(cal, "core_ghz", jv_num(k->core_ghz));
    jv_set(cal, "alu_slowdown", jv_num(k->alu_slowdown));
    jv_set(cal, "alu_slowdown_uncertainty",
           isfinite(k->alu_slowdown_hw) ? jv_num(k->alu_slowdown_hw) : jv_null());
    jv_set(cal, "frontend_slowdown", jv_num(k->fe_slowdown));
    jv_set(cal, "frontend_slowdown_uncertainty", jv_num(k->fe_slowdown_hw));
    jv_set(cal, "load_slowdown", jv_num(k->ld_slowdown));
    jv_set(cal, "load_slowdown_uncertainty", jv_num(k->ld_slowdown_hw));
    for (int p = 0; p < TSC_PORTS; p++) {
        jv_set(cal, tsc_ports[p].json, jv_num(k->port_slowdown[p]));
        jv_set(cal, tsc_ports[p].json_hw, jv_num(k->port_slowdown_hw[p]));
    }
    jv_set(cal, "clock_moved", jv_num(k->clock_moved));
    jv_set(cal, "restarts", jv_int((long long)k->restarts));
    jv_set(cal, "shared_waits", jv_int((long long)k->shared_waits));
    jv_set(cal, "placements", jv_int((long long)k->placements));
    jv_set(cal, "placement_moved", jv_bool(k->placement_moved));
    jv_set(cal, "placement_averaged", jv_bool(k->placement_averaged));
    jv_set(cal, "placement_compared", jv_bool(k->placement_compared));
    jv_set(cal, "placement_off", jv_num(k->placement_off));
    jv_set(cal, "loop_misfit", jv_num(k->loop_misfit));
    jv_set(cal, "data_pages", jv_int((long long)k->data_pages));
    jv_set(cal, "runs_disturbed", jv_bool(k->disturbed));
    jv_set(cal, "prelude_spread", jv_num(k->prelude_spread));
    jv_set(cal, "settle_spread", jv_num(k->settle_spread));
    jv_set(cal, "frontend_bound", jv_bool(k->fe_bound));
    jv_set(cal, "harness_context", jv_num(k->harness_context));
    jv_set(cal, "tsc_step", jv_num(k->tsc_step));
    jv *runs = jv_set(cal, "runs", jv_arr()), *kept = jv_set(cal, "runs_kept", jv_arr());
    for (int i = 0; i < 2; i++) {
        jv_push(runs, jv_int((long long)k->runs[i]));
        jv_push(kept, jv_int((long long)k->kept[i]));
    }
    jv_set(cal, "passes", jv_int((long long)k->passes));
    return b;
}

static jv *events_json(const bench_result *r)
{
    jv *a = jv_arr();
    for (size_t i = 0; i < r->n_ev; i++) {
        const bench_event_result *e = &r->ev[i];
        jv *o = jv_push(a, jv_obj());
        jv_set(o, "name", jv_str(e->name));
        jv_set(o, "value", e->unavailable ? jv_null() : jv_num(e->value + 0.0));
        jv_set(o, "min", e->unavailable ? jv_null() : jv_num(e->min + 0.0));
        jv_set(o, "max", e->unavailable ? jv_null() : jv_num(e->max + 0.0));
        jv_set(o, "uncertainty", e->unavailable || !isfinite(e->uncertainty)
                                     ? jv_null() : jv_num(e->uncertainty + 0.0));
        jv_set(o, "agg", e->unavailable ? jv_arr() : num_array(e->agg, 2));
        jv *s = jv_set(o, "samples", jv_arr());
        for (int run = 0; run < 2; run++)
            jv_push(s, e->unavailable ? jv_arr() : jv_nums(e->samples[run], e->n_samples));
        jv_set(o, "group", jv_int((long long)e->group));
        jv *f = jv_set(o, "flags", jv_obj());
        jv_set(f, "unavailable", jv_bool(e->unavailable));
        jv_set(f, "estimated", jv_bool(e->estimated));
        jv_set(f, "exact", jv_bool(e->exact));
        jv_set(f, "uncertain", jv_bool(e->uncertain));
        jv_set(f, "overflow", jv_bool(e->overflow));
        jv_set(f, "lost", e->lost == PMU_LOST_MOVED ? jv_str("moved")
                          : e->lost == PMU_LOST_MULTIPLEXED ? jv_str("multiplexed") : jv_null());
        jv_set(f, "multiple_groups", jv_bool(r->n_groups > 1));
    }
    return a;
}

jv *record_build(const record_ctx *ctx, const nb_options *o, const nb_run *j, int status,
                 const char *message)
{
    jv *r = jv_obj();
    jv_set(r, "schema", jv_str(RECORD_SCHEMA));
    jv_set(r, "nb_version", jv_str(NB_VERSION));
    jv_set(r, "line", ctx->line > 0 ? jv_int(ctx->line) : jv_null());
    jv_set(r, "line_text", jv_str(ctx->line_text));
    jv_set(r, "command", jv_str(ctx->command));
    jv_set(r, "status", jv_str(status == 0 ? "ok" : "error"));
    if (status == 0) {
        jv_set(r, "error", jv_null());
    } else {
        jv *e = jv_set(r, "error", jv_obj());
        jv_set(e, "kind", jv_str(record_error_kind(status, message)));
        jv_set(e, "exit_code", jv_int(nb_status_exit_code(status)));
        jv_set(e, "message", jv_str(message ? message : ""));
    }
    jv *code = jv_set(r, "code", jv_obj());
    for (int i = 0; i < NB_FRAG_MAX; i++)
        jv_set(code, run_fragment_names[i], j ? fragment_json(&j->fr[i]) : jv_null());
    jv *opts = jv_obj();
    if (o)
        options_each(o, option_json, opts);
    jv_set(r, "options", opts);
    bool measured = j && j->measured;
    jv_set(r, "backend", measured ? backend_json(&j->res) : jv_null());
    jv_set(r, "events", measured ? events_json(&j->res) : jv_arr());
    jv_set(r, "machine", fingerprint_json(ctx->fp, measured ? j->res.cal.tsc_ghz : 0));
    return r;
}
