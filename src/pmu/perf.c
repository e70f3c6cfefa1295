/* nb pmu perf: counters through perf_event_open, read with rdpmc.
 *
 * One perf event per nb event, opened as one group per planned group: the
 * leader pinned (so the whole group sits on hardware counters whenever the
 * task runs, or goes into error state instead of being multiplexed), the
 * members following it.  Each event's first page is mmap'ed; its `index`
 * field minus one is the ECX value for rdpmc, `pmc_width` its width.
 *
 * pid = 0, cpu = cfg->cpu_index: open() must be called by the process that
 * runs the benchmark (the pinned child), after pinning.  The events count
 * that task only, and only on that CPU, so a migrated run cannot silently
 * read another CPU's counters.  This needs perf_event_paranoid <= 2 only,
 * and the fds die with the child, so a crashing benchmark leaks nothing.
 * The one system setting this backend may change, sysfs rdpmc 0 -> 2 (root
 * only), would be lost if the child died before close(): the session should
 * call pmu_rdpmc_enable() (common.h) in the parent before forking and undo
 * it with pmu_rdpmc_restore() from its restore registry; open() in the child
 * then finds rdpmc on and changes nothing.
 *
 * Raw encodings (PERF_TYPE_RAW, or the core PMU's dynamic type on hybrid
 * parts) carry event select, umask, edge, any, inv and cmask; USR/OS come
 * from exclude_user/exclude_kernel.  The extra MSR an Intel event needs goes
 * in config1: offcore response (0x1A6/0x1A7) for events 0xB7/0xBB, frontend
 * (0x3F7, MSR_PEBS_FRONTEND) for FRONTEND_RETIRED (0xC6), load latency
 * (0x3F6): the kernel programs 0x3F6 only for PEBS events, and PEBS only for
 * sampling events, so a load-latency event is opened as a precise sampling
 * event with a period so large that it never samples; rdpmc differences are
 * unaffected by the period's start value.
 *
 * The fixed-counter group (plan group with no events, first when
 * cfg->fixed_counters) holds RDTSC and, on Intel, instructions, core cycles,
 * reference cycles (PERF_TYPE_HARDWARE, which the kernel puts on fixed
 * counters 0-2) and topdown slots (raw 0x0400, fixed counter 3) where CPUID
 * reports them; on AMD, APERF and MPERF, which rdpmc cannot read, so they are
 * listed as unavailable.
 *
 * MSR events (-msr_config): perf cannot read an arbitrary MSR, but the
 * kernel's power PMU counts the RAPL energy MSRs.  Those open on it
 * (system-wide on the CPU, as that PMU requires: pid -1), are read with
 * read(2) right before and after each run, and are reported in microjoules
 * (the count times the PMU's sysfs scale), not in the MSR's own energy units;
 * any other MSR event prints unavailable with the reason. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmu/advice.h"
#include "pmu/common.h"
#include "pmu/pmu.h"
#include "sys/status.h"

#define PERF_MAX_SLOTS (PMU_MAX_GP + 8)
/* Never reached by one benchmark run: the load-latency event must sample
 * (see the top), but must not actually take samples. */
#define PERF_HUGE_PERIOD (UINT64_C(1) << 46)

typedef enum { SLOT_PERF, SLOT_RDTSC, SLOT_NONE, SLOT_POWER } slot_kind;

typedef struct perf_slot {
    char name[NB_EVENT_NAME_MAX];
    slot_kind kind;
    struct perf_event_attr attr;
    const char *note;        /* what it is / why unavailable */
    int ctr;                 /* CTR= from the config, -1 if none */
    uint32_t msr;            /* SLOT_POWER: the RAPL MSR it stands for */
    double scale;            /* SLOT_POWER: microjoules per count */
} perf_slot;

typedef struct perf_state {
    int fd[PERF_MAX_SLOTS];
    void *page[PERF_MAX_SLOTS];
    /* time_enabled / time_running at the previous verify (or open) */
    uint64_t enabled[PERF_MAX_SLOTS], running[PERF_MAX_SLOTS];
    size_t n;
    bool rdpmc_changed;
} perf_state;

