/* nb place: see place.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/place.h"
#include "measure/stats.h"
#include "pmu/tsc_estimate.h"

/* Runs of the program that times the harness (or the probe, probe_time),
 * and where those leave linear()'s verdict to their own noise (probe_open). */
#define HARNESS_RUNS 64
#define PROBE_MORE_RUNS 1024
/* ... no more than this many ticks of them (a long loop: 10,000 iterations
 * would take 64 x 1.5 times the first program's time). */
#define PROBE_TICKS 2e6


/* The counter whose ticks are the estimated cycles, or -1. */
static int clock_counter(size_t n_ctr, const pmu_counter *ctr)
{
    for (size_t c = 0; c < n_ctr; c++)
        if (ctr[c].tsc_cycles && ctr[c].read == PMU_READ_RDTSC)
            return (int)c;
    return -1;
}

static int build(const place_job *j, long copies, long loops, codegen_prog *out, nb_error *err)
{
    codegen_params p = j->params;
    p.copies = (size_t)copies;
    p.loop_count = loops;
    return codegen_build(&p, out, err);
}

static int build_pair(const place_job *j, codegen_prog out[2], nb_error *err)
{
    for (int r = 0; r < 2; r++) {
        int rc = build(j, j->copies[r], j->loops[r], &out[r], err);
        if (rc) {
            if (r)
                codegen_free(&out[0]);
            return rc;
        }
    }
    return 0;
}

/* Builds another pair while the earlier ones are mapped (other addresses,
 * other pages), makes it the job's programs and measures them into
 * *again, measure()'s status in *rc; false where the pair cannot be built
 * (memory: nothing measured, the programs as they were). */
static bool measure_elsewhere(const place_job *j, codegen_prog pair[2], tsc_outcome *again,
                              int *rc, nb_error *err)
{
    nb_error quiet;
    if (build_pair(j, pair, &quiet))
        return false;
    *j->prog[0] = pair[0];
    *j->prog[1] = pair[1];
    *rc = measure(j->rs, j->warm, j->n, j->cp, j->n_ctr, j->ctr, j->ovf, j->goal, again, err);
    return true;
}

/* A program timed beside the measurement's two, `copies` copies in `loops`
 * iterations: the harness alone (0 copies, no loop), set against the first
 * program; or one between the two programs, which it is set against the
 * first of: -basic_mode (the first program is the harness alone) half the
 * second's copies, -loop_count one and a half times the first's in as many
 * iterations.  `execs`: its executions of the code beyond the first's. */
typedef struct probe_time {
    long copies, loops;
    double execs;
    double ticks, hw;
} probe_time;

/* The probe for job j; false where there is none (no copies to compare: a
 * loop of one copy, -basic_mode with a loop). */
static bool probe_for(const place_job *j, probe_time *h)
{
    long u = j->copies[0], l = j->loops[1];
    /* the copies the probe has beyond the first program's (whole copies) */
    long more = u > 0 ? u / 2 : j->copies[1] / 2;
    if (j->loops[0] != l || (u == 0 && l > 0))
        return false;
    if (u > 0 && l == 0)
        *h = (probe_time){.copies = 0};
    else if (u == 0 && more >= 1)
        *h = (probe_time){.copies = more, .execs = (double)more};
    else if (more >= 1 && l > 0)
        *h = (probe_time){.copies = u + more, .loops = l, .execs = (double)more * (double)l};
    else
        return false;
    return true;
}

/* What linear() sets against each other: the program with the fewer
 * copies (its ticks, its executions of the code) and what it should cost
 * less those executions (h0): the first program against the harness
 * alone, or the probe against the first program. */
typedef struct probe_fit {
    double first, execs, h0;
} probe_fit;

static probe_fit fit_of(const place_job *j, const tsc_outcome *to, int c, probe_time h)
{
    if (h.copies == 0)   /* straight code, or a loop's first program (loop_onset) */
        return (probe_fit){to->first[c],
                           (double)j->copies[0] * (double)(j->loops[0] > 1 ? j->loops[0] : 1),
                           h.ticks};
    return (probe_fit){h.ticks, h.execs, to->first[c]};
}

/* How far the program with the fewer copies lies from what linear() expects
 * of it (ticks, signed: tsc_misfit). */
static double misfit_of(const place_job *j, const tsc_outcome *to, int c, probe_time h)
{
    probe_fit f = fit_of(j, to, c, h);
    return tsc_misfit(f.first, f.execs, f.h0, to->diff[c], j->goal->execs);
}

