/* Unit tests of src/mess: the chase permutation, the statistics, the three
 * writers on a synthetic result, and a tiny unloaded run (the -mess options'
 * parsing and errors: test_options.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mess/mess.h"
#include "sys/status.h"

/* Follows next[] from 0: every element once, back at 0 after exactly n. */
static void check_single_cycle(const uint32_t *next, uint32_t n)
{
    uint8_t *seen = calloc(n, 1);
    assert_non_null(seen);
    uint32_t p = 0;
    for (uint32_t k = 0; k < n; k++) {
        assert_true(p < n);
        assert_int_equal(seen[p], 0);
        seen[p] = 1;
        p = next[p];
    }
    assert_int_equal(p, 0);
    free(seen);
}

static void perm_is_one_cycle(void **state)
{
    (void)state;
    const uint32_t sizes[] = { 2, 3, 7, 64, 1000, 65537, 1u << 20 };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            uint32_t *next = malloc(sizes[i] * sizeof *next);
            assert_non_null(next);
            mess_chase_perm(next, sizes[i], seed);
            check_single_cycle(next, sizes[i]);
            /* no fixed point: every line leads somewhere else */
            for (uint32_t k = 0; k < sizes[i]; k++)
                assert_int_not_equal(next[k], k);
            free(next);
        }
}

static void perm_depends_on_seed(void **state)
{
    (void)state;
    uint32_t a[1000], b[1000];
    mess_chase_perm(a, 1000, 1);
    mess_chase_perm(b, 1000, 2);
    assert_memory_not_equal(a, b, sizeof a);
    mess_chase_perm(b, 1000, 1);
    assert_memory_equal(a, b, sizeof a);
}

static void chase_buffer_visits_every_line(void **state)
{
    (void)state;
    mess_buf b;
    assert_int_equal(mess_buf_alloc(&b, 4 << 20, true, NULL), 0);
    void *start;
    assert_int_equal(mess_chase_init(&b, 7, &start, NULL), 0);
    size_t lines = b.bytes / 64;
    uint8_t *seen = calloc(lines, 1);
    assert_non_null(seen);
    char *p = start;
    for (size_t k = 0; k < lines; k++) {
        size_t i = (size_t)(p - (char *)b.base) / 64;
        assert_true(i < lines);
        assert_int_equal((p - (char *)b.base) % 64, 0);
        assert_int_equal(seen[i], 0);
        seen[i] = 1;
        p = *(char **)p;
    }
    assert_ptr_equal(p, start);
    /* the unrolled walker goes round the same cycle: lines is a multiple of 16 */
    assert_int_equal(lines % 16, 0);
    assert_ptr_equal(mess_chase_walk(start, lines), start);
    assert_ptr_not_equal(mess_chase_walk(start, 16), start);
    free(seen);
    mess_buf_free(&b);
}

static void outliers_beyond_three_sigma(void **state)
{
    (void)state;
    double x[21];
    bool keep[21];
    for (int i = 0; i < 20; i++)
        x[i] = 100 + (i % 2 ? 1 : -1);
    x[20] = 1000;
    assert_int_equal(mess_stats_outliers(x, 21, keep), 20);
    assert_false(keep[20]);
    assert_true(keep[0]);
    double y[3] = { 1, 2, 30 };   /* with 3 values nothing is ever > 3 sigma */
    assert_int_equal(mess_stats_outliers(y, 3, keep), 3);
    double m, sd;
    mess_stats_mean_sd(y, NULL, 3, &m, &sd);
    assert_float_equal(m, 11, 1e-12);
    assert_float_equal(sd, sqrt(((10 * 10) + (9 * 9) + (19 * 19)) / 2.0), 1e-9);
}

static void savgol_classic_coefficients(void **state)
{
    (void)state;
    /* A unit impulse through the 5-point quadratic filter gives the textbook
     * weights (-3, 12, 17, 12, -3) / 35 around it. */
    double y[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 0 }, out[9];
    assert_int_equal(mess_savgol(y, 9, 5, 2, out), 0);
    assert_float_equal(out[4], 17.0 / 35, 1e-12);
    assert_float_equal(out[3], 12.0 / 35, 1e-12);
    assert_float_equal(out[2], -3.0 / 35, 1e-12);
    /* polynomials of the filter's order pass unchanged, ends included */
    double q[7], qo[7];
    for (int i = 0; i < 7; i++)
        q[i] = 3 - 2 * i + 0.5 * i * i;
    assert_int_equal(mess_savgol(q, 7, 5, 2, qo), 0);
    for (int i = 0; i < 7; i++)
        assert_float_equal(qo[i], q[i], 1e-9);
    /* a window longer than the data shrinks: 2 points, window 5 -> 1 */
    double two[2] = { 1, 5 }, to[2];
    assert_int_equal(mess_savgol(two, 2, 5, 2, to), 0);
    assert_float_equal(to[0], 1, 1e-12);
    assert_float_equal(to[1], 5, 1e-12);
}

static void interp_between_points(void **state)
{
    (void)state;
    double bw[3] = { 0, 10, 20 }, lat[3] = { 100, 120, 200 };
    assert_float_equal(mess_interp(bw, lat, 3, 15), 160, 1e-12);
    assert_float_equal(mess_interp(bw, lat, 3, 10), 120, 1e-12);
    assert_true(isnan(mess_interp(bw, lat, 3, 25)));
}