static int perf_pmu_type(const pmu_config *cfg)
{
    if (!cfg->cpu->hybrid)
        return PERF_TYPE_RAW;
    char path[512], buf[32] = "";
    snprintf(path, sizeof path, "%s/sys/bus/event_source/devices/%s/type",
             cfg->sysfs_root ? cfg->sysfs_root : "", pmu_core_pmu_name(cfg));
    FILE *f = fopen(path, "r");
    if (!f)
        return PERF_TYPE_RAW;
    int t = fgets(buf, sizeof buf, f) ? atoi(buf) : 0;
    fclose(f);
    return t > 0 ? t : PERF_TYPE_RAW;
}

static void slot_common(const pmu_config *cfg, perf_slot *s)
{
    memset(&s->attr, 0, sizeof s->attr);
    s->attr.size = PERF_ATTR_SIZE_VER1;
    s->attr.exclude_user = !cfg->count_usr;
    s->attr.exclude_kernel = !cfg->count_os;
    s->attr.exclude_hv = 1;
    s->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    s->kind = SLOT_PERF;
    s->ctr = -1;
}

static void slot_hw(const pmu_config *cfg, perf_slot *s, const char *name, uint64_t hw,
                    const char *note)
{
    slot_common(cfg, s);
    snprintf(s->name, sizeof s->name, "%s", name);
    int t = perf_pmu_type(cfg);
    s->attr.type = PERF_TYPE_HARDWARE;
    /* On hybrid parts a generic event names its PMU in config's high half. */
    s->attr.config = hw | (t != PERF_TYPE_RAW ? (uint64_t)t << PERF_PMU_TYPE_SHIFT : 0);
    s->note = note;
}

static size_t fixed_slots(const pmu_config *cfg, perf_slot *s)
{
    size_t n = 0;
    memset(&s[n], 0, sizeof s[n]);
    snprintf(s[n].name, sizeof s[n].name, "RDTSC");
    s[n].kind = SLOT_RDTSC;
    s[n].note = "rdtsc in the generated code";
    s[n].ctr = -1;
    n++;
    if (cfg->cpu->vendor == CPU_VENDOR_AMD) {
        static const char *const names[] = {"MPERF", "APERF"};
        for (size_t i = 0; i < 2; i++, n++) {
            memset(&s[n], 0, sizeof s[n]);
            snprintf(s[n].name, sizeof s[n].name, "%s", names[i]);
            s[n].kind = SLOT_NONE;
            s[n].note = "AMD has no rdpmc index for MPERF/APERF (rdmsr only, ring 0)";
            s[n].ctr = -1;
        }
        return n;
    }
    slot_hw(cfg, &s[n++], "Instructions retired", PERF_COUNT_HW_INSTRUCTIONS, "fixed counter 0");
    slot_hw(cfg, &s[n++], "Core cycles", PERF_COUNT_HW_CPU_CYCLES, "fixed counter 1");
    slot_hw(cfg, &s[n++], "Reference cycles", PERF_COUNT_HW_REF_CPU_CYCLES, "fixed counter 2");
    if (cfg->cpu->has_topdown_slots) {
        slot_common(cfg, &s[n]);
        snprintf(s[n].name, sizeof s[n].name, "Topdown slots");
        s[n].attr.type = perf_pmu_type(cfg);
        s[n].attr.config = 0x0400;   /* event 0x00 umask 0x04: fixed counter 3 */
        s[n].note = "fixed counter 3";
        n++;
    }
    return n;
}

/* The power PMU's event for a RAPL energy MSR, or NULL. */
static const char *rapl_event(cpu_vendor v, uint32_t msr)
{
    static const struct { uint32_t msr; const char *ev; } map[] = {
        {0x611, "energy-pkg"}, {0x639, "energy-cores"}, {0x641, "energy-gpu"},
        {0x619, "energy-ram"}, {0x64D, "energy-psys"}, {0xC001029B, "energy-pkg"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].msr == msr && (v == CPU_VENDOR_AMD) == (msr >= 0xC0000000u))
            return map[i].ev;
    return NULL;
}

