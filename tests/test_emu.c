/* emu: the emulated PMU (pmu/emu.h) and the msr backend run against it.
 *
 * Counts are exact, so every value is asserted to the digit: the classes and
 * memory operands of single instructions; which table names the emulator
 * knows events by (Skylake's and Ice Lake's BR_INST_RETIRED umasks mean
 * different things); every nanoBench mode end to end on -backend emu; and
 * the oracle: the msr backend programs a fake msr device for Intel and AMD
 * layouts, the emulator reads back what was written and answers the
 * generated code's rdpmc reads, so encoding, counter indexes, fixed
 * counters, enable bits, -no_mem's registers and the aggregates are tested
 * by running.
 *
 * Stepping needs the trap flag to work: under valgrind (whose CPU ignores
 * it) the end-to-end tests report SKIPPED. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asm/asm.h"
#include "harness/codegen.h"
#include "events/evdb.h"
#include "measure/session.h"
#include "pmu/emu.h"
#include "pmu/emu_step.h"
#include "sys/status.h"

#define B(k) EMU_BIT(k)

static cpu_info host;

static int setup(void **state)
{
    (void)state;
    cpu_detect(&host);
    return 0;
}

static bool can_step(void)
{
    char why[256];
    if (emu_step_works(why, sizeof why))
        return true;
    print_message("not judged: %s\n", why);
    return false;
}

/* ---- single instructions ---- */

static emu_insn classify(const uint8_t *b, size_t n, uint64_t flags, uint64_t rcx)
{
    emu_insn in;
    assert_true(emu_classify(b, n, 0x1000, flags, rcx, &in));
    return in;
}

static void test_classify_branches(void **st)
{
    (void)st;
    static const uint8_t jnz[] = {0x75, 0x00}, jmp_rax[] = {0xFF, 0xE0}, call[] = {0xE8, 0, 0, 0, 0},
                         call_mem[] = {0xFF, 0x10}, ret[] = {0xC3}, retf[] = {0xCB},
                         loop[] = {0xE2, 0xFE}, jrcxz[] = {0xE3, 0x00}, jl[] = {0x7C, 0x00};
    /* a Jcc to the next instruction is taken when its condition holds */
    emu_insn in = classify(jnz, 2, 0, 0);
    assert_int_equal(in.cls, EMU_C_BRANCH | EMU_C_COND | EMU_C_TAKEN);
    in = classify(jnz, 2, 1u << 6 /* ZF */, 0);
    assert_int_equal(in.cls, EMU_C_BRANCH | EMU_C_COND);
    assert_int_equal(classify(jl, 2, 1u << 7 /* SF != OF */, 0).cls & EMU_C_TAKEN, EMU_C_TAKEN);
    assert_int_equal(classify(jl, 2, (1u << 7) | (1u << 11), 0).cls & EMU_C_TAKEN, 0);
    /* LOOP decrements first: taken unless RCX was 1 */
    assert_int_equal(classify(loop, 2, 0, 1).cls & EMU_C_TAKEN, 0);
    assert_int_equal(classify(loop, 2, 0, 2).cls & EMU_C_TAKEN, EMU_C_TAKEN);
    assert_int_equal(classify(jrcxz, 2, 0, 0).cls & EMU_C_TAKEN, EMU_C_TAKEN);
    assert_int_equal(classify(jmp_rax, 2, 0, 0).cls,
                     EMU_C_BRANCH | EMU_C_TAKEN | EMU_C_JMP | EMU_C_INDIRECT);
    in = classify(call, 5, 0, 0);
    assert_int_equal(in.cls, EMU_C_BRANCH | EMU_C_TAKEN | EMU_C_CALL);
    assert_int_equal(in.wr, 1);   /* the return address */
    in = classify(call_mem, 2, 0, 0);
    assert_int_equal(in.cls, EMU_C_BRANCH | EMU_C_TAKEN | EMU_C_CALL | EMU_C_INDIRECT);
    assert_int_equal(in.rd, 1);
    assert_int_equal(in.wr, 1);
    in = classify(ret, 1, 0, 0);
    assert_int_equal(in.cls, EMU_C_BRANCH | EMU_C_TAKEN | EMU_C_RET);
    assert_int_equal(in.rd, 1);
    assert_int_equal(classify(retf, 1, 0, 0).cls & EMU_C_FAR, EMU_C_FAR);
}

