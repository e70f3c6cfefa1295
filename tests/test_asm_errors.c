/* One test per assembler error class (issue 2): each bad input must fail with
 * NB_EINPUT, a message naming the problem, and the line and column of the
 * offending token; nb_error_print must put the caret under that column.
 * Messages are matched on the words that carry the meaning, case-insensitively,
 * so rewording stays possible. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "asm/asm.h"
#include "sys/status.h"

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

/* Assembles `text`, expecting failure at line:col (col 0: any of col_alt) with
 * a message holding every word in `words` (NULL-terminated). */
static void expect_error_at(const char *text, int line, int col, int col_alt,
                            const char *const *words)
{
    asm_code code = {0};
    nb_error err;
    int rc = asm_assemble(text, "asm", &code, &err);
    if (rc == 0) {
        asm_code_free(&code);
        fail_msg("'%s' assembled (%zu bytes) but must fail", text, code.size);
    }
    assert_int_equal(rc, NB_EINPUT);
    for (const char *const *w = words; *w; w++)
        if (!contains_ci(err.message, *w))
            fail_msg("'%s': message '%s' lacks '%s'", text, err.message, *w);
    if (err.line != line || (err.col != col && err.col != col_alt))
        fail_msg("'%s': error at %d:%d, want %d:%d ('%s')", text, err.line, err.col, line, col,
                 err.message);

    /* The printed form: "nb: asm:L:C: message", the source line, a caret. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    nb_error_print(f, &err);
    fclose(f);
    char head[64];
    snprintf(head, sizeof head, "nb: asm:%d:%d: ", err.line, err.col);
    if (strncmp(buf, head, strlen(head)) != 0)
        fail_msg("printed error starts '%.40s', want '%s'", buf, head);
    char *src = strchr(buf, '\n');
    assert_non_null(src);
    src++;
    char *caret = strchr(src, '\n');
    assert_non_null(caret);
    caret++;
    /* The caret sits under column `col` of the echoed source line. */
    const char *echo = strstr(src, err.source);
    if (!echo || echo > caret)
        fail_msg("printed error does not echo the source line '%s':\n%s", err.source, buf);
    size_t indent = (size_t)(echo - src);
    const char *hat = strchr(caret, '^');
    assert_non_null(hat);
    assert_int_equal((size_t)(hat - caret), indent + (size_t)err.col - 1);
    free(buf);
}

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* C comments are blanks, as GNU as takes them, on one line or several
 * (whose newlines end no statement); one never closed is an error where it
 * opens, and lines after a multi-line comment keep their numbers. */
