/* nb info: the listings nb prints instead of measuring.
 *
 *   -list_events [SUBSTR]  a table's events in config syntax, "  # what it is"
 *   -list_uarchs           every table, its event counts and the CPUs it covers
 *   -cpu_info              what CPUID says, the table and the backend chosen
 *
 * The facts come from events/evdb.h and sys/cpu.h; this file only words
 * them. */
#ifndef NB_CLI_INFO_H
#define NB_CLI_INFO_H

#include <stdio.h>

#include "sys/cpu.h"

/* Events of `uarch`'s full set whose name contains substr (any case; NULL:
 * all), one per line.  Returns the number printed. */
int info_list_events(FILE *out, const char *uarch, const char *substr);

/* Every table: vendor, event counts, the CPUs that map to it. */
void info_list_uarchs(FILE *out);

/* CPUID's facts, the event table (uarch; NULL: none) and `backend` (a
 * backend's name, or "none"). */
void info_cpu(FILE *out, const cpu_info *cpu, const char *uarch, const char *backend);

#endif
