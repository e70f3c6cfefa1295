/* Representative statements per family, with the bytes GNU as 2.40
 * (`.intel_syntax noprefix`) gives for them, plus labels and branch sizing,
 * `n*|x|` repetition, `|n` NOPs, directives, the statement list and the
 * listing.  The expected bytes were produced by as (the `n*|x|` and `|n`
 * cases from the equivalent .rept / .byte source); the larger corpus is
 * tests/test_asm_golden.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "status.h"

static const struct { const char *family, *src, *hex; } cases[] = {
    {"gp", "add rax, rbx",
     "4801d8"},
    {"gp", "add eax, 1000",
     "05e8030000"},
    {"gp", "add al, 1",
     "0401"},
    {"gp", "add rax, -1",
     "4883c0ff"},
    {"gp", "add eax, 0xffffffff",
     "83c0ff"},
    {"gp", "sub qword ptr [rbx+rcx*8+16], 1",
     "48836ccb1001"},
    {"gp", "xor r15d, r15d",
     "4531ff"},
    {"gp", "mov rax, 1",
     "48c7c001000000"},
    {"gp", "mov eax, -1",
     "b8ffffffff"},
    {"gp", "mov rax, 0xffffffff",
     "48b8ffffffff00000000"},
    {"gp", "movabs rax, 0x1",
     "48b80100000000000000"},
    {"gp", "mov rax, [0x1000]",
     "488b042500100000"},
    {"gp", "mov eax, [0x123456789]",
     "a18967452301000000"},
    {"gp", "mov rax, qword ptr fs:[0x28]",
     "64488b042528000000"},
    {"gp", "mov rax, ds:[rbp]",
     "3e488b4500"},
    {"gp", "mov rax, ss:[rsp]",
     "488b0424"},
    {"gp", "mov eax, [rip+0x10]",
     "8b0510000000"},
    {"gp", "mov rax, [eax]",
     "67488b00"},
    {"gp", "mov rax, fs",
     "8ce0"},
    {"gp", "lea rax, [rbx+rcx*2+8]",
     "488d444b08"},
    {"gp", "push [rax]",
     "ff30"},
    {"gp", "push 1000",
     "68e8030000"},
    {"gp", "imul rax, 5",
     "486bc005"},
    {"gp", "imul rax, rbx, 500",
     "4869c3f4010000"},
    {"gp", "shl rax, 1",
     "48d1e0"},
    {"gp", "sal rax, cl",
     "48d3e0"},
    {"gp", "xchg rbx, rax",
     "4893"},
    {"gp", "xchg eax, eax",
     "87c0"},
    {"gp", "xchg rbx, [rax]",
     "488718"},
    {"gp", "test rax, rbx",
     "4885d8"},
    {"gp", "test al, 1",
     "a801"},
    {"gp", "movzx eax, byte ptr [rax]",
     "0fb600"},
    {"gp", "movsxd rax, ebx",
     "4863c3"},
    {"gp", "cmove rax, rbx",
     "480f44c3"},
    {"gp", "cmovnae rax, rbx",
     "480f42c3"},
    {"gp", "setpe al",
     "0f9ac0"},
    {"gp", "int 3",
     "cc"},
    {"gp", "ret 8",
     "c20800"},
    {"gp", "lock add [rax], rbx",
     "f0480118"},
    {"gp", "lock sub word ptr [rbx], 2",
     "66f0832b02"},
    {"gp", "rep movsb",
     "f3a4"},
    {"gp", "rep movsw",
     "66f3a5"},
    {"gp", "repne scasb",
     "f2ae"},
    {"gp", "movs qword ptr [rdi], qword ptr [rsi]",
     "48a5"},
    {"gp", "stos dword ptr [rdi], eax",
     "ab"},
    {"gp", "nop dword ptr [rax]",
     "0f1f00"},
    {"gp", "nop word ptr [rax+rax*1+0]",
     "660f1f0400"},
    {"gp", "popcnt cx, word ptr [rax]",
     "66f30fb808"},
    {"gp", "pushf",
     "9c"},
    {"gp", "retf",
     "cb"},
    {"gp", "ljmp [rax]",
     "ff28"},
    {"gp", "mov cr0, rax",
     "0f22c0"},
    {"gp", "lar rax, bx",
     "480f02c3"},
    {"gp", "crc32 rax, rbx",
     "f2480f38f1c3"},
    {"gp", "mov ecx, (1 << 4) - 1",
     "b90f000000"},
    {"gp", "add rax, 'a'",
     "4883c061"},
    {"gp", "mov eax, 010",
     "b808000000"},
    {"gp", "mov rax, 0b101",
     "48c7c005000000"},
    {"gp", "ADD RAX, RBX",
     "4801d8"},
    {"gp", "Mov Eax, Dword Ptr [Rbx]",
     "8b03"},
    {"bmi", "andn rax, rbx, rcx",
     "c4e2e0f2c1"},
    {"bmi", "pdep rax, rbx, rcx",
     "c4e2e3f5c1"},
    {"bmi", "rorx rax, rbx, 5",
     "c4e3fbf0c305"},
    {"bmi", "tzcnt ax, bx",
     "66f30fbcc3"},
    {"sys", "cpuid",
     "0fa2"},
    {"sys", "rdtscp",
     "0f01f9"},
    {"sys", "wrmsr",
     "0f30"},
    {"sys", "xsave [rax]",
     "0fae20"},
    {"sys", "wbnoinvd",
     "f30f09"},
    {"sys", "bndldx bnd2, [rbx]",
     "0f1a13"},
    {"x87", "fld st(1)",
     "d9c1"},
    {"x87", "fadd st, st(1)",
     "d8c1"},
    {"x87", "fadd st(2)",
     "d8c2"},
    {"x87", "faddp",
     "dec1"},
    {"x87", "fxch",
     "d9c9"},
    {"x87", "fucomp",
     "dde9"},
    {"x87", "fld tbyte ptr [rax]",
     "db28"},
    {"x87", "fstsw ax",
     "9bdfe0"},
    {"x87", "fnsave [rax]",
     "dd30"},
    {"x87", "fcmovnbe st, st(2)",
     "dbd2"},
    {"mmx", "movq mm0, [rax]",
     "0f6f00"},
    {"mmx", "paddq mm0, mm1",
     "0fd4c1"},
    {"sse", "movaps xmm8, xmm1",
     "440f28c1"},
    {"sse", "movq xmm0, [rax]",
     "f30f7e00"},
    {"sse", "movsd xmm0, [rax]",
     "f20f1000"},
    {"sse", "cvtsi2sd xmm0, qword ptr [rax]",
     "f2480f2a00"},
    {"sse", "cmpltsd xmm0, xmm1",
     "f20fc2c101"},
    {"sse", "blendvps xmm0, xmm1, xmm0",
     "660f3814c1"},
    {"sse", "pshufd xmm0, xmm1, 0x1b",
     "660f70c11b"},
    {"sse", "roundsd xmm0, xmm1, 4",
     "660f3a0bc104"},
    {"crypto", "aesenc xmm0, xmm1",
     "660f38dcc1"},
    {"crypto", "pclmulhqhqdq xmm5, xmm6",
     "660f3a44ee11"},
    {"crypto", "sha256rnds2 xmm0, xmm1",
     "0f38cbc1"},
    {"crypto", "gf2p8affineqb xmm0, xmm1, 0",
     "660f3acec100"},
    {"avx", "vmovaps xmm0, xmm8",
     "c57829c0"},
    {"avx", "vaddps xmm0, xmm1, xmm8",
     "c4c17058c0"},
    {"avx", "vaddps ymm0, ymm1, [rax]",
     "c5f45800"},
    {"avx", "vfmadd231ps ymm0, ymm1, ymm2",
     "c4e275b8c2"},
    {"avx", "vblendvps ymm0, ymm1, ymm2, ymm3",
     "c4e3754ac230"},
    {"avx", "vgatherdps ymm0, [rax+ymm1*4], ymm2",
     "c4e26d920488"},
    {"avx", "vcmpeq_uqps ymm0, ymm1, ymm2",
     "c5f4c2c208"},
    {"avx", "vpermq ymm0, ymm1, 0x1b",
     "c4e3fd00c11b"},
    {"avx", "vpclmulqdq ymm0, ymm1, ymm2, 0",
     "c4e37544c200"},
    {"avx512", "vaddps zmm0, zmm1, zmm2",
     "62f1744858c2"},
    {"avx512", "vaddps zmm0{k1}{z}, zmm1, zmm2",
     "62f174c958c2"},
    {"avx512", "vaddps zmm0 {k1}{z}, zmm1, zmm2",
     "62f174c958c2"},
    {"avx512", "vaddps zmm0, zmm1, [rax+64]",
     "62f17448584001"},
    {"avx512", "vaddps zmm0, zmm1, [rax]{1to16}",
     "62f174585800"},
    {"avx512", "vaddpd zmm0, zmm1, qword ptr [rax]{1to8}",
     "62f1f5585800"},
    {"avx512", "vaddps zmm0, zmm1, zmm2, {rn-sae}",
     "62f1741858c2"},
    {"avx512", "vaddps zmm0, zmm1, zmm2 {rz-sae}",
     "62f1747858c2"},
    {"avx512", "vmaxps zmm0, zmm1, zmm2, {sae}",
     "62f174185fc2"},
    {"avx512", "vaddps xmm16, xmm17, xmm18",
     "62a1740058c2"},
    {"avx512", "vpxord zmm0, zmm0, zmm0",
     "62f17d48efc0"},
    {"avx512", "vpcmpnltud k1, zmm1, zmm2",
     "62f375481eca05"},
    {"avx512", "vgatherdps zmm0{k1}, [rax+zmm1*4]",
     "62f27d49920488"},
    {"avx512", "vpscatterdd [rax+zmm1*4]{k1}, zmm0",
     "62f27d49a00488"},
    {"avx512", "vpdpwssd ymm0, ymm1, ymm2",
     "62f2752852c2"},
    {"avx512", "kmovw k1, k2",
     "c5f890ca"},
    {"amx", "ldtilecfg [rax]",
     "c4e2784900"},
    {"amx", "tileloadd tmm0, [rax+rbx*1]",
     "c4e27b4b0418"},
    {"amx", "tdpbssd tmm0, tmm1, tmm2",
     "c4e26b5ec1"},
    {"labels", "top: nop; 125*|nop|; jmp top",
     "909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090eb80"},
    {"labels", "top: nop; 126*|nop|; jmp top",
     "90909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090e97cffffff"},
    {"labels", "jmp end; 127*|nop|; end: nop",
     "eb7f9090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090"},
    {"labels", "je end; 128*|nop|; end: nop",
     "0f8480000000909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090"},
    {"labels", "loop: dec rcx; jnz loop; call func; func: ret",
     "48ffc975fbe800000000c3"},
    {"labels", "a: jmp b; 50*|nop|; jmp c; b: 50*|nop|; c: jmp a; loop a; jrcxz a",
     "eb349090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090eb329090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090eb96e294e392"},
    {"labels", "jmp .+2; jne $-10; xbegin .+6",
     "eb0075f4c7f800000000"},
    {"directives", ".byte 1, 2, 0xff, -1; .word 0x1234, -2; .short 5; .value 6; .long 0xdeadbeef; .int -1; .quad 0x123456789abcdef0",
     "0102ffff3412feff05000600efbeaddefffffffff0debc9a78563412"},
    {"directives", "jmp x; .p2align 6; x: nop; .p2align 4, 0xcc; nop; .align 8; .p2align 5,,3; nop",
     "eb3e66662e0f1f84000000000066662e0f1f84000000000066662e0f1f84000000000066662e0f1f84000000000066662e0f1f8400000000000f1f800000000090cccccccccccccccccccccccccccccc900f1f800000000090"},
    {"directives", "nop; .p2align 5; add rax, rbx; .balign 16",
     "9066662e0f1f84000000000066662e0f1f840000000000660f1f8400000000004801d866662e0f1f8400000000006690"},
    {"rep", "4*|add rax, rbx; nop dword ptr [rax]|; .p2align 4",
     "4801d80f1f004801d80f1f004801d80f1f004801d80f1f000f1f840000000000"},
    {"rep", "2*|nop|",
     "9090"},
    {"rep", "3*|mov rax, [rbx]|; |5",
     "488b03488b03488b030f1f440000"},
    {"rep", "2*|nop; |3; |1|",
     "900f1f0090900f1f0090"},
    {"labels", "jmp fwd; 200*|add rax, rbx|; fwd: ret",
     "e9580200004801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d84801d8c3"},
    {"multi", "add rax, rbx\nadd rbx, rax; imul rcx, rcx\n\n  sub rdx, 1",
     "4801d84801c3480fafc94883ea01"},
};

static void to_hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * n] = 0;
}

static void test_bytes_match_as(void **state)
{
    (void)state;
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        asm_code code;
        asm_error err;
        int rc = asm_assemble(cases[i].src, &code, &err);
        if (rc) {
            printf("%s: '%s': error %d:%d %s\n", cases[i].family, cases[i].src, err.line,
                   err.col, err.message);
            bad++;
            continue;
        }
        char *hex = malloc(2 * code.size + 1);
        assert_non_null(hex);
        to_hex(code.bytes, code.size, hex);
        if (strcmp(hex, cases[i].hex) != 0) {
            printf("%s: '%s':\n  as %s\n  nb %s\n", cases[i].family, cases[i].src, cases[i].hex,
                   hex);
            bad++;
        }
        free(hex);
        asm_code_free(&code);
    }
    assert_int_equal(bad, 0);
}

/* nanoBench's |n NOPs, byte for byte (facts from its documentation). */
static void test_nop_bytes(void **state)
{
    (void)state;
    static const char *const want[16] = {
        NULL, "90", "6690", "0f1f00", "0f1f4000", "0f1f440000", "660f1f440000",
        "0f1f8000000000", "0f1f840000000000", "660f1f840000000000",
        "662e0f1f840000000000", "66662e0f1f840000000000", "6666662e0f1f840000000000",
        "666666662e0f1f840000000000", "66666666662e0f1f840000000000",
        "6666666666662e0f1f840000000000",
    };
    for (int n = 1; n <= 15; n++) {
        uint8_t b[15];
        char hex[31];
        assert_int_equal(asm_nop_bytes(n, b), (size_t)n);
        to_hex(b, (size_t)n, hex);
        assert_string_equal(hex, want[n]);
        /* and through the assembler */
        char src[16];
        snprintf(src, sizeof src, "|%d", n);
        asm_code code;
        asm_error err;
        assert_int_equal(asm_assemble(src, &code, &err), 0);
        assert_int_equal(code.size, (size_t)n);
        to_hex(code.bytes, code.size, hex);
        assert_string_equal(hex, want[n]);
        asm_code_free(&code);
    }
    uint8_t b[15];
    assert_int_equal(asm_nop_bytes(0, b), 0);
    assert_int_equal(asm_nop_bytes(16, b), 0);
}

