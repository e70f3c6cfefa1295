/* nb evdb: run-time access to the tables gen/gentables generated from data/.
 *
 * The tables are small enough (a few thousand events per uarch) that every
 * lookup is a linear scan; nothing is indexed or allocated at start-up, so
 * nb pays for the database only when it asks for an event. */
#include "events/evdb.h"
#include "events/evdb_tables.h"
#include "sys/error.h"
#include "sys/status.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* NB_EINPUT with the message and `origin` (the option that named the
 * input: "-events", "-uarch", "-msr_config") in *err. */
__attribute__((format(printf, 3, 4)))
static int fail(nb_error *err, const char *origin, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        nb_error_clear(err);
        snprintf(err->origin, sizeof err->origin, "%s", origin);
        va_start(ap, fmt);
        nb_error_vset(err, NB_EINPUT, fmt, ap);
        va_end(ap);
    }
    return NB_EINPUT;
}

/* ---- tables ---- */

static bool set_matches(const evdb_table_def *t, evdb_set set)
{
    if (set == EVDB_SET_COMMON)
        return strcmp(t->set, "common") == 0;
    return strncmp(t->set, "all", 3) == 0;
}

/* nanoBench's names (its configs/cfg_<name>_*.txt) that differ from nb's
 * table names.  nanoBench's Tremont config comes from Intel's Elkhart Lake
 * events, its Westmere config covers models 0x25 and 0x2C (Intel's WSM-EP-SP
 * table covers both), its XeonScalable config is Skylake-SP's.  nanoBench's
 * Core (Core 2) has no table in nb. */
static const struct {
    const char *alias, *uarch;
} uarch_aliases[] = {
    {"Nehalem", "NehalemEP"},
    {"Westmere", "WestmereEPSP"},
    {"Tremont", "ElkhartLake"},
    {"XeonScalable", "SkylakeX"},
    {"Zen", "Zen1"},
    {"MeteorLakeP_RedwoodCove", "MeteorLakeP"},
    {"MeteorLakeE_Crestmont", "MeteorLakeE"},
    {"ArrowLakeP_LionCove", "ArrowLakeP"},
    {"ArrowLakeE_Skymont", "ArrowLakeE"},
};

static const char *uarch_find_table(const char *name)
{
    for (size_t i = 0; i < evdb_n_tables; i++)
        if (strcasecmp(evdb_tables[i].uarch, name) == 0)
            return evdb_tables[i].uarch;
    return NULL;
}

const char *evdb_uarch_find(const char *name)
{
    if (!name)
        return NULL;
    const char *u = uarch_find_table(name);
    for (size_t i = 0; !u && i < sizeof uarch_aliases / sizeof uarch_aliases[0]; i++)
        if (strcasecmp(uarch_aliases[i].alias, name) == 0)
            u = uarch_find_table(uarch_aliases[i].uarch);
    return u;
}

static void suggest_uarch(const char *name, char *buf, size_t buflen);

static cpu_vendor table_vendor(const evdb_table_def *t)
{
    return t->vendor == EVDB_VENDOR_AMD ? CPU_VENDOR_AMD : CPU_VENDOR_INTEL;
}

cpu_vendor evdb_uarch_vendor(const char *uarch)
{
    for (size_t i = 0; uarch && i < evdb_n_tables; i++)
        if (strcmp(evdb_tables[i].uarch, uarch) == 0)
            return table_vendor(&evdb_tables[i]);
    return CPU_VENDOR_UNKNOWN;
}

static bool cpumap_covers(const evdb_cpumap_def *m, const cpu_info *cpu)
{
    return (int)m->vendor == (int)cpu->vendor && m->family == cpu->family &&
           cpu->model >= m->model_lo && cpu->model <= m->model_hi &&
           cpu->stepping >= m->step_lo && cpu->stepping <= m->step_hi;
}

const char *evdb_uarch_for_cpu(const cpu_info *cpu)
{
    const char *p_core = NULL;
    for (size_t i = 0; i < evdb_n_cpumap; i++) {
        const evdb_cpumap_def *m = &evdb_cpumap[i];
        if (!cpumap_covers(m, cpu))
            continue;
        if (m->core_type == 0 || m->core_type == (unsigned)cpu->core_type)
            return m->uarch;
        if (m->core_type == CPU_CORE_CORE)
            p_core = m->uarch;
    }
    /* A hybrid model read on a core whose type CPUID did not report. */
    return cpu->core_type == CPU_CORE_ANY ? p_core : NULL;
}

