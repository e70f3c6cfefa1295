/* codegen: the generated program, called in this process with hand-encoded
 * benchmark bytes that write what they see to a buffer R14 points into. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "harness/codegen.h"
#include "pmu/emu_step.h"
#include "sys/cpu.h"
#include "sys/status.h"

static uint64_t area[4096];   /* R14, RDI, RSI, RBP point into it */
static uint64_t stack_area[8192];

static const codegen_read RDTSC_READ = {PMU_READ_RDTSC, 0};

static codegen_params base_params(const uint8_t *code, size_t len, size_t copies)
{
    codegen_params p = {
        .code = code, .code_len = len, .copies = copies,
        .reads = &RDTSC_READ, .n_reads = 1,
        .r14 = (uintptr_t)&area[1024], .rdi = (uintptr_t)&area[2048],
        .rsi = (uintptr_t)&area[3072], .rbp = (uintptr_t)&area[3500],
        .rsp = (uintptr_t)&stack_area[4096],
    };
    return p;
}

static bool has_bmi2(void)
{
    uint32_t r[4];
    cpu_cpuid(7, 0, r);
    return (r[1] >> 8) & 1;
}

static void build_and_call(const codegen_params *p, codegen_prog *pr)
{
    nb_error err;
    int rc = codegen_build(p, pr, &err);
    if (rc)
        fail_msg("codegen_build: %s", err.message);
    memset(area, 0, sizeof area);
    codegen_call(pr);
}

static void test_alignment_and_copies(void **state)
{
    (void)state;
    static const uint8_t add2[] = {0x48, 0x01, 0xd8, 0x48, 0x01, 0xc3};  /* add rax,rbx; add rbx,rax */
    for (long off = 0; off < 70; off += 23) {
        codegen_params p = base_params(add2, sizeof add2, 5);
        p.alignment_offset = off;
        codegen_prog pr;
        build_and_call(&p, &pr);
        assert_int_equal((uintptr_t)(pr.base + pr.copies_off) % 64, (uintptr_t)off % 64);
        assert_true(pr.copies_off >= (size_t)off);
        assert_int_equal(pr.copy_stride, sizeof add2);
        for (size_t c = 0; c < 5; c++)
            assert_memory_equal(pr.base + pr.copies_off + c * sizeof add2, add2, sizeof add2);
        assert_true(pr.data->m2[0] > pr.data->m1[0]);   /* rdtsc advanced */
        codegen_free(&pr);
    }
}

/* mov [r14], rbx; mov [r14+8], rdi; mov [r14+16], rsp; mov [r14+24], rsi;
 * mov [r14+32], rbp; mov [r14+40], r9 */
static const uint8_t DUMP_REGS[] = {
    0x49, 0x89, 0x1E, 0x49, 0x89, 0x7E, 0x08, 0x49, 0x89, 0x66, 0x10,
    0x49, 0x89, 0x76, 0x18, 0x49, 0x89, 0x6E, 0x20, 0x4D, 0x89, 0x4E, 0x28,
};

static void test_initial_registers(void **state)
{
    (void)state;
    codegen_params p = base_params(DUMP_REGS, sizeof DUMP_REGS, 1);
    codegen_prog pr;
    build_and_call(&p, &pr);
    uint64_t *r = &area[1024];
    assert_int_equal(r[0], 0);           /* rbx */
    assert_int_equal(r[1], p.rdi);
    assert_int_equal(r[2], p.rsp);
    assert_int_equal(r[3], p.rsi);
    assert_int_equal(r[4], p.rbp);
    assert_int_equal(r[5], 0);           /* r9 */
    codegen_free(&pr);
}

/* code_init sets RAX, RCX, RDX (what rdtsc/rdpmc write) and the carry flag;
 * the benchmark must see them across the first counter read. */
static void check_init_survives(bool no_mem)
{
    static const uint8_t init[] = {
        0x48, 0xC7, 0xC0, 0x34, 0x12, 0x00, 0x00,   /* mov rax, 0x1234 */
        0x48, 0xC7, 0xC1, 0x09, 0x00, 0x00, 0x00,   /* mov rcx, 9 */
        0x48, 0xC7, 0xC2, 0x07, 0x00, 0x00, 0x00,   /* mov rdx, 7 */
        0xF9,                                       /* stc */
    };
    static const uint8_t code[] = {
        0x41, 0x0F, 0x92, 0x46, 0x18,               /* setc [r14+24] */
        0x49, 0x89, 0x06,                           /* mov [r14], rax */
        0x49, 0x89, 0x4E, 0x08,                     /* mov [r14+8], rcx */
        0x49, 0x89, 0x56, 0x10,                     /* mov [r14+16], rdx */
    };
    codegen_params p = base_params(code, sizeof code, 1);
    p.init = init;
    p.init_len = sizeof init;
    p.no_mem = no_mem;
    p.bmi2 = has_bmi2();
    codegen_prog pr;
    build_and_call(&p, &pr);
    uint64_t *r = &area[1024];
    assert_int_equal(r[0], 0x1234);
    assert_int_equal(r[1], 9);
    assert_int_equal(r[2], 7);
    if (!no_mem || p.bmi2)
        assert_int_equal(r[3] & 0xFF, 1);   /* CF still set */
    assert_true(pr.data->m2[0] > pr.data->m1[0]);
    codegen_free(&pr);
}

