/* nb config: nanoBench's event config syntax, both directions.
 *
 * One parser serves three users: -config / -msr_config files at run time,
 * event names typed with modifiers (via event_apply_modifiers), and the
 * build-time generator gen/gentables.c, which walks the data/ files with
 * config_walk_text so that a data file nb accepts at build time is, by
 * construction, a file nb accepts at run time.
 *
 * A config line is read as nanoBench reads it: the spec is everything up to
 * the first space or tab, the rest of the line (trimmed; spaces allowed) is
 * the name, and a line with no name is named by its spec.  Modifiers nb does
 * not know are ignored with a warning in config files (nanoBench ignores
 * them silently); typed names (-events) stay strict.
 *
 * Numbers: the event select and umask are hex, "0x" optional (nanoBench
 * writes "0E.01", AMD selects above 0xFF as three digits "1C0.01").  CMSK,
 * CTR and MSR_* values are read as C's strtoul with base 0 reads them:
 * 0x-prefixed hex, 0-prefixed octal, else decimal.  In msr
 * configs addresses and values are hex with an optional 0x ("msr_700",
 * "msr_0xE01"), as in nanoBench's own uncore example. */
#include "events/config.h"
#include "sys/error.h"
#include "sys/fileio.h"
#include "sys/status.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void set_error(nb_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_error(nb_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        nb_error_vset(err, NB_EINPUT, fmt, ap);   /* the place stays as set */
        va_end(ap);
    }
}

/* set_error, then NB_EINPUT: `return fail(err, ...)`.  A macro so that the
 * status is visible at every call: clang's static analyzer does not step into
 * variadic functions and followed error returns as if they were 0. */
#define fail(err, ...) (set_error((err), __VA_ARGS__), NB_EINPUT)

/* hex := [0-9A-Fa-f]{1,maxdigits}, the whole of [s, s+n). */
static bool parse_hex_exact(const char *s, size_t n, size_t maxdigits, uint64_t *out)
{
    if (n == 0 || n > maxdigits)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (!isxdigit(c))
            return false;
        v = v * 16 + (uint64_t)(isdigit(c) ? c - '0' : (tolower(c) - 'a' + 10));
    }
    *out = v;
    return true;
}

/* num := '0x' hex{1,16} | '0' oct* | dec, the whole of [s, s+n): C's base-0
 * convention, as nanoBench's strtoul(.., 0) reads modifier values. */
static bool parse_num(const char *s, size_t n, uint64_t *out)
{
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return parse_hex_exact(s + 2, n - 2, 16, out);
    if (n == 0 || n > 22)
        return false;
    unsigned base = s[0] == '0' ? 8 : 10;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)((unsigned char)s[i] - '0');
        if (d >= base)
            return false;
        if (v > (UINT64_MAX - d) / base)
            return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

/* Does token [t, t+n) start with keyword "KEY=" (case-insensitive)?  Then
 * val and vlen get the value part. */
static bool key_value(const char *t, size_t n, const char *key, const char **val, size_t *vlen)
{
    size_t k = strlen(key);
    if (n <= k || strncasecmp(t, key, k) != 0 || t[k] != '=')
        return false;
    *val = t + k + 1;
    *vlen = n - k - 1;
    return true;
}

static bool is_word(const char *t, size_t n, const char *w)
{
    return strlen(w) == n && strncasecmp(t, w, n) == 0;
}

/* modifier := 'CMSK=' num | 'AnyT' | 'EDG' | 'INV' | 'TakenAlone' | 'CTR=' num
 *           | ('MSR_3F6H' | 'MSR_PF' | 'MSR_RSP0' | 'MSR_RSP1') '=' num
 * With warn_at (a config file's "FILE:LINE"), an unknown modifier is ignored
 * with a warning, as nanoBench ignores it; without, it is an error.  A CTR=
 * beyond the CPU's counters is judged where the counters are known
 * (pmu_common_plan). */
