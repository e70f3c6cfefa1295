/* nb info: see info.h. */
#include "cli/info.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "events/evdb.h"

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return !*needle;
}

typedef struct list_ctx {
    FILE *out;
    const char *substr;
    cpu_vendor vendor;
    int printed;
} list_ctx;

static void list_one(void *vctx, const nb_event *ev, const char *desc)
{
    list_ctx *c = vctx;
    if (c->substr && !contains_ci(ev->name, c->substr))
        return;
    char spec[256];
    evdb_format_event(ev, c->vendor, spec, sizeof spec);
    fprintf(c->out, "%s %s%s%s\n", spec, ev->name, *desc ? "  # " : "", desc);
    c->printed++;
}

int info_list_events(FILE *out, const char *uarch, const char *substr)
{
    list_ctx c = {out, substr, evdb_uarch_vendor(uarch), 0};
    evdb_each_event(uarch, EVDB_SET_ALL, list_one, &c);
    return c.printed;
}

static const char *core_type_name(unsigned t)
{
    return t == CPU_CORE_CORE ? "P-cores" : t == CPU_CORE_ATOM ? "E-cores" : "LP-E-cores";
}

void info_list_uarchs(FILE *out)
{
    const char *u;
    for (size_t i = 0; (u = evdb_uarch_at(i)) != NULL; i++) {
        fprintf(out, "%-16s %-5s %5zu events (%zu common):", u,
                cpu_vendor_name(evdb_uarch_vendor(u)), evdb_count(u, EVDB_SET_ALL),
                evdb_count(u, EVDB_SET_COMMON));
        int fam = -1;
        evdb_cpus c;
        size_t k = 0;
        for (; evdb_cpus_at(u, k, &c); k++) {
            if ((int)c.family != fam)
                fprintf(out, "%s family 0x%02X model", k ? ";" : "", c.family);
            fprintf(out, "%s 0x%02X", (int)c.family == fam ? "," : "", c.model_lo);
            fam = (int)c.family;
            if (c.model_hi != c.model_lo)
                fprintf(out, "-0x%02X", c.model_hi);
            if (c.step_lo != 0 || c.step_hi != 15)
                fprintf(out, " stepping %u-%u", c.step_lo, c.step_hi);
            if (c.core_type)
                fprintf(out, " %s", core_type_name(c.core_type));
        }
        fprintf(out, "%s\n", k ? "" : " (no CPU maps to it; use -uarch)");
    }
}

void info_cpu(FILE *out, const cpu_info *cpu, const char *uarch, const char *backend)
{
    fprintf(out, "vendor: %s (%s)\n", cpu_vendor_name(cpu->vendor), cpu->vendor_string);
    if (cpu->brand[0])
        fprintf(out, "brand: %s\n", cpu->brand);
    fprintf(out, "family: 0x%X, model: 0x%X, stepping: 0x%X\n", cpu->family, cpu->model,
            cpu->stepping);
    fprintf(out, "core type: %s\n", !cpu->hybrid                       ? "not hybrid"
                                    : cpu->core_type == CPU_CORE_CORE ? "Core (P)"
                                    : cpu->core_type == CPU_CORE_ATOM ? "Atom (E)"
                                                                      : "hybrid, unknown");
    const char *detected = evdb_uarch_for_cpu(cpu);
    if (uarch && detected && strcmp(uarch, detected) != 0)
        fprintf(out, "event table: %s (-uarch; detected: %s)\n", uarch, detected);
    else if (uarch)
        fprintf(out, "event table: %s%s\n", uarch, detected ? "" : " (-uarch)");
    else
        fprintf(out, "event table: none (unknown CPU: architectural events only)\n");
    fprintf(out, "PMU version: %u\n", cpu->pmu_version);
    fprintf(out, "programmable counters: %u x %u bits\n", cpu->n_gp_counters,
            cpu->gp_counter_width);
    fprintf(out, "fixed counters: %u x %u bits\n", cpu->n_fixed_counters,
            cpu->fixed_counter_width);
    if (cpu->hypervisor)
        fprintf(out, "hypervisor: yes\n");
    fprintf(out, "backend: %s\n", backend ? backend : "unknown");
}
