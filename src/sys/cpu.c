/* nb cpu: decode CPUID into a cpu_info.
 *
 * Every read goes through the cpuid_fn handed to cpu_detect_with(), so the
 * unit tests can describe any CPU (Skylake, Alder Lake P/E, Zen 2/4, a VM
 * with no PMU) by a table of leaf values.  Leaves above the reported maximum
 * are never asked for: real CPUs return garbage (Intel repeats the highest
 * basic leaf) for them. */
#include "sys/cpu.h"

#include <stdio.h>
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
        out->has_bmi2 = bit(r[EBX], 8);
        out->has_amx_tile = bit(r[EDX], 24);
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

/* ---- ISA sets: which CPUID bit each needs ----
 *
 * Bit positions from the Intel SDM (CPUID leaves 1, 7, 0xD) and AMD's APM
 * (0x80000001, 0x80000008).  `xcr0`: the register state the OS must have
 * enabled (XCR0 bits: 1-2 SSE/AVX, 5-7 AVX-512, 17-18 AMX). */
typedef struct isa_bit {
    const char *name;            /* feature as reported, e.g. "AVX512F" */
    uint32_t leaf, sub;
    uint8_t reg, bit;
} isa_bit;

typedef struct isa_need {
    const char *set;             /* Zydis ISA set name, or prefix ending in '_' */
    isa_bit need[2];
    uint64_t xcr0;
} isa_need;

#define XCR0_AVX UINT64_C(0x6)
#define XCR0_AVX512 UINT64_C(0xE6)
#define XCR0_AMX UINT64_C(0x60000)
#define B1(n, l, s, r, b) {n, l, s, r, b}
#define F7B(n, b) B1(n, 7, 0, EBX, b)
#define F7C(n, b) B1(n, 7, 0, ECX, b)
#define F7D(n, b) B1(n, 7, 0, EDX, b)
#define F1C(n, b) B1(n, 1, 0, ECX, b)
#define FXC(n, b) B1(n, 0x80000001, 0, ECX, b)

