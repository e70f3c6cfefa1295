/* nb place: the tsc method's measurement made again with the code at
 * another place in memory, where it did not cost what its copies do.
 *
 * Where the code lies in memory can slow it: 6 independent ADDs x 1,000
 * and x 2,000 copies (12 KB and 24 KB) ran at 0.9 TSC ticks a copy in most
 * mappings, but in about 3 of 100 one of the two programs ran slower (the
 * second at 1.2-1.9 ticks a copy, so the ADDs read 2.2-2.8 cycles; or the
 * first, so they read 0.26-0.44, unflagged), for every measurement in that
 * measuring process, since its mappings come back at the same places.
 * A PMU would count those cycles too, but they are the mapping's, not the
 * code's, and the difference of the two programs turns them into nonsense.
 * The programs give it away: for code whose cost is its copies', the
 * first program's ticks are the harness's alone (timed here with a program
 * of no copies) plus its copies at the difference's rate (tsc_linear).
 * Where they are not, both programs are built again while the earlier
 * ones are still mapped (so at other addresses, on other pages) and
 * measured again, up to 3 placements in all; the first whose programs are
 * linear is kept.  Where none is (code that outgrows a cache between the
 * two programs is nonlinear anywhere: it costs two more measurements), the
 * first stays, its half-widths widened by how far the other placements'
 * differences lay from it, so that a value the placement moves is flagged.
 * With -basic_mode, whose first program is the harness alone, a program
 * of half the second's copies is timed instead and checked against the
 * two; with -loop_count (the loop's own cost is in both programs, not in
 * the harness), one of one and a half times the first's copies in as many
 * iterations (1,000 NOPs x 10 copies x 100 iterations read 263 cycles in
 * every line of one process, about 250 in others).  Not with a loop of one
 * copy, nor -basic_mode with a loop.
 *
 * Code whose copies outgrow the core's L1 instruction cache (PLACE_BIG) is
 * streamed from the L2 and L3, which are indexed by physical address, and
 * costs what its pages make it cost: 1,000 NOPs x 2,000 copies read
 * 252-276 cycles at three placements in one measuring process, each
 * +/- 2-3 and each repeating within that when measured again at its own
 * place; x 30 and x 100 copies 1 % apart.  One placement cannot tell that,
 * so such code is always measured at PLACE_MEAN places (any loop,
 * -basic_mode too), and the value is their middle (the two middle ones'
 * mean of four: one place in four read 15-24 % off the rest on a Zen 5
 * guest, which moved a mean of all 4-6 % from what most places cost), its
 * half-width their statistical ones' and TSC_Z standard deviations of all
 * the places' values.
 * (Two places were too few: where they happened to agree, the half-width
 * was that of one place, and other processes read the code 2-15 % away.)
 *
 * Code the front end bounds moves less, and the linear check cannot see
 * it: 6 independent ADDs x 1,000 and x 2,000 copies read 1.52-1.53 cycles
 * in every line of one batch process in a hundred, against 1.50 in the
 * others (+/- 0.003 between processes), with every place linear within
 * the check's floor of 8 TSC steps (a fifth of the difference there).  So
 * such code is measured at a second place too, and where the two disagree
 * beyond their runs' noise, at a third (place_compare), where PLACE_FE_SHIFT
 * of its value is beyond half its tolerance, or of the two programs'
 * difference beyond the context the value carries.  The second for small
 * values at nanoBench's 1,000 copies: one NOP (a quarter of a cycle, 0.02
 * of tolerance) read 6-16 % and once 38 % apart at two places of one
 * process, and left at one place it read 13-14 % high, unflagged, in about
 * 1 process in 2,000 (1 of 4,000 with -basic_mode; compared, none of 5,500
 * either way); it costs a measurement on 173 of bench/batch's 1,000 lines
 * (26 without), about a tenth more time.  Not for all small values: the
 * sweep's forms of 2-200 copies, whose places disagree beyond their runs'
 * noise by a few cycles, 10,300 of 11,521 flagged against 304 (180 so).
 *
 * A loop (-loop_count above 1) is compared wherever its context lies: its
 * taken branch moves with its place, by more than straight code moves, and
 * a loop the place slows can read too slow to count as front-end-bound
 * (that goes by what was measured).  10 NOPs x 100 iterations read
 * 0.18 +/- 0.017 a NOP in one batch line and 0.21 in another, the others
 * 0.13 (references 0.123-0.132); 6 independent ADDs in the loop 1.307
 * +/- 0.017 once, against 1.287.  A loop line costs one more measurement.
 * And where the first place was not linear, the place moved to is compared
 * in turn (within PLACE_MAX places): in one batch process of six ADDs every
 * line's first place was not linear and its second read 1.52-1.53,
 * unflagged, against 1.50.
 *
 * A loop is also held to the harness alone: its first program's ticks,
 * less the harness's, over its executions of the code, against the
 * difference's rate (loop_onset).  The probe between the two programs
 * cannot see code whose copies cost more the more of them there are
 * beyond the first program's (a cache they outgrow, or share with
 * another thread): halfway, it costs half the extra and lies on the line.
 * 1,000 NOPs x 10 and x 20 copies in a loop of 100 read 259.6 +/- 0.8,
 * unflagged, in 1 of 3,000 single runs beside a busy loop on nb's CPU on
 * a Zen 5 guest, against 250.1 in the median run: the first program's
 * copies cost 250.2 a copy, the second's 254.9, in three places alike.
 * Where the two rates lie apart beyond the loop's own cost
 * (PLACE_LOOP_ITER_CYCLES an iteration and TSC_LOOP_CONTEXT_CYCLES), the
 * start's and the runs' noise, the whole distance joins the half-width. */
