/* batch_split: a -batch line into words, with shell-like quoting: '...'
 * literal, "..." with \" \\ \$ \` escapes, a backslash outside quotes
 * escaping the next character, '#' at a word's start beginning a comment;
 * an unterminated quote is an error naming its column (1-based bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/batch.h"
#include "sys/status.h"

/* Splits `line` and checks the words against the NULL-terminated `want`. */
static void expect_words(const char *line, const char *const *want)
{
    char **argv = NULL, *store = NULL;
    nb_error err;
    nb_error_clear(&err);
    int n = batch_split(line, &argv, &store, &err);
    if (n < 0)
        fail_msg("'%s': error %s", line, err.message);
    int k = 0;
    while (want[k])
        k++;
    if (n != k)
        fail_msg("'%s': %d words, want %d", line, n, k);
    for (int i = 0; i < n; i++)
        if (strcmp(argv[i], want[i]) != 0)
            fail_msg("'%s': word %d is '%s', want '%s'", line, i, argv[i], want[i]);
    assert_null(argv[n]);
    free(argv);
    free(store);
}

/* Splits `line`, which must fail with exactly `msg`. */
static void expect_error(const char *line, const char *msg)
{
    char **argv = NULL, *store = NULL;
    nb_error err;
    nb_error_clear(&err);
    int n = batch_split(line, &argv, &store, &err);
    if (n >= 0)
        fail_msg("'%s': %d words, want the error '%s'", line, n, msg);
    assert_int_equal(err.status, NB_EUSAGE);
    assert_string_equal(err.message, msg);
    /* the column is also the error's place */
    int col = 0;
    assert_int_equal(sscanf(msg, "column %d:", &col), 1);
    assert_int_equal(err.col, col);
}

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NONE ((const char *const[]){NULL})

static void test_plain_words(void **state)
{
    (void)state;
    expect_words("-asm nop", WORDS("-asm", "nop"));
    expect_words("  -asm \t nop  ", WORDS("-asm", "nop"));
    expect_words("a\tb\rc\nd", WORDS("a", "b", "c", "d"));
    expect_words("-unroll_count 100 -basic_mode", WORDS("-unroll_count", "100", "-basic_mode"));
    expect_words("x", WORDS("x"));
    /* bytes beyond ASCII pass through as they are */
    expect_words("-asm \xc3\xa9\xff", WORDS("-asm", "\xc3\xa9\xff"));
}

static void test_empty_and_blank(void **state)
{
    (void)state;
    expect_words("", NONE);
    expect_words("   ", NONE);
    expect_words(" \t\r\n", NONE);
}

static void test_single_quotes(void **state)
{
    (void)state;
    expect_words("-asm 'imul rax, rax'", WORDS("-asm", "imul rax, rax"));
    /* nothing is special inside '...': backslash, double quote, # */
    expect_words("'a\\b \"c\" #d'", WORDS("a\\b \"c\" #d"));
    /* quoted and unquoted pieces join into one word */
    expect_words("a'b c'd", WORDS("ab cd"));
    expect_words("'' x ''", WORDS("", "x", ""));
    expect_words("''''", WORDS(""));
}

static void test_double_quotes(void **state)
{
    (void)state;
    expect_words("-asm \"mov rax, [r14]\"", WORDS("-asm", "mov rax, [r14]"));
    /* \" \\ \$ \` are escapes inside "..."; any other backslash stays */
    expect_words("\"a\\\"b\"", WORDS("a\"b"));
    expect_words("\"a\\\\b\"", WORDS("a\\b"));
    expect_words("\"\\$x\\`y\"", WORDS("$x`y"));
    expect_words("\"a\\nb\"", WORDS("a\\nb"));
    expect_words("\"it's\"", WORDS("it's"));
    expect_words("\"\"", WORDS(""));
    expect_words("x\"y z\"'w'", WORDS("xy zw"));
}

