/* nb report: see report.h. */
#include <math.h>

#include "report/report.h"

void report_verbose(FILE *f, const nb_options *o, const bench_result *r)
{
    (void)o;
    for (size_t i = 0; i < r->n_ev; i++) {
        const bench_event_result *e = &r->ev[i];
        if (e->unavailable)
            continue;
        for (int run = 0; run < 2; run++) {
            fprintf(f, "%s (run %d, %ld copies):", e->name, run + 1, r->copies[run]);
            for (size_t k = 0; k < e->n_samples; k++)
                fprintf(f, " %.2f", e->samples[run][k]);
            fprintf(f, "\n");
        }
    }
}

void report_text(FILE *f, const nb_options *o, const bench_result *r)
{
    if (o->verbose)
        report_verbose(f, o, r);
    for (size_t i = 0; i < r->n_ev; i++) {
        const bench_event_result *e = &r->ev[i];
        if (e->unavailable) {
            fprintf(f, "%s: unavailable\n", e->name);
            continue;
        }
        /* "did not occur": rounds to zero as printed */
        if (o->remove_empty_events && fabs(e->value) < 0.005)
            continue;
        fprintf(f, "%s: %.2f", e->name, e->value + 0.0);
        if (o->range)
            fprintf(f, " [%.2f;%.2f]", e->min + 0.0, e->max + 0.0);
        fprintf(f, "\n");
    }
}
