/* nb cpu: what CPUID says about the processor nb runs on.
 *
 * Every CPUID read goes through a cpuid_fn so tests can feed recorded values
 * for any CPU (cpu_detect_with). */
#ifndef NB_CPU_H
#define NB_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { CPU_VENDOR_UNKNOWN, CPU_VENDOR_INTEL, CPU_VENDOR_AMD } cpu_vendor;

/* Hybrid core type from CPUID leaf 0x1A (Intel). */
typedef enum { CPU_CORE_ANY = 0, CPU_CORE_ATOM = 0x20, CPU_CORE_CORE = 0x40 } cpu_core_type;

typedef void (*cpuid_fn)(uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);

typedef struct cpu_info {
    cpu_vendor vendor;
    char vendor_string[13];
    char brand[49];
    unsigned family, model, stepping;   /* display family/model */
    bool hybrid;
    cpu_core_type core_type;            /* of the CPU this was read on */
    unsigned pmu_version;               /* Intel leaf 0xA; AMD: 2 if PerfMonV2 */
    unsigned n_gp_counters, gp_counter_width;
    unsigned n_fixed_counters, fixed_counter_width;
    bool has_topdown_slots;
    bool has_rdtscp, has_invariant_tsc;
    bool has_avx, has_avx2, has_avx512f;
    bool has_bmi2, has_amx_tile;        /* CPUID.7.0:EBX[8], EDX[24] */
    bool hypervisor;
} cpu_info;

/* The real CPUID instruction. */
void cpu_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);

/* The largest data or unified cache CPUID describes (Intel leaf 4, AMD
 * 0x8000001D with TOPOEXT, else AMD's 0x80000006), in bytes, 0 if none;
 * *source names the leaf it came from. */
size_t cpu_llc_bytes(const char **source);

void cpu_detect_with(cpuid_fn fn, cpu_info *out);
static inline void cpu_detect(cpu_info *out) { cpu_detect_with(cpu_cpuid, out); }

const char *cpu_vendor_name(cpu_vendor v);

/* Can this CPU run instructions of an ISA set (named as Zydis names them:
 * "AVX2", "AVX512F_512", "AMX_TILE", "SSE4A", ...)?  CPU_ISA_MISSING: CPUID
 * says the CPU lacks the feature; CPU_ISA_OS_OFF: it has it, but the OS has
 * not enabled its register state (XCR0); CPU_ISA_UNKNOWN: nb has no CPUID
 * bit for that set.  `feature` receives what is needed, e.g. "AMX-TILE" or
 * "AVX512F and AVX512VL" (empty when unknown). */
typedef enum { CPU_ISA_UNKNOWN, CPU_ISA_OK, CPU_ISA_MISSING, CPU_ISA_OS_OFF } cpu_isa_state;

/* xcr0: the XCR0 value to check the register state against. */
cpu_isa_state cpu_isa_status_with(cpuid_fn fn, uint64_t xcr0, const char *isa_set,
                                  char *feature, size_t len);
/* This CPU (CPUID) and OS (XGETBV, where the OS enabled it). */
cpu_isa_state cpu_isa_status(const char *isa_set, char *feature, size_t len);

#endif
