/* The load probe's arithmetic (pmu/tsc_load.c): its slowdown against the
 * latency, the clock's half-width carried into its own, and when it
 * counts as a shared load pipeline. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pmu/tsc_load.h"

#define OPS 600.0
#define RATIO 0.77

/* Pairs of the probe's programs, `load` cycles a load. */
static void pairs(double *a, double *b, int n, double load)
{
    for (int i = 0; i < n; i++) {
        a[i] = 600;
        b[i] = 600 + OPS * load * RATIO;
    }
}

static void test_slowdown(void **state)
{
    (void)state;
    double a[6], b[6], scratch[6], hw;
    fe_fit f;
    /* at its latency: 0, the half-width the clock's alone (the runs agree) */
    pairs(a, b, 6, 5.0);
    tsc_frontend_fit(a, b, 6, OPS, RATIO, scratch, &f);
    double slow = tsc_load_slowdown(&f, 5, 0.001, &hw);
    assert_true(fabs(slow) < 1e-9);
    assert_true(fabs(hw - 0.001) < 1e-9);
    assert_false(tsc_load_shared(slow, hw));
    /* 5.22 cycles a load, as beside the neighbour that made an L1 load
     * chain read 5.22 unflagged: shared */
    pairs(a, b, 6, 5.22);
    b[2] += 1e5;   /* an interrupted pair: left out */
    tsc_frontend_fit(a, b, 6, OPS, RATIO, scratch, &f);
    slow = tsc_load_slowdown(&f, 5, 0.001, &hw);
    assert_true(fabs(slow - 0.044) < 1e-9);
    assert_true(tsc_load_shared(slow, hw));
    /* the same, the clock known only to 5 %: not claimed */
    slow = tsc_load_slowdown(&f, 5, 0.05, &hw);
    assert_false(tsc_load_shared(slow, hw));
}

static void test_threshold(void **state)
{
    (void)state;
    assert_false(tsc_load_shared(0.005, 0.001));    /* below LD_SHARED */
    assert_false(tsc_load_shared(LD_SHARED, 0));
    assert_true(tsc_load_shared(0.02, 0.001));
    assert_false(tsc_load_shared(-0.02, 0.001));   /* faster than its latency: not shared */
    double hw;
    fe_fit none = {0};
    assert_true(tsc_load_slowdown(&none, 5, 0.001, &hw) == 0 && hw == 0);
    fe_fit f = {.cost = 5.5, .hw = 0.01};
    assert_true(tsc_load_slowdown(&f, 0, 0.001, &hw) == 0 && hw == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slowdown),
        cmocka_unit_test(test_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
