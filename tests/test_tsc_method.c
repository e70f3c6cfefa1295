/* The tsc method (pmu/tsc_method.c) end to end on a simulated core: the
 * programs are not executed; the run hook spins the real TSC for as many
 * ticks as the program's cycles take at the simulated core's clock and
 * leaves those readings where the generated code would.  So the
 * calibration, the dithering, the passes and the estimate run as they do in
 * the measuring process, against a clock the test controls: one that moves
 * after the first pass (a core that ramps up, as after idling between batch
 * lines) must not make an ADD pair read 1.5 cycles.  The programs are
 * mapped as nb maps them (never run), so that measure/place.c can build
 * them again elsewhere: a second program that runs slower at the address
 * it first got is measured again at another, and code beyond the L1
 * instruction cache is measured at several places and averaged. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include <cmocka.h>

#include "measure/place.h"
#include "measure/stats.h"
#include "pmu/tsc_method.h"

#define COPIES_A 100
#define COPIES_B 200
#define CYCLES_PER_COPY 2.0
#define HARNESS_CYCLES 150.0
/* a NOP of the front-end probe on the simulated core, quiet: 2 % above the
 * width's sixth of a cycle, as on an Emerald Rapids guest */
#define FE_FLOOR (1.0 / 6)
#define FE_QUIET (1.02 / 6)
/* the load probe's latency on the simulated core */
#define LOAD_LAT 5.0
/* an instruction of each port probe on the simulated core: at most 3
 * loads, 2 stores, 4 POPCNTs, 1 multiply, 3 vector adds and one vector
 * divide in 2.5 cycles a cycle, and a chained integer divide in 10, quiet
 * 1 % above */
static const double g_port_floor[TSC_PORTS] = {1.0 / 3, 0.5, 0.25, 1, 1.0 / 3, 2.5, 10};
#define PORT_QUIET(k) (1.01 * g_port_floor[k])

static cal_progs g_cp;
static codegen_params g_params;
static codegen_prog g_prog[2];
static const uint8_t *g_slow_at;    /* a program runs slow here */
static double g_slow_by;            /* ... by this many cycles a copy */
static double g_superlinear;        /* cycles a copy more in the second anywhere */
static double g_beyond_first;       /* cycles more for each copy a program has beyond
                                       the first's, anywhere (a cache they outgrow) */
static unsigned g_cal_calls;        /* calibration programs run so far */
static unsigned g_switch_after;     /* ...after which the clock is g_ratio[1] */
static unsigned g_period;           /* or, if not 0, it takes turns this often */
static double g_ratio[2];           /* ticks per core cycle before, after */
static unsigned g_shared_until;     /* the ADD chain runs slow for as many calibration
                                       programs (another thread shares its ALUs) */
static double g_shared_by;          /* ...by this fraction */
static unsigned g_fe_shared_until;  /* the NOP probe runs slow for as many calibration
                                       programs (another thread shares the front end) */
static double g_fe_shared_by;       /* ...by this fraction */
static unsigned g_ld_shared_until;  /* the load probe runs slow for as many calibration
                                       programs (another thread shares the load pipeline) */
static double g_ld_shared_by;       /* ...by this fraction */
static unsigned g_port_shared_until[TSC_PORTS];  /* port probe k runs slow for as many
                                                    calibration programs (another
                                                    thread shares those ports) */
static double g_port_shared_by[TSC_PORTS];       /* ...by this fraction */
static unsigned g_disturb_until;    /* every third run of the two programs runs slow
                                       until as many calibration programs ran (a
                                       neighbour coming and going) */
static double g_place_slow[4];      /* the first program runs slow by as many cycles a copy
                                       at the k-th place it is mapped at (the order its
                                       addresses were first seen in) */
static const uint8_t *g_places[4];  /* ...those addresses */
static double g_probe_slow;         /* place.c's harness alone runs slow by as many cycles
                                       at the first place it is mapped at */
static const uint8_t *g_probe_at;   /* ...that address */
static bool g_big;                  /* place.c sees code of PLACE_BIG bytes and more */
static long g_copies0 = COPIES_A;   /* the first program's copies (0: -basic_mode) */
static long g_copies1 = COPIES_B;   /* the second program's */
static long g_loops;                /* -loop_count of both programs (and place.c's) */
static double g_insns_per_copy;     /* instructions a copy, as child.c counts them (0: none) */
static double g_cold_by;            /* cycles a copy more in a run right after the other
                                       program's (code streamed from the L2, which the
                                       other program's runs evicted) */
static unsigned g_fe_lucky_at;      /* the NOP probe's long program reads fast in its
                                       run with this number (from 1; 0: none), a chance
                                       low of the TSC or the host */
static double g_fe_lucky_by;        /* ...by this fraction of its NOPs */
static unsigned g_prog_runs;        /* runs of the two programs so far */
static unsigned g_stretch_from;     /* the two programs run slow in their runs whose
                                       number modulo g_stretch_until is this or more (a
                                       neighbour that comes for stretches of runs) */
static unsigned g_stretch_until;
static double g_stretch_by;         /* ...by this many cycles a copy */
static double g_per_copy = CYCLES_PER_COPY;  /* the code's cycles a copy (CYCLES_PER_COPY) */
static double g_wait_ticks;         /* the goal's wait_ticks (0: a batch line's, no waiting) */

static double prog_cycles(const codegen_prog *p)
{
    if (p == &g_cp.probe.a || p == &g_cp.probe.b) {
        static unsigned long_runs;
        double nop = FE_QUIET * (g_cal_calls < g_fe_shared_until ? 1 + g_fe_shared_by : 1);
        if (p == &g_cp.probe.b && g_fe_lucky_at && ++long_runs == g_fe_lucky_at)
            nop *= 1 - g_fe_lucky_by;
        if (!g_fe_lucky_at)
            long_runs = 0;
        return HARNESS_CYCLES + (p == &g_cp.probe.a ? CAL_LOOP_A : FE_LOOP) * CAL_BODY * nop;
    }
    if (p == &g_cp.load.a || p == &g_cp.load.b) {
        double load = LOAD_LAT * (g_cal_calls < g_ld_shared_until ? 1 + g_ld_shared_by : 1);
        return HARNESS_CYCLES + (p == &g_cp.load.a ? LD_LOOP_A : LD_LOOP_B) * CAL_BODY * load;
    }
    for (int k = 0; k < TSC_PORTS; k++)
        if (p == &g_cp.port[k].a || p == &g_cp.port[k].b) {
            double op = PORT_QUIET(k) *
                        (g_cal_calls < g_port_shared_until[k] ? 1 + g_port_shared_by[k] : 1);
            long loops = p == &g_cp.port[k].b ? tsc_ports[k].loop_b : tsc_ports[k].loop_a;
            return HARNESS_CYCLES + (double)loops * CAL_BODY * op;
        }
    for (size_t k = 0; k < g_cp.n; k++) {
        /* as cal_build makes them: the IMUL chain a third of the loops */
        const cal_chain *c = &g_cp.ch[k];
        double per_op = c->latency * (k == 0 && g_cal_calls < g_shared_until ? 1 + g_shared_by : 1);
        double a = HARNESS_CYCLES + (k ? CAL_LOOP_A / 3 : CAL_LOOP_A) * CAL_BODY * per_op;
        if (p == &c->a)
            return a;
        if (p == &c->b)
            return a + c->ops * per_op;
    }
    /* the two programs, and place.c's program without copies */
    static unsigned runs;
    static const codegen_prog *last;
    double copies = (double)p->n_copies * (double)(g_loops > 0 ? g_loops : 1);
    double cold = last && last != p ? copies * g_cold_by : 0;
    last = p;
    double placed = 0;
    for (size_t k = 0; (long)p->n_copies == g_copies0 && k < 4; k++)
        if (!g_places[k] || g_places[k] == p->base) {
            g_places[k] = p->base;
            placed = copies * g_place_slow[k];
            break;
        }
    if (p->n_copies == 0 && g_copies0 != 0 && g_probe_slow != 0) {
        if (!g_probe_at)
            g_probe_at = p->base;
        if (p->base == g_probe_at)
            placed += g_probe_slow;
    }
    if (p->n_copies != 0 && g_prog_runs % g_stretch_until >= g_stretch_from)
        placed += copies * g_stretch_by;
    g_prog_runs += p->n_copies != 0;
    if (g_cal_calls < g_disturb_until && ++runs % 3 == 0)
        return 1.5 * (HARNESS_CYCLES + copies * g_per_copy);
    return HARNESS_CYCLES + copies * g_per_copy + cold +
           ((long)p->n_copies == g_copies1 ? copies * g_superlinear : 0) +
           ((long)p->n_copies > g_copies0 && g_copies0 > 0
                ? (double)((long)p->n_copies - g_copies0) * (double)(g_loops > 0 ? g_loops : 1) *
                      g_beyond_first
                : 0) +
           (p->base == g_slow_at ? copies * g_slow_by : 0) + placed;
}

/* The run hook: the program takes its cycles at the current clock from a
 * start somewhere within a step of the TSC (the tsc method's dither spreads
 * the starts over a step; here a golden-ratio sequence does), and is read
 * at the TSC's steps; the real TSC is spun for as long, since the method
 * checks a reading against the time the call took. */
static void fake_run(const codegen_prog *p, bool calibration)
{
    (void)calibration;
    static unsigned k;
    bool is_cal = false;
    for (size_t c = 0; c < g_cp.n; c++)
        is_cal |= p == &g_cp.ch[c].a || p == &g_cp.ch[c].b;
    double ratio = g_ratio[g_period ? g_cal_calls / g_period % 2 : g_cal_calls >= g_switch_after];
    g_cal_calls += is_cal;
    double step = g_cp.step, phase = fmod(++k * 0.6180339887498949, 1.0) * step;
    uint64_t t0 = __rdtsc();
    uint64_t t1 = t0 + (uint64_t)(floor((phase + prog_cycles(p) * ratio) / step) * step);
    while (__rdtsc() < t1)
        ;
    p->data->m1[0] = t0;
    p->data->m2[0] = t1;
}

/* One measurement as the measuring process makes it (child.c), of a
 * 2-cycle chain in programs of 100 and 200 copies: the value per copy, and
 * the outcome. */