/* A file of the power PMU in sysfs, its first line in buf; false if absent. */
static bool power_file(const pmu_config *cfg, const char *name, char *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sys/bus/event_source/devices/power/%s",
             cfg->sysfs_root ? cfg->sysfs_root : "", name);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok;
}

/* An MSR event's slot: RAPL on the power PMU where sysfs has it, else none. */
static void msr_slot(const pmu_config *cfg, const nb_event *ev, perf_slot *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", ev->name);
    s->ctr = -1;
    s->kind = SLOT_NONE;
    s->msr = ev->read_msr;
    const char *rapl = rapl_event(cfg->cpu->vendor, ev->read_msr);
    if (!rapl) {
        s->note = "perf reads MSRs only as the power PMU's RAPL events, and this is not one; "
                  "-backend msr (root, modprobe msr) reads it";
        return;
    }
    char file[64], buf[128];
    unsigned long type = 0, config = 0;
    double scale = 0;
    snprintf(file, sizeof file, "events/%s", rapl);
    if (!power_file(cfg, "type", buf, sizeof buf) || (type = strtoul(buf, NULL, 0)) == 0 ||
        !power_file(cfg, file, buf, sizeof buf) || !strstr(buf, "event=") ||
        (config = strtoul(strstr(buf, "event=") + 6, NULL, 0)) == 0) {
        s->note = "no RAPL counter through perf here (no power PMU event in sysfs); "
                  "-backend msr (root, modprobe msr) reads the MSR";
        return;
    }
    snprintf(file, sizeof file, "events/%s.scale", rapl);
    if (power_file(cfg, file, buf, sizeof buf))
        scale = strtod(buf, NULL);
    slot_common(cfg, s);
    s->kind = SLOT_POWER;
    s->attr.type = (uint32_t)type;
    s->attr.config = config;
    s->attr.exclude_user = s->attr.exclude_kernel = s->attr.exclude_hv = 0;
    s->scale = (scale > 0 ? scale : 0x1p-32) * 1e6;
    s->note = "RAPL through the power PMU, in microjoules; read(2) before and after each run";
}

/* Does the kernel take an offcore response value in config1 for this
 * event?  Its extra_regs tables map MSR_OFFCORE_RSP_0 to event 0xB7 (0x2A
 * from Golden Cove on) and MSR_OFFCORE_RSP_1 to 0xBB (0x2B from Golden Cove
 * on; Atom cores: 0xB7 with umask 0x02). */
static bool offcore_event_ok(const nb_event *ev, bool rsp1)
{
    unsigned sel = ev->evtsel & 0xFF;
    if (!rsp1)
        return sel == 0xB7 || sel == 0x2A;
    return sel == 0xBB || sel == 0x2B || (sel == 0xB7 && ev->umask == 0x02);
}

