/* tables.c: the record's tables, written as HTML or Markdown from one column list per
 * section, so the two views always show the same figures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"
#include "emu/registry.h"
#include "report/rep_int.h"

static const rep_col train_cols[] = {
    {"device", "device", COL_STR, 0}, {"dtype", "dtype", COL_STR, 0}, {"channels", "channels", COL_INT, 0},
    {"blocks", "blocks", COL_INT, 0}, {"norm", "norm", COL_STR, 0}, {"batch", "batch", COL_INT, 0},
    {"threads", "threads", COL_INT, 0}, {"samples/s median", "samples_per_s_median", COL_NUM, 0},
    {"best", "samples_per_s_best", COL_NUM, 0}, {"min", "samples_per_s_min", COL_NUM, 0}, {"cv", "cv", COL_PCT, 0},
    {"step ms", "step_ms_median", COL_NUM, 0}, {"GPU/CPU", "=speedup", COL_X, 0}, {"peak mem", "peak_share", COL_PCT, 0},
    {"GPU MHz", "@gpu_sm_mhz.median", COL_NUM, 0}, {"GPU W", "@gpu_power_w.median", COL_NUM, 0},
    {"GPU C", "@gpu_temp_c.max", COL_NUM, 0}, {"GPU mJ/sample", "@energy_per_unit_j.gpu", COL_NUM, 1e3},
    {"CPU W", "@cpu_package_w.median", COL_NUM, 0}, {"throttled", "@throttled", COL_BOOL, 0},
    {"load", "load_before", COL_NUM, 0},
};
static const rep_col matmul_cols[] = {
    {"device", "device", COL_STR, 0}, {"dtype", "dtype", COL_STR, 0}, {"m", "m", COL_INT, 0}, {"n", "n", COL_INT, 0},
    {"k", "k", COL_INT, 0}, {"GFLOP/s median", "gflops_median", COL_NUM, 0}, {"best", "gflops_best", COL_NUM, 0},
    {"min", "gflops_min", COL_NUM, 0}, {"GPU/CPU", "=speedup", COL_X, 0}, {"GEMMs per run", "reps", COL_INT, 0},
    {"s median (a run)", "seconds_median", COL_NUM, 0},
    {"GPU W", "@gpu_power_w.median", COL_NUM, 0}, {"throttled", "@throttled", COL_BOOL, 0}, {"load", "load_before", COL_NUM, 0},
};
static const rep_col emu_cols[] = {
    {"ROM", "rom", COL_STR, 0}, {"video", "video", COL_STR, 0}, {"audio", "audio", COL_STR, 0},
    {"instances", "instances", COL_INT, 0}, {"frames", "frames", COL_INT, 0}, {"fps median", "fps_median", COL_NUM, 0},
    {"fps best", "fps_best", COL_NUM, 0}, {"threads", "threads", COL_INT, 0}, {"device/native", "device_over_native", COL_X, 0},
    {"video hash", "video_hash", COL_STR, 0}, {"audio hash", "audio_hash", COL_STR, 0},
    {"GPU W", "@gpu_power_w.median", COL_NUM, 0},
};
static const rep_col check_cols[] = {
    {"device", "device", COL_STR, 0}, {"what", "what", COL_STR, 0}, {"norm", "norm", COL_STR, 0},
    {"dtype", "dtype", COL_STR, 0}, {"metric", "metric", COL_STR, 0}, {"value", "value", COL_NUM, 0},
    {"tolerance", "tolerance", COL_NUM, 0}, {"pass", "pass", COL_BOOL, 0},
};
static const rep_col race_cols[] = {
    {"m", "m", COL_INT, 0}, {"n", "n", COL_INT, 0}, {"k", "k", COL_INT, 0}, {"threads", "threads", COL_INT, 0},
    {"runs", "runs", COL_INT, 0}, {"wrong runs", "wrong_runs", COL_INT, 0},
    {"worst wrong share", "worst_wrong_fraction", COL_PCT, 0}, {"worst abs err", "worst_abs_err", COL_NUM, 0},
    {"err/bound", "worst_bound_ratio", COL_NUM, 0}, {"1-thread wrong", "single_wrong_runs", COL_INT, 0},
    {"reference ok", "reference_gemm_ok", COL_BOOL, 0},
};
static const rep_col infer_cols[] = {
    {"device", "device", COL_STR, 0}, {"dtype", "dtype", COL_STR, 0}, {"norm", "norm", COL_STR, 0},
    {"channels", "channels", COL_INT, 0}, {"blocks", "blocks", COL_INT, 0}, {"batch", "batch", COL_INT, 0},
    {"threads", "threads", COL_INT, 0}, {"latency ms median", "latency_ms_median", COL_NUM, 0},
    {"p99 ms", "latency_ms_p99", COL_NUM, 0}, {"samples/s median", "samples_per_s_median", COL_NUM, 0},
    {"memory", "=memory", COL_BYTES, 0}, {"GPU/CPU", "speedup_vs_cpu", COL_X, 0},
    {"GPU W", "@gpu_power_w.median", COL_NUM, 0}, {"load", "load_before", COL_NUM, 0},
};
static const rep_col drop7_cols[] = {
    {"device", "device", COL_STR, 0}, {"player", "player", COL_STR, 0}, {"mode", "mode", COL_STR, 0},
    {"batch", "batch", COL_INT, 0}, {"threads", "threads", COL_INT, 0}, {"games/s best", "games_per_s_best", COL_NUM, 0},
    {"games/s median", "games_per_s_median", COL_NUM, 0}, {"moves/s median", "moves_per_s_median", COL_NUM, 0},
    {"GPU/CPU", "speedup_vs_cpu", COL_X, 0}, {"records = CPU", "records_match_cpu", COL_BOOL, 0},
    {"load", "load_before", COL_NUM, 0},
};
static const rep_col play_cols[] = {
    {"policy", "policy", COL_STR, 0}, {"sims", "sims", COL_INT, 0}, {"games", "games", COL_INT, 0},
    {"mean score", "score_mean", COL_NUM, 0}, {"95% CI ±", "score_ci95", COL_NUM, 0}, {"median", "score_median", COL_NUM, 0},
    {"moves mean", "moves_mean", COL_NUM, 0}, {"moves ±", "moves_ci95", COL_NUM, 0}, {"seconds", "seconds", COL_NUM, 0},
};
static const rep_col play_vs_cols[] = {
    {"policy", "policy", COL_STR, 0}, {"baseline", "baseline", COL_STR, 0}, {"score difference", "score_diff", COL_NUM, 0},
    {"95% CI ±", "score_diff_ci95", COL_NUM, 0}, {"verdict", "verdict", COL_STR, 0},
};
static const rep_col selfplay_cols[] = {
    {"device", "device", COL_STR, 0}, {"games", "games_played", COL_INT, 0}, {"sims", "sims", COL_INT, 0},
    {"moves", "moves", COL_INT, 0}, {"positions evaluated", "evals", COL_INT, 0}, {"mean score", "score_mean", COL_NUM, 0},
    {"95% CI ±", "score_ci95", COL_NUM, 0}, {"seconds", "seconds_total", COL_NUM, 0},
    {"search", "=seconds_search/seconds_total", COL_PCT, 0}, {"inference", "=seconds_inference/seconds_total", COL_PCT, 0},
    {"game", "=seconds_game/seconds_total", COL_PCT, 0}, {"positions/s", "=evals/seconds_inference", COL_NUM, 0},
    {"writing s", "seconds_write", COL_NUM, 0},
};
static const rep_col epoch_cols[] = {
    {"epoch", "epoch", COL_INT, 0}, {"lr", "lr", COL_NUM, 0}, {"train loss", "train_loss", COL_NUM, 0},
    {"validation policy CE", "val_policy_ce", COL_NUM, 0}, {"validation value MSE", "val_value_mse", COL_NUM, 0},
    {"validation loss", "val_loss", COL_NUM, 0}, {"seconds", "seconds", COL_NUM, 0},
};
static const rep_col run_cols[] = {
    {"generation", "generation", COL_INT, 0}, {"mean score", "score_mean", COL_NUM, 0}, {"95% CI ±", "score_ci95", COL_NUM, 0},
    {"moves", "moves_mean", COL_NUM, 0}, {"moves ±", "moves_ci95", COL_NUM, 0}, {"leaf V:H", "leaf", COL_STR, 0},
    {"verdict", "verdict", COL_STR, 0}, {"vs best", "diff_vs_best", COL_NUM, 0}, {"±", "diff_ci95", COL_NUM, 0}, {"best", "best", COL_INT, 0},
    {"games", "games", COL_INT, 0}, {"positions", "positions", COL_INT, 0}, {"self-play score", "selfplay_score", COL_NUM, 0},
    {"self-play positions/s", "selfplay_positions_per_s", COL_NUM, 0},
    {"network positions/s", "eval_positions_per_s", COL_NUM, 0}, {"value MSE", "val_value_mse", COL_NUM, 0},
    {"self-play s", "seconds_selfplay", COL_NUM, 0}, {"train s", "seconds_train", COL_NUM, 0},
    {"evaluation s", "seconds_eval", COL_NUM, 0},
};
static const rep_col phase_cols[] = {
    {"phase", "label", COL_STR, 0}, {"samples", "samples", COL_INT, 0}, {"s", "=duration", COL_NUM, 0},
    {"GPU MHz", "gpu_sm_mhz.median", COL_NUM, 0}, {"GPU W min", "gpu_power_w.min", COL_NUM, 0},
    {"GPU W median", "gpu_power_w.median", COL_NUM, 0}, {"GPU W max", "gpu_power_w.max", COL_NUM, 0},
    {"GPU C max", "gpu_temp_c.max", COL_NUM, 0}, {"GPU util", "gpu_util_pct.median", COL_NUM, 0},
    {"GPU J", "energy_j.gpu", COL_NUM, 0}, {"GPU mJ/unit", "energy_per_unit_j.gpu", COL_NUM, 1e3},
    {"CPU W", "cpu_package_w.median", COL_NUM, 0}, {"CPU J", "energy_j.cpu_package", COL_NUM, 0},
    {"CPU MHz", "cpu_mhz.median", COL_NUM, 0}, {"load", "loadavg1.median", COL_NUM, 0},
    {"throttled", "throttled", COL_BOOL, 0},
};

/* The sections in report order; one per emulated console (emu/common/console.h), so a new
 * console's benchmark shows up without a change here. */