static double measure_pair(long n, tsc_outcome *o, place_outcome *po)
{
    enum { PER_RUN = CODEGEN_MAX_CTR * 64 };   /* n <= 64 */
    /* as the measuring process lays them out: both programs' samples, then
     * the clock's readings, the ADD chain's */
    static double block[2 * PER_RUN + 4 * 64];
    pmu_counter ctr = {.name = "CORE_CYCLES", .read = PMU_READ_RDTSC, .width = 64, .scale = 1,
                       .tsc_cycles = true};
    bool ovf = false;
    double execs = (double)(g_copies1 - g_copies0) * (double)(g_loops > 0 ? g_loops : 1);
    run_state rs[2] = {
        {.p = &g_prog[0], .run = fake_run, .samples = block, .ratio = block + 2 * PER_RUN,
         .add_ratio = block + 2 * PER_RUN + 128, .enough = INNER_EXEC / execs},
        {.p = &g_prog[1], .run = fake_run, .samples = block + PER_RUN,
         .enough = INNER_EXEC / execs},
    };
    /* a budget no stall of a busy host exhausts: the passes end on their
     * own (pinned, or the growth limits) */
    tsc_goal goal = {.execs = execs, .budget_ticks = 2e10, .wait_ticks = g_wait_ticks,
                     .agg = 0, .big = g_big,
                     .insns = execs * g_insns_per_copy, .loops = (double)g_loops};
    nb_error err = {0};
    assert_int_equal(measure(rs, 1, n, &g_cp, 1, &ctr, &ovf, &goal, o, &err), 0);
    assert_true(o->logged && o->ratio > 0);
    if (po) {
        place_job j = {.params = g_params, .copies = {g_copies0, g_copies1}, .loops = {g_loops, g_loops},
                       .prog = {&g_prog[0], &g_prog[1]}, .rs = rs, .warm = 1, .n = n,
                       .cp = &g_cp, .n_ctr = 1, .ctr = &ctr, .ovf = &ovf, .goal = &goal,
                       .doubles = sizeof block / sizeof *block};
        /* a copy as long as makes the second program's copies PLACE_BIG
         * bytes (the run hook goes by the copies, not their bytes) */
        static uint8_t nops[PLACE_BIG / COPIES_B + 1];
        memset(nops, 0x90, sizeof nops);
        if (g_big) {
            j.params.code = nops;
            j.params.code_len = sizeof nops;
        }
        assert_int_equal(place_check(&j, o, po, &err), 0);
    }
    return o->diff[0] / o->ratio / execs;
}

/* measure_pair where the core is quiet: nothing should start the
 * measurement over.  The run hook spins the real TSC, so a busy host that
 * preempts it stretches the call around a simulated run; a measurement that
 * starts over is taken again, twice at most (a simulated cause repeats in
 * every try: test_shared_loads_throughout's quiet half started over once
 * in one CI run, and in none of 70 runs of the file after it). */
static double quiet_pair(long n, tsc_outcome *o)
{
    double v = measure_pair(n, o, NULL);
    for (int again = 0; again < 2 && o->restarts != 0; again++)
        v = measure_pair(n, o, NULL);
    return v;
}

static int setup(void **state)
{
    (void)state;
    nb_error err = {0};
    static const uint8_t nop = 0x90;
    static const codegen_read rd = {PMU_READ_RDTSC, 0};
    static uint64_t stack[64];
    g_params = (codegen_params){
        .code = &nop, .code_len = 1, .reads = &rd, .n_reads = 1,
        .r14 = (uintptr_t)&stack[32], .rdi = (uintptr_t)&stack[32],
        .rsi = (uintptr_t)&stack[32], .rbp = (uintptr_t)&stack[32],
        .rsp = (uintptr_t)&stack[48],
    };
    for (int r = 0; r < 2; r++) {
        g_params.copies = r ? COPIES_B : COPIES_A;
        if (codegen_build(&g_params, &g_prog[r], &err))
            return -1;
    }
    /* the IMUL chain's and the load probe's latency given, so that nothing
     * is searched */
    if (cal_build(&g_cp, fake_run, 3.0, LOAD_LAT, FE_FLOOR, g_port_floor, true, &err))
        return -1;
    /* the simulated TSC's step, whatever this machine's is: the coarse one
     * of an AMD host (on a fine TSC the first pass pins the pair down, and
     * the clock these tests move later would never be seen) */
    g_cp.step = 21;
    return 0;
}

static void start(double before, double after, unsigned switch_after, unsigned period)
{
    g_ratio[0] = before;
    g_ratio[1] = after;
    g_cal_calls = 0;
    g_switch_after = switch_after;
    g_period = period;
    g_slow_at = NULL;
    g_slow_by = g_superlinear = g_beyond_first = 0;
    g_per_copy = CYCLES_PER_COPY;
    memset(g_place_slow, 0, sizeof g_place_slow);
    memset(g_places, 0, sizeof g_places);
    g_probe_slow = 0;
    g_probe_at = NULL;
    g_big = false;
    g_shared_until = 0;
    g_shared_by = 0;
    g_wait_ticks = 0;
    g_fe_shared_until = 0;
    g_fe_shared_by = 0;
    g_ld_shared_until = 0;
    g_ld_shared_by = 0;
    memset(g_port_shared_until, 0, sizeof g_port_shared_until);
    memset(g_port_shared_by, 0, sizeof g_port_shared_by);
    g_disturb_until = 0;
    g_prog_runs = g_stretch_from = 0;
    g_stretch_until = 1;
    g_stretch_by = 0;
    g_insns_per_copy = 0;
    g_cold_by = 0;
    g_fe_lucky_at = 0;
    g_fe_lucky_by = 0;
    g_loops = 0;
    g_cp.fe_floor = FE_FLOOR;
    g_cp.fe_best = 0;
    memcpy(g_cp.port_floor, g_port_floor, sizeof g_cp.port_floor);
    memset(g_cp.port_best, 0, sizeof g_cp.port_best);
}

/* The value's half-width per execution of the code, `execs` of them in
 * the programs' difference; half_width: per copy of straight code. */
static double half_width_per(const tsc_outcome *o, double execs)
{
    return tsc_half_width(o->diff[0], o->unc[0], o->agg_off[0], o->ratio, o->ratio_hw) / execs;
}

static double half_width(const tsc_outcome *o)
{
    return half_width_per(o, COPIES_B - COPIES_A);
}

/* What a measurement came to, for a check that fails. */
static void show(double v, const tsc_outcome *o)
{
    print_message("value %f +/- %f, clock %f +/- %f, moved %f, restarts %zu, passes %zu, "
                  "runs %zu/%zu, kept %zu/%zu\n", v, half_width(o), o->ratio, o->ratio_hw,
                  o->drift, o->restarts, o->passes, o->runs[0], o->runs[1], o->kept[0], o->kept[1]);
}

/* The pair read right, with the clock at the end (0.6 ticks a cycle). */
static void assert_right(double v, const tsc_outcome *o)
{
    if (!(fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(CYCLES_PER_COPY)))
        show(v, o);
    assert_true(fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(CYCLES_PER_COPY));
    assert_true(fabs(o->ratio - 0.6) < 0.006);
}

/* The pair's half-width holds the truth, or the value is not pinned down
 * (its half-width beyond the tolerance: flagged). */
static void assert_covered_or_not_pinned(double v, const tsc_outcome *o)
{
    double u = half_width(o);
    if (!(fabs(v - CYCLES_PER_COPY) <= u || u > tsc_tolerance(v)))
        show(v, o);
    assert_true(fabs(v - CYCLES_PER_COPY) <= u || u > tsc_tolerance(v));
}

/* The second program measured again at another place, that kept, and
 * the pair read right there. */
static void assert_measured_elsewhere(double v, const tsc_outcome *o, const place_outcome *po,
                                      const uint8_t *first_base)
{
    if (po->placements != 2)
        show(v, o);
    assert_right(v, o);
    assert_int_equal(po->placements, 2);
    assert_true(po->moved);
    assert_true(g_prog[1].base != first_base);
}

/* The second program `by` cycles a copy slower where it was first mapped
 * than elsewhere (2): the value per copy; *first_base where that was. */
static double measure_slow_second(tsc_outcome *o, place_outcome *po, const uint8_t **first_base,
                                  double by)
{
    *first_base = g_prog[1].base;
    g_slow_at = *first_base;
    g_slow_by = by;
    return measure_pair(10, o, po);
}

/* A steady clock: the value, the clock, nothing moved or started over. */
static void test_steady_clock(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    assert_right(quiet_pair(10, &o), &o);
    assert_float_equal(o.drift, 0, 0);
    assert_int_equal(o.restarts, 0);
}

/* The core at 3/4 of its later clock for the first pass (3 samples: both
 * chains beside each, 12 calibration programs), then at full speed: the
 * clock is measured beside every pass, so the pair reads 2 (it read 1.5
 * when only the first pass calibrated), and the measurement started over. */
static void test_clock_moves_after_first_pass(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.8, 0.6, 12, 0);
    assert_right(measure_pair(3, &o, NULL), &o);
    assert_true(o.restarts >= 1);
}

/* The core 10 % slower for the first 4 of 10 samples (8 calibration
 * programs: two of a chain's five readings), then at full speed: too few
 * calibrations for stretches of them to tell (tsc_clock_drift), and the
 * median of a chain's is the later clock's; two readings in a row at the
 * other level are a move (tsc_clock_stepped), and the measurement starts
 * over (it read 2.08 +/- 0.01). */
static void test_clock_moves_within_few_calibrations(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.72, 0.6, 8, 0);
    g_cp.step = 2;   /* a fine TSC: the first pass pins the pair down */
    double v = measure_pair(10, &o, NULL);
    g_cp.step = 21;
    if (!(fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(CYCLES_PER_COPY)) || o.restarts < 1)
        show(v, &o);
    assert_right(v, &o);
    assert_true(o.restarts >= 1);
}

