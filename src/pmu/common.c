/* nb pmu common: event encoding, counter assignment, grouping, rdpmc switch.
 * See common.h for what each part is for. */
#include "pmu/common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/codegen.h"
#include "pmu/advice.h"
#include "sys/error.h"
#include "sys/status.h"

uint64_t pmu_event_config(cpu_vendor v, const nb_event *ev)
{
    uint64_t c = (uint64_t)(ev->evtsel & 0xFF) | (uint64_t)ev->umask << 8 |
                 (uint64_t)ev->edge << 18 | (uint64_t)ev->inv << 23 |
                 (uint64_t)ev->cmask << 24;
    if (v == CPU_VENDOR_AMD)
        c |= (uint64_t)((ev->evtsel >> 8) & 0xF) << 32;   /* EventSelect[11:8] */
    else
        c |= (uint64_t)ev->any << 21;                      /* AnyThread */
    return c;
}

int pmu_event_extra(cpu_vendor v, const nb_event *ev, pmu_extra *out, nb_error *err)
{
    memset(out, 0, sizeof *out);
    int n = ev->has_msr_3f6h + ev->has_msr_pf + ev->has_msr_rsp0 + ev->has_msr_rsp1;
    if (n == 0)
        return 0;
    if (v == CPU_VENDOR_AMD) {
        return nb_error_set(err, NB_EINPUT,
                            "%s: MSR_3F6H/MSR_PF/MSR_RSP0/MSR_RSP1 are Intel MSRs; AMD events "
                            "take none", ev->name);
    }
    if (n > 1) {
        return nb_error_set(err, NB_EINPUT,
                            "%s: an event can use only one of MSR_3F6H, MSR_PF, MSR_RSP0, "
                            "MSR_RSP1", ev->name);
    }
    if (ev->has_msr_rsp0)
        *out = (pmu_extra){0x1A6, ev->msr_rsp0, "MSR_OFFCORE_RSP_0"};
    else if (ev->has_msr_rsp1)
        *out = (pmu_extra){0x1A7, ev->msr_rsp1, "MSR_OFFCORE_RSP_1"};
    else if (ev->has_msr_3f6h)
        *out = (pmu_extra){0x3F6, ev->msr_3f6h, "MSR_PEBS_LD_LAT_THRESHOLD"};
    else
        *out = (pmu_extra){0x3F7, ev->msr_pf, "MSR_PEBS_FRONTEND"};
    return 0;
}

int pmu_assign_counters(cpu_vendor v, const nb_event *ev, size_t n, unsigned n_counters,
                        int idx[])
{
    bool used[PMU_MAX_GP] = {false};
    if (n_counters > PMU_MAX_GP)
        n_counters = PMU_MAX_GP;
    if (n > n_counters)
        return NB_EUNSUPPORTED;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].taken_alone && n > 1)
            return NB_EUNSUPPORTED;
        /* Two events sharing an extra MSR must want the same value in it. */
        pmu_extra xi, xj;
        if (pmu_event_extra(v, &ev[i], &xi, NULL) < 0)
            return NB_EINPUT;
        for (size_t j = 0; j < i && xi.msr; j++)
            if (pmu_event_extra(v, &ev[j], &xj, NULL) == 0 && xj.msr == xi.msr && xj.value != xi.value)
                return NB_EUNSUPPORTED;
    }
    /* Pinned events first, then the rest on the lowest free counter. */
    for (size_t i = 0; i < n; i++) {
        idx[i] = -1;
        if (ev[i].ctr >= 0) {
            if ((unsigned)ev[i].ctr >= n_counters || used[ev[i].ctr])
                return NB_EUNSUPPORTED;
            used[ev[i].ctr] = true;
            idx[i] = ev[i].ctr;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (idx[i] >= 0)
            continue;
        unsigned c = 0;
        while (c < n_counters && used[c])
            c++;
        if (c == n_counters)
            return NB_EUNSUPPORTED;
        used[c] = true;
        idx[i] = (int)c;
    }
    return 0;
}


