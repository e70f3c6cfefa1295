/* Tests for src/config.c: nanoBench's config syntax, every field, the msr
 * format, and diagnostics that point at FILE:LINE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "events/config.h"
#include "sys/error.h"
#include "sys/status.h"

static nb_event parse_ok(const char *spec)
{
    nb_event ev;
    nb_error err;
    int rc = event_parse_spec(spec, NULL, &ev, &err);
    if (rc)
        fail_msg("'%s': %s", spec, err.message);
    return ev;
}

static void test_plain_event(void **state)
{
    (void)state;
    nb_event ev = parse_ok("0E.01 UOPS_ISSUED.ANY");
    assert_int_equal(ev.evtsel, 0x0E);
    assert_int_equal(ev.umask, 0x01);
    assert_string_equal(ev.name, "UOPS_ISSUED.ANY");
    assert_int_equal(ev.cmask, 0);
    assert_false(ev.any || ev.edge || ev.inv || ev.taken_alone);
    assert_int_equal(ev.ctr, -1);
    assert_false(ev.has_msr_3f6h || ev.has_msr_pf || ev.has_msr_rsp0 || ev.has_msr_rsp1);
}

static void test_spec_without_name_names_itself(void **state)
{
    (void)state;
    nb_event ev = parse_ok("a3.4.CMSK=4");
    assert_int_equal(ev.evtsel, 0xA3);
    assert_int_equal(ev.umask, 0x04);
    assert_int_equal(ev.cmask, 4);
    assert_string_equal(ev.name, "a3.4.CMSK=4");
}

static void test_explicit_name_wins(void **state)
{
    (void)state;
    nb_event ev;
    nb_error err;
    assert_int_equal(event_parse_spec("C0.00", "INSTR", &ev, &err), 0);
    assert_string_equal(ev.name, "INSTR");
}

static void test_amd_three_digit_select(void **state)
{
    (void)state;
    nb_event ev = parse_ok("1C0.01 EX_RET_X");
    assert_int_equal(ev.evtsel, 0x1C0);
    assert_int_equal(ev.umask, 0x01);
    ev = parse_ok("0C0.00 EX_RET_INSTR");
    assert_int_equal(ev.evtsel, 0xC0);
}

static void test_every_field(void **state)
{
    (void)state;
    nb_event ev = parse_ok("B7.01.CMSK=3.AnyT.EDG.INV.TakenAlone.CTR=2.MSR_3F6H=0x3."
                           "MSR_PF=0x11.MSR_RSP0=0x10001.MSR_RSP1=65536 X");
    assert_int_equal(ev.evtsel, 0xB7);
    assert_int_equal(ev.cmask, 3);
    assert_true(ev.any);
    assert_true(ev.edge);
    assert_true(ev.inv);
    assert_true(ev.taken_alone);
    assert_int_equal(ev.ctr, 2);
    assert_true(ev.has_msr_3f6h);
    assert_int_equal(ev.msr_3f6h, 3);
    assert_true(ev.has_msr_pf);
    assert_int_equal(ev.msr_pf, 0x11);
    assert_true(ev.has_msr_rsp0);
    assert_int_equal(ev.msr_rsp0, 0x10001);
    assert_true(ev.has_msr_rsp1);
    assert_int_equal(ev.msr_rsp1, 0x10000);
}

static void test_format_round_trip(void **state)
{
    (void)state;
    const char *specs[] = {"0E.01", "A3.14.CMSK=20", "C6.01.TakenAlone.MSR_PF=0x11",
                           "B7.01.MSR_RSP0=0x10001", "BB.01.MSR_RSP1=0x3FBFC00004",
                           "CD.01.MSR_3F6H=0x4", "3C.00.CMSK=1.AnyT.EDG.INV.CTR=0",
                           "1C0.01", "076.00"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        nb_event a = parse_ok(specs[i]), b;
        char buf[256];
        event_format_spec(&a, buf, sizeof buf);
        b = parse_ok(buf);
        strcpy(b.name, a.name);
        assert_memory_equal(&a, &b, sizeof a);
    }
    char buf[64];
    nb_event ev = parse_ok("076.00");
    event_format_spec(&ev, buf, sizeof buf);
    assert_string_equal(buf, "76.00");
    ev = parse_ok("1C0.1");
    event_format_spec(&ev, buf, sizeof buf);
    assert_string_equal(buf, "1C0.01");
}

static void expect_spec_error(const char *spec, const char *needle)
{
    nb_event ev;
    nb_error err;
    assert_int_equal(event_parse_spec(spec, NULL, &ev, &err), NB_EINPUT);
    if (!strstr(err.message, needle))
        fail_msg("'%s': message '%s' lacks '%s'", spec, err.message, needle);
}

static void test_spec_errors(void **state)
{
    (void)state;
    expect_spec_error("", "empty");
    expect_spec_error("0E", "EvtSel.UMASK");
    expect_spec_error("1234.01", "event select");
    expect_spec_error("ZZ.01", "event select");
    expect_spec_error("0E.100", "umask");
    expect_spec_error("0E.", "umask");
    expect_spec_error("0E.01.CMSK=256", "CMSK");
    expect_spec_error("0E.01.CMSK=x", "CMSK");
    expect_spec_error("0E.01.CTR=9x", "CTR");
    expect_spec_error("0E.01.CMSK=08", "CMSK");   /* base 0: a leading 0 is octal */
    expect_spec_error("0E.01.MSR_RSP0=0xZ", "MSR_RSP0");
    expect_spec_error("0E.01.FOO", "unknown modifier 'FOO'");
    expect_spec_error("0E.01..INV", "empty modifier");
    expect_spec_error("0E.01.INV.", "empty modifier");
}

