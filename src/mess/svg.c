/* nb mess: the bandwidth-latency plot as SVG, drawn by nb itself.
 *
 * One <path> per mix (the smoothed curve; nothing else in the file is a
 * <path>, so a reader can count curves), the raw means as circles of the same
 * colour, labelled axes with round ticks, a legend, a dashed horizontal line
 * at the unloaded latency and a dashed vertical line at the peak bandwidth. */
#include "mess/mess.h"

#include <math.h>
#include <stdlib.h>

#include "sys/status.h"

#define W 900.0
#define H 560.0
#define ML 80.0
#define MR 190.0
#define MT 50.0
#define MB 70.0

static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                       "#9467bd", "#8c564b", "#e377c2", "#17becf",
                                       "#7f7f7f", "#bcbd22" };

/* A 1-2-5 step giving about five to eight ticks up to max. */
static double nice_step(double max)
{
    double raw = max / 6, p = pow(10, floor(log10(raw))), f = raw / p;
    return p * (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10);
}

typedef struct { double xmax, ymax; } scale;

static double px(const scale *s, double bw) { return ML + bw / s->xmax * (W - ML - MR); }
static double py(const scale *s, double ns) { return H - MB - ns / s->ymax * (H - MT - MB); }

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++)
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
}

static int cmp_bw(const void *a, const void *b)
{
    const mess_point *x = *(mess_point *const *)a, *y = *(mess_point *const *)b;
    return (x->bw_smooth > y->bw_smooth) - (x->bw_smooth < y->bw_smooth);
}

int mess_write_svg(FILE *f, const mess_result *r)
{
    scale s = { 0, 0 };
    for (int i = 0; i < r->nmix * r->npad; i++) {
        const mess_point *p = &r->pts[i];
        if (!p->kept)
            continue;
        s.xmax = fmax(s.xmax, fmax(p->bw, p->bw_smooth));
        s.ymax = fmax(s.ymax, fmax(p->ns, p->ns_smooth));
    }
    if (r->unloaded.kept)
        s.ymax = fmax(s.ymax, r->unloaded.ns);
    if (!(s.xmax > 0))
        s.xmax = 1;
    if (!(s.ymax > 0))
        s.ymax = 100;
    double xs = nice_step(s.xmax * 1.05), ys = nice_step(s.ymax * 1.1);
    s.xmax = ceil(s.xmax * 1.05 / xs) * xs;
    s.ymax = ceil(s.ymax * 1.1 / ys) * ys;

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"13\">\n",
            W, H, W, H);
    fputs("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", f);
    fprintf(f, "<text x=\"%.0f\" y=\"28\" font-size=\"16\">Memory bandwidth-latency curves "
               "(nb -mess, ",
            ML);
    xml_text(f, r->m.brand[0] ? r->m.brand : r->m.vendor);
    fputs(")</text>\n", f);
    /* grid and ticks: tick k at k * step, not at a running sum (which
     * drifts by rounding); the axis maxima are whole multiples of the steps */
    long nx = lround(s.xmax / xs), ny = lround(s.ymax / ys);
    for (long k = 0; k <= nx; k++) {
        double v = (double)k * xs;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
                px(&s, v), MT, px(&s, v), H - MB, px(&s, v), H - MB + 18, v);
    }
    for (long k = 0; k <= ny; k++) {
        double v = (double)k * ys;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                ML, py(&s, v), W - MR, py(&s, v), ML - 6, py(&s, v) + 4, v);
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
               "stroke=\"black\"/>\n",
            ML, MT, W - ML - MR, H - MT - MB);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">Bandwidth (GB/s, "
               "generator byte counts)</text>\n",
            (ML + W - MR) / 2, H - 22);
    fprintf(f, "<text transform=\"translate(22 %.1f) rotate(-90)\" text-anchor=\"middle\">"
               "Load latency (ns)</text>\n",
            (MT + H - MB) / 2);

    /* unloaded latency and peak bandwidth marks */
    if (r->unloaded.kept) {
        double y = py(&s, r->unloaded.ns);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" "
                   "stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%.1f\">unloaded %.1f "
                   "ns</text>\n",
                ML, y, W - MR, y, ML + 6, y - 5, r->unloaded.ns);
    }
    if (!isnan(r->peak_bw)) {
        double x = px(&s, r->peak_bw);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" "
                   "stroke-dasharray=\"2 3\"/><text x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"end\">peak %.2f GB/s</text>\n",
                x, MT, x, H - MB, x - 4, MT + 14, r->peak_bw);
    }

    /* curves */
    /* c holds pointers to points, so sizeof *c is one pointer, as meant (the
     * check's option to allow that needs clang-tidy 16).
     * NOLINTNEXTLINE(bugprone-sizeof-expression) */
    mess_point **c = malloc((size_t)(r->npad > 0 ? r->npad : 1) * sizeof *c);
    if (!c)
        return NB_ENOMEM;
    int legend = 0;
    for (int m = 0; m < r->nmix; m++) {
        int n = 0;
        for (int p = 0; p < r->npad; p++)
            if (r->pts[m * r->npad + p].kept)
                c[n++] = &r->pts[m * r->npad + p];
        if (n == 0)
            continue;
        /* sizeof *c: one pointer (see the malloc above).
         * NOLINTNEXTLINE(bugprone-sizeof-expression) */
        qsort(c, (size_t)n, sizeof *c, cmp_bw);
        const char *col = colours[m % (sizeof colours / sizeof *colours)];
        fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"", col);
        for (int i = 0; i < n; i++)
            fprintf(f, "%s%.1f %.1f", i ? " L" : "M", px(&s, c[i]->bw_smooth),
                    py(&s, c[i]->ns_smooth));
        fputs("\"/>\n", f);
        for (int i = 0; i < n; i++)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\" "
                       "fill-opacity=\"0.5\"/>\n",
                    px(&s, c[i]->bw), py(&s, c[i]->ns), col);
        double ly = MT + 10 + 20 * legend++;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                   "stroke-width=\"3\"/><text x=\"%.1f\" y=\"%.1f\">%d%% read / %d%% "
                   "write</text>\n",
                W - MR + 14, ly, W - MR + 38, ly, col, W - MR + 44, ly + 4,
                r->mixes[m], 100 - r->mixes[m]);
    }
    free(c);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#555\">lines: "
               "Savitzky-Golay</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
               "fill=\"#555\">dots: raw means</text>\n",
            W - MR + 14, MT + 20.0 * legend + 16, W - MR + 14, MT + 20.0 * legend + 30);
    fputs("</svg>\n", f);
    return ferror(f) ? NB_ESYSTEM : NB_OK;
}
