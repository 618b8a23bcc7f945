/* views.c: the Markdown and the self-contained HTML views of a run record. The HTML page
 * has inline CSS and inline SVG plots only (no scripts, fonts or images from anywhere), so
 * it renders offline and can be attached to an issue. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"
#include "report/rep_int.h"
#include "report/report.h"

#define MAX_SERIES 24

/* ---- series from benchmark entries ----------------------------------------------------- */

typedef void (*label_fn)(const cJSON *e, char *buf, size_t len);
typedef double (*value_fn)(const cJSON *arr, const cJSON *e);

static void label_train(const cJSON *e, char *b, size_t n)
{
    snprintf(b, n, "%s %s c%.0f %s", gv_json_str(e, "device", "?"), gv_json_str(e, "dtype", ""),
             gv_json_num(e, "channels"), gv_json_str(e, "norm", ""));
}
static void label_matmul(const cJSON *e, char *b, size_t n)
{
    snprintf(b, n, "%s %s", gv_json_str(e, "device", "?"), gv_json_str(e, "dtype", ""));
}
static void label_emu(const cJSON *e, char *b, size_t n)
{
    snprintf(b, n, "%s renderer", gv_json_str(e, "video", "?"));
}
static void label_drop7(const cJSON *e, char *b, size_t n)
{
    snprintf(b, n, "%s %s", gv_json_str(e, "device", "?"), gv_json_str(e, "player", "?"));
}
static double x_batch(const cJSON *arr, const cJSON *e) { return gv_json_num(e, "batch"); }
static double y_latency(const cJSON *arr, const cJSON *e) { return gv_json_num(e, "latency_ms_median"); }
static double y_infer(const cJSON *arr, const cJSON *e) { return gv_json_num(e, "samples_per_s_median"); }
static double y_games(const cJSON *arr, const cJSON *e) { return gv_json_num(e, "games_per_s_median"); }
static double x_size(const cJSON *arr, const cJSON *e)
{
    return cbrt(gv_json_num(e, "m") * gv_json_num(e, "n") * gv_json_num(e, "k"));
}
static double x_instances(const cJSON *arr, const cJSON *e) { return gv_json_num(e, "instances"); }
static double y_train(const cJSON *arr, const cJSON *e) { return rep_value(e, "train"); }
static double y_matmul(const cJSON *arr, const cJSON *e) { return rep_value(e, "matmul"); }
static double y_emu(const cJSON *arr, const cJSON *e) { return rep_value(e, "emu"); }
static double y_train_speedup(const cJSON *arr, const cJSON *e) { return rep_speedup(arr, e, "train"); }
static double y_matmul_speedup(const cJSON *arr, const cJSON *e) { return rep_speedup(arr, e, "matmul"); }

/* Groups arr's entries into series by label, points sorted by x; entries whose y is not
 * finite are skipped. Returns the number of series. */
static int build_series(const cJSON *arr, label_fn lf, value_fn xf, value_fn yf, rep_series *s, int max)
{
    int ns = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        double x = xf(arr, e), y = yf(arr, e);
        if (!isfinite(x) || !isfinite(y))
            continue;
        char name[96];
        lf(e, name, sizeof name);
        int k = 0;
        while (k < ns && strcmp(s[k].name, name))
            k++;
        if (k == ns) {
            if (ns == max)
                continue;
            memset(&s[ns], 0, sizeof s[ns]);
            snprintf(s[ns].name, sizeof s[ns].name, "%s", name);
            ns++;
        }
        rep_series_add(&s[k], x, y);
    }
    for (int k = 0; k < ns; k++) /* insertion sort by x */
        for (int i = 1; i < s[k].n; i++)
            for (int j = i; j > 0 && s[k].x[j - 1] > s[k].x[j]; j--) {
                double tx = s[k].x[j], ty = s[k].y[j];
                s[k].x[j] = s[k].x[j - 1], s[k].y[j] = s[k].y[j - 1];
                s[k].x[j - 1] = tx, s[k].y[j - 1] = ty;
            }
    return ns;
}

static void plot_entries(rep_buf *b, const cJSON *arr, label_fn lf, value_fn xf, value_fn yf, const char *title,
                         const char *xl, const char *yl, int logy, double hline)
{
    rep_series s[MAX_SERIES];
    int ns = build_series(arr, lf, xf, yf, s, MAX_SERIES);
    if (ns == 0)
        return;
    rep_plot p = {title, xl, yl, 1, logy, hline, NULL, NULL, 0, NULL, 0};
    rep_svg_plot(b, &p, s, ns);
    rep_series_free(s, ns);
}