int evdb_select(const cpu_info *cpu, const char *override, const char **uarch,
                nb_error *err)
{
    if (override) {
        *uarch = evdb_uarch_find(override);
        if (!*uarch) {
            char sug[160];
            suggest_uarch(override, sug, sizeof sug);
            if (sug[0])
                fail(err, "-uarch", "unknown microarchitecture '%s'; closest: %s "
                                    "(nb -list_uarchs lists them)", override, sug);
            else
                fail(err, "-uarch", "unknown microarchitecture '%s' (nb -list_uarchs lists "
                                    "them)", override);
            if (err)
                err->status = NB_EUSAGE;
            return NB_EUSAGE;
        }
        return 0;
    }
    *uarch = evdb_uarch_for_cpu(cpu);
    return 0;
}

static void ev_from_table(const evdb_ev *e, cpu_vendor vendor, nb_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->table_vendor = (uint8_t)vendor;
    snprintf(ev->name, sizeof ev->name, "%s", evdb_strings + e->name);
    ev->evtsel = e->evtsel;
    ev->umask = e->umask;
    ev->cmask = e->cmask;
    ev->any = e->flags & EVDB_F_ANY;
    ev->edge = e->flags & EVDB_F_EDGE;
    ev->inv = e->flags & EVDB_F_INV;
    ev->taken_alone = e->flags & EVDB_F_TAKEN_ALONE;
    ev->ctr = e->ctr;
    size_t v = e->msrv;
    if (e->flags & EVDB_F_MSR_3F6H) {
        ev->has_msr_3f6h = true;
        ev->msr_3f6h = evdb_msr_values[v++];
    }
    if (e->flags & EVDB_F_MSR_PF) {
        ev->has_msr_pf = true;
        ev->msr_pf = evdb_msr_values[v++];
    }
    if (e->flags & EVDB_F_MSR_RSP0) {
        ev->has_msr_rsp0 = true;
        ev->msr_rsp0 = evdb_msr_values[v++];
    }
    if (e->flags & EVDB_F_MSR_RSP1) {
        ev->has_msr_rsp1 = true;
        ev->msr_rsp1 = evdb_msr_values[v++];
    }
}

int evdb_config_path_events(const char *path, nb_event_list *out, const char **table)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (strncmp(base, "cfg_", 4) != 0 || len < 9 || strcmp(base + len - 4, ".txt") != 0)
        return NB_EINPUT;
    /* cfg_<NAME>_<SET>.txt: NAME may hold '_' (ArrowLakeE_Skymont), SET
     * too (all_core): try every split, longest NAME first. */
    char name[128];
    for (size_t cut = len - 4; cut-- > 5;) {
        if (base[cut] != '_' || cut - 4 >= sizeof name)
            continue;
        memcpy(name, base + 4, cut - 4);
        name[cut - 4] = '\0';
        const char *set = base + cut + 1;
        size_t set_len = len - 4 - cut - 1;
        const char *u = uarch_find_table(name);
        for (size_t a = 0; !u && a < sizeof uarch_aliases / sizeof *uarch_aliases; a++)
            if (strcasecmp(uarch_aliases[a].alias, name) == 0)
                u = uarch_aliases[a].uarch;
        for (size_t i = 0; u && i < evdb_n_tables; i++) {
            const evdb_table_def *t = &evdb_tables[i];
            if (strcmp(t->uarch, u) != 0 || strlen(t->set) != set_len ||
                strncmp(t->set, set, set_len) != 0)
                continue;
            for (uint32_t k = 0; k < t->count; k++) {
                nb_event ev;
                ev_from_table(&evdb_tab_events[t->first + k], table_vendor(t), &ev);
                int rc = event_list_push(out, &ev);
                if (rc)
                    return rc;
            }
            *table = t->uarch;
            return 0;
        }
    }
    return NB_EINPUT;
}

int evdb_events(const char *uarch, evdb_set set, nb_event_list *out)
{
    for (size_t i = 0; uarch && i < evdb_n_tables; i++) {
        const evdb_table_def *t = &evdb_tables[i];
        if (strcmp(t->uarch, uarch) != 0 || !set_matches(t, set))
            continue;
        for (uint32_t k = 0; k < t->count; k++) {
            nb_event ev;
            ev_from_table(&evdb_tab_events[t->first + k], table_vendor(t), &ev);
            int rc = event_list_push(out, &ev);
            if (rc)
                return rc;
        }
    }
    return 0;
}

size_t evdb_count(const char *uarch, evdb_set set)
{
    size_t n = 0;
    for (size_t i = 0; uarch && i < evdb_n_tables; i++)
        if (strcmp(evdb_tables[i].uarch, uarch) == 0 && set_matches(&evdb_tables[i], set))
            n += evdb_tables[i].count;
    return n;
}

/* ---- fallback ---- */

typedef struct {
    uint16_t evtsel;
    uint8_t umask;
    const char *name;
} arch_event;