/* A clock that keeps moving by 10 % (a turn every 20 calibration
 * programs): starting over does not help, and the half-width stated covers
 * what the value could be off by (the clock's move is part of it); each
 * run read at the clock of the calibration next to it, the value itself
 * is right (at the fastest clock it read 2.06-2.10).  The run hook spins
 * the real TSC, and a busy host that preempts it moves the value within
 * its half-width, flagged as it is (2.033 +/- 1.32 in one CI run, about
 * one run of the file in 25 beside a busy host): every try must be
 * covered and flagged, one of three right. */
static void test_clock_keeps_moving(void **state)
{
    (void)state;
    tsc_outcome o;
    bool right = false;
    for (int try = 0; try < 3 && !right; try++) {
        start(0.6, 0.66, 0, 20);
        double v = measure_pair(10, &o, NULL);
        if (!(o.drift > 0))
            show(v, &o);
        assert_true(o.drift > 0);
        assert_true(o.restarts >= 1);
        double u = half_width(&o);
        assert_true(fabs(v - CYCLES_PER_COPY) <= u);
        assert_true(u > tsc_tolerance(CYCLES_PER_COPY));   /* so the value is flagged */
        right = fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(CYCLES_PER_COPY);
        if (!right)
            show(v, &o);
    }
    assert_true(right);
}

/* Code that costs the same a copy in both programs is measured once. */
static void test_linear_code_is_placed_once(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    assert_right(measure_pair(10, &o, &po), &o);
    assert_int_equal(po.placements, 1);
}

/* The second program at 5 cycles a copy where it was first mapped, 2
 * elsewhere: the pair read 8 there (1,150 - 350 cycles over the 100 copies
 * more), and the first program's 350 cycles are not the harness's 150 and
 * its 100 copies at 8; measured again at another place, that kept. */
static void test_slow_placement_is_left(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    const uint8_t *first_base;
    start(0.6, 0.6, 0, 0);
    double v = measure_slow_second(&o, &po, &first_base, 3.0);
    assert_measured_elsewhere(v, &o, &po, first_base);
    assert_true(fabs(po.off - 3.0) < 0.1);
}

/* The first program at 4 cycles a copy where it was first mapped: the pair
 * read 0 there (400 cycles in both programs' difference of 200 copies'
 * worth), nonsense the programs' linearity gives away; measured again at
 * another place, that kept. */
static void test_slow_first_program_is_left(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    g_slow_at = g_prog[0].base;
    g_slow_by = 2.0;
    assert_right(measure_pair(10, &o, &po), &o);
    assert_int_equal(po.placements, 2);
    assert_true(po.moved);
    assert_true(po.off < -0.9);
}

/* A chain whose first program runs 8 cycles slow where it was first
 * mapped (a few ticks, as one single run of a chain x 100 in about 500 did
 * on a Zen 5 guest): the pair read 1.92 there, unflagged by the front
 * end's floor of 8 TSC steps; the chain's floor sees the programs' misfit
 * of 16 cycles, and the pair is measured again at another place, that kept. */
static void test_chain_slow_by_a_few_ticks_is_left(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    g_place_slow[0] = 8.0 / COPIES_A;
    const uint8_t *first_base = g_prog[0].base;
    double v = measure_pair(10, &o, &po);
    if (!(fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(CYCLES_PER_COPY)) || po.placements != 2)
        show(v, &o);
    assert_right(v, &o);
    assert_int_equal(po.placements, 2);
    assert_true(po.moved);
    assert_true(g_prog[0].base != first_base);
}

/* A chain whose second program runs 9 cycles slow where it was first
 * mapped (single runs of an ADD pair x 100 on a Zen 5 guest read 2.07-2.08
 * +/- 0.026, unflagged, in 2 of 2,500, the second program ~7 cycles slow):
 * the pair reads 2.09 there, and the first program misses the line through
 * the harness alone by those 9 cycles (5.4 ticks), more than the two
 * programs' noise allows (4.3 here) but within the harness's timing from
 * 64 runs where the TSC's steps are coarse (+/- 3.6 ticks of 21-tick
 * steps: 6.2 allowed); the harness is timed again from more runs, and the
 * pair measured at another place, that kept. */
static void test_second_slow_by_a_few_cycles_is_left(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    const uint8_t *first_base;
    start(0.6, 0.6, 0, 0);
    double v = measure_slow_second(&o, &po, &first_base, 9.0 / COPIES_B);
    assert_measured_elsewhere(v, &o, &po, first_base);
}

/* A chain whose second program runs 6 cycles slow where it was first
 * mapped: the first program misses the line through the harness alone by
 * 3.6 ticks, within what linear() allows (4.3 here) but beyond what the
 * programs' and the probe's noise explain; the pair, 2.06, is not pinned
 * down (as an IMUL chain x 100 read 3.07 +/- 0.029, unflagged, its second
 * program 6 cycles slow, in 1 of 1,500 single runs on a Zen 5 guest).
 * Without the misfit in the half-width: 2.061 +/- 0.030, pinned, in two
 * tries of three. */
static void test_second_slow_within_the_check_is_not_pinned(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    const uint8_t *first_base;
    start(0.6, 0.6, 0, 0);
    double v = measure_slow_second(&o, &po, &first_base, 6.0 / COPIES_B);
    assert_covered_or_not_pinned(v, &o);
}

/* The harness alone runs 12 cycles slow where place.c first maps it, and
 * the first program 8 cycles slow at the second place its pair gets (as
 * in one of 3,000 single runs of an ADD pair x 100 on a Zen 5 guest): the
 * pair's first place, right, looks not linear against that probe, and the
 * second, 1.92, looks linear; the probe timed again at another place is
 * 12 cycles faster, the faster kept, and the first place stands. */
static void test_slow_probe_is_timed_elsewhere(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    g_probe_slow = 12.0;
    g_place_slow[1] = 8.0 / COPIES_A;
    const uint8_t *first_base = g_prog[0].base;
    double v = measure_pair(10, &o, &po);
    if (!(fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(CYCLES_PER_COPY)) || po.placements != 1)
        show(v, &o);
    assert_right(v, &o);
    assert_int_equal(po.placements, 1);
    assert_false(po.moved);
    assert_true(g_prog[0].base == first_base);
}

/* Code that runs slower a copy in the second program wherever it lies (it
 * outgrew a cache, say, or the process's second program is slow wherever
 * it lies): measured at a second place, whose programs miss linearity by
 * as much (the code's misfit, not a place's: a third would too), the
 * first kept, its samples and value as they were, and not pinned down: the
 * difference is not the code's cost a copy (six ADDs read 2.652 +/- 0.029,
 * unflagged, against 1.50, their second program ~1,150 cycles slow at both
 * places). */
static void test_superlinear_code_keeps_its_place(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    g_superlinear = 3.0;
    const uint8_t *first_base = g_prog[1].base;
    double v = measure_pair(10, &o, &po);
    assert_int_equal(po.placements, 2);
    assert_false(po.moved);
    assert_true(g_prog[1].base == first_base);
    /* 1,150 - 350 cycles over the 100 copies more */
    assert_true(fabs(v - 8.0) <= tsc_tolerance(8.0));
    if (!(half_width(&o) > tsc_tolerance(v)))
        show(v, &o);
    assert_true(half_width(&o) > tsc_tolerance(v));
}

/* The two programs built again with a and b copies (g_copies0, g_copies1),
 * the tests' own kept in kept[2] until own_copies puts them back. */
static void use_copies(long a, long b, codegen_prog kept[2])
{
    nb_error err = {0};
    codegen_params p = g_params;
    for (int r = 0; r < 2; r++) {
        kept[r] = g_prog[r];
        p.copies = r ? b : a;
        assert_int_equal(codegen_build(&p, &g_prog[r], &err), 0);
    }
    g_copies0 = a;
    g_copies1 = b;
}

static void own_copies(codegen_prog kept[2])
{
    for (int r = 0; r < 2; r++) {
        codegen_free(&g_prog[r]);
        g_prog[r] = kept[r];
    }
    g_copies0 = COPIES_A;
    g_copies1 = COPIES_B;
}

/* -basic_mode (the first program the harness alone, 0 copies), the second
 * program at 5 cycles a copy where it was first mapped: nothing in the two
 * programs alone gives that away, but a program of half the copies, timed
 * beside them, costs less than half the difference more than the first;
 * measured again at another place, that kept. */
static void test_basic_mode_slow_placement_is_left(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    codegen_prog kept[2];
    start(0.6, 0.6, 0, 0);
    use_copies(0, COPIES_B, kept);
    const uint8_t *first_base;
    /* per copy of the 200 the programs differ by; 6 cycles more, not 3:
     * the program of 100 copies then misses the line by 360 ticks, not
     * 180 against a floor of 160 (a busy host widened the check past it) */
    double v = measure_slow_second(&o, &po, &first_base, 6.0);
    own_copies(kept);
    assert_measured_elsewhere(v, &o, &po, first_base);
}

/* -loop_count 4 (both programs' copies in a loop, whose own cost is in
 * both and not in the harness), the second program slow where it was
 * first mapped: a program of 150 copies in as many iterations, timed
 * beside them, costs less than the first plus half the difference; measured
 * again at another place, that kept. */
static void test_loop_slow_placement_is_left(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    g_loops = 4;
    const uint8_t *first_base;
    double v = measure_slow_second(&o, &po, &first_base, 3.0);
    g_loops = 0;
    assert_right(v, &o);
    assert_true(po.moved);
    assert_true(g_prog[1].base != first_base);
    /* a loop: the place moved to compared with a third, which agrees */
    assert_true(po.compared);
    assert_int_equal(po.placements, 3);
}

/* A loop of 100 iterations (as measure_pair's programs, per execution of
 * the code) whose copies cost 0.2 cycles more each beyond the first
 * program's 100, at every place (a cache the first's fit and the second's
 * do not): the probe of 150 copies lies on the line between the two, the
 * first program not on the harness alone's and the difference's rate, so
 * the value (2.2) is not pinned down, its half-width holding the first's
 * 2.0 as well; the same loop without it is pinned down, no misfit. */
