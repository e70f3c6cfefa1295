/* Sweep output: the table, one row per form, written and flushed as each
 * form is done, so an interrupted sweep leaves a valid partial table.
 *
 *   text  a header line, then "form  latency  throughput  pairs" columns;
 *         a bound reads "<=5.02", a failed form "fault: ..." or "error: ...".
 *   csv   a header row and one row per form: form, example, latency,
 *         latency_bound, latency_pairs ("op2->op1:1.00;op2.addr->op1:<=5.02"),
 *         throughput, uops, ports, uncertainty ("latency;throughput"),
 *         status, error, isa_set, category, machine_id.
 *   json  one object per form and line (JSON lines), the keys of
 *         docs/sweep-schema.json: every pair with its chain code, init,
 *         closer and bounds; the machine fingerprint and machine_id.
 *
 * machine_id is a hash (FNV-1a, 64 bits, hex) of the CPUID vendor, family,
 * model, stepping, brand string, microcode and event table: the key that,
 * with the form, merges the JSON lines of several hosts (README). */
#include "lib/csv.h"
#include "sweep/sweep_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "report/fingerprint.h"
#include "sys/status.h"
#include "sys/version.h"

static const char *const status_names[] = {"ok", "noisy", "fault", "error"};

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return (h ^ 0xFF) * 1099511628211ull;   /* a field separator */
}

void sw_out_init(sw_out *o, nb_output fmt, FILE *f, const nb_fingerprint *fp)
{
    memset(o, 0, sizeof *o);
    o->fmt = fmt;
    o->f = f;
    o->fp = fp;
    const cpu_info *c = fp->cpu;
    char num[64];
    snprintf(num, sizeof num, "%u.%u.%u", c->family, c->model, c->stepping);
    uint64_t h = 14695981039346656037ull;
    h = fnv(h, c->vendor_string);
    h = fnv(h, num);
    h = fnv(h, c->brand);
    h = fnv(h, fp->microcode);
    h = fnv(h, fp->uarch ? fp->uarch : "");
    snprintf(o->machine_id, sizeof o->machine_id, "%016llx", (unsigned long long)h);
}

void sw_out_backend(sw_out *o, const char *name, double tsc_ghz)
{
    snprintf(o->backend, sizeof o->backend, "%.*s", (int)strcspn(name, " "), name);
    o->tsc_ghz = tsc_ghz;
}

void sw_out_free(sw_out *o)
{
    jv_free(o->machine);
    o->machine = NULL;
}

/* ---- text --------------------------------------------------------------------- */

static void fmt_value(double v, bool bound, char *buf, size_t len)
{
    snprintf(buf, len, "%s%.2f", bound ? "<=" : "", v);
}

/* "op2->op1 1.00, op2.addr->op1 <=5.02" (sep ", ") or the CSV form. */
static void pairs_text(const sweep_row *r, bool csv, char *buf, size_t len)
{
    const sw_plan *p = r->plan;
    buf[0] = '\0';
    for (int k = 0; k < p->n_pairs; k++) {
        const sw_pair_result *q = &r->pair[k];
        if (p->pair[k].not_measured)
            continue;
        char v[32];
        if (q->ok)
            fmt_value(q->m.v, q->bound, v, sizeof v);
        else
            snprintf(v, sizeof v, "error");
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%s%s%s%s", n ? (csv ? ";" : ", ") : "", p->pair[k].label,
                 csv ? ":" : " ", v);
    }
}

static int write_text(sw_out *o, const sweep_row *r)
{
    FILE *f = o->f;
    if (!o->header_done) {
        fprintf(f, "%-48s %8s %10s  %s\n", "form", "latency", "throughput",
                "latency by operand pair (op1: the first operand; <=: an upper bound)");
        o->header_done = true;
    }
    if (r->status == SWS_FAULT || r->status == SWS_ERROR) {
        fprintf(f, "%-48s %s: %s\n", r->f->name, status_names[r->status], r->error);
        return 0;
    }
    char lat[32] = "-", tp[32] = "-", pairs[1024];
    if (r->has_latency)
        fmt_value(r->latency.v, r->latency_bound, lat, sizeof lat);
    if (r->tp.ok)
        fmt_value(r->tp.v, false, tp, sizeof tp);
    pairs_text(r, false, pairs, sizeof pairs);
    char uops[200] = "";
    if (!isnan(r->uops))
        snprintf(uops, sizeof uops, "; uops %.2f%s%s", r->uops, r->ports[0] ? " " : "", r->ports);
    fprintf(f, "%-48s %8s %10s  %s%s%s\n", r->f->name, lat, tp, pairs, uops,
            r->status == SWS_NOISY ? " (noisy)" : "");
    return 0;
}