/* Intel SDM, architectural performance events (CPUID leaf 0xA). */
static const arch_event intel_arch[] = {
    {0x3C, 0x00, "CPU_CLK_UNHALTED.THREAD_P"},   {0xC0, 0x00, "INST_RETIRED.ANY_P"},
    {0x3C, 0x01, "CPU_CLK_UNHALTED.REF_XCLK"},   {0x2E, 0x4F, "LONGEST_LAT_CACHE.REFERENCE"},
    {0x2E, 0x41, "LONGEST_LAT_CACHE.MISS"},      {0xC4, 0x00, "BR_INST_RETIRED.ALL_BRANCHES"},
    {0xC5, 0x00, "BR_MISP_RETIRED.ALL_BRANCHES"},
};
/* Every AMD core since K8 counts these two the same way. */
static const arch_event amd_arch[] = {
    {0x076, 0x00, "CPU_CLK_UNHALTED"},
    {0x0C0, 0x00, "RETIRED_INSTRUCTIONS"},
};

int evdb_arch_events(cpu_vendor vendor, nb_event_list *out)
{
    const arch_event *a = vendor == CPU_VENDOR_INTEL ? intel_arch : amd_arch;
    size_t n = vendor == CPU_VENDOR_INTEL ? sizeof intel_arch / sizeof *intel_arch
             : vendor == CPU_VENDOR_AMD   ? sizeof amd_arch / sizeof *amd_arch
                                          : 0;
    for (size_t i = 0; i < n; i++) {
        nb_event ev;
        memset(&ev, 0, sizeof ev);
        ev.ctr = -1;
        ev.evtsel = a[i].evtsel;
        ev.umask = a[i].umask;
        snprintf(ev.name, sizeof ev.name, "%s", a[i].name);
        int rc = event_list_push(out, &ev);
        if (rc)
            return rc;
    }
    return 0;
}

int evdb_default_events(const char *uarch, cpu_vendor vendor, nb_event_list *out, char *note,
                        size_t notelen)
{
    if (notelen)
        note[0] = '\0';
    if (uarch)
        return evdb_events(uarch, EVDB_SET_COMMON, out);
    if (notelen)
        snprintf(note, notelen,
                 vendor == CPU_VENDOR_UNKNOWN
                     ? "note: unknown CPU vendor: no embedded event table; use -config or -uarch"
                     : "note: no embedded event table covers this CPU; measuring the "
                       "architectural events only (use -uarch NAME or -config FILE for more)");
    return evdb_arch_events(vendor, out);
}

static bool codes_match(const nb_event *ev, uint16_t evtsel, uint8_t umask, uint8_t cmask,
                        bool any, bool edge, bool inv)
{
    return ev->evtsel == evtsel && ev->umask == umask && ev->cmask == cmask && ev->any == any &&
           ev->edge == edge && ev->inv == inv;
}

size_t evdb_names_for_codes(const char *uarch, cpu_vendor vendor, const nb_event *ev,
                            const char **names, size_t max)
{
    size_t n = 0;
    if (ev->has_msr_3f6h || ev->has_msr_pf || ev->has_msr_rsp0 || ev->has_msr_rsp1)
        return 0;
    if (!uarch) {
        const arch_event *a = vendor == CPU_VENDOR_INTEL ? intel_arch : amd_arch;
        size_t na = vendor == CPU_VENDOR_INTEL ? sizeof intel_arch / sizeof *intel_arch
                  : vendor == CPU_VENDOR_AMD   ? sizeof amd_arch / sizeof *amd_arch
                                               : 0;
        for (size_t i = 0; i < na; i++)
            if (codes_match(ev, a[i].evtsel, a[i].umask, 0, false, false, false)) {
                if (n < max)
                    names[n] = a[i].name;
                n++;
            }
        return n;
    }
    for (size_t i = 0; i < evdb_n_tables; i++) {
        const evdb_table_def *t = &evdb_tables[i];
        if (strcmp(t->uarch, uarch) != 0)
            continue;
        for (uint32_t k = 0; k < t->count; k++) {
            const evdb_ev *e = &evdb_tab_events[t->first + k];
            if ((e->flags & (EVDB_F_MSR_3F6H | EVDB_F_MSR_PF | EVDB_F_MSR_RSP0 | EVDB_F_MSR_RSP1)) ||
                !codes_match(ev, e->evtsel, e->umask, e->cmask, e->flags & EVDB_F_ANY,
                             e->flags & EVDB_F_EDGE, e->flags & EVDB_F_INV))
                continue;
            const char *name = evdb_strings + e->name;
            bool seen = false;   /* the common set repeats the full set's names */
            for (size_t j = 0; j < n && j < max && !seen; j++)
                seen = strcmp(names[j], name) == 0;
            if (seen)
                continue;
            if (n < max)
                names[n] = name;
            n++;
        }
    }
    return n;
}

/* ---- lookup ---- */

