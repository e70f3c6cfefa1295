/* Round-trip property test of the assembler against Zydis:
 *   random bytes --Zydis decode--> instruction --Zydis Intel formatter--> text
 *   --asm_assemble--> bytes --Zydis decode+format--> must print the same text.
 * Same text means same mnemonic, prefixes and operands; the encoding form may
 * differ (e.g. 81 /0 id vs 83 /0 ib for a small immediate, VEX vs EVEX).
 *
 * The formatter is set up to print what GNU as accepts (sizes on every memory
 * operand, signed immediates, rip-relative memory as [rip+disp]); spellings
 * are rewritten where Zydis and as differ (checked by feeding a dump to as):
 * st0 -> st(0), "ret far" -> retf/retfq, "call/jmp far fword" -> "call/jmp
 * fword", the 8087 no-ops -> fneni/fndisi/fnsetpm, "fucomp st(0), st(i)" ->
 * "fucomp st(i)", bare sysret/sysexit -> ...d or ...q by REX.W, the
 * 16-bit popf/pushf/iret -> popfw/pushfw/iretw.  equivalent() lists the two
 * cases where as's own choice prints differently (xchg order, xchg ax,ax as
 * nop, int 3, mov r64/r32 from a segment register).
 * Relative branches become "jcc L" with the label placed by .byte padding at
 * the original distance (a rel32 further than MAX_PAD is moved to 128..MAX_PAD
 * bytes, still out of rel8 reach, and counted); nb's branch must reach the label (its length
 * may differ: nb picks the short form where it fits, as as does).
 *
 * Skipped, each counted and printed with its reason (the run fails if skips
 * exceed MAX_SKIP_PCT): instructions with no assembler syntax (KNC-only,
 * 0F 18-1E hint NOPs Zydis prints without their reg field, undocumented x87
 * aliases, a 67-prefixed absolute address above 2 GiB, which as only takes
 * with an addr32 prefix Zydis does not print) and branches whose target lies
 * inside the branch itself.
 *
 * Env: NB_ROUNDTRIP_N overrides the instruction count, NB_ROUNDTRIP_SEED the
 * seed, for exploring beyond make test's run; NB_ROUNDTRIP_DUMP=FILE
 * writes every non-branch text given to nb (to check it with GNU as). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "asm/asm.h"

#define DEFAULT_N 100000
#define MIN_RATE 99.5
#define MAX_SKIP_PCT 1.0
#define MAX_PAD 1024
#define MAX_CATS 512

typedef struct category {
    char key[96];       /* reason: mnemonic */
    size_t count;
    char example[1024]; /* first instance */
} category;

static category cats[MAX_CATS];
static size_t n_cats;

typedef struct skip_reason {
    const char *why;
    size_t count;
} skip_reason;

enum { SKIP_KNC, SKIP_RESNOP, SKIP_X87ALIAS, SKIP_SELF, SKIP_ADDR32, SKIP_MAX };
static skip_reason skips[SKIP_MAX] = {
    [SKIP_KNC] = {"Knights Corner-only instruction: no assembler syntax", 0},
    [SKIP_RESNOP] = {"0F 18-1E hint NOP printed with one operand: its reg field is lost", 0},
    [SKIP_X87ALIAS] = {"undocumented x87 alias (fstpnce): no as mnemonic", 0},
    [SKIP_SELF] = {"relative branch into its own bytes: no label can sit there", 0},
    [SKIP_ADDR32] = {"67-prefixed absolute address >= 2 GiB: as needs addr32, Zydis prints none", 0},
};

static uint64_t rng_state = 0x6e622d61736d2d31ull; /* fixed seed: "nb-asm-1" */

static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* Random bytes, with the first bytes biased toward the escape and VEX/EVEX
 * prefixes so that the 0F maps and the vector ISAs get their share. */
static void random_insn_bytes(uint8_t b[16])
{
    for (int i = 0; i < 16; i += 8) {
        uint64_t r = rng_next();
        memcpy(b + i, &r, 8);
    }
    unsigned k = (unsigned)(rng_next() % 100);
    if (k < 20) {
        b[0] = 0x0f;
    } else if (k < 30) {
        b[0] = 0x0f;
        b[1] = (k & 1) ? 0x38 : 0x3a;
    } else if (k < 45) {
        b[0] = (k & 1) ? 0xc4 : 0xc5;
    } else if (k < 65) {
        b[0] = 0x62;
    }
    /* Most random VEX/EVEX prefixes are invalid; make half of them well formed
     * (map 1-3 or 5-6, EVEX's fixed bits) so the vector ISAs are reached. */
    if ((b[0] == 0xc4 || b[0] == 0x62) && (rng_next() & 1)) {
        static const uint8_t maps[] = {1, 2, 3, 5, 6};
        uint8_t map = maps[rng_next() % (b[0] == 0xc4 ? 3 : 5)];
        /* VEX: m-mmmm is bits 4:0; EVEX: bit 3 is 0, mmm bits 2:0, R' bit 4 stays random. */
        b[1] = (uint8_t)((b[1] & (b[0] == 0xc4 ? 0xe0 : 0xf0)) | map);
        if (b[0] == 0x62)
            b[2] |= 0x04;
    }
}