static void test_c_comments(void **s)
{
    (void)s;
    static const struct { const char *text; size_t size; } ok[] = {
        {"add rax, rbx /* sum */; nop", 4},
        {"/* a\nb */ nop; /* x */ /* y */ inc rax # z", 4},
        {"nop /**/", 1},
        {"/* only a comment */", 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        asm_code code = {0};
        nb_error err;
        if (asm_assemble(ok[i].text, "asm", &code, &err) != 0)
            fail_msg("'%s': %s", ok[i].text, err.message);
        assert_int_equal(code.size, ok[i].size);
        asm_code_free(&code);
    }
    expect_error_at("nop /* open", 1, 5, 5, (const char *const[]){"unterminated", NULL});
    expect_error_at("nop\n/* x\n*/ add rax, rxa", 3, 13, 13,
                    (const char *const[]){"unknown register", NULL});
}

static void test_unknown_mnemonic(void **s)
{
    (void)s;
    expect_error_at("foo rax", 1, 1, 1, WORDS("unknown mnemonic", "foo"));
    expect_error_at("nop\nnop\n  addx rax, rbx", 3, 3, 3, WORDS("unknown mnemonic", "addx"));
    expect_error_at("nop; movv eax, 1", 1, 6, 6, WORDS("unknown mnemonic", "movv"));
}

static void test_unknown_register(void **s)
{
    (void)s;
    expect_error_at("mov rax, rxa", 1, 10, 10, WORDS("unknown register", "rxa"));
    expect_error_at("ADD RAX, RXA", 1, 10, 10, WORDS("unknown register", "rxa"));
    expect_error_at("mov rax, qword ptr [rxa+8]", 1, 21, 21, WORDS("register", "rxa"));
}

static void test_bad_operand_combination(void **s)
{
    (void)s;
    expect_error_at("add rax, xmm0", 1, 10, 10, WORDS("operand 2"));
    expect_error_at("push xmm0", 1, 6, 6, WORDS("operand 1"));
    expect_error_at("vaddps zmm0, zmm1, ymm2", 1, 20, 20, WORDS("operand 3"));
}

static void test_immediate_out_of_range(void **s)
{
    (void)s;
    expect_error_at("mov al, 256", 1, 9, 9, WORDS("range"));
    expect_error_at("int 0x100", 1, 5, 5, WORDS("range"));
    expect_error_at("add eax, 0x1ffffffff", 1, 10, 10, WORDS("range"));
    expect_error_at("shl eax, 256", 1, 10, 10, WORDS("range"));
}

static void test_ambiguous_size(void **s)
{
    (void)s;
    expect_error_at("inc [rbx]", 1, 5, 5, WORDS("size"));
    expect_error_at("mov [rax], 1", 1, 5, 5, WORDS("size"));
    expect_error_at("add [rax+8], 0x10", 1, 5, 5, WORDS("size"));
}

static void test_undefined_label(void **s)
{
    (void)s;
    expect_error_at("jmp nowhere", 1, 5, 5, WORDS("undefined", "nowhere"));
    expect_error_at("nop\njne missing\nl: nop", 2, 5, 5, WORDS("undefined", "missing"));
}

static void test_duplicate_label(void **s)
{
    (void)s;
    expect_error_at("l: nop\nl: nop", 2, 1, 1, WORDS("duplicate", "l"));
    expect_error_at("start:\nnop\nstart: ret", 3, 1, 1, WORDS("duplicate", "start"));
}

static void test_branch_out_of_range(void **s)
{
    (void)s;
    /* jecxz and loop only have rel8: 200 bytes away is beyond reach. */
    char text[1024];
    size_t o = (size_t)snprintf(text, sizeof text, "jecxz far\n.byte 0");
    for (int i = 1; i < 200; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, ",0");
    snprintf(text + o, sizeof text - o, "\nfar: nop");
    expect_error_at(text, 1, 1, 7, WORDS("range"));
    memcpy(text, "loop ", 5); /* "loop  far": same shape, operand still at 7 */
    expect_error_at(text, 1, 1, 7, WORDS("range"));
}

static void test_nop_size(void **s)
{
    (void)s;
    expect_error_at("|0", 1, 1, 2, WORDS("15"));
    expect_error_at("|16", 1, 1, 2, WORDS("15"));
    expect_error_at("nop; |16", 1, 6, 7, WORDS("15"));
}

static void test_nested_repetition(void **s)
{
    (void)s;
    expect_error_at("2*|3*|nop||", 1, 4, 4, WORDS("nested"));
    expect_error_at("nop\n4*|add rax, 1; 2*|nop||", 2, 16, 16, WORDS("nested"));
    /* a body with labels is parsed once per copy: bounded (fuzzing found a
     * 36-byte body repeated 512,641 times taking seconds) */
    expect_error_at("nop\n1000000*|1: dec rcx; jnz 1b|", 2, 1, 1, WORDS("labels", "too large"));
}

/* ah/bh/ch/dh cannot share an instruction with a REX prefix (as refuses it). */
static void test_high_byte_with_rex(void **s)
{
    (void)s;
    const char *bad[] = {"mov ah, sil", "add r8b, ah", "movzx r9d, bh", "mov ch, byte ptr [r12]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        asm_code code = {0};
        nb_error err;
        if (asm_assemble(bad[i], "asm", &code, &err) == 0) {
            asm_code_free(&code);
            fail_msg("'%s' assembled but must fail (high byte register with REX)", bad[i]);
        }
        assert_true(err.message[0] != '\0');
        assert_int_equal(err.line, 1);
        assert_true(err.col > 1);
    }
}

/* Nothing may be dropped silently: junk after an instruction is an error. */
static void test_trailing_junk(void **s)
{
    (void)s;
    asm_code code = {0};
    nb_error err;
    const char *bad[] = {"add rax, rbx junk", "mov eax, [rax+rbx*3]", "mov eax, [rax", "nop,"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (asm_assemble(bad[i], "asm", &code, &err) == 0) {
            asm_code_free(&code);
            fail_msg("'%s' assembled but must fail", bad[i]);
        }
        assert_true(err.message[0] != '\0');
        assert_int_equal(err.line, 1);
        assert_true(err.col >= 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_mnemonic),
        cmocka_unit_test(test_unknown_register),
        cmocka_unit_test(test_bad_operand_combination),
        cmocka_unit_test(test_immediate_out_of_range),
        cmocka_unit_test(test_ambiguous_size),
        cmocka_unit_test(test_undefined_label),
        cmocka_unit_test(test_duplicate_label),
        cmocka_unit_test(test_branch_out_of_range),
        cmocka_unit_test(test_nop_size),
        cmocka_unit_test(test_nested_repetition),
        cmocka_unit_test(test_c_comments),
        cmocka_unit_test(test_high_byte_with_rex),
        cmocka_unit_test(test_trailing_junk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