/* Whether the code is straight and its context a chain's (the front end
 * does not bound it: tsc_context_cycles). */
static bool chain_like(const place_job *j, const tsc_outcome *to, int c)
{
    return j->loops[1] <= 1 && to->context[c] > 0 && to->context[c] <= TSC_CONTEXT_CYCLES;
}

/* The least misfit linear() lets pass (tsc_linear_floor): a chain's where
 * the code is chain_like, the front end's otherwise. */
static double misfit_floor(const place_job *j, const tsc_outcome *to, int c)
{
    return tsc_linear_floor(chain_like(j, to, c), j->cp->step, to->ratio);
}

/* Whether the program with the fewer copies costs the one with the more's
 * less their difference in executions at the difference's rate. */
static bool linear(const place_job *j, const tsc_outcome *to, int c, probe_time h)
{
    probe_fit f = fit_of(j, to, c, h);
    return tsc_linear(f.first, f.execs, f.h0, h.hw, to->diff[c], j->goal->execs, to->noise[c],
                      misfit_floor(j, to, c));
}

/* Whether two places' programs miss linearity alike (*a the first, *b
 * another, both not linear): within the floor and their runs' noise (the
 * probe, timed once, is in both misfits alike).  Then it is the code's
 * misfit, not a place's, and a third place shows it too: the sweep's
 * throughput forms (twelve independent CRC32s, XORs with memory or stores
 * x 16-50 copies), whose first programs cost 13-42 cycles less than the
 * harness alone and their copies make (the core takes in the first copies
 * while the harness's own work drains), were measured at three places
 * each, every one nonlinear, and took the sweep of the ALU forms 25-50 %
 * longer; at two, 17-22 %. */
static bool same_misfit(const place_job *j, const tsc_outcome *a, const tsc_outcome *b, int c,
                        probe_time h)
{
    double r = 1 + fit_of(j, a, c, h).execs / j->goal->execs;
    return fabs(misfit_of(j, a, c, h) - misfit_of(j, b, c, h)) <=
           misfit_floor(j, a, c) + r * hypot(a->noise[c], b->noise[c]);
}

/* `ticks` of misfit as a share of the difference: the first program
 * slowed by them moves it by as much, the second slowed moves it by them
 * in the difference's executions. */
static double share_of_diff(const place_job *j, const tsc_outcome *to, int c, probe_fit f,
                            double ticks)
{
    return to->diff[c] != 0 && f.execs > 0
               ? ticks * fmax(1, j->goal->execs / f.execs) / fabs(to->diff[c])
               : 0;
}

/* How far the difference can be off where linear() fails (a share of
 * it): the misfit, known within the probe's and the runs' noise. */
static double misfit_share(const place_job *j, const tsc_outcome *to, int c, probe_time h)
{
    return share_of_diff(j, to, c, fit_of(j, to, c, h),
                         fabs(misfit_of(j, to, c, h)) + h.hw + to->noise[c]);
}

/* The part of the misfit (probe h's) beyond `floor` ticks and what the
 * probe's and the runs' noise explain (share_of_diff) joins every
 * estimated-cycles value's half-width. */
static void misfit_into_half_width(const place_job *j, tsc_outcome *to, int c, probe_time h,
                                   double floor)
{
    probe_fit f = fit_of(j, to, c, h);
    if (!(f.execs >= 1))
        return;
    double left = fabs(misfit_of(j, to, c, h)) - floor -
                  tsc_misfit_noise(f.execs, h.hw, j->goal->execs, to->noise[c]);
    double share = left > 0 ? share_of_diff(j, to, c, f, left) : 0;
    for (size_t k = 0; share > 0 && k < j->n_ctr; k++)
        if (j->ctr[k].tsc_cycles)
            to->unc[k] += share * fabs(to->diff[k]);
}

/* A chain's programs linear() lets pass can still miss by more than the
 * probe's and the runs' noise explain (the rest of its allowance is the
 * tolerance's 1.5 % of the copies' part, more than the value's half-width
 * for an IMUL chain x 100): that part joins the half-width.  600 single
 * runs of an ADD pair x 100 on a Zen 5 guest beside the host's neighbour,
 * their misfits recorded: 3 unflagged beyond their half-width, two of them
 * with a misfit beyond its noise (2.052 +/- 0.024: 2.3 ticks against 1.4;
 * 2.027: 2.6 against 1.9), which this flags (replayed on the records, 20
 * more of the 600 flagged).  (Code that is not a chain moves the harness's
 * context by more: tsc_linear_floor.) */
