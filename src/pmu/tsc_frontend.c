/* nb tsc front-end probe: see tsc_frontend.h. */
#include <math.h>
#include <string.h>

#include "measure/stats.h"
#include "pmu/tsc_estimate.h"
#include "pmu/tsc_frontend.h"

const unsigned char tsc_probe_nop[4] = {0x0F, 0x1F, 0x40, 0x00};

/* Cores with SMT and the NOPs their front end delivers a cycle (rename
 * width).  Cores without SMT (the E-cores, Lion Cove) and older or smaller
 * ones are left out: nothing shares them, or the width is not sure. */
static const struct {
    const char *uarch;
    double width;
} g_width[] = {
    {"SandyBridge", 4}, {"JakeTown", 4}, {"IvyBridge", 4}, {"IvyTown", 4},
    {"Haswell", 4}, {"HaswellX", 4}, {"Broadwell", 4}, {"BroadwellX", 4},
    {"BroadwellDE", 4}, {"Skylake", 4}, {"SkylakeX", 4}, {"CascadeLakeX", 4},
    {"IceLake", 5}, {"IceLakeX", 5}, {"TigerLake", 5}, {"RocketLake", 5},
    {"AlderLakeP", 6}, {"SapphireRapids", 6}, {"EmeraldRapids", 6},
    {"GraniteRapids", 6}, {"MeteorLakeP", 6},
    /* a floor: every Zen renames at least 4 a cycle (Zen 3-5 more) */
    {"Zen1", 4}, {"Zen2", 4}, {"Zen3", 4}, {"Zen4", 4}, {"Zen5", 4}, {"Zen6", 4},
};

double tsc_frontend_floor(const char *uarch)
{
    for (size_t i = 0; uarch && i < sizeof g_width / sizeof g_width[0]; i++)
        if (strcmp(uarch, g_width[i].uarch) == 0)
            return 1 / g_width[i].width;
    return 0;
}

/* Mean and standard error of the pairs' costs within FE_KEEP times their
 * median. */
static double kept_mean(const double *d, size_t n, double med, double *se)
{
    double sum = 0, sq = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] <= FE_KEEP * med) {
            sum += d[i];
            sq += d[i] * d[i];
            k++;
        }
    if (!k) {
        *se = INFINITY;
        return med;
    }
    double mean = sum / (double)k;
    *se = k > 1 ? sqrt(fmax(sq / (double)k - mean * mean, 0) / (double)(k - 1)) : INFINITY;
    return mean;
}

void tsc_frontend_fit(const double *a, const double *b, size_t n, double ops, double ratio,
                      double *scratch, fe_fit *f)
{
    *f = (fe_fit){0};
    if (n == 0 || !(ops > 0) || !(ratio > 0))
        return;
    for (size_t i = 0; i < n; i++)
        scratch[i] = (b[i] - a[i]) / ops / ratio;
    double se, med = stats_median(scratch, n);
    f->cost = kept_mean(scratch, n, med, &se);
    f->hw = TSC_Z * se;
    size_t chunks = n / FE_CHUNK_RUNS < FE_CHUNKS ? n / FE_CHUNK_RUNS : FE_CHUNKS;
    for (size_t c = 0; c < chunks; c++) {
        size_t lo = c * n / chunks, hi = (c + 1) * n / chunks;
        double cse, m = kept_mean(scratch + lo, hi - lo, med, &cse);
        if (m > 0 && isfinite(cse) && (f->best == 0 || m < f->best)) {
            f->best = m;
            f->best_hw = TSC_Z * cse;
        }
    }
}

double tsc_frontend_slowdown(const fe_fit *f, double quiet, double *hw)
{
    bool known = f->best > 0 && quiet > 0 && isfinite(f->best_hw);
    *hw = known ? f->best_hw / quiet : 0;
    return known ? f->best / quiet - 1 : 0;
}

bool tsc_frontend_shared(double slowdown)
{
    return slowdown > FE_SHARED;
}
