/* Sweep chains: the code that measures one form (see sweep_internal.h).
 *
 * Throughput: N instances in one copy, each writing registers (and memory
 * lines) of its own and reading registers no instance writes, N as large
 * as the register files allow (at most 12); the engine repeats the copy.
 * A form whose written operands are also read keeps one chain per register
 * through the copies; a second block (tp_broken) puts a dependency breaker
 * before each instance (mov of a stated value, a copy of a constant
 * register, a store of one), and measure.c keeps the lower of the two.
 *
 * Latency, for each input -> output pair of operands (registers, the flags,
 * memory data, a memory operand's address), after uops.info's method:
 *   - the same operand (add rax, rbx: op1 -> op1): every instance uses the
 *     same register, which chains by itself;
 *   - two operands of one register file that the encoding lets nb choose
 *     (op2 -> op1): two instances per copy with the registers swapped,
 *     `add rax, rbx; add rbx, rax`, no second instruction at all;
 *   - otherwise a closer after each instance makes the input depend on the
 *     output: a copy within a register file (lea, vpor, por, korw; its own
 *     latency measured alone and subtracted: exact), or a move between
 *     files, a store or load, a flag test or setcc, whose latency is only
 *     known as a round trip with its way back: the pair's latency is then
 *     a bound (measure.c);
 *   - an address input is chained through an index register that stays 0:
 *     `and idx, out` after each instance, the memory operand [r14+idx+d].
 * Every other input that the chain writes gets a dependency breaker before
 * each instance, so only the pair's path is measured.  DIV and IDIV keep
 * their stated values: closers restore them (`and r, 0; or r, V`, part of
 * the closer whose latency is subtracted), breakers write them. */
#include "sweep/sweep_internal.h"

#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "sys/status.h"

#define TP_MAX_INSTANCES 12

static bool is_reg(int k)
{
    return k == SWK_GPR || k == SWK_VEC || k == SWK_MMX || k == SWK_MASK || k == SWK_X87;
}

static bool is_plain_mem(const sw_op *o)
{
    return o->kind == SWK_MEM && o->mem == SWM_PLAIN;
}

static bool mem_size_known(unsigned bits)
{
    switch (bits) {
    case 8: case 16: case 32: case 64: case 80: case 128: case 256: case 512: return true;
    default: return false;
    }
}

/* The first flag of a mask, CF first. */
static uint8_t first_flag(uint8_t m)
{
    static const uint8_t order[] = {SWF_CF, SWF_ZF, SWF_SF, SWF_OF, SWF_PF};
    for (size_t i = 0; i < sizeof order; i++)
        if (m & order[i])
            return order[i];
    return 0;
}

/* ---- throughput ------------------------------------------------------------ */

/* Instances a copy can hold: each writes fresh registers of its own. */
static int tp_instances(sw_cb *b, const sw_loc *L)
{
    const sweep_form *f = b->f;
    int need[SWK_X87 + 1] = {0}, n_mem = 0;
    for (int i = 0; i < f->n_ops; i++) {
        const sw_op *o = &f->op[i];
        if (is_reg(o->kind) && !o->fixed && (o->access & SW_WRITE) && L[i].reg >= 0)
            need[o->kind]++;
        if (o->kind == SWK_MEM && (o->mem == SWM_PLAIN || o->mem == SWM_VSIB))
            n_mem++;
    }
    int n = TP_MAX_INSTANCES;
    for (int k = SWK_GPR; k <= SWK_X87; k++)
        if (need[k] && 1 + sw_free_count(b, k) / need[k] < n)
            n = 1 + sw_free_count(b, k) / need[k];
    if (n_mem && 1 + (62 - b->n_lines) / n_mem < n)
        n = 1 + (62 - b->n_lines) / n_mem;
    return n < 1 ? 1 : n;
}

/* Whether operand i needs a breaker in a throughput block: it is read and
 * something in the block writes it. */
static bool tp_needs_breaker(const sweep_form *f, int i)
{
    const sw_op *o = &f->op[i];
    /* a writemask is read only, except a gather's (cleared as it goes) */
    if (!(o->access & SW_READ) || (o->writemask && !(o->access & SW_WRITE)))
        return false;
    if (o->kind == SWK_FLAGS)
        return (o->flags_read & o->flags_written) != 0;
    if (is_reg(o->kind) || is_plain_mem(o))
        return (o->access & SW_WRITE) || (o->fixed && o->kind == SWK_GPR);
    return false;
}