/* One point per category with its whisker (err[k], NAN: none), named series. */
static void plot_categories(rep_buf *b, const char *title, const char *ylabel, const char *series, const char *const *cats,
                            const double *y, const double *err, int n)
{
    rep_series s = {0};
    snprintf(s.name, sizeof s.name, "%s", series);
    for (int k = 0; k < n; k++)
        rep_series_add_err(&s, k + 1, y[k], err ? err[k] : NAN);
    rep_plot p = {title, "", ylabel, 0, 0, NAN, NULL, NULL, 0, cats, n};
    rep_svg_plot(b, &p, &s, 1);
    rep_series_free(&s, 1);
}

/* play: each policy's mean score with its 95% interval. */
static void plot_play(rep_buf *b, const cJSON *play)
{
    enum { MAX_POLICIES = 16 };
    const char *names[MAX_POLICIES];
    double y[MAX_POLICIES], err[MAX_POLICIES];
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, play) {
        if (n == MAX_POLICIES)
            break;
        names[n] = gv_json_str(e, "policy", "?");
        y[n] = gv_json_num(e, "score_mean");
        err[n++] = gv_json_num(e, "score_ci95");
    }
    plot_categories(b, "Mean score per policy (bars: 95% interval)", "points per game", "mean score", names, y, err, n);
}

/* selfplay: the shares of the time of its parts. */
static void plot_selfplay(rep_buf *b, const cJSON *sp)
{
    static const char *const names[] = {"search", "inference", "game", "writing"};
    static const char *const keys[] = {"seconds_search", "seconds_inference", "seconds_game", "seconds_write"};
    double y[4], t = gv_json_num(sp, "seconds_total");
    for (int k = 0; k < 4; k++)
        y[k] = 100 * gv_json_num(sp, keys[k]) / t;
    plot_categories(b, "Self-play: where the time went", "% of the play time", "share", names, y, NULL, 4);
}

/* train --data: the losses per epoch. */
static void plot_epochs(rep_buf *b, const cJSON *epochs)
{
    static const char *const keys[] = {"train_loss", "val_loss", "val_policy_ce", "val_value_mse"};
    static const char *const names[] = {"train loss", "validation loss", "validation policy CE", "validation value MSE"};
    rep_series s[4];
    memset(s, 0, sizeof s);
    for (int k = 0; k < 4; k++) {
        snprintf(s[k].name, sizeof s[k].name, "%s", names[k]);
        const cJSON *e;
        cJSON_ArrayForEach(e, epochs)
            rep_series_add(&s[k], gv_json_num(e, "epoch"), gv_json_num(e, keys[k]));
    }
    rep_plot p = {"Losses per epoch", "epoch", "loss", 0, 0, NAN, NULL, NULL, 0, NULL, 0};
    rep_svg_plot(b, &p, s, 4);
    rep_series_free(s, 4);
}

/* A Drop7 training run: the evaluation's mean score per generation with its 95% interval,
 * and the best network's. */
static void plot_run(rep_buf *b, const cJSON *gens)
{
    rep_series s[2];
    memset(s, 0, sizeof s);
    snprintf(s[0].name, sizeof s[0].name, "each generation (evaluation seeds)");
    snprintf(s[1].name, sizeof s[1].name, "the best network so far");
    const cJSON *e;
    cJSON_ArrayForEach(e, gens) {
        rep_series_add_err(&s[0], gv_json_num(e, "generation"), gv_json_num(e, "score_mean"), gv_json_num(e, "score_ci95"));
        const cJSON *f;
        cJSON_ArrayForEach(f, gens) /* the best's own evaluation */
            if (gv_json_num(f, "generation") == gv_json_num(e, "best"))
                rep_series_add(&s[1], gv_json_num(e, "generation"), gv_json_num(f, "score_mean"));
    }
    rep_plot p = {"Learning curve: mean score per generation (bars: 95% interval)", "generation", "mean score", 0, 0, NAN,
                  NULL, NULL, 0, NULL, 0};
    rep_svg_plot(b, &p, s, 2);
    rep_series_free(s, 2);
}

/* Telemetry over time: one plot per group of signals that has data, phases shaded. */
#define PLOT_BUCKETS 1000 /* points per plotted signal, at most twice this */

