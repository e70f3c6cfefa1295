/* Tests for src/cpu.c: CPUID leaves of real parts fed through a fake
 * cpuid_fn, one fact asserted at a time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sys/cpu.h"

typedef struct {
    uint32_t leaf, sub;
    uint32_t r[4];
} leafval;

#define MAXL 32
static leafval g_tbl[MAXL];
static size_t g_n;
static unsigned g_asked_beyond_max;   /* leaves asked for that the CPU does not report */

static void fake_cpuid(uint32_t leaf, uint32_t sub, uint32_t regs[4])
{
    uint32_t max_basic = 0, max_ext = 0;
    for (size_t i = 0; i < g_n; i++) {
        if (g_tbl[i].leaf == 0)
            max_basic = g_tbl[i].r[0];
        if (g_tbl[i].leaf == 0x80000000)
            max_ext = g_tbl[i].r[0];
    }
    if (leaf != 0x80000000 && leaf > (leaf >= 0x80000000 ? max_ext : max_basic))
        g_asked_beyond_max++;
    for (size_t i = 0; i < g_n; i++)
        if (g_tbl[i].leaf == leaf && g_tbl[i].sub == sub) {
            memcpy(regs, g_tbl[i].r, 16);
            return;
        }
    memset(regs, 0, 16);
}

static void put(uint32_t leaf, uint32_t sub, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    assert_true(g_n < MAXL);
    g_tbl[g_n++] = (leafval){leaf, sub, {a, b, c, d}};
}

static void put_vendor(uint32_t max, const char *v)
{
    uint32_t b, d, c;
    memcpy(&b, v, 4);
    memcpy(&d, v + 4, 4);
    memcpy(&c, v + 8, 4);
    put(0, 0, max, b, c, d);
}

static void put_brand(const char *s)
{
    char buf[48] = {0};
    memcpy(buf, s, strlen(s) < sizeof buf ? strlen(s) : sizeof buf);
    for (unsigned i = 0; i < 3; i++) {
        uint32_t r[4];
        memcpy(r, buf + 16 * i, 16);
        put(0x80000002 + i, 0, r[0], r[1], r[2], r[3]);
    }
}

static void reset(void)
{
    g_n = 0;
    g_asked_beyond_max = 0;
}

/* Skylake-SP (Xeon Gold), family 6 model 0x55 stepping 4. */
static void load_skylake_x(void)
{
    reset();
    put_vendor(0x16, "GenuineIntel");
    put(1, 0, 0x00050654, 0, (1u << 28), 0);
    put(7, 0, 0, (1u << 5) | (1u << 16), 0, 0);
    put(0xA, 0, 0x07300404, 0, 0, 0x00000603);
    put(0x80000000, 0, 0x80000008, 0, 0, 0);
    put(0x80000001, 0, 0, 0, 0x121, (1u << 27));
    put_brand("Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz");
    put(0x80000007, 0, 0, 0, 0, (1u << 8));
}

/* Alder Lake, family 6 model 0x97; core_type selects the P or E core view. */
static void load_alder_lake(unsigned core_type)
{
    reset();
    put_vendor(0x20, "GenuineIntel");
    put(1, 0, 0x00090672, 0, (1u << 28), 0);
    put(7, 0, 0, (1u << 5), 0, (1u << 15));
    put(0x1A, 0, (core_type << 24) | 1, 0, 0, 0);
    if (core_type == 0x40)
        put(0xA, 0, 0x08300805, 0, 0x0F, 0x00008604);
    else
        put(0xA, 0, 0x07300605, 0, 0x07, 0x00008603);
    put(0x80000000, 0, 0x80000008, 0, 0, 0);
    put(0x80000001, 0, 0, 0, 0, (1u << 27));
    put(0x80000007, 0, 0, 0, 0, (1u << 8));
}

/* Zen 4 (Genoa), family 0x19 model 0x11 / Raphael 0x61, with PerfMonV2. */
static void load_zen4(void)
{
    reset();
    put_vendor(0x10, "AuthenticAMD");
    put(1, 0, 0x00A60F12, 0, (1u << 28) | (1u << 31), 0);
    put(7, 0, 0, (1u << 5) | (1u << 16), 0, 0);
    put(0x80000000, 0, 0x80000028, 0, 0, 0);
    put(0x80000001, 0, 0, 0, (1u << 23), (1u << 27));
    put_brand("AMD Ryzen 9 7950X 16-Core Processor            ");
    put(0x80000007, 0, 0, 0, 0, (1u << 8));
    put(0x80000022, 0, 0x7, 0x00000106, 0, 0);
}

