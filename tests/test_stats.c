/* stats: nanoBench's aggregates and the normalization, on values whose
 * results are worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/sort.h"
#include "measure/stats.h"

static void test_avg_drops_20_percent_each_side(void **state)
{
    (void)state;
    /* sorted 1..10: drop 1,2 and 9,10 -> mean of 3..8 = 5.5 */
    double v[] = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
    assert_float_equal(stats_aggregate(v, 10, AGG_AVG), 5.5, 1e-12);
    /* outliers at both ends do not move it */
    double w[] = {100, 5, 5, 5, 5, 5, 5, 5, 5, -100};
    assert_float_equal(stats_aggregate(w, 10, AGG_AVG), 5.0, 1e-12);
    /* fewer than 5 values: nothing to drop */
    double x[] = {1, 2, 6};
    assert_float_equal(stats_aggregate(x, 3, AGG_AVG), 3.0, 1e-12);
}

static void test_median_min_max(void **state)
{
    (void)state;
    double odd[] = {7, 1, 3};
    double even[] = {4, 1, 3, 2};
    assert_float_equal(stats_aggregate(odd, 3, AGG_MEDIAN), 3.0, 1e-12);
    /* -median with an even count: nanoBench's values[n/2], the upper middle */
    assert_float_equal(stats_aggregate(even, 4, AGG_MEDIAN), 3.0, 1e-12);
    /* nb's calibration keeps the mean of the two middle values */
    assert_float_equal(stats_median(even, 4), 2.5, 1e-12);
    assert_float_equal(stats_aggregate(odd, 3, AGG_MIN), 1.0, 1e-12);
    assert_float_equal(stats_aggregate(odd, 3, AGG_MAX), 7.0, 1e-12);
    /* the input is not reordered */
    assert_float_equal(odd[0], 7.0, 0);
    assert_float_equal(stats_aggregate(odd, 0, AGG_AVG), 0.0, 0);
}

static void test_large_input(void **state)
{
    (void)state;
    enum { N = 1000 };
    static double v[N];
    for (int i = 0; i < N; i++)
        v[i] = (double)((i * 7919) % N);   /* a permutation of 0..999 */
    assert_float_equal(stats_aggregate(v, N, AGG_MEDIAN), 500.0, 1e-9);
    assert_float_equal(stats_median(v, N), 499.5, 1e-9);
    assert_float_equal(stats_aggregate(v, N, AGG_AVG), 499.5, 1e-9);
    assert_float_equal(stats_aggregate(v, N, AGG_MAX), 999.0, 0);
}

static void test_avg_error(void **state)
{
    (void)state;
    double mid;
    /* sorted 1..10, winsorized 3,3,3,4,5,6,7,8,8,8: variance 42.5/9, so
     * sqrt(42.5/9/10) * 10/6 (6 values kept); the middle fifth 5 and 6 */
    double v[] = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
    assert_float_equal(stats_avg_error(v, 10, &mid), sqrt(42.5 / 9 / 10) * 10 / 6, 1e-12);
    assert_float_equal(mid, 5.5, 1e-12);
    /* the values it drops do not widen it (the mean's error here: 20) */
    double w[] = {100, 5, 5, 5, 5, 5, 5, 5, 5, -100};
    assert_float_equal(stats_avg_error(w, 10, &mid), 0, 1e-12);
    assert_float_equal(mid, 5, 1e-12);
    /* two speeds, 600 values at 100 and 400 at 120: the trimmed mean
     * (400 x 100 and 200 x 120 kept) is 106.67, the middle fifth 100,
     * apart by four times the error's three: sqrt(0.24 * 400 * 1000/999 / 1000)
     * * 1000/600 */
    enum { N = 1000 };
    static double x[N];
    for (int i = 0; i < N; i++)
        x[i] = i % 5 < 3 ? 100 : 120;
    double e = stats_avg_error(x, N, &mid);
    assert_float_equal(e, sqrt(0.24 * 400 * N / (N - 1.0) / N) * N / 600, 1e-9);
    assert_float_equal(mid, 100, 1e-12);
    assert_true(stats_aggregate(x, N, AGG_AVG) - mid > 4 * 3 * e);
    /* one value: no error, the value itself */
    assert_float_equal(stats_avg_error(v, 1, &mid), 0, 0);
    assert_float_equal(mid, 10, 0);
}

/* The half-width of a difference of two programs' aggregates: stretched
 * samples (an interrupt's) do not widen -avg's, and samples of two speeds
 * widen it to cover what they moved it by. */
