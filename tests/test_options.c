/* Option table: defaults, abbreviation, validation, conflicts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cli/options.h"
#include "sys/status.h"

static nb_error e;
static const char *err = e.message;

static int parse(nb_options *o, int argc, const char **argv)
{
    options_defaults(o);
    nb_error_clear(&e);
    return options_parse(argc, (char **)argv, 0, o, &e);
}

static void test_defaults(void **state)
{
    (void)state;
    nb_options o;
    options_defaults(&o);
    assert_int_equal(o.n_measurements, 10);
    assert_int_equal(o.unroll_count, 1000);
    assert_int_equal(o.loop_count, 0);
    assert_int_equal(o.warm_up_count, 5);
    assert_int_equal(o.initial_warm_up_count, 0);
    assert_int_equal(o.usr, 1);
    assert_int_equal(o.os, 0);
    assert_int_equal(o.cpu, -1);
    assert_int_equal(o.agg, AGG_AVG);
    assert_int_equal(o.r14_size, 0);   /* nanoBench's 1 MB, R14 in the middle */
}

static void test_prefix_prefers_nanobench_options(void **state)
{
    (void)state;
    nb_options o;
    const char *a[] = {"-l", "7", "-unr", "3", "-med"};
    assert_int_equal(parse(&o, 5, a), 0);
    assert_int_equal(o.loop_count, 7);
    assert_int_equal(o.unroll_count, 3);
    assert_int_equal(o.agg, AGG_MEDIAN);
}

static void test_exact_name_wins(void **state)
{
    (void)state;
    nb_options o;
    const char *a[] = {"-min", "-asm", "nop", "-cpu", "1"};
    assert_int_equal(parse(&o, 5, a), 0);
    assert_int_equal(o.agg, AGG_MIN);
    assert_string_equal(o.asm_code, "nop");
    assert_int_equal(o.cpu, 1);
}

static void test_ambiguous_lists_candidates(void **state)
{
    (void)state;
    nb_options o;
    const char *a[] = {"-asm_", "x"};
    assert_int_equal(parse(&o, 2, a), NB_EUSAGE);
    assert_non_null(strstr(err, "ambiguous"));
    assert_non_null(strstr(err, "-asm_init"));
    assert_non_null(strstr(err, "-asm_late_init"));
}

static void test_unknown_option(void **state)
{
    (void)state;
    nb_options o;
    const char *a[] = {"-bogus"};
    assert_int_equal(parse(&o, 1, a), NB_EUSAGE);
    assert_non_null(strstr(err, "unknown option '-bogus'"));
}

