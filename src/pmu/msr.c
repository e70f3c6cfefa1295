/* nb pmu msr: counters programmed through /dev/cpu/N/msr, read with rdpmc.
 *
 * nanoBench's user-space way, for root: nb itself pread()s and pwrite()s the
 * msr device of the CPU the benchmark is pinned to (no wrmsr processes).
 * Every MSR is read before nb first writes it and written back, in reverse
 * order, when the group is closed, so the kernel's own use of the PMU (the
 * NMI watchdog, perf) resumes as it was.
 *
 * Intel (architectural PMU v2+):
 *   IA32_PERF_GLOBAL_CTRL (0x38F) = 0 while programming, then the used mask;
 *   IA32_PERFEVTSELx (0x186+x) with USR/OS/EN, IA32_PMCx (0xC1+x) = 0;
 *   offcore 0x1A6/0x1A7, load latency 0x3F6, frontend 0x3F7 when asked;
 *   fixed-counter group: IA32_FIXED_CTR_CTRL (0x38D), IA32_FIXED_CTRx
 *   (0x309+x), rdpmc ECX = 1<<30 | x.
 * AMD:
 *   PERF_CTLx/PERF_CTRx at 0xC0010200+2x/0xC0010201+2x with PerfCtrExtCore
 *   (legacy 0xC0010000+x/0xC0010004+x otherwise); PerfMonV2 (Zen 4+) adds
 *   PerfCntrGlobalCtl (0xC0000301), 0 while programming then the used mask,
 *   and PerfCntrGlobalStatusClr (0xC0000302), a write-only command that is not
 *   saved.  APERF/MPERF have no rdpmc index: listed as unavailable.
 * MSR events (-msr_config, one a group): the msr_ADDR=VAL writes, saved and
 *   restored like the others, and the counter MSR read through the msr
 *   device by the measuring process right before and after each run
 *   (read_outside): user-mode code cannot RDMSR, and a pread outside the
 *   code is in both runs alike, so it cancels out of the difference.
 *
 * Paths take cfg->dev_root as a prefix; a regular file there stands in for
 * the device (see msr_offset), which is how the tests check that every
 * programmed MSR is restored.  On such a fake device the groups are
 * stepped (pmu_group.stepped): the emulator (emu.h) reads back the event
 * selects nb wrote and answers the generated code's rdpmc reads with what
 * they select, so the encoding, the counter indexes, the fixed counters and
 * the enable bits are tested by running, on Intel and AMD layouts alike.
 *
 * MSR writes act on the CPU, not on a process: open() and close() may (and
 * should) run in the parent, around the pinned child's run, so that a child
 * killed by a fault cannot leave the PMU programmed.
 *
 * User-space rdpmc needs CR4.PCE, which Linux sets for every task only with
 * rdpmc=2 in sysfs (there is no perf event here to make it per task), so nb
 * sets that for the run as well. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmu/advice.h"
#include "pmu/common.h"
#include "pmu/emu.h"
#include "pmu/pmu.h"
#include "sys/status.h"

#define MSR_MAX_OPS 64
#define MSR_MAX_CTRS (PMU_MAX_GP + 8)


typedef struct msr_op {
    uint32_t msr;
    uint64_t value;
    bool save;            /* false for write-only command registers */
    char what[112];
} msr_op;

typedef struct msr_prog {
    msr_op op[MSR_MAX_OPS];
    size_t n_op;
    pmu_counter ctr[MSR_MAX_CTRS];
    const char *why_none[MSR_MAX_CTRS];
    size_t n_ctr;
} msr_prog;

typedef struct msr_state {
    int fd;
    uint32_t saved_msr[MSR_MAX_OPS];
    uint64_t saved_val[MSR_MAX_OPS];
    size_t n_saved;
    bool rdpmc_changed;
    pmu_config cfg;       /* for messages while restoring */
} msr_state;

static void add_op(msr_prog *p, uint32_t msr, uint64_t value, bool save, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void add_op(msr_prog *p, uint32_t msr, uint64_t value, bool save, const char *fmt, ...)
{
    if (p->n_op >= MSR_MAX_OPS)
        return;   /* cannot happen: at most 16 counters + fixed + 4 extras */
    msr_op *o = &p->op[p->n_op++];
    o->msr = msr;
    o->value = value;
    o->save = save;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->what, sizeof o->what, fmt, ap);
    va_end(ap);
}