static void plot_telemetry(rep_buf *b, const cJSON *tel)
{
    const cJSON *ser = cJSON_GetObjectItem(tel, "series"), *t = cJSON_GetObjectItem(ser, "t");
    int n = cJSON_GetArraySize(t);
    if (n == 0)
        return;
    const cJSON *phases = cJSON_GetObjectItem(tel, "phases");
    int nb = cJSON_GetArraySize(phases);
    double *bands = gv_xcalloc((size_t)(2 * nb + 2), sizeof(double));
    const char **labels = gv_xcalloc((size_t)nb + 1, sizeof(char *));
    int k = 0;
    const cJSON *ph;
    cJSON_ArrayForEach(ph, phases) {
        bands[2 * k] = gv_json_num(ph, "t0");
        bands[2 * k + 1] = gv_json_num(ph, "t1");
        labels[k++] = gv_json_str(ph, "label", "");
    }
    static const struct {
        const char *title, *ylabel, *sig[3], *names[3];
    } groups[] = {
        {"Power during the run", "watts", {"gpu_power_w", "cpu_package_w", NULL}, {"GPU board", "CPU package (RAPL)", NULL}},
        {"Clocks during the run", "MHz", {"gpu_sm_mhz", "gpu_mem_mhz", "cpu_mhz"}, {"GPU SM", "GPU memory", "CPU (mean)"}},
        {"GPU temperature and utilisation", "C / %", {"gpu_temp_c", "gpu_util_pct", NULL}, {"GPU temperature C", "GPU busy %", NULL}},
        {"CPU load", "1-minute load average", {"loadavg1", NULL, NULL}, {"load average", NULL, NULL}},
    };
    for (size_t g = 0; g < GV_ARRAY_LEN(groups); g++) {
        rep_series s[3];
        int ns = 0, any = 0;
        for (int j = 0; j < 3 && groups[g].sig[j]; j++) {
            const cJSON *y = cJSON_GetObjectItem(ser, groups[g].sig[j]);
            memset(&s[ns], 0, sizeof s[ns]);
            snprintf(s[ns].name, sizeof s[ns].name, "%s", groups[g].names[j]);
            /* One walk down both lists (linear in the series' length); a long series is cut
             * into at most PLOT_BUCKETS buckets, each drawn by its lowest and highest point,
             * so that a spike stays visible. */
            const cJSON *ti = t->child, *yi = y ? y->child : NULL;
            int per = (n + PLOT_BUCKETS - 1) / PLOT_BUCKETS, in = 0;
            double lo_t = 0, lo = NAN, hi_t = 0, hi = NAN;
            for (int i = 0; ti && yi; i++, ti = ti->next, yi = yi->next) {
                double tv = cJSON_IsNumber(ti) ? ti->valuedouble : NAN;
                double yv = cJSON_IsNumber(yi) ? yi->valuedouble : NAN;
                any |= isfinite(yv);
                if (per <= 1) {
                    rep_series_add(&s[ns], tv, yv);
                    continue;
                }
                if (in == 0 || (isfinite(yv) && !(yv >= lo)))
                    lo = yv, lo_t = tv;
                if (in == 0 || (isfinite(yv) && !(yv <= hi)))
                    hi = yv, hi_t = tv;
                if (++in == per || !ti->next || !yi->next) {
                    rep_series_add(&s[ns], lo_t <= hi_t ? lo_t : hi_t, lo_t <= hi_t ? lo : hi);
                    if (lo_t != hi_t)
                        rep_series_add(&s[ns], lo_t <= hi_t ? hi_t : lo_t, lo_t <= hi_t ? hi : lo);
                    in = 0;
                }
            }
            ns++;
        }
        if (any) {
            rep_plot p = {groups[g].title, "seconds since start (shaded: measured phases)", groups[g].ylabel, 0, 0, NAN, bands, labels, nb, NULL, 0};
            rep_svg_plot(b, &p, s, ns);
        }
        rep_series_free(s, ns);
    }
    free(bands);
    free(labels);
}

#undef PLOT_BUCKETS

/* ---- common pieces ---------------------------------------------------------------------- */

static void meta_line(rep_buf *b, const cJSON *rec, int html)
{
    const cJSON *host = cJSON_GetObjectItem(rec, "host");
    char line[1024];
    snprintf(line, sizeof line, "gpuvet %s, %s on %s, started %s, finished %s, exit code %.0f",
             gv_json_str(rec, "gpuvet_version", "?"), gv_json_str(rec, "command", "?"), gv_json_str(host, "hostname", "?"),
             gv_json_str(rec, "started_at", "?"), gv_json_str(rec, "finished_at", "?"), gv_json_num(rec, "exit_code"));
    if (html) {
        rb_puts(b, "<p class=\"meta\">");
        rb_html(b, line);
        rb_puts(b, "</p>\n");
    } else {
        rb_printf(b, "%s\n\n", line);
    }
}