static void build_tp(const sweep_form *f, const sw_caps *caps, sw_chain *ch, bool broken,
                     char *example, size_t example_len)
{
    sw_cb b;
    sw_cb_init(&b, f, caps, ch);
    sw_loc L[SW_MAX_OPS] = {{0}};
    for (int i = 0; i < f->n_ops; i++)
        L[i] = sw_loc_fresh(&b, i);
    /* the constant registers breakers copy from, before the count */
    for (int i = 0; broken && i < f->n_ops; i++)
        if (tp_needs_breaker(f, i))
            sw_konst(&b, f->op[i].kind == SWK_FLAGS ? SWK_GPR
                         : f->op[i].kind == SWK_MEM ? SWK_VEC : f->op[i].kind);
    int n = tp_instances(&b, L);
    for (int k = 0; k < n; k++) {
        sw_loc Lk[SW_MAX_OPS];
        memcpy(Lk, L, sizeof Lk);
        bool full = false;
        for (int i = 0; k > 0 && i < f->n_ops; i++) {
            const sw_op *o = &f->op[i];
            if (is_reg(o->kind) && !o->fixed && (o->access & SW_WRITE)) {
                Lk[i] = sw_loc_fresh(&b, i);
                full |= Lk[i].reg < 0;
            } else if (o->kind == SWK_MEM && (o->mem == SWM_PLAIN || o->mem == SWM_VSIB)) {
                Lk[i].disp = sw_line(&b);
            }
        }
        if (full)   /* a register file ran out: the copy holds k instances */
            break;
        for (int i = 0; broken && i < f->n_ops; i++)
            if (tp_needs_breaker(f, i)) {
                sw_loc l = Lk[i];
                if (f->op[i].kind == SWK_FLAGS)
                    l.cls = SWK_FLAGS;
                sw_emit_breaker(&b, i, &l);
            }
        if (k == 0 && example)
            sw_instance_text(&b, Lk, example, example_len);
        sw_emit_instance(&b, Lk);
    }
    sw_write_init(&b);
    if (b.overflow)
        ch->instances = 0;
}

/* ---- latency pairs ------------------------------------------------------------ */

/* "op2", "op2.addr", "mask", "flags", "rax". */
static void endpoint_label(const sweep_form *f, int i, bool addr, char *buf, size_t len)
{
    const sw_op *o = &f->op[i];
    int pos = sweep_form_position(f, i);
    if (o->writemask)
        snprintf(buf, len, "mask");
    else if (o->kind == SWK_FLAGS)
        snprintf(buf, len, "flags");
    else if (pos)
        snprintf(buf, len, "op%d%s", pos, addr ? ".addr" : "");
    else if (is_reg(o->kind)) {
        snprintf(buf, len, "%s", ZydisRegisterGetString((ZydisRegister)o->reg));
        for (char *p = buf; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    } else
        snprintf(buf, len, "mem");
}

/* An operand in a register a hidden memory operand addresses (rsi and rdi
 * of movsb, rbx of xlat): it must keep pointing into memory. */
static bool is_pointer(const sweep_form *f, const sw_op *o)
{
    if (o->kind != SWK_GPR)
        return false;
    ZydisRegister r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64,
                                                      (ZydisRegister)o->reg);
    for (int i = 0; i < f->n_ops; i++)
        if (f->op[i].kind == SWK_MEM && f->op[i].mem == SWM_HIDDEN && o->fixed &&
            ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64,
                                             (ZydisRegister)f->op[i].mem_base) == r)
            return true;
    return false;
}

/* Why pair (from -> to) gets no chain; NULL: it gets one. */
static const char *pair_refused(const sweep_form *f, int from, bool addr, int to, bool dd)
{
    const sw_op *a = &f->op[from], *o = &f->op[to];
    if ((is_pointer(f, a) || is_pointer(f, o)) && from != to)
        return "an address register of an implicit memory operand";
    if (a->kind == SWK_X87 || o->kind == SWK_X87)
        return from == to ? NULL : "x87 stack operands chain only through themselves";
    if (addr)
        return o->kind == SWK_GPR ? NULL : "an address chains only into a general-purpose "
                                           "output";
    if (a->kind == SWK_MEM && o->kind == SWK_MEM)
        return from == to ? NULL : "memory to other memory";
    if (a->kind == SWK_FLAGS && o->kind == SWK_FLAGS)
        return (a->flags_read & o->flags_written) ? NULL : "the flags read are not written";
    if (o->kind == SWK_FLAGS && a->kind != SWK_GPR && a->kind != SWK_VEC && a->kind != SWK_MEM)
        return "flags chain back only into a general-purpose or vector register or memory";
    if (dd && (a->kind != SWK_GPR || o->kind != SWK_GPR))
        return "DIV and IDIV are measured through registers with stated values";
    return NULL;
}