static void note_failure(const char *reason, const char *mnemonic, const char *example)
{
    char key[96];
    snprintf(key, sizeof key, "%s: %s", reason, mnemonic);
    for (size_t i = 0; i < n_cats; i++) {
        if (strcmp(cats[i].key, key) == 0) {
            cats[i].count++;
            return;
        }
    }
    if (n_cats == MAX_CATS)
        return;
    category *c = &cats[n_cats++];
    snprintf(c->key, sizeof c->key, "%s", key);
    snprintf(c->example, sizeof c->example, "%s", example);
    c->count = 1;
}

static int cmp_cats(const void *a, const void *b)
{
    const category *x = a, *y = b;
    return (x->count < y->count) - (x->count > y->count);
}

static void hex_string(const uint8_t *b, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && o + 4 < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%02x", i ? " " : "", b[i]);
}

/* In-place replace of every `from` by `to` (to no longer than from + 8). */
static void replace_all(char *s, size_t cap, const char *from, const char *to)
{
    size_t lf = strlen(from), lt = strlen(to);
    char *p = s;
    while ((p = strstr(p, from))) {
        if (strlen(s) + lt - lf + 1 > cap)
            return;
        memmove(p + lt, p + lf, strlen(p + lf) + 1);
        memcpy(p, to, lt);
        p += lt;
    }
}

/* Rewrites Zydis spellings GNU as does not read into ones it does. */
static void as_spelling(char *t, size_t cap, const ZydisDecodedInstruction *in)
{
    char from[] = "st0", to[] = "st(0)";
    for (char i = '0'; i <= '7'; i++) {
        from[2] = to[3] = i;
        replace_all(t, cap, from, to);
    }
    bool w = in->attributes & ZYDIS_ATTRIB_HAS_REX && in->raw.rex.W;
    replace_all(t, cap, "ret far", w ? "retfq" : "retf");
    replace_all(t, cap, "call far ", "call ");
    replace_all(t, cap, "jmp far ", "jmp ");
    replace_all(t, cap, "feni8087_nop", "fneni");
    replace_all(t, cap, "fdisi8087_nop", "fndisi");
    replace_all(t, cap, "fsetpm287_nop", "fnsetpm");
    replace_all(t, cap, "fucomp st(0), ", "fucomp ");
    if (strcmp(t, "sysret") == 0 || strcmp(t, "sysexit") == 0)
        strcat(t, w ? "q" : "d"); /* as finds the bare names ambiguous */
    /* Zydis's bare popf/pushf/iret are the 16-bit forms; as reads them as 64-bit. */
    if (strcmp(t, "popf") == 0 || strcmp(t, "pushf") == 0 || strcmp(t, "iret") == 0)
        strcat(t, "w");
}

static bool is_knc(const ZydisDecodedInstruction *in)
{
    switch (in->meta.isa_set) {
    case ZYDIS_ISA_SET_KNCE:
    case ZYDIS_ISA_SET_KNCJKBR:
    case ZYDIS_ISA_SET_KNCSTREAM:
    case ZYDIS_ISA_SET_KNCV:
    case ZYDIS_ISA_SET_KNC_MISC:
    case ZYDIS_ISA_SET_KNC_PF_HINT:
        return true;
    default:
        return false;
    }
}

static const ZydisDecodedOperand *relative_operand(const ZydisDecodedInstruction *in,
                                                   const ZydisDecodedOperand *ops)
{
    for (unsigned i = 0; i < in->operand_count_visible; i++)
        if (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[i].imm.is_relative)
            return &ops[i];
    return NULL;
}

typedef struct rt_ctx {
    ZydisDecoder dec;
    ZydisFormatter fmt;
    FILE *dump;
    size_t decoded, passed, skipped, failed, moved;
    bool seen_mnemonic[ZYDIS_MNEMONIC_MAX_VALUE + 1];
    bool seen_isa[ZYDIS_ISA_SET_MAX_VALUE + 1];
} rt_ctx;

