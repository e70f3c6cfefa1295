/* nb sweep: the -sweep command (see sweep.h): the forms, the ones this run
 * takes (-sweep_filter, -sweep_shard), then either their names
 * (-sweep_list) or, form by form, a plan, its measurement and its row.
 *
 * SIGINT and SIGTERM during the measurements stop the sweep after the form
 * in progress (the measuring process, in nb's process group, may die of the
 * same SIGINT: that form is dropped, not reported as a fault); every row
 * written so far stays, a note says how far it got, and nb exits 0 as
 * -mess does.  Until the first benchmark has run, the engine's own handlers
 * (restore.h: restore, then die of the signal) are in place; the sweep's
 * take over after it and are put back before returning. */
#include "sweep/sweep.h"

#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asm/asm.h"
#include "lib/clock.h"
#include "sweep/sweep_internal.h"
#include "sys/status.h"

/* ---- which forms ------------------------------------------------------------ */

static uint32_t shard_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* The forms this run takes, as indexes into l (malloc'd, *n of them). */
static int select_forms(const nb_options *o, const sweep_form_list *l, size_t **out,
                        size_t *n, nb_error *err)
{
    regex_t re;
    if (o->sweep_filter) {
        int rc = regcomp(&re, o->sweep_filter, REG_EXTENDED | REG_NOSUB);
        if (rc) {
            char msg[256];
            regerror(rc, &re, msg, sizeof msg);
            return nb_error_set(err, NB_EUSAGE, "option -sweep_filter: '%s' is not a POSIX "
                                "extended regular expression: %s", o->sweep_filter, msg);
        }
    }
    *out = malloc((l->n ? l->n : 1) * sizeof **out);
    *n = 0;
    if (!*out) {
        if (o->sweep_filter)
            regfree(&re);
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < l->n; i++) {
        const char *name = l->v[i].name;
        if (o->sweep_filter && regexec(&re, name, 0, NULL, 0) != 0)
            continue;
        if (o->sweep_shards &&
            (long)(shard_hash(name) % (uint32_t)o->sweep_shards) != o->sweep_shard - 1)
            continue;
        (*out)[(*n)++] = i;
    }
    if (o->sweep_filter)
        regfree(&re);
    return 0;
}

/* Skip, too, the forms no code can be built for, and those whose example
 * nb's assembler encodes as another form (Zydis decodes a few encodings
 * that assemblers never produce: `nop r16` of 0F 1F with a register). */
static void verify_forms(sweep_form_list *l, const size_t *sel, size_t n, const sw_caps *caps)
{
    static sw_plan plan;
    for (size_t k = 0; k < n; k++) {
        sweep_form *f = &l->v[sel[k]];
        if (f->skip)
            continue;
        nb_error e;
        nb_error_clear(&e);
        if (sweep_plan(f, caps, &plan, &e) != 0) {
            f->skip = "no code measures it";
            snprintf(f->skip_detail, sizeof f->skip_detail, "%.100s", e.message);
            continue;
        }
        asm_code c;
        nb_error ae;
        if (asm_assemble(plan.example, "example", &c, &ae) != 0) {
            f->skip = "nb's assembler refuses it";
            snprintf(f->skip_detail, sizeof f->skip_detail, "%.100s", ae.message);
            continue;
        }
        char name[sizeof f->name];
        if (!sweep_form_name_of(c.bytes, c.size, name, sizeof name) ||
            strcmp(name, f->name) != 0) {
            f->skip = "nb's assembler encodes it as another form";
            snprintf(f->skip_detail, sizeof f->skip_detail, "%.100s", name);
        }
        asm_code_free(&c);
    }
}

/* -sweep_list: measured forms one a line; -verbose: skipped ones too. */
static int list_forms(const nb_options *o, const sweep_form_list *l, const size_t *sel,
                      size_t n)
{
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        const sweep_form *f = &l->v[sel[k]];
        kept += !f->skip;
        if (!f->skip)
            printf("%s\n", f->name);
        else if (o->verbose)
            printf("%s\tskipped: %s%s%s%s\n", f->name, f->skip, f->skip_detail[0] ? " (" : "",
                   f->skip_detail, f->skip_detail[0] ? ")" : "");
    }
    if (fflush(stdout) != 0)
        return NB_ESYSTEM;
    nb_note("sweep: %zu forms to measure, %zu skipped (of %zu forms Zydis decodes, from %zu "
            "encodings; -sweep_list -v says why each is skipped)", kept, n - kept, l->n,
            l->n_decoded);
    return 0;
}

/* ---- what the CPU offers --------------------------------------------------------- */

static bool have(const char *set)
{
    char feature[64];
    return sweep_isa_status(set, feature, sizeof feature) == CPU_ISA_OK;
}

static void read_caps(sw_caps *c)
{
    c->sse41 = have("SSE4");
    c->avx = have("AVX");
    c->avx2 = have("AVX2");
    c->avx512f = have("AVX512F_512");
    c->avx512bw = have("AVX512BW_512");
    c->avx512dq = have("AVX512DQ_512");
    c->avx512vl = have("AVX512F_128");
}

/* ---- signals and progress -------------------------------------------------------- */

static volatile sig_atomic_t g_stop;

static void on_stop(int sig)
{
    g_stop = sig;
}

typedef struct sweep_run {
    struct sigaction old_int, old_term;
    bool ours;
    bool progress;
    double t0, last_shown;
    size_t done, total;
    long faults, errors, noisy;
} sweep_run;

/* Our handlers, unless the engine's replaced them (its first run) or the
 * signal is ignored (a background job's SIGINT). */