static bool is_input(const sw_op *o)
{
    if (!(o->access & SW_READ))
        return false;
    return is_reg(o->kind) || o->kind == SWK_FLAGS ||
           (o->kind == SWK_MEM && (o->mem == SWM_PLAIN || o->mem == SWM_AGEN));
}

static bool is_output(const sw_op *o)
{
    if (!(o->access & SW_WRITE))
        return false;
    return is_reg(o->kind) || (o->kind == SWK_FLAGS && o->flags_written) || is_plain_mem(o);
}

/* Every input -> output pair of the form. */
static void enumerate_pairs(const sweep_form *f, bool dd, sw_plan *p)
{
    for (int a = 0; a < f->n_ops; a++) {
        const sw_op *in = &f->op[a];
        bool has_addr = is_plain_mem(in);
        if (!is_input(in) && !has_addr)
            continue;
        for (int pass = 0; pass < 2; pass++) {
            bool addr = pass == 1;
            if ((addr && !has_addr) || (!addr && !is_input(in)))
                continue;
            for (int o = 0; o < f->n_ops && p->n_pairs < SW_MAX_PAIRS; o++) {
                if (!is_output(&f->op[o]))
                    continue;
                if (addr && f->op[o].kind != SWK_GPR)
                    continue;   /* an address feeds only a GPR chain */
                sw_pair *q = &p->pair[p->n_pairs++];
                q->from = a;
                q->to = o;
                q->from_addr = addr;
                char x[16], y[16];
                endpoint_label(f, a, addr, x, sizeof x);
                endpoint_label(f, o, false, y, sizeof y);
                snprintf(q->label, sizeof q->label, "%s->%s", x, y);
                q->not_measured = pair_refused(f, a, addr, o, dd);
            }
        }
    }
}

/* The location a pair's input endpoint is written through by a closer. */
static sw_loc input_loc(sw_cb *b, const sw_pair *q, sw_loc *L)
{
    const sw_op *a = &b->f->op[q->from];
    sw_loc l = L[q->from];
    if (q->from_addr) {
        int idx = sw_alloc(b, SWK_GPR);
        L[q->from].idx = (int8_t)idx;
        if (idx >= 0)
            b->gval[idx] = 0;
        l = L[q->from];
        l.cls = SWK_MEM;
    } else if (a->kind == SWK_MEM && a->mem == SWM_AGEN) {
        l.cls = SWK_GPR;   /* lea's base register */
        l.bits = 64;
    } else if (a->kind == SWK_FLAGS) {
        l.cls = SWK_FLAGS;
        l.flag = first_flag(a->flags_read);
    }
    return l;
}

static sw_loc output_loc(const sw_cb *b, const sw_pair *q, const sw_loc *L)
{
    const sw_op *o = &b->f->op[q->to];
    sw_loc l = L[q->to];
    if (o->kind == SWK_FLAGS) {
        l.cls = SWK_FLAGS;
        uint8_t want = o->flags_written;
        l.flag = first_flag(want);
    }
    return l;
}

/* Registers (per class) an instance or the closer writes. */
static void note_writes(const sweep_form *f, const sw_loc *L, const sw_loc *closer_to,
                        uint32_t *w, bool *flags, bool *mem)
{
    for (int i = 0; i < f->n_ops; i++) {
        const sw_op *o = &f->op[i];
        if (!(o->access & SW_WRITE))
            continue;
        if (is_reg(o->kind) && L[i].reg >= 0)
            w[o->kind] |= 1u << L[i].reg;
        else if (o->kind == SWK_FLAGS)
            *flags = true;
        else if (o->kind == SWK_MEM)
            *mem = true;
    }
    if (closer_to) {
        if (is_reg(closer_to->cls) && closer_to->reg >= 0)
            w[closer_to->cls] |= 1u << closer_to->reg;
        if (closer_to->cls == SWK_FLAGS)
            *flags = true;
        if (closer_to->cls == SWK_MEM && closer_to->idx < 0)
            *mem = true;
    }
}