static pmu_counter *add_ctr(msr_prog *p, const char *name, pmu_read_kind k, uint32_t ecx,
                            unsigned width, const char *why_none)
{
    pmu_counter *c = &p->ctr[p->n_ctr];
    p->why_none[p->n_ctr++] = why_none;
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%.*s", NB_EVENT_NAME_MAX - 1, name);
    c->read = k;
    c->rdpmc_ecx = ecx;
    c->width = width;
    c->scale = 1.0;
    return c;
}

static bool amd_ext(const cpu_info *ci)
{
    return ci->n_gp_counters > 4 || ci->pmu_version >= 2;
}

/* The fixed-counter group on Intel: RDTSC, then fixed counters 0-2 (and 3,
 * topdown slots) counting USR/OS as asked.  Returns their GLOBAL_CTRL bits. */
static uint64_t intel_fixed(const pmu_config *cfg, msr_prog *p)
{
    static const char *const names[] = {"Instructions retired", "Core cycles",
                                        "Reference cycles", "Topdown slots"};
    const cpu_info *ci = cfg->cpu;
    uint64_t usr = cfg->count_usr, os = cfg->count_os, ctrl = 0, enable = 0;
    unsigned fwidth = ci->fixed_counter_width ? ci->fixed_counter_width : 48;
    /* A CPU may have fewer (PMU v1, some VMs); an all-zero cpu_info (a dry
     * run for a made-up CPU) gets the usual three. */
    unsigned nf = ci->has_topdown_slots ? 4 : 3;
    if (ci->pmu_version != 0 && ci->n_fixed_counters < nf)
        nf = ci->n_fixed_counters;
    add_ctr(p, "RDTSC", PMU_READ_RDTSC, 0, 64, NULL);
    if (nf == 0)
        return 0;
    for (unsigned i = 0; i < nf; i++)
        ctrl |= (os | usr << 1) << (4 * i);   /* per counter: bit0 OS, bit1 USR */
    add_op(p, IA32_FIXED_CTR_CTRL, ctrl, true, "IA32_FIXED_CTR_CTRL: fixed counters 0-%u count%s%s",
           nf - 1, usr ? " USR" : "", os ? " OS" : "");
    for (unsigned i = 0; i < nf; i++) {
        add_op(p, IA32_FIXED_CTR0 + i, 0, true, "IA32_FIXED_CTR%u (%s) = 0", i, names[i]);
        add_ctr(p, names[i], PMU_READ_RDPMC, (1u << 30) | i, fwidth, NULL);
        enable |= UINT64_C(1) << (32 + i);
    }
    return enable;
}

static int build_intel(const pmu_config *cfg, const pmu_group_plan *g, msr_prog *p,
                       nb_error *err)
{
    const cpu_info *ci = cfg->cpu;
    unsigned n_gp = pmu_usable_counters(cfg, false);
    unsigned width = ci->gp_counter_width ? ci->gp_counter_width : 48;
    bool global = ci->pmu_version >= 2 || ci->pmu_version == 0;
    uint64_t usr = cfg->count_usr, os = cfg->count_os;
    int idx[PMU_MAX_GP];
    uint64_t enable = 0;

    if (global)
        add_op(p, IA32_PERF_GLOBAL_CTRL, 0, true,
               "IA32_PERF_GLOBAL_CTRL: stop every counter while programming");
    if (g->n_events == 0 && cfg->fixed_counters)
        enable |= intel_fixed(cfg, p);
    if (g->n_events && pmu_assign_counters(ci->vendor, g->events, g->n_events, n_gp, idx) < 0)
        return nb_error_set(err, NB_EUNSUPPORTED, "group of %zu events does not fit %u counters",
                            g->n_events, n_gp);
    for (size_t i = 0; i < g->n_events; i++) {
        const nb_event *ev = &g->events[i];
        pmu_extra x;
        int rc = pmu_event_extra(ci->vendor, ev, &x, err);
        if (rc < 0)
            return rc;
        if (x.msr) {
            bool dup = false;
            for (size_t k = 0; k < p->n_op; k++)
                dup |= p->op[k].msr == x.msr;
            if (!dup)
                add_op(p, x.msr, x.value, true, "%s for %s", x.what, ev->name);
        }
    }
    for (size_t i = 0; i < g->n_events; i++) {
        const nb_event *ev = &g->events[i];
        unsigned c = (unsigned)idx[i];
        uint64_t sel = pmu_event_config(ci->vendor, ev) | usr << 16 | os << 17 |
                       UINT64_C(1) << 22;
        add_op(p, IA32_PMC0 + c, 0, true, "IA32_PMC%u = 0", c);
        add_op(p, IA32_PERFEVTSEL0 + c, sel, true, "IA32_PERFEVTSEL%u: %s", c, ev->name);
        add_ctr(p, ev->name, PMU_READ_RDPMC, c, width, NULL);
        enable |= UINT64_C(1) << c;
    }
    if (global)
        add_op(p, IA32_PERF_GLOBAL_CTRL, enable, true,
               "IA32_PERF_GLOBAL_CTRL: enable the counters above");
    return 0;
}