static int apply_modifier(const char *t, size_t n, nb_event *ev, nb_error *err,
                          const char *warn_at)
{
    const char *v;
    size_t vn;
    uint64_t x;
    if (key_value(t, n, "CMSK", &v, &vn)) {
        if (!parse_num(v, vn, &x) || x > 0xFF)
            return fail(err, "CMSK wants a number 0..255, got '%.*s'", (int)vn, v);
        ev->cmask = (uint8_t)x;
    } else if (key_value(t, n, "CTR", &v, &vn)) {
        if (!parse_num(v, vn, &x) || x > INT_MAX)
            return fail(err, "CTR wants a counter number, got '%.*s'", (int)vn, v);
        ev->ctr = (int)x;
    } else if (is_word(t, n, "AnyT")) {
        ev->any = true;
    } else if (is_word(t, n, "EDG")) {
        ev->edge = true;
    } else if (is_word(t, n, "INV")) {
        ev->inv = true;
    } else if (is_word(t, n, "TakenAlone")) {
        ev->taken_alone = true;
    } else {
        static const char *const msr_keys[] = {"MSR_3F6H", "MSR_PF", "MSR_RSP0", "MSR_RSP1"};
        bool *has[] = {&ev->has_msr_3f6h, &ev->has_msr_pf, &ev->has_msr_rsp0, &ev->has_msr_rsp1};
        uint64_t *val[] = {&ev->msr_3f6h, &ev->msr_pf, &ev->msr_rsp0, &ev->msr_rsp1};
        for (size_t i = 0; i < 4; i++) {
            if (!key_value(t, n, msr_keys[i], &v, &vn))
                continue;
            if (!parse_num(v, vn, &x))
                return fail(err, "%s wants a number, got '%.*s'", msr_keys[i], (int)vn, v);
            *has[i] = true;
            *val[i] = x;
            return 0;
        }
        if (warn_at) {
            nb_warn("%s: unknown modifier '%.*s' ignored", warn_at, (int)n, t);
            return 0;
        }
        return fail(err, "unknown modifier '%.*s' (expected CMSK=, AnyT, EDG, INV, "
                         "TakenAlone, CTR=, MSR_3F6H=, MSR_PF=, MSR_RSP0=, MSR_RSP1=)",
                    (int)n, t);
    }
    return 0;
}

/* mods := modifier ('.' modifier)*; see apply_modifier for warn_at.  An
 * empty modifier ("0E.01..INV") is an error when strict, ignored with a
 * warning in a config file. */
static int apply_modifiers(const char *mods, nb_event *ev, nb_error *err,
                           const char *warn_at)
{
    const char *p = mods;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        int rc = 0;
        if (n > 0)
            rc = apply_modifier(p, n, ev, err, warn_at);
        else if (warn_at)
            nb_warn("%s: empty modifier in '%s' ignored", warn_at, mods);
        else
            rc = fail(err, "empty modifier in '%s'", mods);
        if (rc || !dot)
            return rc;
        p = dot + 1;
    }
}

int event_apply_modifiers(const char *mods, nb_event *ev, nb_error *err)
{
    return apply_modifiers(mods, ev, err, NULL);
}

static void event_init(nb_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->ctr = -1;
}

static int set_name(char *dst, const char *name, size_t n, nb_error *err)
{
    if (n == 0)
        return fail(err, "missing event name");
    if (n >= NB_EVENT_NAME_MAX)
        return fail(err, "event name longer than %d characters", NB_EVENT_NAME_MAX - 1);
    memcpy(dst, name, n);
    dst[n] = '\0';
    return 0;
}

/* hexnum := ('0x')? hex{1,maxdigits}: nanoBench reads the event select and
 * umask with strtoul(.., 16), which takes the prefix too. */
static bool parse_hex_field(const char *s, size_t n, size_t maxdigits, uint64_t *out)
{
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return parse_hex_exact(s + 2, n - 2, maxdigits, out);
    return parse_hex_exact(s, n, maxdigits, out);
}