/* ---- CSV ------------------------------------------------------------------------ */

static void csv_cell(FILE *f, const char *s, bool last)
{
    csv_field(f, s);
    fputc(last ? '\n' : ',', f);
}

static void num_text(bool have, double v, char *buf, size_t len)
{
    if (have && isfinite(v))
        snprintf(buf, len, "%.4f", v);
    else
        buf[0] = '\0';
}

static int write_csv(sw_out *o, const sweep_row *r)
{
    FILE *f = o->f;
    if (!o->header_done) {
        fputs("form,example,latency,latency_bound,latency_pairs,throughput,uops,ports,"
              "uncertainty,status,error,isa_set,category,machine_id\n", f);
        o->header_done = true;
    }
    bool failed = r->status == SWS_FAULT || r->status == SWS_ERROR;
    char lat[32], tp[32], unc[80], pairs[1024], lu[32], tu[32];
    num_text(!failed && r->has_latency, r->latency.v, lat, sizeof lat);
    num_text(!failed && r->tp.ok, r->tp.v, tp, sizeof tp);
    num_text(!failed && r->has_latency, r->latency.unc, lu, sizeof lu);
    num_text(!failed && r->tp.ok, r->tp.unc, tu, sizeof tu);
    snprintf(unc, sizeof unc, "%s;%s", lu, tu);
    if (failed)
        pairs[0] = '\0';
    else
        pairs_text(r, true, pairs, sizeof pairs);
    csv_cell(f, r->f->name, false);
    csv_cell(f, r->plan ? r->plan->example : "", false);
    csv_cell(f, lat, false);
    csv_cell(f, !failed && r->has_latency ? (r->latency_bound ? "upper" : "exact") : "", false);
    csv_cell(f, pairs, false);
    csv_cell(f, tp, false);
    char uops[32];
    num_text(!failed && r->tp.ok, r->uops, uops, sizeof uops);
    csv_cell(f, uops, false);
    csv_cell(f, failed ? "" : r->ports, false);
    csv_cell(f, unc, false);
    csv_cell(f, status_names[r->status], false);
    csv_cell(f, failed ? r->error : "", false);
    csv_cell(f, r->f->isa_set, false);
    csv_cell(f, r->f->category, false);
    csv_cell(f, o->machine_id, true);
    return 0;
}

/* ---- JSON ------------------------------------------------------------------------- */

static jv *num_or_null(bool have, double v)
{
    return have && isfinite(v) ? jv_num(v) : jv_null();
}

static jv *pair_json(const sw_pair *q, const sw_pair_result *r)
{
    jv *o = jv_obj();
    const char *arrow = strstr(q->label, "->");
    char from[32];
    snprintf(from, sizeof from, "%.*s", arrow ? (int)(arrow - q->label) : 0, q->label);
    jv_set(o, "pair", jv_str(q->label));
    jv_set(o, "from", jv_str(from));
    jv_set(o, "to", jv_str(arrow ? arrow + 2 : ""));
    bool ok = !q->not_measured && r->ok;
    jv_set(o, "latency", num_or_null(ok, r->m.v));
    jv_set(o, "lower", num_or_null(ok, r->lower));
    jv_set(o, "bound", ok ? jv_str(r->bound ? "upper" : "exact") : jv_null());
    jv_set(o, "uncertainty", num_or_null(ok, r->m.unc));
    jv_set(o, "runs", jv_int(ok ? r->m.runs : 0));
    const sw_chain *ch = &q->chain;
    jv_set(o, "closer", q->not_measured || !ch->closer ? jv_null() : jv_str(ch->closer_name));
    jv_set(o, "code", q->not_measured ? jv_null() : jv_str(ch->code));
    jv_set(o, "init", q->not_measured ? jv_null() : jv_str(ch->init));
    jv_set(o, "not_measured", q->not_measured ? jv_str(q->not_measured) : jv_null());
    jv_set(o, "error", !q->not_measured && !r->ok && r->error[0] ? jv_str(r->error) : jv_null());
    return o;
}