static void test_bad_numbers(void **state)
{
    (void)state;
    nb_options o;
    const char *cases[][2] = {
        {"-n_measurements", "0"}, {"-unroll_count", "-5"}, {"-loop_count", "abc"},
        {"-warm_up_count", "99999999999999999999999"}, {"-usr", "2"}, {"-cpu", "1x"},
        {"-alignment_offset", "4096"}, {"-timeout", "-1"}, {"-r14_size", "12Q"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *a[] = {cases[i][0], cases[i][1]};
        assert_int_equal(parse(&o, 2, a), NB_EUSAGE);
        /* the message names the option */
        assert_non_null(strstr(err, cases[i][0]));
    }
}

static void test_missing_value(void **state)
{
    (void)state;
    nb_options o;
    const char *a[] = {"-unroll_count"};
    assert_int_equal(parse(&o, 1, a), NB_EUSAGE);
    assert_non_null(strstr(err, "needs a value"));
}

static void test_sizes_and_enums(void **state)
{
    (void)state;
    nb_options o;
    const char *a[] = {"-r14_size", "64M", "-output", "json", "-backend", "tsc", "-timeout", "2.5"};
    assert_int_equal(parse(&o, 8, a), 0);
    assert_int_equal(o.r14_size, 64L << 20);
    assert_int_equal(o.output, OUTPUT_JSON);
    assert_int_equal(o.backend, PMU_BACKEND_TSC);
    assert_true(o.timeout > 2.4 && o.timeout < 2.6);
    const char *b[] = {"-output", "xml"};
    assert_int_equal(parse(&o, 2, b), NB_EUSAGE);
    assert_non_null(strstr(err, "text|csv|json"));
}

static void test_conflicts(void **state)
{
    (void)state;
    nb_options o;
    const char *a[] = {"-asm", "nop", "-code", "f.bin"};
    assert_int_equal(parse(&o, 4, a), NB_EUSAGE);
    assert_non_null(strstr(err, "-asm and -code"));
    const char *b[] = {"-usr", "0", "-os", "0"};
    assert_int_equal(parse(&o, 4, b), NB_EUSAGE);
    const char *c[] = {"-asm", ""};
    assert_int_equal(parse(&o, 2, c), NB_EUSAGE);
    assert_non_null(strstr(err, "empty"));
}

static void test_list_events_optional_value(void **state)
{
    (void)state;
    nb_options o;
    const char *a[] = {"-list_events", "UOPS", "-verbose"};
    assert_int_equal(parse(&o, 3, a), 0);
    assert_true(o.list_events);
    assert_string_equal(o.list_events_filter, "UOPS");
    assert_true(o.verbose);
    const char *b[] = {"-list_events", "-verbose"};
    assert_int_equal(parse(&o, 2, b), 0);
    assert_null(o.list_events_filter);
}


static int parse_mess(mess_options *m, int argc, const char **argv)
{
    mess_options_defaults(m);
    nb_error_clear(&e);
    return options_parse_mess(argc, (char **)argv, 0, m, &e);
}

/* Every -mess option lands in its mess_options field. */
static void test_mess_options(void **state)
{
    (void)state;
    mess_options m;
    const char *argv[] = {"-mess", "-mess_size", "64M", "-mess_gen_size", "1G", "-mess_cpu", "1",
                          "-mess_gen_cpus", "0,2-4", "-mess_mixes", "100,0", "-mess_pads",
                          "0,64", "-mess_pad", "pause", "-mess_reps", "2", "-mess_settle", "0",
                          "-mess_time", "20", "-mess_sg", "7,3", "-mess_out", "x",
                          "-mess_no_huge", "-mess_unloaded", "-mess_seed", "0x10",
                          "-mess_quiet"};
    assert_int_equal(parse_mess(&m, (int)(sizeof argv / sizeof *argv), argv), 0);
    assert_int_equal(m.size, 64L << 20);
    assert_int_equal(m.gen_size, 1L << 30);
    assert_int_equal(m.cpu, 1);
    assert_int_equal(m.n_gen_cpus, 4);
    assert_int_equal(m.gen_cpus[0], 0);
    assert_int_equal(m.gen_cpus[3], 4);
    assert_int_equal(m.n_mixes, 2);
    assert_int_equal(m.mixes[1], 0);
    assert_int_equal(m.n_pads, 2);
    assert_int_equal(m.pads[1], 64);
    assert_int_equal(m.pad, MESS_PAD_PAUSE);
    assert_int_equal(m.reps, 2);
    assert_int_equal(m.settle_ms, 0);
    assert_int_equal(m.time_ms, 20);
    assert_int_equal(m.n_sg, 2);
    assert_int_equal(m.sg[1], 3);
    assert_string_equal(m.out, "x");
    assert_true(m.no_huge && m.unloaded && m.quiet);
    assert_int_equal(m.seed, 16);
    /* the defaults are Mess's */
    assert_int_equal(parse_mess(&m, 1, argv), 0);
    assert_int_equal(m.cpu, -1);
    assert_int_equal(m.n_gen_cpus, -1);
    assert_int_equal(m.n_mixes, 7);
    assert_int_equal(m.pad, MESS_PAD_NOP);
    assert_int_equal(m.reps, 3);
    assert_string_equal(m.out, "mess");
}

/* A bad -mess value is a usage error that names the option. */
static void test_mess_errors_name_the_option(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"-mess_size", "12Q"}, {"-mess_size", "0"}, {"-mess_reps", "0"},
        {"-mess_mixes", "101"}, {"-mess_pad", "hlt"}, {"-mess_sg", "4"}, {"-mess_sg", "5,5"},
        {"-mess_sg", "5,1,1"}, {"-mess_gen_cpus", "1-"}, {"-mess_mixes", "1,,2"},
        {"-mess_seed", "abc"}, {"-mess_out", ""},
    };
    mess_options m;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *argv[] = {"-mess", bad[i][0], bad[i][1]};
        assert_int_equal(parse_mess(&m, 3, argv), NB_EUSAGE);
        assert_non_null(strstr(err, bad[i][0]));
    }
    const char *missing[] = {"-mess", "-mess_time"};
    assert_int_equal(parse_mess(&m, 2, missing), NB_EUSAGE);
    assert_non_null(strstr(err, "needs a value"));
    /* only -mess options after -mess; they are unknown without it */
    const char *other[] = {"-mess", "-asm", "nop"};
    assert_int_equal(parse_mess(&m, 3, other), NB_EUSAGE);
    assert_string_equal(e.origin, "-asm");
    assert_string_equal(err, "is not a -mess option (see -mess_help)");
    nb_options o;
    const char *plain[] = {"-asm", "nop", "-mess_size", "1M"};
    assert_int_equal(parse(&o, 4, plain), NB_EUSAGE);
    assert_non_null(strstr(err, "unknown option '-mess_size'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_prefix_prefers_nanobench_options),
        cmocka_unit_test(test_exact_name_wins),
        cmocka_unit_test(test_ambiguous_lists_candidates),
        cmocka_unit_test(test_unknown_option),
        cmocka_unit_test(test_bad_numbers),
        cmocka_unit_test(test_missing_value),
        cmocka_unit_test(test_sizes_and_enums),
        cmocka_unit_test(test_conflicts),
        cmocka_unit_test(test_list_events_optional_value),
        cmocka_unit_test(test_mess_options),
        cmocka_unit_test(test_mess_errors_name_the_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
