/* Sweep chain text: the statements chain.c builds its code from (see
 * sweep_internal.h): registers handed out, a form's instance with its
 * operands placed, dependency breakers, closers between register files,
 * memory and flags, and the init code that states every value.
 *
 * Everything is Intel-syntax text for nb's own assembler, so every chain a
 * sweep measures can be run again with `nb -asm ... -asm_init ...`.
 *
 * Values: general-purpose registers hold 1 (the operands of DIV and IDIV:
 * dividend 100, high half 0, divisor 7), vector registers and the memory
 * lines 1.0 in every element of the form's floating-point type (1.0f, or
 * 1.0 for double forms: values FP chains keep, with neither denormals nor
 * overflow), mm registers the same 64-bit pattern, mask registers all ones,
 * the x87 stack eight 1.0s, a VSIB index vector zero (every element reads
 * the line at R14). */
#include "sweep/sweep_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

/* ---- registers ---------------------------------------------------------- */

static const char *const gpr_names[4][16] = {
    {"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil", "r8b", "r9b", "r10b", "r11b", "r12b",
     "r13b", "r14b", "r15b"},
    {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di", "r8w", "r9w", "r10w", "r11w", "r12w",
     "r13w", "r14w", "r15w"},
    {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d",
     "r12d", "r13d", "r14d", "r15d"},
    {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12",
     "r13", "r14", "r15"},
};

#define GPR_RSP 4
#define GPR_R14 14

const char *sw_gpr_name(int reg, unsigned bits)
{
    int w = bits <= 8 ? 0 : bits <= 16 ? 1 : bits <= 32 ? 2 : 3;
    return gpr_names[w][reg & 15];
}

/* "xmm3", "ymm3", "zmm3" for a width. */
static const char *vec_name(int reg, unsigned bits, char *buf, size_t len)
{
    snprintf(buf, len, "%cmm%d", bits >= 512 ? 'z' : bits >= 256 ? 'y' : 'x', reg);
    return buf;
}

/* The register number of a fixed register within its class. */
static int fixed_id(ZydisRegister r, int cls)
{
    if (cls == SWK_GPR)
        r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
    return ZydisRegisterGetId(r) & 31;
}

/* Hand-out order of general-purpose registers: RAX last (its short forms
 * `add rax, imm32` are forms of their own), never RSP or R14 (R14 is the
 * memory operands' base). */
static const int8_t gpr_order[] = {3, 1, 2, 6, 7, 5, 8, 9, 10, 11, 12, 13, 15, 0};

static int class_size(int cls)
{
    return cls == SWK_GPR ? 16 : cls == SWK_VEC ? 32 : 8;
}

void sw_cb_init(sw_cb *b, const sweep_form *f, const sw_caps *caps, sw_chain *ch)
{
    memset(b, 0, sizeof *b);
    memset(ch, 0, sizeof *ch);
    b->f = f;
    b->caps = caps;
    b->ch = ch;
    memset(b->konst, -1, sizeof b->konst);
    b->scratch = -1;
    b->taken[SWK_GPR] = 1u << GPR_RSP | 1u << GPR_R14;
    if (f->enc != SWE_EVEX || !caps->avx512f)
        b->taken[SWK_VEC] = 0xFFFF0000u;
    b->taken[SWK_MASK] = 1;   /* k0 is no writemask */
    b->taken[SWK_X87] = 1;    /* st(0) is named as such */
    b->dd = strcmp(f->mnemonic, "div") == 0 || strcmp(f->mnemonic, "idiv") == 0;
    /* `add rax, imm32`, `xchg rax, r64` are forms of their own */
    for (int i = 0; i < f->n_ops; i++)
        if ((f->op[i].kind == SWK_IMM && f->op[i].named) || strcmp(f->mnemonic, "xchg") == 0)
            b->taken[SWK_GPR] |= 1u;
    b->fp = 'f';
    for (int i = 0; i < 16; i++)
        b->gval[i] = 1;
    for (int i = 0; i < f->n_ops; i++) {
        const sw_op *o = &f->op[i];
        if (o->elem == 'd' && (o->kind == SWK_VEC || o->kind == SWK_MEM))
            b->fp = 'd';
        if (o->kind >= SWK_GPR && o->kind <= SWK_X87 && o->fixed) {
            int id = fixed_id((ZydisRegister)o->reg, o->kind);
            b->taken[o->kind] |= 1u << id;
            b->used[o->kind] |= 1u << id;
            if (o->kind == SWK_GPR)
                b->gval[id] = sw_gpr_value(b, o, true, id);
        }
        if (o->kind == SWK_MEM && o->mem == SWM_HIDDEN && o->mem_base) {
            int id = fixed_id((ZydisRegister)o->mem_base, SWK_GPR);
            b->taken[SWK_GPR] |= 1u << id;
            b->pointer_gpr |= (uint16_t)(1u << id);
        }
    }
}