static void take_signals(sweep_run *r)
{
    struct sigaction cur, sa;
    sigaction(SIGINT, NULL, &cur);
    if (cur.sa_handler == on_stop)
        return;
    if (!r->ours) {
        r->old_int = cur;
        sigaction(SIGTERM, NULL, &r->old_term);
        r->ours = true;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    if (cur.sa_handler != SIG_IGN)
        sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static void give_signals(sweep_run *r)
{
    if (!r->ours)
        return;
    sigaction(SIGINT, &r->old_int, NULL);
    sigaction(SIGTERM, &r->old_term, NULL);
}

static void progress(sweep_run *r, const char *form, bool force)
{
    if (!r->progress)
        return;
    double now = clock_ns() * 1e-9;
    if (!force && now - r->last_shown < 0.2)
        return;
    r->last_shown = now;
    double rate = now > r->t0 ? (double)r->done / (now - r->t0) : 0;
    fprintf(stderr, "\r\033[Knb: sweep %zu/%zu forms, %.1f/s, ETA %.0f s  %s", r->done,
            r->total, rate, rate > 0 ? (double)(r->total - r->done) / rate : 0, form);
    fflush(stderr);
}

/* ---- measuring ------------------------------------------------------------------------ */

/* One form: its plan, its measurement, its row.  Returns 0, 1 when stopped,
 * or a status that ends the sweep. */
static int sweep_one(sw_meas *m, sw_out *out, const sweep_form *f, const sw_caps *caps,
                     sweep_run *r, nb_error *err)
{
    static sw_plan plan;
    static sweep_row row;
    nb_error e;
    nb_error_clear(&e);
    int rc = sweep_plan(f, caps, &plan, &e);
    if (rc) {
        memset(&row, 0, sizeof row);
        row.f = f;
        row.plan = &plan;
        row.status = SWS_ERROR;
        row.uops = NAN;
        nb_error_format(&e, row.error, sizeof row.error);
    } else {
        rc = sw_measure_form(m, f, &plan, &row, err);
        take_signals(r);
        if (rc < 0)
            return rc;
        if (rc == 1 || g_stop)
            return 1;
    }
    if (r->done == 0) {
        char line[512];
        double ghz;
        sw_meas_backend(m, line, sizeof line, &ghz);
        sw_out_backend(out, line, ghz);
        if (r->progress)
            fputs("\r\033[K", stderr);
        nb_note("sweep: backend: %s", line);
    }
    r->faults += row.status == SWS_FAULT;
    r->errors += row.status == SWS_ERROR;
    r->noisy += row.status == SWS_NOISY;
    if (r->progress)
        fputs("\r\033[K", stderr);
    if (sw_out_row(out, &row) != 0)
        return nb_error_set(err, NB_ESYSTEM, "cannot write the table");
    r->done++;
    return 0;
}

static int measure_forms(const nb_options *o, const cpu_info *cpu, const nb_fingerprint *fp,
                         const sw_caps *caps, const sweep_form_list *l, const size_t *sel,
                         size_t n, nb_error *err)
{
    g_stop = 0;
    sw_meas *m = sw_meas_new(o, cpu, fp->uarch, &g_stop, err);
    if (!m)
        return err->status;
    sw_out out;
    sw_out_init(&out, o->output, stdout, fp);
    sweep_run r = {.progress = isatty(STDERR_FILENO) == 1, .t0 = clock_ns() * 1e-9};
    for (size_t k = 0; k < n; k++)
        r.total += !l->v[sel[k]].skip;
    int rc = 0;
    for (size_t k = 0; k < n && !g_stop; k++) {
        const sweep_form *f = &l->v[sel[k]];
        if (f->skip)
            continue;
        progress(&r, f->name, false);
        rc = sweep_one(m, &out, f, caps, &r, err);
        if (rc)
            break;
    }
    if (r.progress)
        fputs("\r\033[K", stderr);
    double dt = clock_ns() * 1e-9 - r.t0;
    if (rc == 1 || g_stop)
        nb_note("sweep: interrupted by %s after %zu of %zu forms; the table holds those "
                "measured", g_stop == SIGTERM ? "SIGTERM" : "SIGINT", r.done, r.total);
    if (rc >= 0)
        nb_note("sweep: %zu forms in %.1f s (%.1f forms/s, %ld benchmarks), %ld faulted, "
                "%ld errors, %ld noisy", r.done, dt, dt > 0 ? (double)r.done / dt : 0,
                sw_meas_runs(m), r.faults, r.errors, r.noisy);
    give_signals(&r);
    sw_out_free(&out);
    sw_meas_free(m);
    return rc < 0 ? rc : 0;
}

int sweep_main(const nb_options *o, const cpu_info *cpu, const nb_fingerprint *fp,
               nb_error *err)
{
    sweep_form_list l;
    int rc = sweep_forms_enumerate(NULL, &l, err);
    if (rc)
        return rc;
    size_t *sel = NULL, n = 0;
    rc = select_forms(o, &l, &sel, &n, err);
    sw_caps caps;
    read_caps(&caps);
    if (rc == 0)
        verify_forms(&l, sel, n, &caps);
    if (rc == 0 && o->sweep_list)
        rc = list_forms(o, &l, sel, n);
    else if (rc == 0)
        rc = measure_forms(o, cpu, fp, &caps, &l, sel, n, err);
    if (rc == NB_ESYSTEM && !err->status)
        nb_error_set(err, rc, "cannot write the list");
    free(sel);
    sweep_forms_free(&l);
    return rc;
}