/* Machine summary from host.probe (when the record carries one). */
static void machine(rep_buf *b, const cJSON *rec, int html)
{
    const cJSON *p = rep_path(rec, "host.probe");
    if (!p)
        return;
    char line[1024];
    const cJSON *cpu = cJSON_GetObjectItem(p, "cpu"), *blas = cJSON_GetObjectItem(p, "blas");
    snprintf(line, sizeof line, "CPU %s (%.0f cores); BLAS %s %s (%s, %.0f threads)", gv_json_str(cpu, "model", "?"),
             gv_json_num(cpu, "cores"), gv_json_str(blas, "name", "?"), gv_json_str(blas, "version", ""),
             gv_json_str(blas, "core", "?"), gv_json_num(blas, "threads"));
    rb_puts(b, html ? "<h2>Machine</h2>\n<ul>\n<li>" : "## Machine\n\n- ");
    html ? rb_html(b, line) : rb_md(b, line);
    rb_puts(b, html ? "</li>\n" : "\n");
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItem(p, "gpus")) {
        const cJSON *m = cJSON_GetObjectItem(g, "memory");
        const char *vendor = gv_json_str(g, "vendor", ""), *name = gv_json_str(g, "name", "?");
        if (*vendor && !strncmp(name, vendor, strlen(vendor)))
            vendor = ""; /* "NVIDIA H200" already names its vendor */
        snprintf(line, sizeof line, "GPU %.0f: %s%s%s (%s), driver %s, memory %s %.1f GiB", gv_json_num(g, "index"),
                 vendor, *vendor ? " " : "", name,
                 gv_json_str(g, "arch", "?"), gv_json_str(g, "driver_version", "?"),
                 gv_json_str(m, "kind", "?"), gv_json_num(m, "allocatable_bytes") / (1u << 30));
        rb_puts(b, html ? "<li>" : "- ");
        html ? rb_html(b, line) : rb_md(b, line);
        rb_puts(b, html ? "</li>\n" : "\n");
    }
    cJSON_ArrayForEach(g, cJSON_GetObjectItem(p, "warnings")) {
        rb_puts(b, html ? "<li class=\"bad\">warning: " : "- **warning:** ");
        html ? rb_html(b, g->valuestring) : rb_md(b, g->valuestring);
        rb_puts(b, html ? "</li>\n" : "\n");
    }
    rb_puts(b, html ? "</ul>\n" : "\n");
}

static void verdicts(rep_buf *b, const cJSON *rec, int html)
{
    const cJSON *v = cJSON_GetObjectItem(rec, "verdict"), *it;
    rb_puts(b, html ? "<h2>Verdict</h2>\n<ul class=\"verdict\">\n" : "## Verdict\n\n");
    if (!cJSON_GetArraySize(v))
        rb_puts(b, html ? "<li>no verdict: the record holds no figures that gpuvet judges</li>\n" : "- no verdict: the record holds no figures that gpuvet judges\n");
    cJSON_ArrayForEach(it, v) {
        if (!cJSON_IsString(it))
            continue;
        rb_puts(b, html ? "<li>" : "- ");
        html ? rb_html(b, it->valuestring) : rb_md(b, it->valuestring);
        rb_puts(b, html ? "</li>\n" : "\n");
    }
    rb_puts(b, html ? "</ul>\n" : "\n");
}