/* The event of the uarch's full set whose name (any letter case) is the
 * longest prefix of `part` ending at its end or at a '.', or NULL; *len gets
 * that name's length.  One pass over the table whatever the number of
 * dots: the length and the character after the prefix rule out nearly
 * every name before a string comparison. */
static const evdb_ev *find_prefix(const char *uarch, const char *part, size_t *len)
{
    size_t n = strlen(part);
    const evdb_ev *found = NULL;
    *len = 0;
    for (size_t i = 0; uarch && i < evdb_n_tables; i++) {
        const evdb_table_def *t = &evdb_tables[i];
        if (strcmp(t->uarch, uarch) != 0 || strcmp(t->set, "common") == 0)
            continue;
        for (uint32_t k = 0; k < t->count; k++) {
            const evdb_ev *e = &evdb_tab_events[t->first + k];
            const char *s = evdb_strings + e->name;
            size_t l = strlen(s);
            /* Longer than the best so far (the first of equals stays). */
            if (l <= *len || l > n || (part[l] != '\0' && part[l] != '.'))
                continue;
            if (strncasecmp(s, part, l) == 0) {
                found = e;
                *len = l;
            }
        }
    }
    return found;
}

/* ---- suggestions ----
 *
 * An unknown name gets the N_SUGGEST table names nearest to it in
 * case-insensitive Levenshtein distance (ties: table order).  The search
 * runs over a whole table for every unknown name, so it computes the
 * distance bit-parallel (G. Myers' 1999 bit-vector algorithm, its block
 * form, started for a whole-string distance rather than a search): the
 * typed name is the pattern, a column of the distance matrix is kept as
 * one or two 64-bit words of +1/-1 differences, and each character of a
 * table name costs a few word operations instead of a row of cells.
 * Names whose length alone puts them out of reach are skipped. */

#define N_SUGGEST 3
/* Longest typed name compared (two 64-bit words); every table name is far
 * shorter, so a longer input is no misspelling of one and gets no list. */
#define SUGGEST_MAX_LEN 127
#define PATTERN_WORDS ((SUGGEST_MAX_LEN + 63) / 64)

typedef struct {
    uint64_t peq[256][PATTERN_WORDS];   /* bit i of peq[c]: name[i] is c (any case) */
    size_t len;
    size_t words;
    unsigned top[PATTERN_WORDS];   /* bit of a block's last row (63 but in the last) */
} pattern;

static void pattern_init(pattern *p, const char *name, size_t len)
{
    memset(p->peq, 0, sizeof p->peq);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        uint64_t bit = (uint64_t)1 << (i % 64);
        p->peq[c][i / 64] |= bit;
        if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')   /* ASCII: the other case too */
            p->peq[c ^ 0x20][i / 64] |= bit;
    }
    p->len = len;
    p->words = (len + 63) / 64;
    for (size_t b = 0; b < PATTERN_WORDS; b++)
        p->top[b] = b + 1 < p->words ? 63 : (unsigned)((len - 1) % 64);
}

/* Levenshtein distance between the pattern (len >= 1) and s[0..n).  Block b
 * holds the vertical differences (+1: bit of pv, -1: bit of mv) of pattern
 * rows 64b+1..64b+64 of the current column; hp/hm is the horizontal
 * difference (+1/-1) one block passes to the next, and row 0 grows by one
 * per column, hence +1 into block 0. */
static unsigned pattern_distance(const pattern *p, const char *s, size_t n)
{
    unsigned score = (unsigned)p->len;   /* D[len][0] */
    if (p->words == 1) {
        /* The usual case: the steps below for one block, in scalars (under
         * the sanitizers and the fuzzer's instrumentation about twice as
         * fast as going through the arrays). */
        uint64_t v_p = ~(uint64_t)0, v_m = 0;
        unsigned top = p->top[0];
        for (size_t j = 0; j < n; j++) {
            uint64_t eq = p->peq[(unsigned char)s[j]][0];
            uint64_t xv = eq | v_m;
            uint64_t xh = (((eq & v_p) + v_p) ^ v_p) | eq;
            uint64_t ph = v_m | ~(xh | v_p);
            uint64_t mh = v_p & xh;
            score = score + (unsigned)((ph >> top) & 1) - (unsigned)((mh >> top) & 1);
            ph = (ph << 1) | 1;
            mh <<= 1;
            v_p = mh | ~(xv | ph);
            v_m = ph & xv;
        }
        return score;
    }
    uint64_t pv[PATTERN_WORDS], mv[PATTERN_WORDS];
    for (size_t b = 0; b < PATTERN_WORDS; b++) {
        pv[b] = ~(uint64_t)0;   /* column 0: D[i][0] = i, all +1 */
        mv[b] = 0;
    }
    for (size_t j = 0; j < n; j++) {
        const uint64_t *peq = p->peq[(unsigned char)s[j]];
        uint64_t hp = 1, hm = 0;
        for (size_t b = 0; b < p->words; b++) {
            uint64_t eq = peq[b];
            uint64_t xv = eq | mv[b];
            eq |= hm;
            uint64_t xh = (((eq & pv[b]) + pv[b]) ^ pv[b]) | eq;
            uint64_t ph = mv[b] | ~(xh | pv[b]);
            uint64_t mh = pv[b] & xh;
            unsigned top = p->top[b];
            uint64_t out_p = (ph >> top) & 1, out_m = (mh >> top) & 1;
            ph = (ph << 1) | hp;
            mh = (mh << 1) | hm;
            pv[b] = mh | ~(xv | ph);
            mv[b] = ph & xv;
            hp = out_p;
            hm = out_m;
        }
        score = score + (unsigned)hp - (unsigned)hm;
    }
    return score;
}