static bool format_insn(rt_ctx *c, const ZydisDecodedInstruction *in,
                        const ZydisDecodedOperand *ops, char *t, size_t cap)
{
    if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&c->fmt, in, ops, in->operand_count_visible,
                                                      t, cap, 0, NULL)))
        return false;
    as_spelling(t, cap, in);
    return true;
}

/* Builds the text for a relative branch: "MN L" with L placed at the original
 * distance by zero padding.  Sets *target to the label's offset and *start to
 * the branch's offset in nb's output.  Returns false (and counts a skip) when
 * the branch cannot be expressed. */
static bool branch_text(rt_ctx *c, const ZydisDecodedInstruction *in, const char *orig,
                        int64_t disp, char *out, size_t cap, bool *label_first,
                        size_t *pad)
{
    /* A random rel32 lands gigabytes away; move its target within MAX_PAD but
     * keep it beyond rel8 reach, so the long form is still what is tested. */
    if (disp > MAX_PAD || disp < -MAX_PAD) {
        int64_t mag = 128 + (int64_t)((uint64_t)(disp < 0 ? -disp : disp) % (MAX_PAD - 256));
        disp = disp < 0 ? -mag : mag;
        c->moved++;
    }
    int64_t t = (int64_t)in->length + disp; /* target, relative to insn start */
    if (t > 0 && t < (int64_t)in->length) {
        skips[SKIP_SELF].count++;
        c->skipped++;
        return false;
    }
    /* Drop the printed address: everything after the last space. */
    char head[256];
    snprintf(head, sizeof head, "%s", orig);
    char *sp = strrchr(head, ' ');
    if (sp)
        *sp = '\0';
    size_t n = (size_t)(disp >= 0 ? disp : -t);
    *pad = n;
    size_t o = 0;
    *label_first = disp < 0;
    if (*label_first)
        o += (size_t)snprintf(out + o, cap - o, "rt_target:\n");
    else
        o += (size_t)snprintf(out + o, cap - o, "%s rt_target\n", head);
    if (n) {
        o += (size_t)snprintf(out + o, cap - o, ".byte 0");
        for (size_t i = 1; i < n && o + 3 < cap; i++) {
            memcpy(out + o, ",0", 2);
            o += 2;
        }
        out[o++] = '\n';
        out[o] = '\0';
    }
    if (*label_first)
        snprintf(out + o, cap - o, "%s rt_target\n", head);
    else
        snprintf(out + o, cap - o, "rt_target:\n");
    return true;
}

static void fail_with(rt_ctx *c, const char *reason, const ZydisDecodedInstruction *in,
                      const uint8_t *orig, const char *text, const char *detail)
{
    char hex[64], ex[1024];
    hex_string(orig, in->length, hex, sizeof hex);
    snprintf(ex, sizeof ex, "%s  [%s]  %s", text, hex, detail);
    note_failure(reason, ZydisMnemonicGetString(in->mnemonic), ex);
    c->failed++;
}

/* Two spellings of one instruction that as itself does not keep apart:
 * xchg's operands commute (as puts the accumulator where its short form
 * wants it), as encodes `int 3` as int3, and as drops the REX.W of a move
 * from a segment register (the r32 form zero-extends the same way). */
static bool equivalent(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
                       const char *a, const ZydisDecodedInstruction *in2,
                       const ZydisDecodedOperand *ops2, const char *b)
{
    if (in->mnemonic == ZYDIS_MNEMONIC_INT && strcmp(a, "int 0x03") == 0)
        return strcmp(b, "int3") == 0;
    /* "mov r64, sreg" zero-extends exactly as "mov r32, sreg": as drops REX.W. */
    if (in->mnemonic == ZYDIS_MNEMONIC_MOV && in2->mnemonic == ZYDIS_MNEMONIC_MOV &&
        ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER && ops2[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
        ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER && ZydisRegisterGetClass(ops[1].reg.value) ==
        ZYDIS_REGCLASS_SEGMENT && ops2[1].reg.value == ops[1].reg.value &&
        ZydisRegisterGetClass(ops[0].reg.value) == ZYDIS_REGCLASS_GPR64 &&
        ZydisRegisterGetClass(ops2[0].reg.value) == ZYDIS_REGCLASS_GPR32 &&
        ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, ops2[0].reg.value) ==
            ops[0].reg.value)
        return true;
    /* as encodes "xchg ax, ax" and "xchg rax, rax" as (66) 90, which decodes as nop. */
    if ((strcmp(a, "xchg ax, ax") == 0 || strcmp(a, "xchg rax, rax") == 0) &&
        in2->mnemonic == ZYDIS_MNEMONIC_NOP)
        return true;
    if (in->mnemonic != ZYDIS_MNEMONIC_XCHG || strncmp(b, "xchg ", 5) != 0)
        return false;
    const char *comma = strstr(b, ", ");
    if (!comma)
        return false;
    char swapped[256];
    snprintf(swapped, sizeof swapped, "xchg %s, %.*s", comma + 2, (int)(comma - b - 5), b + 5);
    return strcmp(a, swapped) == 0;
}

