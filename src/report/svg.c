/* svg.c: inline SVG plots for the HTML report: lines over linear or logarithmic axes with
 * ticks, or points over named categories, with optional whiskers, a legend, a reference
 * line and shaded bands (telemetry phases). Plain SVG 1.1 drawn in the page; nothing is
 * loaded from anywhere. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"
#include "report/rep_int.h"

enum { W = 610, H = 330, ML = 62, MR = 170, MT = 30, MB = 46 };
static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

void rep_series_add(rep_series *s, double x, double y)
{
    s->x = gv_xrealloc(s->x, sizeof(double) * (size_t)(s->n + 1));
    s->y = gv_xrealloc(s->y, sizeof(double) * (size_t)(s->n + 1));
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->n++;
}

void rep_series_add_err(rep_series *s, double x, double y, double e)
{
    rep_series_add(s, x, y);
    s->err = gv_xrealloc(s->err, sizeof(double) * (size_t)s->n);
    s->err[s->n - 1] = e;
}

void rep_series_free(rep_series *s, int n)
{
    for (int i = 0; i < n; i++) {
        free(s[i].x);
        free(s[i].y);
        free(s[i].err);
        s[i].x = s[i].y = s[i].err = NULL;
        s[i].n = 0;
    }
}

/* 1500 -> "1.5k", 2e6 -> "2M". */
static void fmt_tick(double v, char *buf, size_t len)
{
    double a = fabs(v);
    if (a >= 1e9)
        snprintf(buf, len, "%gG", v / 1e9);
    else if (a >= 1e6)
        snprintf(buf, len, "%gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(buf, len, "%gk", v / 1e3);
    else
        snprintf(buf, len, "%.4g", v);
}

typedef struct {
    int log;
    double lo, hi; /* in axis units (log10 of the value when log) */
    int nt;
    double ticks[40];
} axis;

static double to_axis(const axis *a, double v)
{
    return a->log ? log10(v) : v;
}

static int usable(const axis *a, double v)
{
    return isfinite(v) && (!a->log || v > 0);
}

static void axis_setup(axis *a, double mn, double mx, int is_log, int from_zero, int base2)
{
    a->log = is_log;
    a->nt = 0;
    if (is_log) {
        double l0 = log10(mn), l1 = log10(mx);
        if (l1 - l0 < 1e-9)
            l0 -= 0.5, l1 += 0.5;
        /* Powers of two read best for batch sizes and instance counts. */
        int p0 = (int)floor(log2(mn) + 1e-9), p1 = (int)ceil(log2(mx) - 1e-9);
        if (base2 && p1 - p0 <= 16 && mn >= 1) {
            if (p1 == p0) /* one x value: centre it */
                p0--, p1++;
            a->lo = p0 * log10(2.0);
            a->hi = p1 * log10(2.0);
            int step = p1 - p0 > 10 ? 2 : 1;
            for (int p = p0; p <= p1 && a->nt < 40; p += step)
                a->ticks[a->nt++] = ldexp(1.0, p);
            return;
        }
        a->lo = floor(l0);
        a->hi = ceil(l1);
        int decades = (int)(a->hi - a->lo);
        for (int d = (int)a->lo; d <= (int)a->hi && a->nt < 40; d++) {
            a->ticks[a->nt++] = pow(10, d);
            if (decades <= 2 && d < (int)a->hi) {
                a->ticks[a->nt++] = 2 * pow(10, d);
                a->ticks[a->nt++] = 5 * pow(10, d);
            }
        }
        return;
    }
    if (from_zero && mn > 0)
        mn = 0;
    if (mx - mn < 1e-12)
        mx = mn + (mn ? fabs(mn) : 1);
    double raw = (mx - mn) / 5, mag = pow(10, floor(log10(raw))), step = mag;
    static const double mult[] = {1, 2, 2.5, 5, 10};
    for (size_t i = 0; i < GV_ARRAY_LEN(mult); i++)
        if ((step = mag * mult[i]) >= raw)
            break;
    a->lo = floor(mn / step) * step;
    a->hi = ceil(mx / step) * step;
    for (double v = a->lo; v <= a->hi + step * 1e-6 && a->nt < 40; v += step)
        a->ticks[a->nt++] = fabs(v) < step * 1e-9 ? 0 : v;
}

/* The half-width of point k's whisker (0: none). */
static double whisker(const rep_series *s, int k)
{
    return s->err && isfinite(s->err[k]) && s->err[k] > 0 ? s->err[k] : 0;
}

/* The x axis of a category plot: the categories at 1..n, half a step of margin each side. */
static void axis_categories(axis *a, int n)
{
    a->log = 0;
    a->lo = 0.5;
    a->hi = n + 0.5;
    for (a->nt = 0; a->nt < n && a->nt < 40; a->nt++)
        a->ticks[a->nt] = a->nt + 1;
}

void rep_svg_plot(rep_buf *b, const rep_plot *p, const rep_series *s, int ns)
{
    double xmn = INFINITY, xmx = -INFINITY, ymn = INFINITY, ymx = -INFINITY;
    int cats = p->ncats > 0;
    axis ax = {.log = p->logx && !cats}, ay = {.log = p->logy};
    for (int i = 0; i < ns; i++)
        for (int k = 0; k < s[i].n; k++)
            if (usable(&ax, s[i].x[k]) && usable(&ay, s[i].y[k])) {
                double w = whisker(&s[i], k), lo = s[i].y[k] - w;
                xmn = GV_MIN(xmn, s[i].x[k]), xmx = GV_MAX(xmx, s[i].x[k]);
                ymn = GV_MIN(ymn, usable(&ay, lo) ? lo : s[i].y[k]), ymx = GV_MAX(ymx, s[i].y[k] + w);
            }
    for (int i = 0; i < p->nbands; i++)
        if (usable(&ax, p->bands[2 * i]) && usable(&ax, p->bands[2 * i + 1]))
            xmn = GV_MIN(xmn, p->bands[2 * i]), xmx = GV_MAX(xmx, p->bands[2 * i + 1]);
    if (usable(&ay, p->hline))
        ymn = GV_MIN(ymn, p->hline), ymx = GV_MAX(ymx, p->hline);
    rb_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", W, H, W, H);
    rb_puts(b, "<title>");
    rb_html(b, p->title);
    rb_puts(b, "</title>\n");
    rb_printf(b, "<text x=\"%d\" y=\"18\" class=\"pt\">", ML);
    rb_html(b, p->title);
    rb_puts(b, "</text>\n");
    if (!isfinite(xmn) || !isfinite(ymn)) {
        rb_printf(b, "<text x=\"%d\" y=\"%d\" class=\"note\">no data to plot</text></svg>\n", ML + 20, H / 2);
        return;
    }
    if (cats)
        axis_categories(&ax, p->ncats);
    else
        axis_setup(&ax, xmn, xmx, p->logx, 0, 1);
    axis_setup(&ay, ymn, ymx, p->logy, 1, 0);
    int pw = W - ML - MR, ph = H - MT - MB;
#define PX(v) (ML + (to_axis(&ax, (v)) - ax.lo) / (ax.hi - ax.lo) * pw)
#define PY(v) (MT + ph - (to_axis(&ay, (v)) - ay.lo) / (ay.hi - ay.lo) * ph)
    for (int i = 0; i < p->nbands; i++) {
        double x0 = PX(p->bands[2 * i]), x1 = PX(p->bands[2 * i + 1]);
        rb_printf(b, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" class=\"band\"><title>", x0, MT, GV_MAX(x1 - x0, 1.0), ph);
        rb_html(b, p->band_labels ? p->band_labels[i] : "");
        rb_puts(b, "</title></rect>\n");
    }
    rb_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>\n", ML, MT, pw, ph);
    char lab[32];
    for (int i = 0; i < ax.nt; i++) {
        double x = PX(ax.ticks[i]);
        fmt_tick(ax.ticks[i], lab, sizeof lab);
        rb_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>"
                     "<text x=\"%.1f\" y=\"%d\" class=\"tx\">", x, MT, x, MT + ph, x, MT + ph + 15);
        rb_html(b, cats ? p->cats[i] : lab);
        rb_puts(b, "</text>\n");
    }
    for (int i = 0; i < ay.nt; i++) {
        double y = PY(ay.ticks[i]);
        fmt_tick(ay.ticks[i], lab, sizeof lab);
        rb_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>"
                     "<text x=\"%d\" y=\"%.1f\" class=\"ty\">%s</text>\n", ML, y, ML + pw, y, ML - 5, y + 4, lab);
    }
    rb_printf(b, "<text x=\"%d\" y=\"%d\" class=\"al\">", ML + pw / 2, H - 8);
    rb_html(b, p->xlabel);
    rb_printf(b, "%s</text>\n<text transform=\"translate(14,%d) rotate(-90)\" class=\"al\">", ax.log ? " (log scale)" : "", MT + ph / 2);
    rb_html(b, p->ylabel);
    rb_printf(b, "%s</text>\n", p->logy ? " (log)" : "");
    if (usable(&ay, p->hline))
        rb_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"ref\"/>\n", ML, PY(p->hline), ML + pw, PY(p->hline));
    int shown = 0;
    for (int i = 0; i < ns; i++) {
        const char *col = palette[i % GV_ARRAY_LEN(palette)];
        int any = 0, pen = 0;
        for (int k = 0; k < s[i].n && !cats; k++) {
            if (!usable(&ax, s[i].x[k]) || !usable(&ay, s[i].y[k])) {
                if (pen)
                    rb_puts(b, "\"/>\n");
                pen = 0;
                continue;
            }
            if (!pen)
                rb_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
            rb_printf(b, "%.1f,%.1f ", PX(s[i].x[k]), PY(s[i].y[k]));
            pen = any = 1;
        }
        if (pen)
            rb_puts(b, "\"/>\n");
        for (int k = 0; k < s[i].n && cats; k++)
            any |= usable(&ax, s[i].x[k]) && usable(&ay, s[i].y[k]);
        if (!any)
            continue;
        for (int k = 0; k < s[i].n; k++) { /* whiskers: y - e to y + e, capped */
            double w = whisker(&s[i], k), x = PX(s[i].x[k]);
            if (!w || !usable(&ax, s[i].x[k]) || !usable(&ay, s[i].y[k] - w))
                continue;
            double y0 = PY(s[i].y[k] - w), y1 = PY(s[i].y[k] + w);
            rb_printf(b, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fh10M%.1f %.1fh10\" stroke=\"%s\" fill=\"none\"/>\n", x, y0, y1,
                      x - 5, y0, x - 5, y1, col);
        }
        if (s[i].n <= 64) /* markers only where points are few enough to read */
            for (int k = 0; k < s[i].n; k++)
                if (usable(&ax, s[i].x[k]) && usable(&ay, s[i].y[k])) {
                    int c = (int)s[i].x[k] - 1;
                    rb_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>", PX(s[i].x[k]),
                              PY(s[i].y[k]), cats ? 5 : 3, col);
                    if (cats && c >= 0 && c < p->ncats)
                        rb_html(b, p->cats[c]);
                    else
                        rb_printf(b, "%g", s[i].x[k]);
                    rb_printf(b, ", %.4g", s[i].y[k]);
                    if (whisker(&s[i], k))
                        rb_printf(b, " ± %.4g", whisker(&s[i], k));
                    rb_puts(b, "</title></circle>\n");
                }
        int ly = MT + 8 + shown * 17;
        rb_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/><text x=\"%d\" y=\"%d\" class=\"lg\">",
                  W - MR + 12, ly, W - MR + 30, ly, col, W - MR + 35, ly + 4);
        rb_html(b, s[i].name);
        rb_puts(b, "</text>\n");
        shown++;
    }
#undef PX
#undef PY
    rb_puts(b, "</svg>\n");
}