static const isa_need isa_table[] = {
    /* AVX-512 (prefixes: every vector length; _128/_256 also need VL) */
    {"AVX512F_", {F7B("AVX512F", 16)}, XCR0_AVX512},
    {"AVX512BW_", {F7B("AVX512BW", 30)}, XCR0_AVX512},
    {"AVX512DQ_", {F7B("AVX512DQ", 17)}, XCR0_AVX512},
    {"AVX512CD_", {F7B("AVX512CD", 28)}, XCR0_AVX512},
    {"AVX512ER_", {F7B("AVX512ER", 27)}, XCR0_AVX512},
    {"AVX512PF_", {F7B("AVX512PF", 26)}, XCR0_AVX512},
    {"AVX512_IFMA_", {F7B("AVX512_IFMA", 21)}, XCR0_AVX512},
    {"AVX512_VBMI_", {F7C("AVX512_VBMI", 1)}, XCR0_AVX512},
    {"AVX512_VBMI2_", {F7C("AVX512_VBMI2", 6)}, XCR0_AVX512},
    {"AVX512_VNNI_", {F7C("AVX512_VNNI", 11)}, XCR0_AVX512},
    {"AVX512_BITALG_", {F7C("AVX512_BITALG", 12)}, XCR0_AVX512},
    {"AVX512_VPOPCNTDQ_", {F7C("AVX512_VPOPCNTDQ", 14)}, XCR0_AVX512},
    {"AVX512_GFNI_", {F7B("AVX512F", 16), F7C("GFNI", 8)}, XCR0_AVX512},
    {"AVX512_VAES_", {F7B("AVX512F", 16), F7C("VAES", 9)}, XCR0_AVX512},
    {"AVX512_VPCLMULQDQ_", {F7B("AVX512F", 16), F7C("VPCLMULQDQ", 10)}, XCR0_AVX512},
    {"AVX512_4FMAPS_", {F7D("AVX512_4FMAPS", 3)}, XCR0_AVX512},
    {"AVX512_4VNNIW_", {F7D("AVX512_4VNNIW", 2)}, XCR0_AVX512},
    {"AVX512_VP2INTERSECT_", {F7D("AVX512_VP2INTERSECT", 8)}, XCR0_AVX512},
    {"AVX512_FP16_", {F7D("AVX512_FP16", 23)}, XCR0_AVX512},
    {"AVX512_BF16_", {B1("AVX512_BF16", 7, 1, EAX, 5)}, XCR0_AVX512},
    /* AMX */
    {"AMX_TILE", {F7D("AMX-TILE", 24)}, XCR0_AMX},
    {"AMX_INT8", {F7D("AMX-INT8", 25)}, XCR0_AMX},
    {"AMX_BF16", {F7D("AMX-BF16", 22)}, XCR0_AMX},
    /* AVX family */
    {"AVX", {F1C("AVX", 28)}, XCR0_AVX},
    {"AVX2", {F7B("AVX2", 5)}, XCR0_AVX},
    {"AVX2GATHER", {F7B("AVX2", 5)}, XCR0_AVX},
    {"AVXAES", {F1C("AVX", 28), F1C("AES", 25)}, XCR0_AVX},
    {"AVX_GFNI", {F1C("AVX", 28), F7C("GFNI", 8)}, XCR0_AVX},
    {"AVX_VNNI", {B1("AVX-VNNI", 7, 1, EAX, 4)}, XCR0_AVX},
    {"FMA", {F1C("FMA", 12)}, XCR0_AVX},
    {"F16C", {F1C("F16C", 29)}, XCR0_AVX},
    {"VAES", {F7C("VAES", 9)}, XCR0_AVX},
    {"VPCLMULQDQ", {F7C("VPCLMULQDQ", 10)}, XCR0_AVX},
    {"FMA4", {FXC("FMA4", 16)}, XCR0_AVX},
    {"XOP", {FXC("XOP", 11)}, XCR0_AVX},
    /* SSE and scalar extensions */
    {"SSE3", {F1C("SSE3", 0)}, 0},
    {"SSE3X87", {F1C("SSE3", 0)}, 0},
    {"SSSE3", {F1C("SSSE3", 9)}, 0},
    {"SSSE3MMX", {F1C("SSSE3", 9)}, 0},
    {"SSE4", {F1C("SSE4.1", 19)}, 0},
    {"SSE42", {F1C("SSE4.2", 20)}, 0},
    {"SSE4A", {FXC("SSE4A", 6)}, 0},
    {"AES", {F1C("AES", 25)}, 0},
    {"PCLMULQDQ", {F1C("PCLMULQDQ", 1)}, 0},
    {"GFNI", {F7C("GFNI", 8)}, 0},
    {"SHA", {F7B("SHA", 29)}, 0},
    {"MOVBE", {F1C("MOVBE", 22)}, 0},
    {"POPCNT", {F1C("POPCNT", 23)}, 0},
    {"CMPXCHG16B", {F1C("CMPXCHG16B", 13)}, 0},
    {"RDRAND", {F1C("RDRAND", 30)}, 0},
    {"RDSEED", {F7B("RDSEED", 18)}, 0},
    {"BMI1", {F7B("BMI1", 3)}, 0},
    {"BMI2", {F7B("BMI2", 8)}, 0},
    {"ADOX_ADCX", {F7B("ADX", 19)}, 0},
    {"TBM", {FXC("TBM", 21)}, 0},
    {"LWP", {FXC("LWP", 15)}, 0},
    {"RTM", {F7B("RTM", 11)}, 0},
    {"MPX", {F7B("MPX", 14)}, 0},
    {"CLFLUSHOPT", {F7B("CLFLUSHOPT", 23)}, 0},
    {"CLWB", {F7B("CLWB", 24)}, 0},
    {"RDWRFSGS", {F7B("FSGSBASE", 0)}, 0},
    {"PREFETCHWT1", {F7C("PREFETCHWT1", 0)}, 0},
    {"WAITPKG", {F7C("WAITPKG", 5)}, 0},
    {"RDPID", {F7C("RDPID", 22)}, 0},
    {"KEYLOCKER", {F7C("KEYLOCKER", 23)}, 0},
    {"KEYLOCKER_WIDE", {F7C("KEYLOCKER", 23)}, 0},
    {"CLDEMOTE", {F7C("CLDEMOTE", 25)}, 0},
    {"MOVDIR", {F7C("MOVDIRI", 27)}, 0},
    {"ENQCMD", {F7C("ENQCMD", 29)}, 0},
    {"UINTR", {F7D("UINTR", 5)}, 0},
    {"SERIALIZE", {F7D("SERIALIZE", 14)}, 0},
    {"TSX_LDTRK", {F7D("TSXLDTRK", 16)}, 0},
    {"HRESET", {B1("HRESET", 7, 1, EAX, 22)}, 0},
    {"XSAVE", {F1C("XSAVE", 26)}, 0},
    {"XSAVEOPT", {B1("XSAVEOPT", 0xD, 1, EAX, 0)}, 0},
    {"XSAVEC", {B1("XSAVEC", 0xD, 1, EAX, 1)}, 0},
    {"RDTSCP", {B1("RDTSCP", 0x80000001, 0, EDX, 27)}, 0},
    {"MONITORX", {FXC("MONITORX", 29)}, 0},
    {"AMD3DNOW", {B1("3DNow!", 0x80000001, 0, EDX, 31)}, 0},
    {"CLZERO", {B1("CLZERO", 0x80000008, 0, EBX, 0)}, 0},
    {"RDPRU", {B1("RDPRU", 0x80000008, 0, EBX, 4)}, 0},
    {"MCOMMIT", {B1("MCOMMIT", 0x80000008, 0, EBX, 8)}, 0},
};