static int build_amd(const pmu_config *cfg, const pmu_group_plan *g, msr_prog *p,
                     nb_error *err)
{
    const cpu_info *ci = cfg->cpu;
    unsigned n_gp = pmu_usable_counters(cfg, false);
    bool v2 = ci->pmu_version >= 2, ext = amd_ext(ci);
    uint64_t usr = cfg->count_usr, os = cfg->count_os;
    int idx[PMU_MAX_GP];
    uint64_t mask = 0;

    if (g->n_events == 0 && cfg->fixed_counters) {
        add_ctr(p, "RDTSC", PMU_READ_RDTSC, 0, 64, NULL);
        add_ctr(p, "MPERF", PMU_READ_NONE, 0, 0,
                "AMD has no rdpmc index for MPERF (MSR 0xE7, rdmsr in ring 0 only)");
        add_ctr(p, "APERF", PMU_READ_NONE, 0, 0,
                "AMD has no rdpmc index for APERF (MSR 0xE8, rdmsr in ring 0 only)");
    }
    if (g->n_events == 0)
        return 0;
    if (pmu_assign_counters(ci->vendor, g->events, g->n_events, n_gp, idx) < 0)
        return nb_error_set(err, NB_EUNSUPPORTED, "group of %zu events does not fit %u counters",
                            g->n_events, n_gp);
    if (v2)
        add_op(p, AMD_GLOBAL_CTL, 0, true,
               "PerfCntrGlobalCtl: stop every core counter while programming");
    for (size_t i = 0; i < g->n_events; i++) {
        const nb_event *ev = &g->events[i];
        unsigned c = (unsigned)idx[i];
        int rc;
        pmu_extra x;
        if ((rc = pmu_event_extra(ci->vendor, ev, &x, err)) < 0)
            return rc;
        if (ev->any)
            return nb_error_set(err, NB_EINPUT, "%s: AnyT is an Intel bit; AMD has no equivalent",
                                ev->name);
        uint32_t ctl = ext ? AMD_PERF_CTL_EXT + 2 * c : AMD_PERF_CTL_LEGACY + c;
        uint32_t ctr = ext ? AMD_PERF_CTL_EXT + 2 * c + 1 : AMD_PERF_CTR_LEGACY + c;
        uint64_t sel = pmu_event_config(ci->vendor, ev) | usr << 16 | os << 17 |
                       UINT64_C(1) << 22;
        add_op(p, ctr, 0, true, "PERF_CTR%u = 0", c);
        add_op(p, ctl, sel, true, "PERF_CTL%u: %s", c, ev->name);
        add_ctr(p, ev->name, PMU_READ_RDPMC, c, ci->gp_counter_width ? ci->gp_counter_width : 48,
                NULL);
        mask |= UINT64_C(1) << c;
    }
    if (v2) {
        add_op(p, AMD_GLOBAL_STATUS_CLR, mask, false,
               "PerfCntrGlobalStatusClr: clear overflow bits (write-only, not restored)");
        add_op(p, AMD_GLOBAL_CTL, mask, true, "PerfCntrGlobalCtl: enable the counters above");
    }
    return 0;
}