int rep_sections(const rep_section **out)
{
    static rep_section list[24];
    static char titles[8][64], keys[8][32];
    static int n;
    if (!n) {
        list[n++] = (rep_section){"Training throughput (bench train)", "bench_train", train_cols, GV_ARRAY_LEN(train_cols), "train"};
        list[n++] = (rep_section){"GEMM throughput (bench matmul)", "bench_matmul", matmul_cols, GV_ARRAY_LEN(matmul_cols), "matmul"};
        list[n++] = (rep_section){"Inference latency and throughput (bench infer)", "bench_infer", infer_cols,
                                  GV_ARRAY_LEN(infer_cols), NULL};
        list[n++] = (rep_section){"Drop7 games (bench drop7)", "bench_drop7", drop7_cols, GV_ARRAY_LEN(drop7_cols), NULL};
        list[n++] = (rep_section){"Drop7 scores per policy (play)", "play", play_cols, GV_ARRAY_LEN(play_cols), NULL};
        list[n++] = (rep_section){"The first policy against each baseline (play)", "play_vs", play_vs_cols,
                                  GV_ARRAY_LEN(play_vs_cols), NULL};
        list[n++] = (rep_section){"Self-play (selfplay)", "selfplay", selfplay_cols, GV_ARRAY_LEN(selfplay_cols), NULL};
        list[n++] = (rep_section){"Training on self-play data (train --data)", "train_drop7.epochs", epoch_cols,
                                  GV_ARRAY_LEN(epoch_cols), NULL};
        list[n++] = (rep_section){"Drop7 training run: generations (bench/drop7/train_strong.sh)", "drop7_run", run_cols,
                                  GV_ARRAY_LEN(run_cols), NULL};
        list[n++] = (rep_section){"Telemetry: clocks, power and temperature during the run", "telemetry.phases", phase_cols,
                                  GV_ARRAY_LEN(phase_cols), NULL};
        for (int i = 0; emu_consoles[i] && i < 8; i++) {
            snprintf(titles[i], sizeof titles[i], "%s emulation (bench %s)", emu_consoles[i]->title, emu_consoles[i]->name);
            snprintf(keys[i], sizeof keys[i], "bench_%s", emu_consoles[i]->name);
            list[n++] = (rep_section){titles[i], keys[i], emu_cols, GV_ARRAY_LEN(emu_cols), "emu"};
        }
        list[n++] = (rep_section){"Correctness (check)", "check", check_cols, GV_ARRAY_LEN(check_cols), NULL};
        list[n++] = (rep_section){"Multithreaded BLAS (blas-race)", "blas_race", race_cols, GV_ARRAY_LEN(race_cols), NULL};
    }
    *out = list;
    return n;
}