/* spec := hexnum '.' hexnum ('.' modifier)*   (the spec token only) */
static int parse_spec_token(const char *s, size_t n, nb_event *ev, nb_error *err,
                            const char *warn_at)
{
    const char *end = s + n;
    const char *d1 = memchr(s, '.', n);
    if (!d1)
        return fail(err, "event '%.*s' wants EvtSel.UMASK (e.g. 0E.01)", (int)n, s);
    const char *d2 = memchr(d1 + 1, '.', (size_t)(end - d1 - 1));
    const char *uend = d2 ? d2 : end;
    uint64_t sel, umask;
    if (!parse_hex_field(s, (size_t)(d1 - s), 3, &sel))
        return fail(err, "bad event select '%.*s' (1 to 3 hex digits)", (int)(d1 - s), s);
    if (!parse_hex_field(d1 + 1, (size_t)(uend - d1 - 1), 2, &umask))
        return fail(err, "bad umask '%.*s' (1 or 2 hex digits)", (int)(uend - d1 - 1), d1 + 1);
    ev->evtsel = (uint16_t)sel;
    ev->umask = (uint8_t)umask;
    if (!d2)
        return 0;
    char mods[256];
    size_t mn = (size_t)(end - d2 - 1);
    if (mn >= sizeof mods)
        return fail(err, "modifiers too long");
    memcpy(mods, d2 + 1, mn);
    mods[mn] = '\0';
    if (mn == 0 && !warn_at)
        return fail(err, "empty modifier after '%.*s'", (int)n, s);
    return apply_modifiers(mods, ev, err, warn_at);
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    return p;
}

static const char *skip_token(const char *p, const char *end)
{
    while (p < end && !isspace((unsigned char)*p))
        p++;
    return p;
}

int event_parse_spec(const char *spec, const char *name, nb_event *ev, nb_error *err)
{
    if (err) {
        err->origin[0] = '\0';
        err->line = 0;
    }
    event_init(ev);
    const char *end = spec + strlen(spec);
    const char *s = skip_ws(spec, end);
    const char *se = skip_token(s, end);
    if (s == se)
        return fail(err, "empty event spec");
    int rc = parse_spec_token(s, (size_t)(se - s), ev, err, NULL);
    if (rc)
        return rc;
    if (name)
        return set_name(ev->name, name, strlen(name), err);
    /* "0E.01 UOPS_ISSUED.ANY": the rest names it, as on a config line */
    const char *r = skip_ws(se, end), *re = end;
    while (re > r && isspace((unsigned char)re[-1]))
        re--;
    if (r < re)
        return set_name(ev->name, r, (size_t)(re - r), err);
    return set_name(ev->name, s, (size_t)(se - s), err);
}

/* Walk text line by line; for each non-blank, non-comment line split off the
 * comment and hand the rest to per_line.  The comment handed on is the
 * line's own trailing one, else the comment line right above it: nanoBench's
 * own config files describe each event on a '#' line before it. */
typedef int (*line_fn)(void *ctx, const char *body, size_t n, int line, const char *comment,
                       nb_error *err);

static int walk_lines(const char *text, const char *file, line_fn per_line, void *ctx,
                      nb_error *err)
{
    if (err) {
        nb_error_clear(err);
        snprintf(err->origin, sizeof err->origin, "%s", file ? file : "<config>");
    }
    int line = 0;
    char above[512] = "";   /* the comment-only line just before, if any */
    const char *p = text;
    while (*p) {
        line++;
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        const char *hash = memchr(p, '#', (size_t)(end - p));
        const char *body_end = hash ? hash : end;
        char comment[512] = "";
        if (hash) {
            const char *c = skip_ws(hash + 1, end), *ce = end;
            while (ce > c && isspace((unsigned char)ce[-1]))
                ce--;
            size_t cn = (size_t)(ce - c) < sizeof comment - 1 ? (size_t)(ce - c) : sizeof comment - 1;
            memcpy(comment, c, cn);
            comment[cn] = '\0';
        }
        const char *b = skip_ws(p, body_end), *be = body_end;
        while (be > b && isspace((unsigned char)be[-1]))
            be--;
        if (b < be) {
            int rc = per_line(ctx, b, (size_t)(be - b), line, comment[0] ? comment : above, err);
            if (rc) {
                if (err && err->line == 0)
                    err->line = line;
                return rc;
            }
            above[0] = '\0';
        } else {
            memcpy(above, comment, sizeof above);   /* "" for a blank line */
        }
        p = eol ? eol + 1 : end;
    }
    return 0;
}

