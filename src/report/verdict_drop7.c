/* verdict_drop7.c: the sentences of the Drop7 records, read from the record alone (the
 * report knows nothing of the engines): bench infer (from which batch a GPU answers
 * sooner), bench drop7 (from which batch a GPU plays games faster, and whether its game
 * records equal the CPU's), play (the first policy against each baseline, with what a
 * one-move lookahead is expected to do in this game), selfplay (where the time went) and
 * train --data (the validation loss over the epochs). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/gv.h"
#include "report/rep_int.h"

/* "s" unless n is 1. */
static const char *plural(double n)
{
    return n == 1 ? "" : "s";
}

static const cJSON *item(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static int is_cpu(const cJSON *e)
{
    return !strcmp(gv_json_str(e, "device", "?"), "cpu");
}

/* Whether entry e belongs to the series of crossover entry c: equal on every key c has
 * that names the series (strings and numbers alike). */
static int in_series(const cJSON *e, const cJSON *c, const char *const *keys, int nkeys)
{
    for (int i = 0; i < nkeys; i++) {
        const cJSON *a = item(e, keys[i]), *b = item(c, keys[i]);
        if (cJSON_IsString(b) && !(cJSON_IsString(a) && !strcmp(a->valuestring, b->valuestring)))
            return 0;
        if (cJSON_IsNumber(b) && !(cJSON_IsNumber(a) && a->valuedouble == b->valuedouble))
            return 0;
    }
    return 1;
}

/* Over the GPU entries of c's series with a speedup_vs_cpu: the best speedup and its
 * batch, and the smallest batch compared. Returns how many there were. */
static int series_speedups(const cJSON *arr, const cJSON *c, const char *const *keys, int nkeys, double *best,
                           double *best_batch, double *first_batch)
{
    const cJSON *e;
    int n = 0;
    *best = *best_batch = *first_batch = NAN;
    cJSON_ArrayForEach(e, arr) {
        double sp = gv_json_num(e, "speedup_vs_cpu"), b = gv_json_num(e, "batch");
        if (is_cpu(e) || !isfinite(sp) || !in_series(e, c, keys, nkeys))
            continue;
        n++;
        if (!(sp <= *best))
            *best = sp, *best_batch = b;
        if (!(b >= *first_batch))
            *first_batch = b;
    }
    return n;
}

/* Over the entries of arr in c's series (equal on keys): the one of the smallest batch
 * (*lo) and the one of the highest rate (*top). Returns the series' first entry. */
static const cJSON *series_span(const cJSON *arr, const cJSON *c, const char *const *keys, int nkeys, const char *rate,
                                const cJSON **lo, const cJSON **top)
{
    const cJSON *e, *first = NULL;
    *lo = *top = NULL;
    cJSON_ArrayForEach(e, arr) {
        if (!in_series(e, c, keys, nkeys))
            continue;
        first = first ? first : e;
        if (!*lo || gv_json_num(e, "batch") < gv_json_num(*lo, "batch"))
            *lo = e;
        if (!*top || gv_json_num(e, rate) > gv_json_num(*top, rate))
            *top = e;
    }
    return first;
}

/* ---- bench infer ------------------------------------------------------------------------- */

static const char *const infer_series[] = {"device", "dtype", "norm", "channels"};

/* One sentence per GPU series from bench_infer_crossover; without a GPU, what the CPU
 * reaches per series: the latency of the smallest batch and the best samples/s. */
static void verdicts_infer(const cJSON *rec, cJSON *out)
{
    const cJSON *arr = item(rec, "bench_infer"), *c, *e;
    char what[256], s[768];
    int gpu = 0;
    cJSON_ArrayForEach(c, item(rec, "bench_infer_crossover")) {
        gpu = 1;
        snprintf(what, sizeof what, "%s %s %.0f-channel %s-norm inference", gv_json_str(c, "device", "?"),
                 gv_json_str(c, "dtype", "?"), gv_json_num(c, "channels"), gv_json_str(c, "norm", "?"));
        double from = gv_json_num(c, "gpu_faster_from_batch"), n = gv_json_num(c, "batches_compared"), best, bb, first;
        series_speedups(arr, c, infer_series, GV_ARRAY_LEN(infer_series), &best, &bb, &first);
        if (!(n > 0))
            snprintf(s, sizeof s, "%s was not compared with the CPU (add cpu to --devices to find the batch from which the "
                     "GPU answers sooner)", what);
        else if (isfinite(from) && from == first)
            snprintf(s, sizeof s, "%s beats the CPU at every batch compared (%.0f batch size%s from batch %.0f; up to "
                     "%.2fx the CPU's samples/s, at batch %.0f)", what, n, plural(n), from, best, bb);
        else if (isfinite(from))
            snprintf(s, sizeof s, "%s beats the CPU from batch %.0f on (of %.0f batch sizes compared); below it, the CPU "
                     "answers sooner", what, from, n);
        else
            snprintf(s, sizeof s, "%s does not beat the CPU at the largest batches measured (%.0f batch size%s "
                     "compared)", what, n, plural(n));
        rep_add_sentence(out, s);
    }
    cJSON_ArrayForEach(e, arr) gpu |= !is_cpu(e);
    if (gpu)
        return;
    /* CPU only: one sentence per (dtype, channels, norm, blocks) series */
    static const char *const cpu_series[] = {"dtype", "channels", "norm", "blocks"};
    cJSON_ArrayForEach(c, arr) {
        const cJSON *lo, *top;
        if (series_span(arr, c, cpu_series, GV_ARRAY_LEN(cpu_series), "samples_per_s_median", &lo, &top) != c)
            continue; /* each series once, at its first entry */
        char best[96] = "there, its best";
        if (top != lo)
            snprintf(best, sizeof best, "at batch %.0f, its best", gv_json_num(top, "batch"));
        snprintf(s, sizeof s, "no GPU was measured: %s %.0f-channel %s-norm inference on the CPU takes %.3g ms a call at "
                 "batch %.0f (median; p99 %.3g ms) and reaches %.0f samples/s %s", gv_json_str(c, "dtype", "?"),
                 gv_json_num(c, "channels"), gv_json_str(c, "norm", "?"), gv_json_num(lo, "latency_ms_median"),
                 gv_json_num(lo, "batch"), gv_json_num(lo, "latency_ms_p99"), gv_json_num(top, "samples_per_s_median"),
                 best);
        rep_add_sentence(out, s);
    }
}

/* ---- bench drop7 ------------------------------------------------------------------------- */

static const char *const drop7_series[] = {"device", "player"};

/* Records that differ from the CPU's first; then one sentence per (GPU, player) from
 * bench_drop7_crossover; without a GPU, the CPU's best games/s per player. */
static void verdicts_drop7(const cJSON *rec, cJSON *out)
{
    const cJSON *arr = item(rec, "bench_drop7"), *c, *e;
    char s[768];
    int gpu = 0;
    cJSON_ArrayForEach(e, arr) {
        gpu |= !is_cpu(e);
        if (cJSON_IsFalse(item(e, "records_match_cpu"))) {
            snprintf(s, sizeof s, "do not use %s for %s Drop7 games: at batch %.0f its game records differ from the CPU's "
                     "for the same seeds", gv_json_str(e, "device", "?"), gv_json_str(e, "player", "?"),
                     gv_json_num(e, "batch"));
            rep_add_sentence(out, s);
        }
    }
    cJSON_ArrayForEach(c, item(rec, "bench_drop7_crossover")) {
        double from = gv_json_num(c, "gpu_faster_from_batch"), best, bb, first;
        series_speedups(arr, c, drop7_series, GV_ARRAY_LEN(drop7_series), &best, &bb, &first);
        if (isfinite(from))
            snprintf(s, sizeof s, "play %s Drop7 games on %s from batch %.0f on (up to %.2fx the CPU, at batch %.0f); "
                     "below it the CPU is faster", gv_json_str(c, "player", "?"), gv_json_str(c, "device", "?"), from,
                     best, bb);
        else
            snprintf(s, sizeof s, "keep %s Drop7 games on the CPU: %s is not faster at the largest batches measured "
                     "(best %.2fx, %.0f batch size%s compared)", gv_json_str(c, "player", "?"),
                     gv_json_str(c, "device", "?"), best, gv_json_num(c, "batches_compared"),
                     plural(gv_json_num(c, "batches_compared")));
        rep_add_sentence(out, s);
    }
    if (gpu)
        return;
    cJSON_ArrayForEach(c, arr) { /* CPU only: each player's best, said at its first entry */
        const cJSON *lo, *top;
        if (series_span(arr, c, drop7_series + 1, 1, "games_per_s_median", &lo, &top) != c)
            continue;
        snprintf(s, sizeof s, "no GPU was measured: the CPU plays up to %.0f %s Drop7 games/s (%.0f moves/s) at batch %.0f "
                 "on %.0f threads", gv_json_num(top, "games_per_s_median"), gv_json_str(top, "player", "?"),
                 gv_json_num(top, "moves_per_s_median"), gv_json_num(top, "batch"), gv_json_num(top, "threads"));
        rep_add_sentence(out, s);
    }
}

/* ---- play -------------------------------------------------------------------------------- */

/* The play entry of the named policy (NULL when none). */
static const cJSON *play_entry(const cJSON *play, const char *policy)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, play)
        if (!strcmp(gv_json_str(e, "policy", "?"), policy))
            return e;
    return NULL;
}