static void test_classify_memory(void **st)
{
    (void)st;
    static const uint8_t add_rmw[] = {0x48, 0x83, 0x00, 0x01}, lea[] = {0x48, 0x8D, 0x04, 0x18},
                         nop_mem[] = {0x0F, 0x1F, 0x40, 0x00}, push_mem[] = {0xFF, 0x30},
                         movsb[] = {0xA4}, rep_movsb[] = {0xF3, 0xA4}, pushfq[] = {0x9C},
                         rdpmc[] = {0x0F, 0x33}, prefetch[] = {0x0F, 0x18, 0x08},
                         mov_ss[] = {0x8E, 0xD0};
    emu_insn in = classify(add_rmw, 4, 0, 0);
    assert_true(in.rmw == 1 && in.rd == 0 && in.wr == 0);
    in = classify(lea, 4, 0, 0);
    assert_true(in.rmw == 0 && in.rd == 0 && in.wr == 0);
    in = classify(nop_mem, 4, 0, 0);
    assert_true(in.rd == 0 && in.cls == 0);
    in = classify(push_mem, 2, 0, 0);
    assert_true(in.rd == 1 && in.wr == 1);
    in = classify(movsb, 1, 0, 0);
    assert_true(in.rd == 1 && in.wr == 1 && !in.rep_string);
    in = classify(rep_movsb, 2, 0, 0);
    assert_true(in.rep_string && in.addr_width == 64);
    assert_true(classify(pushfq, 1, 0, 0).pushf);
    assert_true(classify(rdpmc, 2, 0, 0).rdpmc);
    assert_int_equal(classify(prefetch, 3, 0, 0).rd, 1);
    assert_true(classify(mov_ss, 2, 0, 0).loads_ss);
}

/* A REP string is one instruction; its operands count per iteration, and
 * one that runs no iteration has none. */
static void test_count_rep(void **st)
{
    (void)st;
    static const uint8_t rep_movsb[] = {0xF3, 0xA4};
    emu_insn in = classify(rep_movsb, 2, 0, 0);
    uint64_t c[EMU_KIND_MAX] = {0};
    for (int i = 0; i < 3; i++)
        emu_count_iteration(c, &in);
    emu_count_retired(c, &in, 3);
    assert_int_equal(c[EMU_INSTRUCTIONS], 1);
    assert_int_equal(c[EMU_LOAD_OPS], 3);
    assert_int_equal(c[EMU_STORE_OPS], 3);
    assert_int_equal(c[EMU_LOAD_INSTRUCTIONS], 1);
    uint64_t z[EMU_KIND_MAX] = {0};
    emu_count_retired(z, &in, 0);
    assert_int_equal(z[EMU_INSTRUCTIONS], 1);
    assert_int_equal(z[EMU_LOAD_INSTRUCTIONS] + z[EMU_LOADS], 0);
    assert_int_equal(emu_value(c, B(EMU_LOAD_OPS) | B(EMU_STORE_OPS)), 6);
}

/* ---- events, through the tables ---- */

static uint32_t resolve(const char *uarch, const char *name)
{
    nb_event ev;
    nb_error e;
    assert_int_equal(evdb_lookup(uarch, name, &ev, &e), 0);
    return emu_resolve_event(uarch, evdb_uarch_vendor(uarch), &ev);
}

static void test_resolve(void **st)
{
    (void)st;
    /* C4.01: CONDITIONAL on Skylake, COND_TAKEN on Ice Lake */
    assert_int_equal(resolve("Skylake", "C4.01"), B(EMU_BR_COND));
    assert_int_equal(resolve("IceLake", "C4.01"), B(EMU_BR_COND_TAKEN));
    assert_int_equal(resolve("IceLake", "BR_INST_RETIRED.COND"), B(EMU_BR_COND));
    assert_int_equal(resolve("SkylakeX", "INST_RETIRED.ANY_P"), B(EMU_INSTRUCTIONS));
    assert_int_equal(resolve("SkylakeX", "MEM_INST_RETIRED.ALL_STORES"),
                     B(EMU_STORE_INSTRUCTIONS));
    assert_int_equal(resolve("Zen4", "EX_RET_BRN_TKN"), B(EMU_BR_TAKEN));
    /* AMD adds umask bits: LD_DISPATCH + STORE_DISPATCH */
    assert_int_equal(resolve("Zen4", "029.03"), B(EMU_LOAD_OPS) | B(EMU_STORE_OPS));
    /* timing, prediction, uops and counter masks are not emulated */
    assert_int_equal(resolve("Zen4", "EX_RET_BRN_MISP"), 0);
    assert_int_equal(resolve("SkylakeX", "UOPS_ISSUED.ANY"), 0);
    assert_int_equal(resolve("SkylakeX", "INST_RETIRED.ANY_P.CMSK=1"), 0);
    /* no table: the architectural events */
    nb_event ev;
    memset(&ev, 0, sizeof ev);
    ev.evtsel = 0xC4;
    assert_int_equal(emu_resolve_event(NULL, CPU_VENDOR_INTEL, &ev), B(EMU_BRANCHES));
}

