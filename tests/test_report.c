/* report: numbers printed as nanoBench prints them (issue 14, item 14). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/text.h"

/* nanoBench: result = (diff + n/2) / n in integer hundredths; for negative
 * diffs nb floors where C's division truncates (see report/text.c). */
static long long nanobench_hundredths(long long diff, long long n)
{
    long long x = diff * 100 + n / 2;
    return x >= 0 ? x / n : -((-x + n - 1) / n);
}

static void test_hundredths_like_nanobench(void **state)
{
    (void)state;
    assert_int_equal(report_hundredths(2005.0 / 1000.0, 1000), 201);   /* half-up */
    assert_int_equal(report_hundredths(2004.0 / 1000.0, 1000), 200);
    assert_int_equal(report_hundredths(-0.004, 1000), 0);               /* never -0.00 */
    /* every diff/copies pair of a small grid, positive and negative, agrees
     * with nanoBench's integer rule */
    for (long long n = 1; n <= 2000; n += 37)
        for (long long d = -3000; d <= 3000; d += 7)
            if (report_hundredths((double)d / (double)n, (double)n) != nanobench_hundredths(d, n))
                fail_msg("%lld/%lld: nb %lld, nanoBench %lld", d, n,
                         report_hundredths((double)d / (double)n, (double)n),
                         nanobench_hundredths(d, n));
}

static char *render(const nb_options *o, const bench_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    report_text(f, o, r);
    fclose(f);
    return buf;
}

static void test_lines(void **state)
{
    (void)state;
    double a0[] = {1000, 1001, 1003}, a1[] = {2005, 2006, 2008};
    bench_event_result ev[3] = {
        {.name = "UOPS", .value = 2.005, .min = -0.001, .max = 2.5, .samples = {a0, a1},
         .n_samples = 3},
        {.name = "NEG", .value = -1.255, .min = -1.3, .max = -1.2},
        {.name = "ZERO", .value = -0.004},
    };
    bench_result r = {.backend = "perf", .ev = ev, .n_ev = 3, .copies = {1000, 2000},
                      .normalization = 1000};
    nb_options o;
    options_defaults(&o);
    o.range = true;
    char *s = render(&o, &r);
    assert_string_equal(s, "UOPS: 2.01 [0.00;2.50]\nNEG: -1.25 [-1.30;-1.20]\nZERO: 0.00 [0.00;0.00]\n");
    ev[1].value = -0.006;
    free(s);
    s = render(&o, &r);
    assert_non_null(strstr(s, "NEG: -0.01 ["));
    free(s);
    o.range = false;
    o.no_normalization = true;
    ev[0].value = 1005.5;
    ev[1].value = -7.2;
    o.remove_empty_events = true;
    s = render(&o, &r);
    assert_string_equal(s, "UOPS: 1006\nNEG: -7\n");
    free(s);
    /* -verbose: nanoBench's table of both runs before the group's results */
    o.no_normalization = false;
    o.remove_empty_events = false;
    o.verbose = true;
    ev[0].value = 1.0;
    bench_result one = {.backend = "perf", .ev = ev, .n_ev = 1, .copies = {1000, 2000}};
    s = render(&o, &one);
    assert_string_equal(s,
        "\nProgrammable counter results (unroll_count=1000, loop_count=0):\n\n"
        "\t               Ctr0\n"
        "\trun 0:         1000\n\trun 1:         1001\n\trun 2:         1003\n\n"
        "Programmable counter results (unroll_count=2000, loop_count=0):\n\n"
        "\t               Ctr0\n"
        "\trun 0:         2005\n\trun 1:         2006\n\trun 2:         2008\n\n"
        "UOPS: 1.00\n");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hundredths_like_nanobench),
        cmocka_unit_test(test_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