/* All slots of a group, in the order the counters are reported. */
static int build_slots(const pmu_config *cfg, const pmu_group_plan *g, perf_slot *s,
                       size_t *n_out, nb_error *err)
{
    size_t n = 0;
    cpu_vendor v = cfg->cpu->vendor;
    if (g->n_events == 1 && nb_event_is_msr(&g->events[0])) {
        msr_slot(cfg, &g->events[0], s);
        *n_out = 1;
        return 0;
    }
    if (g->n_events == 0 && cfg->fixed_counters)
        n = fixed_slots(cfg, s);
    if (g->n_events > PMU_MAX_GP) {
        return nb_error_set(err, NB_EUNSUPPORTED,
                            "a group of %zu events is more than nb can open at once",
                            g->n_events);
    }
    for (size_t i = 0; i < g->n_events; i++, n++) {
        const nb_event *ev = &g->events[i];
        perf_slot *sl = &s[n];
        slot_common(cfg, sl);
        snprintf(sl->name, sizeof sl->name, "%s", ev->name);
        sl->attr.type = perf_pmu_type(cfg);
        sl->attr.config = pmu_event_config(v, ev);
        sl->ctr = ev->ctr;
        sl->note = "programmable counter";
        if (ev->any && v == CPU_VENDOR_AMD) {
            return nb_error_set(err, NB_EINPUT, "%s: AnyT is an Intel bit; AMD has no equivalent",
                                ev->name);
        }
        pmu_extra x;
        int rc = pmu_event_extra(v, ev, &x, err);
        if (rc < 0)
            return rc;
        if (x.msr == 0x1A6 || x.msr == 0x1A7) {
            if (!offcore_event_ok(ev, x.msr == 0x1A7)) {
                return nb_error_set(err, NB_EUNSUPPORTED,
                                    "%s: the kernel writes %s (config1) only for event %s; use "
                                    "-backend msr", ev->name, x.what,
                                    x.msr == 0x1A6 ? "0xB7 or 0x2A (Golden Cove and later)"
                                                   : "0xBB, 0x2B (Golden Cove and later) or "
                                                     "0xB7 umask 0x02 (Atom)");
            }
            sl->attr.config1 = x.value;
            sl->note = x.msr == 0x1A6 ? "offcore response, config1 -> MSR 0x1A6"
                                      : "offcore response, config1 -> MSR 0x1A7";
        } else if (x.msr == 0x3F7) {
            sl->attr.config1 = x.value;
            sl->note = "frontend, config1 -> MSR 0x3F7 (MSR_PEBS_FRONTEND)";
        } else if (x.msr == 0x3F6) {
            sl->attr.config1 = x.value;
            sl->attr.precise_ip = 1;
            sl->attr.sample_period = PERF_HUGE_PERIOD;
            /* A wakeup per sample keeps the kernel off large PEBS, which
             * would withdraw user rdpmc from the event. */
            sl->attr.wakeup_events = 1;
            sl->note = "load latency, config1 -> MSR 0x3F6 (PEBS, no large PEBS: "
                       "wakeup_events=1 keeps rdpmc; period never reached)";
        }
    }
    /* The first perf event leads the group: pinned, created disabled and
     * enabled at once with the whole group. */
    bool leader = true;
    for (size_t i = 0; i < n; i++) {
        if (s[i].kind != SLOT_PERF)
            continue;
        s[i].attr.disabled = leader;
        s[i].attr.pinned = leader;
        leader = false;
    }
    *n_out = n;
    return 0;
}

static const char *type_name(uint32_t t)
{
    switch (t) {
    case PERF_TYPE_HARDWARE: return "PERF_TYPE_HARDWARE";
    case PERF_TYPE_RAW: return "PERF_TYPE_RAW";
    default: return "dynamic PMU type from sysfs";
    }
}

static void dry_run_slot(FILE *f, const pmu_config *cfg, const perf_slot *s, size_t i,
                         int leader_i)
{
    const struct perf_event_attr *a = &s->attr;
    fprintf(f, "[event:%zu]\n", i);
    fprintf(f, "name=%s\n", s->name);
    if (s->kind == SLOT_RDTSC) {
        fprintf(f, "read=rdtsc\n\n");
        return;
    }
    if (s->kind == SLOT_NONE) {
        fprintf(f, "read=none\nreason=%s\n\n", s->note);
        return;
    }
    fprintf(f, "pid=%d\n", s->kind == SLOT_POWER ? -1 : 0);
    fprintf(f, "cpu=%d\n", cfg->cpu_index);
    if (leader_i < 0)
        fprintf(f, "group_fd=-1\n");
    else
        fprintf(f, "group_fd=fd of event:%d\n", leader_i);
    fprintf(f, "flags=PERF_FLAG_FD_CLOEXEC\n");
    fprintf(f, "type=%" PRIu32 " (%s)\n", a->type, type_name(a->type));
    fprintf(f, "size=%" PRIu32 "\n", a->size);
    fprintf(f, "config=0x%" PRIx64 "\n", (uint64_t)a->config);
    fprintf(f, "config1=0x%" PRIx64 "\n", (uint64_t)a->config1);
    fprintf(f, "sample_period=%" PRIu64 "\n", (uint64_t)a->sample_period);
    fprintf(f, "sample_type=%" PRIu64 "\n", (uint64_t)a->sample_type);
    fprintf(f, "read_format=%" PRIu64 "\n", (uint64_t)a->read_format);
    fprintf(f, "disabled=%u\n", (unsigned)a->disabled);
    fprintf(f, "inherit=%u\n", (unsigned)a->inherit);
    fprintf(f, "pinned=%u\n", (unsigned)a->pinned);
    fprintf(f, "exclusive=%u\n", (unsigned)a->exclusive);
    fprintf(f, "exclude_user=%u\n", (unsigned)a->exclude_user);
    fprintf(f, "exclude_kernel=%u\n", (unsigned)a->exclude_kernel);
    fprintf(f, "exclude_hv=%u\n", (unsigned)a->exclude_hv);
    fprintf(f, "exclude_idle=%u\n", (unsigned)a->exclude_idle);
    fprintf(f, "precise_ip=%u\n", (unsigned)a->precise_ip);
    if (a->precise_ip)
        fprintf(f, "wakeup_events=%u\n", (unsigned)a->wakeup_events);
    if (s->ctr >= 0)
        fprintf(f, "ctr=%d (not passed: the kernel's constraint tables place the event)\n",
                s->ctr);
    if (s->kind == SLOT_POWER)
        fprintf(f, "msr=0x%" PRIX32 "\nread=read(2) before and after each run, x %g\n", s->msr,
                s->scale);
    else
        fprintf(f, "mmap=1 page; rdpmc ecx = index - 1\n");
    fprintf(f, "note=%s\n\n", s->note);
}