/* The closest names of the uarch's full set to `name`, comma-separated;
 * "" when the name is too long to compare. */
static void suggest(const char *uarch, const char *name, char *buf, size_t buflen)
{
    buf[0] = '\0';
    size_t la = strlen(name);
    if (la == 0 || la > SUGGEST_MAX_LEN)
        return;
    pattern p;   /* 4 KiB */
    pattern_init(&p, name, la);
    const char *best[N_SUGGEST] = {0};
    /* No distance reaches SUGGEST_MAX_LEN + 1 while the list fills. */
    unsigned bestd[N_SUGGEST] = {SUGGEST_MAX_LEN + 1, SUGGEST_MAX_LEN + 1, SUGGEST_MAX_LEN + 1};
    for (size_t i = 0; i < evdb_n_tables; i++) {
        const evdb_table_def *t = &evdb_tables[i];
        if (strcmp(t->uarch, uarch) != 0 || strcmp(t->set, "common") == 0)
            continue;
        for (uint32_t k = 0; k < t->count; k++) {
            const char *s = evdb_strings + evdb_tab_events[t->first + k].name;
            size_t lb = strlen(s);
            /* The distance is at least the difference in length; a name
             * enters the list only by beating the last one's distance. */
            if ((la > lb ? la - lb : lb - la) >= bestd[N_SUGGEST - 1])
                continue;
            unsigned d = pattern_distance(&p, s, lb);
            for (int j = 0; j < N_SUGGEST; j++) {
                if (d < bestd[j]) {
                    for (int m = N_SUGGEST - 1; m > j; m--) {
                        best[m] = best[m - 1];
                        bestd[m] = bestd[m - 1];
                    }
                    best[j] = s;
                    bestd[j] = d;
                    break;
                }
            }
        }
    }
    size_t pos = 0;
    for (int j = 0; j < N_SUGGEST && best[j]; j++) {
        int n = snprintf(buf + pos, buflen - pos, "%s%s", j ? ", " : "", best[j]);
        if (n < 0 || (size_t)n >= buflen - pos)
            break;
        pos += (size_t)n;
    }
}

/* The N_SUGGEST table names and nanoBench aliases nearest to `name`, as
 * suggest() picks event names; "" when the name is too long to compare. */
static void suggest_uarch(const char *name, char *buf, size_t buflen)
{
    buf[0] = '\0';
    size_t la = strlen(name);
    if (la == 0 || la > SUGGEST_MAX_LEN)
        return;
    pattern p;
    pattern_init(&p, name, la);
    const char *best[N_SUGGEST] = {0};
    unsigned bestd[N_SUGGEST] = {SUGGEST_MAX_LEN + 1, SUGGEST_MAX_LEN + 1, SUGGEST_MAX_LEN + 1};
    size_t n_alias = sizeof uarch_aliases / sizeof uarch_aliases[0];
    for (size_t i = 0; i < evdb_n_tables + n_alias; i++) {
        const char *s = i < evdb_n_tables ? evdb_tables[i].uarch
                                          : uarch_aliases[i - evdb_n_tables].alias;
        bool dup = false;   /* a table name appears once per set */
        for (int j = 0; j < N_SUGGEST && best[j] && !dup; j++)
            dup = strcmp(best[j], s) == 0;
        if (dup)
            continue;
        unsigned d = pattern_distance(&p, s, strlen(s));
        for (int j = 0; j < N_SUGGEST; j++) {
            if (d < bestd[j]) {
                for (int m = N_SUGGEST - 1; m > j; m--) {
                    best[m] = best[m - 1];
                    bestd[m] = bestd[m - 1];
                }
                best[j] = s;
                bestd[j] = d;
                break;
            }
        }
    }
    size_t pos = 0;
    for (int j = 0; j < N_SUGGEST && best[j]; j++) {
        int n = snprintf(buf + pos, buflen - pos, "%s%s", j ? ", " : "", best[j]);
        if (n < 0 || (size_t)n >= buflen - pos)
            break;
        pos += (size_t)n;
    }
}

