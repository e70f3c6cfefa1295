/* nb assembler: Intel-syntax text (GNU as `.intel_syntax noprefix` dialect,
 * plus nanoBench's `|n` NOPs and `n*|x|` repetition) to x86-64 machine code,
 * in-process, with the Zydis encoder.
 *
 * Stages (one file each): lexer.c (text -> tokens), parser.c (tokens ->
 * statements), encoder.c (statement -> Zydis request -> bytes; the only file
 * that includes Zydis's encoder), layout.c (labels, branch sizing, alignment,
 * repetition).  disasm.c formats bytes back to text for -print_code.
 *
 * Ownership: asm_assemble() fills an asm_code whose arrays the caller frees
 * with asm_code_free(); on error it frees everything it allocated and fills
 * the asm_error.  Not thread-safe: the name tables and a memo of encoding
 * choices are process-wide, built on first use. */
#ifndef NB_ASM_H
#define NB_ASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

typedef struct asm_error {
    int line;             /* 1-based; 0 if not tied to a place */
    int col;              /* 1-based column of the offending token */
    char message[256];    /* e.g. "unknown register 'RXA'" */
    char source[512];     /* the source line the error is on */
} asm_error;

/* Assemble `text`. Returns 0 and fills *out, or NB_EINPUT and fills *err. */
int asm_assemble(const char *text, asm_code *out, asm_error *err);

void asm_code_free(asm_code *code);

/* Print "nb: ORIGIN:LINE:COL: message", then the source line and a caret.
 * `origin` names the input, e.g. "asm" or "asm_init". */
void asm_error_print(FILE *f, const char *origin, const asm_error *err);

/* Disassemble one instruction at `bytes` into `buf` (Intel syntax, as Zydis
 * formats it). Returns its length, or 0 if it does not decode. */
size_t asm_disasm_one(const uint8_t *bytes, size_t avail, uint64_t addr,
                      char *buf, size_t buflen);

/* Write the -print_code listing: each statement with offset, bytes, and the
 * disassembly of those bytes. */
void asm_print_listing(FILE *f, const asm_code *code);

/* The n-byte NOP nanoBench uses for `|n`, 1 <= n <= 15. Returns n. */
size_t asm_nop_bytes(int n, uint8_t out[15]);

#endif