/* line := spec ([ \t]+ Name)?   Name: the rest of the line, spaces allowed;
 * without one the spec names the event (nanoBench's rule).  The body comes
 * trimmed from walk_lines. */
static void split_spec_name(const char *b, size_t n, size_t *sn, const char **name, size_t *nn)
{
    const char *end = b + n;
    const char *se = skip_token(b, end);
    const char *nm = skip_ws(se, end);
    *sn = (size_t)(se - b);
    if (nm == end) {
        *name = b;
        *nn = *sn;
    } else {
        *name = nm;
        *nn = (size_t)(end - nm);
    }
}

typedef struct {
    config_line_fn fn;
    void *ctx;
} walk_ctx;

static int event_line(void *vctx, const char *b, size_t n, int line, const char *comment,
                      nb_error *err)
{
    walk_ctx *w = vctx;
    const char *name = NULL;
    size_t sn = 0, nn = 0;
    split_spec_name(b, n, &sn, &name, &nn);
    char where[300];
    snprintf(where, sizeof where, "%s:%d", err && err->origin[0] ? err->origin : "<config>", line);
    nb_event ev;
    event_init(&ev);
    int rc;
    if ((rc = parse_spec_token(b, sn, &ev, err, where)) || (rc = set_name(ev.name, name, nn, err)))
        return rc;
    rc = w->fn(w->ctx, &ev, line, comment);
    if (rc && err) {
        err->line = line;
        if (!err->message[0])
            set_error(err, "rejected event '%s'", ev.name);
    }
    return rc;
}

int config_walk_text(const char *text, const char *file, config_line_fn fn, void *ctx,
                     nb_error *err)
{
    walk_ctx w = {fn, ctx};
    return walk_lines(text, file, event_line, &w, err);
}

static int push_cb(void *ctx, const nb_event *ev, int line, const char *comment)
{
    (void)line;
    (void)comment;
    return event_list_push(ctx, ev);
}

int config_parse_text(const char *text, const char *file, nb_event_list *list,
                      nb_error *err)
{
    return config_walk_text(text, file, push_cb, list, err);
}

/* The largest config nanoBench ships is ~160 KB; the limit only keeps
 * `-config /dev/zero` or a wrong huge file from eating all memory. */
#define CONFIG_FILE_MAX (16u << 20)

/* Read a whole file; *out is malloc'd and NUL-terminated. */
int config_parse_file(const char *path, nb_event_list *list, nb_error *err)
{
    char *text;
    int rc = file_read_all(path, CONFIG_FILE_MAX, true, &text, NULL, err);
    if (rc)
        return rc;
    rc = config_parse_text(text, path, list, err);
    free(text);
    return rc;
}

/* ---- msr configs ---- */

/* msr_spec := ('msr_' hex '=' hex ('.' 'msr_' hex '=' hex)*)? ws+ 'msr_' hex
 * The writes are optional: read-only MSRs (RAPL energy status) need none. */
static bool parse_msr_addr(const char *t, size_t n, uint32_t *addr)
{
    uint64_t v;
    if (n < 5 || strncasecmp(t, "msr_", 4) != 0)
        return false;
    t += 4;
    n -= 4;
    if (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        t += 2;
        n -= 2;
    }
    if (!parse_hex_exact(t, n, 8, &v))
        return false;
    *addr = (uint32_t)v;
    return true;
}