/* Walks "a.b.c" from o. */
const cJSON *rep_path(const cJSON *o, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *t = strtok_r(buf, ".", &save); t && o; t = strtok_r(NULL, ".", &save))
        o = cJSON_GetObjectItemCaseSensitive(o, t);
    return o;
}

static const cJSON *phase_of(const cJSON *rec, const cJSON *e)
{
    const char *label = gv_json_str(e, "telemetry_phase", NULL);
    const cJSON *p;
    if (!label)
        return NULL;
    cJSON_ArrayForEach(p, rep_path(rec, "telemetry.phases")) {
        const char *l = gv_json_str(p, "label", NULL);
        if (l && !strcmp(l, label))
            return p;
    }
    return NULL;
}

/* A benchmark entry's "throttled": true when any of its phases (one per repeat, all with
 * its label) was throttled, else the first phase's value (NULL without one). */
static const cJSON *any_throttled(const cJSON *rec, const cJSON *e)
{
    const char *label = gv_json_str(e, "telemetry_phase", NULL);
    const cJSON *p, *first = NULL;
    if (!label)
        return NULL;
    cJSON_ArrayForEach(p, rep_path(rec, "telemetry.phases")) {
        const char *l = gv_json_str(p, "label", NULL);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "throttled");
        if (!l || strcmp(l, label) || !cJSON_IsBool(t))
            continue;
        if (cJSON_IsTrue(t))
            return t;
        if (!first)
            first = t;
    }
    return first;
}