/* What a one-move lookahead is expected to do against random play, appended to s (of
 * size len) when the comparison v is greedy against random (either way round) in normal
 * mode: greedy takes the most points now, which fills the board sooner, so it scores
 * below random play there. */
static void greedy_note(const cJSON *play, const cJSON *v, char *s, size_t len)
{
    const char *a = gv_json_str(v, "policy", "?"), *b = gv_json_str(v, "baseline", "?");
    const char *verdict = gv_json_str(v, "verdict", "?");
    if (!((!strcmp(a, "greedy") && !strcmp(b, "random")) || (!strcmp(a, "random") && !strcmp(b, "greedy"))))
        return;
    const cJSON *g = play_entry(play, "greedy"), *r = play_entry(play, "random");
    /* greedy's side of the comparison: 1 better than random, -1 worse, 0 not distinguishable */
    int side = !strcmp(verdict, "better") ? 1 : !strcmp(verdict, "worse") ? -1 : 0;
    if (!strcmp(a, "random"))
        side = -side;
    size_t k = strlen(s);
    double mg = gv_json_num(g, "moves_mean"), mr = gv_json_num(r, "moves_mean");
    if (side < 0) {
        k += (size_t)snprintf(s + k, len - k, "; as expected of a one-move lookahead in normal-mode Drop7: greedy takes the "
                              "most points now, which fills the board sooner");
        if (mg < mr && k < len)
            snprintf(s + k, len - k, " (its games last %.1f moves on average, random's %.1f)", mg, mr);
    } else if (side == 0) {
        snprintf(s + k, len - k, "; a one-move lookahead (greedy) usually scores below random play in normal-mode Drop7, "
                 "since taking the most points now fills the board sooner: these %.0f games per policy do not tell them "
                 "apart", gv_json_num(g, "games"));
    } else {
        snprintf(s + k, len - k, "; unusual in normal-mode Drop7, where a one-move lookahead (greedy) usually scores below "
                 "random play: play more games or other seeds (--games, --seed) before trusting it");
    }
}

