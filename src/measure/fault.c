/* nb fault: see fault.h.
 *
 * The report is built from two parts: what happened (the signal and what
 * the CPU objected to) and where (fragment, offset, instruction, copy).  A
 * jump into memory that cannot be executed faults at the destination, so
 * for those "where" is the branch that went there, found by decoding every
 * branch of the fragments that were running and checking which one leads to
 * the faulting address with the registers and stack as they were. */
#include <inttypes.h>
#include <linux/audit.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "asm/asm.h"
#include "measure/fault.h"
#include "measure/sandbox.h"

/* x86 exception vectors (REG_TRAPNO) and #PF error code bits. */
enum { X_DE = 0, X_DB = 1, X_BP = 3, X_UD = 6, X_NM = 7, X_SS = 12, X_GP = 13, X_PF = 14,
       X_MF = 16, X_AC = 17, X_XM = 19 };
#define PF_WRITE UINT64_C(0x2)
#define PF_FETCH UINT64_C(0x10)
#define RFLAGS_TF UINT64_C(0x100)

typedef struct strbuf {
    char *p;
    size_t len, used;
} strbuf;

__attribute__((format(printf, 2, 3)))
static void sb_add(strbuf *b, const char *fmt, ...)
{
    if (b->used >= b->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->used, b->len - b->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->used = b->used + (size_t)n < b->len ? b->used + (size_t)n : b->len - 1;
}

const char *fault_signal_name(int sig, char *buf, size_t len)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    case SIGKILL: return "SIGKILL";
    case SIGABRT: return "SIGABRT";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGXCPU: return "SIGXCPU";
    case SIGSTOP: return "SIGSTOP";
    case SIGTSTP: return "SIGTSTP";
    case SIGTTIN: return "SIGTTIN";
    case SIGTTOU: return "SIGTTOU";
    default: snprintf(buf, len, "signal %d", sig); return buf;
    }
}

/* ---- where ---- */

enum { P_FRAG, P_HARNESS, P_PAST_END, P_OUTSIDE, P_NB, P_CAL };

typedef struct place {
    int kind;
    const fault_fragment *frag;
    size_t off;            /* in the fragment; else in the program */
    size_t copy, n_copies; /* copy: 1-based, 0 = not a copy */
    bool copy_unknown;     /* in the copies, but which one is not known */
} place;

static bool copies_decodable(const fault_record *r, const fault_context *c)
{
    /* -no_mem rewrites magic sequences, and then copies differ from -asm */
    return r->lay.copy_stride && r->lay.copy_stride == c->code.len;
}

static const fault_fragment *init_fragment(const fault_record *r, const fault_context *c)
{
    return r->prog == FAULT_PROG_ONE_TIME ? &c->one_time_init : &c->init;
}

static place locate(const fault_record *r, const fault_context *c, uint64_t addr)
{
    place p;
    memset(&p, 0, sizeof p);
    const fault_layout *l = &r->lay;
    if (r->prog == FAULT_PROG_NONE) {
        p.kind = P_NB;
        return p;
    }
    if (!l->base || addr < l->base || addr - l->base >= l->map_len) {
        p.kind = P_OUTSIDE;
        return p;
    }
    uint64_t off = addr - l->base;
    p.off = (size_t)off;
    if (r->prog == FAULT_PROG_CAL) {
        p.kind = P_CAL;
        return p;
    }
    if (off >= l->code_len) {
        p.kind = P_PAST_END;
        return p;
    }
    p.kind = P_FRAG;
    if (r->prog == FAULT_PROG_MEASURE && l->copy_stride && off >= l->copies_off &&
        off < l->copies_end) {
        p.frag = &c->code;
        p.copy = (size_t)(off - l->copies_off) / l->copy_stride + 1;
        p.off = (size_t)(off - l->copies_off) % l->copy_stride;
        p.n_copies = l->n_copies;
        return p;
    }
    if (l->init_len && off >= l->init_off && off - l->init_off < l->init_len) {
        p.frag = init_fragment(r, c);
        p.off = (size_t)(off - l->init_off);
        return p;
    }
    if (r->prog == FAULT_PROG_MEASURE && l->late_init_len && off >= l->late_init_off &&
        off - l->late_init_off < l->late_init_len) {
        p.frag = &c->late_init;
        p.off = (size_t)(off - l->late_init_off);
        return p;
    }
    p.kind = P_HARNESS;
    return p;
}