/* The oracle's decoding of event selects, straight from MSR values. */
static uint64_t g_msr[8][2];
static size_t g_n_msr;

static bool fake_read(void *ctx, uint32_t msr, uint64_t *v)
{
    (void)ctx;
    for (size_t i = 0; i < g_n_msr; i++)
        if (g_msr[i][0] == msr) {
            *v = g_msr[i][1];
            return true;
        }
    *v = 0;
    return true;
}

static void test_resolve_selects(void **st)
{
    (void)st;
    cpu_info ci;
    assert_true(evdb_uarch_cpu("SkylakeX", &host, &ci));
    pmu_config cfg = {.cpu = &ci, .uarch = "SkylakeX"};
    pmu_counter ctr[4];
    memset(ctr, 0, sizeof ctr);
    ctr[0].rdpmc_ecx = 0;            /* INST_RETIRED.ANY_P, USR, EN */
    ctr[1].rdpmc_ecx = 1;            /* the same, not enabled globally */
    ctr[2].rdpmc_ecx = 2;            /* BR_INST_RETIRED.ALL_BRANCHES with OS */
    ctr[3].rdpmc_ecx = 1u << 30;     /* fixed counter 0, USR */
    uint64_t sel = 0xC0 | 1u << 16 | 1u << 22;
    uint64_t msrs[][2] = {{0x38F, 0x100000005}, {0x186, sel}, {0x187, sel},
                          {0x188, 0xC4 | 3u << 16 | 1u << 22}, {0x38D, 0x2}};
    memcpy(g_msr, msrs, sizeof msrs);
    g_n_msr = 5;
    pmu_group g = {.ctr = ctr, .n_ctr = 4};
    assert_int_equal(emu_resolve_selects(&cfg, &g, fake_read, NULL), 0);
    assert_int_equal(ctr[0].emu, B(EMU_INSTRUCTIONS));
    assert_int_equal(ctr[1].emu, B(EMU_NOTHING));
    assert_int_equal(ctr[2].emu, 0);
    assert_int_equal(ctr[3].emu, B(EMU_INSTRUCTIONS));
}

/* ---- end to end ---- */

typedef struct spec {
    const char *code, *init, *late_init, *one_time_init;
    const char *uarch, *events;      /* names from that table */
    bool oracle;                     /* msr backend on a fake msr device */
    bool legacy;                     /* AMD: four counters at 0xC0010000 */
} spec;

static uint8_t *assemble(const char *text, size_t *len, asm_code *keep)
{
    memset(keep, 0, sizeof *keep);
    *len = 0;
    if (!text)
        return NULL;
    nb_error e;
    if (asm_assemble(text, "asm", keep, &e) != 0)
        fail_msg("cannot assemble '%s': %s", text, e.message);
    *len = keep->size;
    return keep->bytes;
}

static char g_root[64];

static void fake_tree(void)
{
    snprintf(g_root, sizeof g_root, "/tmp/nb-emu-test-XXXXXX");
    assert_non_null(mkdtemp(g_root));
    char path[128];
    snprintf(path, sizeof path, "%s/dev", g_root);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/dev/cpu", g_root);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/dev/cpu/0", g_root);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/dev/cpu/0/msr", g_root);
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)0xC0010300 * 8), 0);
    close(fd);
}

static void drop_tree(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    assert_int_equal(system(cmd), 0);
}