/* The first policy, when it is not a baseline, against all the baselines at once: whether
 * it beats both, and which it does not beat. */
static void net_summary(const cJSON *play, const cJSON *vs, const char *mode, cJSON *out)
{
    const cJSON *a = cJSON_GetArrayItem(play, 0), *v;
    const char *name = gv_json_str(a, "policy", "?");
    if (!strcmp(name, "greedy") || !strcmp(name, "random") || cJSON_GetArraySize(vs) < 2)
        return;
    char beaten[128] = "", rest[384] = "", s[768];
    int nb = 0, nr = 0;
    cJSON_ArrayForEach(v, vs) {
        const char *base = gv_json_str(v, "baseline", "?"), *verdict = gv_json_str(v, "verdict", "?");
        if (!strcmp(verdict, "better")) {
            snprintf(beaten + strlen(beaten), sizeof beaten - strlen(beaten), "%s%s", nb++ ? " and " : "", base);
        } else {
            snprintf(rest + strlen(rest), sizeof rest - strlen(rest), "%s%s %s", nr++ ? "; " : "",
                     !strcmp(verdict, "worse") ? "worse than" : "not distinguishable from", base);
        }
    }
    if (!nr) {
        snprintf(s, sizeof s, "%s beats %s baselines (%s)", name, nb == 2 ? "both" : "all the", beaten);
    } else {
        int k = snprintf(s, sizeof s, "%s does not beat %s baselines: %s%s%s", name, cJSON_GetArraySize(vs) == 2 ? "both" : "all the",
                         nb ? "better than " : "", beaten, nb ? "; " : "");
        if (k > 0 && (size_t)k < sizeof s)
            k += snprintf(s + k, sizeof s - (size_t)k, "%s", rest);
        const cJSON *g = play_entry(play, "greedy"), *r = play_entry(play, "random");
        if (nb == 1 && !strcmp(beaten, "greedy") && g && r &&
            gv_json_num(g, "score_mean") < gv_json_num(r, "score_mean") && (!mode || !strcmp(mode, "normal")) && k > 0 && (size_t)k < sizeof s)
            snprintf(s + k, sizeof s - (size_t)k, " (greedy is the weaker baseline here, %.0f against random's %.0f, so "
                     "beating it alone says little)", gv_json_num(g, "score_mean"), gv_json_num(r, "score_mean"));
    }
    rep_add_sentence(out, s);
}

