/* nb evdb tables: the layout of the event tables gen/gentables bakes from
 * the data/ files into build/gen/evtables.c.  Only evdb.c reads them; everything
 * else goes through evdb.h.
 *
 * Size matters (the whole static nb should stay under 4 MB), so names and
 * descriptions live once in one string pool (deduplicated across tables;
 * most uarchs share most names) and each event is a 16-byte record. */
#ifndef NB_EVDB_TABLES_H
#define NB_EVDB_TABLES_H

#include <stddef.h>
#include <stdint.h>

enum {
    EVDB_F_ANY = 1u << 0,
    EVDB_F_EDGE = 1u << 1,
    EVDB_F_INV = 1u << 2,
    EVDB_F_TAKEN_ALONE = 1u << 3,
    /* Which extra MSR values follow at evdb_msr_values[msrv], in this order. */
    EVDB_F_MSR_3F6H = 1u << 4,
    EVDB_F_MSR_PF = 1u << 5,
    EVDB_F_MSR_RSP0 = 1u << 6,
    EVDB_F_MSR_RSP1 = 1u << 7,
};

typedef struct evdb_ev {
    uint32_t name;   /* offset into evdb_strings */
    uint32_t desc;   /* offset into evdb_strings ("" if none) */
    uint16_t evtsel;
    uint8_t umask, cmask;
    uint8_t flags;   /* EVDB_F_* */
    int8_t ctr;      /* -1: any counter */
    uint16_t msrv;   /* first extra MSR value in evdb_msr_values */
} evdb_ev;

typedef enum { EVDB_VENDOR_INTEL = 1, EVDB_VENDOR_AMD = 2 } evdb_vendor; /* = cpu_vendor */

/* One data/cfg_<uarch>_<set>.txt file. */
typedef struct evdb_table_def {
    const char *uarch;   /* "Skylake", "AlderLakeE", "Zen5" */
    const char *set;     /* "all_core", "all_offcore", "common" or "all" */
    uint8_t vendor;      /* evdb_vendor, from cpumap.txt */
    uint32_t first, count;   /* range of evdb_tab_events */
} evdb_table_def;

/* One line of a data/msr_<name>.txt file. */
typedef struct evdb_msr_def {
    uint32_t name;        /* offset into evdb_strings */
    uint32_t read_msr;
    uint16_t first_write; /* into evdb_msr_writes */
    uint8_t n_writes;
} evdb_msr_def;

typedef struct evdb_msr_write {
    uint32_t msr;
    uint64_t value;
} evdb_msr_write;

typedef struct evdb_msr_table_def {
    const char *name;    /* "RAPL_Intel" */
    uint32_t first, count;   /* range of evdb_msrs */
} evdb_msr_table_def;

/* One line of data/cpumap.txt.  step_lo/hi 0..15 when stepping does not
 * matter; core_type 0 = any, else the CPUID 0x1A core type (0x20 Atom, 0x40
 * Core), 0x21 for Arrow Lake's low-power Atom (selectable only by name). */
typedef struct evdb_cpumap_def {
    uint8_t vendor;
    uint8_t family;
    uint8_t model_lo, model_hi;
    uint8_t step_lo, step_hi;
    uint8_t core_type;
    const char *uarch;
} evdb_cpumap_def;

#define EVDB_CORE_ATOM_LP 0x21

extern const char evdb_strings[];
extern const evdb_ev evdb_tab_events[];
extern const size_t evdb_tab_n_events;
extern const uint64_t evdb_msr_values[];
extern const evdb_table_def evdb_tables[];
extern const size_t evdb_n_tables;
extern const evdb_msr_def evdb_msrs[];
extern const evdb_msr_write evdb_msr_writes[];
extern const evdb_msr_table_def evdb_msr_tables[];
extern const size_t evdb_n_msr_tables;
extern const evdb_cpumap_def evdb_cpumap[];
extern const size_t evdb_n_cpumap;

#endif