/* Runs s with the options in o (backend emu, or msr on a fake device). */
static void run(const spec *s, nb_options *o, bench_result *r)
{
    asm_code k[4];
    bench_code c;
    memset(&c, 0, sizeof c);
    c.code = assemble(s->code, &c.code_len, &k[0]);
    c.init = assemble(s->init, &c.init_len, &k[1]);
    c.late_init = assemble(s->late_init, &c.late_init_len, &k[2]);
    c.one_time_init = assemble(s->one_time_init, &c.one_time_init_len, &k[3]);
    const char *uarch = s->uarch ? s->uarch : "Zen4";
    o->uarch = uarch;
    o->events = s->events;   /* named events: every one is listed */
    if (!s->events)
        o->config = "/dev/null";   /* none: the fixed counters, all listed */
    nb_event_list ev = {0};
    nb_error e;
    if (s->events && evdb_parse_events(uarch, s->events, &ev, &e) != 0)
        fail_msg("%s", e.message);
    cpu_info ci;
    assert_true(evdb_uarch_cpu(uarch, &host, &ci));
    if (s->legacy)
        ci.n_gp_counters = 4, ci.pmu_version = 0;
    bench_session *ses = bench_session_new();
    assert_non_null(ses);
    if (s->oracle) {
        fake_tree();
        bench_session_set_roots(ses, g_root, g_root);
        o->backend = PMU_BACKEND_MSR;
        o->cpu = 0;
    } else {
        o->backend = PMU_BACKEND_EMU;
    }
    nb_error err;
    nb_error_clear(&err);
    int rc = bench_session_run(ses, o, &c, ev.v, ev.n, &ci, r, &err);
    bench_session_free(ses);
    if (s->oracle)
        drop_tree();
    event_list_free(&ev);
    for (int i = 0; i < 4; i++)
        asm_code_free(&k[i]);
    if (rc)
        fail_msg("bench: %d: %s", rc, err.message);
}

static const bench_event_result *find(const bench_result *r, const char *name)
{
    for (size_t i = 0; i < r->n_ev; i++)
        if (strcmp(r->ev[i].name, name) == 0)
            return &r->ev[i];
    fail_msg("no event %s in the result", name);
    return NULL;
}

/* Asserts "NAME=VALUE,..." to two decimals, as nb prints them; a value
 * "-" means unavailable. */
static void expect(const bench_result *r, const char *want)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", want);
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        assert_non_null(eq);
        *eq = 0;
        const bench_event_result *e = find(r, tok);
        if (strcmp(eq + 1, "-") == 0) {
            if (!e->unavailable)
                fail_msg("%s: %.4f, want unavailable", tok, e->value);
            continue;
        }
        if (e->unavailable)
            fail_msg("%s: unavailable, want %s", tok, eq + 1);
        assert_true(e->exact);
        char got[32];
        snprintf(got, sizeof got, "%.2f", e->value);
        if (strcmp(got, eq + 1) != 0)
            fail_msg("%s: %s (%.6f), want %s", tok, got, e->value, eq + 1);
    }
}

#define ZEN_BR "EX_RET_INSTR,EX_RET_BRN,EX_RET_BRN_TKN,LS_DISPATCH.LD_DISPATCH," \
               "LS_DISPATCH.STORE_DISPATCH,LS_DISPATCH.LD_ST_DISPATCH"

static nb_options defaults(void)
{
    nb_options o;
    options_defaults(&o);
    return o;
}

static void check(const spec *s, nb_options o, const char *want)
{
    bench_result r;
    run(s, &o, &r);
    expect(&r, want);
    bench_result_free(&r);
}

/* The acceptance line: nanoBench's basic mode with a loop. */
static void test_basic_mode_loop(void **st)
{
    (void)st;
    if (!can_step())
        skip();
    spec s = {.code = "nop", .events = ZEN_BR};
    nb_options o = defaults();
    o.basic_mode = true;
    o.loop_count = 10;
    o.unroll_count = 1;
    check(&s, o, "EX_RET_INSTR=3.00,EX_RET_BRN=1.00,EX_RET_BRN_TKN=0.90,"
                 "LS_DISPATCH.LD_DISPATCH=0.00,LS_DISPATCH.STORE_DISPATCH=0.00");
}

/* Code with a load, a load-op-store, a store (PUSH), a load (POP) and a
 * taken jump: each mode must give the same per-copy counts. */