/* Breakers before an instance at L: every input but the pair's own that the
 * chain writes. */
static void pair_breakers(sw_cb *b, const sw_pair *q, const sw_loc *L, const uint32_t *w,
                          bool flags_w, bool mem_w)
{
    const sweep_form *f = b->f;
    for (int i = 0; i < f->n_ops; i++) {
        const sw_op *o = &f->op[i];
        if (!(o->access & SW_READ) || (i == q->from && !q->from_addr))
            continue;
        sw_loc l = L[i];
        if (is_reg(o->kind) && L[i].reg >= 0 && (w[o->kind] & (1u << L[i].reg))) {
            sw_emit_breaker(b, i, &l);
        } else if (o->kind == SWK_FLAGS && flags_w) {
            l.cls = SWK_FLAGS;
            sw_emit_breaker(b, i, &l);
        } else if (is_plain_mem(o) && mem_w) {
            l.idx = -1;   /* stores go to the line itself */
            sw_emit_breaker(b, i, &l);
        }
    }
}

/* The closer's name: its first mnemonics, "lea", "vmovq", "mov+and+or". */
static void closer_name(const char *text, char *buf, size_t len)
{
    buf[0] = '\0';
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, " ;");
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%.*s", used ? "+" : "", (int)n, p);
        p = strchr(p, ';');
        if (!p)
            break;
        p += strspn(p, "; ");
    }
}

/* The register file an operand chains through: lea's address is its base
 * register's. */
static int chain_class(const sw_op *o)
{
    return o->kind == SWK_MEM && o->mem == SWM_AGEN ? SWK_GPR : o->kind;
}

/* Alternation: two operands of one register file both chosen by nb. */
static bool alternates(const sw_cb *b, const sw_pair *q)
{
    const sw_op *a = &b->f->op[q->from], *o = &b->f->op[q->to];
    int ka = chain_class(a);
    return !b->dd && !q->from_addr && q->from != q->to && is_reg(ka) && ka == o->kind &&
           ka != SWK_X87 && !a->fixed && !o->fixed && !a->writemask && !o->writemask;
}

/* The closer of a pair into ch (text after each instance, its self chain). */
static bool pair_closer(sw_cb *b, const sw_pair *q, const sw_loc *out, const sw_loc *in,
                        char *text, size_t len)
{
    sw_chain *ch = b->ch;
    long long restore = in->cls == SWK_GPR ? b->gval[in->reg] : 0;
    double min_back = 0, min_fwd = 0;
    int kind = sw_closer_text(b, out, in, restore, b->dd, text, len, &min_back);
    if (kind == SWC_NONE)
        return false;
    char back[256];
    long long restore_out = out->cls == SWK_GPR ? b->gval[out->reg] : 0;
    int k2 = sw_closer_text(b, in, out, restore_out, b->dd, back, sizeof back, &min_fwd);
    if (k2 == SWC_NONE)
        return false;
    ch->closer = (uint8_t)kind;
    ch->closer_mem = out->cls == SWK_MEM || in->cls == SWK_MEM;
    ch->min_back = min_back;
    ch->min_fwd = min_fwd;
    closer_name(text, ch->closer_name, sizeof ch->closer_name);
    snprintf(ch->closer_self, sizeof ch->closer_self, "%.250s; %.250s", text, back);
    (void)q;
    return true;
}

static bool same_register(const sweep_form *f, int a, int b)
{
    const sw_op *x = &f->op[a], *y = &f->op[b];
    return x->fixed && y->fixed && x->kind == SWK_GPR && y->kind == SWK_GPR &&
           ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, (ZydisRegister)x->reg) ==
               ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64,
                                                (ZydisRegister)y->reg);
}

