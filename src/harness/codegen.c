/* nb codegen: see codegen.h for the layout of the generated program.
 *
 * Generation runs twice over the same emitter: once counting bytes only (so
 * the mapping can be sized exactly and the data block placed right after the
 * code), once writing.  Every instruction of the harness is hand-encoded
 * below with its assembly in a comment; none depends on the assembler. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "harness/codegen.h"
#include "sys/mapping.h"
#include "sys/status.h"

/* -df, nanoBench's drain: after code_init an lfence, 189 one-byte NOPs (the
 * three of the lfence and these keep the 64-byte alignment) and 64
 * fifteen-byte NOPs; after code_late_init another 64 fifteen-byte NOPs (a
 * multiple of 64 bytes, so the copies' alignment holds); after the last copy
 * an lfence and 61 fifteen-byte NOPs, then three NOPs up to the next 32-byte
 * boundary. */
#define DRAIN_NOP1 189
#define DRAIN_NOP15 64
#define DRAIN_END_NOP15 61

typedef struct emitter {
    uint8_t *buf;        /* NULL while counting */
    size_t len;
    size_t data_off;     /* where the data block starts (writing pass) */
} emitter;

static void emit(emitter *e, const void *bytes, size_t n)
{
    if (e->buf && n)
        memcpy(e->buf + e->len, bytes, n);
    e->len += n;
}

static void emit1(emitter *e, uint8_t b) { emit(e, &b, 1); }

static void emit32(emitter *e, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    emit(e, b, 4);
}

static void emit64(emitter *e, uint64_t v)
{
    emit32(e, (uint32_t)v);
    emit32(e, (uint32_t)(v >> 32));
}

/* The disp32 of a RIP-relative operand that addresses data field `field`;
 * valid when nothing follows the displacement in the instruction. */
static void emit_riprel(emitter *e, size_t field)
{
    int64_t disp = (int64_t)(e->data_off + field) - (int64_t)(e->len + 4);
    emit32(e, (uint32_t)(int32_t)disp);
}

/* mov [rip+field], r64 */
static void emit_store64(emitter *e, unsigned reg, size_t field)
{
    emit1(e, (uint8_t)(0x48 | (reg >= 8 ? 0x04 : 0)));   /* REX.W (+R) */
    emit1(e, 0x89);
    emit1(e, (uint8_t)(((reg & 7) << 3) | 5));
    emit_riprel(e, field);
}

/* mov r64, [rip+field] */
static void emit_load64(emitter *e, unsigned reg, size_t field)
{
    emit1(e, (uint8_t)(0x48 | (reg >= 8 ? 0x04 : 0)));
    emit1(e, 0x8B);
    emit1(e, (uint8_t)(((reg & 7) << 3) | 5));
    emit_riprel(e, field);
}

/* mov [rip+field], r32 (eax = 0, edx = 2) */
static void emit_store32(emitter *e, unsigned reg, size_t field)
{
    emit1(e, 0x89);
    emit1(e, (uint8_t)(((reg & 7) << 3) | 5));
    emit_riprel(e, field);
}

/* mov r64, imm64 */
static void emit_mov_imm64(emitter *e, unsigned reg, uint64_t v)
{
    emit1(e, (uint8_t)(0x48 | (reg >= 8 ? 0x01 : 0)));   /* REX.W (+B) */
    emit1(e, (uint8_t)(0xB8 + (reg & 7)));
    emit64(e, v);
}

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };

static const uint8_t LFENCE[] = {0x0F, 0xAE, 0xE8};

/* The n-byte NOP, in 15-byte pieces, each as nanoBench encodes it: the
 * 0F 1F /0 forms up to 9 bytes, then 66 prefixes and a CS override in front
 * of the 8-byte form (10 bytes: 66 2E 0F 1F 84 00 00 00 00 00). */
