/* Folder asm/: the assembler.  Text in, bytes and a statement map out;
 * nothing else in nb parses assembly or calls Zydis's encoder, and nothing
 * here knows about benchmarks (-asm's fragments, counters, the harness).
 *
 * nb assembler: Intel-syntax text (GNU as `.intel_syntax noprefix` dialect,
 * plus nanoBench's `|n` NOPs and `n*|x|` repetition) to x86-64 machine code,
 * in-process, with the Zydis encoder.
 *
 * This header is the module's contract; asm_internal.h holds the hand-offs
 * between its stages: lexer.c (text -> tokens), parser.c (tokens ->
 * statements), encoder.c with encoder_*.c (statement -> Zydis request ->
 * bytes; the only files that use Zydis's encoder, through encoder.h),
 * layout.c (labels, branch sizing, alignment), driven by driver.c; names.c
 * holds the mnemonic and register names, nops.c the NOPs, diag.c the
 * errors; disasm.c formats bytes back to text for -print_code and fault
 * reports, and counts the instructions in them (the tsc method's
 * front-end-bound test).
 *
 * Ownership: asm_assemble() fills an asm_code whose arrays the caller frees
 * with asm_code_free(); on error it frees everything it allocated and fills
 * the caller's nb_error.  Not thread-safe: the name tables and a memo of encoding
 * choices are process-wide, built on first use. */
#ifndef NB_ASM_H
#define NB_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sys/error.h"

/* One source statement and where its bytes landed in the output. */
typedef struct asm_stmt {
    size_t offset;   /* first byte in asm_code.bytes */
    size_t size;     /* number of bytes (0 for a label) */
    int line;        /* 1-based line in the source text */
    int col;         /* 1-based column of the statement's first character */
    char *text;      /* the statement as written, trimmed; owned */
} asm_stmt;

typedef struct asm_code {
    uint8_t *bytes;
    size_t size;
    asm_stmt *stmts;
    size_t n_stmts;
} asm_code;

/* Assemble `text`.  Returns 0 and fills *out, or NB_EINPUT (NB_ENOMEM) and
 * fills *err (NULL allowed): `origin` (the input's name: "asm", "asm_init",
 * a file), the line and column of the offending token, the message (e.g.
 * "unknown register 'RXA'") and the source line for a caret, so that
 * nb_error_print shows `nb: asm:1:9: message`, the line, the caret. */
int asm_assemble(const char *text, const char *origin, asm_code *out, nb_error *err);

void asm_code_free(asm_code *code);

/* The instructions in `len` bytes of machine code, decoded in order (a byte
 * that does not decode counts as one and decoding goes on after it). */
size_t asm_count_insns(const uint8_t *bytes, size_t len);

/* Disassemble one instruction at `bytes` into `buf` (Intel syntax, as Zydis
 * formats it). Returns its length, or 0 if it does not decode. */
size_t asm_disasm_one(const uint8_t *bytes, size_t avail, uint64_t addr,
                      char *buf, size_t buflen);

/* What a fault report needs to know about one instruction (asm_insn_facts). */
typedef struct asm_mem_operand {
    uint64_t addr;        /* effective address (segment base not added) */
    unsigned size;        /* bytes accessed; 0 if Zydis does not say */
    int base;             /* base register as a GPR number 0..15 (RSP = 4), or -1 */
    bool addr_known;     /* false: FS/GS-relative, or a register not in gpr[] */
    bool hidden;         /* implicit (push, call, movs...) rather than written */
} asm_mem_operand;

typedef struct asm_insn_facts {
    size_t length;               /* 0: the bytes do not decode */
    char text[128];              /* as asm_disasm_one formats it */
    char mnemonic[24];
    bool privileged;            /* ring 0 only (Zydis: IS_PRIVILEGED) */
    const char *isa_set;         /* Zydis ISA set, e.g. "AMX_TILE", "AVX512F_512" */
    const char *category;        /* Zydis category, e.g. "CALL", "RET", "UNCOND_BR" */
    unsigned n_mem;
    asm_mem_operand mem[2];
    /* Branches (category CALL, RET, UNCOND_BR, COND_BR): */
    bool branch_relative;       /* target = branch_target */
    uint64_t branch_target;      /* for `addr` as the instruction's address */
    int branch_reg;              /* register-indirect: GPR number 0..15, else -1 */
    /* The first explicit operand when it is a general-purpose register: */
    int reg0;                    /* GPR number 0..15, or -1 */
    uint64_t reg0_value;         /* its value from gpr[], cut to its width */
} asm_insn_facts;

/* Decode one instruction at runtime address `addr` and work out, with the
 * general-purpose register values gpr[0..15] (RAX, RCX, RDX, RBX, RSP, RBP,
 * RSI, RDI, R8-R15; NULL: unknown), the addresses it accesses.  Returns the
 * length, or 0 (then *out holds no instruction). */
size_t asm_insn_facts_get(const uint8_t *bytes, size_t avail, uint64_t addr,
                          const uint64_t *gpr, asm_insn_facts *out);

/* Write the -print_code listing: each statement with offset, bytes, and the
 * disassembly of those bytes. */
void asm_print_listing(FILE *f, const asm_code *code);

/* The n-byte NOP nanoBench uses for `|n`, 1 <= n <= 15. Returns n. */
size_t asm_nop_bytes(int n, uint8_t out[15]);

#endif