static void test_diff_error(void **state)
{
    (void)state;
    enum { N = 1000 };
    static double a[N], b[N];
    for (int i = 0; i < N; i++) {
        a[i] = 1000 + i % 3;
        b[i] = 2000 + i % 5;
    }
    for (int i = 0; i < N; i += 100) {
        a[i] = 9000;
        b[i + 1] = 18000;
    }
    /* the trimmed means' error: about 3 x 0.05 */
    assert_true(stats_diff_error(a, b, N, AGG_AVG, 3) < 0.5);
    /* the median's difference lies as near the trimmed means' (1001 +/- 1) */
    assert_true(stats_diff_error(a, b, N, AGG_MEDIAN, 3) < 1.5);
    /* one sample of the first program 10 ticks fast: the minimum's
     * difference reads 1010 against the trimmed means' 1001, and its
     * half-width reaches back to that; the maximum's, 18000 - 9000, by the
     * whole of its distance */
    a[7] = 990;
    double e = stats_diff_error(a, b, N, AGG_MIN, 3);
    assert_true(e >= 9 && e < 9.5 + 1);
    e = stats_diff_error(a, b, N, AGG_MAX, 3);
    assert_true(e >= 9000 - 1001 - 1);
    /* 40 % of the second program's samples 20 % slower: the printed
     * difference 1133.3, 133.3 from the quiet core's 1000; the half-width
     * covers it, where the standard error alone (3 x 10.3) did not */
    for (int i = 0; i < N; i++) {
        a[i] = 1000;
        b[i] = i % 5 < 3 ? 2000 : 2400;
    }
    double d = stats_aggregate(b, N, AGG_AVG) - stats_aggregate(a, N, AGG_AVG);
    assert_float_equal(d, 1133.333333, 1e-3);
    assert_true(stats_diff_error(a, b, N, AGG_AVG, 3) >= d - 1000);
    /* with the other aggregates: the minimums' difference, 1000, by its
     * distance from the trimmed means'; the medians', 1000 too (the
     * upper middle of 1,000 samples is a quiet one) */
    double avg = stats_diff_error(a, b, N, AGG_AVG, 3);
    assert_float_equal(stats_diff_error(a, b, N, AGG_MIN, 3), avg + d - 1000, 1e-6);
    assert_float_equal(stats_diff_error(a, b, N, AGG_MEDIAN, 3), avg + d - 1000, 1e-6);
}

static void test_normalize(void **state)
{
    (void)state;
    /* (second - first) / max(loop * unroll, unroll) */
    assert_float_equal(stats_normalize(1000, 3000, 0, 1000, 0), 2.0, 1e-12);
    assert_float_equal(stats_normalize(1000, 3000, 100, 10, 0), 2.0, 1e-12);
    assert_float_equal(stats_normalize(1000, 3000, 1, 10, 0), 200.0, 1e-12);
    assert_float_equal(stats_normalize(1000, 3000, 100, 10, 1), 2000.0, 1e-12);
}

/* sort_doubles against its definition (each value no less than the one
 * before, the same values): sizes across its insertion-sort cutoff,
 * ascending, descending, all equal, few distinct, and random values */
static void test_sort(void **state)
{
    (void)state;
    enum { MAX = 3000 };
    static double v[MAX], hist[8];
    unsigned seed = 12345;
    for (size_t n = 0; n <= MAX; n += n < 70 ? 1 : 197) {
        for (int kind = 0; kind < 5; kind++) {
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                double r = (double)(seed >> 8);
                v[i] = kind == 0 ? (double)i : kind == 1 ? (double)(n - i) : kind == 2 ? 7.0
                       : kind == 3 ? (double)((seed >> 16) % 8) : r;
            }
            double sum = 0;
            for (size_t i = 0; i < 8; i++)
                hist[i] = 0;
            for (size_t i = 0; i < n; i++) {
                sum += v[i];
                if (kind == 3)
                    hist[(size_t)v[i]]++;
            }
            sort_doubles(v, n);
            double after = 0;
            for (size_t i = 0; i < n; i++) {
                after += v[i];
                if (i)
                    assert_true(v[i - 1] <= v[i]);
                if (kind == 3)
                    hist[(size_t)v[i]]--;
            }
            assert_float_equal(after, sum, 1e-6 * (sum > 1 ? sum : 1));
            for (size_t i = 0; kind == 3 && i < 8; i++)
                assert_true(hist[i] == 0);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_avg_drops_20_percent_each_side),
        cmocka_unit_test(test_median_min_max),
        cmocka_unit_test(test_large_input),
        cmocka_unit_test(test_avg_error),
        cmocka_unit_test(test_diff_error),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
