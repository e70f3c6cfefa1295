/* The front-end probe's arithmetic (pmu/tsc_frontend.c): the widths known,
 * the fit of its runs (an interrupted pair left out, the quietest stretch
 * found), and when a slowdown counts as a shared front end. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pmu/tsc_frontend.h"

#define OPS 11400.0
#define RATIO 0.75

static void test_floor(void **state)
{
    (void)state;
    assert_true(fabs(tsc_frontend_floor("EmeraldRapids") - 1.0 / 6) < 1e-12);
    assert_true(fabs(tsc_frontend_floor("Skylake") - 0.25) < 1e-12);
    assert_true(fabs(tsc_frontend_floor("IceLake") - 0.2) < 1e-12);
    assert_true(fabs(tsc_frontend_floor("Zen5") - 0.25) < 1e-12);
    /* no SMT, or a width not sure: compared with itself only */
    assert_true(tsc_frontend_floor("GoldmontPlus") == 0);
    assert_true(tsc_frontend_floor("LunarLakeP") == 0);
    assert_true(tsc_frontend_floor(NULL) == 0);
}

/* 24 pairs at 0.17 cycles a NOP, the last 12 at twice that, and one
 * interrupted: the cost is the mean of the 23 kept, the best stretch the
 * quiet half's. */
static void test_fit(void **state)
{
    (void)state;
    double a[24], b[24], scratch[24];
    for (int i = 0; i < 24; i++) {
        double nop = i < 12 ? 0.17 : 0.34;
        a[i] = 100;
        b[i] = 100 + OPS * nop * RATIO;
    }
    b[5] += 1e6;
    fe_fit f;
    tsc_frontend_fit(a, b, 24, OPS, RATIO, scratch, &f);
    double want = (11 * 0.17 + 12 * 0.34) / 23;
    assert_true(fabs(f.cost - want) < 1e-9);
    assert_true(fabs(f.best - 0.17) < 1e-9);
    assert_true(f.hw > 0 && isfinite(f.hw));
    /* judged by the quietest stretch: the probe ran slow in half of it */
    double hw, slow = tsc_frontend_slowdown(&f, 0.17, &hw);
    assert_true(fabs(slow) < 1e-9);
    assert_false(tsc_frontend_shared(slow));
    /* slow throughout: shared */
    for (int i = 0; i < 24; i++)
        b[i] = 100 + OPS * 0.34 * RATIO;
    tsc_frontend_fit(a, b, 24, OPS, RATIO, scratch, &f);
    slow = tsc_frontend_slowdown(&f, 0.17, &hw);
    assert_true(fabs(slow - 1) < 1e-9);
    assert_true(tsc_frontend_shared(slow));
    assert_true(hw >= 0 && isfinite(hw));
}

static void test_shared_threshold(void **state)
{
    (void)state;
    assert_false(tsc_frontend_shared(0.05));     /* a quiet core's 2-5 % */
    assert_false(tsc_frontend_shared(FE_SHARED));
    assert_true(tsc_frontend_shared(0.5));
    fe_fit none = {0};
    double hw;
    assert_true(tsc_frontend_slowdown(&none, 0.17, &hw) == 0 && hw == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floor),
        cmocka_unit_test(test_fit),
        cmocka_unit_test(test_shared_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
