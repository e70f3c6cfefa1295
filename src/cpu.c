/* nb cpu: decode CPUID into a cpu_info.
 *
 * Every read goes through the cpuid_fn handed to cpu_detect_with(), so the
 * unit tests can describe any CPU (Skylake, Alder Lake P/E, Zen 2/4, a VM
 * with no PMU) by a table of leaf values.  Leaves above the reported maximum
 * are never asked for: real CPUs return garbage (Intel repeats the highest
 * basic leaf) for them. */
#include "cpu.h"

#include <string.h>

void cpu_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
    uint32_t a, b, c, d;
    __asm__ volatile("cpuid"
                     : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
                     : "a"(leaf), "c"(subleaf));
    regs[0] = a;
    regs[1] = b;
    regs[2] = c;
    regs[3] = d;
}

const char *cpu_vendor_name(cpu_vendor v)
{
    switch (v) {
    case CPU_VENDOR_INTEL: return "Intel";
    case CPU_VENDOR_AMD: return "AMD";
    default: return "unknown";
    }
}

enum { EAX, EBX, ECX, EDX };

static bool bit(uint32_t v, unsigned n) { return (v >> n) & 1u; }
static unsigned bits(uint32_t v, unsigned lo, unsigned n) { return (v >> lo) & ((1u << n) - 1); }

/* Display family/model as Intel's SDM and AMD's PPR define them: the extended
 * family is added only for base family 0xF; the extended model is prepended
 * for base families 6 and 0xF. */
static void decode_signature(uint32_t eax, cpu_info *out)
{
    unsigned base_family = bits(eax, 8, 4), base_model = bits(eax, 4, 4);
    out->stepping = bits(eax, 0, 4);
    out->family = base_family == 0xF ? base_family + bits(eax, 20, 8) : base_family;
    out->model = (base_family == 6 || base_family == 0xF)
                     ? (bits(eax, 16, 4) << 4) | base_model
                     : base_model;
}

/* Leaf 0xA: architectural performance monitoring (Intel). */
static void decode_intel_pmu(cpuid_fn fn, uint32_t max_leaf, cpu_info *out)
{
    uint32_t r[4];
    if (max_leaf < 0xA)
        return;
    fn(0xA, 0, r);
    out->pmu_version = bits(r[EAX], 0, 8);
    if (out->pmu_version == 0)
        return;   /* e.g. a VM that hides the PMU: no counters at all */
    out->n_gp_counters = bits(r[EAX], 8, 8);
    out->gp_counter_width = bits(r[EAX], 16, 8);
    if (out->pmu_version >= 2) {
        out->n_fixed_counters = bits(r[EDX], 0, 5);
        out->fixed_counter_width = bits(r[EDX], 5, 8);
    }
    /* From version 5 on, ECX is a bitmap of the fixed counters present even
     * when they are not contiguous; count them both ways, take the larger. */
    bool fixed3 = out->n_fixed_counters > 3;
    if (out->pmu_version >= 5) {
        unsigned hi = 0;
        for (unsigned i = 0; i < 32; i++)
            if (bit(r[ECX], i))
                hi = i + 1;
        if (hi > out->n_fixed_counters)
            out->n_fixed_counters = hi;
        fixed3 = fixed3 || bit(r[ECX], 3);
    }
    /* Topdown slots live on fixed counter 3; EBX bit 7 set means the event is
     * NOT available, and is only meaningful if EAX[31:24] covers bit 7. */
    out->has_topdown_slots = fixed3 && bits(r[EAX], 24, 8) > 7 && !bit(r[EBX], 7);
}

/* AMD: 4 legacy counters, 6 with PerfCtrExtCore; PerfMonV2 reports its own
 * count (and adds global control MSRs). */
static void decode_amd_pmu(cpuid_fn fn, uint32_t max_ext, cpu_info *out)
{
    uint32_t r[4];
    out->pmu_version = 1;
    out->n_gp_counters = 4;
    out->gp_counter_width = 48;
    if (max_ext >= 0x80000001) {
        fn(0x80000001, 0, r);
        if (bit(r[ECX], 23))
            out->n_gp_counters = 6;
    }
    if (max_ext >= 0x80000022) {
        fn(0x80000022, 0, r);
        if (bit(r[EAX], 0)) {
            out->pmu_version = 2;
            if (bits(r[EBX], 0, 4))
                out->n_gp_counters = bits(r[EBX], 0, 4);
        }
    }
}

void cpu_detect_with(cpuid_fn fn, cpu_info *out)
{
    uint32_t r[4];
    memset(out, 0, sizeof *out);

    fn(0, 0, r);
    uint32_t max_leaf = r[EAX];
    memcpy(out->vendor_string + 0, &r[EBX], 4);
    memcpy(out->vendor_string + 4, &r[EDX], 4);
    memcpy(out->vendor_string + 8, &r[ECX], 4);
    out->vendor_string[12] = '\0';
    if (strcmp(out->vendor_string, "GenuineIntel") == 0)
        out->vendor = CPU_VENDOR_INTEL;
    else if (strcmp(out->vendor_string, "AuthenticAMD") == 0 ||
             strcmp(out->vendor_string, "HygonGenuine") == 0)
        out->vendor = CPU_VENDOR_AMD;

    if (max_leaf >= 1) {
        fn(1, 0, r);
        decode_signature(r[EAX], out);
        out->has_avx = bit(r[ECX], 28);
        out->hypervisor = bit(r[ECX], 31);
    }
    if (max_leaf >= 7) {
        fn(7, 0, r);
        out->has_avx2 = bit(r[EBX], 5);
        out->has_avx512f = bit(r[EBX], 16);
        out->hybrid = out->vendor == CPU_VENDOR_INTEL && bit(r[EDX], 15);
    }
    if (out->hybrid && max_leaf >= 0x1A) {
        fn(0x1A, 0, r);
        out->core_type = (cpu_core_type)bits(r[EAX], 24, 8);
    }

    fn(0x80000000, 0, r);
    uint32_t max_ext = (r[EAX] & 0xFFFF0000u) == 0x80000000u ? r[EAX] : 0;
    if (max_ext >= 0x80000001) {
        fn(0x80000001, 0, r);
        out->has_rdtscp = bit(r[EDX], 27);
    }
    if (max_ext >= 0x80000004) {
        for (size_t i = 0; i < 3; i++) {
            fn(0x80000002 + (unsigned)i, 0, r);
            memcpy(out->brand + 16 * i, r, 16);
        }
        out->brand[48] = '\0';
        /* Brand strings are often padded with leading spaces. */
        size_t lead = strspn(out->brand, " ");
        memmove(out->brand, out->brand + lead, strlen(out->brand + lead) + 1);
        size_t n = strlen(out->brand);
        while (n > 0 && out->brand[n - 1] == ' ')
            out->brand[--n] = '\0';
    }
    if (max_ext >= 0x80000007) {
        fn(0x80000007, 0, r);
        out->has_invariant_tsc = bit(r[EDX], 8);
    }

    if (out->vendor == CPU_VENDOR_INTEL)
        decode_intel_pmu(fn, max_leaf, out);
    else if (out->vendor == CPU_VENDOR_AMD)
        decode_amd_pmu(fn, max_ext, out);
}
