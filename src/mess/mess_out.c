/* nb mess: the CSV and JSON outputs.
 *
 * CSV: one row per point, the unloaded point first (mix "unloaded"), then
 * every (mix, padding) point that was measured; raw means and the smoothed
 * values side by side.  JSON: the same points with every repetition, the
 * configuration, the machine fingerprint and the summary.  NaN (nothing
 * measured) is written as an empty CSV field and as JSON null. */
#include "mess/mess.h"

#include <math.h>
#include <stdio.h>

#include "lib/json.h"
#include "sys/status.h"

static void csv_num(FILE *f, double v, const char *fmt)
{
    fputc(',', f);
    if (!isnan(v))
        fprintf(f, fmt, v);
}

static void csv_row(FILE *f, const mess_point *p)
{
    if (p->pad == MESS_UNLOADED)
        fputs("unloaded,idle", f);
    else
        fprintf(f, "%d/%d,%d", p->read_pct, 100 - p->read_pct, p->pad);
    csv_num(f, p->bw, "%.3f");
    csv_num(f, p->ns, "%.2f");
    csv_num(f, p->cyc, "%.1f");
    fprintf(f, ",%d,%d", p->kept, p->reps);
    csv_num(f, p->ns_sd, "%.2f");
    csv_num(f, p->bw_sd, "%.3f");
    csv_num(f, p->bw_smooth, "%.3f");
    csv_num(f, p->ns_smooth, "%.2f");
    fputc('\n', f);
}

int mess_write_csv(FILE *f, const mess_result *r)
{
    fputs("mix_read_write,pad,bandwidth_gbs,latency_ns,latency_cycles,reps_kept,reps,"
          "latency_sd_ns,bandwidth_sd_gbs,bandwidth_smooth_gbs,latency_smooth_ns\n", f);
    if (r->unloaded.reps)
        csv_row(f, &r->unloaded);
    for (int i = 0; i < r->nmix * r->npad; i++)
        if (r->pts[i].reps)
            csv_row(f, &r->pts[i]);
    return ferror(f) ? NB_ESYSTEM : NB_OK;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        size_t n = c >= 0x80 ? utf8_seq_len(s) : 1;
        if (n == 0) {   /* not UTF-8: U+FFFD, so the file stays valid JSON */
            fputs("\xef\xbf\xbd", f);
        } else if (n > 1) {
            fwrite(s, 1, n, f);
            s += n - 1;
        } else if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v, const char *fmt)
{
    if (isnan(v) || isinf(v))
        fputs("null", f);
    else
        fprintf(f, fmt, v);
}

static void json_reps(FILE *f, const char *name, const double *x, int n, const char *fmt)
{
    fprintf(f, "\"%s\": [", name);
    for (int i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        json_num(f, x[i], fmt);
    }
    fputc(']', f);
}

static void json_point(FILE *f, const mess_point *p)
{
    fputs("    {", f);
    if (p->pad == MESS_UNLOADED)
        fputs("\"mix\": \"unloaded\", \"read_pct\": null, \"pad\": null", f);
    else
        fprintf(f, "\"mix\": \"%d/%d\", \"read_pct\": %d, \"pad\": %d", p->read_pct,
                100 - p->read_pct, p->read_pct, p->pad);
    fputs(", \"bandwidth_gbs\": ", f);
    json_num(f, p->bw, "%.3f");
    fputs(", \"latency_ns\": ", f);
    json_num(f, p->ns, "%.2f");
    fputs(", \"latency_cycles\": ", f);
    json_num(f, p->cyc, "%.1f");
    fprintf(f, ", \"reps_kept\": %d, \"reps\": %d", p->kept, p->reps);
    fputs(", \"latency_sd_ns\": ", f);
    json_num(f, p->ns_sd, "%.2f");
    fputs(", \"bandwidth_sd_gbs\": ", f);
    json_num(f, p->bw_sd, "%.3f");
    fputs(", \"bandwidth_smooth_gbs\": ", f);
    json_num(f, p->bw_smooth, "%.3f");
    fputs(", \"latency_smooth_ns\": ", f);
    json_num(f, p->ns_smooth, "%.2f");
    fputs(",\n     ", f);
    json_reps(f, "raw_bandwidth_gbs", p->rep_bw, p->reps, "%.3f");
    fputs(", ", f);
    json_reps(f, "raw_latency_ns", p->rep_ns, p->reps, "%.2f");
    fputs(", ", f);
    json_reps(f, "raw_latency_cycles", p->rep_cyc, p->reps, "%.1f");
    fputc('}', f);
}

static void json_ints(FILE *f, const int *x, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%d", i ? ", " : "", x[i]);
    fputc(']', f);
}