static int parse_msr_writes(const char *s, size_t n, nb_msr_event *ev, nb_error *err)
{
    const char *end = s + n, *p = s;
    while (p < end) {
        /* A write is msr_ADDR=VAL; the value ends at the next ".msr_". */
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (!eq)
            return fail(err, "msr write '%.*s' wants msr_ADDR=VALUE", (int)(end - p), p);
        const char *ve = eq + 1;
        while (ve < end && !(ve[0] == '.' && end - ve > 4 && strncasecmp(ve + 1, "msr_", 4) == 0))
            ve++;
        uint32_t addr;
        uint64_t val;
        if (!parse_msr_addr(p, (size_t)(eq - p), &addr))
            return fail(err, "bad msr address '%.*s' (expected msr_HEX)", (int)(eq - p), p);
        const char *v = eq + 1;
        size_t vn = (size_t)(ve - v);
        if (vn > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
            v += 2;
            vn -= 2;
        }
        if (!parse_hex_exact(v, vn, 16, &val))
            return fail(err, "bad msr value '%.*s' (expected hex)", (int)(ve - eq - 1), eq + 1);
        if (ev->n_writes == NB_MSR_WRITES_MAX)
            return fail(err, "more than %d msr writes", NB_MSR_WRITES_MAX);
        ev->write_msr[ev->n_writes] = addr;
        ev->write_val[ev->n_writes] = val;
        ev->n_writes++;
        p = ve < end ? ve + 1 : end;
    }
    return 0;
}

int msr_event_parse_spec(const char *spec, nb_msr_event *ev, nb_error *err)
{
    memset(ev, 0, sizeof *ev);
    const char *end = spec + strlen(spec);
    const char *a = skip_ws(spec, end), *ae = skip_token(a, end);
    const char *b = skip_ws(ae, end), *be = skip_token(b, end);
    if (a == ae)
        return fail(err, "empty msr spec");
    if (skip_ws(be, end) != end)
        return fail(err, "unexpected text after the msr to read");
    const char *rd = b < be ? b : a, *rde = b < be ? be : ae;
    if (b < be) {
        int rc = parse_msr_writes(a, (size_t)(ae - a), ev, err);
        if (rc)
            return rc;
    }
    if (!parse_msr_addr(rd, (size_t)(rde - rd), &ev->read_msr))
        return fail(err, "bad msr to read '%.*s' (expected msr_HEX)", (int)(rde - rd), rd);
    return 0;
}

/* line := [writes ws+] 'msr_' hex ws+ Name */
static int msr_line(void *ctx, const char *b, size_t n, int line, const char *comment,
                    nb_error *err)
{
    (void)line;
    (void)comment;
    const char *end = b + n;
    const char *t[4];
    size_t tn[4], k = 0;
    const char *p = b;
    while (p < end) {
        const char *q = skip_token(p, end);
        if (k == 3)
            return fail(err, "unexpected text after the name '%.*s'", (int)tn[k - 1], t[k - 1]);
        t[k] = p;
        tn[k++] = (size_t)(q - p);
        p = skip_ws(q, end);
    }
    if (k < 2)
        return fail(err, "'%.*s' wants [msr_ADDR=VAL(.msr_ADDR=VAL)*] msr_ADDR Name", (int)n, b);
    nb_msr_event ev;
    memset(&ev, 0, sizeof ev);
    if (k == 3) {
        int rc = parse_msr_writes(t[0], tn[0], &ev, err);
        if (rc)
            return rc;
    }
    if (!parse_msr_addr(t[k - 2], tn[k - 2], &ev.read_msr))
        return fail(err, "bad msr to read '%.*s' (expected msr_HEX)", (int)tn[k - 2], t[k - 2]);
    int rc = set_name(ev.name, t[k - 1], tn[k - 1], err);
    return rc ? rc : msr_event_list_push(ctx, &ev);
}

int msr_config_parse_text(const char *text, const char *file, nb_msr_event_list *list,
                          nb_error *err)
{
    return walk_lines(text, file, msr_line, list, err);
}

int msr_config_parse_file(const char *path, nb_msr_event_list *list, nb_error *err)
{
    char *text;
    int rc = file_read_all(path, CONFIG_FILE_MAX, true, &text, NULL, err);
    if (rc)
        return rc;
    rc = msr_config_parse_text(text, path, list, err);
    free(text);
    return rc;
}