/* One sentence per comparison of play_vs (the first policy against a baseline), or the
 * first policy's score when no baseline was played. */
static void verdicts_play(const cJSON *rec, cJSON *out)
{
    const cJSON *play = item(rec, "play"), *vs = item(rec, "play_vs"), *a = cJSON_GetArrayItem(play, 0), *v;
    const char *mode = gv_json_str(rec, "mode", NULL);
    char s[1024];
    if (!a)
        return;
    if (!cJSON_GetArraySize(vs)) {
        snprintf(s, sizeof s, "%s scores %.0f +- %.0f on average over %.0f games (median %.0f, %.1f moves); no baseline "
                 "was played to compare with", gv_json_str(a, "policy", "?"), gv_json_num(a, "score_mean"),
                 gv_json_num(a, "score_ci95"), gv_json_num(a, "games"), gv_json_num(a, "score_median"),
                 gv_json_num(a, "moves_mean"));
        rep_add_sentence(out, s);
        return;
    }
    int k = 1;
    cJSON_ArrayForEach(v, vs) {
        const cJSON *b = play_entry(play, gv_json_str(v, "baseline", "?"));
        if (!b)
            b = cJSON_GetArrayItem(play, k);
        k++;
        const char *verdict = gv_json_str(v, "verdict", "?");
        snprintf(s, sizeof s,
                 "%s scores %.0f +- %.0f on average, %s %.0f +- %.0f: %s (difference %+.0f +- %.0f, 95%% CI%s)",
                 gv_json_str(a, "policy", "?"), gv_json_num(a, "score_mean"), gv_json_num(a, "score_ci95"),
                 gv_json_str(b, "policy", "?"), gv_json_num(b, "score_mean"), gv_json_num(b, "score_ci95"), verdict,
                 gv_json_num(v, "score_diff"), gv_json_num(v, "score_diff_ci95"),
                 strcmp(verdict, "not distinguishable") ? " excludes 0" : " includes 0");
        if (!mode || !strcmp(mode, "normal"))
            greedy_note(play, v, s, sizeof s);
        rep_add_sentence(out, s);
    }
    net_summary(play, vs, mode, out);
}