static void test_config_text_with_comments(void **state)
{
    (void)state;
    const char *text = "# a comment line\n"
                       "\n"
                       "0E.01 UOPS_ISSUED.ANY   # Uops issued\n"
                       "   A1.01\tUOPS_DISPATCHED_PORT.PORT_0  \r\n"
                       "C0.00 INST_RETIRED.ANY_P";   /* no final newline */
    nb_event_list l = {0};
    nb_error err;
    assert_int_equal(config_parse_text(text, "t.txt", &l, &err), 0);
    assert_int_equal(l.n, 3);
    assert_string_equal(l.v[0].name, "UOPS_ISSUED.ANY");
    assert_string_equal(l.v[1].name, "UOPS_DISPATCHED_PORT.PORT_0");
    assert_int_equal(l.v[1].evtsel, 0xA1);
    assert_int_equal(l.v[2].evtsel, 0xC0);
    event_list_free(&l);
}

static void expect_config_error(const char *text, int line, const char *needle)
{
    nb_event_list l = {0};
    nb_error err;
    assert_int_equal(config_parse_text(text, "cfg.txt", &l, &err), NB_EINPUT);
    assert_string_equal(err.origin, "cfg.txt");
    assert_int_equal(err.line, line);
    if (!strstr(err.message, needle))
        fail_msg("message '%s' lacks '%s'", err.message, needle);
    event_list_free(&l);
}

static void test_config_errors_name_the_line(void **state)
{
    (void)state;
    expect_config_error("\n\nXX.01 A\n", 3, "event select");
    expect_config_error("0E.01 A\n0E.01.CMSK=9 B\n0E.01.CMSK=x C\n", 3, "CMSK");
}

typedef struct {
    int seen;
    const char *want[4];   /* expected comment per event, in order */
} walk_expect;

static int count_cb(void *ctx, const nb_event *ev, int line, const char *comment)
{
    (void)ev;
    (void)line;
    walk_expect *w = ctx;
    assert_true(w->seen < 4);
    assert_string_equal(comment, w->want[w->seen]);
    w->seen++;
    return 0;
}

static int reject_cb(void *ctx, const nb_event *ev, int line, const char *comment)
{
    (void)ctx;
    (void)line;
    (void)comment;
    return strcmp(ev->name, "BAD") ? 0 : NB_EINPUT;
}