static const spec MIXED = {
    .code = "mov rax, [r14]; add [r14+8], rax; push rax; pop rbx; jmp 1f; nop; 1:",
    .events = ZEN_BR,
};
#define MIXED_WANT "EX_RET_INSTR=5.00,EX_RET_BRN=1.00,EX_RET_BRN_TKN=1.00," \
                   "LS_DISPATCH.LD_DISPATCH=2.00,LS_DISPATCH.STORE_DISPATCH=1.00," \
                   "LS_DISPATCH.LD_ST_DISPATCH=1.00"

static void test_modes(void **st)
{
    (void)st;
    if (!can_step())
        skip();
    nb_options o = defaults();
    check(&MIXED, o, MIXED_WANT);
    o = defaults(), o.unroll_count = 7;
    check(&MIXED, o, MIXED_WANT);
    o = defaults(), o.unroll_count = 5, o.loop_count = 20;
    check(&MIXED, o, MIXED_WANT);
    o = defaults(), o.basic_mode = true, o.unroll_count = 9;
    check(&MIXED, o, MIXED_WANT);
    o = defaults(), o.no_mem = true, o.unroll_count = 50;
    check(&MIXED, o, MIXED_WANT);
    o = defaults(), o.df = true, o.unroll_count = 50;
    check(&MIXED, o, MIXED_WANT);
    o = defaults(), o.alignment_offset = 13, o.unroll_count = 50;
    check(&MIXED, o, MIXED_WANT);
    o = defaults(), o.initial_warm_up_count = 3, o.unroll_count = 50;
    check(&MIXED, o, MIXED_WANT);
    static const nb_agg aggs[] = {AGG_AVG, AGG_MEDIAN, AGG_MIN, AGG_MAX};
    for (size_t i = 0; i < 4; i++) {
        o = defaults(), o.agg = aggs[i], o.unroll_count = 50;
        check(&MIXED, o, MIXED_WANT);
    }
    /* basic mode with a loop: the loop's dec and jnz are per iteration */
    o = defaults(), o.basic_mode = true, o.unroll_count = 4, o.loop_count = 5;
    check(&MIXED, o, "EX_RET_INSTR=5.50,EX_RET_BRN=1.25,EX_RET_BRN_TKN=1.20");
    /* -no_normalization: the raw difference of 2 x 3 copies' and 3's */
    o = defaults(), o.unroll_count = 3, o.no_normalization = true;
    check(&MIXED, o, "EX_RET_INSTR=15.00,EX_RET_BRN=3.00");
}

/* Init fragments run outside the counted window; -asm_late_init inside it,
 * but the same in both programs. */
static void test_init_fragments(void **st)
{
    (void)st;
    if (!can_step())
        skip();
    spec s = MIXED;
    s.init = "mov rcx, 3; 2: dec rcx; jnz 2b";
    s.late_init = "nop; nop; jmp 3f; 3:";
    s.one_time_init = "mov qword ptr [r14], 5; nop";
    nb_options o = defaults();
    o.unroll_count = 20;
    check(&s, o, MIXED_WANT);
}

/* -initial_warm_up_count runs before the counted runs and sees the memory
 * they see: a counter in [R14] decides a branch.  With basic mode and one
 * copy, the second program's run finds [R14] = warm-ups + 1. */
static void test_initial_warm_up(void **st)
{
    (void)st;
    if (!can_step())
        skip();
    spec s = {.code = "inc qword ptr [r14]; cmp qword ptr [r14], 1; jbe 1f; nop; 1:",
              .events = ZEN_BR};
    nb_options o = defaults();
    o.basic_mode = true, o.unroll_count = 1, o.warm_up_count = 0;
    check(&s, o, "EX_RET_INSTR=3.00,EX_RET_BRN_TKN=1.00");
    o.initial_warm_up_count = 1;
    check(&s, o, "EX_RET_INSTR=4.00,EX_RET_BRN_TKN=0.00");
    /* the warm-up runs of each program count as well */
    o.initial_warm_up_count = 0, o.warm_up_count = 1;
    check(&s, o, "EX_RET_INSTR=4.00,EX_RET_BRN_TKN=0.00");
}

