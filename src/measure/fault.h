/* nb fault: what the measuring child records when the benchmark code faults,
 * makes a system call or is stopped at -timeout, and the one line the parent
 * reports it with.
 *
 * The child's handlers (trap.c) fill a fault_record in the shared mapping:
 * signal, si_code, the CPU's exception vector and error code, the faulting
 * address, every general-purpose register, up to 16 bytes of the code at the
 * faulting instruction as it was executed, the two stack slots around RSP,
 * and where the program that was running and nb's memory areas lie.
 * fault_describe() turns that into text, e.g.
 *
 *   the benchmark code raised SIGSEGV (read of unmapped address 0x0: a null
 *   pointer) at +0x3 (mov rax, [rbx]) in -asm, copy 1 of 1000
 *
 * What is said for each kind (see fault.c for the rules): the signal and what
 * the CPU objected to, decoded with Zydis and the registers (null / wild /
 * unmapped / read-only address, stack overflow into a guard page, a jump
 * into memory that is not executable and the branch that made it, a
 * privileged or I/O instruction, a misaligned or non-canonical operand,
 * division by zero or overflow, an instruction this CPU lacks with the CPUID
 * feature it needs, breakpoints, alignment checks), a system call by name,
 * or where a run that hit -timeout was stopped; then the place: the
 * fragment (-asm, -asm_init, ...), the offset in it, the instruction there,
 * and for the benchmarked code which copy. */
#ifndef NB_FAULT_H
#define NB_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/fragment.h"
#include "sys/cpu.h"

#define FAULT_INSN_BYTES 16
#define FAULT_MAX_AREAS 5

/* Registers in encoding order (RSP = 4), then RIP and RFLAGS. */
enum {
    FAULT_RAX, FAULT_RCX, FAULT_RDX, FAULT_RBX, FAULT_RSP, FAULT_RBP, FAULT_RSI, FAULT_RDI,
    FAULT_R8, FAULT_R9, FAULT_R10, FAULT_R11, FAULT_R12, FAULT_R13, FAULT_R14, FAULT_R15,
    FAULT_RIP, FAULT_RFLAGS, FAULT_NREG
};

/* Which generated program was running. */
typedef enum {
    FAULT_PROG_NONE,       /* none: nb's own code */
    FAULT_PROG_ONE_TIME,   /* -asm_one_time_init's program */
    FAULT_PROG_MEASURE,    /* init, late init and the copies of the code */
    FAULT_PROG_CAL,        /* nb's TSC calibration */
} fault_prog;

/* A generated program, as offsets from its base (codegen.h). */
typedef struct fault_layout {
    uint64_t base;
    size_t code_len, map_len;
    size_t init_off, init_len, late_init_off, late_init_len;
    size_t copies_off, copy_stride, copies_end, n_copies;
} fault_layout;

/* One of the memory areas the registers point into, with the guard pages
 * (no access) nb puts on both sides of it. */
typedef struct fault_area {
    char name[8];          /* "R14", "RDI", ... */
    uint64_t start, size, guard;
} fault_area;

typedef struct fault_record {
    int signo;             /* 0: nothing recorded */
    int code;              /* si_code */
    bool stopped;          /* stopped by nb at -timeout (signo is nb's stop signal) */
    bool code_ran;         /* benchmark code ran in this run before the signal */
    int trapno;            /* exception vector (14 #PF, 13 #GP, 6 #UD, ...) */
    uint64_t err;          /* its error code (#PF: bit 1 write, bit 4 fetch) */
    uint64_t addr;         /* si_addr */
    bool addr_readable;    /* one byte there could be read (a write to it: read-only) */
    long sys_nr;           /* SIGSYS: the call and its ABI */
    uint32_t sys_arch;
    uint64_t reg[FAULT_NREG];
    uint64_t insn_addr;    /* the faulting instruction (int3, syscall: rewound to it) */
    uint8_t insn[FAULT_INSN_BYTES];
    size_t n_insn;         /* bytes readable there */
    uint64_t at_rsp, below_rsp;   /* [RSP] and [RSP - 8] */
    bool at_rsp_ok, below_rsp_ok;
    fault_prog prog;
    fault_layout lay;      /* the program that was running */
    fault_area area[FAULT_MAX_AREAS];
    size_t n_area;
} fault_record;

/* The bytes of one code fragment and the option it came from. */
typedef nb_fragment fault_fragment;   /* see harness/fragment.h */

typedef struct fault_context {
    fault_fragment code, init, late_init, one_time_init;
    double timeout;        /* -timeout, for the message */
    /* What the CPU supports; NULL: cpu_isa_status (this CPU). */
    cpu_isa_state (*isa_status)(const char *isa_set, char *feature, size_t len);
} fault_context;

/* The report, without "nb: " and without a newline. */
void fault_describe(const fault_record *r, const fault_context *c, char *buf, size_t len);

/* "SIGSEGV", ... ("signal N" for others; buf holds that text). */
const char *fault_signal_name(int sig, char *buf, size_t len);

#endif