int pmu_common_plan(cpu_vendor v, const nb_event *ev, size_t n, unsigned n_counters,
                    bool fixed_group, pmu_plan *out, nb_error *err)
{
    out->groups = NULL;
    out->n_groups = 0;
    int idx[PMU_MAX_GP];
    int rc = 0;
    /* An event pinned to a counter this CPU lacks (nanoBench's Skymont
     * config pins some to CTR=37) is skipped with a warning instead of
     * failing the run.  nanoBench warns and drops only the pin; nb drops the
     * event, whose counts on another counter would not mean the same. */
    nb_event *keep = malloc((n ? n : 1) * sizeof *keep);
    if (!keep)
        return nb_error_set(err, NB_ENOMEM, "out of memory");
    size_t nk = 0;
    if (fixed_group && (rc = pmu_plan_push(out, NULL, 0)) < 0) {
        nb_error_set(err, rc, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        pmu_extra x;
        if ((rc = pmu_event_extra(v, &ev[i], &x, err)) < 0)
            goto fail;
        if (ev[i].ctr >= 0 && (unsigned)ev[i].ctr >= n_counters) {
            nb_warn("%s: CTR=%d, but this CPU has %u programmable counters (0-%u); "
                    "event skipped", ev[i].name, ev[i].ctr, n_counters, n_counters - 1);
            continue;
        }
        keep[nk++] = ev[i];
    }
    size_t start = 0;
    while (start < nk) {
        /* Grow the group while everything still fits. */
        size_t end = start + 1;
        while (end < nk && end - start < PMU_MAX_GP &&
               pmu_assign_counters(v, keep + start, end + 1 - start, n_counters, idx) == 0)
            end++;
        if ((rc = pmu_plan_push(out, keep + start, end - start)) < 0) {
            nb_error_set(err, rc, "out of memory");
            goto fail;
        }
        start = end;
    }
    free(keep);
    return 0;
fail:
    free(keep);
    pmu_plan_free(out);
    return rc;
}

unsigned pmu_usable_counters(const pmu_config *cfg, bool perf)
{
    unsigned n = cfg->cpu->n_gp_counters;
    if (n == 0)
        n = cfg->cpu->vendor == CPU_VENDOR_AMD ? 6 : 4;
    if (n > PMU_MAX_GP)
        n = PMU_MAX_GP;
    /* -no_mem keeps every counter of a group in a register (R8-R13) */
    if (cfg->no_mem && n > CODEGEN_NO_MEM_MAX_CTR)
        n = CODEGEN_NO_MEM_MAX_CTR;
    if (perf && cfg->cpu->vendor == CPU_VENDOR_AMD && n > 1) {
        pmu_sysinfo si;
        pmu_sysinfo_read(cfg->sysfs_root ? cfg->sysfs_root : "", &si);
        if (si.nmi_watchdog == 1)
            n--;   /* the watchdog's cycles event sits on a core counter */
    }
    return n;
}

const char *pmu_core_pmu_name(const pmu_config *cfg)
{
    if (cfg->cpu->hybrid)
        return cfg->cpu->core_type == CPU_CORE_ATOM ? "cpu_atom" : "cpu_core";
    return "cpu";
}

/* What pmu_rdpmc_enable changed, to put back. */
static struct {
    char path[3][512];
    char old[3][16];
    int n;
} g_rdpmc;

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t w = write(fd, text, strlen(text));
    int e = w < 0 ? errno : 0;
    close(fd);
    return e ? -e : 0;
}

int pmu_rdpmc_enable(const pmu_config *cfg, bool always, nb_error *err)
{
    static const char *const devs[] = {"cpu", "cpu_core", "cpu_atom"};
    const char *root = cfg->sysfs_root ? cfg->sysfs_root : "";
    int changed = 0;
    for (size_t i = 0; i < 3; i++) {
        char path[512], buf[16] = "";
        snprintf(path, sizeof path, "%s/sys/bus/event_source/devices/%s/rdpmc", root, devs[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t r = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (r <= 0)
            continue;
        buf[r] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        if (strcmp(buf, "2") == 0 || (!always && strcmp(buf, "0") != 0))
            continue;
        if (geteuid() != 0) {
            return pmu_advice_set(err, NB_ESYSTEM, PMU_OP_PERF_RDPMC, 0, path, root);
        }
        /* TODO(engine): register with restore.h once merged, so SIGINT/SIGTERM
         * also put it back; until then close() restores it. */
        int e = write_file(path, "2");
        if (e < 0) {
            return pmu_advice_set(err, NB_ESYSTEM, PMU_OP_SYSFS_WRITE, -e, path, root);
        }
        snprintf(g_rdpmc.path[g_rdpmc.n], sizeof g_rdpmc.path[0], "%s", path);
        snprintf(g_rdpmc.old[g_rdpmc.n], sizeof g_rdpmc.old[0], "%s", buf);
        g_rdpmc.n++;
        changed = 1;
    }
    return changed;
}

void pmu_rdpmc_restore(void)
{
    while (g_rdpmc.n > 0) {
        g_rdpmc.n--;
        (void)write_file(g_rdpmc.path[g_rdpmc.n], g_rdpmc.old[g_rdpmc.n]);
    }
}