/* One pair's chain; q->not_measured says why when there is none. */
static void build_pair(const sweep_form *f, const sw_caps *caps, sw_pair *q)
{
    sw_cb b;
    sw_chain *ch = &q->chain;
    sw_cb_init(&b, f, caps, ch);
    sw_loc L[SW_MAX_OPS] = {{0}};
    for (int i = 0; i < f->n_ops; i++)
        L[i] = sw_loc_fresh(&b, i);
    uint32_t w[SWK_X87 + 1] = {0};
    bool flags_w = false, mem_w = false;
    if (alternates(&b, q)) {
        sw_loc L1[SW_MAX_OPS];
        memcpy(L1, L, sizeof L1);
        L1[q->to].reg = L[q->from].reg;
        L1[q->from].reg = L[q->to].reg;
        note_writes(f, L, NULL, w, &flags_w, &mem_w);
        note_writes(f, L1, NULL, w, &flags_w, &mem_w);
        pair_breakers(&b, q, L, w, flags_w, mem_w);
        sw_emit_instance(&b, L);
        pair_breakers(&b, q, L1, w, flags_w, mem_w);
        sw_emit_instance(&b, L1);
    } else {
        sw_loc in = input_loc(&b, q, L), out = output_loc(&b, q, L);
        char text[256] = "";
        /* the same operand, or one register read and written as two
         * (cbw: al in, ax out) */
        bool natural = !q->from_addr && (q->from == q->to || same_register(f, q->from, q->to));
        if ((!natural || b.dd) && !pair_closer(&b, q, &out, &in, text, sizeof text)) {
            q->not_measured = "nb has no closer between these kinds";
            return;
        }
        note_writes(f, L, text[0] ? &in : NULL, w, &flags_w, &mem_w);
        pair_breakers(&b, q, L, w, flags_w, mem_w);
        sw_emit_instance(&b, L);
        if (text[0])
            sw_emit(&b, text, false);
    }
    sw_write_init(&b);
    if (b.overflow)
        q->not_measured = "its chain does not fit nb's buffers";
}

/* ---- the plan ---------------------------------------------------------------- */

static void describe_values(const sweep_form *f, bool dd, char *buf, size_t len)
{
    bool x87 = false, dbl = false;
    for (int i = 0; i < f->n_ops; i++) {
        x87 |= f->op[i].kind == SWK_X87;
        dbl |= f->op[i].elem == 'd' && (f->op[i].kind == SWK_VEC || f->op[i].kind == SWK_MEM);
    }
    if (dd)
        snprintf(buf, len, "dividend 100 (high half 0), divisor 7");
    else
        snprintf(buf, len, "general registers 1; vectors and memory %s in every element; "
                 "masks all ones%s", dbl ? "1.0 (double)" : "1.0f", x87 ? "; x87 stack 1.0" : "");
}

int sweep_plan(const sweep_form *f, const sw_caps *caps, sw_plan *p, nb_error *err)
{
    memset(p, 0, sizeof *p);
    bool vsib = false;
    for (int i = 0; i < f->n_ops; i++) {
        const sw_op *o = &f->op[i];
        if (is_plain_mem(o) && !mem_size_known(o->bits))
            return nb_error_set(err, NB_EUNSUPPORTED, "a memory operand of %u bits (no size "
                                "keyword names it)", o->bits);
        vsib |= o->kind == SWK_MEM && o->mem == SWM_VSIB;
    }
    bool dd = strcmp(f->mnemonic, "div") == 0 || strcmp(f->mnemonic, "idiv") == 0;
    /* DIV's values, and a gather's mask (cleared as it completes), are
     * written again before every instance: no block without breakers */
    build_tp(f, caps, &p->tp, dd || vsib, p->example, sizeof p->example);
    if (!p->tp.instances)
        return nb_error_set(err, NB_EUNSUPPORTED, "its throughput block does not fit nb's "
                            "buffers");
    if (!dd && !vsib) {
        build_tp(f, caps, &p->tp_broken, true, NULL, 0);
        if (!p->tp_broken.breakers)
            p->tp_broken.instances = 0;
    }
    describe_values(f, dd, p->values, sizeof p->values);
    if (vsib) {
        p->latency_note = "gathers and scatters: latency not measured";
        return 0;
    }
    static const char *const serializing[] = {"cpuid", "rdtsc", "rdtscp", "rdpmc", "rdpid",
                                               "rdpru", "xgetbv", "serialize", NULL};
    bool serial = false;
    for (const char *const *s = serializing; *s; s++)
        serial |= strcmp(f->mnemonic, *s) == 0;
    if (serial) {
        p->latency_note = "serializing (cpuid, rdtsc...): latency not measured";
        return 0;
    }
    enumerate_pairs(f, dd, p);
    for (int k = 0; k < p->n_pairs; k++)
        if (!p->pair[k].not_measured)
            build_pair(f, caps, &p->pair[k]);
    if (!p->n_pairs)
        p->latency_note = "no input feeds an output nb can chain";
    return 0;
}