int sw_alloc(sw_cb *b, int cls)
{
    if (cls < SWK_GPR || cls > SWK_X87)
        return -1;
    int n = cls == SWK_GPR ? (int)sizeof gpr_order : class_size(cls);
    for (int k = 0; k < n; k++) {
        int r = cls == SWK_GPR ? gpr_order[k] : k;
        if (!(b->taken[cls] & (1u << r))) {
            b->taken[cls] |= 1u << r;
            b->used[cls] |= 1u << r;
            return r;
        }
    }
    return -1;
}

int sw_free_count(const sw_cb *b, int cls)
{
    int n = 0;
    for (int r = 0; r < class_size(cls); r++)
        n += !(b->taken[cls] & (1u << r));
    return n;
}

int sw_line(sw_cb *b)
{
    if (b->n_lines < 63)
        b->n_lines++;
    if (b->dd) {   /* a divisor in memory */
        b->line_val[b->n_lines] = 7;
        b->line_has_val |= 1ull << b->n_lines;
    }
    return 64 * b->n_lines;
}

long long sw_gpr_value(const sw_cb *b, const sw_op *o, bool fixed_reg, int reg)
{
    if (!b->dd)
        return 1;
    if (fixed_reg && reg == 0)
        return 100;   /* the dividend: rax, eax, ax */
    if (fixed_reg && reg == 2)
        return 0;     /* its high half: rdx, edx, dx */
    (void)o;
    return 7;         /* the divisor */
}

sw_loc sw_loc_fresh(sw_cb *b, int i)
{
    const sw_op *o = &b->f->op[i];
    sw_loc l = {.cls = o->kind, .reg = -1, .idx = -1, .bits = o->bits};
    switch (o->kind) {
    case SWK_GPR: case SWK_VEC: case SWK_MMX: case SWK_MASK: case SWK_X87:
        l.reg = (int8_t)(o->fixed ? fixed_id((ZydisRegister)o->reg, o->kind)
                                  : sw_alloc(b, o->kind));
        if (o->kind == SWK_GPR && l.reg >= 0)
            b->gval[l.reg] = sw_gpr_value(b, o, o->fixed, l.reg);
        break;
    case SWK_MEM:
        if (o->mem == SWM_AGEN) {
            l.reg = (int8_t)sw_alloc(b, SWK_GPR);
            l.disp = 8;
        } else if (o->mem == SWM_VSIB) {
            l.reg = (int8_t)sw_alloc(b, SWK_VEC);
            if (l.reg >= 0)
                b->zeroed_vec |= 1u << l.reg;
            l.disp = sw_line(b);
        } else if (o->mem == SWM_HIDDEN) {
            l.reg = (int8_t)(o->mem_base ? fixed_id((ZydisRegister)o->mem_base, SWK_GPR) : -1);
        } else {
            l.disp = sw_line(b);
        }
        break;
    default:
        break;
    }
    return l;
}

/* ---- text --------------------------------------------------------------- */

static void add(sw_cb *b, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(sw_cb *b, char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= len - n) {
        buf[n] = '\0';
        if (b)
            b->overflow = true;
    }
}

void sw_emit(sw_cb *b, const char *stmt, bool inst)
{
    sw_chain *ch = b->ch;
    if (ch->n_stmts >= SW_MAX_STMTS) {
        b->overflow = true;
        return;
    }
    add(b, ch->code, sizeof ch->code, "%s%s", ch->code[0] ? "; " : "", stmt);
    if (inst) {
        ch->inst_stmt[ch->n_stmts / 64] |= 1ull << (ch->n_stmts % 64);
        ch->instances++;
    }
    /* a closer or breaker may be several statements: count them all */
    for (const char *p = stmt; *p; p++)
        if (*p == ';')
            ch->n_stmts++;
    ch->n_stmts++;
}

static const char *ptr_word(unsigned bits)
{
    switch (bits) {
    case 8: return "byte ptr ";
    case 16: return "word ptr ";
    case 32: return "dword ptr ";
    case 48: return "fword ptr ";
    case 64: return "qword ptr ";
    case 80: return "tbyte ptr ";
    case 128: return "xmmword ptr ";
    case 256: return "ymmword ptr ";
    case 512: return "zmmword ptr ";
    default: return "";
    }
}

