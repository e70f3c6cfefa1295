/* Disassembly for -print_code and fault reports, and the instruction count
 * the tsc method judges code by: Zydis's decoder and Intel formatter. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <Zydis/Decoder.h>
#include <Zydis/Disassembler.h>
#include <Zydis/MetaInfo.h>
#include <Zydis/Mnemonic.h>
#include <Zydis/Register.h>
#include <Zydis/Utils.h>

#include "asm/asm.h"

size_t asm_disasm_one(const uint8_t *bytes, size_t avail, uint64_t addr, char *buf,
                      size_t buflen)
{
    ZydisDisassembledInstruction insn;
    if (buflen)
        buf[0] = 0;
    if (ZYAN_FAILED(ZydisDisassembleIntel(ZYDIS_MACHINE_MODE_LONG_64, addr, bytes, avail, &insn)))
        return 0;
    if (buflen) {
        strncpy(buf, insn.text, buflen - 1);
        buf[buflen - 1] = 0;
    }
    return insn.info.length;
}

size_t asm_count_insns(const uint8_t *bytes, size_t len)
{
    ZydisDecoder dec;
    ZydisDecodedInstruction insn;
    ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    size_t n = 0;
    for (size_t at = 0; at < len; n++)
        at += ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, bytes + at, len - at, &insn))
                  ? insn.length
                  : 1;
    return n;
}

/* A general-purpose register as its number 0..15 (any width), or -1. */
static int gpr_number(ZydisRegister r)
{
    if (r == ZYDIS_REGISTER_NONE)
        return -1;
    ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
    if (ZydisRegisterGetClass(big) != ZYDIS_REGCLASS_GPR64)
        return -1;
    return ZydisRegisterGetId(big);
}

/* A register's value from gpr[], cut to its width (AH..BH: bits 8-15). */
static uint64_t gpr_value(ZydisRegister r, const uint64_t *gpr)
{
    int n = gpr_number(r);
    uint64_t v = gpr[n];
    if (r >= ZYDIS_REGISTER_AH && r <= ZYDIS_REGISTER_BH)
        return (v >> 8) & 0xFF;
    ZydisRegisterWidth w = ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, r);
    return w >= 64 ? v : v & ((UINT64_C(1) << w) - 1);
}

size_t asm_insn_facts_get(const uint8_t *bytes, size_t avail, uint64_t addr,
                          const uint64_t *gpr, asm_insn_facts *out)
{
    memset(out, 0, sizeof *out);
    out->branch_reg = -1;
    out->reg0 = -1;
    ZydisDisassembledInstruction in;
    if (ZYAN_FAILED(ZydisDisassembleIntel(ZYDIS_MACHINE_MODE_LONG_64, addr, bytes, avail, &in)))
        return 0;
    const ZydisDecodedInstruction *d = &in.info;
    snprintf(out->text, sizeof out->text, "%s", in.text);
    snprintf(out->mnemonic, sizeof out->mnemonic, "%s", ZydisMnemonicGetString(d->mnemonic));
    out->privileged = (d->attributes & ZYDIS_ATTRIB_IS_PRIVILEGED) != 0;
    out->isa_set = ZydisISASetGetString(d->meta.isa_set);
    out->category = ZydisCategoryGetString(d->meta.category);

    ZydisRegisterContext ctx;
    memset(&ctx, 0, sizeof ctx);
    if (gpr)
        for (int r = ZYDIS_REGISTER_NONE + 1; r <= ZYDIS_REGISTER_MAX_VALUE; r++)
            if (gpr_number((ZydisRegister)r) >= 0)
                ctx.values[r] = gpr_value((ZydisRegister)r, gpr);

    bool branch = d->meta.category == ZYDIS_CATEGORY_CALL ||
                  d->meta.category == ZYDIS_CATEGORY_RET ||
                  d->meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
                  d->meta.category == ZYDIS_CATEGORY_COND_BR;
    bool first_explicit = true;
    for (unsigned i = 0; i < d->operand_count; i++) {
        const ZydisDecodedOperand *op = &in.operands[i];
        bool explicit_op = op->visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT;
        if (op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type != ZYDIS_MEMOP_TYPE_AGEN &&
            out->n_mem < sizeof out->mem / sizeof out->mem[0]) {
            asm_mem_operand *m = &out->mem[out->n_mem++];
            m->size = op->size / 8;
            m->base = gpr_number(op->mem.base);
            m->hidden = !explicit_op;
            /* Known when every register in the address is a GPR whose
             * value we have (RIP is the runtime address). */
            bool base_ok = op->mem.base == ZYDIS_REGISTER_NONE ||
                           op->mem.base == ZYDIS_REGISTER_RIP || (gpr && m->base >= 0);
            bool index_ok = op->mem.index == ZYDIS_REGISTER_NONE ||
                            (gpr && gpr_number(op->mem.index) >= 0);
            ZyanU64 ea = 0;
            if (base_ok && index_ok && op->mem.segment != ZYDIS_REGISTER_FS &&
                op->mem.segment != ZYDIS_REGISTER_GS &&
                ZYAN_SUCCESS(ZydisCalcAbsoluteAddressEx(d, op, addr, &ctx, &ea))) {
                m->addr = ea;
                m->addr_known = true;
            }
            if (explicit_op && first_explicit)
                first_explicit = false;
        } else if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && explicit_op) {
            int n = gpr_number(op->reg.value);
            if (first_explicit) {
                first_explicit = false;
                if (n >= 0) {
                    out->reg0 = n;
                    out->reg0_value = gpr ? gpr_value(op->reg.value, gpr) : 0;
                }
            }
            if (branch && n >= 0 && out->branch_reg < 0)
                out->branch_reg = n;
        } else if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op->imm.is_relative && branch) {
            ZyanU64 t;
            if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(d, op, addr, &t))) {
                out->branch_relative = true;
                out->branch_target = t;
            }
        } else if (explicit_op && first_explicit) {
            first_explicit = false;
        }
    }
    out->length = d->length;
    return d->length;
}

/* One line per instruction: offset, up to 15 bytes in hex, disassembly; the
 * statement text as a comment on its first line. */
void asm_print_listing(FILE *f, const asm_code *code)
{
    for (size_t i = 0; i < code->n_stmts; i++) {
        const asm_stmt *s = &code->stmts[i];
        if (s->size == 0) {
            fprintf(f, "%8zx:  %-45s  %s\n", s->offset, "", s->text);
            continue;
        }
        size_t off = s->offset, end = s->offset + s->size;
        bool first = true;
        /* .byte/.long/...: data, shown as bytes only; alignment padding is
         * code (NOPs) and is disassembled */
        bool data = s->text[0] == '.' && strncasecmp(s->text, ".p2align", 8) != 0 &&
                    strncasecmp(s->text, ".align", 6) != 0 &&
                    strncasecmp(s->text, ".balign", 7) != 0;
        while (off < end) {
            char text[256], hex[64];
            size_t n = data ? 0 : asm_disasm_one(code->bytes + off, end - off, off, text,
                                                 sizeof text);
            if (n == 0) {
                n = end - off > 8 ? 8 : end - off;
                snprintf(text, sizeof text, "%s", data ? "" : "(does not decode)");
            }
            size_t h = 0;
            for (size_t k = 0; k < n && h + 4 < sizeof hex; k++)
                h += (size_t)snprintf(hex + h, sizeof hex - h, "%02x ", code->bytes[off + k]);
            fprintf(f, "%8zx:  %-45s  %-40s%s%s\n", off, hex, text, first ? "  # " : "",
                    first ? s->text : "");
            first = false;
            off += n;
        }
    }
}