/* ---- selfplay ---------------------------------------------------------------------------- */

/* The games, the mean score, and where the time went, with what the largest share means. */
static void verdict_selfplay(const cJSON *rec, cJSON *out)
{
    const cJSON *sp = item(rec, "selfplay");
    char s[1024];
    if (!cJSON_IsObject(sp))
        return;
    if (!(gv_json_num(sp, "games_played") > 0)) {
        snprintf(s, sizeof s, "self-play played no games here: %s already holds %.0f games (%.0f positions)",
                 gv_json_str(sp, "out", "?"), gv_json_num(sp, "games_in_file"), gv_json_num(sp, "positions_in_file"));
        rep_add_sentence(out, s);
        return;
    }
    double t = gv_json_num(sp, "seconds_total"), ti = gv_json_num(sp, "seconds_inference");
    double ts = gv_json_num(sp, "seconds_search");
    double tg = gv_json_num(sp, "seconds_game"), tw = gv_json_num(sp, "seconds_write"), sims = gv_json_num(sp, "sims");
    double fi = ti / t, fs = ts / t, fg = tg / t;
    char how[128];
    const char *player = gv_json_str(sp, "player", "");
    if (strncmp(player, "the network's puct", 18) && player[0]) /* expectimax: its own words */
        snprintf(how, sizeof how, "%s", player);
    else if (sims > 0)
        snprintf(how, sizeof how, "%.0f simulations per move", sims);
    else
        snprintf(how, sizeof how, "the policy head's best move");
    int k = snprintf(s, sizeof s, "self-play on %s: %.0f games of %s, mean score %.0f +- %.0f (95%% CI); of its %.3g s, "
                     "inference took %.0f%% (%.0f positions, %.0f/s), the search %.0f%%, the game %.0f%%: ",
                     gv_json_str(sp, "device", "?"), gv_json_num(sp, "games_played"), how, gv_json_num(sp, "score_mean"),
                     gv_json_num(sp, "score_ci95"), t, 100 * fi, gv_json_num(sp, "evals"), gv_json_num(sp, "evals") / ti,
                     100 * fs, 100 * fg);
    if (k <= 0 || (size_t)k >= sizeof s)
        return;
    if (fi >= 0.5)
        k += snprintf(s + k, sizeof s - (size_t)k, "inference dominates, so self-play goes as fast as the network answers; "
                      "a device or batch size (--parallel) with more positions per second speeds it up (gpuvet bench infer "
                      "measures both), faster search or game code would not");
    else if (fs >= 0.5)
        k += snprintf(s + k, sizeof s - (size_t)k, "the search dominates: the tree walk on the CPU, not the network, limits "
                      "self-play, so a faster network device would change little");
    else if (fg >= 0.5)
        k += snprintf(s + k, sizeof s - (size_t)k, "the game itself dominates: playing the moves, not the network or the "
                      "search, limits self-play");
    else
        k += snprintf(s + k, sizeof s - (size_t)k, "no part takes half of the time");
    if (tw > 0.1 * t && k > 0 && (size_t)k < sizeof s)
        snprintf(s + k, sizeof s - (size_t)k, "; writing the dataset took %.3g s more (write less often: a larger --chunk)", tw);
    rep_add_sentence(out, s);
}

/* ---- train --data ------------------------------------------------------------------------ */

/* The validation loss from the first epoch to the last; where it was lowest before the end
 * while the training loss kept falling, that this is a sign of overfitting. */