static void soak(rep_buf *b, const cJSON *rec, int html)
{
    const cJSON *s = cJSON_GetObjectItem(rec, "soak");
    if (!cJSON_IsObject(s))
        return;
    char line[512];
    snprintf(line, sizeof line, "%s %s c%.0f batch %.0f, %.0f steps: loss %.4g -> %.4g (ratio %.3g), finite %s: %s",
             gv_json_str(s, "device", "?"), gv_json_str(s, "dtype", ""), gv_json_num(s, "channels"),
             gv_json_num(s, "batch"), gv_json_num(s, "steps"), gv_json_num(s, "loss_first"),
             gv_json_num(s, "loss_last"), gv_json_num(s, "loss_ratio"),
             cJSON_IsTrue(cJSON_GetObjectItem(s, "finite")) ? "yes" : "NO", cJSON_IsTrue(cJSON_GetObjectItem(s, "pass")) ? "pass" : "FAIL");
    rb_puts(b, html ? "<h2>Soak</h2>\n<p>" : "## Soak\n\n");
    html ? rb_html(b, line) : rb_md(b, line);
    rb_puts(b, html ? "</p>\n" : "\n\n");
    if (!html)
        return;
    rep_series c = {0};
    snprintf(c.name, sizeof c.name, "loss");
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(s, "curve"))
        rep_series_add(&c, i++, cJSON_IsNumber(v) ? v->valuedouble : NAN);
    rep_plot p = {"Soak: loss per step", "step", "loss", 0, 0, NAN, NULL, NULL, 0, NULL, 0};
    if (c.n)
        rep_svg_plot(b, &p, &c, 1);
    rep_series_free(&c, 1);
}

static void sections(rep_buf *b, const cJSON *rec, int html)
{
    const rep_section *secs;
    int nsec = rep_sections(&secs);
    for (int i = 0; i < nsec; i++) {
        const rep_section *sec = &secs[i];
        const cJSON *arr = rep_path(rec, sec->key);
        if (!cJSON_IsObject(arr) && !(cJSON_IsArray(arr) && cJSON_GetArraySize(arr)))
            continue;
        if (html) {
            rb_puts(b, "<h2>");
            rb_html(b, sec->title);
            rb_puts(b, "</h2>\n<div class=\"plots\">\n");
            if (!strcmp(sec->key, "bench_train")) {
                plot_entries(b, arr, label_train, x_batch, y_train, "Training throughput", "batch size", "samples/s (median)", 1, NAN);
                plot_entries(b, arr, label_train, x_batch, y_train_speedup, "GPU over CPU, same configuration", "batch size",
                             "speedup (median / median)", 1, 1.0);
            } else if (!strcmp(sec->key, "bench_matmul")) {
                plot_entries(b, arr, label_matmul, x_size, y_matmul, "GEMM throughput", "size (cube root of m n k)", "GFLOP/s (median)", 1, NAN);
                plot_entries(b, arr, label_matmul, x_size, y_matmul_speedup, "GEMM: GPU over CPU fp32", "size", "speedup", 1, 1.0);
            } else if (!strcmp(sec->key, "bench_infer")) {
                plot_entries(b, arr, label_train, x_batch, y_latency, "Inference latency per call", "batch size",
                             "ms (median)", 1, NAN);
                plot_entries(b, arr, label_train, x_batch, y_infer, "Inference throughput", "batch size", "samples/s (median)", 1, NAN);
            } else if (!strcmp(sec->key, "bench_drop7")) {
                plot_entries(b, arr, label_drop7, x_batch, y_games, "Drop7 games per second", "games per call (batch)",
                             "games/s (median)", 1, NAN);
            } else if (!strcmp(sec->key, "play")) {
                plot_play(b, arr);
            } else if (!strcmp(sec->key, "selfplay")) {
                plot_selfplay(b, arr);
            } else if (!strcmp(sec->key, "train_drop7.epochs")) {
                plot_epochs(b, arr);
            } else if (!strcmp(sec->key, "drop7_run")) {
                plot_run(b, arr);
            } else if (sec->kind && !strcmp(sec->kind, "emu")) {
                plot_entries(b, arr, label_emu, x_instances, y_emu, sec->title, "instances", "instance-frames/s (median)", 1, NAN);
            } else if (!strcmp(sec->key, "telemetry.phases")) {
                plot_telemetry(b, cJSON_GetObjectItem(rec, "telemetry"));
            }
            rb_puts(b, "</div>\n");
        } else {
            rb_printf(b, "## %s\n\n", sec->title);
        }
        rep_table(b, html, arr, sec->cols, sec->ncols, rec, sec->kind);
        rb_puts(b, "\n");
    }
    const cJSON *src = rep_path(rec, "telemetry.sources");
    if (src) {
        char line[1024];
        const cJSON *tel = cJSON_GetObjectItem(rec, "telemetry");
        const char *gpu = gv_json_str(src, "gpu", NULL), *cpu = gv_json_str(src, "cpu_package", NULL);
        const char *gw = gv_json_str(src, "gpu_why", NULL), *cw = gv_json_str(src, "cpu_package_why", NULL);
        double hz = gv_json_num(tel, "achieved_hz");
        int n = isfinite(hz) ? snprintf(line, sizeof line, "telemetry sampled at %.3g Hz (the sampler achieved %.3g, not "
                                        "counting the samples at phase edges); ", gv_json_num(tel, "hz"), hz)
                             : snprintf(line, sizeof line, "telemetry sampled at %.3g Hz (the run was too short to tell "
                                        "the rate the sampler achieved); ", gv_json_num(tel, "hz"));
        n += snprintf(line + n, sizeof line - (size_t)n, gpu ? "GPU from %s" : "no GPU sampled%s%s", gpu ? gpu : (gw ? ": " : ""),
                      gpu ? "" : (gw ? gw : ""));
        snprintf(line + n, sizeof line - (size_t)n, cpu ? "; CPU package power from %s" : "; no CPU package power%s%s",
                 cpu ? cpu : (cw ? ": " : ""), cpu ? "" : (cw ? cw : ""));
        rb_puts(b, html ? "<p class=\"meta\">" : "");
        html ? rb_html(b, line) : rb_md(b, line);
        rb_puts(b, html ? "</p>\n" : "\n\n");
    }
    /* the run's one throttle line (sys/telemetry.h's rule); each phase's figures are in the
     * telemetry table's "throttled" column and the record's telemetry.phases[].throttle */
    const char *thr = gv_json_str(rep_path(rec, "telemetry.throttle"), "warning", NULL);
    if (thr) {
        rb_puts(b, html ? "<p class=\"bad\">warning: " : "**warning:** ");
        html ? rb_html(b, thr) : rb_md(b, thr);
        rb_puts(b, html ? "</p>\n" : "\n\n");
    }
}

