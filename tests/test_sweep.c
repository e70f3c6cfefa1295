/* Tests for src/sweep/: the forms Zydis's tables give and their names, the
 * reasons forms are skipped, CPUID gating through a fake answer, and the
 * chains a plan builds (as text: which registers alternate, which closer,
 * which breakers), each on a CPU described by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "events/config.h"
#include "sweep/sweep_internal.h"
#include "sys/status.h"

static cpu_isa_state all_ok(const char *set, char *feature, size_t len)
{
    (void)set;
    if (len)
        feature[0] = '\0';
    return CPU_ISA_OK;
}

/* A CPU with AVX2 but no AVX-512 and no FMA4/XOP... */
static cpu_isa_state no_avx512(const char *set, char *feature, size_t len)
{
    snprintf(feature, len, "%s", set);
    return strncmp(set, "AVX512", 6) == 0 ? CPU_ISA_MISSING : CPU_ISA_OK;
}

static sweep_form_list g_all, g_small;

static int setup(void **state)
{
    (void)state;
    nb_error err;
    if (sweep_forms_enumerate(all_ok, &g_all, &err) != 0)
        return -1;
    return sweep_forms_enumerate(no_avx512, &g_small, &err);
}

static int teardown(void **state)
{
    (void)state;
    sweep_forms_free(&g_all);
    sweep_forms_free(&g_small);
    return 0;
}

static const sweep_form *find(const sweep_form_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return &l->v[i];
    return NULL;
}

static size_t measured(const sweep_form_list *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += !l->v[i].skip;
    return n;
}

static void test_many_forms_sorted_once(void **state)
{
    (void)state;
    assert_true(measured(&g_all) >= 3000);
    for (size_t i = 1; i < g_all.n; i++)
        assert_true(strcmp(g_all.v[i - 1].name, g_all.v[i].name) < 0);
}

static void test_names(void **state)
{
    (void)state;
    static const char *const names[] = {
        "add r64, r64", "add rax, imm32", "add r64, imm8", "imul r64, r64, imm8",
        "imul r64, r64, imm32", "lea r64, m", "shl r64, 1", "shl r64, cl", "shl r64, imm8",
        "vaddps zmm {k}, zmm, zmm", "vaddps zmm {k}{z}, zmm, zmm", "vaddps zmm, zmm, m32 {1to16}",
        "vaddps zmm, zmm, m512", "vcmpps k {k}, zmm, zmm, imm8", "vgatherdps zmm {k}, vm32z",
        "vgatherdps ymm, vm32y, ymm", "fadd st0, st", "fadd st, st0", "kaddw k, k, k",
        "movq mm, r64", "div r64", "cvtdq2pd xmm, xmm", "vcvtdq2pd xmm, m32 {1to2}",
        "mov r64, imm64", "movzx r32, r8"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const sweep_form *f = find(&g_all, names[i]);
        if (!f) {
            fail_msg("no form '%s'", names[i]);
            return;
        }
        if (f->skip)
            fail_msg("'%s' skipped: %s", names[i], f->skip);
    }
    /* a static broadcast is no form of its own */
    assert_null(find(&g_all, "vbroadcastss zmm, m32 {1to16}"));
    assert_non_null(find(&g_all, "vbroadcastss zmm, m32"));
}

