/* The port probes' table (pmu/tsc_ports.c): each probe's floor, the
 * instructions a cycle of the cores nb knows and none for the others, and
 * the threshold at which a probe counts as a shared port. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pmu/tsc_method.h"
#include "pmu/tsc_ports.h"

static void test_floors(void **state)
{
    (void)state;
    assert_true(tsc_port_floor("Zen5", TSC_PORT_LOAD) == 0.25);
    assert_true(fabs(tsc_port_floor("Zen4", TSC_PORT_LOAD) - 1.0 / 3) < 1e-12);
    assert_true(fabs(tsc_port_floor("SapphireRapids", TSC_PORT_LOAD) - 1.0 / 3) < 1e-12);
    assert_true(tsc_port_floor("Skylake", TSC_PORT_LOAD) == 0.5);
    assert_true(tsc_port_floor("Zen5", TSC_PORT_STORE) == 0.5);
    assert_true(tsc_port_floor("Zen2", TSC_PORT_STORE) == 1);
    assert_true(tsc_port_floor("Skylake", TSC_PORT_STORE) == 1);
    assert_true(tsc_port_floor("IceLake", TSC_PORT_STORE) == 0.5);
    assert_true(fabs(tsc_port_floor("Zen5", TSC_PORT_ALU) - 1.0 / 6) < 1e-12);
    assert_true(fabs(tsc_port_floor("Zen5", TSC_PORT_MUL) - 1.0 / 3) < 1e-12);
    assert_true(tsc_port_floor("Zen4", TSC_PORT_MUL) == 1);
    assert_true(tsc_port_floor("Skylake", TSC_PORT_MUL) == 1);
    assert_true(tsc_port_floor("Zen5", TSC_PORT_VEC) == 0.25);
    assert_true(fabs(tsc_port_floor("AlderLakeP", TSC_PORT_VEC) - 1.0 / 3) < 1e-12);
    assert_true(tsc_port_floor("Haswell", TSC_PORT_VEC) == 0.5);
    assert_true(tsc_port_floor("Zen5", TSC_PORT_DIV) == 2.5);
    assert_true(fabs(tsc_port_floor("Zen5", TSC_PORT_IDIV) - 10) < 1e-12);
    /* not known: compared with itself */
    assert_true(tsc_port_floor("Zen4", TSC_PORT_ALU) == 0);
    assert_true(tsc_port_floor("Zen4", TSC_PORT_VEC) == 0);
    assert_true(tsc_port_floor("Skylake", TSC_PORT_DIV) == 0);
    assert_true(tsc_port_floor("Zen4", TSC_PORT_IDIV) == 0);
    assert_true(tsc_port_floor("AlderLakeE", TSC_PORT_LOAD) == 0);
    assert_true(tsc_port_floor(NULL, TSC_PORT_STORE) == 0);
    assert_true(tsc_port_floor("Zen5", TSC_PORTS) == 0);
    assert_true(tsc_port_floor("Zen5", -1) == 0);
    /* the POPCNT loop's DEC and JNZ take an ALU too: 101 a loop of 100 */
    assert_true(fabs(tsc_port_probe_floor(TSC_PORT_ALU, 1.0 / 6, 100) - 1.01 / 6) < 1e-12);
    assert_true(tsc_port_probe_floor(TSC_PORT_LOAD, 0.25, 100) == 0.25);
    assert_true(tsc_port_probe_floor(TSC_PORT_ALU, 0, 100) == 0);
}

/* Every probe is a loop that measures more than it costs to start (at
 * least twice: the integer divider's chain, whose short program alone takes
 * 1,000 cycles; ten times for the others), with two stretches of three
 * pairs, and names itself in JSON and on the backend line. */
static void test_probes(void **state)
{
    (void)state;
    for (int k = 0; k < TSC_PORTS; k++) {
        const tsc_port_probe *p = &tsc_ports[k];
        assert_true(p->loop_a >= 1);
        assert_true(p->loop_b - p->loop_a >= (k == TSC_PORT_IDIV ? 2 : 10) * p->loop_a);
        assert_true(p->burst >= 6);
        assert_non_null(p->json);
        assert_non_null(p->json_hw);
        assert_non_null(p->what);
    }
    assert_true(tsc_ports[TSC_PORT_STORE].line);
    /* only the vector adds and divides need AVX (cal_build leaves them out without):
     * a VEX prefix; the others run on every x86-64 core */
    for (int k = 0; k < TSC_PORTS; k++)
        assert_true(tsc_ports[k].avx == (tsc_ports[k].insn[0] == 0xC5));
    assert_true(tsc_ports[TSC_PORT_VEC].avx && tsc_ports[TSC_PORT_DIV].avx);
}

/* The integer divider's probe runs as cal_build builds it (R14 its
 * line's address): the prologue's RDX = 0 and RAX = 0 make every DIV 0 by
 * R14, quotient and remainder 0, so the chain never raises #DE (which
 * would kill the measuring process); a changed prologue or probe that left
 * RDX at R14 or above would end this test with SIGFPE. */
static void run_native(const codegen_prog *p, bool calibration)
{
    (void)calibration;
    codegen_call(p);
}

static void test_int_divider_runs(void **state)
{
    (void)state;
    static cal_progs cp;
    static const double floor[TSC_PORTS] = {0};
    nb_error err;
    /* the IMUL's and the load chain's latencies given: nothing is timed */
    assert_int_equal(cal_build(&cp, run_native, 3, 4, 0, floor, false, &err), 0);
    assert_true(cp.has_port[TSC_PORT_IDIV]);
    const codegen_prog *b = &cp.port[TSC_PORT_IDIV].b;
    run_native(b, true);
    /* 300 divides of at least a cycle each */
    assert_true(b->data->m2[0] > b->data->m1[0]);
}

static void test_threshold(void **state)
{
    (void)state;
    assert_false(tsc_port_shared(TSC_PORT_SHARED));
    assert_true(tsc_port_shared(0.12));
    assert_false(tsc_port_shared(-0.1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floors),
        cmocka_unit_test(test_probes),
        cmocka_unit_test(test_int_divider_runs),
        cmocka_unit_test(test_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
