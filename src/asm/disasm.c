/* Disassembly for -print_code: Zydis's decoder and Intel formatter. */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include <Zydis/Zydis.h>

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