/* "[r14+64]" or "[r14+rbx+64]". */
static void mem_text(const sw_loc *l, char *buf, size_t len)
{
    if (l->idx >= 0)
        snprintf(buf, len, "[r14+%s+%d]", sw_gpr_name(l->idx, 64), l->disp);
    else
        snprintf(buf, len, "[r14+%d]", l->disp);
}

static const char *imm_text(unsigned bits)
{
    switch (bits) {
    case 0: return "1";
    case 8: return "2";   /* not 1: `shl r, 1` and `rol r, 1` are forms of their own */
    case 16: return "0x1234";
    case 32: return "0x12345678";
    default: return "0x123456789abcdef0";
    }
}

/* One operand as the instance writes it. */
static void op_text(const sw_cb *b, int i, const sw_loc *l, char *buf, size_t len)
{
    const sw_op *o = &b->f->op[i];
    char m[48], v[8];
    buf[0] = '\0';
    if (o->fixed && o->kind >= SWK_GPR && o->kind <= SWK_X87) {
        snprintf(buf, len, "%s", o->kind == SWK_X87 ? "st"
                                 : ZydisRegisterGetString((ZydisRegister)o->reg));
        for (char *p = buf; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
        return;
    }
    switch (o->kind) {
    case SWK_GPR: snprintf(buf, len, "%s", sw_gpr_name(l->reg, o->bits)); return;
    case SWK_VEC: snprintf(buf, len, "%s", vec_name(l->reg, o->bits, v, sizeof v)); return;
    case SWK_MMX: snprintf(buf, len, "mm%d", l->reg); return;
    case SWK_MASK: snprintf(buf, len, "k%d", l->reg); return;
    case SWK_X87: snprintf(buf, len, "st(%d)", l->reg); return;
    case SWK_IMM: snprintf(buf, len, "%s", imm_text(o->bits)); return;
    case SWK_MEM:
        if (o->mem == SWM_AGEN) {
            snprintf(buf, len, "[%s+%d]", sw_gpr_name(l->reg, 64), l->disp);
        } else if (o->mem == SWM_VSIB) {
            snprintf(buf, len, "%s[r14+%s*4+%d]", ptr_word(o->bits),
                     vec_name(l->reg, o->vsib_bits, v, sizeof v), l->disp);
        } else {
            mem_text(l, m, sizeof m);
            if (b->f->bcst)
                snprintf(buf, len, "%s%s{1to%u}", ptr_word(o->bits), m, b->f->bcst);
            else
                snprintf(buf, len, "%s%s", ptr_word(o->bits), m);
        }
        return;
    default:
        return;
    }
}

void sw_instance_text(const sw_cb *b, const sw_loc *L, char *buf, size_t len)
{
    const sweep_form *f = b->f;
    snprintf(buf, len, "%s%s", f->enc == SWE_EVEX ? "{evex} " : "", f->mnemonic);
    bool first = true;
    for (int i = 0; i < f->n_ops; i++) {
        const sw_op *o = &f->op[i];
        if (!o->named)
            continue;
        char t[64];
        if (o->writemask) {
            bool to_k = f->op[0].kind == SWK_MASK;
            add(NULL, buf, len, " {k%d}%s", L[i].reg, f->mask == 2 && !to_k ? "{z}" : "");
            continue;
        }
        op_text(b, i, &L[i], t, sizeof t);
        add(NULL, buf, len, "%s%s", first ? " " : ", ", t);
        first = false;
    }
}

void sw_emit_instance(sw_cb *b, const sw_loc *L)
{
    char t[256];
    sw_instance_text(b, L, t, sizeof t);
    sw_emit(b, t, true);
    const sweep_form *f = b->f;
    for (int i = 0; i < f->n_ops; i++) {
        const sw_op *o = &f->op[i];
        if (!(o->access & SW_WRITE))
            continue;
        if (o->kind >= SWK_GPR && o->kind <= SWK_X87 && L[i].reg >= 0)
            b->written[o->kind] |= 1u << L[i].reg;
        else if (o->kind == SWK_FLAGS)
            b->flags_written = true;
        else if (o->kind == SWK_MEM)
            b->mem_written = true;
    }
}

/* ---- breakers ------------------------------------------------------------ */

/* Where a pointer register points: its own 64 KiB of R14's area, past the
 * lines the operands use (R14 is the middle of 1 MiB). */
static int pointer_offset(int reg)
{
    return 0x10000 * (1 + (reg & 3));
}

int sw_konst(sw_cb *b, int cls)
{
    if (b->konst[cls] < 0)
        b->konst[cls] = (int8_t)sw_alloc(b, cls);
    return b->konst[cls];
}

/* Copy of the whole register from a constant one: vmovdqa64 zmm / vmovdqa
 * ymm / movdqa xmm, whatever the CPU has widest. */
static bool vec_copy(sw_cb *b, int to, int from, char *buf, size_t len)
{
    char x[8], y[8];
    if (b->caps->avx512f)
        snprintf(buf, len, "vmovdqa64 %s, %s", vec_name(to, 512, x, sizeof x),
                 vec_name(from, 512, y, sizeof y));
    else if (to >= 16 || from >= 16)
        return false;
    else if (b->caps->avx)
        snprintf(buf, len, "vmovdqa %s, %s", vec_name(to, 256, x, sizeof x),
                 vec_name(from, 256, y, sizeof y));
    else
        snprintf(buf, len, "movdqa %s, %s", vec_name(to, 128, x, sizeof x),
                 vec_name(from, 128, y, sizeof y));
    return true;
}

/* A store of a stated value over the whole memory operand at *l. */
static bool mem_breaker(sw_cb *b, int i, const sw_loc *l, char *buf, size_t len)
{
    char m[48], v[8];
    mem_text(l, m, sizeof m);
    unsigned bits = b->f->bcst ? b->f->op[i].bits : l->bits;
    if (bits <= 64 && (bits == 8 || bits == 16 || bits == 32 || bits == 64)) {
        long long val = b->dd ? 7 : 1;
        snprintf(buf, len, "mov %s%s, %lld", ptr_word(bits), m, val);
        return true;
    }
    int c = sw_konst(b, SWK_VEC);
    if (c < 0)
        return false;
    if (bits == 512 && b->caps->avx512f)
        snprintf(buf, len, "vmovdqu64 zmmword ptr %s, %s", m, vec_name(c, 512, v, sizeof v));
    else if (bits == 256 && b->caps->avx && (c < 16 || b->caps->avx512vl))
        snprintf(buf, len, "vmovdqu ymmword ptr %s, %s", m, vec_name(c, 256, v, sizeof v));
    else if (bits == 128 && c < 16)
        snprintf(buf, len, "movdqu xmmword ptr %s, %s", m, vec_name(c, 128, v, sizeof v));
    else
        return false;
    return true;
}

/* The mask vector of a VEX gather (vgatherdps xmm, vm32x, xmm: the last). */
static bool is_vex_gather_mask(const sweep_form *f, int i)
{
    bool vsib = false;
    for (int k = 0; k < f->n_ops; k++)
        vsib |= f->op[k].kind == SWK_MEM && f->op[k].mem == SWM_VSIB;
    return vsib && f->enc == SWE_VEX && i > 0 && i < f->n_ops && f->op[i].kind == SWK_VEC;
}

bool sw_emit_breaker(sw_cb *b, int i, const sw_loc *l)
{
    char t[160], x[8];
    int c;
    switch (l->cls) {
    case SWK_GPR:
        if (b->pointer_gpr & (1u << l->reg))
            snprintf(t, sizeof t, "lea %s, [r14+%d]", sw_gpr_name(l->reg, 64),
                     pointer_offset(l->reg));
        else
            snprintf(t, sizeof t, "mov %s, %lld", sw_gpr_name(l->reg, 32), b->gval[l->reg]);
        break;
    case SWK_VEC:
        if (is_vex_gather_mask(b->f, i)) {   /* all ones: every element */
            snprintf(t, sizeof t, "vpcmpeqd %s, %s, %s", vec_name(l->reg, l->bits, x, sizeof x),
                     x, x);
            break;
        }
        if ((c = sw_konst(b, SWK_VEC)) < 0 || !vec_copy(b, l->reg, c, t, sizeof t))
            return false;
        break;
    case SWK_MMX:
        if ((c = sw_konst(b, SWK_MMX)) < 0)
            return false;
        snprintf(t, sizeof t, "movq mm%d, mm%d", l->reg, c);
        break;
    case SWK_MASK:
        if ((c = sw_konst(b, SWK_MASK)) < 0)
            return false;
        snprintf(t, sizeof t, "%s k%d, k%d", b->caps->avx512bw ? "kmovq" : "kmovw", l->reg, c);
        break;
    case SWK_FLAGS:
        if ((c = sw_konst(b, SWK_GPR)) < 0)
            return false;
        snprintf(t, sizeof t, "test %s, %s", sw_gpr_name(c, 32), sw_gpr_name(c, 32));
        break;
    case SWK_MEM:
        if (!mem_breaker(b, i, l, t, sizeof t))
            return false;
        break;
    default:
        return false;
    }
    b->ch->breakers = true;
    sw_emit(b, t, false);
    return true;
}

/* ---- closers ---------------------------------------------------------------- */

static const char *cc_of(uint8_t flag)
{
    switch (flag) {
    case SWF_ZF: return "z";
    case SWF_SF: return "s";
    case SWF_OF: return "o";
    case SWF_PF: return "p";
    default: return "c";
    }
}

/* to := from within one register file; SWC_NONE where nb has no copy. */
static int copy_same(sw_cb *b, const sw_loc *from, const sw_loc *to, char *buf, size_t len)
{
    char x[8], y[8];
    const sw_caps *c = b->caps;
    unsigned w = from->bits > to->bits ? from->bits : to->bits;
    switch (to->cls) {
    case SWK_GPR:
        /* not `mov` or `lea r, [r]`: renaming eliminates those (0 or 1
         * cycle, as it happens); a displacement makes lea an ALU op */
        snprintf(buf, len, "lea %s, [%s+1]", sw_gpr_name(to->reg, 64),
                 sw_gpr_name(from->reg, 64));
        return SWC_EXACT;
    case SWK_VEC:
        if (w >= 512 || to->reg >= 16 || from->reg >= 16) {
            if (!c->avx512f || (w < 512 && !c->avx512vl))
                return SWC_NONE;
            snprintf(buf, len, "vpord %s, %s, %s", vec_name(to->reg, w, x, sizeof x),
                     vec_name(from->reg, w, y, sizeof y), y);
        } else if (w == 256) {
            if (!c->avx)
                return SWC_NONE;
            snprintf(buf, len, "%s %s, %s, %s", c->avx2 ? "vpor" : "vorps",
                     vec_name(to->reg, w, x, sizeof x), vec_name(from->reg, w, y, sizeof y), y);
        } else if (c->avx) {
            snprintf(buf, len, "vpor %s, %s, %s", vec_name(to->reg, 128, x, sizeof x),
                     vec_name(from->reg, 128, y, sizeof y), y);
        } else {
            snprintf(buf, len, "por %s, %s", vec_name(to->reg, 128, x, sizeof x),
                     vec_name(from->reg, 128, y, sizeof y));
        }
        return SWC_EXACT;
    case SWK_MMX:
        snprintf(buf, len, "por mm%d, mm%d", to->reg, from->reg);
        return SWC_EXACT;
    case SWK_MASK:
        snprintf(buf, len, "%s k%d, k%d, k%d", c->avx512bw ? "korq" : "korw", to->reg, from->reg,
                 from->reg);
        return SWC_EXACT;
    default:
        return SWC_NONE;
    }
}

/* A register stored into, or loaded from, memory at *m: w bits of it. */
static bool mem_move(sw_cb *b, const sw_loc *r, const sw_loc *m, bool store, char *buf,
                     size_t len)
{
    char mt[48], v[8];
    mem_text(m, mt, sizeof mt);
    unsigned w = m->bits < r->bits ? m->bits : r->bits;
    const sw_caps *c = b->caps;
    const char *vx = c->avx ? "v" : "";
    const char *fmt2 = store ? "%s %s%s, %s" : "%s %s, %s%s";
    char insn[24];
    const char *reg;
    switch (r->cls) {
    case SWK_GPR:
        if (w > 64)
            w = 64;
        if (w != 8 && w != 16 && w != 32 && w != 64)
            return false;
        reg = sw_gpr_name(r->reg, w);
        snprintf(insn, sizeof insn, "mov");
        break;
    case SWK_VEC:
        reg = vec_name(r->reg, w >= 512 ? 512 : w >= 256 ? 256 : 128, v, sizeof v);
        if (r->reg >= 16 && !c->avx512vl)
            return false;
        if (w >= 512 || (r->reg >= 16 && w >= 128))
            snprintf(insn, sizeof insn, "vmovdqu64");
        else if (w >= 128)
            snprintf(insn, sizeof insn, "%smovdqu", w >= 256 ? "v" : vx);
        else if (w == 64 || w == 32)
            snprintf(insn, sizeof insn, "%smov%c", vx, w == 64 ? 'q' : 'd');
        else
            return false;
        if (w > 512)
            w = 512;
        if (w >= 512 && !c->avx512f)
            return false;
        break;
    case SWK_MMX:
        if (w != 64 && w != 32)
            return false;
        snprintf(v, sizeof v, "mm%d", r->reg);
        reg = v;
        snprintf(insn, sizeof insn, "mov%c", w == 64 ? 'q' : 'd');
        break;
    case SWK_MASK:
        w = w >= 64 && c->avx512bw ? 64 : 16;
        snprintf(v, sizeof v, "k%d", r->reg);
        reg = v;
        snprintf(insn, sizeof insn, "kmov%c", w == 64 ? 'q' : 'w');
        break;
    default:
        return false;
    }
    if (store)
        snprintf(buf, len, fmt2, insn, ptr_word(w), mt, reg);
    else
        snprintf(buf, len, fmt2, insn, reg, ptr_word(w), mt);
    return true;
}

/* The widest general-purpose access within a memory operand of `bits`. */
static unsigned mem_width(unsigned bits)
{
    return bits >= 64 ? 64 : bits >= 32 ? 32 : bits >= 16 ? 16 : 8;
}

/* A general-purpose register only a closer uses (one per chain). */
static int scratch(sw_cb *b)
{
    if (b->scratch < 0)
        b->scratch = (int8_t)sw_alloc(b, SWK_GPR);
    return b->scratch;
}

/* Across register files, or through flags; SWC_NONE where nb has none. */
static int cross(sw_cb *b, const sw_loc *from, const sw_loc *to, char *buf, size_t len,
                 double *min)
{
    char x[8], y[8];
    const sw_caps *c = b->caps;
    const char *v = c->avx ? "v" : "";
    int f = from->cls, t = to->cls;
    *min = 1;
    if (f == SWK_VEC && t == SWK_GPR && (from->reg < 16 || c->avx512f))
        snprintf(buf, len, "%smovq %s, %s", v, sw_gpr_name(to->reg, 64),
                 vec_name(from->reg, 128, x, sizeof x));
    else if (f == SWK_GPR && t == SWK_VEC && (to->reg < 16 || c->avx512f))
        snprintf(buf, len, "%smovq %s, %s", v, vec_name(to->reg, 128, x, sizeof x),
                 sw_gpr_name(from->reg, 64));
    else if ((f == SWK_MMX && t == SWK_GPR) || (f == SWK_GPR && t == SWK_MMX))
        snprintf(buf, len, f == SWK_MMX ? "movq %s, mm%d" : "movq mm%2$d, %1$s",
                 sw_gpr_name(f == SWK_MMX ? to->reg : from->reg, 64),
                 f == SWK_MMX ? from->reg : to->reg);
    else if (f == SWK_VEC && t == SWK_MMX && from->reg < 16)
        snprintf(buf, len, "movdq2q mm%d, xmm%d", to->reg, from->reg);
    else if (f == SWK_MMX && t == SWK_VEC && to->reg < 16)
        snprintf(buf, len, "movq2dq xmm%d, mm%d", to->reg, from->reg);
    else if (f == SWK_MASK && t == SWK_GPR)
        snprintf(buf, len, "%s %s, k%d", c->avx512bw ? "kmovq" : "kmovw",
                 sw_gpr_name(to->reg, c->avx512bw ? 64 : 32), from->reg);
    else if (f == SWK_GPR && t == SWK_MASK)
        snprintf(buf, len, "%s k%d, %s", c->avx512bw ? "kmovq" : "kmovw", to->reg,
                 sw_gpr_name(from->reg, c->avx512bw ? 64 : 32));
    else if (f == SWK_MASK && t == SWK_VEC && c->avx512dq && (to->bits >= 512 || c->avx512vl))
        snprintf(buf, len, "vpmovm2d %s, k%d", vec_name(to->reg, to->bits, x, sizeof x),
                 from->reg);
    else if (f == SWK_VEC && t == SWK_MASK && c->avx512dq && (from->bits >= 512 || c->avx512vl))
        snprintf(buf, len, "vpmovd2m k%d, %s", to->reg,
                 vec_name(from->reg, from->bits, x, sizeof x));
    else if (f == SWK_FLAGS && t == SWK_GPR && from->flag == SWF_CF)
        /* adc keeps the register's value (and a shift count non-zero) */
        snprintf(buf, len, "adc %s, 0", sw_gpr_name(to->reg, 64));
    else if (f == SWK_FLAGS && t == SWK_GPR)
        snprintf(buf, len, "set%s %s", cc_of(from->flag), sw_gpr_name(to->reg, 8));
    else if (f == SWK_GPR && t == SWK_FLAGS)
        snprintf(buf, len, "test %s, %s", sw_gpr_name(from->reg, 64), sw_gpr_name(from->reg, 64));
    else if (f == SWK_VEC && t == SWK_FLAGS && (c->avx || c->sse41) && from->reg < 16)
        snprintf(buf, len, "%sptest %s, %s", v, vec_name(from->reg, 128, x, sizeof x),
                 vec_name(from->reg, 128, y, sizeof y));
    else if (f == SWK_MASK && t == SWK_FLAGS)
        snprintf(buf, len, "kortestw k%d, k%d", from->reg, from->reg);
    else if (f == SWK_FLAGS && t == SWK_VEC && (to->reg < 16 || c->avx512f)) {
        /* through a scratch register of its own */
        int s = scratch(b);
        if (s < 0)
            return SWC_NONE;
        snprintf(buf, len, "set%s %s; %smovq %s, %s", cc_of(from->flag), sw_gpr_name(s, 8), v,
                 vec_name(to->reg, 128, x, sizeof x), sw_gpr_name(s, 64));
    } else if (f == SWK_FLAGS && t == SWK_MEM && to->idx < 0) {
        /* a store as wide as the operand (up to 64 bits), so that the
         * form's load can forward from it */
        char m[48];
        mem_text(to, m, sizeof m);
        unsigned w = mem_width(to->bits);
        int s = scratch(b);
        if (s < 0)
            return SWC_NONE;
        if (w == 8)
            snprintf(buf, len, "set%s %s%s", cc_of(from->flag), ptr_word(8), m);
        else
            snprintf(buf, len, "set%s %s; mov %s%s, %s", cc_of(from->flag), sw_gpr_name(s, 8),
                     ptr_word(w), m, sw_gpr_name(s, w));
        *min = 0;
    } else if (f == SWK_MEM && t == SWK_FLAGS) {
        char m[48];
        mem_text(from, m, sizeof m);
        snprintf(buf, len, "cmp %s%s, 0", ptr_word(mem_width(from->bits)), m);
        *min = 0;
    }
    else if (t == SWK_MEM && f != SWK_MEM && to->idx < 0) {
        *min = 0;   /* a store: forwarding can make it free */
        return mem_move(b, from, to, true, buf, len) ? SWC_BOUND : SWC_NONE;
    } else if (f == SWK_MEM && t != SWK_MEM) {
        *min = 0;   /* a load forwarded by memory renaming: about free too */
        return mem_move(b, to, from, false, buf, len) ? SWC_BOUND : SWC_NONE;
    }
    else
        return SWC_NONE;
    return SWC_BOUND;
}

int sw_closer_text(sw_cb *b, const sw_loc *from, const sw_loc *to, long long restore,
                   bool do_restore, char *buf, size_t len, double *min)
{
    buf[0] = '\0';
    *min = 0;
    int kind;
    if (to->cls == SWK_MEM && to->idx >= 0) {
        /* into an address: idx := idx & from keeps idx 0 and depends on from */
        if (from->cls != SWK_GPR)
            return SWC_NONE;
        snprintf(buf, len, "and %s, %s", sw_gpr_name(to->idx, 64), sw_gpr_name(from->reg, 64));
        kind = SWC_EXACT;
    } else if (from->cls == to->cls && from->cls != SWK_MEM && from->cls != SWK_FLAGS) {
        if (from->reg == to->reg)
            kind = SWC_EXACT;   /* the same register: only a restore */
        else
            kind = copy_same(b, from, to, buf, len);
    } else {
        kind = cross(b, from, to, buf, len, min);
    }
    if (kind == SWC_NONE)
        return kind;
    if (do_restore && to->cls == SWK_GPR) {
        const char *r = sw_gpr_name(to->reg, 32);
        add(b, buf, len, "%sand %s, 0; or %s, %lld", buf[0] ? "; " : "", r, r, restore);
    }
    if (!buf[0])
        return SWC_NONE;
    return kind;
}

/* ---- init ----------------------------------------------------------------- */

static unsigned widest(const sw_caps *c)
{
    return c->avx512f ? 512 : c->avx ? 256 : 128;
}

/* The value pattern in xmm0/ymm0/zmm0 (rax holds its 64 bits after). */
static void init_pattern(sw_cb *b, char *s, size_t len)
{
    const char *pat = b->fp == 'd' ? "0x3ff0000000000000" : "0x3f8000003f800000";
    add(b, s, len, "mov rax, %s; %smovq xmm0, rax", pat, b->caps->avx ? "v" : "");
    unsigned w = widest(b->caps);
    if (w == 512)
        add(b, s, len, "; vpbroadcastq zmm0, xmm0");
    else if (w == 256 && b->caps->avx2)
        add(b, s, len, "; vpbroadcastq ymm0, xmm0");
    else if (w == 256)
        add(b, s, len, "; vmovddup xmm0, xmm0; vinsertf128 ymm0, ymm0, xmm0, 1");
    else
        add(b, s, len, "; punpcklqdq xmm0, xmm0");
}

static void init_lines(sw_cb *b, char *s, size_t len)
{
    unsigned w = widest(b->caps);
    for (int k = 1; k <= b->n_lines; k++) {
        for (unsigned off = 0; off < 64; off += w / 8) {
            if (w == 512)
                add(b, s, len, "; vmovdqu64 zmmword ptr [r14+%d], zmm0", 64 * k);
            else if (w == 256)
                add(b, s, len, "; vmovdqu ymmword ptr [r14+%u], ymm0", 64 * k + off);
            else
                add(b, s, len, "; movdqu xmmword ptr [r14+%u], xmm0", 64 * k + off);
        }
        if (b->line_has_val & (1ull << k))
            add(b, s, len, "; mov qword ptr [r14+%d], %lld", 64 * k, b->line_val[k]);
    }
}

static void init_vectors(sw_cb *b, char *s, size_t len)
{
    unsigned w = widest(b->caps);
    char x[8], y[8];
    uint32_t v = b->used[SWK_VEC];
    for (int r = 31; r >= 0; r--) {   /* 0 last: it holds the pattern */
        if (!(v & (1u << r)) || (r == 0 && !(b->zeroed_vec & 1)))
            continue;
        const char *to = vec_name(r, w, x, sizeof x);
        if ((b->zeroed_vec & (1u << r)) && (w == 512 || b->caps->avx))
            add(b, s, len, "; %s %s, %s, %s", w == 512 ? "vpxord" : "vpxor", to, to, to);
        else if (b->zeroed_vec & (1u << r))
            add(b, s, len, "; pxor %s, %s", to, to);
        else
            add(b, s, len, "; %s %s, %s", w == 512 ? "vmovdqa64" : b->caps->avx ? "vmovdqa" : "movdqa",
                to, vec_name(0, w, y, sizeof y));
    }
}

void sw_write_init(sw_cb *b)
{
    char *s = b->ch->init;
    size_t len = sizeof b->ch->init;
    s[0] = '\0';
    bool vec = b->used[SWK_VEC] || b->n_lines || b->used[SWK_MMX] || b->konst[SWK_VEC] >= 0;
    if (vec) {
        init_pattern(b, s, len);
        init_lines(b, s, len);
        init_vectors(b, s, len);
        for (int r = 0; r < 8; r++)
            if (b->used[SWK_MMX] & (1u << r))
                add(b, s, len, "; movq mm%d, rax", r);
    }
    if (b->used[SWK_MASK]) {
        add(b, s, len, "%smov rax, -1", s[0] ? "; " : "");
        for (int r = 1; r < 8; r++)
            if (b->used[SWK_MASK] & (1u << r))
                add(b, s, len, b->caps->avx512bw ? "; kmovq k%d, rax" : "; kmovw k%d, eax", r);
    }
    if (b->used[SWK_X87])
        add(b, s, len, "%sfninit; fld1; fld1; fld1; fld1; fld1; fld1; fld1; fld1",
            s[0] ? "; " : "");
    for (int r = 0; r < 16; r++) {
        if (r == GPR_RSP || r == GPR_R14)
            continue;
        if (b->pointer_gpr & (1u << r)) {
            add(b, s, len, "%slea %s, [r14+%d]", s[0] ? "; " : "", sw_gpr_name(r, 64),
                pointer_offset(r));
        } else if (b->used[SWK_GPR] & (1u << r)) {
            add(b, s, len, "%smov %s, %lld", s[0] ? "; " : "", sw_gpr_name(r, 32), b->gval[r]);
        }
    }
}