/* Zen 2, family 0x17 model 0x31: six core counters, no PerfMonV2 leaf. */
static void load_zen2(bool ext_core)
{
    reset();
    put_vendor(0x10, "AuthenticAMD");
    put(1, 0, 0x00830F10, 0, (1u << 28), 0);
    put(7, 0, 0, (1u << 5), 0, 0);
    put(0x80000000, 0, 0x80000020, 0, 0, 0);
    put(0x80000001, 0, 0, 0, ext_core ? (1u << 23) : 0, (1u << 27));
}

/* A hypervisor that hides the Intel PMU: leaf 0xA is all zero. */
static void load_intel_vm_nopmu(void)
{
    reset();
    put_vendor(0xD, "GenuineIntel");
    put(1, 0, 0x000806EC, 0, (1u << 31), 0);
    put(0xA, 0, 0, 0, 0, 0);
    put(0x80000000, 0, 0x80000001, 0, 0, 0);
    put(0x80000001, 0, 0, 0, 0, 0);
}

static void test_skylake_signature(void **st)
{
    (void)st;
    cpu_info ci;
    load_skylake_x();
    cpu_detect_with(fake_cpuid, &ci);
    assert_int_equal(ci.vendor, CPU_VENDOR_INTEL);
    assert_string_equal(ci.vendor_string, "GenuineIntel");
    assert_int_equal(ci.family, 6);
    assert_int_equal(ci.model, 0x55);
    assert_int_equal(ci.stepping, 4);
    assert_string_equal(ci.brand, "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz");
    assert_false(ci.hybrid);
    assert_int_equal(ci.core_type, CPU_CORE_ANY);
    assert_false(ci.hypervisor);
    assert_int_equal(g_asked_beyond_max, 0);
}

static void test_skylake_pmu(void **st)
{
    (void)st;
    cpu_info ci;
    load_skylake_x();
    cpu_detect_with(fake_cpuid, &ci);
    assert_int_equal(ci.pmu_version, 4);
    assert_int_equal(ci.n_gp_counters, 4);
    assert_int_equal(ci.gp_counter_width, 48);
    assert_int_equal(ci.n_fixed_counters, 3);
    assert_int_equal(ci.fixed_counter_width, 48);
    assert_false(ci.has_topdown_slots);
}

static void test_skylake_features(void **st)
{
    (void)st;
    cpu_info ci;
    load_skylake_x();
    cpu_detect_with(fake_cpuid, &ci);
    assert_true(ci.has_avx);
    assert_true(ci.has_avx2);
    assert_true(ci.has_avx512f);
    assert_false(ci.has_bmi2);        /* not in this table's leaf 7 */
    assert_false(ci.has_amx_tile);
    assert_true(ci.has_rdtscp);
    assert_true(ci.has_invariant_tsc);
}

static void test_alder_lake_p_core(void **st)
{
    (void)st;
    cpu_info ci;
    load_alder_lake(0x40);
    cpu_detect_with(fake_cpuid, &ci);
    assert_int_equal(ci.model, 0x97);
    assert_true(ci.hybrid);
    assert_int_equal(ci.core_type, CPU_CORE_CORE);
    assert_int_equal(ci.pmu_version, 5);
    assert_int_equal(ci.n_gp_counters, 8);
    assert_int_equal(ci.n_fixed_counters, 4);
    assert_true(ci.has_topdown_slots);
    assert_false(ci.has_avx512f);
}

static void test_alder_lake_e_core(void **st)
{
    (void)st;
    cpu_info ci;
    load_alder_lake(0x20);
    cpu_detect_with(fake_cpuid, &ci);
    assert_true(ci.hybrid);
    assert_int_equal(ci.core_type, CPU_CORE_ATOM);
    assert_int_equal(ci.n_gp_counters, 6);
    assert_int_equal(ci.n_fixed_counters, 3);
    assert_false(ci.has_topdown_slots);
}

static void test_zen4(void **st)
{
    (void)st;
    cpu_info ci;
    load_zen4();
    cpu_detect_with(fake_cpuid, &ci);
    assert_int_equal(ci.vendor, CPU_VENDOR_AMD);
    assert_int_equal(ci.family, 0x19);
    assert_int_equal(ci.model, 0x61);
    assert_int_equal(ci.stepping, 2);
    assert_string_equal(ci.brand, "AMD Ryzen 9 7950X 16-Core Processor");
    assert_int_equal(ci.pmu_version, 2);
    assert_int_equal(ci.n_gp_counters, 6);
    assert_int_equal(ci.gp_counter_width, 48);
    assert_int_equal(ci.n_fixed_counters, 0);
    assert_true(ci.hypervisor);
    assert_true(ci.has_avx512f);
    assert_false(ci.hybrid);
    assert_int_equal(g_asked_beyond_max, 0);
}