int mess_write_json(FILE *f, const mess_result *r)
{
    const mess_machine *m = &r->m;
    fputs("{\n  \"benchmark\": \"mess\",\n  \"machine\": {\"vendor\": ", f);
    json_str(f, m->vendor);
    fputs(", \"brand\": ", f);
    json_str(f, m->brand);
    fprintf(f, ", \"family\": %u, \"model\": %u, \"stepping\": %u, \"kernel\": ", m->family,
            m->model, m->stepping);
    json_str(f, m->kernel);
    fprintf(f, ", \"smt\": %s, \"governor\": ",
            m->smt < 0 ? "null" : m->smt ? "true" : "false");
    if (m->governor[0])
        json_str(f, m->governor);
    else
        fputs("null", f);
    fputs(", \"tsc_ghz\": ", f);
    json_num(f, m->tsc_ghz, "%.4f");
    fputs(", \"core_ghz\": ", f);
    json_num(f, m->core_ghz, "%.3f");
    fprintf(f, ", \"llc_bytes\": %zu, \"llc_source\": ", m->llc_bytes);
    json_str(f, m->llc_source ? m->llc_source : "none");
    fputs("},\n", f);

    fprintf(f, "  \"config\": {\"chase_bytes\": %zu, \"generator_bytes\": %zu, "
               "\"chase_cpu\": %d, \"generator_cpus\": ",
            r->chase_bytes, r->gen_bytes, r->chase_cpu);
    json_ints(f, r->gen_cpus, r->ngen);
    fputs(", \"mixes_read_pct\": ", f);
    json_ints(f, r->mixes, r->nmix);
    fputs(", \"pads\": ", f);
    json_ints(f, r->pads, r->npad);
    fprintf(f, ", \"pad_instruction\": \"%s\", \"reps\": %d, \"settle_ms\": %.0f, "
               "\"window_ms\": %.0f, \"savgol_window\": %d, \"savgol_order\": %d,\n",
            r->pad_kind == MESS_PAD_NOP ? "nop" : "pause", r->reps, r->settle_ms,
            r->window_ms, r->sg_window, r->sg_order);
    fputs("    \"chase_huge_page_fraction\": ", f);
    json_num(f, r->chase_huge, "%.3f");
    fputs(", \"generator_huge_page_fraction\": ", f);
    json_num(f, r->gen_huge, "%.3f");
    fputs(",\n    \"bandwidth_method\": \"generator byte counts over TSC time: 64 B per "
          "line loaded, 128 B per line stored (write-allocate read + write-back); "
          "no uncore counters\",\n"
          "    \"latency_method\": \"pointer chase, one pointer per 64 B line, one "
          "Sattolo cycle; TSC time per 256 loads, chunks over 2x the median dropped as "
          "preempted; cycles = ns x measured core clock (dependent ADD "
          "chain)\"},\n",
          f);

    fprintf(f, "  \"run\": {\"measured\": %d, \"planned\": %d, \"interrupted\": %s, "
               "\"seconds\": %.1f, \"chase_chunks\": %llu, \"chase_chunks_dropped\": %llu},\n",
            r->measured, r->total, r->interrupted ? "true" : "false", r->seconds,
            (unsigned long long)r->chunks, (unsigned long long)r->chunks_dropped);
    fputs("  \"summary\": {\"unloaded_latency_ns\": ", f);
    json_num(f, r->unloaded.ns, "%.2f");
    fputs(", \"unloaded_latency_cycles\": ", f);
    json_num(f, r->unloaded.cyc, "%.1f");
    fputs(", \"peak_bandwidth_gbs\": ", f);
    json_num(f, r->peak_bw, "%.3f");
    fputs(", \"latency_at_peak_ns\": ", f);
    json_num(f, r->peak_ns, "%.2f");
    fputs(", \"peak_mix_read_pct\": ", f);
    if (r->peak_mix >= 0)
        fprintf(f, "%d, \"peak_pad\": %d", r->peak_mix, r->peak_pad);
    else
        fputs("null, \"peak_pad\": null", f);
    fputs(", \"latency_at_90pct_peak_ns\": ", f);
    json_num(f, r->lat90_ns, "%.2f");
    fputs("},\n  \"points\": [\n", f);
    bool first = true;
    if (r->unloaded.reps) {
        json_point(f, &r->unloaded);
        first = false;
    }
    for (int i = 0; i < r->nmix * r->npad; i++)
        if (r->pts[i].reps) {
            if (!first)
                fputs(",\n", f);
            json_point(f, &r->pts[i]);
            first = false;
        }
    fputs("\n  ]\n}\n", f);
    return ferror(f) ? NB_ESYSTEM : NB_OK;
}