/* -no_mem's pause and resume: what lies between them is not counted. */
static void test_pause_resume(void **st)
{
    (void)st;
    if (!can_step())
        skip();
    nb_options o = defaults();
    o.no_mem = true, o.unroll_count = 10;
    const char *p = ".quad 0xF0B513B1C2813F04", *r = ".quad 0xE0B513B1C2813F04";
    char a[256], b[256], c[256];
    snprintf(a, sizeof a, "nop; %s; %s", p, r);
    snprintf(b, sizeof b, "nop; %s; nop; push rax; pop rax; jmp 1f; 1: %s", p, r);
    snprintf(c, sizeof c, "nop; nop; %s; %s", p, r);
    double v[3];
    const char *codes[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        spec s = {.code = codes[i], .events = "EX_RET_INSTR,EX_RET_BRN,LS_DISPATCH.STORE_DISPATCH"};
        bench_result res;
        nb_options oo = o;
        run(&s, &oo, &res);
        v[i] = find(&res, "EX_RET_INSTR")->value;
        assert_true(find(&res, "EX_RET_BRN")->value == 0);
        assert_true(find(&res, "LS_DISPATCH.STORE_DISPATCH")->value == 0);
        bench_result_free(&res);
    }
    assert_true(v[1] == v[0]);
    assert_true(v[2] == v[0] + 1);
}

/* Events the emulator cannot count are unavailable, never 0; and a REP
 * string counts one instruction, its operands per iteration. */
static void test_unavailable_and_rep(void **st)
{
    (void)st;
    if (!can_step())
        skip();
    spec s = {.code = "mov rsi, r14; lea rdi, [r14+256]; mov ecx, 5; rep movsb",
              .events = ZEN_BR ",EX_RET_BRN_MISP,LS_NOT_HALTED_CYC"};
    nb_options o = defaults();
    o.unroll_count = 10;
    check(&s, o, "EX_RET_INSTR=4.00,EX_RET_BRN=0.00,LS_DISPATCH.LD_DISPATCH=5.00,"
                 "LS_DISPATCH.STORE_DISPATCH=5.00,EX_RET_BRN_MISP=-,LS_NOT_HALTED_CYC=-");
}

/* What stepping must not change or miscount: PUSHF sees no TF, POPF does
 * not end the stepping, the instruction in MOV SS's shadow (no trap of its
 * own) is retired, a LOOP that jumps to itself is three branches and not a
 * REP, a REP string with RCX = 0 runs no iteration, -debug's int3 (in
 * both programs) cancels. */
static void test_special_instructions(void **st)
{
    (void)st;
    if (!can_step())
        skip();
    nb_options o = defaults();
    o.unroll_count = 10;
    spec s = {.events = ZEN_BR};
    s.code = "pushfq; pop rax; bt eax, 8; jc 1f; nop; 1:";
    check(&s, o, "EX_RET_INSTR=5.00,EX_RET_BRN_TKN=0.00,LS_DISPATCH.STORE_DISPATCH=1.00");
    s.code = "pushfq; popfq; nop";
    check(&s, o, "EX_RET_INSTR=3.00,LS_DISPATCH.LD_DISPATCH=1.00");
    s.code = "mov eax, ss; mov ss, eax; jmp 1f; nop; 1:";
    check(&s, o, "EX_RET_INSTR=3.00,EX_RET_BRN=1.00,EX_RET_BRN_TKN=1.00");
    s.code = "mov ecx, 3; 1: loop 1b";
    check(&s, o, "EX_RET_INSTR=4.00,EX_RET_BRN=3.00,EX_RET_BRN_TKN=2.00");
    s.code = "xor ecx, ecx; mov rsi, r14; mov rdi, r14; rep movsb";
    check(&s, o, "EX_RET_INSTR=4.00,LS_DISPATCH.LD_DISPATCH=0.00,LS_DISPATCH.STORE_DISPATCH=0.00");
    s.code = "nop";
    o.debug = true;
    check(&s, o, "EX_RET_INSTR=1.00,EX_RET_BRN=0.00");
}

/* The stepper runs stretches of plain instructions natively between two
 * traps (emu_step.h): every counter reads the same as when each
 * instruction is stepped, for code with every kind of stretch end and
 * instructions the decoder's memo could take for one another. */