/* The cell's text into buf; returns 0 when the cell is empty (null or absent). */
static int cell(const cJSON *arr, const cJSON *e, const rep_col *c, const cJSON *rec, const char *kind, char *buf, size_t len)
{
    const cJSON *v;
    double num = NAN;
    if (c->key[0] == '=') {
        const char *slash = strchr(c->key, '/');
        if (!strcmp(c->key, "=speedup") && kind) {
            num = rep_speedup(arr, e, kind);
        } else if (!strcmp(c->key, "=duration")) {
            num = gv_json_num(e, "t1") - gv_json_num(e, "t0");
        } else if (!strcmp(c->key, "=memory")) {
            num = gv_json_num(e, "peak_device_bytes");
            if (!isfinite(num))
                num = gv_json_num(e, "host_bytes");
        } else if (slash) { /* "=a/b" */
            char a[64];
            snprintf(a, sizeof a, "%.*s", (int)(slash - c->key - 1), c->key + 1);
            num = gv_json_num(e, a) / gv_json_num(e, slash + 1);
        }
        v = NULL;
    } else if (!strcmp(c->key, "@throttled")) {
        v = any_throttled(rec, e);
    } else if (c->key[0] == '@') {
        v = rep_path(phase_of(rec, e), c->key + 1);
    } else {
        v = rep_path(e, c->key);
    }
    if (cJSON_IsNumber(v))
        num = v->valuedouble;
    double sc = c->scale ? c->scale : 1;
    switch (c->kind) {
    case COL_STR:
        if (!cJSON_IsString(v))
            return 0;
        snprintf(buf, len, "%s", v->valuestring);
        return 1;
    case COL_BOOL:
        if (!cJSON_IsBool(v))
            return 0;
        snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "yes" : "NO");
        if (!strcmp(c->key, "@throttled") || !strcmp(c->key, "throttled"))
            snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "THROTTLED" : "no");
        return 1;
    default:
        break;
    }
    if (!isfinite(num))
        return 0;
    num *= sc;
    switch (c->kind) {
    case COL_INT: snprintf(buf, len, "%.0f", num); break;
    case COL_PCT: snprintf(buf, len, "%.1f%%", 100 * num); break;
    case COL_GIB: snprintf(buf, len, "%.1f GiB", num / (1u << 30)); break;
    case COL_BYTES:
        if (num >= 1u << 30)
            snprintf(buf, len, "%.2f GiB", num / (1u << 30));
        else
            snprintf(buf, len, "%.1f MiB", num / (1u << 20));
        break;
    case COL_X: snprintf(buf, len, num >= 1 ? "%.2fx" : "%.2gx", num); break;
    default: snprintf(buf, len, fabs(num) >= 1e3 ? "%.0f" : "%.4g", num); break;
    }
    return 1;
}