static void test_backslash_outside_quotes(void **state)
{
    (void)state;
    expect_words("a\\ b", WORDS("a b"));
    expect_words("\\'x\\'", WORDS("'x'"));
    expect_words("\\#x", WORDS("#x"));
    expect_words("a\\\\b", WORDS("a\\b"));
    /* a backslash that ends the line escapes nothing and stays */
    expect_words("a\\", WORDS("a\\"));
}

static void test_comments(void **state)
{
    (void)state;
    expect_words("# a comment", NONE);
    expect_words("   #x 'unterminated", NONE);
    expect_words("-asm nop # the rest", WORDS("-asm", "nop"));
    expect_words("-asm nop #'", WORDS("-asm", "nop"));
    /* '#' inside a word or quoted is a character */
    expect_words("a#b", WORDS("a#b"));
    expect_words("'#' \"#\"", WORDS("#", "#"));
}

static void test_errors_name_the_column(void **state)
{
    (void)state;
    expect_error("'", "column 1: unterminated ' quote");
    expect_error("-asm 'nop", "column 6: unterminated ' quote");
    expect_error("\"", "column 1: unterminated \" quote");
    expect_error("-asm \"mov rax, 1", "column 6: unterminated \" quote");
    /* the opening quote's column, also after an escaped quote inside */
    expect_error("ab \"c\\\"", "column 4: unterminated \" quote");
    /* a quote of the other kind does not close it */
    expect_error("x 'a\"", "column 3: unterminated ' quote");
    expect_error("x \"a'", "column 3: unterminated \" quote");
    /* columns count bytes: "\xc3\xa9" is two */
    expect_error("\xc3\xa9 '", "column 4: unterminated ' quote");
    /* an error in a later word after good ones */
    expect_error("a b c 'd", "column 7: unterminated ' quote");
}

/* The most words a line can hold (one-byte words, one-byte gaps) and one
 * long word: every word comes back whole and argv stays NULL-terminated. */
static void test_limits(void **state)
{
    (void)state;
    enum { N = 200001 };
    char *line = malloc(2 * N);
    assert_non_null(line);
    for (size_t i = 0; i < N; i++) {
        line[2 * i] = (char)('a' + i % 26);
        line[2 * i + 1] = ' ';
    }
    line[2 * N - 1] = '\0';
    char **argv = NULL, *store = NULL;
    nb_error err;
    nb_error_clear(&err);
    int n = batch_split(line, &argv, &store, &err);
    assert_int_equal(n, N);
    for (size_t i = 0; i < N; i++)
        if (argv[i][0] != (char)('a' + i % 26) || argv[i][1] != '\0')
            fail_msg("word %zu is '%s'", i, argv[i]);
    assert_null(argv[N]);
    free(argv);
    free(store);

    /* as many empty words as fit: '' '' ... */
    for (size_t i = 0; i + 3 <= 2 * N - 1; i += 3)
        memcpy(line + i, "'' ", 3);
    line[(2 * N - 1) / 3 * 3 - 1] = '\0';
    n = batch_split(line, &argv, &store, &err);
    assert_int_equal(n, (2 * N - 1) / 3);
    for (int i = 0; i < n; i++)
        assert_string_equal(argv[i], "");
    assert_null(argv[n]);
    free(argv);
    free(store);

    /* one word of 4 MiB in double quotes */
    size_t big = 4u << 20;
    char *word = malloc(big + 3);
    assert_non_null(word);
    word[0] = '"';
    memset(word + 1, 'x', big);
    word[big + 1] = '"';
    word[big + 2] = '\0';
    n = batch_split(word, &argv, &store, &err);
    assert_int_equal(n, 1);
    assert_int_equal(strlen(argv[0]), big);
    assert_null(argv[1]);
    free(argv);
    free(store);
    free(word);
    free(line);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_words),
        cmocka_unit_test(test_empty_and_blank),
        cmocka_unit_test(test_single_quotes),
        cmocka_unit_test(test_double_quotes),
        cmocka_unit_test(test_backslash_outside_quotes),
        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_errors_name_the_column),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