static void test_loop_whose_copies_cost_more_is_not_pinned(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    g_loops = 100;
    double execs = (double)(COPIES_B - COPIES_A) * (double)g_loops;
    double v = measure_pair(10, &o, &po);
    double u = half_width_per(&o, execs);
    if (!(po.loop_misfit == 0) || !(u <= tsc_tolerance(v)))
        show(v, &o);
    assert_true(po.loop_misfit == 0);
    assert_true(fabs(v - 2.0) <= tsc_tolerance(2.0) && u <= tsc_tolerance(v));
    g_beyond_first = 0.2;   /* 200 x 0.2 more over the 100 copies more, in each iteration */
    v = measure_pair(10, &o, &po);
    u = half_width_per(&o, execs);
    g_loops = 0;
    if (!(fabs(v - 2.2) <= tsc_tolerance(2.2)) || !(fabs(v - 2.0) <= u))
        show(v, &o);
    assert_true(fabs(v - 2.2) <= tsc_tolerance(2.2));
    assert_true(fabs(po.loop_misfit - (2.0 / 2.2 - 1)) < 0.01);
    assert_true(fabs(v - 2.0) <= u && fabs(v - 2.2) <= u);
    assert_true(u > tsc_tolerance(v));   /* so the value is flagged */
}

/* Code beyond the L1 instruction cache, whose second program runs at 2.2
 * cycles a copy where it was first mapped and at 2.0 at the other places:
 * measured at PLACE_MEAN places however linear, the value their middle
 * places' (2.0, what most places cost: their mean, 2.05, is where none
 * lies), its half-width covering every place's value; the first place's
 * programs kept. */
static void test_big_code_is_averaged(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    g_big = true;
    const uint8_t *first_base = g_prog[1].base;
    g_slow_at = first_base;
    g_slow_by = 0.1;   /* 2.0 + 200 x 0.1 / 100 a copy of the difference */
    double v = measure_pair(10, &o, &po);
    double u = half_width(&o);
    double middle = 2.0;
    if (!(fabs(v - middle) < 0.02) || !(u >= 0.15))
        show(v, &o);
    assert_int_equal(po.placements, PLACE_MEAN);
    assert_true(po.averaged);
    assert_false(po.moved);
    assert_true(g_prog[1].base == first_base);
    assert_true(fabs(v - middle) < 0.02);
    assert_true(fabs(po.off - (2.0 / 2.2 - 1)) < 0.02);
    assert_true(fabs(v - 2.0) <= u && fabs(v - 2.2) <= u);
    assert_true(u > tsc_tolerance(v));   /* so the value is flagged */
}

/* Code below it that costs the same at every place: measured once. */
static void test_small_code_is_not_averaged(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    assert_right(measure_pair(10, &o, &po), &o);
    assert_false(po.averaged);
    g_big = true;
    assert_right(measure_pair(10, &o, &po), &o);
    assert_true(po.averaged);
    /* within the tolerance but for the cycle where code meets the harness
     * and the share of the caches' other users (TSC_BIG_REL), which is
     * there whole: every place carries it alike, and their mean no less */
    double u = half_width(&o);
    assert_true(u <= tsc_tolerance(CYCLES_PER_COPY) + TSC_CONTEXT_CYCLES / (COPIES_B - COPIES_A) +
                         TSC_BIG_REL * CYCLES_PER_COPY);
    assert_true(u >= TSC_BIG_REL * CYCLES_PER_COPY * 0.99);
}

/* Code the front end bounds (12 instructions a copy in its 2 cycles),
 * the same at every place: compared at a second place, which agrees; the
 * first kept.  A chain is not compared. */
static void test_front_end_bound_code_is_compared(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    const uint8_t *first_base = g_prog[1].base;
    assert_right(measure_pair(10, &o, &po), &o);
    assert_false(po.compared);
    assert_int_equal(po.placements, 1);
    g_insns_per_copy = 12;
    assert_right(measure_pair(10, &o, &po), &o);
    assert_true(po.compared);
    assert_int_equal(po.placements, 2);
    assert_false(po.moved);
    assert_true(g_prog[1].base == first_base);
    assert_true(fabs(po.off) < 0.01);
}

/* ... whose first program runs 3 % of the difference slower where it was
 * first mapped (6 cycles in 350, far within the linear check's floor): the
 * pair reads 1.94 there, 2.00 at a second place; a third agrees with the
 * second, which is kept, with the first's distance in its half-width (a
 * place the code cost that at: which is the code's cost elsewhere, no
 * majority of one process's places says). */
static void assert_slow_first_place_left(void)
{
    tsc_outcome o;
    place_outcome po;
    const uint8_t *first_base = g_prog[1].base;
    g_slow_at = g_prog[0].base;
    g_slow_by = 0.06;
    double v = measure_pair(10, &o, &po);
    if (!(fabs(v - CYCLES_PER_COPY) < 0.01))
        show(v, &o);
    assert_true(po.compared);
    assert_int_equal(po.placements, 3);
    assert_true(po.moved);
    assert_true(g_prog[1].base != first_base);
    assert_true(fabs(v - CYCLES_PER_COPY) < 0.01);
    assert_true(fabs(po.off - (1.94 / 2.0 - 1)) < 0.01);
    assert_true(half_width(&o) >= 0.05);
}

/* Code the front end bounds whose first place reads a little slow, within
 * what the two places' noise allows (its first program 2 % of the
 * difference slower: 1.98 there, 2.00 at the second): the two agree, and
 * the value is their mean, not the first place's alone (a store-load pair
 * on a Zen 5 guest read 0.517 and 0.504 at two places that agreed, the
 * first kept and beyond its half-width from 0.500).
 * The 0.02 lies near the edge of what the two places' noise allows: where
 * a place ran more passes (runs disturbed by the host), its noise shrank
 * and the two disagreed, so a third place was measured (1-4 tries in 400,
 * simulated preemption; once in CI).  That is the method at work, not this
 * test's subject: the scenario is tried again, 3 times at most; every try
 * must read right, and every one whose places agreed must be their mean. */
static void test_agreeing_places_are_averaged(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po = {0};
    bool agreed = false;
    for (int try = 0; try < 3 && !agreed; try++) {
        start(0.6, 0.6, 0, 0);
        g_insns_per_copy = 12;
        g_slow_at = g_prog[0].base;
        g_slow_by = 0.02;
        double v = measure_pair(10, &o, &po);
        agreed = po.placements == 2;
        if (!agreed || !(fabs(v - (CYCLES_PER_COPY - 0.01)) < 0.006))
            show(v, &o);
        assert_true(po.compared);
        assert_right(v, &o);
        if (!agreed)
            continue;
        assert_false(po.moved);
        /* (the first alone: 1.98, 0.01 off) */
        assert_true(fabs(v - (CYCLES_PER_COPY - 0.01)) < 0.006);
    }
    assert_true(agreed);
}

/* Small code the front end bounds, where the place moves it by more than
 * its tolerance though less than PLACE_FE_SHIFT of it would: 2 instructions
 * a quarter of a cycle a copy (0.02 of tolerance) in programs of 1,000 and
 * 2,000 copies, as nanoBench's defaults build them (in 100 and 200 the
 * harness's context alone is a quarter of the value), the second program
 * 0.016 cycles a copy slower where it was first mapped (as one NOP read
 * 13 % high at one place of a Zen 5 guest's process): 0.283 there, within
 * the linear check's floor.  Compared at a second place, which disagrees,
 * and a third, which agrees with the second: that kept, 0.25. */
static void test_small_front_end_bound_code_is_compared(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    codegen_prog kept[2];
    start(0.6, 0.6, 0, 0);
    use_copies(1000, 2000, kept);
    g_per_copy = 0.25;
    g_insns_per_copy = 2;
    const uint8_t *first_base = g_prog[1].base;
    g_slow_at = first_base;
    g_slow_by = 0.01625;
    double v = measure_pair(10, &o, &po);
    bool elsewhere = g_prog[1].base != first_base;
    own_copies(kept);
    if (!(fabs(v - 0.25) <= tsc_tolerance(0.25)) || po.placements != 3)
        print_message("value %f, %zu places, off %f\n", v, (size_t)po.placements, po.off);
    assert_true(po.compared);
    assert_true(po.moved);
    assert_int_equal(po.placements, 3);
    assert_true(elsewhere);
    assert_true(fabs(v - 0.25) <= tsc_tolerance(0.25));
    assert_true(fabs(po.off - (0.2825 / 0.25 - 1)) < 0.03);
}

static void test_front_end_bound_slow_place_is_left(void **state)
{
    (void)state;
    start(0.6, 0.6, 0, 0);
    g_insns_per_copy = 12;
    assert_slow_first_place_left();
}

/* A loop is compared wherever its context lies (the loop's branch moves
 * with its place): a 2-cycle chain in 4 iterations, its first program 6 %
 * of the difference slower where it was first mapped (within the linear
 * check's floor), reads 1.94 there, 2.00 at a second place; a third agrees
 * with the second, which is kept.  Where no place is slow, two places. */
static void test_loop_slow_place_is_compared(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    g_loops = 4;
    assert_right(measure_pair(10, &o, &po), &o);
    assert_true(po.compared);
    assert_int_equal(po.placements, 2);
    assert_false(po.moved);
    assert_slow_first_place_left();
}

/* Code the front end bounds whose first place was not linear (its first
 * program at 4 cycles a copy there) and whose second place, linear, reads
 * 1.94 (3 % of the difference in the first program, within the linear
 * check's floor): compared there too, at a third and a fourth place, which
 * agree; the third kept. */
static void test_moved_place_is_compared(void **state)
{
    (void)state;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    g_insns_per_copy = 12;
    g_place_slow[0] = 2.0;
    g_place_slow[1] = 0.06;
    double v = measure_pair(10, &o, &po);
    if (!(fabs(v - CYCLES_PER_COPY) < 0.01))
        show(v, &o);
    assert_true(po.moved);
    assert_true(po.compared);
    assert_int_equal(po.placements, 4);
    assert_true(g_prog[0].base == g_places[2]);
    assert_true(fabs(v - CYCLES_PER_COPY) < 0.01);
    assert_true(po.off < -0.9);
}