/* Each statement keeps its text, place and bytes; labels have size 0. */
static void test_statement_list(void **state)
{
    (void)state;
    asm_code code;
    asm_error err;
    const char *src = "l: add rax, rbx ;  nop\n  |3\n2*|inc rcx|";
    assert_int_equal(asm_assemble(src, &code, &err), 0);
    assert_int_equal(code.n_stmts, 6);
    assert_string_equal(code.stmts[0].text, "l:");
    assert_int_equal(code.stmts[0].size, 0);
    assert_string_equal(code.stmts[1].text, "add rax, rbx");
    assert_int_equal(code.stmts[1].offset, 0);
    assert_int_equal(code.stmts[1].size, 3);
    assert_int_equal(code.stmts[1].line, 1);
    assert_int_equal(code.stmts[1].col, 4);
    assert_string_equal(code.stmts[2].text, "nop");
    assert_int_equal(code.stmts[2].col, 20);
    assert_string_equal(code.stmts[3].text, "|3");
    assert_int_equal(code.stmts[3].line, 2);
    assert_int_equal(code.stmts[3].col, 3);
    assert_int_equal(code.stmts[3].offset, 4);
    assert_string_equal(code.stmts[4].text, "inc rcx");
    assert_string_equal(code.stmts[5].text, "inc rcx");
    assert_int_equal(code.stmts[5].offset, 10);
    assert_int_equal(code.size, 13);
    asm_code_free(&code);
}