static void misfit_left(const place_job *j, tsc_outcome *to, int c, probe_time h)
{
    if (chain_like(j, to, c))
        misfit_into_half_width(j, to, c, h, 0);
}

/* Programs linear at no place, missing alike (same_misfit): the code's
 * misfit, which a start's context can make (the sweep's throughput forms'
 * first programs, 13-42 cycles below the harness and their copies, which
 * the second's start has too: the difference holds), or which the longer
 * program's cost makes (code that outgrows a cache between the two, or a
 * process whose second program runs slow wherever it lies), and the
 * difference is not the code's cost a copy.  What lies beyond the floor
 * of code that is not a chain (what a start can move a program by:
 * tsc_linear_floor) joins the half-width: six ADDs x 1,000 (defaults,
 * -no_mem) read 2.652 +/- 0.029, unflagged, in 1 of 2,500 single runs on
 * a Zen 5 guest (and 2.73 in 1 of 60 lines of bench/accuracy), the second
 * program ~1,150 cycles slow at both places, against 1.50. */
static void misfit_everywhere(const place_job *j, tsc_outcome *to, int c, probe_time h)
{
    misfit_into_half_width(j, to, c, h, tsc_linear_floor(false, j->cp->step, to->ratio));
}

/* Whether linear()'s verdict on probe h is its own noise's: linear, by
 * less than the probe's half-width, where a probe known exactly could find
 * it not.  The harness alone (~90 ticks in 21-tick steps on a Zen 5 guest)
 * is known to +/- 3.6 ticks from HARNESS_RUNS runs, most of what linear()
 * let an ADD-pair chain x 100 miss by (3.9 of 4.1-5.7): the second program
 * slowed ~7 cycles at its place read 2.07-2.08 +/- 0.026 in 2 of 2,500
 * single runs; 1,024 runs know it to +/- 0.9. */
static bool probe_open(const place_job *j, const tsc_outcome *to, int c, probe_time h)
{
    probe_fit f = fit_of(j, to, c, h);
    if (!(f.execs >= 1))
        return false;
    double exact = tsc_linear_allow(f.execs, 0, to->diff[c], j->goal->execs, to->noise[c],
                                    misfit_floor(j, to, c));
    return linear(j, to, c, h) && fabs(misfit_of(j, to, c, h)) + h.hw > exact;
}

/* Of `fit` runs (what PROBE_TICKS holds), `cap` at most, 8 at least. */
static size_t probe_runs(double fit, size_t cap)
{
    return fit >= (double)cap ? cap : fit <= 8 ? 8 : (size_t)fit;
}

/* Builds job j's probe (probe_for set h) into *bare and times it beside the
 * measurement *to, again with more runs where the first timing leaves
 * linear() open (probe_open); false where it cannot be built (memory). */
static bool time_probe_in(const place_job *j, const tsc_outcome *to, int c, probe_time *h,
                          codegen_prog *bare)
{
    nb_error quiet;
    if (build(j, h->copies, h->loops, bare, &quiet))
        return false;
    double est = to->first[c] + h->execs * to->diff[c] / j->goal->execs;
    double fit = est > 1 ? PROBE_TICKS / est : PROBE_MORE_RUNS;
    size_t runs = probe_runs(fit, HARNESS_RUNS), more = probe_runs(fit, PROBE_MORE_RUNS);
    h->ticks = tsc_time_program(j->cp, bare, (size_t)c, runs, &h->hw);
    if (more > runs && probe_open(j, to, c, *h))
        h->ticks = tsc_time_program(j->cp, bare, (size_t)c, more, &h->hw);
    return true;
}

/* time_probe_in, the probe freed after. */
static bool time_probe(const place_job *j, const tsc_outcome *to, int c, probe_time *h)
{
    codegen_prog bare;
    if (!time_probe_in(j, to, c, h, &bare))
        return false;
    codegen_free(&bare);
    return true;
}

