/* json: numbers written exactly as printf's shortest-of-%.15g/%.17g form
 * (json.c formats most of them with integer arithmetic instead), nodes
 * reused across records without leaking one record's contents into the
 * next, and strings escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

/* What jv_format_num wrote before its integer path: the reference. */
static void ref_format(double d, char *buf, size_t len)
{
    if (fabs(d) < 1e15 && d == (double)(long long)d) {
        snprintf(buf, len, "%lld", (long long)d);
        return;
    }
    snprintf(buf, len, "%.15g", d);
    if (strtod(buf, NULL) != d)
        snprintf(buf, len, "%.17g", d);
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, len, "0");
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void check(double d)
{
    char got[32], want[32];
    jv_format_num(d, got, sizeof got);
    ref_format(d, want, sizeof want);
    if (strcmp(got, want) != 0)
        fail_msg("%a: wrote %s, printf's form is %s", d, got, want);
    if (strtod(got, NULL) != d && !(d == 0 && strcmp(got, "0") == 0))
        fail_msg("%a: %s does not read back", d, got);
}

static void test_numbers_match_printf(void **state)
{
    (void)state;
    /* values as nb writes them: cycle counts, ratios, samples */
    static const double fixed[] = {
        2.0, 0.702, 0.70199999999999996, 1259.2592592592594, 3.0000000000000004, 1e-4,
        0.00010000000000000002, 9.9999999999999995e-5, 99999999999999.98, 1e14, 0.1, 0.3,
        2.675, 1.005, 123456.789, 0.0014245014245014248, 5e-324, 1e300, -2.5, -0.0,
        9.9999999999999982, 0.99999999999999989, 4503599627370495.5, 0.5, 0.25, 1.5,
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check(fixed[i]);
    /* short decimals, and quotients like nb's averages */
    for (int i = 1; i < 50000; i++) {
        check(i / 1000.0);
        check(i / 7.0);
        check(-i / 3.0);
        check(1.0 / i);
        check(i * 0.1);
    }
    /* random bits across the whole range and around the edges of the
     * integer path (1e-4, 1e14) */
    for (int i = 0; i < 300000; i++) {
        uint64_t b = next();
        double d;
        memcpy(&d, &b, sizeof d);
        if (isfinite(d))
            check(d);
        double e = ldexp((double)(next() >> 11), -53) * pow(10, (int)(next() % 24) - 6);
        check(e);
        check(nextafter(e, 0));
    }
}

static void test_nodes_reused_cleanly(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) {
        jv *o = jv_obj();
        jv *a = jv_set(o, "a", jv_arr());
        for (int i = 0; i < 20; i++)
            jv_push(a, round == 1 ? jv_str("a fairly long string, longer than 32 bytes") : jv_int(i));
        jv_set(o, "s", jv_str(round == 2 ? "x" : "quote \" backslash \\ tab \t"));
        jv_set(o, "c", jv_str("\x01\x7f\r\n\xc3\xa9"));   /* controls escaped, UTF-8 kept */
        jv_set(o, "n", jv_null());
        jv_set(o, "b", jv_bool(round == 0));
        jv_set(o, "f", jv_num(round + 0.5));
        for (int i = 0; i < 12; i++)   /* an object past its first capacity */
            jv_set(o, "k", jv_int(i));
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        jv_write(f, o);
        fclose(f);
        if (round == 0)
            assert_non_null(strstr(buf, "\"a\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19],"
                                        "\"s\":\"quote \\\" backslash \\\\ tab \\t\","
                                        "\"c\":\"\\u0001\\u007f\\r\\n\xc3\xa9\",\"n\":null,"
                                        "\"b\":true,\"f\":0.5,\"k\":0,"));
        if (round == 1)
            assert_non_null(strstr(buf, "[\"a fairly long string, longer than 32 bytes\","));
        if (round == 2) {
            assert_non_null(strstr(buf, "\"s\":\"x\",\"c\":\"\\u0001\\u007f\\r\\n\xc3\xa9\",\"n\":null,\"b\":false,\"f\":2.5,"));
            assert_null(strstr(buf, "quote"));
        }
        assert_int_equal(jv_get(o, "a")->n, 20);
        free(buf);
        jv_free(o);
    }
    jv_cache_release();
}

