/* Tests for pmu_event_equal (src/pmu/pmu.c): the one test of whether two
 * events program the same thing, used to reuse a session's plan and the
 * measuring process's open groups.  Every field that programs a counter
 * must make two events differ; nothing else may. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pmu/pmu.h"

static nb_event base(void)
{
    nb_event e;
    memset(&e, 0, sizeof e);
    strcpy(e.name, "UOPS_ISSUED.ANY");
    e.evtsel = 0x0E;
    e.umask = 0x01;
    e.ctr = -1;
    return e;
}

static void test_equal_to_a_copy(void **st)
{
    (void)st;
    nb_event a = base(), b = base();
    assert_true(pmu_event_equal(&a, &b));
    /* bytes after the name's end do not make a different event */
    b.name[sizeof b.name - 1] = 'x';
    b.name[strlen(b.name) + 1] = 'y';
    b.name[sizeof b.name - 1] = 0;
    assert_true(pmu_event_equal(&a, &b));
}

static void test_each_field_differs(void **st)
{
    (void)st;
    nb_event a = base();
    nb_event v[17];
    for (size_t i = 0; i < 17; i++)
        v[i] = base();
    strcpy(v[0].name, "UOPS_ISSUED.STALL");
    v[1].evtsel = 0x0F;
    v[2].umask = 0x02;
    v[3].cmask = 1;
    v[4].any = true;
    v[5].edge = true;
    v[6].inv = true;
    v[7].taken_alone = true;
    v[8].ctr = 1;
    v[9].has_msr_3f6h = true;
    v[10].has_msr_pf = true;
    v[11].has_msr_rsp0 = true;
    v[12].has_msr_rsp1 = true;
    v[13].msr_3f6h = 3;
    v[14].msr_pf = 4;
    v[15].msr_rsp0 = 5;
    v[16].msr_rsp1 = 6;
    for (size_t i = 0; i < 17; i++) {
        assert_false(pmu_event_equal(&a, &v[i]));
        assert_false(pmu_event_equal(&v[i], &a));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_to_a_copy),
        cmocka_unit_test(test_each_field_differs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
