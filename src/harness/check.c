/* nb check: see check.h.
 *
 * Each statement's bytes are decoded on their own (directives such as
 * `.quad`, which may hold the -no_mem magic sequences or data, are skipped);
 * raw -code bytes are decoded from the start, skipping the magic sequences
 * and any byte that does not decode.  A register counts as written when an
 * operand, visible or hidden, has a write action on it or on a part of it
 * (writing R15D clears R15's upper half, writing R15B changes R15). */
#include "harness/check.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "harness/codegen.h"
#include "sys/status.h"

/* The reserved register the instruction writes, or ZYDIS_REGISTER_NONE. */
static ZydisRegister reserved_write(const ZydisDecodedInstruction *in,
                                    const ZydisDecodedOperand *ops, check_rules rules)
{
    for (unsigned k = 0; k < in->operand_count; k++) {
        if (ops[k].type != ZYDIS_OPERAND_TYPE_REGISTER ||
            !(ops[k].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
            continue;
        ZydisRegister r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64,
                                                           ops[k].reg.value);
        if (rules.loop && r == ZYDIS_REGISTER_R15)
            return r;
        if (rules.no_mem && r >= ZYDIS_REGISTER_R8 && r <= ZYDIS_REGISTER_R13)
            return r;
    }
    return ZYDIS_REGISTER_NONE;
}

static bool is_magic(const uint8_t *b, size_t avail)
{
    if (avail < 8)
        return false;
    uint64_t v;
    memcpy(&v, b, 8);
    return v == CODEGEN_MAGIC_STOP || v == CODEGEN_MAGIC_START;
}

/* "R15", as nb's messages write registers. */
static const char *reg_name(ZydisRegister r, char buf[8])
{
    const char *z = ZydisRegisterGetString(r);
    size_t i = 0;
    for (; z && z[i] && i < 7; i++)
        buf[i] = (char)toupper((unsigned char)z[i]);
    buf[i] = '\0';
    return buf;
}

static const char *why(ZydisRegister r, check_rules rules)
{
    if (rules.loop && r == ZYDIS_REGISTER_R15)
        return "R15 counts the -loop_count loop (the code must not write it; use "
               "-loop_count 0 or another register)";
    return "with -no_mem, R8-R13 hold the counter values (the code must not write them)";
}

/* Scan [b, b+n) at offset base of the fragment; 0 or the first hit. */
static int scan(const ZydisDecoder *dec, const uint8_t *b, size_t n, check_rules rules,
                ZydisRegister *hit, size_t *at, char *text, size_t textlen)
{
    size_t off = 0;
    while (off < n) {
        if (is_magic(b + off, n - off)) {
            off += 8;
            continue;
        }
        ZydisDecodedInstruction in;
        ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
        if (ZYAN_FAILED(ZydisDecoderDecodeFull(dec, b + off, n - off, &in, ops))) {
            off++;
            continue;
        }
        ZydisRegister r = reserved_write(&in, ops, rules);
        if (r != ZYDIS_REGISTER_NONE) {
            *hit = r;
            *at = off;
            asm_disasm_one(b + off, n - off, off, text, textlen);
            return 1;
        }
        off += in.length;
    }
    return 0;
}

int check_code(const asm_code *code, const char *origin, check_rules rules, nb_error *err)
{
    if (!rules.loop && !rules.no_mem)
        return 0;
    ZydisDecoder dec;
    ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    ZydisRegister r;
    size_t at;
    char insn[128] = "", rn[8];
    if (code->n_stmts == 0) {
        if (!scan(&dec, code->bytes, code->size, rules, &r, &at, insn, sizeof insn))
            return 0;
        nb_error_at(err, NB_EINPUT, origin, 0, 0, "byte %zu: '%s' writes %s; %s", at, insn,
                    reg_name(r, rn), why(r, rules));
        return NB_EINPUT;
    }
    for (size_t i = 0; i < code->n_stmts; i++) {
        const asm_stmt *s = &code->stmts[i];
        if (s->size == 0 || (s->text && s->text[0] == '.'))
            continue;
        if (!scan(&dec, code->bytes + s->offset, s->size, rules, &r, &at, insn, sizeof insn))
            continue;
        nb_error_at(err, NB_EINPUT, origin, s->line, s->col, "'%s' writes %s; %s",
                    s->text ? s->text : insn, reg_name(r, rn), why(r, rules));
        return NB_EINPUT;
    }
    return 0;
}
