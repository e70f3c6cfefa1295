/* nb report: nanoBench's text output.
 *
 *   NAME: 1.00            one line per event, in measurement order (fixed
 *                         counters first, then the config's events)
 *   NAME: 1.00 [0.98;1.02]   with -range
 *   NAME: unavailable     the backend cannot count it (never 0)
 *
 * -remove_empty_events leaves out events whose result is 0.00; -verbose
 * first prints every raw reading of both runs. */
#ifndef NB_REPORT_H
#define NB_REPORT_H

#include <stdio.h>

#include "measure/bench.h"
#include "cli/options.h"

void report_text(FILE *f, const nb_options *o, const bench_result *r);

/* The -verbose block alone. */
void report_verbose(FILE *f, const nb_options *o, const bench_result *r);

#endif
