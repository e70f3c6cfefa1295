/* escape: what lib/escape.c keeps and what it shows as \xNN. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "lib/escape.h"

static void expect(const char *in, bool multiline, const char *want)
{
    char out[256];
    size_t need = escape_text(in, strlen(in), multiline, out, sizeof out);
    assert_string_equal(out, want);
    assert_int_equal(need, strlen(want));
}

static void test_kept(void **state)
{
    (void)state;
    expect("mov rax, [r14+8]; nop", false, "mov rax, [r14+8]; nop");
    expect("tab\there", false, "tab\there");
    expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", false, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    expect("two\nlines", true, "two\nlines");
}

static void test_escaped(void **state)
{
    (void)state;
    expect("a\x1b[2Jb", false, "a\\x1b[2Jb");                 /* ESC */
    expect("two\nlines", false, "two\\x0alines");
    expect("\x7f\x01", false, "\\x7f\\x01");                    /* DEL, C0 */
    expect("\xef\xbb\xbfnop", false, "\\xef\\xbb\\xbfnop");      /* BOM */
    expect("\xc2\x9b" "31m", false, "\\xc2\\x9b31m");           /* C1 CSI */
    expect("x\xe2\x80\xaey", false, "x\\xe2\\x80\\xaey");        /* RLO */
    expect("\xff\xfe", false, "\\xff\\xfe");                    /* not UTF-8 */
    expect("\xc0\xaf", false, "\\xc0\\xaf");                    /* overlong */
    expect("\xed\xa0\x80", false, "\\xed\\xa0\\x80");           /* a surrogate */
    expect("\xe2\x82", false, "\\xe2\\x82");                    /* cut short */
}

static void test_truncated_and_columns(void **state)
{
    (void)state;
    char out[8];
    assert_int_equal(escape_text("ab\x1b" "cdef", 7, false, out, sizeof out), 10);
    assert_string_equal(out, "ab\\x1bc");   /* whole escapes only */
    assert_int_equal(escape_columns("\x1b[2J", 1), 4);
    assert_int_equal(escape_columns("caf\xc3\xa9x", 5), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kept),
        cmocka_unit_test(test_escaped),
        cmocka_unit_test(test_truncated_and_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