/* The instruction at a place, as -print_code shows it (offsets from the
 * fragment's start); the executed bytes where the fragment's differ. */
static void insn_text(const fault_record *r, const fault_context *c, const place *p,
                      uint64_t addr, char *t, size_t n)
{
    t[0] = 0;
    if (p->kind == P_FRAG && p->frag->bytes && p->off < p->frag->len &&
        (p->copy == 0 || copies_decodable(r, c))) {
        size_t len = asm_disasm_one(p->frag->bytes + p->off, p->frag->len - p->off, p->off, t, n);
        bool same = addr != r->insn_addr || r->n_insn < len ||
                    memcmp(r->insn, p->frag->bytes + p->off, len) == 0;
        if (len && same)
            return;
    }
    if (addr == r->insn_addr && r->n_insn)
        asm_disasm_one(r->insn, r->n_insn, addr, t, n);
}

static void place_text(strbuf *b, const fault_record *r, const fault_context *c,
                       const place *p, uint64_t addr, const char *prep)
{
    char ins[160];
    insn_text(r, c, p, addr, ins, sizeof ins);
    char paren[176] = "";
    if (ins[0])
        snprintf(paren, sizeof paren, " (%s)", ins);
    switch (p->kind) {
    case P_FRAG:
        sb_add(b, "%s +0x%zx%s in %s", prep, p->off, paren, p->frag->name);
        if (p->copy)
            sb_add(b, ", copy %zu of %zu", p->copy, p->n_copies);
        else if (p->copy_unknown)
            sb_add(b, " (which of its %zu copies is not known)", p->n_copies);
        break;
    case P_HARNESS:
        sb_add(b, "%s +0x%zx%s of nb's generated harness, not in the benchmark code", prep,
               p->off, paren);
        break;
    case P_PAST_END:
        sb_add(b, "%s +0x%zx of the generated program, past the end of its code%s", prep,
               p->off, paren);
        break;
    case P_CAL:
        sb_add(b, "%s +0x%zx%s of nb's TSC calibration code, not in the benchmark code", prep,
               p->off, paren);
        break;
    case P_OUTSIDE:
        sb_add(b, "%s 0x%" PRIx64 "%s, outside the generated code", prep, addr, paren);
        break;
    default:
        sb_add(b, "%s 0x%" PRIx64 " in nb's own code", prep, addr);
        break;
    }
}

/* ---- the branch that jumped to a faulting destination ---- */

typedef struct origin {
    bool found, exact;
    place at;
    uint64_t addr;
    bool is_ret;
} origin;

static bool is_branch(const asm_insn_facts *f)
{
    return strcmp(f->category, "CALL") == 0 || strcmp(f->category, "RET") == 0 ||
           strcmp(f->category, "UNCOND_BR") == 0 || strcmp(f->category, "COND_BR") == 0;
}

/* k with base + k * stride + x == want, 0 <= k < n; -1 if none. */
static long solve_copy(uint64_t want, uint64_t base, uint64_t x, size_t stride, size_t n)
{
    uint64_t first = base + x;
    if (want < first)
        return -1;
    uint64_t d = want - first;
    if (n <= 1 || stride == 0)
        return d == 0 ? 0 : -1;
    if (d % stride || d / stride >= n)
        return -1;
    return (long)(d / stride);
}

static void search_fragment(const fault_record *r, const fault_fragment *f, size_t prog_off,
                            size_t stride, size_t n, uint64_t dest, origin *o)
{
    if (!f->bytes)
        return;
    uint64_t base = r->lay.base + prog_off;
    for (size_t off = 0; off < f->len && !o->exact;) {
        asm_insn_facts fa;
        size_t len = asm_insn_facts_get(f->bytes + off, f->len - off, off, r->reg, &fa);
        if (!len) {
            off++;
            continue;
        }
        if (is_branch(&fa)) {
            long k = -1;
            bool cand = false, ret = strcmp(fa.category, "RET") == 0;
            if (fa.branch_relative)
                k = solve_copy(dest, base, fa.branch_target, stride, n);
            if (k < 0 && strcmp(fa.category, "CALL") == 0 && r->at_rsp_ok &&
                (fa.branch_relative ? false : fa.branch_reg < 0 || r->reg[fa.branch_reg] == dest))
                k = solve_copy(r->at_rsp, base, off + len, stride, n);
            if (k < 0 && fa.branch_reg >= 0 && r->reg[fa.branch_reg] == dest)
                cand = true;
            if (k < 0 && ret && r->below_rsp_ok && r->below_rsp == dest)
                cand = true;
            if (k >= 0 || (cand && !o->found)) {
                o->found = true;
                o->exact = k >= 0;
                o->is_ret = ret;
                o->at.kind = P_FRAG;
                o->at.frag = f;
                o->at.off = off;
                o->at.n_copies = n > 1 ? n : 0;
                o->at.copy = n > 1 && k >= 0 ? (size_t)k + 1 : 0;
                o->at.copy_unknown = n > 1 && k < 0;
                o->addr = base + (k > 0 ? (uint64_t)k * stride : 0) + off;
            }
        }
        off += len;
    }
}