/* RAPL's energy status MSRs count in their low 32 bits and wrap there. */
static unsigned msr_counter_width(uint32_t msr)
{
    switch (msr) {
    case 0x611: case 0x619: case 0x639: case 0x641: case 0x64D:
    case 0xC001029A: case 0xC001029B:
        return 32;
    default:
        return 64;
    }
}

/* One -msr_config line: its writes, then its counter read outside the code. */
static int build_msr_event(const nb_event *ev, msr_prog *p)
{
    for (size_t i = 0; i < ev->n_msr_writes; i++)
        add_op(p, ev->msr_write[i], ev->msr_value[i], true, "msr_0x%" PRIX32 " for %s",
               ev->msr_write[i], ev->name);
    pmu_counter *c = add_ctr(p, ev->name, PMU_READ_OUTSIDE, 0, msr_counter_width(ev->read_msr),
                             NULL);
    c->msr = ev->read_msr;
    return 0;
}

static int build_prog(const pmu_config *cfg, const pmu_group_plan *g, msr_prog *p,
                      nb_error *err)
{
    memset(p, 0, sizeof *p);
    if (g->n_events == 1 && nb_event_is_msr(&g->events[0]))
        return build_msr_event(&g->events[0], p);
    if (g->n_events > PMU_MAX_GP)
        return nb_error_set(err, NB_EUNSUPPORTED,
                            "a group of %zu events is more than nb can open at once",
                            g->n_events);
    switch (cfg->cpu->vendor) {
    case CPU_VENDOR_INTEL: return build_intel(cfg, g, p, err);
    case CPU_VENDOR_AMD: return build_amd(cfg, g, p, err);
    default:
        return nb_error_set(err, NB_EUNSUPPORTED,
                            "the msr backend knows Intel and AMD PMUs only (vendor '%s')",
                            cfg->cpu->vendor_string);
    }
}

static void msr_dry_run(FILE *f, const pmu_config *cfg, const pmu_plan *plan)
{
    msr_prog p;
    fprintf(f, "# backend msr+rdpmc: %s family 0x%X model 0x%X, %u counters, "
               "%s/dev/cpu/%d/msr\n",
            cpu_vendor_name(cfg->cpu->vendor), cfg->cpu->family, cfg->cpu->model,
            pmu_usable_counters(cfg, false), cfg->dev_root ? cfg->dev_root : "",
            cfg->cpu_index);
    for (size_t gi = 0; gi < plan->n_groups; gi++) {
        nb_error e;
        nb_error_clear(&e);
        fprintf(f, "# group %zu of %zu\n", gi + 1, plan->n_groups);
        if (build_prog(cfg, &plan->groups[gi], &p, &e) < 0) {
            fprintf(f, "error=%s\n\n", e.message);
            continue;
        }
        for (size_t i = 0; i < p.n_op; i++)
            fprintf(f, "write cpu=%d msr=0x%" PRIX32 " value=0x%" PRIX64 " # %s\n",
                    cfg->cpu_index, p.op[i].msr, p.op[i].value, p.op[i].what);
        for (size_t i = 0; i < p.n_ctr; i++) {
            const pmu_counter *c = &p.ctr[i];
            if (c->read == PMU_READ_RDPMC)
                fprintf(f, "read name=%s rdpmc ecx=0x%" PRIX32 " width=%u\n", c->name,
                        c->rdpmc_ecx, c->width);
            else if (c->read == PMU_READ_RDTSC)
                fprintf(f, "read name=%s rdtsc\n", c->name);
            else if (c->read == PMU_READ_OUTSIDE)
                fprintf(f, "read name=%s cpu=%d msr=0x%" PRIX32 " width=%u # before and after "
                           "each run, by the measuring process\n",
                        c->name, cfg->cpu_index, c->msr, c->width);
            else
                fprintf(f, "read name=%s none # %s\n", c->name, p.why_none[i]);
        }
        /* close(): every saved MSR back, last written first. */
        for (size_t i = p.n_op; i-- > 0;) {
            bool first = true;
            for (size_t k = 0; k < i; k++)
                first &= p.op[k].msr != p.op[i].msr;
            if (p.op[i].save && first)
                fprintf(f, "restore cpu=%d msr=0x%" PRIX32 " value=saved\n", cfg->cpu_index,
                        p.op[i].msr);
        }
        fprintf(f, "\n");
    }
}