/* Code that runs as fast as the front end delivers NOPs (a copy of 12
 * instructions in its 2 cycles, against a sixth of a cycle a NOP) meets
 * the harness harder than a chain: TSC_FE_CONTEXT_CYCLES a program in its
 * half-width, and in a loop of more than one iteration
 * TSC_LOOP_CONTEXT_CYCLES more; code of fewer instructions in its cycles
 * (a chain) keeps TSC_CONTEXT_CYCLES. */
static void test_front_end_bound_context(void **state)
{
    (void)state;
    tsc_outcome o;
    double execs = COPIES_B - COPIES_A;
    start(0.6, 0.6, 0, 0);
    g_insns_per_copy = 12;
    assert_right(measure_pair(10, &o, NULL), &o);
    /* a loop: the width's, not the probe's slower mean; straight code: the
     * slower of the two */
    assert_true(o.fe_ref_loop == FE_FLOOR);
    assert_true(o.fe_ref == fmax(FE_FLOOR, o.fe.cost) && fabs(o.fe.cost - FE_QUIET) < 0.03 * FE_QUIET);
    assert_true(half_width(&o) >= TSC_FE_CONTEXT_CYCLES / execs);
    g_loops = 10;
    measure_pair(10, &o, NULL);
    assert_true(half_width(&o) >= (TSC_FE_CONTEXT_CYCLES + TSC_LOOP_CONTEXT_CYCLES) / (execs * 10));
    assert_true(o.fe_bound[0]);
    /* 6 instructions in 2 cycles: not the front end's (1.25 cycles), but
     * wide: the loop's context all the same */
    g_insns_per_copy = 6;
    measure_pair(10, &o, NULL);
    assert_false(o.fe_bound[0]);
    assert_true(o.context[0] == TSC_CONTEXT_CYCLES + TSC_LOOP_CONTEXT_CYCLES);
    assert_true(half_width(&o) >= (TSC_CONTEXT_CYCLES + TSC_LOOP_CONTEXT_CYCLES) / (execs * 10));
    g_insns_per_copy = 12;
    /* the line: 1.25 times the front end's cycles for the instructions */
    tsc_goal g = {.insns = 1000, .loops = 0};
    assert_true(tsc_context_cycles(&g, 200, 1.0 / 6) == TSC_FE_CONTEXT_CYCLES);
    assert_true(tsc_context_cycles(&g, 210, 1.0 / 6) == TSC_CONTEXT_CYCLES);
    assert_true(tsc_fe_bound(&g, 200, 1.0 / 6) && !tsc_fe_bound(&g, 210, 1.0 / 6));
    g.loops = 100;
    assert_true(tsc_context_cycles(&g, 200, 1.0 / 6) == TSC_FE_CONTEXT_CYCLES + TSC_LOOP_CONTEXT_CYCLES);
    /* a fixed amount however many iterations; none for a loop of one */
    g.loops = 10000;
    assert_true(tsc_context_cycles(&g, 200, 1.0 / 6) == TSC_FE_CONTEXT_CYCLES + TSC_LOOP_CONTEXT_CYCLES);
    g.loops = 1;
    assert_true(tsc_context_cycles(&g, 200, 1.0 / 6) == TSC_FE_CONTEXT_CYCLES);
    assert_true(tsc_context_cycles(&g, 210, 1.0 / 6) == TSC_CONTEXT_CYCLES);
    g.loops = 100;
    /* a loop of code that runs TSC_WIDE_IPC instructions a cycle or more,
     * the front end not bounding it: the loop's context too; below, the
     * chain's alone */
    assert_true(tsc_context_cycles(&g, 210, 1.0 / 6) == TSC_CONTEXT_CYCLES + TSC_LOOP_CONTEXT_CYCLES);
    assert_true(tsc_context_cycles(&g, 400, 1.0 / 6) == TSC_CONTEXT_CYCLES + TSC_LOOP_CONTEXT_CYCLES);
    assert_true(tsc_context_cycles(&g, 401, 1.0 / 6) == TSC_CONTEXT_CYCLES);
    assert_false(tsc_fe_bound(&g, 400, 1.0 / 6));
    g.loops = 0;
    assert_true(tsc_context_cycles(&g, 210, 1.0 / 6) == TSC_CONTEXT_CYCLES);
    /* a core whose width nb knows only as a floor (a Zen's decoders, 4 a
     * cycle) while its probe, a loop, runs faster: straight code at 0.23
     * cycles an instruction is front-end bound, a loop at 0.23 is not */
    g_loops = 0;
    g_cp.fe_floor = 0.25;
    measure_pair(10, &o, NULL);
    assert_true(o.fe_ref == 0.25 && o.fe_ref_loop == o.fe.cost);
    g.loops = 0;
    assert_true(tsc_context_cycles(&g, 230, o.fe_ref) == TSC_FE_CONTEXT_CYCLES);
    g.loops = 100;
    assert_false(tsc_fe_bound(&g, 230, o.fe_ref_loop));
    assert_true(tsc_context_cycles(&g, 500, o.fe_ref_loop) == TSC_CONTEXT_CYCLES);
    /* the front end's cost not known: not front-end bound, wide still
     * (which needs only the instructions); these not known: a chain's */
    assert_false(tsc_fe_bound(&g, 200, 0));
    assert_true(tsc_context_cycles(&g, 200, 0) == TSC_CONTEXT_CYCLES + TSC_LOOP_CONTEXT_CYCLES);
    assert_true(tsc_context_cycles(&g, 500, 0) == TSC_CONTEXT_CYCLES);
    g.insns = 0;
    assert_true(tsc_context_cycles(&g, 200, 1.0 / 6) == TSC_CONTEXT_CYCLES);
}

/* What more runs can pin down: the statistical part asks for runs by its
 * square, against what the fixed part leaves of the tolerance; the
 * window's ambiguity and the preludes' spread beyond the tolerance after
 * TSC_AMBIGUOUS_RUNS runs stop the measurement (INFINITY),
 * except where the clock's part is beyond most of the tolerance: passes
 * calibrate again. */
static void test_need(void **state)
{
    (void)state;
    double tol = 0.02;
    assert_true(tsc_need(0.01, 0.01, 0, 0, 0, 0, tol, 40) == 1);
    assert_true(fabs(tsc_need(0.028, 0.028, 0, 0, 0, 0, tol, 40) - 4) < 1e-9);
    assert_true(isinf(tsc_need(0.05, 0.05, 0, 0.03, 0, 0, tol, TSC_AMBIGUOUS_RUNS)));
    assert_false(isinf(tsc_need(0.05, 0.05, 0, 0.03, 0, 0, tol, 100)));
    assert_true(isinf(tsc_need(0.05, 0.05, 0.03, 0, 0, 0, tol, TSC_AMBIGUOUS_RUNS)));
    assert_false(isinf(tsc_need(0.05, 0.05, 0.03, 0, 0, 0, tol, TSC_AMBIGUOUS_RUNS - 1)));
    /* a clock as wide as the one from 5 slowed calibrations */
    double n = tsc_need(0.72, 0.05, 0, 0.03, 0.7, 0, tol, 40);
    assert_false(isinf(n));
    assert_true(n >= (0.7 / (0.7 * tol)) * (0.7 / (0.7 * tol)));
    /* a fixed part (an ADD pair x 100: the harness context's 0.01 of a
     * tolerance of 0.03) leaves the noise less room: 0.021 of noise, within
     * the tolerance alone, asks for (0.021 / (0.7 * 0.02))^2 as many runs */
    double t3 = 0.03;
    assert_true(tsc_need(0.021, 0.021, 0, 0, 0, 0, t3, 40) == 1);
    double nf = tsc_need(0.031, 0.021, 0, 0, 0, 0.01, t3, 40);
    assert_true(fabs(nf - (0.021 / 0.014) * (0.021 / 0.014)) < 1e-9);
    /* close to the tolerance, a quarter of it is left to the noise;
     * beyond it (flagged in any case), the noise need only come down to
     * the fixed part, and then no more runs */
    assert_true(fabs(tsc_need(0.04, 0.02, 0, 0, 0, 0.029, t3, 40) - (0.02 / 0.0075) *
                     (0.02 / 0.0075)) < 1e-9);
    assert_true(fabs(tsc_need(0.12, 0.08, 0, 0, 0, 0.04, t3, 40) - 4) < 1e-9);
    assert_true(isinf(tsc_need(0.055, 0.015, 0, 0, 0, 0.04, t3, 40)));
}

/* measure_pair of 10 samples with another thread on the ALUs for the
 * first `until` calibration programs (the ADD chain 5 % slow; 40 a try)
 * and the goal's wait_ticks `wait`: the value, with the ADD chain's
 * slowdown and its half-width. */
static double shared_alu_pair(unsigned until, double wait, tsc_outcome *o, double *slow,
                              double *hw)
{
    start(0.6, 0.6, 0, 0);
    g_shared_until = until;
    g_shared_by = 0.05;
    g_wait_ticks = wait;
    double v = measure_pair(10, o, NULL);
    *slow = tsc_alu_slowdown(o, hw);
    return v;
}

/* Another thread uses the core's ALUs during the first pass (10 samples,
 * 40 calibration programs): the ADD chain reads 5 % slower than the IMUL
 * chain, so the measurement starts over, and the neighbour gone, the
 * outcome shows no sharing and the pair reads right. */
static void test_shared_core_starts_over(void **state)
{
    (void)state;
    tsc_outcome o;
    double hw, slow, v = shared_alu_pair(40, 0, &o, &slow, &hw);
    if (o.restarts < 1 || tsc_core_shared(slow, hw))
        show(v, &o);
    assert_right(v, &o);
    assert_true(o.restarts >= 1);
    assert_false(tsc_core_shared(slow, hw));
}

/* The core shared throughout: starting over does not help; the outcome
 * says so (its values are flagged, see session.c), the slowdown is the
 * ADD chain's, and the half-width covers code slowed by TSC_SHARED_SPAN
 * (code bound by the core's width loses more than the chain). */