static origin find_origin(const fault_record *r, const fault_context *c, uint64_t dest)
{
    origin o;
    memset(&o, 0, sizeof o);
    const fault_layout *l = &r->lay;
    if (!l->base)
        return o;
    if (r->prog == FAULT_PROG_MEASURE && copies_decodable(r, c))
        search_fragment(r, &c->code, l->copies_off, l->copy_stride, l->n_copies, dest, &o);
    if (r->prog == FAULT_PROG_MEASURE || r->prog == FAULT_PROG_ONE_TIME)
        search_fragment(r, init_fragment(r, c), l->init_off, 0, 1, dest, &o);
    if (r->prog == FAULT_PROG_MEASURE)
        search_fragment(r, &c->late_init, l->late_init_off, 0, 1, dest, &o);
    return o;
}

/* ---- what ---- */

static const fault_area *area_at(const fault_record *r, uint64_t a, int *side)
{
    for (size_t i = 0; i < r->n_area && i < FAULT_MAX_AREAS; i++) {
        const fault_area *m = &r->area[i];
        if (a >= m->start && a - m->start < m->size) {
            *side = 0;
            return m;
        }
        if (a < m->start && m->start - a <= m->guard) {
            *side = -1;
            return m;
        }
        if (a >= m->start + m->size && a - (m->start + m->size) < m->guard) {
            *side = 1;
            return m;
        }
    }
    return NULL;
}

static bool canonical(uint64_t a)
{
    uint64_t top = a >> 47;
    return top == 0 || top == 0x1FFFF;
}

static void size_text(char *buf, size_t len, uint64_t size)
{
    if (size >= (1u << 20) && size % (1u << 20) == 0)
        snprintf(buf, len, "%" PRIu64 " MB", size >> 20);
    else if (size >= 1024 && size % 1024 == 0)
        snprintf(buf, len, "%" PRIu64 " KB", size >> 10);
    else
        snprintf(buf, len, "%" PRIu64 " bytes", size);
}

static bool mnemonic_in(const asm_insn_facts *f, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(f->mnemonic, list[i]) == 0)
            return true;
    return false;
}

static const asm_mem_operand *stack_operand(const asm_insn_facts *f)
{
    for (unsigned i = 0; i < f->n_mem; i++)
        if (f->mem[i].base == FAULT_RSP)
            return &f->mem[i];
    return NULL;
}

/* SIGSEGV from a page fault.  Sets *jump when the fault was fetching code
 * (the report then names the branch that went there). */
static void what_page_fault(strbuf *b, const fault_record *r, const asm_insn_facts *f, bool *jump)
{
    uint64_t a = r->addr;
    int side = 0;
    const fault_area *m = area_at(r, a, &side);
    bool accerr = r->code == SEGV_ACCERR;
    if ((r->trapno == X_PF && (r->err & PF_FETCH)) || a == r->reg[FAULT_RIP]) {
        *jump = true;
        sb_add(b, "it jumped to 0x%" PRIx64 ", which ", a);
        if (m && side == 0)
            sb_add(b, "is not executable (%s's memory area)", m->name);
        else if (m)
            sb_add(b, "is a guard page next to %s's memory area", m->name);
        else if (!canonical(a))
            sb_add(b, "is not a canonical address");
        else
            sb_add(b, "%s", accerr ? "is not executable" : "is not mapped");
        return;
    }
    const char *rw = r->trapno == X_PF ? (r->err & PF_WRITE ? "write to" : "read of") : "access to";
    if (m && side != 0) {
        char sz[32];
        size_text(sz, sizeof sz, m->size);
        if (strcmp(m->name, "RSP") == 0 && side < 0)
            sb_add(b, "stack overflow: %s 0x%" PRIx64 ", in the guard page below RSP's %s area "
                   "(RSP = 0x%" PRIx64 ")", rw, a, sz, r->reg[FAULT_RSP]);
        else
            sb_add(b, "%s 0x%" PRIx64 ", in the guard page %s %s's %s memory area", rw, a,
                   side < 0 ? "below" : "above", m->name, sz);
        return;
    }
    /* mapped but refused: a write where reading works is to read-only memory */
    const char *kind = !accerr ? "unmapped"
                       : r->addr_readable && (r->err & PF_WRITE) ? "read-only" : "inaccessible";
    const asm_mem_operand *st = stack_operand(f);
    if (st && st->hidden) {
        sb_add(b, "%s %s address 0x%" PRIx64 " on the stack: RSP = 0x%" PRIx64
               " does not point into usable memory", rw, kind, a, r->reg[FAULT_RSP]);
        return;
    }
    sb_add(b, "%s %s address 0x%" PRIx64, rw, kind, a);
    if (a < 4096)
        sb_add(b, " (a null pointer)");
}