static void test_runs_match_steps(void **st)
{
    (void)st;
    if (!can_step())
        skip();
    static const char *const codes[] = {
        "mov rax, [r14]; add [r14+8], rax; push rax; pop rbx; jmp 1f; nop; 1:",
        "mov ecx, 3; 1: add rax, rbx; add rbx, rax; loop 1b; nop",
        "pushfq; popfq; lea rsi, [r14]; lea rdi, [r14+64]; mov ecx, 4; rep movsb; nop; nop",
        "mov eax, ss; mov ss, eax; add rax, 1; add rax, 2; test rax, rax; jz 2f; 2: nop",
        "call 3f; 3: pop rax; nop; nop; nop",
        /* two instructions whose first 8 bytes are alike (the memo of
         * decoded plain instructions is keyed by them) */
        ("mov rax, 0x1122334455667788; mov [r14], rax; mov rax, 0x9922334455667788; "
         "add [r14+8], rax; mov rbx, [r14]"),
    };
    pmu_counter ctr[6];
    codegen_read rd[6];
    static const uint32_t kinds[6] = {
        B(EMU_INSTRUCTIONS), B(EMU_BRANCHES), B(EMU_BR_TAKEN), B(EMU_LOAD_OPS),
        B(EMU_STORE_OPS), B(EMU_LDST_OPS) | B(EMU_LOAD_INSTRUCTIONS),
    };
    for (unsigned i = 0; i < 6; i++) {
        ctr[i] = (pmu_counter){.read = PMU_READ_RDPMC, .rdpmc_ecx = i, .emu = kinds[i]};
        rd[i] = (codegen_read){PMU_READ_RDPMC, i};
    }
    static uint64_t area[1 << 14];
    for (size_t c = 0; c < sizeof codes / sizeof codes[0]; c++) {
        asm_code k;
        size_t len;
        const uint8_t *bytes = assemble(codes[c], &len, &k);
        for (int no_mem = 0; no_mem < 2; no_mem++) {
            codegen_params p = {
                .code = bytes, .code_len = len, .copies = 5, .loop_count = 3,
                .no_mem = no_mem, .reads = rd, .n_reads = 6,
                .r14 = (uintptr_t)&area[4096], .rdi = (uintptr_t)&area[8192],
                .rsi = (uintptr_t)&area[8192], .rbp = (uintptr_t)&area[8192],
                .rsp = (uintptr_t)&area[12288],
            };
            codegen_prog pr;
            nb_error err;
            if (codegen_build(&p, &pr, &err))
                fail_msg("%s", err.message);
            uintptr_t b = (uintptr_t)pr.base;
            emu_prog e = {.entry = (void (*)(void))(void *)pr.base, .lo = b,
                          .hi = b + pr.code_len, .map_end = b + pr.map_len,
                          .epilogue = b + pr.epilogue_off};
            uint64_t v[2][6];
            emu_step_result res[2];
            for (int runs = 0; runs < 2; runs++) {
                assert_int_equal(emu_step_begin(ctr, 6), 0);
                res[runs] = emu_step_call(&e, 0, runs);
                emu_step_end();
                for (unsigned i = 0; i < 6; i++)
                    v[runs][i] = pr.data->m2[i] - pr.data->m1[i];
            }
            for (unsigned i = 0; i < 6; i++)
                if (v[0][i] != v[1][i])
                    fail_msg("'%s'%s: counter %u: %llu stepped, %llu with stretches", codes[c],
                             no_mem ? " -no_mem" : "", i, (unsigned long long)v[0][i],
                             (unsigned long long)v[1][i]);
            assert_true(v[0][0] > 0);
            assert_int_equal(res[0].retired, res[1].retired);
            codegen_free(&pr);
        }
        asm_code_free(&k);
    }
}

/* ---- the oracle: the msr backend against the emulator ---- */