static void test_zen2_ext_core(void **st)
{
    (void)st;
    cpu_info ci;
    load_zen2(true);
    cpu_detect_with(fake_cpuid, &ci);
    assert_int_equal(ci.family, 0x17);
    assert_int_equal(ci.model, 0x31);
    assert_int_equal(ci.pmu_version, 1);
    assert_int_equal(ci.n_gp_counters, 6);
    assert_false(ci.has_invariant_tsc);
    /* 0x80000022 is above this part's maximum: never asked. */
    assert_int_equal(g_asked_beyond_max, 0);
}

static void test_amd_legacy_counters(void **st)
{
    (void)st;
    cpu_info ci;
    load_zen2(false);
    cpu_detect_with(fake_cpuid, &ci);
    assert_int_equal(ci.n_gp_counters, 4);
}

static void test_intel_vm_without_pmu(void **st)
{
    (void)st;
    cpu_info ci;
    load_intel_vm_nopmu();
    cpu_detect_with(fake_cpuid, &ci);
    assert_true(ci.hypervisor);
    assert_int_equal(ci.pmu_version, 0);
    assert_int_equal(ci.n_gp_counters, 0);
    assert_int_equal(ci.n_fixed_counters, 0);
    assert_string_equal(ci.brand, "");
    assert_int_equal(ci.model, 0x8E);
}

static void test_unknown_vendor(void **st)
{
    (void)st;
    cpu_info ci;
    reset();
    put_vendor(1, "CentaurHauls");
    put(1, 0, 0x000006F2, 0, 0, 0);
    cpu_detect_with(fake_cpuid, &ci);
    assert_int_equal(ci.vendor, CPU_VENDOR_UNKNOWN);
    assert_string_equal(cpu_vendor_name(ci.vendor), "unknown");
    assert_int_equal(ci.n_gp_counters, 0);
}

/* Recorded with CPUID on real machines (leaf: eax ebx ecx edx). */
static void load_recorded(const uint32_t (*rows)[5], size_t n)
{
    reset();
    for (size_t i = 0; i < n; i++)
        put(rows[i][0], 0, rows[i][1], rows[i][2], rows[i][3], rows[i][4]);
}

/* An Emerald Rapids (model 0xCF) guest whose hypervisor hides the PMU (leaf 0xA zero). */
static const uint32_t spr_vm[][5] = {
    {0x00000000, 0x00000020, 0x756e6547, 0x6c65746e, 0x49656e69},
    {0x00000001, 0x000c06f2, 0x06100800, 0xfffa3203, 0x1f8bfbff},
    {0x00000007, 0x00000002, 0xf1bf27eb, 0x1b415fde, 0xbfd14410},
    {0x0000000a, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x0000001a, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x80000000, 0x80000008, 0x00000000, 0x00000000, 0x00000000},
    {0x80000001, 0x00000000, 0x00000000, 0x00000121, 0x2c100800},
    {0x80000002, 0x65746e49, 0x2952286c, 0x6f655820, 0x2952286e},
    {0x80000003, 0x6f725020, 0x73736563, 0x0000726f, 0x00000000},
    {0x80000004, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x80000007, 0x00000000, 0x00000000, 0x00000000, 0x00000100},
};

/* The development VM: a Zen 5 (Turin) guest, 4 legacy counters reported. */
static const uint32_t zen5_vm[][5] = {
    {0x00000000, 0x0000000d, 0x68747541, 0x444d4163, 0x69746e65},
    {0x00000001, 0x00b00f21, 0x87fe0800, 0xfed83203, 0x178bfbff},
    {0x00000007, 0x00000001, 0xf1bb03a9, 0x18005f42, 0x00000110},
    {0x80000000, 0x80000021, 0x68747541, 0x444d4163, 0x69746e65},
    {0x80000001, 0x00b00f21, 0x40000000, 0x440001f1, 0x25d3fbff},
    {0x80000002, 0x6469784f, 0x69562065, 0x61757472, 0x7554206c},
    {0x80000003, 0x2d6e6972, 0x656b696c, 0x6f725020, 0x73736563},
    {0x80000004, 0x2020726f, 0x20202020, 0x20202020, 0x00202020},
    {0x80000007, 0x00000000, 0x00000000, 0x00000000, 0x00000100},
};

