/* nb step: a stepped group's measurement (see step.h). */
#include <string.h>

#include "measure/step.h"
#include "measure/worker_shared.h"
#include "pmu/emu_step.h"
#include "sys/status.h"

static emu_prog prog_of(const codegen_prog *p)
{
    uintptr_t base = (uintptr_t)p->base;
    return (emu_prog){
        .entry = (void (*)(void))(void *)p->base,
        .lo = base, .hi = base + p->code_len, .map_end = base + p->map_len,
        .epilogue = base + p->epilogue_off,
    };
}

int step_begin(const pmu_counter *ctr, size_t n, nb_error *err)
{
    if (emu_step_begin(ctr, n) == 0)
        return 0;
    return nb_error_set(err, NB_ESYSTEM, "cannot install the stepper's signal handlers");
}

void step_warm(const codegen_prog *p)
{
    emu_prog e = prog_of(p);
    g_cur = p;
    g_cur_kind = PROG_MEASURE;
    g_code_ran = true;
    emu_step_call_native(&e);
    child_restore_bases();
    g_cur = NULL;
    g_cur_kind = PROG_NONE;
}

static double reading(const codegen_prog *p, const pmu_counter *c, size_t k, bool *ovf)
{
    uint64_t d = p->data->m2[k] - p->data->m1[k];
    if (c->width > 0 && c->width < 64)
        d &= (UINT64_C(1) << c->width) - 1;
    if ((int64_t)d < 0)
        *ovf = true;
    return (double)(int64_t)d * c->scale;
}

void step_measure(run_state rs[2], long warm, long n, size_t n_ctr, pmu_counter *ctr,
                  bool *ovf, uint64_t budget, step_outcome *out)
{
    memset(out, 0, sizeof *out);
    for (int r = 0; r < 2 && !out->over; r++) {
        emu_prog e = prog_of(rs[r].p);
        for (long i = 0; i < warm; i++)
            step_warm(rs[r].p);
        for (long i = 0; i < n && !out->over; i++) {
            g_cur = rs[r].p;
            g_cur_kind = PROG_MEASURE;
            g_code_ran = true;
            uint64_t left = budget > out->steps ? budget - out->steps : 1;
            emu_step_result s = emu_step_call(&e, budget ? left : 0, true);
            child_restore_bases();
            g_cur = NULL;
            g_cur_kind = PROG_NONE;
            out->steps += s.steps;
            out->retired += s.retired;
            out->over |= s.over;
            out->unknown |= s.unknown;
            for (size_t k = 0; k < n_ctr; k++)
                rs[r].samples[k * (size_t)n + (size_t)i] =
                    ctr[k].read == PMU_READ_NONE ? 0 : reading(rs[r].p, &ctr[k], k, &ovf[k]);
        }
    }
    emu_step_end();
    for (size_t k = 0; k < n_ctr; k++)
        if (!ctr[k].emu || out->over || (out->unknown && emu_needs_classes(ctr[k].emu)))
            ctr[k].read = PMU_READ_NONE;
}