static void test_oracle_intel(void **st)
{
    (void)st;
    if (!can_step())
        skip();
    spec s = MIXED;
    s.uarch = "SkylakeX";
    s.oracle = true;
    s.events = "INST_RETIRED.ANY_P,BR_INST_RETIRED.ALL_BRANCHES,BR_INST_RETIRED.NEAR_TAKEN,"
               "MEM_INST_RETIRED.ALL_LOADS,MEM_INST_RETIRED.ALL_STORES,UOPS_ISSUED.ANY";
    const char *want = "INST_RETIRED.ANY_P=5.00,BR_INST_RETIRED.ALL_BRANCHES=1.00,"
                       "BR_INST_RETIRED.NEAR_TAKEN=1.00,MEM_INST_RETIRED.ALL_LOADS=3.00,"
                       "MEM_INST_RETIRED.ALL_STORES=2.00,UOPS_ISSUED.ANY=-";
    nb_options o = defaults();
    o.unroll_count = 20, o.n_measurements = 3;
    /* five events on four counters: two groups, counters 0-3 and 0 */
    check(&s, o, want);
    o.no_mem = true;
    check(&s, o, want);
    /* the fixed counters: instructions on fixed counter 0 (rdpmc
     * 0x40000000); the cycle counters and RDTSC cannot be emulated */
    s.events = NULL;
    o.no_mem = false;
    check(&s, o, "Instructions retired=5.00,Core cycles=-,Reference cycles=-,RDTSC=-");
    o.no_mem = true;
    check(&s, o, "Instructions retired=5.00,Core cycles=-,Reference cycles=-,RDTSC=-");
    /* Ice Lake: its own umask meanings, topdown slots on fixed counter 3 */
    s.uarch = "IceLake";
    s.events = "BR_INST_RETIRED.COND_TAKEN,BR_INST_RETIRED.COND_NTAKEN,BR_INST_RETIRED.COND";
    s.code = "test rax, rax; jz 1f; nop; 1: jnz 2f; nop; 2:";
    check(&s, o, "BR_INST_RETIRED.COND_TAKEN=1.00,BR_INST_RETIRED.COND_NTAKEN=1.00,"
                 "BR_INST_RETIRED.COND=2.00");
    s.events = NULL;
    check(&s, o, "Instructions retired=4.00,Topdown slots=-");
}

static void test_oracle_amd(void **st)
{
    (void)st;
    if (!can_step())
        skip();
    spec s = MIXED;
    s.uarch = "Zen4";
    s.oracle = true;
    s.events = ZEN_BR ",EX_RET_BRN_MISP";
    nb_options o = defaults();
    o.unroll_count = 20, o.n_measurements = 2;
    check(&s, o, MIXED_WANT ",EX_RET_BRN_MISP=-");
    o.no_mem = true;
    check(&s, o, MIXED_WANT ",EX_RET_BRN_MISP=-");
    /* Zen 2: no PerfMonV2 global control; a core with the four legacy
     * counters (PERF_CTL0-3 at 0xC0010000) */
    s.uarch = "Zen2";
    o.no_mem = false;
    check(&s, o, MIXED_WANT);
    s.legacy = true;
    check(&s, o, MIXED_WANT);
}

/* Aggregates over measurements that differ: [R14] counts the runs of the
 * second program (basic mode, one copy), two branches depend on it, so its
 * five runs retire 5, 5, 6, 6 and 7 instructions (each JBE not taken adds
 * its NOP). */
static void test_oracle_aggregates(void **st)
{
    (void)st;
    if (!can_step())
        skip();
    spec s = {.code = "inc qword ptr [r14]; cmp qword ptr [r14], 2; jbe 1f; nop; 1: "
                      "cmp qword ptr [r14], 4; jbe 2f; nop; 2:",
              .uarch = "SkylakeX", .events = "INST_RETIRED.ANY_P", .oracle = true};
    nb_options o = defaults();
    o.basic_mode = true, o.unroll_count = 1, o.n_measurements = 5, o.warm_up_count = 0;
    static const struct { nb_agg agg; const char *want; } cases[] = {
        {AGG_AVG, "INST_RETIRED.ANY_P=5.67"},   /* 20-80th percentile: 5, 6, 6 */
        {AGG_MEDIAN, "INST_RETIRED.ANY_P=6.00"},
        {AGG_MIN, "INST_RETIRED.ANY_P=5.00"},
        {AGG_MAX, "INST_RETIRED.ANY_P=7.00"},
    };
    for (size_t i = 0; i < 4; i++) {
        o.agg = cases[i].agg;
        check(&s, o, cases[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_branches),
        cmocka_unit_test(test_classify_memory),
        cmocka_unit_test(test_count_rep),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_resolve_selects),
        cmocka_unit_test(test_basic_mode_loop),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_init_fragments),
        cmocka_unit_test(test_initial_warm_up),
        cmocka_unit_test(test_pause_resume),
        cmocka_unit_test(test_unavailable_and_rep),
        cmocka_unit_test(test_special_instructions),
        cmocka_unit_test(test_runs_match_steps),
        cmocka_unit_test(test_oracle_intel),
        cmocka_unit_test(test_oracle_amd),
        cmocka_unit_test(test_oracle_aggregates),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