static void test_walk_passes_comments_and_stops(void **state)
{
    (void)state;
    nb_error err;
    walk_expect w1 = {0, {"first one", ""}};
    assert_int_equal(config_walk_text("#x\n\n0E.01 A #  first one \n0E.02 B\n", "w", count_cb,
                                      &w1, &err), 0);
    assert_int_equal(w1.seen, 2);
    /* A comment line right above describes the event (nanoBench's style);
     * a blank line or an event in between breaks that; a trailing comment
     * wins over the line above. */
    walk_expect w2 = {0, {"first one", "", "own", ""}};
    assert_int_equal(config_walk_text("# hdr\n#  first one\n0E.01 A\n0E.02 B\n# above\n"
                                      "0E.03 C # own\n# gone\n\n0E.04 D\n", "w",
                                      count_cb, &w2, &err), 0);
    assert_int_equal(w2.seen, 4);
    assert_int_equal(config_walk_text("0E.01 A\n0E.02 BAD\n", "w", reject_cb, NULL, &err),
                     NB_EINPUT);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.message, "BAD"));
}

static void test_apply_modifiers(void **state)
{
    (void)state;
    nb_event ev = parse_ok("0E.01 UOPS_ISSUED.ANY");
    nb_error err;
    assert_int_equal(event_apply_modifiers("CMSK=1.INV", &ev, &err), 0);
    assert_int_equal(ev.cmask, 1);
    assert_true(ev.inv);
    assert_int_equal(event_apply_modifiers("cmsk=2.edg", &ev, &err), 0);
    assert_int_equal(ev.cmask, 2);
    assert_true(ev.edge);
    assert_int_equal(event_apply_modifiers("NOPE", &ev, &err), NB_EINPUT);
}

static void test_config_file_and_missing_file(void **state)
{
    (void)state;
    char path[] = "/tmp/nb_test_config_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "3C.00 CORE_CYCLES\nC0.00 INST\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    nb_event_list l = {0};
    nb_error err;
    assert_int_equal(config_parse_file(path, &l, &err), 0);
    assert_int_equal(l.n, 2);
    event_list_free(&l);
    unlink(path);
    assert_int_equal(config_parse_file(path, &l, &err), NB_EINPUT);
    char want[128];
    snprintf(want, sizeof want, "%s: cannot open: ", path);   /* file_read_all's words */
    assert_non_null(strstr(err.message, want));
}

static void test_msr_config(void **state)
{
    (void)state;
    const char *text = "# uncore and RAPL\n"
                       "msr_0xE01=0x20000000.msr_700=0x408F34 msr_706 LLC_LOOKUP_CBO_0\n"
                       "msr_0x611 PKG_ENERGY   # read-only: no writes\n"
                       "msr_C001029A CORE_ENERGY\n";
    nb_msr_event_list l = {0};
    nb_error err;
    assert_int_equal(msr_config_parse_text(text, "m.txt", &l, &err), 0);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.v[0].n_writes, 2);
    assert_int_equal(l.v[0].write_msr[0], 0xE01);
    assert_int_equal(l.v[0].write_val[0], 0x20000000);
    assert_int_equal(l.v[0].write_msr[1], 0x700);
    assert_int_equal(l.v[0].write_val[1], 0x408F34);
    assert_int_equal(l.v[0].read_msr, 0x706);
    assert_string_equal(l.v[0].name, "LLC_LOOKUP_CBO_0");
    assert_int_equal(l.v[1].n_writes, 0);
    assert_int_equal(l.v[1].read_msr, 0x611);
    assert_int_equal(l.v[2].read_msr, 0xC001029A);
    char buf[256];
    msr_event_format(&l.v[0], buf, sizeof buf);
    assert_string_equal(buf, "msr_0xE01=0x20000000.msr_0x700=0x408F34 msr_0x706 LLC_LOOKUP_CBO_0");
    msr_event_format(&l.v[1], buf, sizeof buf);
    assert_string_equal(buf, "msr_0x611 PKG_ENERGY");
    msr_event_list_free(&l);
}

static void expect_msr_error(const char *text, int line, const char *needle)
{
    nb_msr_event_list l = {0};
    nb_error err;
    assert_int_equal(msr_config_parse_text(text, "m.txt", &l, &err), NB_EINPUT);
    assert_int_equal(err.line, line);
    if (!strstr(err.message, needle))
        fail_msg("message '%s' lacks '%s'", err.message, needle);
    msr_event_list_free(&l);
}