/* A string as jv_write writes it, without the quotes. */
static char *written(const char *s)
{
    jv *v = jv_str(s);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    jv_write(f, v);
    fclose(f);
    jv_free(v);
    assert_true(len >= 2 && buf[0] == '"' && buf[len - 1] == '"');
    memmove(buf, buf + 1, len - 2);
    buf[len - 2] = '\0';
    return buf;
}

/* JSON is always UTF-8: every well-formed sequence (1 to 4 bytes) passes
 * through; every byte that does not start one (a stray continuation byte, a
 * truncated sequence, an overlong form, a surrogate, beyond U+10FFFF, 0xF5-0xFF)
 * becomes U+FFFD, one per byte. */
static void test_strings_are_utf8(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z", "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z"},
        {"\xef\xbf\xbd", "\xef\xbf\xbd"},
        {"\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"},                /* U+10FFFF */
        {"\xed\x9f\xbf", "\xed\x9f\xbf"},                         /* U+D7FF */
        {"x\xffy", "x\xef\xbf\xbdy"},
        {"\x80", "\xef\xbf\xbd"},                                  /* lone continuation */
        {"\xc3", "\xef\xbf\xbd"},                                  /* truncated at the end */
        {"\xc3x", "\xef\xbf\xbdx"},                                /* truncated */
        {"\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                  /* overlong '/' */
        {"\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},  /* overlong */
        {"\xf0\x80\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},  /* surrogate D800 */
        {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xf8\x88\x80\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xfe\xff", "\xef\xbf\xbd\xef\xbf\xbd"},
        {"\x1b[31m", "\\u001b[31m"},                                /* controls: escaped */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = written(cases[i].in);
        if (strcmp(got, cases[i].out) != 0)
            fail_msg("case %zu: wrote '%s', want '%s'", i, got, cases[i].out);
        free(got);
    }
    jv_cache_release();
}

/* jv_nums: a borrowed array of doubles, written like jv_num values (-0 as
 * 0, non-finite as null) and flattened to one ';'-joined CSV text. */
static void add_flat(void *ctx, const char *key, const char *text)
{
    char *out = ctx;
    snprintf(out + strlen(out), 256 - strlen(out), "%s=%s|", key, text);
}

static void test_borrowed_numbers(void **state)
{
    (void)state;
    double v[] = {1, -0.0, 2.5, NAN, 1e300, -3};
    jv *o = jv_obj();
    jv *s = jv_set(o, "samples", jv_arr());
    jv_push(s, jv_nums(v, 6));
    jv_push(s, jv_nums(v, 0));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    jv_write(f, o);
    fclose(f);
    assert_string_equal(buf, "{\"samples\":[[1,0,2.5,null,1e+300,-3],[]]}");
    char flat[256] = "";
    jv_flatten(o, "", NULL, add_flat, flat);
    assert_string_equal(flat, "samples.1=1;0;2.5;;1e+300;-3|samples.2=|");
    free(buf);
    jv_free(o);
    jv_cache_release();
}

/* A record larger than the piece jv_write hands to stdio comes out whole. */
static void test_large_record_whole(void **state)
{
    (void)state;
    enum { N = 100000 };
    double *v = malloc(N * sizeof *v);
    assert_non_null(v);
    for (int i = 0; i < N; i++)
        v[i] = i + 0.25;
    jv *a = jv_arr();
    jv_push(a, jv_nums(v, N));
    jv_push(a, jv_str("end"));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    jv_write(f, a);
    fclose(f);
    assert_memory_equal(buf, "[[0.25,1.25,2.25,", 17);
    assert_string_equal(buf + len - 16, "99999.25],\"end\"]");
    size_t commas = 0;
    for (size_t i = 0; i < len; i++)
        commas += buf[i] == ',';
    assert_int_equal(commas, N);
    free(buf);
    free(v);
    jv_free(a);
    jv_cache_release();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_match_printf),
        cmocka_unit_test(test_nodes_reused_cleanly),
        cmocka_unit_test(test_strings_are_utf8),
        cmocka_unit_test(test_borrowed_numbers),
        cmocka_unit_test(test_large_record_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