/* A result with two mixes x three pads and made-up numbers. */
static mess_result *synthetic(void)
{
    static int mixes[2] = { 100, 0 }, pads[3] = { 0, 16, 1024 }, cpus[1] = { 1 };
    static mess_point pts[6];
    static double reps[7][9];
    static mess_result r;
    memset(&r, 0, sizeof r);
    strcpy(r.m.vendor, "AuthenticAMD");
    strcpy(r.m.brand, "Test <CPU> & co");
    r.m.tsc_ghz = 2;
    r.m.core_ghz = 4;
    r.m.smt = -1;
    r.nmix = 2;
    r.npad = 3;
    r.mixes = mixes;
    r.pads = pads;
    r.ngen = 1;
    r.gen_cpus = cpus;
    r.reps = 3;
    r.sg_window = 5;
    r.sg_order = 2;
    r.pts = pts;
    mess_point *all[7] = { &r.unloaded, &pts[0], &pts[1], &pts[2], &pts[3], &pts[4], &pts[5] };
    for (int i = 0; i < 7; i++) {
        mess_point *p = all[i];
        memset(p, 0, sizeof *p);
        p->rep_bw = reps[i];
        p->rep_ns = reps[i] + 3;
        p->rep_cyc = reps[i] + 6;
        p->reps = 3;
        p->read_pct = i == 0 ? -1 : mixes[(i - 1) / 3];
        p->pad = i == 0 ? MESS_UNLOADED : pads[(i - 1) % 3];
        double bw = i == 0 ? 0 : 30.0 / (1 + p->pad) * (p->read_pct ? 1 : 1.5);
        for (int k = 0; k < 3; k++) {
            p->rep_bw[k] = bw + 0.1 * k;
            p->rep_ns[k] = 100 + 2 * bw + k;
            p->rep_cyc[k] = p->rep_ns[k] * 4;
        }
    }
    r.measured = r.total = 21;
    mess_result_reduce(&r);
    return &r;
}

static char *slurp(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    return s;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static void reduce_and_summary(void **state)
{
    (void)state;
    mess_result *r = synthetic();
    assert_int_equal(r->unloaded.kept, 3);
    assert_float_equal(r->unloaded.ns, 101, 1e-9);
    assert_float_equal(r->peak_bw, 45.1, 1e-9);   /* 0 % read, pad 0 */
    assert_int_equal(r->peak_mix, 0);
    assert_int_equal(r->peak_pad, 0);
    /* 90 % of the peak lies between the pad-16 and pad-0 points of that curve */
    assert_true(r->lat90_ns > r->pts[4].ns && r->lat90_ns < r->pts[3].ns);
}

static void writers_are_well_formed(void **state)
{
    (void)state;
    mess_result *r = synthetic();
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(mess_write_svg(f, r), 0);
    char *svg = slurp(f);
    assert_int_equal(count(svg, "<path"), 2);
    assert_int_equal(count(svg, "<circle"), 6);
    assert_non_null(strstr(svg, "unloaded 101.0 ns"));
    assert_non_null(strstr(svg, "peak 45.10 GB/s"));
    assert_non_null(strstr(svg, "Test &lt;CPU&gt; &amp; co"));
    assert_non_null(strstr(svg, "</svg>"));
    free(svg);
    fclose(f);

    f = tmpfile();
    assert_int_equal(mess_write_csv(f, r), 0);
    char *csv = slurp(f);
    assert_int_equal(count(csv, "\n"), 1 + 1 + 6);
    assert_non_null(strstr(csv, "\nunloaded,idle,0.100,101.00,404.0,3,3,"));
    assert_non_null(strstr(csv, "\n0/100,0,45.100,"));
    free(csv);
    fclose(f);

    f = tmpfile();
    assert_int_equal(mess_write_json(f, r), 0);
    char *js = slurp(f);
    assert_int_equal(count(js, "{\"mix\""), 7);
    assert_non_null(strstr(js, "\"vendor\": \"AuthenticAMD\""));
    assert_non_null(strstr(js, "\"smt\": null"));
    assert_non_null(strstr(js, "\"peak_bandwidth_gbs\": 45.100"));
    /* braces and brackets balance */
    int depth = 0;
    for (char *p = js; *p; p++) {
        depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
        assert_true(depth >= 0);
    }
    assert_int_equal(depth, 0);
    free(js);
    fclose(f);
}

static void tiny_unloaded_run(void **state)
{
    (void)state;
    char dir[] = "/tmp/nb_mess_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s/u", dir);
    mess_options o;
    mess_options_defaults(&o);
    o.unloaded = true;
    o.size = 8 << 20;
    o.reps = 2;
    o.settle_ms = 0;
    o.time_ms = 20;
    o.quiet = true;
    o.out = prefix;
    nb_error err;
    nb_error_clear(&err);
    int rc = mess_main(&o, &err);
    if (rc)
        fail_msg("mess_main: %d: %s", rc, err.message);
    char path[96];
    snprintf(path, sizeof path, "%s.csv", prefix);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(fgets(line, sizeof line, f));
    double ns = 0;
    assert_int_equal(sscanf(line, "unloaded,idle,%*[^,],%lf", &ns), 1);
    /* a load from anywhere takes more than a nanosecond and less than 10 us */
    assert_true(ns > 1 && ns < 10000);
    fclose(f);
    const char *ext[] = { "csv", "json", "svg" };
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s.%s", prefix, ext[i]);
        assert_int_equal(unlink(path), 0);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(perm_is_one_cycle),
        cmocka_unit_test(perm_depends_on_seed),
        cmocka_unit_test(chase_buffer_visits_every_line),
        cmocka_unit_test(outliers_beyond_three_sigma),
        cmocka_unit_test(savgol_classic_coefficients),
        cmocka_unit_test(interp_between_points),
        cmocka_unit_test(reduce_and_summary),
        cmocka_unit_test(writers_are_well_formed),
        cmocka_unit_test(tiny_unloaded_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