static void test_msr_errors(void **state)
{
    (void)state;
    expect_msr_error("msr_611\n", 1, "wants");
    expect_msr_error("\nmsr_zz N\n", 2, "bad msr to read");
    expect_msr_error("msr_700 msr_706 N\n", 1, "msr_ADDR=VALUE");
    expect_msr_error("msr_700=0xQ msr_706 N\n", 1, "bad msr value");
    expect_msr_error("foo=1 msr_706 N\n", 1, "bad msr address");
    expect_msr_error("msr_700=1 msr_706 N extra\n", 1, "unexpected text");
    expect_msr_error("msr_1=1.msr_2=1.msr_3=1.msr_4=1.msr_5=1.msr_6=1.msr_7=1.msr_8=1.msr_9=1 "
                     "msr_706 N\n", 1, "more than");
}


static void test_msr_spec_alone(void **state)
{
    (void)state;
    nb_msr_event ev;
    nb_error err;
    assert_int_equal(msr_event_parse_spec("msr_0xE01=0x2.msr_700=4 msr_706", &ev, &err), 0);
    assert_int_equal(ev.n_writes, 2);
    assert_int_equal(ev.write_val[1], 4);
    assert_int_equal(ev.read_msr, 0x706);
    assert_int_equal(msr_event_parse_spec("msr_611", &ev, &err), 0);
    assert_int_equal(ev.n_writes, 0);
    assert_int_equal(ev.read_msr, 0x611);
    assert_int_equal(msr_event_parse_spec("msr_611 msr_612 x", &ev, &err), NB_EINPUT);
    assert_int_equal(msr_event_parse_spec("", &ev, &err), NB_EINPUT);
}

/* Mutated config text (deterministic xorshift) must never crash, must fail
 * only with NB_EINPUT and a message naming a line, and whatever parses must
 * format and parse back to the same event.  Run under `make asan` this is
 * the parser's fuzz test. */
static uint32_t rng_state = 0x9E3779B9u;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static void test_mutated_configs(void **state)
{
    (void)state;
    static const char *const seeds[] = {
        "0E.01 UOPS_ISSUED.ANY\n",
        "B7.01.CMSK=3.AnyT.EDG.INV.TakenAlone.CTR=2.MSR_RSP0=0x10001 X # c\n",
        "1C0.01.MSR_3F6H=4.MSR_PF=0x11.MSR_RSP1=7 Y\n# d\nC0.00 Z\n",
    };
    static const char alphabet[] = "0123456789ABCDEFx.=# \n\tCMSKTRINVEDGAnyTakenMSR_PF3F6HRSP01";
    int ok = 0, bad = 0;
    FILE *quiet = fopen("/dev/null", "w");   /* mutated modifiers draw warnings */
    nb_diag_redirect(quiet);
    for (int iter = 0; iter < 20000; iter++) {
        char buf[160];
        const char *seed = seeds[rng() % 3];
        size_t n = strlen(seed);
        memcpy(buf, seed, n + 1);
        for (int m = 1 + (int)(rng() % 4); m > 0; m--) {
            size_t at = rng() % (n + 1);
            switch (rng() % 3) {
            case 0:   /* replace */
                if (at < n)
                    buf[at] = alphabet[rng() % (sizeof alphabet - 1)];
                break;
            case 1:   /* delete */
                if (at < n) {
                    memmove(buf + at, buf + at + 1, n - at);
                    n--;
                }
                break;
            default:  /* insert */
                if (n + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, n - at + 1);
                    buf[at] = alphabet[rng() % (sizeof alphabet - 1)];
                    n++;
                }
            }
        }
        nb_event_list l = {0};
        nb_error err;
        int rc = config_parse_text(buf, "fuzz", &l, &err);
        if (rc) {
            assert_int_equal(rc, NB_EINPUT);
            assert_true(err.line >= 1);
            assert_true(err.message[0] != '\0');
            bad++;
        } else {
            for (size_t i = 0; i < l.n; i++) {
                char spec[256];
                nb_event back;
                event_format_spec(&l.v[i], spec, sizeof spec);
                assert_int_equal(event_parse_spec(spec, l.v[i].name, &back, &err), 0);
                assert_memory_equal(&back, &l.v[i], sizeof back);
            }
            ok++;
        }
        event_list_free(&l);
    }
    nb_diag_redirect(NULL);
    if (quiet)
        fclose(quiet);
    assert_true(ok > 100 && bad > 100);   /* the mutations reach both outcomes */
}