char *report_markdown(const cJSON *rec)
{
    rep_buf b;
    rb_init(&b);
    rb_printf(&b, "# gpuvet report: %s\n\n", gv_json_str(rec, "command", "run"));
    meta_line(&b, rec, 0);
    verdicts(&b, rec, 0);
    machine(&b, rec, 0);
    soak(&b, rec, 0);
    sections(&b, rec, 0);
    return rb_take(&b);
}

static const char *const css =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px;color:#222;max-width:1500px}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #ddd}"
    ".meta{color:#666;font-size:13px}ul.verdict li{font-size:15px;margin:4px 0}"
    "table{border-collapse:collapse;font-size:12px;margin:8px 0}th,td{border:1px solid #ccc;padding:3px 6px}"
    "th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}.bad{color:#b00;font-weight:bold}"
    ".plots{display:flex;flex-wrap:wrap;gap:8px}svg.plot{border:1px solid #e3e3e3;background:#fff}"
    "svg .pt{font-size:13px;font-weight:bold}svg .tx{font-size:10px;text-anchor:middle}svg .ty{font-size:10px;text-anchor:end}"
    "svg .al{font-size:11px;text-anchor:middle;fill:#444}svg .lg{font-size:11px}svg .note{font-size:12px;fill:#888}"
    "svg .grid{stroke:#eee}svg .frame{fill:none;stroke:#999}svg .band{fill:#4a7bd0;fill-opacity:.09}"
    "svg .ref{stroke:#555;stroke-dasharray:5 4}";

char *report_html(const cJSON *rec)
{
    rep_buf b;
    rb_init(&b);
    rb_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>gpuvet report: ");
    rb_html(&b, gv_json_str(rec, "command", "run"));
    rb_printf(&b, "</title>\n<style>%s</style></head>\n<body>\n<h1>gpuvet report: ", css);
    rb_html(&b, gv_json_str(rec, "command", "run"));
    rb_puts(&b, "</h1>\n");
    meta_line(&b, rec, 1);
    verdicts(&b, rec, 1);
    machine(&b, rec, 1);
    soak(&b, rec, 1);
    sections(&b, rec, 1);
    rb_puts(&b, "<p class=\"meta\">Made by gpuvet report from the run's JSON record; how gpuvet measures: docs/METHOD.md.</p>\n</body></html>\n");
    return rb_take(&b);
}

static gv_status write_doc(char *doc, const char *path, gv_err *err)
{
    gv_status s = gv_write_file_atomic(path, doc, strlen(doc), err);
    free(doc);
    return s;
}

gv_status report_write_html(const cJSON *rec, const char *path, gv_err *err)
{
    return write_doc(report_html(rec), path, err);
}

gv_status report_write_markdown(const cJSON *rec, const char *path, gv_err *err)
{
    return write_doc(report_markdown(rec), path, err);
}
