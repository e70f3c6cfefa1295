/* Unit tests of sys/error.c: the one error value, its printer (what the user
 * sees on stderr) and its record text (what a JSON/CSV record carries). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/error.h"
#include "sys/status.h"

static char *printed(const nb_error *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(nb_error_print(f, e), 0);
    fclose(f);
    return buf;
}

/* The place, in every combination the printer knows. */
static void test_place(void **state)
{
    (void)state;
    nb_error e;
    char text[2048];
    assert_int_equal(nb_error_at(&e, NB_EINPUT, "cfg.txt", 3, 0, "bad '%s'", "zz"), NB_EINPUT);
    assert_int_equal(e.status, NB_EINPUT);
    nb_error_format(&e, text, sizeof text);
    assert_string_equal(text, "cfg.txt:3: bad 'zz'");
    nb_error_at(&e, NB_EUSAGE, "-events", 0, 0, "unknown");
    nb_error_format(&e, text, sizeof text);
    assert_string_equal(text, "-events: unknown");
    nb_error_set(&e, NB_ESYSTEM, "fork: %s", "no");
    nb_error_format(&e, text, sizeof text);
    assert_string_equal(text, "fork: no");
    char *p = printed(&e);
    assert_string_equal(p, "nb: fork: no\n");
    free(p);
    /* a NULL error still gives the status back */
    assert_int_equal(nb_error_set(NULL, NB_EFAULT, "x"), NB_EFAULT);
}

/* The source line and a caret under the column; the advice; the batch's
 * line in front when printed, never in the record. */
static void test_caret_advice_within(void **state)
{
    (void)state;
    nb_error e;
    nb_error_at(&e, NB_EINPUT, "asm", 1, 9, "unknown register 'RXA'");
    snprintf(e.source, sizeof e.source, "add rax, rxa");
    char *p = printed(&e);
    assert_string_equal(p, "nb: asm:1:9: unknown register 'RXA'\n"
                           "    add rax, rxa\n"
                           "            ^\n");
    free(p);
    snprintf(e.advice, sizeof e.advice, "see -help");
    snprintf(e.within, sizeof e.within, "line 7");
    p = printed(&e);
    assert_string_equal(p, "nb: line 7: asm:1:9: unknown register 'RXA'\n"
                           "    add rax, rxa\n"
                           "            ^\n"
                           "nb: line 7: hint: see -help\n");
    free(p);
    char text[2048];
    nb_error_format(&e, text, sizeof text);
    assert_string_equal(text, "asm:1:9: unknown register 'RXA'\n"
                              "    add rax, rxa\n"
                              "            ^\n"
                              "hint: see -help");
    /* a short buffer is cut, and still ends */
    char small[12];
    nb_error_format(&e, small, sizeof small);
    assert_string_equal(small, "asm:1:9: un");
}

/* Context added on the way up goes in front of the message, not the place. */
static void test_prefix(void **state)
{
    (void)state;
    nb_error e;
    nb_error_at(&e, NB_EUNSUPPORTED, "", 0, 0, "rdpmc is off");
    nb_error_prefix(&e, "%s", "perf_event+rdpmc");
    assert_string_equal(e.message, "perf_event+rdpmc: rdpmc is off");
    assert_int_equal(e.status, NB_EUNSUPPORTED);
    /* a message at its size limit stays terminated */
    memset(e.message, 'x', sizeof e.message - 1);
    e.message[sizeof e.message - 1] = '\0';
    nb_error_prefix(&e, "ctx");
    assert_int_equal(strlen(e.message), sizeof e.message - 1);
    assert_memory_equal(e.message, "ctx: xx", 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_place),
        cmocka_unit_test(test_caret_advice_within),
        cmocka_unit_test(test_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