static void test_init_reaches_code(void **state)
{
    (void)state;
    check_init_survives(false);
}

static void test_init_reaches_code_no_mem(void **state)
{
    (void)state;
    check_init_survives(true);
}

static void test_loop_count(void **state)
{
    (void)state;
    static const uint8_t inc[] = {0x49, 0x83, 0x06, 0x01};   /* add qword [r14], 1 */
    codegen_params p = base_params(inc, sizeof inc, 3);
    p.loop_count = 5;
    codegen_prog pr;
    build_and_call(&p, &pr);
    assert_int_equal(area[1024], 15);
    codegen_free(&pr);
    p.loop_count = 0;
    build_and_call(&p, &pr);
    assert_int_equal(area[1024], 3);
    codegen_free(&pr);
}

/* The reading of a program whose one counter (rdpmc 0) counts the
 * instructions it retires, stepped by the emulator (pmu/emu_step.h). */
static uint64_t instructions_read(codegen_params *p, bool runs)
{
    static const codegen_read rd = {PMU_READ_RDPMC, 0};
    pmu_counter c = {.read = PMU_READ_RDPMC, .rdpmc_ecx = 0, .emu = EMU_BIT(EMU_INSTRUCTIONS)};
    p->reads = &rd;
    p->n_reads = 1;
    codegen_prog pr;
    nb_error err;
    if (codegen_build(p, &pr, &err))
        fail_msg("codegen_build: %s", err.message);
    uintptr_t b = (uintptr_t)pr.base;
    emu_prog e = {.entry = (void (*)(void))(void *)pr.base, .lo = b, .hi = b + pr.code_len,
                  .map_end = b + pr.map_len, .epilogue = b + pr.epilogue_off};
    assert_int_equal(emu_step_begin(&c, 1), 0);
    emu_step_result r = emu_step_call(&e, 0, runs);
    emu_step_end();
    assert_false(r.over || r.unknown);
    uint64_t v = pr.data->m2[0] - pr.data->m1[0];
    codegen_free(&pr);
    return v;
}

/* -no_mem pause: a loop between the stop and start sequences is not
 * counted, to the instruction (counted by the emulator, pmu/emu.h). */
static void test_magic_pause(void **state)
{
    (void)state;
    uint8_t code[64];
    size_t n = 0;
    uint64_t stop = CODEGEN_MAGIC_STOP, start = CODEGEN_MAGIC_START;
    memcpy(code + n, &stop, 8); n += 8;
    static const uint8_t spin[] = {
        0xB9, 0xE8, 0x03, 0x00, 0x00,   /* mov ecx, 1000 */
        0xFF, 0xC9,                     /* dec ecx */
        0x75, 0xFC,                     /* jnz -4 */
    };
    memcpy(code + n, spin, sizeof spin); n += sizeof spin;
    size_t spin_end = n;
    memcpy(code + n, &start, 8); n += 8;

    /* without -no_mem the sequences are refused, as nanoBench refuses them */
    codegen_params p = base_params(code, n, 1);
    codegen_prog pr;
    nb_error err;
    assert_int_equal(codegen_build(&p, &pr, &err), NB_EINPUT);
    assert_non_null(strstr(err.message, "pause"));
    assert_non_null(strstr(err.message, "only supported with -no_mem"));
    p.code = code + spin_end;   /* the resume sequence alone */
    p.code_len = 8;
    assert_int_equal(codegen_build(&p, &pr, &err), NB_EINPUT);
    assert_non_null(strstr(err.message, "resume"));

    char why[256];
    if (!emu_step_works(why, sizeof why)) {
        print_message("not judged: %s\n", why);
        skip();
    }
    p.no_mem = true;
    /* every instruction stepped, and plain stretches run natively (the
     * stepper's runs): the same counts */
    for (int mode = 0; mode < 4; mode++) {
        bool runs = mode & 1;
        p.bmi2 = (mode & 2) && has_bmi2();
        uint64_t v[2][2];   /* [paused][iterations 1000, 10] */
        for (int k = 0; k < 2; k++) {
            code[9] = k ? 10 : 0xE8, code[10] = k ? 0 : 0x03;
            p.code = code, p.code_len = n;
            v[1][k] = instructions_read(&p, runs);
            p.code = code + 8, p.code_len = spin_end - 8;   /* the spin alone, counted */
            v[0][k] = instructions_read(&p, runs);
        }
        /* the window of one -no_mem counter holds 10 instructions of the
         * harness (after the first read: the RDPMC itself, LFENCE, two to
         * combine EDX:EAX, the MOV into R8, three loads of RAX/RCX/RDX;
         * before the last: LFENCE, MOV ECX), the spin MOV + N x (DEC, JNZ),
         * and of a pause and resume the 2 before the pause's read and the 5
         * from the resume's RDPMC on (LFENCE, two to combine, the add) */
        assert_int_equal(v[0][0], 10 + 1 + 2 * 1000);
        assert_int_equal(v[0][1], 10 + 1 + 2 * 10);
        assert_int_equal(v[1][0], 10 + 2 + 5);
        assert_int_equal(v[1][1], 10 + 2 + 5);
    }
}