/* SIGSEGV from a general-protection fault (#GP, no address from the CPU). */
static void what_gp(strbuf *b, const asm_insn_facts *f)
{
    static const char *const io[] = {"cli", "sti", "in", "out", "insb", "insw", "insd",
                                     "outsb", "outsw", "outsd", NULL};
    static const char *const tsc[] = {"rdtsc", "rdtscp", NULL};
    if (!f->length) {
        sb_add(b, "general protection fault (#GP) at bytes that do not decode");
        return;
    }
    if (f->privileged) {
        sb_add(b, "privileged instruction: %s runs in ring 0 (the kernel) only", f->text);
        return;
    }
    if (mnemonic_in(f, io)) {
        sb_add(b, "privileged instruction: %s needs I/O privilege (IOPL 3) or ring 0",
               f->mnemonic);
        return;
    }
    if (strcmp(f->mnemonic, "rdpmc") == 0) {
        sb_add(b, "privileged instruction here: rdpmc is not allowed in user mode (CR4.PCE "
               "is clear: no perf event of this process is open, or the sysfs rdpmc switch is 0)");
        return;
    }
    if (mnemonic_in(f, tsc)) {
        sb_add(b, "privileged instruction here: %s is disabled for this process (CR4.TSD)",
               f->mnemonic);
        return;
    }
    if (strcmp(f->text, "int 0x80") == 0) {
        sb_add(b, "int 0x80 (a 32-bit system call) is not open here: this kernel takes no "
               "32-bit system calls");
        return;
    }
    if (strcmp(f->category, "INTERRUPT") == 0 || strcmp(f->category, "SYSTEM") == 0) {
        sb_add(b, "privileged instruction: %s is not open to user mode", f->text);
        return;
    }
    for (unsigned i = 0; i < f->n_mem; i++) {
        const asm_mem_operand *m = &f->mem[i];
        if (m->addr_known && !canonical(m->addr)) {
            sb_add(b, "general protection fault: 0x%" PRIx64 " is not a canonical address "
                   "(bits 63-47 must all equal bit 47)", m->addr);
            return;
        }
    }
    for (unsigned i = 0; i < f->n_mem; i++) {
        const asm_mem_operand *m = &f->mem[i];
        if (m->addr_known && m->size >= 16 && m->addr % m->size) {
            sb_add(b, "general protection fault: misaligned %u-byte memory operand at 0x%" PRIx64
                   "; %s needs it %u-byte aligned", m->size, m->addr, f->mnemonic, m->size);
            return;
        }
    }
    sb_add(b, "general protection fault (#GP)");
}