static void test_recorded_emerald_rapids_vm(void **st)
{
    (void)st;
    cpu_info ci;
    load_recorded(spr_vm, sizeof spr_vm / sizeof spr_vm[0]);
    cpu_detect_with(fake_cpuid, &ci);
    assert_int_equal(ci.vendor, CPU_VENDOR_INTEL);
    assert_int_equal(ci.family, 6);
    assert_int_equal(ci.model, 0xCF);   /* Emerald Rapids */
    assert_int_equal(ci.stepping, 2);
    assert_string_equal(ci.brand, "Intel(R) Xeon(R) Processor");
    assert_false(ci.hybrid);
    assert_true(ci.hypervisor);
    assert_int_equal(ci.pmu_version, 0);
    assert_int_equal(ci.n_gp_counters, 0);
    assert_true(ci.has_avx512f);
    assert_true(ci.has_rdtscp);
    assert_true(ci.has_invariant_tsc);
    assert_true(ci.has_bmi2);
    assert_true(ci.has_amx_tile);     /* CPUID.7.0:EDX[24] */
    assert_int_equal(g_asked_beyond_max, 0);
}

static void test_recorded_zen5_vm(void **st)
{
    (void)st;
    cpu_info ci;
    load_recorded(zen5_vm, sizeof zen5_vm / sizeof zen5_vm[0]);
    cpu_detect_with(fake_cpuid, &ci);
    assert_int_equal(ci.vendor, CPU_VENDOR_AMD);
    assert_int_equal(ci.family, 0x1A);
    assert_int_equal(ci.model, 0x02);
    assert_int_equal(ci.stepping, 1);
    assert_string_equal(ci.brand, "Oxide Virtual Turin-like Processor");
    assert_true(ci.hypervisor);
    assert_int_equal(ci.pmu_version, 1);   /* no 0x80000022: PerfMonV2 not shown */
    assert_int_equal(ci.n_gp_counters, 4); /* PerfCtrExtCore hidden by the VM */
    assert_true(ci.has_avx512f);
    assert_true(ci.has_bmi2);
    assert_false(ci.has_amx_tile);
    assert_int_equal(g_asked_beyond_max, 0);
}

/* The real instruction on this machine: whatever it is, the vendor string
 * is 12 printable characters and leaf 0 answers. */
static void test_real_cpuid(void **st)
{
    (void)st;
    cpu_info ci;
    cpu_detect(&ci);
    assert_int_equal(strlen(ci.vendor_string), 12);
    assert_true(ci.family > 0);
}

/* Which CPUID bit an ISA set needs, for SIGILL reports: the Skylake-X
 * table above has AVX, AVX2 and AVX512F, but not AVX512VL, AMX or SSE4A. */
static void test_isa_status(void **st)
{
    (void)st;
    load_skylake_x();
    char need[96];
    uint64_t all = 0xE7;   /* x87, SSE, AVX, AVX-512 state enabled */
    assert_int_equal(cpu_isa_status_with(fake_cpuid, all, "AVX512F_512", need, sizeof need),
                     CPU_ISA_OK);
    assert_string_equal(need, "AVX512F");
    assert_int_equal(cpu_isa_status_with(fake_cpuid, all, "AVX512F_256", need, sizeof need),
                     CPU_ISA_MISSING);
    assert_string_equal(need, "AVX512F and AVX512VL");
    assert_int_equal(cpu_isa_status_with(fake_cpuid, all, "AVX2", need, sizeof need), CPU_ISA_OK);
    assert_int_equal(cpu_isa_status_with(fake_cpuid, all, "AMX_TILE", need, sizeof need),
                     CPU_ISA_MISSING);
    assert_string_equal(need, "AMX-TILE");
    /* no extended leaves in this table: SSE4A (0x80000001) reads as absent */
    assert_int_equal(cpu_isa_status_with(fake_cpuid, all, "SSE4A", need, sizeof need),
                     CPU_ISA_MISSING);
    assert_string_equal(need, "SSE4A");
    /* the CPU has AVX-512 but the OS did not enable its state */
    assert_int_equal(cpu_isa_status_with(fake_cpuid, 0x7, "AVX512F_512", need, sizeof need),
                     CPU_ISA_OS_OFF);
    assert_int_equal(cpu_isa_status_with(fake_cpuid, all, "I86", need, sizeof need),
                     CPU_ISA_UNKNOWN);
    assert_string_equal(need, "");
    assert_int_equal(g_asked_beyond_max, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isa_status),
        cmocka_unit_test(test_skylake_signature),
        cmocka_unit_test(test_skylake_pmu),
        cmocka_unit_test(test_skylake_features),
        cmocka_unit_test(test_alder_lake_p_core),
        cmocka_unit_test(test_alder_lake_e_core),
        cmocka_unit_test(test_zen4),
        cmocka_unit_test(test_zen2_ext_core),
        cmocka_unit_test(test_amd_legacy_counters),
        cmocka_unit_test(test_intel_vm_without_pmu),
        cmocka_unit_test(test_unknown_vendor),
        cmocka_unit_test(test_recorded_emerald_rapids_vm),
        cmocka_unit_test(test_recorded_zen5_vm),
        cmocka_unit_test(test_real_cpuid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