/* Config lines as nanoBench reads them (parse_counter_configs): the rest of
 * the line is the name, a line without one is named by its spec, modifier
 * values are base-0 numbers, unknown and empty modifiers are ignored with a
 * warning (each warning names FILE:LINE). */
static char *parse_with_diag(const char *text, nb_event_list *l)
{
    char *msg = NULL;
    size_t len = 0;
    FILE *diag = open_memstream(&msg, &len);
    assert_non_null(diag);
    nb_diag_redirect(diag);
    nb_error err;
    int rc = config_parse_text(text, "g.cfg", l, &err);
    nb_diag_redirect(NULL);
    fclose(diag);
    if (rc)
        fail_msg("rejected: %s:%d: %s", err.origin, err.line, err.message);
    return msg;
}

static void test_grammar_as_nanobench_reads_it(void **state)
{
    (void)state;
    nb_event_list l = {0};
    char *msg = parse_with_diag("0E.01 UOPS ISSUED (any)  \n"
                                "C0.00\n"
                                "0x0E.0x01.CMSK=010.CTR=0x2.MSR_RSP0=0x10001.MSR_PF=017 NUM\n"
                                "0E.01.FOO=1.INV UNK\n"
                                "0E.01..EDG EMPTY\n"
                                "48.01.CTR=37 PINNED\n"
                                "A1.01\tTAB NAME\n", &l);
    assert_int_equal(l.n, 7);
    assert_string_equal(l.v[0].name, "UOPS ISSUED (any)");
    assert_string_equal(l.v[1].name, "C0.00");
    assert_int_equal(l.v[1].evtsel, 0xC0);
    assert_int_equal(l.v[2].evtsel, 0x0E);
    assert_int_equal(l.v[2].umask, 0x01);
    assert_int_equal(l.v[2].cmask, 8);          /* octal, as strtoul(.., 0) */
    assert_int_equal(l.v[2].ctr, 2);
    assert_int_equal(l.v[2].msr_rsp0, 0x10001);
    assert_int_equal(l.v[2].msr_pf, 15);
    assert_true(l.v[3].inv);                    /* the rest still applies */
    assert_true(l.v[4].edge);
    assert_int_equal(l.v[5].ctr, 37);           /* judged where counters are known */
    assert_string_equal(l.v[6].name, "TAB NAME");
    assert_non_null(strstr(msg, "g.cfg:4: unknown modifier 'FOO=1' ignored"));
    assert_non_null(strstr(msg, "g.cfg:5: empty modifier"));
    assert_null(strstr(msg, "g.cfg:1:"));
    free(msg);
    event_list_free(&l);
    /* A typed spec stays strict: nothing to warn a user at the prompt about. */
    nb_event ev;
    nb_error err;
    assert_int_equal(event_parse_spec("0E.01.FOO", NULL, &ev, &err), NB_EINPUT);
    assert_int_equal(event_parse_spec("0E.01 A B", NULL, &ev, &err), 0);
    assert_string_equal(ev.name, "A B");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_event),
        cmocka_unit_test(test_spec_without_name_names_itself),
        cmocka_unit_test(test_explicit_name_wins),
        cmocka_unit_test(test_amd_three_digit_select),
        cmocka_unit_test(test_every_field),
        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_spec_errors),
        cmocka_unit_test(test_config_text_with_comments),
        cmocka_unit_test(test_config_errors_name_the_line),
        cmocka_unit_test(test_walk_passes_comments_and_stops),
        cmocka_unit_test(test_apply_modifiers),
        cmocka_unit_test(test_grammar_as_nanobench_reads_it),
        cmocka_unit_test(test_config_file_and_missing_file),
        cmocka_unit_test(test_msr_config),
        cmocka_unit_test(test_msr_errors),
        cmocka_unit_test(test_msr_spec_alone),
        cmocka_unit_test(test_mutated_configs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