static void test_shared_core_throughout(void **state)
{
    (void)state;
    tsc_outcome o;
    double hw, slow, v = shared_alu_pair(~0u, 0, &o, &slow, &hw);
    if (o.restarts != TSC_SHARED_RESTARTS || !tsc_core_shared(slow, hw))
        show(v, &o);
    assert_int_equal(o.restarts, TSC_SHARED_RESTARTS);
    assert_int_equal(o.waits, 0);   /* a batch line's goal: no waiting */
    assert_true(tsc_core_shared(slow, hw));
    assert_true(fabs(slow - 0.05) < 0.01);
    assert_int_equal(o.chain, 1);
    /* code slowed by the span, more than the ADD chain, is within it */
    assert_true(half_width(&o) >= TSC_SHARED_SPAN * v);
}

/* A single benchmark's goal (wait_ticks) and a neighbour on the ALUs for
 * longer than the first try and the restart: the measurement waits,
 * starts over, and once the neighbour is gone reads right, unshared. */
static void test_shared_core_waited_out(void **state)
{
    (void)state;
    tsc_outcome o;
    /* three tries' calibrations; this TSC's ticks for the wait (its rate
     * need not be exact) */
    double hw, slow, v = shared_alu_pair(120, TSC_SHARED_WAIT_NS * 2.0, &o, &slow, &hw);
    if (o.waits < 1 || tsc_core_shared(slow, hw))
        show(v, &o);
    assert_right(v, &o);
    assert_int_equal(o.restarts, TSC_SHARED_RESTARTS);
    assert_true(o.waits >= 1 && o.waits <= TSC_SHARED_WAITS);
    assert_false(tsc_core_shared(slow, hw));
}

/* ... and a neighbour that stays: the waits end within their budget and
 * the outcome says the core was shared, as without them. */
static void test_shared_core_outwaits_budget(void **state)
{
    (void)state;
    tsc_outcome o;
    uint64_t t0 = __rdtsc();
    double hw, slow, v = shared_alu_pair(~0u, TSC_SHARED_WAIT_NS * 2.0, &o, &slow, &hw);
    double took = (double)(__rdtsc() - t0);
    if (o.waits < 1 || !tsc_core_shared(slow, hw))
        show(v, &o);
    assert_true(o.waits >= 1 && o.waits <= TSC_SHARED_WAITS);
    /* no wait starts beyond the budget: what it took beyond that is one
     * try's measurement (seconds only on a host that stalls, or under
     * valgrind, where it is not judged) */
    if (!getenv("NB_UNDER_VALGRIND"))
        assert_true(took <= g_wait_ticks + 2e9 * 2.0);
    assert_true(tsc_core_shared(slow, hw));
    assert_true(half_width(&o) >= TSC_SHARED_SPAN * v);
}

/* Another thread shares the front end during the first pass: the ADD
 * chain keeps its pace, the NOP probe runs twice as slow, so the
 * measurement starts over and, the neighbour gone, reads right unshared. */
static void test_shared_front_end_starts_over(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_fe_shared_until = 40;
    g_fe_shared_by = 1.0;
    double v = measure_pair(10, &o, NULL);
    if (o.restarts < 1 || tsc_frontend_shared(o.fe_slowdown))
        show(v, &o);
    assert_right(v, &o);
    assert_true(o.restarts >= 1);
    assert_false(tsc_frontend_shared(o.fe_slowdown));
    assert_true(fabs(o.fe.cost - FE_QUIET) < 0.01);
}

/* The front end shared throughout, on a core whose width is known: the
 * outcome says so after starting over twice, and the half-width reaches
 * down to what a quiet core may take (TSC_SHARED_SPAN of the value). */
static void test_shared_front_end_throughout(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_fe_shared_until = ~0u;
    g_fe_shared_by = 1.0;
    double v = measure_pair(10, &o, NULL);
    if (o.restarts != TSC_SHARED_RESTARTS || !tsc_frontend_shared(o.fe_slowdown))
        show(v, &o);
    assert_int_equal(o.restarts, TSC_SHARED_RESTARTS);
    assert_true(tsc_frontend_shared(o.fe_slowdown));
    assert_true(fabs(o.fe_slowdown - 1.04) < 0.05);
    assert_true(half_width(&o) >= TSC_SHARED_SPAN * v);
}

/* Where the width is not known, the quietest the process has seen is the
 * measure: a neighbour there throughout one measurement is seen against
 * an earlier one; with nothing earlier, it cannot be (and is not
 * claimed). */
static void test_shared_front_end_against_earlier(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_cp.fe_floor = 0;
    g_fe_shared_until = ~0u;
    g_fe_shared_by = 1.0;
    measure_pair(10, &o, NULL);
    assert_false(tsc_frontend_shared(o.fe_slowdown));
    start(0.6, 0.6, 0, 0);
    g_cp.fe_floor = 0;
    g_cp.fe_best = FE_QUIET;
    g_fe_shared_until = ~0u;
    g_fe_shared_by = 1.0;
    measure_pair(10, &o, NULL);
    assert_true(tsc_frontend_shared(o.fe_slowdown));
    /* the same with what a quiet earlier measurement leaves the process
     * (tsc_keep_quietest): its bound covers the quiet cost, and not by so
     * much that the neighbour passes unseen */
    start(0.6, 0.6, 0, 0);
    g_cp.fe_floor = 0;
    memset(g_cp.port_floor, 0, sizeof g_cp.port_floor);
    quiet_pair(10, &o);
    tsc_keep_quietest(&g_cp, &o);
    assert_true(g_cp.fe_best >= FE_QUIET * 0.995 && g_cp.fe_best < FE_QUIET * 1.1);
    for (int k = 0; k < TSC_PORTS; k++)
        assert_true(g_cp.port_best[k] >= PORT_QUIET(k) * 0.995 &&
                    g_cp.port_best[k] < PORT_QUIET(k) * 1.1);
    g_fe_shared_until = ~0u;
    g_fe_shared_by = 1.0;
    g_cal_calls = 0;
    measure_pair(10, &o, NULL);
    assert_true(tsc_frontend_shared(o.fe_slowdown));
}

/* One run of the NOP probe's long program reads 70 % fast (a chance low:
 * the host, the TSC's rounding) in a quiet measurement, so that its
 * quietest stretch reads far below the quiet core's; the process keeps the
 * stretch's bound, not its mean, and a later quiet measurement (the next
 * batch line) is not taken for a shared one.  (Keeping the mean, every
 * later line of a batch read 37-41 % slow, flagged.) */
static void test_chance_low_probe_not_kept(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_cp.fe_floor = 0;
    g_fe_lucky_at = 2;   /* (the first run of a burst is not kept) */
    g_fe_lucky_by = 0.7;
    measure_pair(10, &o, NULL);
    if (o.restarts)
        skip();   /* the host started it over: the chance low is gone */
    assert_true(FE_QUIET / o.fe.best - 1 > FE_SHARED);   /* the mean would flag the next */
    tsc_keep_quietest(&g_cp, &o);
    assert_true(g_cp.fe_best >= FE_QUIET);
    g_fe_lucky_at = 0;
    quiet_pair(10, &o);
    assert_false(tsc_frontend_shared(o.fe_slowdown));
}

/* Another thread shares the load pipeline during the first pass: the
 * chains and the NOP probe keep their pace, the chain of loads runs 4 %
 * slow (as an L1 load chain beside a neighbour of an Emerald Rapids guest's
 * host), so the measurement starts over and, the neighbour gone, reads
 * right unshared, the probe at its latency. */
static void test_shared_loads_start_over(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_ld_shared_until = 20;
    g_ld_shared_by = 0.04;
    double v = measure_pair(10, &o, NULL);
    if (o.restarts < 1 || tsc_load_shared(o.ld_slowdown, o.ld_slowdown_hw))
        show(v, &o);
    assert_right(v, &o);
    assert_true(o.restarts >= 1);
    assert_false(tsc_load_shared(o.ld_slowdown, o.ld_slowdown_hw));
    assert_true(fabs(o.ld.cost - LOAD_LAT) < 0.01 * LOAD_LAT);
}

/* The load pipeline shared throughout: the outcome says so after starting
 * over, with the probe's slowdown, and the half-width reaches down to what
 * a quiet core may take; where the probe keeps its latency, nothing is
 * claimed. */
static void test_shared_loads_throughout(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_ld_shared_until = ~0u;
    g_ld_shared_by = 0.04;
    double v = measure_pair(10, &o, NULL);
    if (o.restarts != TSC_SHARED_RESTARTS || !tsc_load_shared(o.ld_slowdown, o.ld_slowdown_hw))
        show(v, &o);
    assert_int_equal(o.restarts, TSC_SHARED_RESTARTS);
    assert_true(tsc_load_shared(o.ld_slowdown, o.ld_slowdown_hw));
    assert_true(fabs(o.ld_slowdown - 0.04) < 0.01);
    assert_true(half_width(&o) >= TSC_SHARED_SPAN * v);
    start(0.6, 0.6, 0, 0);
    g_ld_shared_until = ~0u;
    g_ld_shared_by = 0.002;   /* a quiet core's probe reads within this */
    quiet_pair(10, &o);
    assert_int_equal(o.restarts, 0);
    assert_false(tsc_load_shared(o.ld_slowdown, o.ld_slowdown_hw));
}

/* The load ports, the store ports or the ALUs shared throughout (each in
 * turn): a port probe's instructions, which do not wait on each other, run
 * 25 % slow while the ADD chain, the NOP loop and the chain of loads keep
 * their pace (as a
 * neighbour of a Zen 5 guest's host, beside which a store-load pair read
 * 0.68 +/- 0.02, unflagged, against 0.50): the measurement starts over,
 * then says so with the probe's slowdown, and the half-width reaches down
 * to what a quiet core may take, after one pass (the probes run in the
 * first only: more passes could not change that).  Without the probe,
 * nothing is seen.  A probe within TSC_PORT_SHARED of the floor claims
 * nothing. */