static int msr_plan(const pmu_config *cfg, const nb_event *ev, size_t n, pmu_plan *out,
                    nb_error *err)
{
    return pmu_common_plan(cfg->cpu->vendor, ev, n, pmu_usable_counters(cfg, false),
                           cfg->fixed_counters, out, err);
}

static void msr_path(const pmu_config *cfg, char *buf, size_t len)
{
    snprintf(buf, len, "%s/dev/cpu/%d/msr", cfg->dev_root ? cfg->dev_root : "",
             cfg->cpu_index);
}

/* The msr device takes the MSR number as the file offset.  A regular file
 * standing in for it (tests, under dev_root) cannot overlap 8-byte values at
 * consecutive offsets, so there MSR m lives at byte 8*m. */
static off_t msr_offset(int fd, uint32_t msr)
{
    struct stat sb;
    return fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? (off_t)msr * 8 : (off_t)msr;
}

static int msr_rw(bool write, int fd, uint32_t msr, uint64_t *val, const pmu_config *cfg,
                  nb_error *err)
{
    off_t off = msr_offset(fd, msr);
    ssize_t r = write ? pwrite(fd, val, 8, off) : pread(fd, val, 8, off);
    if (r == 8)
        return 0;
    int e = r < 0 ? errno : EIO;
    char what[96];
    snprintf(what, sizeof what, "%s MSR 0x%" PRIX32 " on CPU %d", write ? "writing" : "reading",
             msr, cfg->cpu_index);
    return pmu_advice_set(err, NB_ESYSTEM, write ? PMU_OP_MSR_WRITE : PMU_OP_MSR_READ, e, what,
                          cfg->sysfs_root);
}

/* The emulator's reader of what was written (emu_msr_read_fn). */
static bool read_back(void *ctx, uint32_t msr, uint64_t *value)
{
    const msr_state *st = ctx;
    return msr_rw(false, st->fd, msr, value, &st->cfg, NULL) == 0;
}

static bool is_fake_device(int fd)
{
    struct stat sb;
    return fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
}

static void restore_saved(msr_state *st, const pmu_config *cfg)
{
    /* Last saved first: GLOBAL_CTRL, saved first, is restored last, after
     * the selectors it enables. */
    for (size_t i = st->n_saved; i-- > 0;)
        (void)msr_rw(true, st->fd, st->saved_msr[i], &st->saved_val[i], cfg, NULL);
    st->n_saved = 0;
}

static void msr_close(pmu_group *g)
{
    msr_state *st = g->priv;
    if (st) {
        if (st->fd >= 0) {
            restore_saved(st, &st->cfg);
            close(st->fd);
        }
        if (st->rdpmc_changed)
            pmu_rdpmc_restore();
        free(st);
    }
    free(g->ctr);
    g->ctr = NULL;
    g->n_ctr = 0;
    g->priv = NULL;
}

static int msr_open(const pmu_config *cfg, const pmu_group_plan *gp, pmu_group *out,
                    nb_error *err)
{
    msr_prog p;
    char path[512];
    memset(out, 0, sizeof *out);
    int rc = build_prog(cfg, gp, &p, err);
    if (rc < 0)
        return rc;
    msr_state *st = calloc(1, sizeof *st);
    out->ctr = calloc(p.n_ctr ? p.n_ctr : 1, sizeof *out->ctr);
    if (!st || !out->ctr) {
        free(st);
        free(out->ctr);
        out->ctr = NULL;
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    }
    st->fd = -1;
    st->cfg = *cfg;
    out->priv = st;
    memcpy(out->ctr, p.ctr, p.n_ctr * sizeof *out->ctr);
    out->n_ctr = p.n_ctr;

    msr_path(cfg, path, sizeof path);
    st->fd = open(path, O_RDWR | O_CLOEXEC);
    if (st->fd < 0) {
        rc = pmu_advice_set(err, NB_ESYSTEM, PMU_OP_MSR_OPEN, errno, path, cfg->sysfs_root);
        goto fail;
    }
    bool rdpmc = false;   /* an MSR event's group reads no counter with rdpmc */
    for (size_t i = 0; i < p.n_ctr; i++)
        rdpmc |= p.ctr[i].read == PMU_READ_RDPMC;
    rc = rdpmc ? pmu_rdpmc_enable(cfg, true, err) : 0;
    if (rc < 0)
        goto fail;
    st->rdpmc_changed = rc > 0;
    for (size_t i = 0; i < p.n_op; i++) {
        bool seen = false;
        for (size_t k = 0; k < st->n_saved; k++)
            seen |= st->saved_msr[k] == p.op[i].msr;
        if (!p.op[i].save || seen)
            continue;
        uint64_t v;
        if ((rc = msr_rw(false, st->fd, p.op[i].msr, &v, cfg, err)) < 0)
            goto fail;
        st->saved_msr[st->n_saved] = p.op[i].msr;
        st->saved_val[st->n_saved++] = v;
    }
    for (size_t i = 0; i < p.n_op; i++)
        if ((rc = msr_rw(true, st->fd, p.op[i].msr, &p.op[i].value, cfg, err)) < 0)
            goto fail;
    if (is_fake_device(st->fd)) {
        out->stepped = true;
        if (emu_resolve_selects(cfg, out, read_back, st) != 0) {
            rc = nb_error_set(err, NB_ESYSTEM, "the emulator cannot read back the event "
                              "selects from the fake msr device");
            goto fail;
        }
    }
    return 0;
fail:
    msr_close(out);
    return rc;
}