static void test_empty_input(void **state)
{
    (void)state;
    asm_code code;
    asm_error err;
    assert_int_equal(asm_assemble("", &code, &err), 0);
    assert_int_equal(code.size, 0);
    asm_code_free(&code);
    assert_int_equal(asm_assemble(" ; ;\n\n# only a comment\n", &code, &err), 0);
    assert_int_equal(code.size, 0);
    asm_code_free(&code);
    assert_int_equal(asm_assemble("0*|nop|", &code, &err), 0);
    assert_int_equal(code.size, 0);
    asm_code_free(&code);
}

/* A long snippet: 100,000 copies through repetition, and as text. */
static void test_large_repetition(void **state)
{
    (void)state;
    asm_code code;
    asm_error err;
    assert_int_equal(asm_assemble("100000*|add rax, rbx; |2|", &code, &err), 0);
    assert_int_equal(code.size, 500000);
    assert_int_equal(code.n_stmts, 200000);
    assert_memory_equal(code.bytes + 499995, "\x48\x01\xd8\x66\x90", 5);
    asm_code_free(&code);

    size_t n = 20000;
    char *src = malloc(n * 16 + 1);
    assert_non_null(src);
    src[0] = 0;
    char *p = src;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "imul rcx, rdx\n");
    assert_int_equal(asm_assemble(src, &code, &err), 0);
    assert_int_equal(code.size, 4 * n);
    asm_code_free(&code);
    free(src);
}

static void test_disasm_and_listing(void **state)
{
    (void)state;
    char buf[128];
    const uint8_t add[] = {0x48, 0x01, 0xd8};
    assert_int_equal(asm_disasm_one(add, sizeof add, 0, buf, sizeof buf), 3);
    assert_string_equal(buf, "add rax, rbx");
    const uint8_t bad[] = {0x0f};
    assert_int_equal(asm_disasm_one(bad, sizeof bad, 0, buf, sizeof buf), 0);

    asm_code code;
    asm_error err;
    assert_int_equal(asm_assemble("top: add rax, rbx; jnz top; .byte 1", &code, &err), 0);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    asm_print_listing(f, &code);
    fclose(f);
    assert_non_null(strstr(out, "48 01 d8"));
    assert_non_null(strstr(out, "add rax, rbx"));
    assert_non_null(strstr(out, "75 fb"));
    assert_non_null(strstr(out, "top:"));
    free(out);
    asm_code_free(&code);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_match_as),
        cmocka_unit_test(test_nop_bytes),
        cmocka_unit_test(test_statement_list),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_large_repetition),
        cmocka_unit_test(test_disasm_and_listing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
