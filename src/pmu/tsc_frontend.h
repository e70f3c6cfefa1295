/* nb tsc front-end probe: whether another thread shared the core's front
 * end while the tsc backend measured.
 *
 * The ADD chain beside the clock (tsc_core_shared) sees a neighbour that
 * competes for the ALUs; one that only shares the front end leaves a
 * dependent chain alone, yet halves what throughput-bound code gets: on an
 * Emerald Rapids guest whose sibling thread ran a busy loop, 100 NOPs read
 * 0.40 cycles a NOP against 0.18, a pair of ADDs 2.00 and three independent
 * ADD chains 1.00 both times.  So the measuring process also times a loop of
 * NOPs a few times every pass over the samples (the probe: every NOP one
 * instruction the front end must deliver, nothing to execute) and compares
 * its cycles per NOP with what the core takes when nothing shares it: the
 * fewest this microarchitecture can take (its width, where known), or the
 * fewest this process has seen (its earlier measurements' within their
 * half-widths: tsc_keep_quietest). */
#ifndef NB_PMU_TSC_FRONTEND_H
#define NB_PMU_TSC_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>

/* The probe's instruction: a 4-byte NOP (0F 1F 40 00), as long as the
 * calibration chains' instructions. */
extern const unsigned char tsc_probe_nop[4];

/* The fewest core cycles one NOP of the probe takes on an idle core of
 * `uarch` (an event table's name, from CPUID): one over the NOPs its front
 * end delivers a cycle, where that is known for a core with SMT (4 for
 * Sandy Bridge to Cascade Lake and, as a floor, for every Zen; 5 for Ice
 * Lake to Rocket Lake; 6 for Golden Cove and Redwood Cove cores); 0 where
 * it is not (the probe is then compared with itself only). */
double tsc_frontend_floor(const char *uarch);

/* The probe's cost from n runs of its short (a) and long (b) program,
 * `ops` NOPs apart, at `ratio` TSC ticks per core cycle: cycles per NOP,
 * the mean over the pairs (a pair beyond FE_KEEP times their median left
 * out: an interrupt, or the first run after another process had the CPU,
 * whose code and branches the core then fetches afresh: with a busy loop
 * sharing nb's CPU, 3 of 30 batch lines read 37-57 % slow with the pairs
 * within twice the median kept), and its half-width (TSC_Z standard
 * errors); `best`: the lowest mean of up to FE_CHUNKS stretches of at
 * least FE_CHUNK_RUNS pairs in the order they ran (0 where there are too
 * few), what the core gave when it was quietest, and its half-width.
 * `scratch` holds n doubles. */
#define FE_CHUNKS 8
#define FE_CHUNK_RUNS 3
#define FE_KEEP 1.2
typedef struct fe_fit {
    double cost, hw, best, best_hw;
    /* the most the quiet core can take by the quietest stretch: best and
     * its half-width, a TSC step over the pairs' ops at least (three pairs
     * rounded alike have none; 0: not known; the tsc method sets it, which
     * knows the step) */
    double bound;
} fe_fit;
void tsc_frontend_fit(const double *a, const double *b, size_t n, double ops, double ratio,
                      double *scratch, fe_fit *f);

/* How much slower than `quiet` cycles per NOP the probe ran in its
 * quietest stretch (a fraction), its half-width in *hw; 0 where either is
 * unknown.  The quietest stretch, not the mean: a neighbour on the core
 * slows every stretch, while another process taking turns on nb's CPU
 * leaves the core's front end cold for the runs after its turn only (with
 * a busy loop there, the mean of a burst read 20-40 % slow in about a
 * third of a batch's lines, whose values were right). */
double tsc_frontend_slowdown(const fe_fit *f, double quiet, double *hw);

/* Whether the front end was shared: the probe's quietest stretch ran more
 * than FE_SHARED slower than the quiet core's.  Not also beyond its
 * half-width: the quietest of the stretches can only read low by chance,
 * and a neighbour that comes and goes by the microsecond spreads a
 * stretch's runs so that its half-width reached 0.9-1.0 while it read
 * 42-76 % slow (one NOP then read 0.36-0.38 cycles against 0.17,
 * unflagged).  (The probe's quiet cost lies within 2 % of the width's on
 * the cores above; a loop of NOPs on a shared core read 20-140 % slower.) */
#define FE_SHARED 0.2
bool tsc_frontend_shared(double slowdown);

#endif
