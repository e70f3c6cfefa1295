/* gentables: bake the data/ files into const C tables (build/gen/evtables.c).
 *
 *   gentables -o OUT.c FILE...
 *
 * Files by name: cfg_<Uarch>_<set>.txt (set: all_core, all_offcore, common,
 * all) are event configs, msr_<Name>.txt msr configs, cpumap.txt the CPU map.
 * Event and msr files go through src/events/config.c, the same parser -config uses,
 * so a data file that builds is a file nb accepts at run time; any error
 * stops the build with FILE:LINE: message.  The layout is src/events/evdb_tables.h.
 * The output depends only on the inputs and their order (make sorts them),
 * which the golden test in tests/cli/gen_golden.sh relies on. */
#include "events/config.h"
#include "events/evdb_tables.h"
#include "sys/status.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIE_OOM() die(NULL, 0, "out of memory")

static const char *g_out_path;

static void die(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (file && line)
        fprintf(stderr, "%s:%d: ", file, line);
    else if (file)
        fprintf(stderr, "%s: ", file);
    else
        fprintf(stderr, "gentables: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (g_out_path)
        remove(g_out_path);
    exit(1);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        DIE_OOM();
    return p;
}

#define PUSH(arr, n, cap, val)                                                 \
    do {                                                                       \
        if ((n) == (cap)) {                                                    \
            (cap) = (cap) ? (cap) * 2 : 64;                                    \
            (arr) = xrealloc((arr), (cap) * sizeof *(arr));                    \
        }                                                                      \
        (arr)[(n)++] = (val);                                                  \
    } while (0)

/* ---- string pool with dedup (open addressing over offsets) ---- */
static char *g_pool;
static size_t g_pool_n, g_pool_cap;
static uint32_t *g_hash;   /* offset+1, 0 = empty */
static size_t g_hash_cap, g_hash_used;

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void pool_rehash(void)
{
    size_t cap = g_hash_cap ? g_hash_cap * 2 : 4096;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        DIE_OOM();
    for (size_t i = 0; i < g_hash_cap; i++) {
        if (!g_hash[i])
            continue;
        size_t j = fnv(g_pool + g_hash[i] - 1) & (cap - 1);
        while (h[j])
            j = (j + 1) & (cap - 1);
        h[j] = g_hash[i];
    }
    free(g_hash);
    g_hash = h;
    g_hash_cap = cap;
}

static uint32_t pool_add(const char *s)
{
    if (2 * (g_hash_used + 1) > g_hash_cap)
        pool_rehash();
    size_t j = fnv(s) & (g_hash_cap - 1);
    while (g_hash[j]) {
        if (strcmp(g_pool + g_hash[j] - 1, s) == 0)
            return g_hash[j] - 1;
        j = (j + 1) & (g_hash_cap - 1);
    }
    size_t len = strlen(s) + 1;
    while (g_pool_n + len > g_pool_cap) {
        g_pool_cap = g_pool_cap ? g_pool_cap * 2 : 1 << 16;
        g_pool = xrealloc(g_pool, g_pool_cap);
    }
    if (g_pool_n + len > UINT32_MAX)
        die(NULL, 0, "string pool over 4 GB");
    uint32_t off = (uint32_t)g_pool_n;
    memcpy(g_pool + off, s, len);
    g_pool_n += len;
    g_hash[j] = off + 1;
    g_hash_used++;
    return off;
}

/* ---- collected tables ---- */
typedef struct {
    char uarch[64], set[16];
    uint32_t first, count;
} table;

typedef struct {
    char name[64];
    uint32_t first, count;
} msr_table;

typedef struct {
    int vendor, family, model_lo, model_hi, step_lo, step_hi, core_type;
    char uarch[64];
} cpumap_row;

static evdb_ev *g_ev;
static size_t g_ev_n, g_ev_cap;
static uint64_t *g_mv;
static size_t g_mv_n, g_mv_cap;
static table *g_tab;
static size_t g_tab_n, g_tab_cap;
static evdb_msr_def *g_msr;
static size_t g_msr_n, g_msr_cap;
static evdb_msr_write *g_mw;
static size_t g_mw_n, g_mw_cap;
static msr_table *g_mtab;
static size_t g_mtab_n, g_mtab_cap;
static cpumap_row *g_map;
static size_t g_map_n, g_map_cap;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die(path, 0, "cannot open: %s", strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0)
        die(path, 0, "cannot seek");
    long n = ftell(f);
    rewind(f);
    char *buf = xrealloc(NULL, (size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        die(path, 0, "read error");
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Keep descriptions to one line of at most 120 characters. */
static uint32_t add_desc(const char *comment)
{
    char d[124];
    size_t n = strlen(comment);
    if (n > 120) {
        memcpy(d, comment, 117);
        memcpy(d + 117, "...", 4);
    } else {
        memcpy(d, comment, n + 1);
    }
    return pool_add(d);
}

static int event_cb(void *ctx, const nb_event *ev, int line, const char *comment)
{
    (void)ctx;
    (void)line;
    evdb_ev e = {0};
    e.name = pool_add(ev->name);
    e.desc = add_desc(comment);
    e.evtsel = ev->evtsel;
    e.umask = ev->umask;
    e.cmask = ev->cmask;
    e.ctr = (int8_t)ev->ctr;
    e.flags = (uint8_t)((ev->any ? EVDB_F_ANY : 0) | (ev->edge ? EVDB_F_EDGE : 0) |
                        (ev->inv ? EVDB_F_INV : 0) | (ev->taken_alone ? EVDB_F_TAKEN_ALONE : 0));
    if (g_mv_n > UINT16_MAX - 4)
        die(NULL, 0, "too many extra MSR values for a 16-bit index");
    e.msrv = (uint16_t)g_mv_n;
    if (ev->has_msr_3f6h) {
        e.flags |= EVDB_F_MSR_3F6H;
        PUSH(g_mv, g_mv_n, g_mv_cap, ev->msr_3f6h);
    }
    if (ev->has_msr_pf) {
        e.flags |= EVDB_F_MSR_PF;
        PUSH(g_mv, g_mv_n, g_mv_cap, ev->msr_pf);
    }
    if (ev->has_msr_rsp0) {
        e.flags |= EVDB_F_MSR_RSP0;
        PUSH(g_mv, g_mv_n, g_mv_cap, ev->msr_rsp0);
    }
    if (ev->has_msr_rsp1) {
        e.flags |= EVDB_F_MSR_RSP1;
        PUSH(g_mv, g_mv_n, g_mv_cap, ev->msr_rsp1);
    }
    if (!(e.flags & 0xF0))
        e.msrv = 0;
    PUSH(g_ev, g_ev_n, g_ev_cap, e);
    return 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* cfg_<Uarch>_<set>.txt */
static void load_cfg(const char *path, const char *base)
{
    static const char *const sets[] = {"_all_core.txt", "_all_offcore.txt", "_common.txt",
                                       "_all.txt"};
    table t = {0};
    size_t bl = strlen(base);
    for (size_t i = 0; i < 4 && !t.set[0]; i++) {
        size_t sl = strlen(sets[i]);
        if (bl > 4 + sl && strcmp(base + bl - sl, sets[i]) == 0) {
            size_t ul = bl - 4 - sl;
            if (ul >= sizeof t.uarch)
                die(path, 0, "uarch name too long");
            memcpy(t.uarch, base + 4, ul);
            snprintf(t.set, sizeof t.set, "%.*s", (int)(sl - 5), sets[i] + 1);
        }
    }
    if (!t.set[0])
        die(path, 0, "expected cfg_<Uarch>_{all_core,all_offcore,common,all}.txt");
    for (size_t i = 0; i < g_tab_n; i++)
        if (!strcmp(g_tab[i].uarch, t.uarch) && !strcmp(g_tab[i].set, t.set))
            die(path, 0, "table %s %s given twice", t.uarch, t.set);
    char *text = slurp(path);
    nb_error err;
    t.first = (uint32_t)g_ev_n;
    if (config_walk_text(text, path, event_cb, NULL, &err))
        die(err.origin, err.line, "%s", err.message);
    t.count = (uint32_t)(g_ev_n - t.first);
    free(text);
    PUSH(g_tab, g_tab_n, g_tab_cap, t);
}

static void load_msr(const char *path, const char *base)
{
    msr_table t = {0};
    size_t bl = strlen(base);
    if (bl <= 8 || bl - 8 >= sizeof t.name)
        die(path, 0, "expected msr_<Name>.txt");
    memcpy(t.name, base + 4, bl - 8);
    char *text = slurp(path);
    nb_msr_event_list l = {0};
    nb_error err;
    if (msr_config_parse_text(text, path, &l, &err))
        die(err.origin, err.line, "%s", err.message);
    t.first = (uint32_t)g_msr_n;
    for (size_t i = 0; i < l.n; i++) {
        evdb_msr_def m = {pool_add(l.v[i].name), l.v[i].read_msr, (uint16_t)g_mw_n,
                          (uint8_t)l.v[i].n_writes};
        for (size_t w = 0; w < l.v[i].n_writes; w++) {
            evdb_msr_write mw = {l.v[i].write_msr[w], l.v[i].write_val[w]};
            PUSH(g_mw, g_mw_n, g_mw_cap, mw);
        }
        PUSH(g_msr, g_msr_n, g_msr_cap, m);
    }
    t.count = (uint32_t)l.n;
    msr_event_list_free(&l);
    free(text);
    PUSH(g_mtab, g_mtab_n, g_mtab_cap, t);
}

/* N or N-M, numbers in C syntax (0x.. or decimal); "-" alone = lo..hi. */
static bool parse_range(const char *s, int lo, int hi, int *a, int *b)
{
    if (!strcmp(s, "-")) {
        *a = lo;
        *b = hi;
        return true;
    }
    char *end;
    errno = 0;
    long x = strtol(s, &end, 0), y = x;
    if (end == s || errno)
        return false;
    if (*end == '-') {
        const char *t = end + 1;
        y = strtol(t, &end, 0);
        if (end == t)
            return false;
    }
    if (*end || x < lo || y > hi || x > y)
        return false;
    *a = (int)x;
    *b = (int)y;
    return true;
}

/* line := vendor family models steppings coretype uarch
 *   vendor: intel | amd; coretype: - | atom | core | atom-lp */
static void load_cpumap(const char *path)
{
    char *text = slurp(path);
    int line = 0;
    for (char *p = text, *eol; *p; p = eol ? eol + 1 : p + strlen(p)) {
        line++;
        eol = strchr(p, '\n');
        if (eol)
            *eol = '\0';
        char *hash = strchr(p, '#');
        if (hash)
            *hash = '\0';
        char *f[7];
        int n = 0;
        for (char *tok = strtok(p, " \t\r"); tok; tok = strtok(NULL, " \t\r"))
            if (n < 7)
                f[n++] = tok;
            else
                die(path, line, "too many fields (want: vendor family models steppings "
                                "coretype uarch)");
        if (n == 0)
            continue;
        if (n != 6)
            die(path, line, "want 6 fields: vendor family models steppings coretype uarch");
        cpumap_row r = {0};
        if (!strcmp(f[0], "intel"))
            r.vendor = EVDB_VENDOR_INTEL;
        else if (!strcmp(f[0], "amd"))
            r.vendor = EVDB_VENDOR_AMD;
        else
            die(path, line, "unknown vendor '%s' (intel or amd)", f[0]);
        int fam_hi;
        if (!parse_range(f[1], 0, 255, &r.family, &fam_hi) || fam_hi != r.family)
            die(path, line, "bad family '%s'", f[1]);
        if (!parse_range(f[2], 0, 255, &r.model_lo, &r.model_hi))
            die(path, line, "bad model range '%s'", f[2]);
        if (!parse_range(f[3], 0, 15, &r.step_lo, &r.step_hi))
            die(path, line, "bad stepping range '%s'", f[3]);
        if (!strcmp(f[4], "-"))
            r.core_type = 0;
        else if (!strcmp(f[4], "atom"))
            r.core_type = 0x20;
        else if (!strcmp(f[4], "core"))
            r.core_type = 0x40;
        else if (!strcmp(f[4], "atom-lp"))
            r.core_type = EVDB_CORE_ATOM_LP;
        else
            die(path, line, "unknown core type '%s' (-, atom, core, atom-lp)", f[4]);
        if (strlen(f[5]) >= sizeof r.uarch)
            die(path, line, "uarch name too long");
        strcpy(r.uarch, f[5]);
        PUSH(g_map, g_map_n, g_map_cap, r);
    }
    free(text);
}

/* ---- output ---- */
static void emit_cstring(FILE *o, const char *s, size_t n)
{
    fputc('"', o);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(o, "\\%c", c);
        else if (c < 0x20 || c >= 0x7F)
            fprintf(o, "\\%03o", c);
        else
            fputc(c, o);
    }
    fputc('"', o);
}

static int uarch_vendor(const char *uarch)
{
    for (size_t i = 0; i < g_map_n; i++)
        if (!strcmp(g_map[i].uarch, uarch))
            return g_map[i].vendor;
    return EVDB_VENDOR_INTEL;   /* tables the map does not name: Intel syntax */
}

static void emit(FILE *o, int argc, char **argv, int first_input)
{
    fprintf(o, "/* Generated by gen/gentables from %d data files; do not edit. */\n",
            argc - first_input);
    fprintf(o, "#include \"events/evdb_tables.h\"\n\n");
    /* The pool as one array of string pieces split at each NUL, so offsets
     * stay plain byte offsets. */
    fprintf(o, "const char evdb_strings[] =\n");
    if (g_pool_n == 0)
        fprintf(o, "    \"\"");
    for (size_t off = 0; off < g_pool_n;) {
        size_t len = strlen(g_pool + off);
        fprintf(o, "    ");
        emit_cstring(o, g_pool + off, len);
        fprintf(o, " \"\\0\"%s", off + len + 1 < g_pool_n ? "\n" : "");
        off += len + 1;
    }
    fprintf(o, ";\n\n");
    fprintf(o, "const evdb_ev evdb_tab_events[] = {\n");
    for (size_t i = 0; i < g_ev_n; i++) {
        const evdb_ev *e = &g_ev[i];
        fprintf(o, "    {%u, %u, 0x%X, 0x%02X, %u, 0x%02X, %d, %u},\n", e->name, e->desc,
                e->evtsel, e->umask, e->cmask, e->flags, e->ctr, e->msrv);
    }
    if (g_ev_n == 0)
        fprintf(o, "    {0, 0, 0, 0, 0, 0, -1, 0},\n");
    fprintf(o, "};\nconst size_t evdb_tab_n_events = %zu;\n\n", g_ev_n);
    fprintf(o, "const uint64_t evdb_msr_values[] = {");
    for (size_t i = 0; i < g_mv_n; i++)
        fprintf(o, "%s0x%llXull,", i % 6 ? " " : "\n    ", (unsigned long long)g_mv[i]);
    fprintf(o, "%s};\n\n", g_mv_n ? "\n" : "0");
    fprintf(o, "const evdb_table_def evdb_tables[] = {\n");
    for (size_t i = 0; i < g_tab_n; i++)
        fprintf(o, "    {\"%s\", \"%s\", %d, %u, %u},\n", g_tab[i].uarch, g_tab[i].set,
                uarch_vendor(g_tab[i].uarch), g_tab[i].first, g_tab[i].count);
    if (g_tab_n == 0)
        fprintf(o, "    {\"\", \"\", 0, 0, 0},\n");
    fprintf(o, "};\nconst size_t evdb_n_tables = %zu;\n\n", g_tab_n);
    fprintf(o, "const evdb_msr_def evdb_msrs[] = {\n");
    for (size_t i = 0; i < g_msr_n; i++)
        fprintf(o, "    {%u, 0x%X, %u, %u},\n", g_msr[i].name, g_msr[i].read_msr,
                g_msr[i].first_write, g_msr[i].n_writes);
    if (g_msr_n == 0)
        fprintf(o, "    {0, 0, 0, 0},\n");
    fprintf(o, "};\n\nconst evdb_msr_write evdb_msr_writes[] = {\n");
    for (size_t i = 0; i < g_mw_n; i++)
        fprintf(o, "    {0x%X, 0x%llXull},\n", g_mw[i].msr, (unsigned long long)g_mw[i].value);
    if (g_mw_n == 0)
        fprintf(o, "    {0, 0},\n");
    fprintf(o, "};\n\nconst evdb_msr_table_def evdb_msr_tables[] = {\n");
    for (size_t i = 0; i < g_mtab_n; i++)
        fprintf(o, "    {\"%s\", %u, %u},\n", g_mtab[i].name, g_mtab[i].first, g_mtab[i].count);
    if (g_mtab_n == 0)
        fprintf(o, "    {\"\", 0, 0},\n");
    fprintf(o, "};\nconst size_t evdb_n_msr_tables = %zu;\n\n", g_mtab_n);
    fprintf(o, "const evdb_cpumap_def evdb_cpumap[] = {\n");
    for (size_t i = 0; i < g_map_n; i++) {
        const cpumap_row *r = &g_map[i];
        fprintf(o, "    {%d, 0x%02X, 0x%02X, 0x%02X, %d, %d, 0x%02X, \"%s\"},\n", r->vendor,
                r->family, r->model_lo, r->model_hi, r->step_lo, r->step_hi, r->core_type,
                r->uarch);
    }
    if (g_map_n == 0)
        fprintf(o, "    {0, 0, 0, 0, 0, 0, 0, \"\"},\n");
    fprintf(o, "};\nconst size_t evdb_n_cpumap = %zu;\n", g_map_n);
    (void)argv;
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    int i = 1;
    if (argc > 2 && !strcmp(argv[1], "-o")) {
        out = argv[2];
        i = 3;
    }
    /* No FILE at all is allowed: empty tables, which bench/size links to
     * measure what the tables cost. */
    if (!out) {
        fprintf(stderr, "usage: gentables -o OUT.c [FILE...]\n");
        return 2;
    }
    pool_add("");   /* offset 0 = the empty string */
    for (int k = i; k < argc; k++) {
        const char *base = base_name(argv[k]);
        if (!strcmp(base, "cpumap.txt"))
            load_cpumap(argv[k]);
        else if (!strncmp(base, "cfg_", 4))
            load_cfg(argv[k], base);
        else if (!strncmp(base, "msr_", 4))
            load_msr(argv[k], base);
        else
            die(argv[k], 0, "unknown data file (want cfg_*.txt, msr_*.txt or cpumap.txt)");
    }
    for (size_t m = 0; m < g_map_n; m++) {
        bool found = false;
        for (size_t t = 0; t < g_tab_n && !found; t++)
            found = !strcmp(g_tab[t].uarch, g_map[m].uarch);
        if (!found)
            die("cpumap.txt", 0, "maps CPUs to '%s', but no cfg_%s_*.txt was given",
                g_map[m].uarch, g_map[m].uarch);
    }
    g_out_path = out;
    FILE *o = fopen(out, "w");
    if (!o)
        die(out, 0, "cannot create: %s", strerror(errno));
    emit(o, argc, argv, i);
    if (fclose(o) != 0)
        die(out, 0, "write error");
    return 0;
}