#ifndef NB_MEASURE_PLACE_H
#define NB_MEASURE_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/codegen.h"
#include "pmu/tsc_method.h"
#include "sys/error.h"

/* Placements tried at most, the first included. */
#define PLACE_TRIES 3
/* Bytes of copies in the second program from which the code is measured at
 * PLACE_MEAN places and averaged: the L1 instruction cache of current
 * x86-64 cores (32 KB; x 10 copies of 1,000 NOPs, 20 KB, read alike at
 * every placement tried, x 30 did not). */
#define PLACE_BIG 32768
#define PLACE_MEAN 4
/* What one place can move code beyond PLACE_BIG by (a fraction of its
 * value), where it is measured at one place alone (samples too many to
 * log: place_check): one place in four read 15-24 % off the others. */
#define PLACE_ONE_SHARE 0.25
/* How far the place moved code the front end bounds (a fraction of its
 * value): 6 ADDs read 2 % off in the processes where they did.  Added to
 * the half-width of such code measured at one place alone. */
#define PLACE_FE_SHIFT 0.03
/* Core cycles an iteration a loop's own cost (its counter and taken
 * branch) may add to its first program beyond the harness alone and its
 * copies (loop_onset): 0-0.8 cycles in single runs of nine kinds of short
 * code x 10 copies in loops of 100 on a Zen 5 guest, with a busy loop on
 * nb's CPU and without (1,000 NOPs x 10: -7 to +1, within their runs'
 * noise). */
#define PLACE_LOOP_ITER_CYCLES 4.0
/* Whether `copies` copies of p's code reach PLACE_BIG: the measuring process
 * sets tsc_goal.big from it, which place_check goes by. */
bool place_big(const codegen_params *p, long copies);
/* Data on more pages than an L1 data TLB holds (the least of current
 * x86-64 cores': 64 entries for 4 KB pages on Zen 1-3 and Skylake, 72 on
 * Zen 4, 96 on Zen 5 and Golden Cove) costs what the pages it got and the
 * TLBs' state make it cost, which nb neither sets nor samples: a chain of
 * loads 4,160 bytes apart through 101 pages read 11.0 or 12.3 cycles a
 * load at fresh physical pages of one process (16 each, the two
 * alternating at random), nb's lines 8.9-10.8 in single runs and the
 * references around them 9.2-11.2, the two up to 17 % apart with
 * half-widths of 0.2-1.3 (a Zen 5 guest).  So such a value carries
 * PLACE_DATA_SHARE of itself in its half-width (as code beyond PLACE_BIG
 * measured at one place does: PLACE_ONE_SHARE), which flags it.  Counted
 * (place_data) are the pages of the areas R14, RDI, RSI, RBP and RSP point
 * into that are present after the measurement: those the code and its
 * init touched and the ones nb maps up front (three an area). */
#define PLACE_DATA_PAGES 64
#define PLACE_DATA_SHARE 0.25

/* The most places a measurement reports. */
#define PLACE_MAX (PLACE_MEAN > PLACE_TRIES ? PLACE_MEAN : PLACE_TRIES)

/* One measure() call as it was made, and what builds its programs. */
typedef struct place_job {
    codegen_params params;       /* as the programs were built, less copies and loops */
    long copies[2], loops[2];
    codegen_prog *prog[2];       /* rs[r].p: replaced where the other place is kept */
    run_state *rs;               /* [2] */
    long warm, n;
    const cal_progs *cp;
    size_t n_ctr;
    const pmu_counter *ctr;
    bool *ovf;
    const tsc_goal *goal;
    size_t doubles;              /* the results' block from rs[0].samples on */
} place_job;

typedef struct place_outcome {
    unsigned placements;         /* 1, or up to 3 where the code was measured again
                                    (4 where the place moved to was compared) */
    bool moved;                  /* a later placement was kept */
    bool averaged;               /* the value is the places' middle (PLACE_BIG) */
    bool compared;               /* code place.c's compare_wanted, measured at another
                                    place and, where the two disagreed, one more;
                                    moved: a later place was kept */
    /* samples too many to log (one place, not moved): the share of the
     * value its place can move it by, in its half-width; otherwise: */
    double off;                  /* how far the value at the first place lay
                                    from the kept one's, or (not moved) the
                                    furthest of the others from the first's,
                                    or (averaged) the furthest from the first's
                                    (a fraction, signed; 0 with one) */
    double loop_misfit;          /* a loop whose first program's copies cost a copy
                                    what the difference does not (loop_onset): how
                                    far the first's rate lay from the difference's
                                    (a fraction of it, signed); 0 otherwise */
    size_t data_pages;           /* pages of the areas present (place_data) */
} place_outcome;

/* After measure() gave *to for job j: measures again at another place if
 * the programs were not linear, and leaves the kept placement's outcome in
 * *to, its samples in place (samples too many to log: not measured again,
 * what the place can move the value by added to to->fixed instead).  0, or
 * a status with *err set. */
int place_check(const place_job *j, tsc_outcome *to, place_outcome *po, nb_error *err);

/* After place_check: where the data lay on more than PLACE_DATA_PAGES
 * pages (po->data_pages, counted by the measuring process, which owns the
 * areas), PLACE_DATA_SHARE of every value read with rdtsc (the estimated
 * cycles and the TSC's ticks) joins its half-width. */
void place_data(const place_job *j, tsc_outcome *to, const place_outcome *po);

#endif