static void test_too_big_is_refused(void **state)
{
    (void)state;
    static const uint8_t add2[] = {0x48, 0x01, 0xd8, 0x48, 0x01, 0xc3};
    codegen_params p = base_params(add2, sizeof add2, (CODEGEN_MAX_BYTES / sizeof add2) + 1);
    codegen_prog pr;
    nb_error err;
    assert_int_equal(codegen_build(&p, &pr, &err), NB_EINPUT);
    assert_non_null(strstr(err.message, "MiB"));
    p.copies = 1;
    p.no_mem = true;
    codegen_read seven[7] = {{PMU_READ_RDPMC, 0}, {PMU_READ_RDPMC, 1}, {PMU_READ_RDPMC, 2},
                             {PMU_READ_RDPMC, 3}, {PMU_READ_RDPMC, 4}, {PMU_READ_RDPMC, 5},
                             {PMU_READ_RDPMC, 6}};
    p.reads = seven;
    p.n_reads = 7;
    assert_int_equal(codegen_build(&p, &pr, &err), NB_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "R8-R13"));
}

/* -no_mem (issue 14, items 2 and 3): six counters (AMD's six, Intel's four
 * or the fixed set) stay in R8-R13, and from the last copy to the last
 * counter read no instruction touches memory. */
static void test_no_mem_window(void **state)
{
    (void)state;
    static const uint8_t add2[] = {0x48, 0x01, 0xd8, 0x48, 0x01, 0xc3};
    codegen_read six[7] = {{PMU_READ_RDTSC, 0}, {PMU_READ_RDPMC, 0}, {PMU_READ_RDPMC, 1},
                           {PMU_READ_RDPMC, 2}, {PMU_READ_RDPMC, 3}, {PMU_READ_RDPMC, 4},
                           {PMU_READ_RDTSC, 0}};   /* a repeated read shares a register */
    for (int bmi2 = 0; bmi2 < 2; bmi2++) {
        codegen_params p = base_params(add2, sizeof add2, 2);
        p.no_mem = true;
        p.bmi2 = bmi2;
        p.reads = six;
        p.n_reads = 7;
        codegen_prog pr;
        nb_error err;
        if (codegen_build(&p, &pr, &err))
            fail_msg("codegen_build: %s", err.message);   /* built, not called: rdpmc */
        ZydisDecoder dec;
        ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
        size_t off = pr.copies_end, last_read = 0, first_mem = 0;
        int reads = 0;
        while (off < pr.code_len) {
            ZydisDecodedInstruction in;
            ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
            assert_true(ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, pr.base + off,
                                                            pr.code_len - off, &in, ops)));
            if (in.mnemonic == ZYDIS_MNEMONIC_RDPMC || in.mnemonic == ZYDIS_MNEMONIC_RDTSC) {
                last_read = off;
                reads++;
            }
            for (unsigned k = 0; k < in.operand_count && !first_mem; k++)
                if (ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[k].mem.type != ZYDIS_MEMOP_TYPE_AGEN)
                    first_mem = off;
            if (in.mnemonic == ZYDIS_MNEMONIC_RET)
                break;
            off += in.length;
        }
        assert_int_equal(reads, 6);
        assert_true(first_mem > last_read);
        codegen_free(&pr);
    }
}

