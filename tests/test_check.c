/* harness/check: code that writes the registers the generated program keeps
 * state in is refused before it runs (issue 14, item 18). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "harness/check.h"
#include "harness/codegen.h"

static int check_text(const char *text, check_rules rules, nb_error *e)
{
    asm_code code;
    nb_error aerr;
    if (asm_assemble(text, "asm", &code, &aerr) != 0)
        fail_msg("'%s' does not assemble", text);
    nb_error_clear(e);
    int rc = check_code(&code, "asm", rules, e);
    asm_code_free(&code);
    return rc;
}

static void expect_refused(const char *text, check_rules rules, int line, const char *needle)
{
    nb_error e;
    assert_int_equal(check_text(text, rules, &e), NB_EINPUT);
    assert_int_equal(e.line, line);
    if (!strstr(e.message, needle))
        fail_msg("'%s': message '%s' lacks '%s'", text, e.message, needle);
}

static void expect_accepted(const char *text, check_rules rules)
{
    nb_error e;
    if (check_text(text, rules, &e) != 0)
        fail_msg("'%s' refused: %s", text, e.message);
}

static void test_loop_counter(void **state)
{
    (void)state;
    check_rules loop = {.loop = true};
    expect_refused("add rax, 1\nmov r15d, 5", loop, 2, "'mov r15d, 5' writes R15");
    expect_refused("inc r15b", loop, 1, "-loop_count");
    expect_refused("xchg rax, r15", loop, 1, "R15");
    expect_accepted("mov rax, r15\nadd [r15], rax", loop);   /* reads only */
    expect_accepted("mov r15, 1", (check_rules){0});          /* no loop: free */
}

static void test_no_mem_counters(void **state)
{
    (void)state;
    check_rules nm = {.no_mem = true};
    expect_refused("mov r8, 5", nm, 1, "'mov r8, 5' writes R8");
    expect_refused("nop\nnop\npop r13", nm, 3, "R13");
    expect_refused("syscall", nm, 1, "R11");     /* an implicit write */
    expect_accepted("mov r14, r8\nmov r15, 1\ncpuid\nadd rax, [r12]", nm);
    /* the magic pause / resume sequences are data, not instructions */
    expect_accepted(".quad 0xF0B513B1C2813F04\nnop\n.quad 0xE0B513B1C2813F04", nm);
}

/* Raw -code bytes have no statements: the byte offset is named. */
static void test_raw_bytes(void **state)
{
    (void)state;
    uint8_t bytes[] = {0x90, 0x04, 0x3F, 0x81, 0xC2, 0xB1, 0x13, 0xB5, 0xF0,
                       0x49, 0xC7, 0xC0, 0x05, 0x00, 0x00, 0x00};   /* nop; magic; mov r8, 5 */
    asm_code code = {.bytes = bytes, .size = sizeof bytes};
    nb_error e;
    nb_error_clear(&e);
    assert_int_equal(check_code(&code, "code", (check_rules){.no_mem = true}, &e), NB_EINPUT);
    assert_non_null(strstr(e.message, "byte 9"));
    assert_non_null(strstr(e.message, "R8"));
    assert_int_equal(check_code(&code, "code", (check_rules){.loop = true}, &e), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_counter),
        cmocka_unit_test(test_no_mem_counters),
        cmocka_unit_test(test_raw_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