static jv *row_json(sw_out *o, const sweep_row *r)
{
    const sw_plan *p = r->plan;
    bool failed = r->status == SWS_FAULT || r->status == SWS_ERROR;
    bool lat = !failed && r->has_latency, tp = !failed && r->tp.ok;
    jv *j = jv_obj();
    jv_set(j, "schema", jv_str("nb-sweep-1"));
    jv_set(j, "nb_version", jv_str(NB_VERSION));
    jv_set(j, "form", jv_str(r->f->name));
    jv_set(j, "example", jv_str(p ? p->example : ""));
    jv_set(j, "isa_set", jv_str(r->f->isa_set));
    jv_set(j, "category", jv_str(r->f->category));
    jv_set(j, "status", jv_str(status_names[r->status]));
    jv_set(j, "error", failed ? jv_str(r->error) : jv_null());
    jv_set(j, "latency", num_or_null(lat, r->latency.v));
    jv_set(j, "latency_lower", num_or_null(lat, r->latency_lower));
    jv_set(j, "latency_bound", lat ? jv_str(r->latency_bound ? "upper" : "exact") : jv_null());
    jv_set(j, "latency_note", p && p->latency_note ? jv_str(p->latency_note) : jv_null());
    jv *pairs = jv_arr();
    for (int k = 0; p && !failed && k < p->n_pairs; k++)
        jv_push(pairs, pair_json(&p->pair[k], &r->pair[k]));
    jv_set(j, "latency_pairs", pairs);
    jv_set(j, "throughput", num_or_null(tp, r->tp.v));
    jv *t = jv_obj();
    const sw_chain *tc = p && r->tp_broken ? &p->tp_broken : p ? &p->tp : NULL;
    jv_set(t, "code", tc ? jv_str(tc->code) : jv_null());
    jv_set(t, "init", tc ? jv_str(tc->init) : jv_null());
    jv_set(t, "instances", jv_int(tc ? tc->instances : 0));
    jv_set(t, "breakers", jv_bool(r->tp_broken));
    jv_set(t, "runs", jv_int(tp ? r->tp.runs : 0));
    jv_set(j, "throughput_chain", t);
    jv_set(j, "uops", num_or_null(tp, r->uops));
    jv_set(j, "ports", tp && r->ports[0] ? jv_str(r->ports) : jv_null());
    jv *u = jv_obj();
    jv_set(u, "latency", num_or_null(lat, r->latency.unc));
    jv_set(u, "throughput", num_or_null(tp, r->tp.unc));
    jv_set(j, "uncertainty", u);
    jv_set(j, "values", jv_str(p ? p->values : ""));
    jv_set(j, "backend", jv_str(o->backend));
    jv_set(j, "machine_id", jv_str(o->machine_id));
    if (!o->machine)
        o->machine = fingerprint_json(o->fp, o->tsc_ghz);
    return j;
}

static int write_json(sw_out *o, const sweep_row *r)
{
    jv *j = row_json(o, r);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!j || !m || !o->machine) {
        if (m)
            fclose(m);
        free(text);
        jv_free(j);
        return NB_ENOMEM;
    }
    jv_write(m, j);
    jv_free(j);
    fclose(m);
    /* the machine object is the same on every line: built once, written
     * after the row's own keys */
    fwrite(text, 1, len ? len - 1 : 0, o->f);
    free(text);
    fputs(",\"machine\":", o->f);
    jv_write(o->f, o->machine);
    fputs("}\n", o->f);
    return 0;
}

int sw_out_row(sw_out *o, const sweep_row *r)
{
    int rc = o->fmt == OUTPUT_JSON ? write_json(o, r)
             : o->fmt == OUTPUT_CSV ? write_csv(o, r)
                                    : write_text(o, r);
    if (fflush(o->f) != 0 || ferror(o->f))
        return NB_ESYSTEM;
    return rc;
}