static const uint8_t NOP15[] = {0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x2E, 0x0F,
                                0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00};

/* -df lays out nanoBench's drain: after code_init (and mov r15) lfence, 189
 * one-byte NOPs, 64 fifteen-byte NOPs, then the alignment NOPs before the
 * first counter read; 64 fifteen-byte NOPs after code_late_init; after the
 * loop lfence, 61 fifteen-byte NOPs and three NOPs ending on a 32-byte
 * boundary, right before the last counter read. */
static void test_drain_as_nanobench(void **state)
{
    (void)state;
    static const uint8_t add2[] = {0x48, 0x01, 0xd8, 0x48, 0x01, 0xc3};
    static const uint8_t init[] = {0x90, 0x90};
    for (long off = 0; off < 64; off += 21) {
        codegen_params p = base_params(add2, sizeof add2, 3);
        p.df = true;
        p.loop_count = 2;
        p.alignment_offset = off;
        p.init = init, p.init_len = sizeof init;
        codegen_prog pr;
        build_and_call(&p, &pr);
        const uint8_t *c = pr.base + pr.init_off + sizeof init;
        assert_memory_equal(c, ((const uint8_t[]){0x49, 0xC7, 0xC7, 2, 0, 0, 0}), 7);  /* mov r15, 2 */
        c += 7;
        assert_memory_equal(c, ((const uint8_t[]){0x0F, 0xAE, 0xE8}), 3);
        c += 3;
        for (int i = 0; i < 189; i++)
            assert_int_equal(c[i], 0x90);
        c += 189;
        for (int i = 0; i < 64; i++)
            assert_memory_equal(c + 15 * i, NOP15, 15);
        /* late_init (empty) is followed by 64 NOP15s, then the first copy */
        const uint8_t *l = pr.base + pr.late_init_off;
        for (int i = 0; i < 64; i++)
            assert_memory_equal(l + 15 * i, NOP15, 15);
        assert_ptr_equal(l + 64 * 15, pr.base + pr.copies_off);
        assert_int_equal((uintptr_t)(pr.base + pr.copies_off) % 64, (uintptr_t)off);
        /* after dec r15; jnz rel32: lfence, 61 NOP15s, NOPs to a 32-byte boundary */
        const uint8_t *t = pr.base + pr.copies_end + 3 + 6;
        assert_memory_equal(t, ((const uint8_t[]){0x0F, 0xAE, 0xE8}), 3);
        for (int i = 0; i < 61; i++)
            assert_memory_equal(t + 3 + 15 * i, NOP15, 15);
        /* then the last counter read: lfence; rdtsc after parking RAX..RDX
         * (3 RIP-relative stores of 7 bytes) on a 32-byte boundary */
        const uint8_t *end = t + 3 + 61 * 15;
        size_t pad = 0;
        while (((uintptr_t)(end + pad)) % 32 != 0 || pad < 14)
            pad++;
        assert_true(pad >= 14 && pad <= 45);
        assert_memory_equal(end + pad + 21, ((const uint8_t[]){0x0F, 0xAE, 0xE8, 0x0F, 0x31}), 5);
        codegen_free(&pr);
    }
}

/* NOPs of 10 to 15 bytes as nanoBench's NOPS table has them.  Without -df
 * and a loop the alignment NOPs run from code_init's end to the first
 * counter read (62 bytes of one rdtsc read in memory mode), in 15-byte pieces
 * and the rest. */
static void test_long_nops(void **state)
{
    (void)state;
    bool seen[16] = {false};
    for (long off = 0; off < 64; off++) {
        codegen_params p = base_params((const uint8_t[]){0x90}, 1, 1);
        p.alignment_offset = off;
        codegen_prog pr;
        build_and_call(&p, &pr);
        const uint8_t *n = pr.base + pr.init_off, *end = pr.base + pr.copies_off - 62;
        assert_memory_equal(end, ((const uint8_t[]){0x48, 0x89, 0x05}), 3);  /* mov [rip+], rax */
        while (n < end) {
            size_t k = end - n > 15 ? 15 : (size_t)(end - n);
            if (k >= 10) {
                seen[k] = true;
                for (size_t i = 0; i < k - 9; i++)
                    assert_int_equal(n[i], 0x66);
                assert_memory_equal(n + k - 9, NOP15 + 6, 9);
            }
            n += k;
        }
        codegen_free(&pr);
    }
    for (int k = 10; k <= 15; k++)
        assert_true(seen[k]);
}

