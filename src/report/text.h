/* nb text: nanoBench's text output of a result.
 *
 *   NAME: 1.00            one line per event, in measurement order (fixed
 *                         counters first, then the config's events)
 *   NAME: 1.00 [0.98;1.02]   with -range
 *   NAME: unavailable     the backend cannot count it (never 0)
 *
 * Values are rounded in hundredths as nanoBench rounds them (half-up; no
 * "-0.00"); -no_normalization prints whole numbers.  -remove_empty_events
 * leaves out events whose result prints as zero; -verbose prints, before each
 * group's results, nanoBench's table of the raw readings (Ctr0.. columns,
 * one row per measurement) of both runs. */
#ifndef NB_REPORT_TEXT_H
#define NB_REPORT_TEXT_H

#include <stdio.h>

#include "measure/session.h"
#include "cli/options.h"

void report_text(FILE *f, const nb_options *o, const bench_result *r);

/* A per-copy value in hundredths as nanoBench rounds it, given the divisor
 * it was normalized by (bench_result.normalization; < 1: unknown, ties at
 * 0.5): 2005/1000 -> 201, -0.004 -> 0. */
long long report_hundredths(double value, double divisor);

#endif
