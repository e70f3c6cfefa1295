/* nb text: see text.h.
 *
 * Numbers are printed as nanoBench prints them: it keeps results as integers
 * in hundredths, rounds (value + n/2) / n with C's division and prints the
 * sign apart.  For values >= 0 that is half-up, and nb does exactly that
 * (with nanoBench's half: floor(n/2)/n of a copy, so odd divisors round as
 * in nanoBench too).  For negative values C's division truncates toward
 * zero, which prints an exact -1.30 as -1.29; nb rounds those half-up as
 * well (floor), a deliberate difference that only shows on negative results,
 * i.e. on noise.  Either way a result that rounds to zero prints "0.00",
 * never "-0.00".  nb's values are doubles (the tsc backend's estimates are
 * not whole counts), so a tie that the division left a hair off (2005 /
 * 1000 is 2.00499999... as a double) is snapped back to the tie: 2.01 as in
 * nanoBench.  -no_normalization and the -verbose table print whole numbers
 * rounded half-up. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "report/text.h"

/* floor(x + half), snapped to the nearest whole number when within a
 * relative 1e-9 of it: a tie that the division left a hair below or above
 * is still a tie. */
static long long round_like_nanobench(double x, double half)
{
    double t = x + half, n = nearbyint(t);
    if (fabs(t - n) <= 1e-9 * (fabs(t) > 1 ? fabs(t) : 1))
        return (long long)n;
    return (long long)floor(t);
}

/* nanoBench adds (n/2) in integer arithmetic before dividing by n, so the
 * half it rounds at is floor(n/2)/n: 0.5 for even n, a little less for odd
 * n (nothing for n = 1). */
static double half_of(double divisor)
{
    if (!(divisor >= 1) || divisor > 9e15)
        return 0.5;
    return floor(divisor / 2) / divisor;
}

long long report_hundredths(double value, double divisor)
{
    return round_like_nanobench(value * 100.0, half_of(divisor));
}

static void print_value(FILE *f, const nb_options *o, const bench_result *r, double v)
{
    if (o->no_normalization) {
        fprintf(f, "%lld", round_like_nanobench(v, 0.5));
        return;
    }
    long long h = report_hundredths(v, r->normalization);
    long long a = h < 0 ? -h : h;
    fprintf(f, "%s%lld.%02lld", h < 0 ? "-" : "", a / 100, a % 100);
}

/* nanoBench's -verbose table for one run of one group: a header naming the
 * counters Ctr0.., then one row per measurement. */
static void print_table(FILE *f, const bench_result *r, size_t g, int run)
{
    size_t n_meas = 0, n_ctr = 0;
    bool clock = false;
    for (size_t i = 0; i < r->n_ev; i++) {
        const bench_event_result *e = &r->ev[i];
        if (e->group != g || e->unavailable)
            continue;
        if (n_ctr == 0)
            clock = strcmp(e->name, "RDTSC") == 0 || strcmp(e->name, "CORE_CYCLES") == 0;
        n_ctr++;
        if (e->n_samples > n_meas)
            n_meas = e->n_samples;
    }
    if (n_ctr == 0)
        return;
    fprintf(f, "%s%s results (unroll_count=%ld, loop_count=%ld):\n\n", run == 0 ? "\n" : "",
            clock ? "RDTSC and fixed-function counter" : "Programmable counter",
            r->copies[run], r->loops[run]);
    int pad = n_meas <= 10 ? 1 : n_meas <= 100 ? 2 : n_meas <= 1000 ? 3 : 4;
    fprintf(f, "\t%*s      ", pad, "");
    for (size_t c = 0; c < n_ctr; c++)
        fprintf(f, "        Ctr%zu", c);
    fprintf(f, "\n");
    for (size_t k = 0; k < n_meas; k++) {
        fprintf(f, "\trun %*zu: ", pad, k);
        for (size_t i = 0; i < r->n_ev; i++) {
            const bench_event_result *e = &r->ev[i];
            if (e->group == g && !e->unavailable)
                fprintf(f, "%12lld", k < e->n_samples ? round_like_nanobench(e->samples[run][k], 0.5) : 0);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

void report_text(FILE *f, const nb_options *o, const bench_result *r)
{
    for (size_t i = 0; i < r->n_ev; i++) {
        const bench_event_result *e = &r->ev[i];
        /* nanoBench prints a group's tables right before its results */
        if (o->verbose && (i == 0 || e->group != r->ev[i - 1].group))
            for (int run = 0; run < 2; run++)
                print_table(f, r, e->group, run);
        if (e->unavailable) {
            fprintf(f, "%s: unavailable\n", e->name);
            continue;
        }
        /* "did not occur": rounds to zero as printed */
        bool zero = o->no_normalization ? round_like_nanobench(e->value, 0.5) == 0
                                        : report_hundredths(e->value, r->normalization) == 0;
        if (o->remove_empty_events && zero)
            continue;
        fprintf(f, "%s: ", e->name);
        print_value(f, o, r, e->value);
        if (o->range) {
            fprintf(f, " [");
            print_value(f, o, r, e->min);
            fprintf(f, ";");
            print_value(f, o, r, e->max);
            fprintf(f, "]");
        }
        fprintf(f, "\n");
    }
}