/* The prologue's register state (issue 14, item 19), as decoded: fninit,
 * ldmxcsr, then vzeroall with AVX (else pxor of XMM0-15), with AVX-512
 * vpxord of ZMM16-31 and kxorw of k0-k7.  Built, not called, so it holds on
 * any host. */
static void test_prologue_clears_state(void **state)
{
    (void)state;
    for (int isa = 0; isa < 3; isa++) {
        codegen_params p = base_params((const uint8_t[]){0x90}, 1, 1);
        p.avx = isa >= 1;
        p.avx512 = isa == 2;
        codegen_prog pr;
        nb_error err;
        if (codegen_build(&p, &pr, &err))
            fail_msg("codegen_build: %s", err.message);
        assert_int_equal(pr.data->mxcsr_init, 0x1F80);
        ZydisDecoder dec;
        ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
        int fninit = 0, ldmxcsr = 0, vzeroall = 0, pxor = 0, zmm = 0, kxor = 0;
        for (size_t off = 0; off < pr.init_off;) {
            ZydisDecodedInstruction in;
            ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
            assert_true(ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, pr.base + off,
                                                            pr.init_off - off, &in, ops)));
            ZydisRegister r0 = ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER ? ops[0].reg.value
                                                                          : ZYDIS_REGISTER_NONE;
            int uses = 0;   /* explicit operands naming r0: 3 for "op x, x, x" */
            for (unsigned k = 0; k < in.operand_count_visible; k++)
                uses += ops[k].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[k].reg.value == r0;
            bool same = uses >= 2;
            switch (in.mnemonic) {
            case ZYDIS_MNEMONIC_FNINIT: fninit++; break;
            case ZYDIS_MNEMONIC_LDMXCSR: ldmxcsr++; break;
            case ZYDIS_MNEMONIC_VZEROALL: vzeroall++; break;
            case ZYDIS_MNEMONIC_PXOR:
                pxor += same && r0 == (ZydisRegister)(ZYDIS_REGISTER_XMM0 + pxor);
                break;
            case ZYDIS_MNEMONIC_VPXORD:
                zmm += uses == 3 && r0 == (ZydisRegister)(ZYDIS_REGISTER_ZMM16 + zmm);
                break;
            case ZYDIS_MNEMONIC_KXORW:
                kxor += uses == 3 && r0 == (ZydisRegister)(ZYDIS_REGISTER_K0 + kxor);
                break;
            default: break;
            }
            off += in.length;
        }
        assert_int_equal(fninit, 1);
        assert_int_equal(ldmxcsr, 1);
        assert_int_equal(vzeroall, isa >= 1);
        assert_int_equal(pxor, isa == 0 ? 16 : 0);
        assert_int_equal(zmm, isa == 2 ? 16 : 0);
        assert_int_equal(kxor, isa == 2 ? 8 : 0);
        codegen_free(&pr);
    }
}

/* The permissions of the mapping holding address a in /proc/self/maps
 * ("rwxp", "---p"), or "" where nothing is mapped. */
static void perms_at(uintptr_t a, char perms[5])
{
    perms[0] = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char p[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 && a >= lo && a < hi) {
            memcpy(perms, p, 5);
            break;
        }
    }
    fclose(f);
}

/* The program's mapping (code and data block) has no-access guard pages on
 * both sides: code that stores past its end faults there, whatever the
 * kernel placed next (issue 17, item 1). */
static void test_code_mapping_guarded(void **state)
{
    (void)state;
    static const uint8_t add[] = {0x48, 0x01, 0xd8};
    codegen_params p = base_params(add, sizeof add, 10);
    codegen_prog pr;
    nb_error err;
    assert_int_equal(codegen_build(&p, &pr, &err), 0);
    char before[5], after[5], in[5];
    perms_at((uintptr_t)pr.base - 1, before);
    perms_at((uintptr_t)pr.base + pr.map_len, after);
    perms_at((uintptr_t)pr.base, in);
    assert_string_equal(in, "rwxp");
    assert_string_equal(before, "---p");
    assert_string_equal(after, "---p");
    codegen_free(&pr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment_and_copies),
        cmocka_unit_test(test_initial_registers),
        cmocka_unit_test(test_init_reaches_code),
        cmocka_unit_test(test_init_reaches_code_no_mem),
        cmocka_unit_test(test_loop_count),
        cmocka_unit_test(test_magic_pause),
        cmocka_unit_test(test_too_big_is_refused),
        cmocka_unit_test(test_no_mem_window),
        cmocka_unit_test(test_prologue_clears_state),
        cmocka_unit_test(test_drain_as_nanobench),
        cmocka_unit_test(test_long_nops),
        cmocka_unit_test(test_code_mapping_guarded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