static void verdict_train(const cJSON *rec, cJSON *out)
{
    const cJSON *t = item(rec, "train_drop7"), *eps = item(t, "epochs"), *e, *low = NULL;
    const cJSON *first = cJSON_GetArrayItem(eps, 0), *last = cJSON_GetArrayItem(eps, cJSON_GetArraySize(eps) - 1);
    char s[1024];
    if (!first)
        return;
    cJSON_ArrayForEach(e, eps)
        if (!low || gv_json_num(e, "val_loss") < gv_json_num(low, "val_loss"))
            low = e;
    int k = snprintf(s, sizeof s, "training on %.0f positions (%.0f held out) for %.0f epoch%s: validation loss %.4g after "
                     "epoch 1, %.4g after the last (policy cross-entropy %.4g, value MSE %.4g)",
                     gv_json_num(t, "samples"), gv_json_num(t, "val_samples"), gv_json_num(last, "epoch"),
                     plural(gv_json_num(last, "epoch")), gv_json_num(first, "val_loss"), gv_json_num(last, "val_loss"),
                     gv_json_num(last, "val_policy_ce"), gv_json_num(last, "val_value_mse"));
    if (low != last && gv_json_num(last, "train_loss") < gv_json_num(low, "train_loss") && k > 0 &&
        (size_t)k < sizeof s)
        snprintf(s + k, sizeof s - (size_t)k, "; it was lowest after epoch %.0f (%.4g) and rose since while the training loss "
                 "fell, a sign of overfitting these positions (more self-play games, or fewer epochs)",
                 gv_json_num(low, "epoch"), gv_json_num(low, "val_loss"));
    rep_add_sentence(out, s);
}

/* ---- a training run (bench/drop7/train_strong.sh's curve.json) ---------------------------- */

/* The run's best generation against the baselines played on the same seeds (its "play"
 * entries), and how many generations were promoted: the learning curve in one sentence. */
static void verdict_run(const cJSON *rec, cJSON *out)
{
    const cJSON *run = item(rec, "drop7_run"), *g, *best = NULL, *play = item(rec, "play");
    int n = 0, promoted = 0;
    char s[1024];
    cJSON_ArrayForEach(g, run) {
        n++;
        if (!strcmp(gv_json_str(g, "verdict", ""), "promoted"))
            promoted++;
    }
    const cJSON *last = cJSON_GetArrayItem(run, n - 1);
    if (!last)
        return;
    double bg = gv_json_num(last, "best");
    cJSON_ArrayForEach(g, run)
        if (gv_json_num(g, "generation") == bg)
            best = g;
    if (!best)
        return;
    int k = snprintf(s, sizeof s, "training run: %d generation%s (0-%.0f), %d promoted; the best, generation %.0f, scores "
                     "%.0f +- %.0f (95%% CI) on the evaluation seeds with the leaf %s", n, plural(n),
                     gv_json_num(last, "generation"), promoted, bg, gv_json_num(best, "score_mean"),
                     gv_json_num(best, "score_ci95"), gv_json_str(best, "leaf", "?"));
    const cJSON *p;
    cJSON_ArrayForEach(p, play) {
        double m = gv_json_num(p, "score_mean");
        if (k <= 0 || (size_t)k >= sizeof s || !(m > 0))
            break;
        k += snprintf(s + k, sizeof s - (size_t)k, "; %s %.0f +- %.0f (%.2fx)", gv_json_str(p, "policy", "?"), m,
                      gv_json_num(p, "score_ci95"), gv_json_num(best, "score_mean") / m);
    }
    rep_add_sentence(out, s);
}

void rep_verdicts_drop7(const cJSON *rec, cJSON *out)
{
    verdicts_infer(rec, out);
    verdicts_drop7(rec, out);
    if (item(rec, "drop7_run")) /* its play entries are the baselines of the run */
        verdict_run(rec, out);
    else
        verdicts_play(rec, out);
    verdict_selfplay(rec, out);
    verdict_train(rec, out);
}