static void what_sigill(strbuf *b, const fault_record *r, const fault_context *c,
                        const asm_insn_facts *f)
{
    static const char *const ud[] = {"ud0", "ud1", "ud2", NULL};
    if (!f->length) {
        sb_add(b, "illegal instruction: the bytes do not decode as an x86-64 instruction");
        return;
    }
    if (mnemonic_in(f, ud)) {
        sb_add(b, "invalid instruction: %s raises #UD by design", f->mnemonic);
        return;
    }
    char need[96];
    cpu_isa_state st = (c->isa_status ? c->isa_status : cpu_isa_status)(f->isa_set, need,
                                                                         sizeof need);
    if (st == CPU_ISA_MISSING) {
        sb_add(b, "instruction not supported by this CPU (needs %s)", need);
        return;
    }
    if (st == CPU_ISA_OS_OFF) {
        sb_add(b, "instruction not enabled: the CPU has %s, but the OS has not enabled its "
               "register state (XCR0)", need);
        return;
    }
    if (f->privileged || r->code == ILL_PRVOPC) {
        sb_add(b, "privileged instruction: %s is not allowed in user mode", f->mnemonic);
        return;
    }
    if (st == CPU_ISA_OK && strncmp(f->isa_set, "AMX", 3) == 0) {
        sb_add(b, "illegal instruction: the CPU has %s, but the kernel did not enable it for "
               "this process", need);
        return;
    }
    sb_add(b, "illegal instruction: the CPU raised #UD (invalid opcode, prefix or operands "
           "for %s)", f->mnemonic);
}

static void what_sigfpe(strbuf *b, const fault_record *r, const asm_insn_facts *f)
{
    const char *where = r->trapno == X_MF ? "the x87 control word" : "MXCSR";
    switch (r->code) {
    case FPE_INTDIV:
        if (f->reg0 >= 0 && f->reg0_value == 0)
            sb_add(b, "integer division by zero (the divisor is 0)");
        else if (f->reg0 >= 0)
            sb_add(b, "integer division overflow: the quotient does not fit the destination "
                   "(divisor 0x%" PRIx64 ")", f->reg0_value);
        else
            sb_add(b, "integer division error: division by zero, or a quotient that does not "
                   "fit the destination");
        return;
    case FPE_INTOVF: sb_add(b, "integer overflow (into)"); return;
    case FPE_FLTDIV: sb_add(b, "floating-point division by zero, unmasked in %s", where); return;
    case FPE_FLTOVF: sb_add(b, "floating-point overflow, unmasked in %s", where); return;
    case FPE_FLTUND: sb_add(b, "floating-point underflow, unmasked in %s", where); return;
    case FPE_FLTRES: sb_add(b, "floating-point inexact result, unmasked in %s", where); return;
    case FPE_FLTINV: sb_add(b, "floating-point invalid operation, unmasked in %s", where); return;
    default: sb_add(b, "arithmetic exception"); return;
    }
}

static void what_sigbus(strbuf *b, const fault_record *r, const asm_insn_facts *f)
{
    const asm_mem_operand *m = NULL;
    for (unsigned i = 0; i < f->n_mem && !m; i++)
        if (f->mem[i].addr_known)
            m = &f->mem[i];
    if (r->trapno == X_AC) {
        if (m)
            sb_add(b, "alignment check: misaligned %u-byte access at 0x%" PRIx64
                   " with EFLAGS.AC set", m->size, m->addr);
        else
            sb_add(b, "alignment check: misaligned access with EFLAGS.AC set");
        return;
    }
    if (r->trapno == X_SS) {
        sb_add(b, "stack-segment fault: the stack address (RSP = 0x%" PRIx64 ") is %s",
               r->reg[FAULT_RSP], canonical(r->reg[FAULT_RSP]) ? "not usable" : "not canonical");
        return;
    }
    switch (r->code) {
    case BUS_ADRALN: sb_add(b, "misaligned access at 0x%" PRIx64, r->addr); return;
    case BUS_ADRERR: sb_add(b, "access to 0x%" PRIx64 ", beyond the end of a mapped file", r->addr); return;
#ifdef BUS_MCEERR_AR
    case BUS_MCEERR_AR:
    case BUS_MCEERR_AO: sb_add(b, "hardware memory error at 0x%" PRIx64, r->addr); return;
#endif
    default: sb_add(b, "bus error at 0x%" PRIx64, r->addr); return;
    }
}

static void what_sigtrap(strbuf *b, const fault_record *r, const asm_insn_facts *f)
{
    if (r->trapno == X_BP)
        sb_add(b, "breakpoint: %s", f->length ? f->text : "int3");
    else if (r->trapno == X_DB && (r->reg[FAULT_RFLAGS] & RFLAGS_TF))
        sb_add(b, "single-step trap: EFLAGS.TF is set, so the CPU traps after every "
               "instruction (this is the next one)");
    else if (r->trapno == X_DB && f->length && strcmp(f->mnemonic, "int1") == 0)
        sb_add(b, "debug trap: int1 (icebp) raises #DB by design");
    else if (r->trapno == X_DB)
        sb_add(b, "debug trap (#DB)");
    else
        sb_add(b, "trap");
}