/* The probe is a program at a place of its own, which can slow it as any
 * program's can: timed where *to found the programs not linear (the
 * first, *bare, still mapped, so at other addresses), the two timings'
 * mean where they agree, the faster where they do not (a place slows, it
 * does not speed up).  An ADD pair x 100 read 1.930 +/- 0.027, unflagged,
 * in one of 3,000 single runs on a Zen 5 guest: the harness alone ran
 * ~12 cycles slow at its place, the programs' first place (right, 2.00)
 * looked not linear, and the second, whose first program ran 8 cycles
 * slow, looked linear against it and was kept. */
static void probe_again(const place_job *j, const tsc_outcome *to, int c, probe_time *h)
{
    probe_time b = *h;
    codegen_prog other;
    if (!time_probe_in(j, to, c, &b, &other))
        return;
    codegen_free(&other);
    if (fabs(b.ticks - h->ticks) <= hypot(b.hw, h->hw)) {
        h->ticks = (h->ticks + b.ticks) / 2;
        h->hw = hypot(h->hw, b.hw) / 2;
    } else if (b.ticks < h->ticks) {
        *h = b;
    }
}

bool place_big(const codegen_params *p, long copies)
{
    return (double)codegen_copy_len(p) * (double)copies >= PLACE_BIG;
}

/* The places whose value lies in the middle of m (d[p], each value): both
 * middle ones of an even number, the middle one of an odd; a bit each. */