/* part := NAME ('.' modifier)* | raw-spec.  The name is the longest prefix,
 * cut at a '.', that the table knows; the rest are modifiers. */
static int lookup_part(const char *uarch, const char *part, nb_event *ev, nb_error *err)
{
    size_t cut;
    const evdb_ev *e = find_prefix(uarch, part, &cut);
    if (e) {
        ev_from_table(e, evdb_uarch_vendor(uarch), ev);
        if (part[cut] == '\0')
            return 0;
        nb_error merr;
        if (event_apply_modifiers(part + cut + 1, ev, &merr))
            return fail(err, "-events", "%s: %s", part, merr.message);
        return 0;
    }
    nb_error serr;
    if (event_parse_spec(part, NULL, ev, &serr) == 0)
        return 0;   /* a raw EvtSel.UMASK spec */
    if (!uarch)
        return fail(err, "-events", "unknown event '%s' (no event table for this CPU; "
                                    "use EvtSel.UMASK or -uarch)", part);
    if (!err)
        return NB_EINPUT;   /* nobody reads the suggestions */
    char sug[200];
    suggest(uarch, part, sug, sizeof sug);
    if (!sug[0])
        return fail(err, "-events", "unknown event '%s' for %s (nb -uarch %s -list_events "
                                    "lists its events)", part, uarch, uarch);
    return fail(err, "-events", "unknown event '%s' for %s; closest: %s", part, uarch, sug);
}

/* Combine b into a: one event select, umasks OR-ed (nanoBench's '+'). */
static int combine(nb_event *a, const nb_event *b, const char *spec, nb_error *err)
{
    if (a->evtsel != b->evtsel)
        return fail(err, "-events", "'%s': cannot combine event selects %02X and %02X "
                                    "(only umasks of one event select combine)",
                    spec, a->evtsel, b->evtsel);
    if ((a->has_msr_3f6h && b->has_msr_3f6h && a->msr_3f6h != b->msr_3f6h) ||
        (a->has_msr_pf && b->has_msr_pf && a->msr_pf != b->msr_pf))
        return fail(err, "-events", "'%s': the parts need different MSR_3F6H/MSR_PF values",
                    spec);
    a->umask |= b->umask;
    if (b->cmask)
        a->cmask = b->cmask;
    a->any |= b->any;
    a->edge |= b->edge;
    a->inv |= b->inv;
    a->taken_alone |= b->taken_alone;
    if (a->ctr < 0)
        a->ctr = b->ctr;
    /* Offcore response request/response bits add up the same way. */
    a->msr_rsp0 |= b->msr_rsp0;
    a->has_msr_rsp0 |= b->has_msr_rsp0;
    a->msr_rsp1 |= b->msr_rsp1;
    a->has_msr_rsp1 |= b->has_msr_rsp1;
    if (b->has_msr_3f6h) {
        a->has_msr_3f6h = true;
        a->msr_3f6h = b->msr_3f6h;
    }
    if (b->has_msr_pf) {
        a->has_msr_pf = true;
        a->msr_pf = b->msr_pf;
    }
    return 0;
}

int evdb_lookup(const char *uarch, const char *spec, nb_event *ev, nb_error *err)
{
    char buf[512];
    size_t n = strlen(spec);
    if (n == 0 || n >= sizeof buf)
        return fail(err, "-events", n ? "event name too long" : "empty event name");
    memcpy(buf, spec, n + 1);
    char *save = NULL;
    bool first = true;
    for (char *part = strtok_r(buf, "+", &save); part; part = strtok_r(NULL, "+", &save)) {
        nb_event e;
        int rc = lookup_part(uarch, part, first ? ev : &e, err);
        if (rc)
            return rc;
        if (!first && (rc = combine(ev, &e, spec, err)))
            return rc;
        first = false;
    }
    if (first || spec[0] == '+' || spec[n - 1] == '+' || strstr(spec, "++"))
        return fail(err, "-events", "'%s': empty part around '+'", spec);
    /* A plain name keeps the table's spelling; anything with modifiers or
     * '+' is named as typed, so the output says what was measured. */
    if (strcasecmp(ev->name, spec) != 0)
        snprintf(ev->name, sizeof ev->name, "%s", spec);
    return 0;
}

/* The names nb prints for its own clock lines.  CORE_CYCLES is the table's
 * unhalted core cycles event (the tsc backend estimates it); RDTSC is the
 * time-stamp counter, which the fixed-counter group prints (always on the
 * tsc backend; -fixed_counters on the others), so it adds no event. */