void fault_describe(const fault_record *r, const fault_context *c, char *buf, size_t len)
{
    strbuf b = {buf, len, 0};
    if (len)
        buf[0] = 0;
    char sn[32];
    const char *sig = fault_signal_name(r->signo, sn, sizeof sn);
    asm_insn_facts f;
    if (!r->n_insn || !asm_insn_facts_get(r->insn, r->n_insn, r->insn_addr, r->reg, &f)) {
        memset(&f, 0, sizeof f);
        f.reg0 = f.branch_reg = -1;
        f.category = f.isa_set = "";
    }
    place p = locate(r, c, r->insn_addr);

    if (r->stopped) {
        if (!r->code_ran) {
            sb_add(&b, "-timeout %g s ran out before the benchmark code started: nb was still "
                   "preparing the run (generating the code, calibrating the clock), which took "
                   "longer than that here; nothing was measured (give -timeout more time)",
                   c->timeout);
            return;
        }
        if (r->prog == FAULT_PROG_NONE || r->prog == FAULT_PROG_CAL) {
            sb_add(&b, "the benchmark's runs together took longer than %g s (-timeout); it was "
                   "stopped between two of them (in nb's %s)", c->timeout,
                   r->prog == FAULT_PROG_CAL ? "clock calibration" : "own code");
            return;
        }
        sb_add(&b, "the benchmark code did not finish within %g s (-timeout); it was stopped ",
               c->timeout);
        place_text(&b, r, c, &p, r->insn_addr, "at");
        return;
    }
    if (r->prog == FAULT_PROG_NONE) {
        sb_add(&b, "nb's measuring process raised %s in its own code at 0x%" PRIx64
               " (not in the benchmark code; a bug in nb)", sig, r->reg[FAULT_RIP]);
        if (r->signo == SIGSEGV || r->signo == SIGBUS)
            sb_add(&b, "; faulting address 0x%" PRIx64, r->addr);
        if (r->signo == SIGSYS) {
            const char *name = sandbox_syscall_name(r->sys_nr);
            sb_add(&b, "; the system call trapped: %s (number %ld)", name ? name : "?", r->sys_nr);
        }
        return;
    }
    if (r->signo == SIGSYS) {
        const char *name = r->sys_arch == AUDIT_ARCH_X86_64 ? sandbox_syscall_name(r->sys_nr) : NULL;
        sb_add(&b, "the benchmark code executed a %ssystem call (%s%snumber %ld) ",
               r->sys_arch == AUDIT_ARCH_X86_64 ? "" : "32-bit ", name ? name : "",
               name ? ", " : "", r->sys_nr);
        place_text(&b, r, c, &p, r->insn_addr, "at");
        sb_add(&b, "; system calls are not allowed in benchmark code: nb trapped it (seccomp), "
               "it did not run");
        return;
    }

    char what[512];
    strbuf w = {what, sizeof what, 0};
    what[0] = 0;
    bool jump = false;
    switch (r->signo) {
    case SIGSEGV:
        if (r->trapno == X_GP || (r->code == SI_KERNEL && r->trapno != X_PF))
            what_gp(&w, &f);
        else
            what_page_fault(&w, r, &f, &jump);
        break;
    case SIGILL: what_sigill(&w, r, c, &f); break;
    case SIGFPE: what_sigfpe(&w, r, &f); break;
    case SIGBUS: what_sigbus(&w, r, &f); break;
    case SIGTRAP: what_sigtrap(&w, r, &f); break;
    default: break;
    }
    sb_add(&b, "the benchmark code raised %s", sig);
    if (jump) {
        /* the fault is at the destination: name the branch that went there */
        origin o = find_origin(r, c, r->addr);
        sb_add(&b, ": %s", what);
        if (o.found) {
            sb_add(&b, ", ");
            place_text(&b, r, c, &o.at, o.addr, "from");
            if (o.is_ret)
                sb_add(&b, "; the ret found no return address: the benchmark code runs on its "
                       "own stack, with nothing to return to");
        } else {
            sb_add(&b, "; the branch that went there is not known");
        }
        return;
    }
    sb_add(&b, " ");
    place_text(&b, r, c, &p, r->insn_addr, "at");
    if (what[0])
        sb_add(&b, ": %s", what);
}