/* The rows of a table: an array's entries, or an object as its one row. */
static const cJSON *row_first(const cJSON *t)
{
    return cJSON_IsObject(t) ? t : t ? t->child : NULL;
}

static const cJSON *row_next(const cJSON *t, const cJSON *e)
{
    return cJSON_IsObject(t) ? NULL : e->next;
}

void rep_table(rep_buf *b, int html, const cJSON *arr, const rep_col *cols, int ncols, const cJSON *rec, const char *kind)
{
    char buf[256];
    int *show = gv_xcalloc((size_t)ncols, sizeof(int));
    const cJSON *e;
    for (int c = 0; c < ncols; c++)
        for (e = row_first(arr); e; e = row_next(arr, e))
            show[c] |= cell(arr, e, &cols[c], rec, kind, buf, sizeof buf);
    rb_puts(b, html ? "<table>\n<tr>" : "|");
    for (int c = 0; c < ncols; c++) {
        if (!show[c])
            continue;
        if (html) {
            rb_puts(b, "<th>");
            rb_html(b, cols[c].head);
            rb_puts(b, "</th>");
        } else {
            rb_puts(b, " ");
            rb_md(b, cols[c].head);
            rb_puts(b, " |");
        }
    }
    rb_puts(b, html ? "</tr>\n" : "\n|");
    if (!html) {
        for (int c = 0; c < ncols; c++)
            if (show[c])
                rb_puts(b, cols[c].kind == COL_STR || cols[c].kind == COL_BOOL ? " --- |" : " ---: |");
        rb_puts(b, "\n");
    }
    for (e = row_first(arr); e; e = row_next(arr, e)) {
        rb_puts(b, html ? "<tr>" : "|");
        for (int c = 0; c < ncols; c++) {
            if (!show[c])
                continue;
            int has = cell(arr, e, &cols[c], rec, kind, buf, sizeof buf);
            const char *text = has ? buf : "";
            if (html) {
                int bad = has && (!strcmp(buf, "NO") || !strcmp(buf, "THROTTLED"));
                rb_puts(b, cols[c].kind == COL_STR || cols[c].kind == COL_BOOL ? (bad ? "<td class=\"bad\">" : "<td>") : "<td class=\"n\">");
                rb_html(b, text);
                rb_puts(b, "</td>");
            } else {
                rb_puts(b, " ");
                rb_md(b, text);
                rb_puts(b, " |");
            }
        }
        rb_puts(b, html ? "</tr>\n" : "\n");
    }
    if (html)
        rb_puts(b, "</table>\n");
    free(show);
}