/* ---- formatting ---- */

static void appendf(char *buf, size_t buflen, size_t *pos, const char *fmt, ...)
{
    if (*pos >= buflen)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *pos, buflen - *pos, fmt, ap);
    va_end(ap);
    if (n > 0)
        *pos += (size_t)n;
}

void event_format_spec(const nb_event *ev, char *buf, size_t buflen)
{
    size_t pos = 0;
    if (buflen == 0)
        return;
    buf[0] = '\0';
    appendf(buf, buflen, &pos, ev->evtsel > 0xFF ? "%03X.%02X" : "%02X.%02X", ev->evtsel,
            ev->umask);
    if (ev->cmask)
        appendf(buf, buflen, &pos, ".CMSK=%u", ev->cmask);
    if (ev->any)
        appendf(buf, buflen, &pos, ".AnyT");
    if (ev->edge)
        appendf(buf, buflen, &pos, ".EDG");
    if (ev->inv)
        appendf(buf, buflen, &pos, ".INV");
    if (ev->taken_alone)
        appendf(buf, buflen, &pos, ".TakenAlone");
    if (ev->ctr >= 0)
        appendf(buf, buflen, &pos, ".CTR=%d", ev->ctr);
    if (ev->has_msr_3f6h)
        appendf(buf, buflen, &pos, ".MSR_3F6H=0x%llX", (unsigned long long)ev->msr_3f6h);
    if (ev->has_msr_pf)
        appendf(buf, buflen, &pos, ".MSR_PF=0x%llX", (unsigned long long)ev->msr_pf);
    if (ev->has_msr_rsp0)
        appendf(buf, buflen, &pos, ".MSR_RSP0=0x%llX", (unsigned long long)ev->msr_rsp0);
    if (ev->has_msr_rsp1)
        appendf(buf, buflen, &pos, ".MSR_RSP1=0x%llX", (unsigned long long)ev->msr_rsp1);
}

void msr_event_format(const nb_msr_event *ev, char *buf, size_t buflen)
{
    size_t pos = 0;
    if (buflen == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < ev->n_writes; i++)
        appendf(buf, buflen, &pos, "%smsr_0x%X=0x%llX", i ? "." : "", ev->write_msr[i],
                (unsigned long long)ev->write_val[i]);
    appendf(buf, buflen, &pos, "%smsr_0x%X %s", ev->n_writes ? " " : "", ev->read_msr, ev->name);
}

/* ---- lists ---- */

/* Room for one more element in a growable array (both list kinds). */
static int list_reserve(void **v, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *nv = realloc(*v, ncap * elem);
    if (!nv)
        return NB_ENOMEM;
    *v = nv;
    *cap = ncap;
    return 0;
}

int event_list_push(nb_event_list *list, const nb_event *ev)
{
    if (list_reserve((void **)&list->v, list->n, &list->cap, sizeof *list->v))
        return NB_ENOMEM;
    list->v[list->n++] = *ev;
    return 0;
}

void event_list_free(nb_event_list *list)
{
    free(list->v);
    list->v = NULL;
    list->n = list->cap = 0;
}

int msr_event_list_push(nb_msr_event_list *list, const nb_msr_event *ev)
{
    if (list_reserve((void **)&list->v, list->n, &list->cap, sizeof *list->v))
        return NB_ENOMEM;
    list->v[list->n++] = *ev;
    return 0;
}

void msr_event_list_free(nb_msr_event_list *list)
{
    free(list->v);
    list->v = NULL;
    list->n = list->cap = 0;
}

void msr_event_to_event(const nb_msr_event *m, nb_event *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->name, m->name, sizeof out->name);
    out->ctr = -1;
    out->read_msr = m->read_msr;
    out->n_msr_writes = (uint8_t)(m->n_writes < NB_MSR_WRITES_MAX ? m->n_writes : NB_MSR_WRITES_MAX);
    for (size_t i = 0; i < out->n_msr_writes; i++) {
        out->msr_write[i] = m->write_msr[i];
        out->msr_value[i] = m->write_val[i];
    }
}