/* The measuring process reads an MSR event's counter through a descriptor
 * of its own (the parent's are not inherited), opened at the first read. */
static int msr_read_outside(const pmu_config *cfg, pmu_group *g, size_t k, uint64_t *value,
                            nb_error *err)
{
    static int fd = -1;
    static char fd_path[512];
    char path[512];
    msr_path(cfg, path, sizeof path);
    if (fd < 0 || strcmp(path, fd_path) != 0) {
        if (fd >= 0)
            close(fd);
        if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
            return nb_error_set(err, NB_ESYSTEM, "cannot open %s for %s: %s", path,
                                g->ctr[k].name, strerror(errno));
        snprintf(fd_path, sizeof fd_path, "%s", path);
    }
    ssize_t r = pread(fd, value, 8, msr_offset(fd, g->ctr[k].msr));
    if (r != 8)
        return nb_error_set(err, NB_ESYSTEM, "reading MSR 0x%" PRIX32 " (%s) on CPU %d: %s",
                            g->ctr[k].msr, g->ctr[k].name, cfg->cpu_index,
                            r < 0 ? strerror(errno) : "short read");
    return 0;
}

static int msr_probe(const pmu_config *cfg, nb_error *err)
{
    char path[512];
    if (cfg->cpu->vendor == CPU_VENDOR_UNKNOWN)
        return nb_error_set(err, NB_EUNSUPPORTED, "the msr backend knows Intel and AMD PMUs only");
    if (cfg->cpu->vendor == CPU_VENDOR_INTEL && cfg->cpu->pmu_version == 0)
        return nb_error_set(err, NB_EUNSUPPORTED, "CPUID leaf 0xA reports no architectural PMU "
                                                  "(a VM without a virtual PMU?)");
    msr_path(cfg, path, sizeof path);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return pmu_advice_set(err, NB_EUNSUPPORTED, PMU_OP_MSR_OPEN, errno, path,
                              cfg->sysfs_root);
    /* A PMU register must read back: a VM without a virtual PMU faults. */
    uint32_t msr = cfg->cpu->vendor == CPU_VENDOR_INTEL ? IA32_PERFEVTSEL0
                   : amd_ext(cfg->cpu)                  ? AMD_PERF_CTL_EXT
                                                        : AMD_PERF_CTL_LEGACY;
    uint64_t v;
    int rc = msr_rw(false, fd, msr, &v, cfg, err);
    close(fd);
    if (rc < 0) {
        if (err)
            err->status = NB_EUNSUPPORTED;
        return NB_EUNSUPPORTED;
    }
    return 0;
}

const pmu_backend pmu_msr_backend = {
    .name = "msr+rdpmc",
    .flags = PMU_BE_RDPMC | PMU_BE_RDPMC_ALWAYS | PMU_BE_OPENS_IN_PARENT,
    .probe = msr_probe,
    .plan = msr_plan,
    .open = msr_open,
    .close = msr_close,
    .dry_run = msr_dry_run,
    .read_outside = msr_read_outside,
};
