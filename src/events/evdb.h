/* Folder events/: what a performance event is and where nb finds one:
 * nanoBench's config syntax and the nb_event type (config.h), and the
 * tables baked at build time from data/, looked up by CPU and by name with
 * the closest names for a typo (this header).  Events here are
 * descriptions; programming them is pmu/'s.
 *
 * nb evdb: the event tables compiled into nb, addressed by CPU and by name.
 *
 * Owns: choosing a table for a cpu_info (vendor, family, model, stepping,
 * hybrid core type), the default (common) and full sets of a table, event
 * lookup by name with nanoBench modifiers and '+' umask combination, the
 * architectural fallback for unknown CPUs, the embedded msr configs (RAPL),
 * and walks over the tables for the listings (cli/info.c prints them).
 *
 * A "uarch" is a table name such as "Skylake", "AlderLakeE" or "Zen5"; the
 * strings evdb returns point into the static tables (never freed).  Lists
 * are appended to; the caller frees them with event_list_free /
 * msr_event_list_free.  Errors come back in an nb_error whose origin names
 * the input ("-events", "-uarch", "-msr_config"; no line). */
#ifndef NB_EVDB_H
#define NB_EVDB_H

#include <stdio.h>

#include "sys/cpu.h"
#include "events/config.h"

typedef enum {
    EVDB_SET_COMMON,   /* the curated set nb measures by default */
    EVDB_SET_ALL,      /* every event (Intel: core and offcore tables) */
} evdb_set;

/* The table for this CPU, or NULL when no table covers it.  On hybrid
 * CPUs the core type in cpu_info (the core nb read CPUID on, i.e. is pinned
 * to) picks the P or E table; an unknown core type of a hybrid model gets
 * the P-core table. */
const char *evdb_uarch_for_cpu(const cpu_info *cpu);

/* Canonical name of a table given in any letter case, or NULL. */
const char *evdb_uarch_find(const char *name);

/* The table nb uses: `override` (-uarch) when not NULL, else the CPU's.
 * *uarch becomes NULL for an unknown CPU (use evdb_arch_events then).
 * NB_EUSAGE for an unknown override name. */
int evdb_select(const cpu_info *cpu, const char *override, const char **uarch,
                nb_error *err);

cpu_vendor evdb_uarch_vendor(const char *uarch);

/* Append the events of a table's set. */
int evdb_events(const char *uarch, evdb_set set, nb_event_list *out);

/* nanoBench's config path (configs/cfg_Skylake_common.txt,
 * cfg_ArrowLakeE_Skymont_all_core.txt, ...) when no such file exists: the
 * embedded table of that name and set, its uarch in *table.  NB_EINPUT if
 * the name is no such table. */
int evdb_config_path_events(const char *path, nb_event_list *out, const char **table);
size_t evdb_count(const char *uarch, evdb_set set);

/* The names a table gives events with ev's codes: event select, umask,
 * counter mask, edge, invert and AnyThread equal, no extra MSR (a counter
 * pin, CTR=, is not compared).  uarch NULL: the vendor's architectural
 * events (evdb_arch_events).  Up to max names into names[] (static
 * strings); returns how many there are in all. */
size_t evdb_names_for_codes(const char *uarch, cpu_vendor vendor, const nb_event *ev,
                            const char **names, size_t max);

/* Architectural events for a CPU no table covers: Intel's CPUID leaf 0xA
 * events, AMD's cycles and retired instructions; none for other vendors. */
int evdb_arch_events(cpu_vendor vendor, nb_event_list *out);

/* The events nb measures when no -config/-events is given: the common set
 * of `uarch`, or for uarch NULL the architectural events, with a note for
 * the user in `note` ("" when there is nothing to say). */
int evdb_default_events(const char *uarch, cpu_vendor vendor, nb_event_list *out,
                        char *note, size_t notelen);

/* One event by name: "UOPS_ISSUED.ANY", with modifiers
 * "UOPS_ISSUED.ANY.CMSK=1.INV", combined "L2_RQSTS.X+L2_RQSTS.Y" (same
 * event select; umasks OR-ed), or a raw spec "0E.01.CMSK=1".  Names match in
 * any letter case.  An unknown name is NB_EINPUT with the closest names in
 * the message.  uarch NULL: only raw specs. */
int evdb_lookup(const char *uarch, const char *spec, nb_event *ev, nb_error *err);

/* -events NAME[,NAME...]: every name through evdb_lookup, appended. */
int evdb_parse_events(const char *uarch, const char *names, nb_event_list *out,
                      nb_error *err);

/* Embedded msr config by name: "RAPL" picks msr_RAPL_Intel or msr_RAPL_AMD
 * by vendor; a full name ("RAPL_AMD") is taken as is.  NB_EINPUT if none. */
int evdb_msr_events(const char *name, cpu_vendor vendor, nb_msr_event_list *out,
                    nb_error *err);

/* Whether `name` is an embedded msr config ("RAPL", "RAPL_Intel", ...);
 * -msr_config takes anything else as a file name. */
bool evdb_msr_known(const char *name);

/* Config syntax of one event as evdb prints it (AMD selects as three hex
 * digits, nanoBench's style for Zen tables). */
void evdb_format_event(const nb_event *ev, cpu_vendor vendor, char *buf, size_t buflen);

/* Every event of a table's set, in table order, with its description
 * ("" if none): the listings of cli/info.c. */
typedef void (*evdb_event_fn)(void *ctx, const nb_event *ev, const char *desc);
void evdb_each_event(const char *uarch, evdb_set set, evdb_event_fn fn, void *ctx);

/* The i-th table name (each once, in table order), NULL past the last. */
const char *evdb_uarch_at(size_t i);

/* The CPUs a table covers: the i-th range of CPUID family/model/stepping
 * (and hybrid core type: 0 any, 0x20 Atom, 0x21 low-power Atom, 0x40 Core)
 * mapped to `uarch`; false past the last. */
typedef struct evdb_cpus {
    unsigned family, model_lo, model_hi, step_lo, step_hi, core_type;
} evdb_cpus;
bool evdb_cpus_at(const char *uarch, size_t i, evdb_cpus *out);

/* The CPU a table describes, for dry runs under -uarch: `host` with the
 * table's vendor, a family/model it covers, and that microarchitecture's
 * counters (programmable counters per logical CPU, fixed counters, topdown
 * slots; AMD: six PerfCtr counters at 0xC0010200, PerfMonV2 from Zen 4), so
 * the dry run shows the encoding that machine gets.  Returns false for an
 * unknown uarch (*out untouched). */
bool evdb_uarch_cpu(const char *uarch, const cpu_info *host, cpu_info *out);

#endif