static void check_one(rt_ctx *c, const uint8_t *b)
{
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&c->dec, b, 16, &in, ops)))
        return;
    c->decoded++;
    c->seen_mnemonic[in.mnemonic] = true;
    c->seen_isa[in.meta.isa_set] = true;
    if (is_knc(&in)) {
        skips[SKIP_KNC].count++;
        c->skipped++;
        return;
    }
    /* Zydis prints one operand for some 0F 18-1E hint NOPs and drops the reg
     * field the bytes hold, so the text names no single instruction. (The
     * two-operand "nop r/m, reg" Zydis prints is nb's extension and tested.) */
    if (in.mnemonic == ZYDIS_MNEMONIC_NOP && in.opcode_map == ZYDIS_OPCODE_MAP_0F &&
        in.opcode >= 0x18 && in.opcode <= 0x1e && in.operand_count_visible == 1) {
        skips[SKIP_RESNOP].count++;
        c->skipped++;
        return;
    }
    if (in.mnemonic == ZYDIS_MNEMONIC_FSTPNCE) {
        skips[SKIP_X87ALIAS].count++;
        c->skipped++;
        return;
    }
    /* (moffs forms A0-A3 have a spelling as reads: it picks them itself.) */
    if (in.address_width == 32 &&
        !(in.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && in.opcode >= 0xa0 && in.opcode <= 0xa3)) {
        for (unsigned i = 0; i < in.operand_count_visible; i++) {
            const ZydisDecodedOperand *o = &ops[i];
            if (o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->mem.base == ZYDIS_REGISTER_NONE &&
                o->mem.index == ZYDIS_REGISTER_NONE && (uint32_t)o->mem.disp.value > 0x7fffffffu) {
                skips[SKIP_ADDR32].count++;
                c->skipped++;
                return;
            }
        }
    }
    char text[256];
    if (!format_insn(c, &in, ops, text, sizeof text)) {
        fail_with(c, "zydis cannot format", &in, b, "?", "");
        return;
    }
    const ZydisDecodedOperand *rel = relative_operand(&in, ops);
    static char src[4 * MAX_PAD];
    bool label_first = false;
    size_t pad = 0;
    if (rel) {
        if (!branch_text(c, &in, text, rel->imm.value.s, src, sizeof src, &label_first, &pad))
            return;
    } else {
        snprintf(src, sizeof src, "%s", text);
        if (c->dump)
            fprintf(c->dump, "%s\n", text);
    }

    asm_code code = {0};
    nb_error err;
    if (asm_assemble(src, "asm", &code, &err) != 0) {
        fail_with(c, "nb rejects", &in, b, text, err.message);
        return;
    }
    /* nb's instruction: everything but the padding. */
    size_t start = 0, len = code.size;
    if (rel) {
        if (code.size < pad) {
            fail_with(c, "nb loses padding", &in, b, text, "");
            asm_code_free(&code);
            return;
        }
        len = code.size - pad;
        start = label_first ? pad : 0;
    }
    ZydisDecodedInstruction in2;
    ZydisDecodedOperand ops2[ZYDIS_MAX_OPERAND_COUNT];
    char got_hex[64], detail[512];
    hex_string(code.bytes + start, len, got_hex, sizeof got_hex);
    if (len == 0 || !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&c->dec, code.bytes + start, len, &in2,
                                                         ops2))) {
        snprintf(detail, sizeof detail, "nb: [%s] does not decode", got_hex);
        fail_with(c, "nb bytes undecodable", &in, b, text, detail);
        asm_code_free(&code);
        return;
    }
    if (in2.length != len) {
        snprintf(detail, sizeof detail, "nb: [%s] is %zu bytes, first insn %u", got_hex, len,
                 in2.length);
        fail_with(c, "nb emits extra bytes", &in, b, text, detail);
        asm_code_free(&code);
        return;
    }
    char text2[256];
    format_insn(c, &in2, ops2, text2, sizeof text2);
    bool same;
    if (rel) {
        const ZydisDecodedOperand *rel2 = relative_operand(&in2, ops2);
        int64_t want = label_first ? 0 : (int64_t)code.size;
        char *sp1 = strrchr(text, ' '), *sp2 = strrchr(text2, ' ');
        size_t h1 = sp1 ? (size_t)(sp1 - text) : strlen(text);
        size_t h2 = sp2 ? (size_t)(sp2 - text2) : strlen(text2);
        same = rel2 && h1 == h2 && strncmp(text, text2, h1) == 0 &&
               (int64_t)start + in2.length + rel2->imm.value.s == want;
    } else {
        same = strcmp(text, text2) == 0 || equivalent(&in, ops, text, &in2, ops2, text2);
    }
    if (same) {
        c->passed++;
    } else {
        snprintf(detail, sizeof detail, "nb: [%s] = %s", got_hex, text2);
        fail_with(c, "different instruction", &in, b, text, detail);
    }
    asm_code_free(&code);
}