static const isa_bit avx512vl = F7B("AVX512VL", 31);

static bool set_matches(const char *pattern, const char *set)
{
    size_t n = strlen(pattern);
    if (n && pattern[n - 1] == '_')
        return strncmp(set, pattern, n) == 0;
    return strcmp(set, pattern) == 0;
}

/* Whether CPUID reports the bit; a leaf above the maximum reports nothing. */
static bool cpuid_has(cpuid_fn fn, const isa_bit *b)
{
    uint32_t r[4];
    fn(b->leaf & 0x80000000u, 0, r);
    uint32_t max = r[EAX];
    if ((b->leaf & 0x80000000u) && (max & 0xFFFF0000u) != 0x80000000u)
        return false;
    if (b->leaf > max)
        return false;
    fn(b->leaf, b->sub, r);
    return bit(r[b->reg], b->bit);
}

cpu_isa_state cpu_isa_status_with(cpuid_fn fn, uint64_t xcr0, const char *isa_set,
                                  char *feature, size_t len)
{
    if (len)
        feature[0] = 0;
    if (!isa_set)
        return CPU_ISA_UNKNOWN;
    const isa_need *e = NULL;
    for (size_t i = 0; i < sizeof isa_table / sizeof isa_table[0] && !e; i++)
        if (set_matches(isa_table[i].set, isa_set))
            e = &isa_table[i];
    if (!e)
        return CPU_ISA_UNKNOWN;
    const isa_bit *need[3];
    size_t n = 0;
    for (size_t k = 0; k < 2; k++)
        if (e->need[k].name)
            need[n++] = &e->need[k];
    size_t sl = strlen(isa_set);
    if (strncmp(isa_set, "AVX512", 6) == 0 &&
        ((sl > 4 && strcmp(isa_set + sl - 4, "_128") == 0) ||
         (sl > 4 && strcmp(isa_set + sl - 4, "_256") == 0)))
        need[n++] = &avx512vl;
    for (size_t k = 0; k < n && len; k++) {
        size_t used = strlen(feature);
        snprintf(feature + used, len - used, "%s%s",
                 k == 0 ? "" : k + 1 == n ? " and " : ", ", need[k]->name);
    }
    for (size_t k = 0; k < n; k++)
        if (!cpuid_has(fn, need[k]))
            return CPU_ISA_MISSING;
    if ((xcr0 & e->xcr0) != e->xcr0)
        return CPU_ISA_OS_OFF;
    return CPU_ISA_OK;
}

cpu_isa_state cpu_isa_status(const char *isa_set, char *feature, size_t len)
{
    uint32_t r[4];
    uint64_t xcr0 = 0;
    cpu_cpuid(1, 0, r);
    if (bit(r[ECX], 27)) {   /* OSXSAVE: XGETBV may be used */
        uint32_t lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        xcr0 = (uint64_t)hi << 32 | lo;
    }
    return cpu_isa_status_with(cpu_cpuid, xcr0, isa_set, feature, len);
}

size_t cpu_llc_bytes(const char **source)
{
    uint32_t r[4], max_ext;
    size_t best = 0;
    cpu_cpuid(0x80000000, 0, r);
    max_ext = r[0];
    /* Deterministic cache parameters: Intel leaf 4, AMD 0x8000001D (only
     * valid with TOPOEXT); same layout in both. */
    unsigned leaves[2] = { 4, 0x8000001D };
    const char *names[2] = { "cpuid 4", "cpuid 0x8000001d" };
    for (int l = 0; l < 2; l++) {
        unsigned leaf = leaves[l];
        if (leaf >= 0x80000000u) {
            if (max_ext < leaf)
                continue;
            cpu_cpuid(0x80000001, 0, r);
            if (!(r[2] & (1u << 22)))
                continue;
        } else {
            cpu_cpuid(0, 0, r);
            if (r[0] < leaf)
                continue;
        }
        for (unsigned i = 0; i < 16; i++) {
            cpu_cpuid(leaf, i, r);
            uint32_t b = r[1], c = r[2];
            unsigned type = r[0] & 31;
            if (type == 0)
                break;
            if (type == 2)   /* instruction cache */
                continue;
            size_t sz = (size_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) *
                        ((b & 0xfff) + 1) * ((size_t)c + 1);
            if (sz > best) {
                best = sz;
                *source = names[l];
            }
        }
        if (best)
            return best;
    }
    /* AMD's older leaf: L3 size in 512 KiB units in EDX[31:18]. */
    if (max_ext >= 0x80000006) {
        cpu_cpuid(0x80000006, 0, r);
        size_t l3 = (size_t)(r[3] >> 18) * 512 * 1024;
        size_t l2 = (size_t)(r[2] >> 16) * 1024;
        best = l3 > l2 ? l3 : l2;
        if (best)
            *source = "cpuid 0x80000006";
    }
    return best;
}