static void emit_nop(emitter *e, size_t n)
{
    static const uint8_t nops[9][9] = {
        {0x90},
        {0x66, 0x90},
        {0x0F, 0x1F, 0x00},
        {0x0F, 0x1F, 0x40, 0x00},
        {0x0F, 0x1F, 0x44, 0x00, 0x00},
        {0x66, 0x0F, 0x1F, 0x44, 0x00, 0x00},
        {0x0F, 0x1F, 0x80, 0x00, 0x00, 0x00, 0x00},
        {0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
        {0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
    };
    while (n > 0) {
        size_t k = n > 15 ? 15 : n;
        if (k <= 9) {
            emit(e, nops[k - 1], k);
        } else {
            for (size_t i = 0; i < k - 9; i++)
                emit1(e, 0x66);
            emit1(e, 0x2E);
            emit(e, nops[7], 8);   /* nopw %cs:0x0(%rax,%rax,1) */
        }
        n -= k;
    }
}

/* -df after code_init: lfence, 189 one-byte NOPs, 64 fifteen-byte NOPs. */
static void emit_drain(emitter *e)
{
    emit(e, LFENCE, sizeof LFENCE);
    for (int i = 0; i < DRAIN_NOP1; i++)
        emit1(e, 0x90);
    for (int i = 0; i < DRAIN_NOP15; i++)
        emit_nop(e, 15);
}

/* -df after the last copy: lfence, 61 fifteen-byte NOPs, then three NOPs
 * that end on a 32-byte boundary (at least 14 bytes away, so that each of
 * the three has a byte). */
static void emit_drain_end(emitter *e)
{
    emit(e, LFENCE, sizeof LFENCE);
    for (int i = 0; i < DRAIN_END_NOP15; i++)
        emit_nop(e, 15);
    size_t dist = 32 - e->len % 32;
    if (dist <= 3 * 15 - 32)
        dist += 32;
    size_t n1 = dist - 2 < 15 ? dist - 2 : 15;
    size_t n2 = dist - n1 - 1 < 15 ? dist - n1 - 1 : 15;
    emit_nop(e, n1);
    emit_nop(e, n2);
    emit_nop(e, dist - n1 - n2);
}

/* One counter into EDX:EAX: [mov ecx, imm32;] rdpmc | rdtsc */
static void emit_read_raw(emitter *e, const codegen_read *r)
{
    if (r->kind == PMU_READ_RDPMC) {
        emit1(e, 0xB9);            /* mov ecx, imm32 */
        emit32(e, r->ecx);
        emit1(e, 0x0F);            /* rdpmc */
        emit1(e, 0x33);
    } else {
        emit1(e, 0x0F);            /* rdtsc */
        emit1(e, 0x31);
    }
}

/* rdx = rdx << 32 | rax.  With BMI2 without touching the flags (rorx and
 * lea), else with shl/or. */
static void emit_combine(emitter *e, bool bmi2)
{
    static const uint8_t flagfree[] = {
        0xC4, 0xE3, 0xFB, 0xF0, 0xD2, 0x20,   /* rorx rdx, rdx, 32 */
        0x48, 0x8D, 0x14, 0x02,               /* lea rdx, [rdx + rax] */
    };
    static const uint8_t plain[] = {
        0x48, 0xC1, 0xE2, 0x20,               /* shl rdx, 32 */
        0x48, 0x09, 0xC2,                     /* or rdx, rax */
    };
    if (bmi2)
        emit(e, flagfree, sizeof flagfree);
    else
        emit(e, plain, sizeof plain);
}

/* Memory mode: read all counters into m[], keeping every register and flag.
 * lfence before and after each read keeps the read from overlapping the
 * measured code on either side. */
static void emit_read_mem(emitter *e, const codegen_params *p, size_t field)
{
    if (p->n_reads == 0)
        return;
    emit_store64(e, RAX, offsetof(codegen_data, tmp_rax));
    emit_store64(e, RCX, offsetof(codegen_data, tmp_rcx));
    emit_store64(e, RDX, offsetof(codegen_data, tmp_rdx));
    for (size_t i = 0; i < p->n_reads; i++) {
        if (p->reads[i].kind == PMU_READ_NONE)
            continue;
        emit(e, LFENCE, sizeof LFENCE);
        emit_read_raw(e, &p->reads[i]);
        emit(e, LFENCE, sizeof LFENCE);
        emit_store32(e, RAX, field + 8 * i);
        emit_store32(e, RDX, field + 8 * i + 4);
    }
    emit_load64(e, RAX, offsetof(codegen_data, tmp_rax));
    emit_load64(e, RCX, offsetof(codegen_data, tmp_rcx));
    emit_load64(e, RDX, offsetof(codegen_data, tmp_rdx));
}

static bool same_read(const codegen_read *a, const codegen_read *b)
{
    return a->kind == b->kind && (a->kind != PMU_READ_RDPMC || a->ecx == b->ecx);
}

/* The first read that is the same instruction as read i. */
static size_t first_equal(const codegen_params *p, size_t i)
{
    for (size_t q = 0; q < i; q++)
        if (same_read(&p->reads[q], &p->reads[i]))
            return q;
    return i;
}

/* -no_mem: read i lives in R8 + no_mem_slot(i); equal reads share one. */
static size_t no_mem_slot(const codegen_params *p, size_t i)
{
    size_t f = first_equal(p, i), k = 0;
    for (size_t j = 0; j < f; j++)
        k += p->reads[j].kind != PMU_READ_NONE && first_equal(p, j) == j;
    return k;
}

static size_t no_mem_unique(const codegen_params *p)
{
    size_t n = 0;
    for (size_t j = 0; j < p->n_reads; j++)
        n += p->reads[j].kind != PMU_READ_NONE && first_equal(p, j) == j;
    return n;
}

enum { NM_SET, NM_SUB, NM_ADD, NM_END };

/* -no_mem: every distinct counter into R8+k (NM_SET, before the code),
 * subtracted from / added to it (NM_SUB / NM_ADD: the magic pause and
 * resume), or replaced by its difference from the value there (NM_END, after
 * the code).  Like nanoBench, these reads write RAX, RCX and RDX; NM_SET
 * parks them in the data block first and puts them back after the reads, so
 * code_init's values reach the code.  From the last copy to the last counter
 * read nothing touches memory.  With BMI2 the pause and resume keep the
 * flags; NM_END clobbers them (the code is over). */
static void emit_read_regs(emitter *e, const codegen_params *p, int op)
{
    if (op == NM_SET) {
        emit_store64(e, RAX, offsetof(codegen_data, tmp_rax));
        emit_store64(e, RCX, offsetof(codegen_data, tmp_rcx));
        emit_store64(e, RDX, offsetof(codegen_data, tmp_rdx));
    }
    for (size_t i = 0; i < p->n_reads; i++) {
        if (p->reads[i].kind == PMU_READ_NONE || first_equal(p, i) != i)
            continue;
        uint8_t k = (uint8_t)no_mem_slot(p, i);
        emit(e, LFENCE, sizeof LFENCE);
        emit_read_raw(e, &p->reads[i]);
        emit(e, LFENCE, sizeof LFENCE);
        emit_combine(e, p->bmi2 && op != NM_END);
        if (op == NM_SET) {
            emit(e, (const uint8_t[]){0x49, 0x89, (uint8_t)(0xD0 | k)}, 3); /* mov r8+k, rdx */
        } else if (op == NM_END) {
            emit(e, (const uint8_t[]){0x4C, 0x29, (uint8_t)(0xC2 | k << 3)}, 3); /* sub rdx, r8+k */
            emit(e, (const uint8_t[]){0x49, 0x89, (uint8_t)(0xD0 | k)}, 3); /* mov r8+k, rdx */
        } else if (p->bmi2) {
            if (op == NM_SUB)
                emit(e, (const uint8_t[]){0x48, 0xF7, 0xD2}, 3);           /* not rdx */
            /* lea r8+k, [r8+k + rdx + disp8]: a - b = a + ~b + 1 */
            emit(e, (const uint8_t[]){0x4D, 0x8D, (uint8_t)(0x44 | k << 3),
                                      (uint8_t)(0x10 | k), op == NM_SUB ? 1 : 0}, 5);
        } else {
            /* sub / add r8+k, rdx */
            emit(e, (const uint8_t[]){0x49, op == NM_SUB ? 0x29 : 0x01, (uint8_t)(0xD0 | k)}, 3);
        }
    }
    if (op == NM_SET) {
        emit_load64(e, RAX, offsetof(codegen_data, tmp_rax));
        emit_load64(e, RCX, offsetof(codegen_data, tmp_rcx));
        emit_load64(e, RDX, offsetof(codegen_data, tmp_rdx));
    }
}

static bool magic_at(const uint8_t *c, size_t avail, uint64_t magic)
{
    if (avail < 8)
        return false;
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | c[k];
    return v == magic;
}

/* One copy of the code; with -no_mem the magic sequences become pause and
 * resume code. */
static void emit_copy(emitter *e, const codegen_params *p)
{
    if (!p->no_mem) {
        emit(e, p->code, p->code_len);
        return;
    }
    size_t start = 0, i = 0;
    while (i < p->code_len) {
        bool stop = magic_at(p->code + i, p->code_len - i, CODEGEN_MAGIC_STOP);
        bool go = !stop && magic_at(p->code + i, p->code_len - i, CODEGEN_MAGIC_START);
        if (!stop && !go) {
            i++;
            continue;
        }
        emit(e, p->code + start, i - start);
        emit_read_regs(e, p, stop ? NM_SUB : NM_ADD);
        i += 8;
        start = i;
    }
    emit(e, p->code + start, p->code_len - start);
}

/* The non-GPR state the code starts from: the x87 unit and MXCSR at their
 * defaults, every vector and mask register zero.  Nothing here touches
 * memory but the load of MXCSR's default. */
static void emit_clear_state(emitter *e, const codegen_params *p)
{
    emit(e, (const uint8_t[]){0xDB, 0xE3}, 2);           /* fninit */
    emit(e, (const uint8_t[]){0x0F, 0xAE, 0x15}, 3);     /* ldmxcsr [rip+mxcsr_init] */
    emit_riprel(e, offsetof(codegen_data, mxcsr_init));
    if (p->avx) {
        emit(e, (const uint8_t[]){0xC5, 0xFC, 0x77}, 3); /* vzeroall */
    } else {
        for (unsigned n = 0; n < 16; n++) {              /* pxor xmmN, xmmN */
            emit1(e, 0x66);
            if (n >= 8)
                emit1(e, 0x45);
            emit(e, (const uint8_t[]){0x0F, 0xEF, (uint8_t)(0xC0 | (n & 7) << 3 | (n & 7))}, 3);
        }
    }
    if (!p->avx512)
        return;
    for (unsigned n = 16; n < 32; n++) {                 /* vpxord zmmN, zmmN, zmmN */
        uint8_t hi = (n >> 3) & 1 ? 0 : 1;               /* EVEX.R and .B, inverted */
        emit(e, (const uint8_t[]){0x62, (uint8_t)(hi << 7 | hi << 5 | 0x01),
                                  (uint8_t)((~n & 15) << 3 | 0x05), 0x40, 0xEF,
                                  (uint8_t)(0xC0 | (n & 7) << 3 | (n & 7))}, 6);
    }
    for (unsigned k = 0; k < 8; k++)                     /* kxorw kK, kK, kK */
        emit(e, (const uint8_t[]){0xC5, (uint8_t)(0x80 | (~k & 15) << 3 | 0x04), 0x47,
                                  (uint8_t)(0xC0 | k << 3 | k)}, 4);
}

static void generate(emitter *e, const codegen_params *p, codegen_prog *out)
{
    static const uint8_t push[] = {
        0x53,                      /* push rbx */
        0x55,                      /* push rbp */
        0x41, 0x54,                /* push r12 */
        0x41, 0x55,                /* push r13 */
        0x41, 0x56,                /* push r14 */
        0x41, 0x57,                /* push r15 */
        0x9C,                      /* pushfq */
    };
    emit(e, push, sizeof push);
    emit_store64(e, RSP, offsetof(codegen_data, saved_rsp));
    emit(e, (const uint8_t[]){0x0F, 0xAE, 0x1D}, 3);     /* stmxcsr [rip+mxcsr] */
    emit_riprel(e, offsetof(codegen_data, mxcsr));
    emit(e, (const uint8_t[]){0xD9, 0x3D}, 2);           /* fnstcw [rip+fcw] */
    emit_riprel(e, offsetof(codegen_data, fcw));

    emit_clear_state(e, p);
    /* Registers: areas for R14, RDI, RSI, RBP, RSP; zero for the rest. */
    emit_mov_imm64(e, R14, p->r14);
    emit_mov_imm64(e, RDI, p->rdi);
    emit_mov_imm64(e, RSI, p->rsi);
    emit_mov_imm64(e, RBP, p->rbp);
    emit_mov_imm64(e, RSP, p->rsp);
    static const unsigned zero[] = {RAX, RBX, RCX, RDX, R8, R9, R10, R11, R12, R13, R15};
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++) {
        unsigned r = zero[i];
        if (r >= 8)
            emit1(e, 0x45);                              /* REX.R+B */
        emit1(e, 0x31);                                  /* xor r32, r32 */
        emit1(e, (uint8_t)(0xC0 | (r & 7) << 3 | (r & 7)));
    }

    out->init_off = e->len;
    emit(e, p->init, p->init_len);
    /* nanoBench's order: the loop counter and the drain right after
     * code_init, then the NOPs that put the first copy on a 64-byte boundary
     * (+ alignment_offset), all before the first counter read. */
    if (p->loop_count > 0) {
        emit(e, (const uint8_t[]){0x49, 0xC7, 0xC7}, 3);  /* mov r15, imm32 */
        emit32(e, (uint32_t)p->loop_count);
    }
    if (p->df)
        emit_drain(e);
    emitter ahead = {.buf = NULL, .len = 0, .data_off = e->data_off};
    if (p->no_mem)
        emit_read_regs(&ahead, p, NM_SET);
    else
        emit_read_mem(&ahead, p, offsetof(codegen_data, m1));
    ahead.len += p->late_init_len + (p->df ? DRAIN_NOP15 * 15 : 0);
    /* The mapping is page-aligned, so offsets in the buffer are addresses
     * mod 64. */
    emit_nop(e, (64 - (e->len + ahead.len) % 64) % 64 + (size_t)p->alignment_offset);

    if (p->no_mem)
        emit_read_regs(e, p, NM_SET);
    else
        emit_read_mem(e, p, offsetof(codegen_data, m1));

    out->late_init_off = e->len;
    emit(e, p->late_init, p->late_init_len);
    if (p->df)
        for (int i = 0; i < DRAIN_NOP15; i++)
            emit_nop(e, 15);
    out->copies_off = e->len;
    if (p->no_mem) {
        /* each copy's counter reads address the data block from where they are */
        for (size_t c = 0; c < p->copies; c++)
            emit_copy(e, p);
    } else if (p->copies > 0) {
        /* identical copies: the first emitted, the rest by doubling the run
         * (a copy at a time was ~5% of a batch's time) */
        emit_copy(e, p);
        size_t one = e->len - out->copies_off, total = one * p->copies;
        if (e->buf)
            for (size_t done = one; done < total;) {
                size_t n = done < total - done ? done : total - done;
                memcpy(e->buf + out->copies_off + done, e->buf + out->copies_off, n);
                done += n;
            }
        e->len = out->copies_off + total;
    }
    out->copies_end = e->len;
    out->n_copies = p->copies;
    out->copy_stride = p->copies ? (out->copies_end - out->copies_off) / p->copies : 0;
    if (p->loop_count > 0) {
        emit(e, (const uint8_t[]){0x49, 0xFF, 0xCF}, 3);  /* dec r15 */
        emit(e, (const uint8_t[]){0x0F, 0x85}, 2);        /* jnz rel32 -> first copy */
        emit32(e, (uint32_t)(int32_t)((int64_t)out->copies_off - (int64_t)(e->len + 4)));
    }
    if (p->df)
        emit_drain_end(e);
    if (p->debug)
        emit1(e, 0xCC);                                  /* int3 */

    if (p->no_mem) {
        /* Every counter read, its difference in R8+k: only now may memory
         * be used again.  m1 = 0, m2 = the difference. */
        emit_read_regs(e, p, NM_END);
        emit(e, (const uint8_t[]){0x31, 0xC0}, 2);           /* xor eax, eax */
        for (size_t i = 0; i < p->n_reads; i++) {
            if (p->reads[i].kind == PMU_READ_NONE)
                continue;
            emit_store64(e, (unsigned)(R8 + no_mem_slot(p, i)), offsetof(codegen_data, m2) + 8 * i);
            emit_store64(e, RAX, offsetof(codegen_data, m1) + 8 * i);
        }
    } else {
        emit_read_mem(e, p, offsetof(codegen_data, m2));
    }

    out->epilogue_off = e->len;
    emit_load64(e, RSP, offsetof(codegen_data, saved_rsp));
    emit(e, (const uint8_t[]){0xD9, 0x2D}, 2);           /* fldcw [rip+fcw] */
    emit_riprel(e, offsetof(codegen_data, fcw));
    emit(e, (const uint8_t[]){0x0F, 0xAE, 0x15}, 3);     /* ldmxcsr [rip+mxcsr] */
    emit_riprel(e, offsetof(codegen_data, mxcsr));
    static const uint8_t pop[] = {
        0x9D,                      /* popfq */
        0x41, 0x5F,                /* pop r15 */
        0x41, 0x5E,                /* pop r14 */
        0x41, 0x5D,                /* pop r13 */
        0x41, 0x5C,                /* pop r12 */
        0x5D,                      /* pop rbp */
        0x5B,                      /* pop rbx */
        0xC3,                      /* ret */
    };
    emit(e, pop, sizeof pop);
}

size_t codegen_copy_len(const codegen_params *p)
{
    emitter e = {0};
    emit_copy(&e, p);
    return e.len;
}

/* Freed code mappings kept for the next program (a batch builds two a
 * line; mapping, first-touch faults and unmapping them were ~5% of a
 * batch's time).  Only mappings up to MAP_KEEP_MAX bytes are kept; a
 * reused one has its data block cleared, and its old code past the new
 * program's end is never reached (every program ends in RET). */
#define MAP_KEEP 4
#define MAP_KEEP_MAX (1u << 20)
static struct {
    void *m;
    size_t len;
} g_kept[MAP_KEEP];

/* A read-write-execute mapping of at least *len bytes, between guard pages
 * (sys/mapping.h: code that stores past its own end, or runs off it, faults
 * there instead of reaching the next mapping); *len is set to its size.
 * NULL when none can be had. */
static void *map_take(size_t *len)
{
    int best = -1;
    for (int i = 0; i < MAP_KEEP; i++)
        if (g_kept[i].m && g_kept[i].len >= *len && (best < 0 || g_kept[i].len < g_kept[best].len))
            best = i;
    if (best >= 0) {
        void *m = g_kept[best].m;
        *len = g_kept[best].len;
        g_kept[best].m = NULL;
        return m;
    }
    return map_guarded(*len, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS);
}

static void map_give(void *m, size_t len)
{
    if (len <= MAP_KEEP_MAX)
        for (int i = 0; i < MAP_KEEP; i++)
            if (!g_kept[i].m) {
                g_kept[i].m = m;
                g_kept[i].len = len;
                return;
            }
    unmap_guarded(m, len);
}

int codegen_build(const codegen_params *p, codegen_prog *out, nb_error *err)
{
    memset(out, 0, sizeof *out);
    if (p->n_reads > CODEGEN_MAX_CTR)
        return nb_error_set(err, NB_EUNSUPPORTED,
                            "%zu counters in one group; the generated code reads at most %d",
                            p->n_reads, CODEGEN_MAX_CTR);
    if (p->no_mem && no_mem_unique(p) > CODEGEN_NO_MEM_MAX_CTR)
        return nb_error_set(err, NB_EUNSUPPORTED,
                            "-no_mem keeps counters in R8-R13: at most %d counters per group, "
                            "not %zu", CODEGEN_NO_MEM_MAX_CTR, no_mem_unique(p));
    /* nanoBench refuses the pause / resume sequences outside -no_mem: the
     * memory-mode reads have no running sum to take the pause out of. */
    for (size_t i = 0; !p->no_mem && i + 8 <= p->code_len; i++) {
        bool stop = magic_at(p->code + i, p->code_len - i, CODEGEN_MAGIC_STOP);
        if (stop || magic_at(p->code + i, p->code_len - i, CODEGEN_MAGIC_START))
            return nb_error_set(err, NB_EINPUT,
                                "the code holds the magic %s sequence (0x%016llX) at byte %zu: "
                                "starting/stopping the counters is only supported with -no_mem",
                                stop ? "pause" : "resume",
                                (unsigned long long)(stop ? CODEGEN_MAGIC_STOP
                                                          : CODEGEN_MAGIC_START), i);
    }
    if (p->loop_count < 0 || p->loop_count > INT32_MAX)
        return nb_error_set(err, NB_EINPUT, "-loop_count %ld is out of range (0 to %d)",
                            p->loop_count, INT32_MAX);
    size_t one = codegen_copy_len(p);
    if (one && p->copies > CODEGEN_MAX_BYTES / one)
        return nb_error_set(err, NB_EINPUT, "%zu copies of %zu bytes do not fit: the generated "
                            "code is limited to %u MiB (lower -unroll_count or use -loop_count)",
                            p->copies, one, CODEGEN_MAX_BYTES >> 20);
    emitter e = {0};
    generate(&e, p, out);
    /* The data block gets its own page, one page away from the code: stores
     * near code being executed count as self-modifying code, which costs a
     * pipeline flush per store on x86. */
    size_t page = 4096;
    size_t data_off = ((e.len + page - 1) & ~(page - 1)) + page;
    size_t map_len = (data_off + sizeof(codegen_data) + page - 1) & ~(page - 1);
    void *m = map_take(&map_len);
    if (!m)
        return nb_error_set(err, NB_ENOMEM,
                            "cannot map %zu bytes of executable memory for the generated code",
                            map_len);
    memset((uint8_t *)m + data_off, 0, sizeof(codegen_data));
    ((codegen_data *)((uint8_t *)m + data_off))->mxcsr_init = 0x1F80;
    emitter w = {.buf = m, .len = 0, .data_off = data_off};
    generate(&w, p, out);
    out->base = m;
    out->map_len = map_len;
    out->code_len = w.len;
    out->data = (codegen_data *)((uint8_t *)m + data_off);
    return 0;
}

void codegen_free(codegen_prog *pr)
{
    if (pr->base)
        map_give(pr->base, pr->map_len);
    memset(pr, 0, sizeof *pr);
}