static void perf_dry_run(FILE *f, const pmu_config *cfg, const pmu_plan *plan)
{
    perf_slot s[PERF_MAX_SLOTS];
    fprintf(f, "# backend perf_event+rdpmc: %s family 0x%X model 0x%X, %u counters, cpu %d\n",
            cpu_vendor_name(cfg->cpu->vendor), cfg->cpu->family, cfg->cpu->model,
            pmu_usable_counters(cfg, true), cfg->cpu_index);
    for (size_t gi = 0; gi < plan->n_groups; gi++) {
        size_t n = 0;
        nb_error e;
        nb_error_clear(&e);
        fprintf(f, "# group %zu of %zu\n", gi + 1, plan->n_groups);
        if (build_slots(cfg, &plan->groups[gi], s, &n, &e) < 0) {
            fprintf(f, "error=%s\n\n", e.message);
            continue;
        }
        int leader_i = -1;
        for (size_t i = 0; i < n; i++) {
            dry_run_slot(f, cfg, &s[i], i, s[i].kind == SLOT_PERF ? leader_i : -1);
            if (s[i].kind == SLOT_PERF && leader_i < 0)
                leader_i = (int)i;
        }
    }
}

static int perf_plan(const pmu_config *cfg, const nb_event *ev, size_t n, pmu_plan *out,
                     nb_error *err)
{
    return pmu_common_plan(cfg->cpu->vendor, ev, n, pmu_usable_counters(cfg, true),
                           cfg->fixed_counters, out, err);
}

