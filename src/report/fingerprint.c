/* nb fingerprint: see fingerprint.h. */
#include "report/fingerprint.h"

#include "lib/clock.h"
#include "sys/fileio.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

static int read_flag(const char *root, const char *path, bool invert)
{
    char v[16];
    if (!file_read_line(root, path, v, sizeof v) || (v[0] != '0' && v[0] != '1'))
        return -1;
    return (v[0] == '1') != invert;
}

/* "microcode : 0xb404023" of the first processor in /proc/cpuinfo. */
static void read_microcode(const char *root, char *out, size_t len)
{
    char p[512], line[256];
    snprintf(p, sizeof p, "%s/proc/cpuinfo", root);
    FILE *f = fopen(p, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "microcode", 9) != 0)
            continue;
        const char *v = strchr(line, ':');
        if (v) {
            v += strspn(v + 1, " \t") + 1;
            snprintf(out, len, "%.*s", (int)strcspn(v, " \t\n"), v);
        }
        break;
    }
    fclose(f);
}

void fingerprint_read(nb_fingerprint *fp, const cpu_info *cpu, const char *uarch,
                      int cpu_index, const char *root)
{
    memset(fp, 0, sizeof *fp);
    fp->cpu = cpu;
    fp->uarch = uarch;
    fp->cpu_index = cpu_index;
    read_microcode(root, fp->microcode, sizeof fp->microcode);
    struct utsname u;
    if (root[0]) {
        file_read_line(root, "/proc/sys/kernel/osrelease", fp->kernel, sizeof fp->kernel);
    } else if (uname(&u) == 0) {
        snprintf(fp->kernel, sizeof fp->kernel, "%s", u.release);
    }
    /* smt/active says whether sibling threads are online now; a kernel
     * without it (or "notsupported" in control) leaves it unknown. */
    fp->smt = read_flag(root, "/sys/devices/system/cpu/smt/active", false);
    char p[128];
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu_index);
    file_read_line(root, p, fp->governor, sizeof fp->governor);
    /* acpi-cpufreq / amd-pstate: cpufreq/boost; intel_pstate: no_turbo. */
    fp->boost = read_flag(root, "/sys/devices/system/cpu/cpufreq/boost", false);
    if (fp->boost < 0)
        fp->boost = read_flag(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", true);
}

static jv *str_or_null(const char *s)
{
    return s && s[0] ? jv_str(s) : jv_null();
}

static jv *tri(int v)
{
    return v < 0 ? jv_null() : jv_bool(v != 0);
}

jv *fingerprint_json(const nb_fingerprint *fp, double tsc_ghz)
{
    jv *m = jv_obj();
    const cpu_info *c = fp->cpu;
    jv *cpu = jv_set(m, "cpu", jv_obj());
    jv_set(cpu, "vendor", jv_str(c->vendor_string));
    jv_set(cpu, "family", jv_int(c->family));
    jv_set(cpu, "model", jv_int(c->model));
    jv_set(cpu, "stepping", jv_int(c->stepping));
    jv_set(cpu, "brand", str_or_null(c->brand));
    jv_set(cpu, "hypervisor", jv_bool(c->hypervisor));
    jv_set(cpu, "index", jv_int(fp->cpu_index));
    jv_set(m, "event_table", str_or_null(fp->uarch));
    jv_set(m, "microcode", str_or_null(fp->microcode));
    jv_set(m, "kernel", str_or_null(fp->kernel));
    jv_set(m, "smt", tri(fp->smt));
    jv_set(m, "cpufreq_governor", str_or_null(fp->governor));
    jv_set(m, "boost", tri(fp->boost));
    jv_set(m, "tsc_ghz", jv_num(tsc_ghz > 0 ? tsc_ghz : clock_tsc_ghz(5e6)));
    return m;
}