static int lookup_clock_name(const char *uarch, const char *name, nb_event *ev, bool *skip)
{
    *skip = false;
    if (strcasecmp(name, "RDTSC") == 0) {
        *skip = true;
        return 0;
    }
    if (strcasecmp(name, "CORE_CYCLES") != 0 || !uarch)
        return 1;
    nb_error e;
    bool amd = evdb_uarch_vendor(uarch) == CPU_VENDOR_AMD;
    if (event_parse_spec(amd ? "076.00" : "3C.00", "CORE_CYCLES", ev, &e))
        return 1;
    return 0;
}

/* names := name (',' name)*, blanks around a name ignored.  Every unknown
 * name is reported (each with its closest names), not just the first. */
int evdb_parse_events(const char *uarch, const char *names, nb_event_list *out,
                      nb_error *err)
{
    const char *p = names;
    int first_rc = 0;
    size_t pos = 0;
    char all[sizeof err->message];
    all[0] = '\0';
    for (;;) {
        const char *c = strchr(p, ',');
        const char *e = c ? c : p + strlen(p);
        while (p < e && isspace((unsigned char)*p))
            p++;
        while (e > p && isspace((unsigned char)e[-1]))
            e--;
        size_t n = (size_t)(e - p);
        char one[512];
        if (n >= sizeof one)
            return fail(err, "-events", "event name too long");
        memcpy(one, p, n);
        one[n] = '\0';
        nb_event ev;
        bool skip = false;
        int rc = lookup_clock_name(uarch, one, &ev, &skip);
        if (rc) {
            nb_error e1;
            rc = evdb_lookup(uarch, one, &ev, &e1);
            if (rc && rc != NB_EINPUT)
                return rc;
            if (rc) {
                if (!first_rc)
                    first_rc = rc;
                int k = snprintf(all + pos, sizeof all - pos, "%s%s", pos ? "; " : "",
                                 e1.message);
                if (k > 0)
                    pos = pos + (size_t)k < sizeof all ? pos + (size_t)k : sizeof all - 1;
            }
        }
        if (!rc && !skip && (rc = event_list_push(out, &ev)))
            return rc;
        if (!c)
            break;
        p = c + 1;
    }
    if (first_rc)
        return fail(err, "-events", "%s", all);
    return 0;
}

/* ---- msr configs ---- */

bool evdb_msr_known(const char *name)
{
    if (strcasecmp(name, "RAPL") == 0)
        return true;
    for (size_t i = 0; i < evdb_n_msr_tables; i++)
        if (strcasecmp(evdb_msr_tables[i].name, name) == 0)
            return true;
    return false;
}

int evdb_msr_events(const char *name, cpu_vendor vendor, nb_msr_event_list *out,
                    nb_error *err)
{
    char full[64];
    snprintf(full, sizeof full, "%s", name);
    if (strcasecmp(name, "RAPL") == 0) {
        if (vendor != CPU_VENDOR_INTEL && vendor != CPU_VENDOR_AMD)
            return fail(err, "-msr_config", "RAPL: unknown CPU vendor");
        snprintf(full, sizeof full, "RAPL_%s", vendor == CPU_VENDOR_INTEL ? "Intel" : "AMD");
    }
    for (size_t i = 0; i < evdb_n_msr_tables; i++) {
        const evdb_msr_table_def *t = &evdb_msr_tables[i];
        if (strcasecmp(t->name, full) != 0)
            continue;
        for (uint32_t k = 0; k < t->count; k++) {
            const evdb_msr_def *m = &evdb_msrs[t->first + k];
            nb_msr_event ev;
            memset(&ev, 0, sizeof ev);
            snprintf(ev.name, sizeof ev.name, "%s", evdb_strings + m->name);
            ev.read_msr = m->read_msr;
            ev.n_writes = m->n_writes;
            for (size_t w = 0; w < m->n_writes; w++) {
                ev.write_msr[w] = evdb_msr_writes[m->first_write + w].msr;
                ev.write_val[w] = evdb_msr_writes[m->first_write + w].value;
            }
            int rc = msr_event_list_push(out, &ev);
            if (rc)
                return rc;
        }
        return 0;
    }
    return fail(err, "-msr_config", "no embedded msr config '%s' (built in: RAPL)", name);
}

/* ---- listings ---- */

void evdb_format_event(const nb_event *ev, cpu_vendor vendor, char *buf, size_t buflen)
{
    if (vendor == CPU_VENDOR_AMD && ev->evtsel <= 0xFF && buflen > 1) {
        buf[0] = '0';
        event_format_spec(ev, buf + 1, buflen - 1);
    } else {
        event_format_spec(ev, buf, buflen);
    }
}

/* ---- walking the tables (the listings of cli/info.c) ---- */