static void test_skip_reasons(void **state)
{
    (void)state;
    static const struct { const char *name, *reason; } cases[] = {
        {"syscall", "system call or interrupt"},
        {"hlt", "privileged (ring 0 only)"},
        {"push r64", "moves the stack pointer"},
        {"rep movsb", "a REP prefix: repeats RCX times"},
        {"ud2", "raises #UD by design"},
        {"ldmxcsr m32", "changes state later code depends on (MXCSR, x87 control, FS/GS "
                        "base, protection keys, shadow stack)"},
        {"jmp rel32", "control transfer"},
        {"in al, dx", "port I/O (faults in user mode)"},
        {"fld m64", "pushes or pops the x87 register stack"},
        {"faddp st, st0", "pushes or pops the x87 register stack"},
        {"mov al, m8", "absolute 64-bit address (moffs)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const sweep_form *f = find(&g_all, cases[i].name);
        if (!f) {
            fail_msg("no form '%s'", cases[i].name);
            return;
        }
        if (!f->skip || strcmp(f->skip, cases[i].reason) != 0)
            fail_msg("'%s': skip '%s', want '%s'", cases[i].name, f->skip ? f->skip : "(none)",
                     cases[i].reason);
    }
    /* not skipped: what user mode runs */
    assert_null(find(&g_all, "cpuid")->skip);
    assert_null(find(&g_all, "movsb")->skip);
    assert_null(find(&g_all, "rdtsc")->skip);
}

static void test_cpuid_gating(void **state)
{
    (void)state;
    const sweep_form *f = find(&g_small, "vaddps zmm, zmm, zmm");
    assert_non_null(f);
    assert_string_equal(f->skip, "this CPU lacks it");
    assert_string_equal(f->skip_detail, "AVX512F_512");
    for (size_t i = 0; i < g_small.n; i++)
        if (!g_small.v[i].skip)
            assert_null(strstr(g_small.v[i].name, "zmm"));
    /* VEX forms stay; where EVEX and VEX share a name the VEX one is kept */
    f = find(&g_small, "vaddps ymm, ymm, ymm");
    assert_null(f->skip);
    assert_int_equal(f->enc, SWE_VEX);
    assert_true(measured(&g_small) < measured(&g_all));
}

static void test_name_of_bytes(void **state)
{
    (void)state;
    static const struct { const char *hex, *name; } cases[] = {
        {"4801d8", "add r64, r64"},
        {"486bc001", "imul r64, r64, imm8"},
        {"62f16c4958c3", "vaddps zmm {k}, zmm, zmm"},
        {"62f16cc958c3", "vaddps zmm {k}{z}, zmm, zmm"},
        {"62f16c585800", "vaddps zmm, zmm, m32 {1to16}"},
        {"488d4308", "lea r64, m"},
        {"48d1e0", "shl r64, 1"},
        {"48d3e0", "shl r64, cl"},
        {"62f17c49c2c10f", "vcmpps k {k}, zmm, zmm, imm8"},
        {"d8c1", "fadd st0, st"},
        {"0401", "add al, imm8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t b[16] = {0};
        size_t n = strlen(cases[i].hex) / 2;
        for (size_t k = 0; k < n; k++)
            sscanf(cases[i].hex + 2 * k, "%2hhx", &b[k]);
        char name[128];
        assert_int_equal(sweep_form_name_of(b, 15, name, sizeof name), n);
        assert_string_equal(name, cases[i].name);
    }
}

/* ---- plans ------------------------------------------------------------------ */

static const sw_caps zen4 = {.sse41 = true, .avx = true, .avx2 = true, .avx512f = true,
                             .avx512bw = true, .avx512dq = true, .avx512vl = true};
static sw_plan g_plan;

static const sw_plan *plan_of(const char *name, const sw_caps *caps)
{
    const sweep_form *f = find(&g_all, name);
    if (!f)
        fail_msg("no form '%s'", name);
    nb_error err;
    nb_error_clear(&err);
    if (sweep_plan(f, caps, &g_plan, &err) != 0)
        fail_msg("%s: %s", name, err.message);
    return &g_plan;
}

static const sw_pair *pair(const sw_plan *p, const char *label)
{
    for (int k = 0; k < p->n_pairs; k++)
        if (strcmp(p->pair[k].label, label) == 0)
            return &p->pair[k];
    fail_msg("no pair %s", label);
    return NULL;
}

static void test_plan_alternation(void **state)
{
    (void)state;
    const sw_plan *p = plan_of("add r64, r64", &zen4);
    assert_string_equal(p->example, "add rbx, rcx");
    const sw_pair *q = pair(p, "op1->op1");
    assert_string_equal(q->chain.code, "add rbx, rcx");
    assert_int_equal(q->chain.instances, 1);
    assert_int_equal(q->chain.closer, SWC_NONE);
    /* op2 -> op1: the registers swap, op1 (also read) gets a breaker */
    q = pair(p, "op2->op1");
    assert_string_equal(q->chain.code, "mov ebx, 1; add rbx, rcx; mov ecx, 1; add rcx, rbx");
    assert_int_equal(q->chain.instances, 2);
    assert_int_equal(q->chain.closer, SWC_NONE);
    /* into the flags: back through adc, a bound */
    q = pair(p, "op2->flags");
    assert_int_equal(q->chain.closer, SWC_BOUND);
    assert_non_null(strstr(q->chain.code, "adc rcx, 0"));
    assert_string_equal(q->chain.init, "mov ecx, 1; mov ebx, 1");
    /* the throughput block: 12 instances, fresh destinations, one source */
    assert_int_equal(p->tp.instances, 12);
    assert_non_null(strstr(p->tp.code, "add rbx, rcx; add rdx, rcx; add rsi, rcx"));
    assert_int_equal(p->tp_broken.instances, 12);
    assert_non_null(strstr(p->tp_broken.code, "mov ebx, 1; add rbx, rcx"));
}

static void test_plan_closers(void **state)
{
    (void)state;
    /* a fixed register: an exact copy, lea with a displacement */
    const sw_plan *p = plan_of("mul r64", &zen4);
    const sw_pair *q = pair(p, "op1->rdx");
    assert_int_equal(q->chain.closer, SWC_EXACT);
    assert_string_equal(q->chain.closer_name, "lea");
    assert_string_equal(q->chain.code, "mov eax, 1; mul rbx; lea rbx, [rdx+1]");
    assert_string_equal(q->chain.closer_self, "lea rbx, [rdx+1]; lea rdx, [rbx+1]");
    /* across register files: bounds, the way back measured with it */
    p = plan_of("vmovq r64, xmm", &zen4);
    q = pair(p, "op2->op1");
    assert_int_equal(q->chain.closer, SWC_BOUND);
    assert_string_equal(q->chain.code, "vmovq rbx, xmm0; vmovq xmm0, rbx");
    assert_string_equal(q->chain.closer_self, "vmovq xmm0, rbx; vmovq rbx, xmm0");
    assert_true(q->chain.min_back == 1 && q->chain.min_fwd == 1);
    /* an address: an index register that stays 0 */
    p = plan_of("mov r64, m64", &zen4);
    q = pair(p, "op2.addr->op1");
    assert_string_equal(q->chain.code, "mov rbx, qword ptr [r14+rcx+64]; and rcx, rbx");
    assert_non_null(strstr(q->chain.init, "mov ecx, 0"));
    /* memory data: a store closer, free at least */
    q = pair(p, "op2->op1");
    assert_int_equal(q->chain.closer, SWC_BOUND);
    assert_string_equal(q->chain.code, "mov rbx, qword ptr [r14+64]; mov qword ptr [r14+64], rbx");
    assert_true(q->chain.min_back == 0);
}

static void test_plan_stated_values(void **state)
{
    (void)state;
    const sw_plan *p = plan_of("div r64", &zen4);
    assert_string_equal(p->values, "dividend 100 (high half 0), divisor 7");
    const sw_pair *q = pair(p, "rax->rax");
    /* the dividend restored after each instance, the high half written */
    assert_string_equal(q->chain.code, "mov edx, 0; div rbx; and eax, 0; or eax, 100");
    assert_int_equal(q->chain.closer, SWC_EXACT);
    /* the throughput block writes the values before every instance */
    assert_non_null(strstr(p->tp.code, "mov eax, 100; mov edx, 0; div rbx"));
    assert_int_equal(p->tp_broken.instances, 0);
    /* floating point: 1.0 in every element */
    p = plan_of("vdivpd zmm, zmm, zmm", &zen4);
    assert_non_null(strstr(p->pair[0].chain.init, "mov rax, 0x3ff0000000000000"));
}

static void test_plan_without_avx512(void **state)
{
    (void)state;
    static const sw_caps avx2 = {.sse41 = true, .avx = true, .avx2 = true};
    const sw_plan *p = plan_of("vaddps ymm, ymm, ymm", &avx2);
    assert_null(strstr(p->tp.init, "zmm"));
    assert_non_null(strstr(p->tp.init, "vpbroadcastq ymm0, xmm0"));
    /* sixteen registers: the block still holds a dozen instances */
    assert_int_equal(p->tp.instances, 12);
}

static void test_plan_refusals(void **state)
{
    (void)state;
    const sw_plan *p = plan_of("vgatherdps zmm {k}, vm32z", &zen4);
    assert_int_equal(p->n_pairs, 0);
    assert_string_equal(p->latency_note, "gathers and scatters: latency not measured");
    /* the mask is written again before every gather */
    assert_non_null(strstr(p->tp.code, "kmovq k"));
    p = plan_of("fadd st0, st", &zen4);
    assert_string_equal(pair(p, "op1->op1")->chain.code, "fadd st, st(1)");
    assert_non_null(pair(p, "op2->op1")->not_measured);
}

/* The events a PMU backend counts, from each vendor's table. */
static void test_pmu_events(void **state)
{
    (void)state;
    nb_event_list cyc = {0}, all = {0};
    assert_int_equal(sw_pmu_events("Skylake", &cyc, &all), 0);
    assert_int_equal(cyc.n, 1);
    assert_string_equal(cyc.v[0].name, "CPU_CLK_UNHALTED.THREAD_P");
    assert_int_equal(all.n, 2 + 8);   /* cycles, uops, ports 0-7 */
    assert_string_equal(all.v[1].name, "UOPS_RETIRED.RETIRE_SLOTS");
    assert_string_equal(all.v[2].name, "UOPS_DISPATCHED_PORT.PORT_0");
    assert_string_equal(all.v[9].name, "UOPS_DISPATCHED_PORT.PORT_7");
    event_list_free(&cyc);
    event_list_free(&all);
    assert_int_equal(sw_pmu_events("Zen4", &cyc, &all), 0);
    assert_string_equal(cyc.v[0].name, "LS_NOT_HALTED_CYC");
    assert_int_equal(all.n, 2);   /* no port events on AMD */
    assert_string_equal(all.v[1].name, "EX_RET_OPS");
    event_list_free(&cyc);
    event_list_free(&all);
    assert_int_equal(sw_pmu_events(NULL, &cyc, &all), NB_EUNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_forms_sorted_once),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_skip_reasons),
        cmocka_unit_test(test_cpuid_gating),
        cmocka_unit_test(test_name_of_bytes),
        cmocka_unit_test(test_plan_alternation),
        cmocka_unit_test(test_plan_closers),
        cmocka_unit_test(test_plan_stated_values),
        cmocka_unit_test(test_plan_without_avx512),
        cmocka_unit_test(test_plan_refusals),
        cmocka_unit_test(test_pmu_events),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
