/* Representative statements per family, with the bytes GNU as 2.40
 * (`.intel_syntax noprefix`) gives for them, plus labels and branch sizing,
 * `n*|x|` repetition, `|n` NOPs, directives, the statement list and the
 * listing.  The expected bytes were produced by as (the `n*|x|` and `|n`
 * cases from the equivalent .rept / .byte source): tests/asm_basic/regen.py
 * rewrites tests/asm_basic/cases.inc from cases.txt.  The larger corpus is
 * tests/test_asm_golden.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/asm.h"
#include "sys/status.h"

static const struct { const char *family, *src, *hex; } cases[] = {
#include "asm_basic/cases.inc"
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
        nb_error err;
        int rc = asm_assemble(cases[i].src, "asm", &code, &err);
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
        nb_error err;
        assert_int_equal(asm_assemble(src, "asm", &code, &err), 0);
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
    nb_error err;
    const char *src = "l: add rax, rbx ;  nop\n  |3\n2*|inc rcx|";
    assert_int_equal(asm_assemble(src, "asm", &code, &err), 0);
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
    nb_error err;
    assert_int_equal(asm_assemble("", "asm", &code, &err), 0);
    assert_int_equal(code.size, 0);
    asm_code_free(&code);
    assert_int_equal(asm_assemble(" ; ;\n\n# only a comment\n", "asm", &code, &err), 0);
    assert_int_equal(code.size, 0);
    asm_code_free(&code);
    assert_int_equal(asm_assemble("0*|nop|", "asm", &code, &err), 0);
    assert_int_equal(code.size, 0);
    asm_code_free(&code);
}

/* A long snippet: 100,000 copies through repetition, and as text. */
static void test_large_repetition(void **state)
{
    (void)state;
    asm_code code;
    nb_error err;
    assert_int_equal(asm_assemble("100000*|add rax, rbx; |2|", "asm", &code, &err), 0);
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
    assert_int_equal(asm_assemble(src, "asm", &code, &err), 0);
    assert_int_equal(code.size, 4 * n);
    asm_code_free(&code);
    free(src);
}

/* Many numeric local labels among named ones (the fuzzer once hung the
 * label hash here), each branch reaching its own target. */
static void test_many_labels(void **state)
{
    (void)state;
    size_t n = 3000;
    char *src = malloc(n * 48 + 1);
    assert_non_null(src);
    char *p = src;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%zu: nop; x%zu: jmp %zub; jmp x%zu\n", i % 7, i, i % 7, i);
    asm_code code;
    nb_error err;
    assert_int_equal(asm_assemble(src, "asm", &code, &err), 0);
    assert_int_equal(code.size, 5 * n);
    for (size_t i = 0; i < n; i++) {
        assert_memory_equal(code.bytes + 5 * i, "\x90\xeb\xfd\xeb\xfc", 5);
    }
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
    nb_error err;
    assert_int_equal(asm_assemble("top: add rax, rbx; jnz top; .byte 1", "asm", &code, &err), 0);
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

/* Diagnostics beyond the error classes of test_asm_errors.c: each input
 * fails at line:col with a message holding the given words. */
static void test_more_diagnostics(void **state)
{
    (void)state;
    static const struct { const char *src; int line, col; const char *words; } bad[] = {
        {"vaddps zmm0 {k0}, zmm1, zmm2", 1, 14, "k0"},
        {"vaddps xmm0 {z}, xmm1, xmm2", 1, 8, "write mask"},
        {"nop\n.foo 1", 2, 1, "unknown directive"},
        {"mov eax, 0x1g", 1, 10, "bad number"},
        {"nop; |", 1, 6, "mnemonic"},
        {"add rax, .", 1, 10, "branch target"},
        {"mov rax, [rbx+lbl]", 1, 15, "unknown register"},
        {"mov rax, [rip+nowhere]", 1, 15, "undefined label"},
        {"jmp 1b", 1, 5, "undefined label"},
        {"5000000*|nop|", 1, 1, "too large"},
        {"2*|x: nop|", 1, 4, "duplicate label"},
        {".byte 256", 1, 7, "does not fit"},
        {".p2align 3, 0, 1; .align 3", 1, 26, "power of 2"},
        {"{disp8} mov rax, [rbx+1000]", 1, 18, "disp8"},
        {"mov rax, [rbx*3]", 1, 11, "scale"},
        {"2*|nop", 1, 3, "unterminated"},
        {"add rax, rbx, rcx", 1, 15, "operand 3"},
        {"vaddps xmm0, xmm1", 1, 14, "operand 2"},
        {"mov eax, byte ptr [rax]", 1, 10, "operand 2"},
        {"jmp 0x10", 1, 5, "branch target"},
        {"jmp short x; 200*|nop|; x: nop", 1, 11, "out of range"},
        {"call short x; x: nop", 1, 12, "no short form"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        asm_code code;
        nb_error err;
        int rc = asm_assemble(bad[i].src, "asm", &code, &err);
        if (rc == 0) {
            asm_code_free(&code);
            fail_msg("'%s' assembled, must fail", bad[i].src);
        }
        assert_int_equal(rc, NB_EINPUT);
        if (err.line != bad[i].line || err.col != bad[i].col || !strstr(err.message, bad[i].words))
            fail_msg("'%s': got %d:%d '%s', want %d:%d '...%s...'", bad[i].src, err.line,
                     err.col, err.message, bad[i].line, bad[i].col, bad[i].words);
    }
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
        cmocka_unit_test(test_more_diagnostics),
        cmocka_unit_test(test_many_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