static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
                                unsigned long flags)
{
    return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static void perf_close(pmu_group *g)
{
    perf_state *st = g->priv;
    if (st) {
        long page = sysconf(_SC_PAGESIZE);
        for (size_t i = st->n; i-- > 0;) {
            if (st->page[i])
                munmap(st->page[i], (size_t)page);
            if (st->fd[i] >= 0)
                close(st->fd[i]);
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

/* Read index/cap/width consistently (the page is updated under a seqlock). */
static void read_page(const volatile struct perf_event_mmap_page *pc, uint32_t *index,
                      bool *cap, unsigned *width)
{
    uint32_t seq;
    do {
        seq = pc->lock;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        *index = pc->index;
        *cap = pc->cap_user_rdpmc;
        *width = pc->pmc_width;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    } while (pc->lock != seq);
}

/* The event's time enabled and running so far (read_format asks for both);
 * zeros if the read fails. */
static void perf_times(int fd, uint64_t *enabled, uint64_t *running)
{
    uint64_t v[3] = {0, 0, 0};
    if (read(fd, v, sizeof v) != (ssize_t)sizeof v)
        v[1] = v[2] = 0;
    *enabled = v[1];
    *running = v[2];
}

pmu_lost perf_counter_check(const struct perf_event_mmap_page *page, uint32_t ecx,
                            uint64_t d_enabled, uint64_t d_running)
{
    uint32_t index;
    bool cap;
    unsigned width;
    read_page(page, &index, &cap, &width);
    if (index == 0 || index - 1 != ecx || !cap)
        return PMU_LOST_MOVED;
    if (d_running < d_enabled)
        return PMU_LOST_MULTIPLEXED;
    return PMU_KEPT;
}

/* The kernel's perf_event_mmap_page protocol: the index the code was
 * generated with holds only while the event stays on that counter, and a
 * value read with rdpmc means something only while the event was counting.
 * So after a group's runs: the index again, under the page's lock, and the
 * time running against the time enabled since the last look. */
static void perf_verify(pmu_group *g, unsigned char *lost)
{
    perf_state *st = g->priv;
    for (size_t i = 0; st && i < st->n && i < g->n_ctr; i++) {
        lost[i] = PMU_KEPT;
        if (!st->page[i] || g->ctr[i].read != PMU_READ_RDPMC)
            continue;
        uint64_t en, run;
        perf_times(st->fd[i], &en, &run);
        lost[i] = (unsigned char)perf_counter_check(st->page[i], g->ctr[i].rdpmc_ecx,
                                                    en - st->enabled[i], run - st->running[i]);
        st->enabled[i] = en;
        st->running[i] = run;
    }
}

static int perf_open(const pmu_config *cfg, const pmu_group_plan *gp, pmu_group *out,
                     nb_error *err)
{
    perf_slot s[PERF_MAX_SLOTS];
    size_t n = 0;
    const char *root = cfg->sysfs_root ? cfg->sysfs_root : "";
    memset(out, 0, sizeof *out);
    int rc = build_slots(cfg, gp, s, &n, err);
    if (rc < 0)
        return rc;
    perf_state *st = calloc(1, sizeof *st);
    out->ctr = calloc(n ? n : 1, sizeof *out->ctr);
    if (!st || !out->ctr) {
        free(st);
        free(out->ctr);
        out->ctr = NULL;
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    }
    out->priv = st;
    out->n_ctr = n;
    st->n = n;
    for (size_t i = 0; i < n; i++)
        st->fd[i] = -1;

    rc = pmu_rdpmc_enable(cfg, false, err);
    if (rc < 0)
        goto fail;
    st->rdpmc_changed = rc > 0;

    long page = sysconf(_SC_PAGESIZE);
    int leader = -1;
    for (size_t i = 0; i < n; i++) {
        pmu_counter *c = &out->ctr[i];
        snprintf(c->name, sizeof c->name, "%.*s", NB_EVENT_NAME_MAX - 1, s[i].name);
        c->scale = 1.0;
        c->read = s[i].kind == SLOT_RDTSC ? PMU_READ_RDTSC : PMU_READ_NONE;
        c->width = s[i].kind == SLOT_RDTSC ? 64 : 0;
        if (s[i].kind == SLOT_POWER) {
            long fd = sys_perf_event_open(&s[i].attr, -1, cfg->cpu_index, -1,
                                          PERF_FLAG_FD_CLOEXEC);
            if (fd < 0) {
                char what[NB_EVENT_NAME_MAX + 64];
                snprintf(what, sizeof what, "perf_event_open(%.*s, power PMU)",
                         NB_EVENT_NAME_MAX - 1, s[i].name);
                rc = pmu_advice_set(err, NB_ESYSTEM, PMU_OP_PERF_OPEN, errno, what, root);
                goto fail;
            }
            st->fd[i] = (int)fd;
            c->read = PMU_READ_OUTSIDE;
            c->msr = s[i].msr;
            c->width = 64;
            c->scale = s[i].scale;
            continue;
        }
        if (s[i].kind != SLOT_PERF)
            continue;
        long fd = sys_perf_event_open(&s[i].attr, 0, cfg->cpu_index, leader,
                                      PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            char what[NB_EVENT_NAME_MAX + 64];
            snprintf(what, sizeof what, "perf_event_open(%.*s, config=0x%llx)",
                     NB_EVENT_NAME_MAX - 1, s[i].name,
                     (unsigned long long)s[i].attr.config);
            rc = pmu_advice_set(err, NB_ESYSTEM, PMU_OP_PERF_OPEN, errno, what, root);
            goto fail;
        }
        st->fd[i] = (int)fd;
        if (leader < 0)
            leader = (int)fd;
        void *p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, (int)fd, 0);
        if (p == MAP_FAILED) {
            rc = pmu_advice_set(err, NB_ESYSTEM, PMU_OP_PERF_MMAP, errno, s[i].name, root);
            goto fail;
        }
        st->page[i] = p;
    }
    if (leader >= 0 &&
        ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0) {
        rc = pmu_advice_set(err, NB_ESYSTEM, PMU_OP_PERF_OPEN, errno, "PERF_EVENT_IOC_ENABLE",
                            root);
        goto fail;
    }
    /* The index is valid while the events are scheduled, i.e. now, in this
     * task, on this CPU. */
    for (size_t i = 0; i < n; i++) {
        if (!st->page[i])
            continue;
        uint32_t index;
        bool cap;
        unsigned width;
        read_page(st->page[i], &index, &cap, &width);
        if (!cap) {
            rc = pmu_advice_set(err, NB_ESYSTEM, PMU_OP_PERF_RDPMC, 0, s[i].name, root);
            goto fail;
        }
        if (index == 0) {
            rc = pmu_advice_set(err, NB_ESYSTEM, PMU_OP_PERF_INDEX, 0, s[i].name, root);
            goto fail;
        }
        out->ctr[i].read = PMU_READ_RDPMC;
        out->ctr[i].rdpmc_ecx = index - 1;
        out->ctr[i].width = width ? width : 48;
        perf_times(st->fd[i], &st->enabled[i], &st->running[i]);
    }
    return 0;
fail:
    perf_close(out);
    return rc;
}

/* A power PMU event's count, by read(2) (read_format adds the times). */
static int perf_read_outside(const pmu_config *cfg, pmu_group *g, size_t k, uint64_t *value,
                             nb_error *err)
{
    perf_state *st = g->priv;
    uint64_t v[3];
    if (!st || k >= st->n || st->fd[k] < 0 || read(st->fd[k], v, sizeof v) != (ssize_t)sizeof v)
        return nb_error_set(err, NB_ESYSTEM, "reading %s (power PMU) on CPU %d: %s",
                            g->ctr[k].name, cfg->cpu_index, strerror(errno));
    *value = v[0];
    return 0;
}

static int perf_probe(const pmu_config *cfg, nb_error *err)
{
    const char *root = cfg->sysfs_root ? cfg->sysfs_root : "";
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = PERF_ATTR_SIZE_VER1;
    a.type = PERF_TYPE_HARDWARE;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    long fd = sys_perf_event_open(&a, 0, cfg->cpu_index, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return pmu_advice_set(err, NB_EUNSUPPORTED, PMU_OP_PERF_OPEN, errno,
                              "perf_event_open(instructions)", root);
    /* User-space rdpmc must be on, or nb must be able to turn it on.  (The
     * page's cap_user_rdpmc is only meaningful while an event is active, so
     * open() checks that, not this probe.) */
    int rc = 0;
    pmu_sysinfo si;
    pmu_sysinfo_read(root, &si);
    if (si.rdpmc == 0 && !si.root)
        rc = pmu_advice_set(err, NB_EUNSUPPORTED, PMU_OP_PERF_RDPMC, 0, "rdpmc", root);
    close((int)fd);
    return rc;
}

const pmu_backend pmu_perf_backend = {
    .name = "perf_event+rdpmc",
    .flags = PMU_BE_RDPMC,
    .probe = perf_probe,
    .plan = perf_plan,
    .open = perf_open,
    .close = perf_close,
    .dry_run = perf_dry_run,
    .verify = perf_verify,
    .read_outside = perf_read_outside,
};