void evdb_each_event(const char *uarch, evdb_set set, evdb_event_fn fn, void *ctx)
{
    for (size_t i = 0; uarch && i < evdb_n_tables; i++) {
        const evdb_table_def *t = &evdb_tables[i];
        if (strcmp(t->uarch, uarch) != 0 || !set_matches(t, set))
            continue;
        for (uint32_t k = 0; k < t->count; k++) {
            const evdb_ev *e = &evdb_tab_events[t->first + k];
            nb_event ev;
            ev_from_table(e, evdb_uarch_vendor(uarch), &ev);
            fn(ctx, &ev, evdb_strings + e->desc);
        }
    }
}

const char *evdb_uarch_at(size_t i)
{
    for (size_t t = 0; t < evdb_n_tables; t++) {
        const char *u = evdb_tables[t].uarch;
        bool seen = false;
        for (size_t j = 0; j < t && !seen; j++)
            seen = strcmp(evdb_tables[j].uarch, u) == 0;
        if (!seen && i-- == 0)
            return u;
    }
    return NULL;
}

bool evdb_cpus_at(const char *uarch, size_t i, evdb_cpus *out)
{
    for (size_t m = 0; m < evdb_n_cpumap; m++) {
        const evdb_cpumap_def *c = &evdb_cpumap[m];
        if (strcmp(c->uarch, uarch) != 0 || i-- != 0)
            continue;
        *out = (evdb_cpus){c->family, c->model_lo, c->model_hi, c->step_lo, c->step_hi,
                           c->core_type};
        return true;
    }
    return false;
}

/* ---- the CPU a table describes ---- */

/* Programmable counters per logical CPU (hyperthreading on) and topdown
 * slots, where they differ from a big Intel core before Ice Lake (4, none). */
static const struct {
    const char *uarch;
    unsigned n_gp;
    bool topdown;
} uarch_counters[] = {
    {"Bonnell", 2, false}, {"Silvermont", 2, false}, {"KnightsLanding", 2, false},
    {"AlderLakeE", 6, false}, {"MeteorLakeE", 8, false}, {"ArrowLakeE", 8, false},
    {"ArrowLakeLPE", 8, false}, {"LunarLakeE", 8, false}, {"PantherLakeE", 8, false},
    {"NovaLakeE", 8, false}, {"SierraForest", 8, false}, {"ClearwaterForest", 8, false},
    {"GrandRidge", 8, false},
    {"IceLake", 8, true}, {"IceLakeX", 8, true}, {"TigerLake", 8, true},
    {"RocketLake", 8, true}, {"AlderLakeP", 8, true}, {"SapphireRapids", 8, true},
    {"EmeraldRapids", 8, true}, {"GraniteRapids", 8, true}, {"MeteorLakeP", 8, true},
    {"ArrowLakeP", 8, true}, {"LunarLakeP", 8, true}, {"PantherLakeP", 8, true},
    {"NovaLakeP", 8, true},
};

bool evdb_uarch_cpu(const char *uarch, const cpu_info *host, cpu_info *out)
{
    const evdb_cpumap_def *m = NULL;
    for (size_t i = 0; uarch && i < evdb_n_cpumap && !m; i++)
        if (strcmp(evdb_cpumap[i].uarch, uarch) == 0)
            m = &evdb_cpumap[i];
    cpu_vendor v = evdb_uarch_vendor(uarch);
    if (v == CPU_VENDOR_UNKNOWN)
        return false;
    *out = *host;
    out->vendor = v;
    snprintf(out->vendor_string, sizeof out->vendor_string, "%s",
             v == CPU_VENDOR_AMD ? "AuthenticAMD" : "GenuineIntel");
    snprintf(out->brand, sizeof out->brand, "(-uarch %s)", uarch);
    if (m) {
        out->family = m->family;
        out->model = m->model_lo;
        out->stepping = m->step_lo;
        out->hybrid = m->core_type != 0;
        out->core_type = (cpu_core_type)m->core_type;
    }
    out->gp_counter_width = 48;
    out->fixed_counter_width = 48;
    if (v == CPU_VENDOR_AMD) {
        out->n_gp_counters = 6;
        out->n_fixed_counters = 0;
        out->has_topdown_slots = false;
        out->pmu_version = out->family >= 0x19 && strcmp(uarch, "Zen3") != 0 ? 2 : 0;
        return true;
    }
    out->n_gp_counters = 4;
    out->n_fixed_counters = 3;
    out->has_topdown_slots = false;
    out->pmu_version = 4;
    for (size_t i = 0; i < sizeof uarch_counters / sizeof uarch_counters[0]; i++) {
        if (strcmp(uarch_counters[i].uarch, uarch) != 0)
            continue;
        out->n_gp_counters = uarch_counters[i].n_gp;
        out->has_topdown_slots = uarch_counters[i].topdown;
        out->n_fixed_counters = uarch_counters[i].topdown ? 4 : 3;
        out->pmu_version = uarch_counters[i].topdown || uarch_counters[i].n_gp >= 6 ? 5 : 3;
    }
    return true;
}