static void test_roundtrip(void **state)
{
    (void)state;
    rt_ctx c = {0};
    assert_true(ZYAN_SUCCESS(
        ZydisDecoderInit(&c.dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)));
    assert_true(ZYAN_SUCCESS(ZydisFormatterInit(&c.fmt, ZYDIS_FORMATTER_STYLE_INTEL)));
    ZydisFormatterSetProperty(&c.fmt, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE);
    ZydisFormatterSetProperty(&c.fmt, ZYDIS_FORMATTER_PROP_IMM_SIGNEDNESS,
                              ZYDIS_SIGNEDNESS_SIGNED);
    ZydisFormatterSetProperty(&c.fmt, ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE);

    const char *ns = getenv("NB_ROUNDTRIP_N");
    size_t n = ns ? strtoul(ns, NULL, 10) : DEFAULT_N;
    const char *seed = getenv("NB_ROUNDTRIP_SEED");
    if (seed && *seed) {
        /* splitmix64 of the seed: nearby seeds give unrelated xorshift states. */
        uint64_t z = strtoull(seed, NULL, 0) + 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        rng_state = (z ^ (z >> 31)) | 1;
    }
    const char *dump = getenv("NB_ROUNDTRIP_DUMP");
    if (dump)
        c.dump = fopen(dump, "w");
    while (c.decoded < n) {
        uint8_t b[16];
        random_insn_bytes(b);
        check_one(&c, b);
    }
    if (c.dump)
        fclose(c.dump);

    size_t tried = c.decoded - c.skipped;
    double rate = tried ? 100.0 * (double)c.passed / (double)tried : 0.0;
    double skip_pct = 100.0 * (double)c.skipped / (double)c.decoded;
    printf("round-trip: %zu decoded, %zu skipped (%.2f%%), %zu reassembled identically of %zu "
           "(%.3f%%), %zu failed\n",
           c.decoded, c.skipped, skip_pct, c.passed, tried, rate, c.failed);
    size_t n_mn = 0, n_isa = 0;
    for (size_t i = 0; i <= ZYDIS_MNEMONIC_MAX_VALUE; i++)
        n_mn += c.seen_mnemonic[i];
    for (size_t i = 0; i <= ZYDIS_ISA_SET_MAX_VALUE; i++)
        n_isa += c.seen_isa[i];
    printf("  (%zu distinct mnemonics, %zu ISA sets; %zu far branches moved within %d bytes, "
           "still rel32)\n", n_mn, n_isa, c.moved, MAX_PAD);
    for (int i = 0; i < SKIP_MAX; i++)
        if (skips[i].count)
            printf("  skipped %6zu  %s\n", skips[i].count, skips[i].why);
    qsort(cats, n_cats, sizeof *cats, cmp_cats);
    for (size_t i = 0; i < n_cats && i < 60; i++)
        printf("  FAIL %6zu  %s  e.g. %s\n", cats[i].count, cats[i].key, cats[i].example);
    if (n_cats > 60)
        printf("  ... %zu more failure categories\n", n_cats - 60);
    fflush(stdout); /* the summary before cmocka's verdict on stderr */
    if (skip_pct > MAX_SKIP_PCT)
        fail_msg("%.2f%% of decoded instructions skipped (> %.1f%%)", skip_pct, MAX_SKIP_PCT);
    if (rate < MIN_RATE)
        fail_msg("round-trip rate %.3f%% below %.1f%%", rate, MIN_RATE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
