/* Folder harness/: the code nb generates around the benchmark, as
 * nanoBench generates it: the four code fragments (fragment.h), the
 * measurement program built from them (this header), and the check that
 * the benchmark leaves alone the registers the program keeps state in
 * (check.h).  It builds programs; running them is measure/'s.
 *
 * nb codegen: the generated measurement function (nanoBench's "Generated Code").
 *
 * codegen_build() writes one executable program into its own RWX mapping:
 *
 *   prologue   push the callee-saved GPRs and the flags, save MXCSR, the x87
 *              control word and RSP in the program's data block; then every
 *              register nb does not reserve starts from a stated value:
 *              R14/RDI/RSI/RBP/RSP = their memory areas (codegen_params: the
 *              measuring process gives R14 its area's start, the others their middles),
 *              every other GPR = 0; XMM0-15 = 0 (with AVX: vzeroall, so
 *              YMM/ZMM0-15 = 0); with AVX-512 ZMM16-31 = 0 and k0-k7 = 0;
 *              MXCSR = 0x1F80 and the x87 unit as FNINIT leaves it (control
 *              word 0x037F, empty stack), their defaults
 *   code_init  [mov r15, loop_count]  [-df: lfence, 189 NOP1, 64 NOP15]
 *              alignment NOPs (first copy on a 64-byte boundary + offset)
 *   m1         read every counter into data.m1[] (memory mode: RAX/RCX/RDX
 *              are parked in the data block and put back, flags untouched;
 *              -no_mem, as nanoBench: distinct counters go to R8..R13 (up to
 *              six, reserved on every vendor); RAX, RCX, RDX are parked in
 *              the data block before the reads and put back after them; the
 *              flags are kept where the CPU has BMI2 (rorx), else clobbered)
 *   code_late_init  [-df: 64 NOP15]
 *   copies of the code     [dec r15; jnz]
 *              [-df: lfence, 61 NOP15, NOPs to a 32-byte boundary]   [int3 with -debug]
 *   m2         read every counter into data.m2[] (-no_mem: each difference
 *              from m1 into its register, no memory touched until the last
 *              read; then m1[] = 0 and m2[] = the differences)
 *   epilogue   restore RSP, the x87 control word, MXCSR, flags, GPRs; ret
 *
 * The program is called as void fn(void) from C.  The data block lives in the
 * same mapping, right after the code, so every access is RIP-relative and
 * needs no register.  With -no_mem, the magic 8-byte sequences
 * CODEGEN_MAGIC_STOP / CODEGEN_MAGIC_START (little-endian, as `.quad` puts
 * them) found in the code are replaced by code that subtracts / adds the
 * current counter values from R8-R13, so the paused stretch is left out of
 * the result; like nanoBench's, that code writes RAX, RCX and RDX.
 *
 * The caller owns the program and frees it with codegen_free(). */
#ifndef NB_CODEGEN_H
#define NB_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/read.h"
#include "sys/error.h"

#define CODEGEN_MAX_CTR PMU_MAX_GROUP_CTR /* counters read by one program */
#define CODEGEN_NO_MEM_MAX_CTR 6        /* distinct reads in R8..R13 (-no_mem) */
#define CODEGEN_MAX_BYTES (512u << 20)  /* refuse programs larger than this */
#define CODEGEN_MAGIC_STOP  UINT64_C(0xF0B513B1C2813F04)
#define CODEGEN_MAGIC_START UINT64_C(0xE0B513B1C2813F04)

/* One counter read: how and, for rdpmc, which. */
typedef struct codegen_read {
    pmu_read_kind kind;
    uint32_t ecx;
} codegen_read;

typedef struct codegen_params {
    const uint8_t *code, *init, *late_init;
    size_t code_len, init_len, late_init_len;
    size_t copies;               /* local unroll count; 0 is allowed */
    long loop_count;             /* 0: no loop */
    long alignment_offset;       /* NOP bytes after the 64-byte boundary */
    bool no_mem, df, debug;
    bool bmi2;                   /* rorx available: -no_mem keeps the flags */
    const codegen_read *reads;   /* counters, in slot order */
    size_t n_reads;
    uint64_t r14, rdi, rsi, rbp, rsp;   /* initial register values */
    bool avx, avx512;            /* vector state to clear: YMM / ZMM16-31, k0-k7 */
} codegen_params;

/* Written and read by the program; the measuring process reads m1/m2 after each call. */
typedef struct codegen_data {
    uint64_t saved_rsp, tmp_rax, tmp_rcx, tmp_rdx;
    uint32_t mxcsr, fcw;
    uint64_t m1[CODEGEN_MAX_CTR], m2[CODEGEN_MAX_CTR];
    uint32_t mxcsr_init;         /* 0x1F80, loaded by the prologue */
} codegen_data;

typedef struct codegen_prog {
    uint8_t *base;               /* start of the mapping = entry point */
    size_t map_len;
    size_t code_len;             /* bytes of generated code */
    codegen_data *data;
    /* Where things landed, for fault reports (offsets from base). */
    size_t init_off, late_init_off, copies_off, copy_stride, copies_end;
    size_t n_copies;
    size_t epilogue_off;         /* where RSP, the control words, flags and
                                    registers are restored and it returns */
} codegen_prog;

/* Generate.  Returns 0, NB_EINPUT with a message naming the limit when the
 * program would not fit, or NB_ENOMEM/NB_ESYSTEM; the message in *err. */
int codegen_build(const codegen_params *p, codegen_prog *out, nb_error *err);

/* Bytes codegen_build would emit for the copies alone (for size checks). */
size_t codegen_copy_len(const codegen_params *p);

static inline void codegen_call(const codegen_prog *pr)
{
    /* Only built programs are called.  clang-tidy 14's analyzer takes the
     * program copied into an array in an initializer (pmu/tsc_method.c, cal_build's
     * cal_progs one/two) for zeroed and reports a call through NULL here.
     * NOLINTNEXTLINE(clang-analyzer-core.CallAndMessage) */
    ((void (*)(void))(void *)pr->base)();
}

void codegen_free(codegen_prog *pr);

#endif