static void shared_ports_throughout(int port)
{
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_port_shared_until[port] = ~0u;
    g_port_shared_by[port] = 0.25;
    double v = measure_pair(10, &o, NULL);
    if (o.restarts != TSC_SHARED_RESTARTS || !tsc_port_shared(o.port_slowdown[port]))
        show(v, &o);
    assert_int_equal(o.restarts, TSC_SHARED_RESTARTS);
    for (int k = 0; k < TSC_PORTS; k++)
        assert_true(tsc_port_shared(o.port_slowdown[k]) == (k == port));
    assert_true(fabs(o.port_slowdown[port] - (1.25 * 1.01 - 1)) < 0.02);
    assert_true(half_width(&o) >= TSC_SHARED_SPAN * v);
    assert_int_equal(o.passes, 1);
    start(0.6, 0.6, 0, 0);
    g_port_shared_until[port] = ~0u;
    g_port_shared_by[port] = 0.01;   /* within TSC_PORT_SHARED of a quiet core */
    quiet_pair(10, &o);
    assert_int_equal(o.restarts, 0);
    for (int k = 0; k < TSC_PORTS; k++)
        assert_false(tsc_port_shared(o.port_slowdown[k]));
    assert_true(fabs(o.port[port].cost - 1.01 * PORT_QUIET(port)) < 0.01 * PORT_QUIET(port));
}

/* A CPU without AVX: the vector adds' probe is not built (its VEX code
 * would fault), the other probes are, and a quiet pair reads right with
 * that probe's slowdown 0. */
static void test_probes_without_avx(void **state)
{
    (void)state;
    cal_progs with = g_cp;
    nb_error err;
    assert_int_equal(cal_build(&g_cp, fake_run, 3.0, LOAD_LAT, FE_FLOOR, g_port_floor, false,
                               &err), 0);
    g_cp.step = 21;
    for (int k = 0; k < TSC_PORTS; k++)
        assert_true(g_cp.has_port[k] == !tsc_ports[k].avx);
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_port_shared_until[TSC_PORT_VEC] = ~0u;   /* never run: never seen */
    g_port_shared_by[TSC_PORT_VEC] = 0.5;
    double v = measure_pair(10, &o, NULL);
    assert_right(v, &o);
    assert_int_equal(o.restarts, 0);
    assert_true(o.port_slowdown[TSC_PORT_VEC] == 0 && o.port[TSC_PORT_VEC].best == 0);
    assert_true(o.port[TSC_PORT_LOAD].best > 0);
    g_cp = with;
}

static void test_shared_ports_throughout(void **state)
{
    (void)state;
    for (int k = 0; k < TSC_PORTS; k++)
        shared_ports_throughout(k);
}

/* The ports shared for the first pass only (each in turn): the measurement
 * starts over and, the neighbour gone, reads right unshared; the quietest
 * stretch this process saw (port_best) then counts as the quiet
 * core where no floor is known. */
static void shared_ports_start_over(int port)
{
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    for (int k = 0; k < TSC_PORTS; k++) {
        g_cp.port_floor[k] = 0;
        g_cp.port_best[k] = PORT_QUIET(k);
    }
    g_port_shared_until[port] = 20;
    g_port_shared_by[port] = 0.25;
    double v = measure_pair(10, &o, NULL);
    bool seen = false;
    for (int k = 0; k < TSC_PORTS; k++)
        seen |= tsc_port_shared(o.port_slowdown[k]);
    if (o.restarts < 1 || seen)
        show(v, &o);
    assert_right(v, &o);
    assert_true(o.restarts >= 1);
    assert_false(seen);
}

static void test_shared_ports_start_over(void **state)
{
    (void)state;
    for (int k = 0; k < TSC_PORTS; k++)
        shared_ports_start_over(k);
}

/* A third of the programs' runs half as long again during the first pass
 * (a neighbour coming and going): the runs kept are too few, the
 * measurement starts over and, the neighbour gone, reads right and
 * undisturbed. */
static void test_disturbed_runs_start_over(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_disturb_until = 40;
    double v = measure_pair(10, &o, NULL);
    if (o.restarts < 1 || o.disturbed)
        show(v, &o);
    assert_right(v, &o);
    assert_true(o.restarts >= 1);
    assert_false(o.disturbed);
}

/* ... throughout: the outcome says so, and the half-width holds
 * TSC_SHARED_SPAN of the value (the runs kept may be slowed too). */
static void test_disturbed_runs_throughout(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_disturb_until = ~0u;
    double v = measure_pair(10, &o, NULL);
    if (o.restarts != TSC_SHARED_RESTARTS || !o.disturbed)
        show(v, &o);
    assert_int_equal(o.restarts, TSC_SHARED_RESTARTS);
    assert_true(o.disturbed);
    assert_true(half_width(&o) >= TSC_SHARED_SPAN * v);
}

/* A neighbour that slows both programs by 5 % (within the window: every
 * run kept) for a quarter of every 2,000 runs: the value's half-width
 * holds the truth, or the value is not pinned down.  The runs' standard
 * error alone read 2.024 +/- 0.023 here in one try of four (the others
 * within theirs or above the tolerance). */
static void test_slow_stretch_is_in_the_half_width(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_stretch_from = 1500;
    g_stretch_until = 2000;
    g_stretch_by = 0.1;
    double v = measure_pair(10, &o, NULL);
    assert_covered_or_not_pinned(v, &o);
}

/* Code within the L1 instruction cache whose runs right after the other
 * program's are slower (twice as slow, beyond the window's floor: the two
 * programs together outgrow the cache, and each evicts the other): the
 * first run of every sample
 * falls out of the window, which is the cost of taking turns, not a
 * neighbour: not disturbed, not started over, and the runs after it read
 * the code's cost (`4*|add rax, 1|` x 1,000 was flagged at 0.83 +/- 0.50
 * in every process, its first program keeping 30 of 40 runs). */
static void test_cold_first_runs_not_disturbed(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_cold_by = 2.0;
    g_loops = 20;   /* long runs: a few a sample, as for 32 KB of code */
    double v = measure_pair(10, &o, NULL);
    if (o.disturbed || o.restarts)
        show(v, &o);
    assert_right(v, &o);
    /* would have been, judged from every run */
    assert_true(tsc_disturbed(o.runs, o.kept, (size_t[]){0, 0}, (size_t[]){0, 0}));
    assert_false(o.disturbed);
    assert_int_equal(o.restarts, 0);
}

/* Code beyond the L1 instruction cache whose runs right after the other
 * program's are slower (by a quarter here): nb runs each program's samples
 * after warm-up runs of its own, as nanoBench does, and reads its cost
 * after its own runs (taking turns, the first run of every sample was
 * such, and the pair read 2.03). */
static void test_big_code_runs_in_nanobench_order(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_big = true;
    g_cold_by = 0.5;
    double v = measure_pair(10, &o, NULL);
    if (!(fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(CYCLES_PER_COPY)))
        show(v, &o);
    assert_true(fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(CYCLES_PER_COPY));
}

/* Code beyond the L1 instruction cache, whose runs vary on their own: not
 * judged by its runs kept (nor started over for them). */
static void test_big_code_runs_not_judged(void **state)
{
    (void)state;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_big = true;
    g_disturb_until = ~0u;
    measure_pair(10, &o, NULL);
    assert_false(o.disturbed);
    assert_int_equal(o.restarts, 0);
    assert_true(tsc_disturbed(o.runs, o.kept, o.lead, o.lead_out));
}

/* One measurement of n samples (more than measure_pair's block holds) of
 * the 2-cycle chain in programs of 100 and 200 copies, the samples
 * aggregated by agg: measure()'s status; the samples of the first and the
 * second program in *block and *block + n (the caller frees it). */
static int measure_many(size_t n, nb_agg agg, tsc_outcome *o, double **block,
                        place_outcome *po)
{
    *block = malloc(6 * n * sizeof **block);
    assert_non_null(*block);
    double *b = *block, execs = COPIES_B - COPIES_A;
    pmu_counter ctr = {.name = "CORE_CYCLES", .read = PMU_READ_RDTSC, .width = 64, .scale = 1,
                       .tsc_cycles = true};
    bool ovf = false;
    run_state rs[2] = {
        {.p = &g_prog[0], .run = fake_run, .samples = b, .ratio = b + 2 * n,
         .add_ratio = b + 4 * n, .enough = INNER_EXEC / execs},
        {.p = &g_prog[1], .run = fake_run, .samples = b + n, .enough = INNER_EXEC / execs},
    };
    tsc_goal goal = {.execs = execs, .budget_ticks = 2e10, .agg = (int)agg};
    nb_error err = {0};
    int rc = measure(rs, 1, (long)n, &g_cp, 1, &ctr, &ovf, &goal, o, &err);
    if (rc || !po)
        return rc;
    place_job j = {.params = g_params, .copies = {COPIES_A, COPIES_B}, .loops = {0, 0},
                   .prog = {&g_prog[0], &g_prog[1]}, .rs = rs, .warm = 1, .n = (long)n,
                   .cp = &g_cp, .n_ctr = 1, .ctr = &ctr, .ovf = &ovf, .goal = &goal,
                   .doubles = 6 * n};
    return place_check(&j, o, po, &err);
}

/* More samples than the log holds (-n_measurements 200000: no run-level
 * estimate), the clock taking turns 10 % apart every 10 samples: each
 * sample read at the clock of the calibration nearest to it, and those
 * calibrations span all the samples (the first 4,096 of a chain were kept,
 * a few percent of them), so the samples' median difference is right; the
 * clock's move is in its half-width. */
static void test_unlogged_samples_at_their_clock(void **state)
{
    (void)state;
    const size_t n = TSC_LOG_DOUBLES + 4096;
    double *block, execs = COPIES_B - COPIES_A;
    tsc_outcome o;
    start(0.6, 0.66, 0, 20);
    assert_int_equal(measure_many(n, AGG_AVG, &o, &block, NULL), 0);
    assert_false(o.logged);
    double v = (stats_aggregate(block + n, n, AGG_AVG) - stats_aggregate(block, n, AGG_AVG)) /
               o.ratio / execs;
    free(block);
    if (!(fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(CYCLES_PER_COPY)) || !(o.drift > 0))
        print_message("value %f, clock %f +/- %f, moved %f\n", v, o.ratio, o.ratio_hw, o.drift);
    assert_true(o.drift > 0);
    assert_true(fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(CYCLES_PER_COPY));
    assert_true(CYCLES_PER_COPY * o.ratio_hw / o.ratio > tsc_tolerance(CYCLES_PER_COPY));
}