static unsigned middle_places(const double *d, size_t m)
{
    size_t order[PLACE_MEAN] = {0};
    for (size_t p = 0; p < m; p++) {
        size_t at = p;
        while (at > 0 && d[order[at - 1]] > d[p]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = p;
    }
    unsigned mid = 1u << order[m / 2];
    if (m % 2 == 0)
        mid |= 1u << order[m / 2 - 1];
    return mid;
}

/* Code beyond PLACE_BIG: measured at PLACE_MEAN places in all, each pair
 * built while the earlier ones are mapped (other pages); the samples and
 * the difference become those of the middle places (middle_places: every
 * place's ticks in the first place's clock, the two middle ones' mean of
 * four), the half-width their statistical ones' (of a mean) plus TSC_Z
 * standard deviations of all the places' values, so that it covers what
 * the code costs at a place (what a single measurement is of).  The
 * middle, not the mean: one place in four can read 15-24 % off the others
 * (2 MB of NOPs on a Zen 5 guest), which moved the mean 4-6 % from the
 * cost most places have.  The first place's programs and clock stay.
 * Places that cannot be built (memory) are fewer; with one alone, the
 * first result stands. */
static int place_mean(const place_job *j, tsc_outcome *to, place_outcome *po, int c,
                      nb_error *err)
{
    size_t per_run = (size_t)(j->rs[1].samples - j->rs[0].samples), n = (size_t)j->n;
    size_t bytes = j->doubles * sizeof(double), part = 2 * per_run;
    double *s0 = j->rs[0].samples, *first = malloc(bytes);
    double *at = malloc(PLACE_MEAN * part * sizeof *at);   /* each place's samples */
    codegen_prog pairs[PLACE_MEAN - 1][2], keep[2] = {*j->prog[0], *j->prog[1]};
    double d[PMU_MAX_GROUP_CTR][PLACE_MEAN], u[PMU_MAX_GROUP_CTR][PLACE_MEAN];
    tsc_outcome again;
    int rc = 0;
    size_t built = 0, m = 1;
    if (!first || !at || !(to->ratio > 0))
        goto out;   /* not measured again: the first placement's result stands */
    memcpy(first, s0, bytes);
    memcpy(at, s0, part * sizeof *at);
    for (size_t k = 0; k < j->n_ctr; k++) {
        d[k][0] = to->diff[k];
        u[k][0] = to->unc[k];
    }
    while (built < PLACE_MEAN - 1 && measure_elsewhere(j, pairs[built], &again, &rc, err)) {
        built++;
        if (rc)
            break;
        if (!again.logged || !(again.ratio > 0))
            continue;
        for (size_t k = 0; k < j->n_ctr; k++) {
            double scale = j->ctr[k].tsc_cycles ? to->ratio / again.ratio : 1;
            d[k][m] = scale * again.diff[k];
            u[k][m] = scale * again.unc[k];
            for (size_t r = 0; r < 2; r++)
                for (size_t i = 0; i < n; i++)
                    at[m * part + r * per_run + k * n + i] = scale * s0[r * per_run + k * n + i];
        }
        for (int r = 0; r < 2; r++) {
            to->runs[r] += again.runs[r];
            to->kept[r] += again.kept[r];
        }
        to->passes += again.passes;
        m++;
    }
    *j->prog[0] = keep[0];
    *j->prog[1] = keep[1];
    for (size_t b = 0; b < built; b++) {
        codegen_free(&pairs[b][0]);
        codegen_free(&pairs[b][1]);
    }
    if (rc || m < 2) {
        memcpy(s0, first, bytes);
        goto out;
    }
    for (size_t k = 0; k < j->n_ctr; k++) {
        unsigned mid = middle_places(d[k], m);
        double value = 0, all = 0, var = 0, stat = 0, used = 0;
        for (size_t p = 0; p < m; p++) {
            all += d[k][p] / (double)m;
            if (!(mid >> p & 1))
                continue;
            /* each place's half-width without the share all of them carry
             * alike (tsc_big_share), which no mean of places shrinks */
            double share = j->ctr[k].tsc_cycles ? tsc_big_share(j->goal, d[k][p]) : 0;
            double up = fmax(u[k][p] - share, 0);
            value += d[k][p];
            stat += up * up;
            used++;
        }
        value /= used;
        for (size_t p = 0; p < m; p++) {
            var += (d[k][p] - all) * (d[k][p] - all) / (double)(m - 1);
            /* the place furthest from the first, as a fraction of it */
            double off = d[k][0] != 0 ? d[k][p] / d[k][0] - 1 : 0;
            if (k == (size_t)c && fabs(off) > fabs(po->off))
                po->off = off;
        }
        to->diff[k] = value;
        to->unc[k] = sqrt(stat) / used + TSC_Z * sqrt(var) +
                     (j->ctr[k].tsc_cycles ? tsc_big_share(j->goal, value) : 0);
        for (size_t r = 0; r < 2; r++)
            for (size_t i = 0; i < n; i++) {
                double v = 0;
                for (size_t p = 0; p < m; p++)
                    if (mid >> p & 1)
                        v += at[p * part + r * per_run + k * n + i];
                s0[r * per_run + k * n + i] = v / used;
            }
        double *a = s0 + k * n, *b = s0 + per_run + k * n;
        to->agg_off[k] = fabs(stats_aggregate(b, n, (nb_agg)j->goal->agg) -
                              stats_aggregate(a, n, (nb_agg)j->goal->agg) - to->diff[k]);
    }
    /* the clock's readings (after both programs' samples) stay the first's */
    memcpy(s0 + part, first + part, bytes - part * sizeof(double));
    po->placements = (unsigned)m;
    po->averaged = true;
out:
    free(first);
    free(at);
    return rc;
}

/* Two places that agree (*to, whose samples are the job's, and *b, whose
 * samples are sb): their mean, in to's clock, for the differences, the
 * first program's means and the samples; the larger half-width of the
 * two (what neither place's value is known better than).  Each alone can
 * lie at the edge of its interval: a store-load pair compared at two
 * places read 0.517 and 0.504, agreeing, against 0.500, and the first,
 * kept alone, lay beyond its half-width of 0.014. */
static void mean_of_two(const place_job *j, tsc_outcome *to, const tsc_outcome *b,
                        const double *sb)
{
    size_t per_run = (size_t)(j->rs[1].samples - j->rs[0].samples), n = (size_t)j->n;
    double *s0 = j->rs[0].samples;
    for (size_t k = 0; k < j->n_ctr; k++) {
        double scale = j->ctr[k].tsc_cycles && b->ratio > 0 ? to->ratio / b->ratio : 1;
        to->diff[k] = (to->diff[k] + scale * b->diff[k]) / 2;
        to->first[k] = (to->first[k] + scale * b->first[k]) / 2;
        to->unc[k] = fmax(to->unc[k], scale * b->unc[k]);
        to->noise[k] = fmax(to->noise[k], scale * b->noise[k]);
        for (size_t r = 0; r < 2; r++)
            for (size_t i = 0; i < n; i++) {
                size_t at = r * per_run + k * n + i;
                s0[at] = (s0[at] + scale * sb[at]) / 2;
            }
        to->agg_off[k] = fabs(stats_aggregate(s0 + per_run + k * n, n, (nb_agg)j->goal->agg) -
                              stats_aggregate(s0 + k * n, n, (nb_agg)j->goal->agg) - to->diff[k]);
    }
}

/* Whether two places' differences agree within their runs' noise. */
static bool agree(const tsc_outcome *a, const tsc_outcome *b, int c)
{
    /* in core cycles: the clock may have moved between the two */
    return a->logged && b->logged && a->ratio > 0 && b->ratio > 0 &&
           fabs(a->diff[c] / a->ratio - b->diff[c] / b->ratio) <=
               hypot(a->noise[c] / a->ratio, b->noise[c] / b->ratio);
}

/* Whether the front end bounds code measured as *to (its context beyond a
 * chain's): its place can move it (place.h). */
static bool fe_context(const tsc_outcome *to, int c)
{
    return to->context[c] > TSC_CONTEXT_CYCLES;
}

/* Whether what its place can move code the front end bounds by matters
 * (place.h): PLACE_FE_SHIFT of its value beyond half its tolerance, or of
 * the two programs' difference beyond the context the value carries. */
static bool fe_shifts(const place_job *j, const tsc_outcome *to, int c)
{
    double cycles = to->ratio > 0 ? to->diff[c] / to->ratio : 0, per = cycles / j->goal->execs;
    return fe_context(to, c) && (PLACE_FE_SHIFT * fabs(per) > tsc_tolerance(per) / 2 ||
                                 PLACE_FE_SHIFT * fabs(cycles) > to->context[c]);
}

/* Whether code measured as *to is compared at other places: fe_shifts, or
 * a loop of more than one iteration, whose branch moves with its place. */
static bool compare_wanted(const place_job *j, const tsc_outcome *to, int c)
{
    return j->loops[1] > 1 || fe_shifts(j, to, c);
}

/* Code compare_wanted, linear where it lies (or with no probe, h NULL, to
 * check that against): measured at another place, and where the two
 * disagree at one more (`more` places at most, 1 or 2); the first place that
 * agrees with a later one is kept (this one, or the next where the one after
 * agrees with it alone), its values the mean of the two (mean_of_two), its
 * half-widths widened by how far a place that agreed with neither lay from
 * it; where none agree, this one, its half-widths widened by how far the
 * others lay from it.  A later place that is not linear
 * counts for nothing (two such read 2.76 and agreed, where the first read
 * 1.50). */
static int place_compare(const place_job *j, tsc_outcome *to, place_outcome *po, int c,
                         const probe_time *h, size_t more, nb_error *err)
{
    size_t bytes = j->doubles * sizeof(double);
    double *saved = malloc(PLACE_TRIES * bytes);
    tsc_outcome *at = malloc(PLACE_TRIES * sizeof *at);
    codegen_prog pairs[PLACE_TRIES][2] = {{*j->prog[0], *j->prog[1]}};
    size_t built = 1, keep = 0;
    int rc = 0, use = -1;
    if (!saved || !at)
        goto out;   /* not measured again: the first placement's result stands */
    at[0] = *to;
    memcpy(saved, j->rs[0].samples, bytes);
    while (use < 0 && built <= more && built < PLACE_TRIES &&
           measure_elsewhere(j, pairs[built], &at[built], &rc, err)) {
        memcpy(saved + built * j->doubles, j->rs[0].samples, bytes);
        built++;
        if (rc)
            break;
        if (h && at[built - 1].logged && !linear(j, &at[built - 1], c, *h))
            at[built - 1].logged = false;   /* left out: neither kept nor agreed with */
        for (size_t a = 0; a + 1 < built && use < 0; a++)
            if (agree(&at[a], &at[built - 1], c))
                use = (int)a;
    }
    keep = use > 0 ? (size_t)use : 0;
    *to = at[keep];
    memcpy(j->rs[0].samples, saved + keep * j->doubles, bytes);
    if (use >= 0)
        mean_of_two(j, to, &at[built - 1], saved + (built - 1) * j->doubles);
    for (size_t b = 0; b < built; b++) {
        if (b == keep || !at[b].logged)
            continue;
        double off = to->diff[c] != 0 ? at[b].diff[c] / to->diff[c] - 1 : 0;
        if (fabs(off) > fabs(po->off))
            po->off = off;
        /* a linear place that agreed with neither of two that agree is
         * still a place the code cost that at: the majority need not be
         * what other processes' places read (a loop of 1,000 NOPs x 10
         * copies read 263.1 +/- 1.1 at two places and 250 at a third
         * beside a busy loop, its references 250-254) */
        if (use < 0 || b != built - 1)
            for (size_t k = 0; k < j->n_ctr; k++)
                to->unc[k] += fabs(at[b].diff[k] - to->diff[k]);
    }
    if (keep > 0)   /* how far the first lay from the kept, as where it was nonlinear */
        po->off = to->diff[c] != 0 ? at[0].diff[c] / to->diff[c] - 1 : 0;
    po->placements = (unsigned)built;
    po->moved = keep > 0;
    po->compared = true;
    *j->prog[0] = pairs[keep][0];
    *j->prog[1] = pairs[keep][1];
out:
    for (size_t b = 0; b < built; b++)
        if (b != keep) {
            codegen_free(&pairs[b][0]);
            codegen_free(&pairs[b][1]);
        }
    free(saved);
    free(at);
    return rc;
}

/* Samples too many to log (TSC_LOG_DOUBLES): measuring them again at
 * another place would take as long again (seconds), so the one place's
 * value stands and what its place can move it by joins its half-width
 * (to->fixed; po->off that share): code beyond PLACE_BIG PLACE_ONE_SHARE;
 * code its probe finds not linear there, what the misfit can move the
 * difference by; code the front end bounds (fe_context), PLACE_FE_SHIFT.
 * (Six ADDs with -n_measurements 200000 read 2.60 +/- 0.02 once in six,
 * unflagged, before.) */
static void place_one(const place_job *j, tsc_outcome *to, place_outcome *po, int c)
{
    double share = 0;
    probe_time h;
    if (j->goal->big) {
        share = PLACE_ONE_SHARE;
    } else {
        if (probe_for(j, &h) && time_probe(j, to, c, &h) && !linear(j, to, c, h))
            share = misfit_share(j, to, c, h);
        if (fe_context(to, c))
            share = fmax(share, PLACE_FE_SHIFT);
    }
    for (size_t k = 0; k < j->n_ctr; k++)
        if (j->ctr[k].tsc_cycles)
            to->fixed[k] += share * fabs(to->diff[k]);
    po->off = share;
}

static int place_find(const place_job *j, tsc_outcome *to, place_outcome *po, nb_error *err)
{
    *po = (place_outcome){.placements = 1};
    int c = clock_counter(j->n_ctr, j->ctr);
    /* -debug's trap in every run is the debugger's time, not the code's */
    if (c < 0 || j->params.debug)
        return 0;
    if (!to->logged) {
        place_one(j, to, po, c);
        return 0;
    }
    if (j->goal->big)
        return place_mean(j, to, po, c, err);
    probe_time h;
    if (!probe_for(j, &h))
        return compare_wanted(j, to, c) ? place_compare(j, to, po, c, NULL, PLACE_TRIES - 1, err) : 0;
    /* programs that cannot be built (memory) leave the first placement's
     * result as it is: a check, not part of the measurement */
    codegen_prog bare;
    if (!time_probe_in(j, to, c, &h, &bare))
        return 0;
    bool lin = linear(j, to, c, h);
    if (!lin) {
        probe_again(j, to, c, &h);
        lin = linear(j, to, c, h);
    }
    codegen_free(&bare);
    if (lin) {
        misfit_left(j, to, c, h);
        return compare_wanted(j, to, c) ? place_compare(j, to, po, c, &h, PLACE_TRIES - 1, err) : 0;
    }
    size_t bytes = j->doubles * sizeof(double);
    double *kept = malloc(bytes);
    if (!kept)
        return 0;   /* not measured again: the first placement's result stands */
    memcpy(kept, j->rs[0].samples, bytes);
    codegen_prog pairs[PLACE_TRIES][2] = {{*j->prog[0], *j->prog[1]}};
    double spread[PMU_MAX_GROUP_CTR] = {0};
    size_t built = 1, use = 0;
    tsc_outcome again;
    int rc = 0;
    while (use == 0 && built < PLACE_TRIES &&
           measure_elsewhere(j, pairs[built], &again, &rc, err)) {
        built++;
        if (rc)
            break;
        double was = to->diff[c], now = again.diff[c];
        if (linear(j, &again, c, h)) {
            use = built - 1;
            po->off = now != 0 ? was / now - 1 : 0;
            *to = again;
            misfit_left(j, to, c, h);
            break;
        }
        if (was != 0 && fabs(now / was - 1) > fabs(po->off))
            po->off = now / was - 1;
        for (size_t k = 0; k < j->n_ctr; k++)
            spread[k] = fmax(spread[k], fabs(again.diff[k] - to->diff[k]));
        if (again.logged && same_misfit(j, to, &again, c, h))
            break;   /* the code's misfit: no place is linear */
    }
    po->placements = (unsigned)built;
    po->moved = use > 0;
    if (!po->moved) {
        /* nonlinear wherever it lay: the first placement's value, known no
         * better than the placements agree */
        memcpy(j->rs[0].samples, kept, bytes);
        for (size_t k = 0; k < j->n_ctr; k++)
            to->unc[k] += spread[k];
        misfit_everywhere(j, to, c, h);
    }
    *j->prog[0] = pairs[use][0];
    *j->prog[1] = pairs[use][1];
    free(kept);
    /* the place moved to can be one that slows code compare_wanted too (six
     * ADDs read 1.52-1.53 at the second place in 16 lines of a batch whose
     * first places were not linear, against 1.50): compared, within
     * PLACE_MAX places in all, while the others are still mapped (not at
     * their addresses again); where another is kept, place_compare frees
     * this one */
    if (rc == 0 && po->moved && po->placements < PLACE_MAX && compare_wanted(j, to, c)) {
        place_outcome then = {.placements = 1};
        rc = place_compare(j, to, &then, c, &h, PLACE_MAX - po->placements, err);
        po->placements += then.placements - 1;
        po->compared = then.compared;
        if (then.moved)   /* the first against the place kept now */
            po->off = (1 + po->off) * (1 + then.off) - 1;
    }
    for (size_t b = 0; b < built; b++)
        if (b != use) {
            codegen_free(&pairs[b][0]);
            codegen_free(&pairs[b][1]);
        }
    return rc;
}

/* A loop's first program against the harness alone (place.h): where its
 * copies cost a copy what the difference does not, beyond what the loop's
 * own cost, the start and the runs' noise explain, the code costs what its
 * size makes it cost, and both rates are in the half-width. */
static void loop_onset(const place_job *j, tsc_outcome *to, place_outcome *po, int c)
{
    long loops = j->loops[0];
    if (loops <= 1 || j->loops[1] != loops || j->copies[0] <= 0 || !(to->ratio > 0))
        return;
    probe_time h = {.copies = 0};
    codegen_prog bare;
    nb_error quiet;
    if (build(j, 0, 0, &bare, &quiet))
        return;   /* memory: a check, not part of the measurement */
    h.ticks = tsc_time_program(j->cp, &bare, (size_t)c, HARNESS_RUNS, &h.hw);
    codegen_free(&bare);
    probe_fit f = fit_of(j, to, c, h);
    double misfit = misfit_of(j, to, c, h);
    double own = ((double)loops * PLACE_LOOP_ITER_CYCLES + TSC_LOOP_CONTEXT_CYCLES) * to->ratio;
    double allow = tsc_linear_allow(f.execs, h.hw, to->diff[c], j->goal->execs, to->noise[c],
                                    misfit_floor(j, to, c) + own);
    double rate = to->diff[c] / j->goal->execs;
    if (!(fabs(misfit) > allow) || rate == 0)
        return;
    po->loop_misfit = misfit / (f.execs * rate);
    /* the first program's rate a copy and the difference's: either can be
     * the code's, so the whole distance */
    double share = share_of_diff(j, to, c, f, fabs(misfit));
    for (size_t k = 0; k < j->n_ctr; k++)
        if (j->ctr[k].tsc_cycles)
            to->unc[k] += share * fabs(to->diff[k]);
}

int place_check(const place_job *j, tsc_outcome *to, place_outcome *po, nb_error *err)
{
    int rc = place_find(j, to, po, err);
    int c = clock_counter(j->n_ctr, j->ctr);
    if (rc == 0 && c >= 0 && !j->params.debug && to->logged && !j->goal->big)
        loop_onset(j, to, po, c);
    return rc;
}

void place_data(const place_job *j, tsc_outcome *to, const place_outcome *po)
{
    if (po->data_pages <= PLACE_DATA_PAGES)
        return;
    for (size_t k = 0; k < j->n_ctr; k++) {
        if (j->ctr[k].read != PMU_READ_RDTSC)   /* estimated cycles and the TSC's ticks */
            continue;
        if (to->logged)
            to->unc[k] += PLACE_DATA_SHARE * fabs(to->diff[k]);
        else
            to->fixed[k] += PLACE_DATA_SHARE * fabs(to->diff[k]);
    }
}