/* Many samples, all logged (12,000, one calibration beside each), the
 * core's clock 4 % slower after 70 % of the calibrations: the calibrations
 * kept span all the samples, so the move is seen (the value right after
 * starting over, or the move in its half-width).  Kept from the first
 * 4,096 of each chain only, they ended before it: unseen, and the last 30 %
 * of the runs read 4 % more ticks, within the window (an L1 load chain with
 * -n_measurements 60000 read 4.048 +/- 0.043, unflagged). */
static void test_many_samples_clock_spans_them(void **state)
{
    (void)state;
    const size_t n = 12000;
    double *block, execs = COPIES_B - COPIES_A;
    tsc_outcome o;
    start(0.6, 0.624, (unsigned)(2 * n * 7 / 10), 0);
    /* (the load probe, which times its loads in ticks at the end of the
     * pass, would see the slower clock as a shared load pipeline) */
    bool has_load = g_cp.has_load;
    g_cp.has_load = false;
    int rc = measure_many(n, AGG_AVG, &o, &block, NULL);
    g_cp.has_load = has_load;
    free(block);
    assert_int_equal(rc, 0);
    assert_true(o.logged);
    double v = o.diff[0] / o.ratio / execs, u = half_width(&o);
    if (!(fabs(v - CYCLES_PER_COPY) <= u) || !(fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(v)))
        show(v, &o);
    assert_true(fabs(v - CYCLES_PER_COPY) <= u);
    assert_true(fabs(v - CYCLES_PER_COPY) <= tsc_tolerance(CYCLES_PER_COPY));
}

/* More samples than the log holds, the ADD chain 5 % slow throughout
 * (another thread shares the core's ALUs): the half-width's part that the
 * samples' spread does not show is set all the same, against the samples'
 * difference: the harness context and TSC_SHARED_SPAN of the value (the
 * session adds it to the samples' own; without it one NOP with 1,000,000
 * samples read -0.01 unflagged, the same with 10,000 +/- 3.5). */
static void test_unlogged_fixed_part(void **state)
{
    (void)state;
    const size_t n = TSC_LOG_DOUBLES + 4096;
    double *block, execs = COPIES_B - COPIES_A;
    tsc_outcome o;
    start(0.6, 0.6, 0, 0);
    g_shared_until = ~0u;
    g_shared_by = 0.05;
    assert_int_equal(measure_many(n, AGG_MEDIAN, &o, &block, NULL), 0);
    assert_false(o.logged);
    double diff = stats_aggregate(block + n, n, AGG_MEDIAN) - stats_aggregate(block, n, AGG_MEDIAN);
    free(block);
    assert_true(fabs(o.diff[0] - diff) <= 1e-9 * fabs(diff));
    assert_true(fabs(diff / o.ratio / execs - CYCLES_PER_COPY) <= 0.1 * CYCLES_PER_COPY);
    double want = TSC_SHARED_SPAN * fabs(o.diff[0]) + TSC_CONTEXT_CYCLES * o.ratio;
    if (!(o.fixed[0] >= want * 0.999))
        print_message("fixed %f ticks, want %f (diff %f, ratio %f)\n", o.fixed[0], want,
                      o.diff[0], o.ratio);
    assert_true(o.fixed[0] >= want * 0.999);
    assert_true(o.context[0] >= TSC_CONTEXT_CYCLES);
}

/* More samples than the log holds, the second program slow where it lies
 * (2 cycles a copy more: 6.0 read for 2.0; less is within the linear
 * check's floor of 8 TSC steps here): not measured again elsewhere
 * (seconds again), but its probe finds it not linear there, and how far
 * that can move the difference joins the half-width's fixed part, covering
 * the miss (six ADDs with -n_measurements 200000 read 2.60 +/- 0.02 once in
 * six, unflagged, before); code linear where it lies gets nothing. */
static void test_unlogged_place_share(void **state)
{
    (void)state;
    const size_t n = TSC_LOG_DOUBLES + 4096;
    double *block, execs = COPIES_B - COPIES_A;
    tsc_outcome o;
    place_outcome po;
    start(0.6, 0.6, 0, 0);
    assert_int_equal(measure_many(n, AGG_AVG, &o, &block, &po), 0);
    free(block);
    assert_false(o.logged);
    assert_int_equal(po.placements, 1);
    assert_true(po.off == 0);
    double before = o.fixed[0];
    start(0.6, 0.6, 0, 0);
    g_slow_at = g_prog[1].base;
    g_slow_by = 2.0;
    assert_int_equal(measure_many(n, AGG_AVG, &o, &block, &po), 0);
    free(block);
    double v = o.diff[0] / o.ratio / execs, miss = (v - CYCLES_PER_COPY) * execs * o.ratio;
    if (!(fabs(v - 6.0) < 0.05) || !(o.fixed[0] - before >= miss))
        print_message("value %f, fixed %f ticks (%f before), miss %f, share %f\n", v, o.fixed[0],
                      before, miss, po.off);
    assert_true(fabs(v - 6.0) < 0.05);
    assert_int_equal(po.placements, 1);
    assert_false(po.moved);
    assert_true(o.fixed[0] - before >= miss);
    assert_true(po.off * o.diff[0] >= miss);
}

/* Data beyond an L1 data TLB's reach (place_data): a quarter of every value
 * read with rdtsc joins its half-width (the run's own in unc where logged,
 * the fixed part where not); counters the emulator counts exactly, and
 * data on PLACE_DATA_PAGES pages or fewer, are left alone. */
static void test_data_beyond_tlb_reach_widens(void **state)
{
    (void)state;
    pmu_counter ctr[3] = {
        {.name = "CORE_CYCLES", .read = PMU_READ_RDTSC, .tsc_cycles = true},
        {.name = "RDTSC", .read = PMU_READ_RDTSC},
        {.name = "INSTRUCTIONS", .read = PMU_READ_RDPMC},
    };
    place_job j = {.n_ctr = 3, .ctr = ctr};
    for (int logged = 0; logged < 2; logged++) {
        tsc_outcome to;
        memset(&to, 0, sizeof to);
        to.logged = logged;
        to.diff[0] = 1000;
        to.diff[1] = -600;
        to.diff[2] = 2000;
        to.unc[0] = to.unc[1] = 1;
        place_outcome po = {.placements = 1, .data_pages = PLACE_DATA_PAGES};
        place_data(&j, &to, &po);
        assert_true(to.unc[0] == 1 && to.unc[1] == 1 && to.unc[2] == 0);
        assert_true(to.fixed[0] == 0 && to.fixed[1] == 0 && to.fixed[2] == 0);
        po.data_pages = PLACE_DATA_PAGES + 1;
        place_data(&j, &to, &po);
        double *into = logged ? to.unc : to.fixed;
        double base = logged ? 1 : 0;
        assert_true(fabs(into[0] - (base + PLACE_DATA_SHARE * 1000)) < 1e-9);
        assert_true(fabs(into[1] - (base + PLACE_DATA_SHARE * 600)) < 1e-9);
        assert_true(to.unc[2] == 0 && to.fixed[2] == 0);
        if (!logged)
            assert_true(to.unc[0] == 1 && to.unc[1] == 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steady_clock),
        cmocka_unit_test(test_clock_moves_after_first_pass),
        cmocka_unit_test(test_clock_keeps_moving),
        cmocka_unit_test(test_clock_moves_within_few_calibrations),
        cmocka_unit_test(test_unlogged_samples_at_their_clock),
        cmocka_unit_test(test_unlogged_fixed_part),
        cmocka_unit_test(test_unlogged_place_share),
        cmocka_unit_test(test_many_samples_clock_spans_them),
        cmocka_unit_test(test_linear_code_is_placed_once),
        cmocka_unit_test(test_slow_placement_is_left),
        cmocka_unit_test(test_slow_first_program_is_left),
        cmocka_unit_test(test_chain_slow_by_a_few_ticks_is_left),
        cmocka_unit_test(test_second_slow_by_a_few_cycles_is_left),
        cmocka_unit_test(test_second_slow_within_the_check_is_not_pinned),
        cmocka_unit_test(test_slow_probe_is_timed_elsewhere),
        cmocka_unit_test(test_superlinear_code_keeps_its_place),
        cmocka_unit_test(test_basic_mode_slow_placement_is_left),
        cmocka_unit_test(test_loop_slow_placement_is_left),
        cmocka_unit_test(test_big_code_is_averaged),
        cmocka_unit_test(test_small_code_is_not_averaged),
        cmocka_unit_test(test_front_end_bound_code_is_compared),
        cmocka_unit_test(test_agreeing_places_are_averaged),
        cmocka_unit_test(test_front_end_bound_slow_place_is_left),
        cmocka_unit_test(test_small_front_end_bound_code_is_compared),
        cmocka_unit_test(test_loop_slow_place_is_compared),
        cmocka_unit_test(test_moved_place_is_compared),
        cmocka_unit_test(test_front_end_bound_context),
        cmocka_unit_test(test_need),
        cmocka_unit_test(test_shared_core_starts_over),
        cmocka_unit_test(test_shared_core_throughout),
        cmocka_unit_test(test_shared_core_waited_out),
        cmocka_unit_test(test_shared_core_outwaits_budget),
        cmocka_unit_test(test_shared_front_end_starts_over),
        cmocka_unit_test(test_shared_front_end_throughout),
        cmocka_unit_test(test_shared_front_end_against_earlier),
        cmocka_unit_test(test_chance_low_probe_not_kept),
        cmocka_unit_test(test_shared_loads_start_over),
        cmocka_unit_test(test_probes_without_avx),
        cmocka_unit_test(test_shared_ports_throughout),
        cmocka_unit_test(test_shared_ports_start_over),
        cmocka_unit_test(test_shared_loads_throughout),
        cmocka_unit_test(test_disturbed_runs_start_over),
        cmocka_unit_test(test_slow_stretch_is_in_the_half_width),
        cmocka_unit_test(test_disturbed_runs_throughout),
        cmocka_unit_test(test_big_code_runs_not_judged),
        cmocka_unit_test(test_cold_first_runs_not_disturbed),
        cmocka_unit_test(test_big_code_runs_in_nanobench_order),
        cmocka_unit_test(test_loop_whose_copies_cost_more_is_not_pinned),
        cmocka_unit_test(test_data_beyond_tlb_reach_widens),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
