/* test_report.c: verdicts, views and compare on the hand-designed synthetic records
 * (tests/fixtures/records/make_synthetic.py states how each figure was chosen) and on
 * small records built here for the honest-noise edge cases. Expected sentences are written
 * out by hand from those figures. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/record.h"
#include "report/report.h"

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static int has_verdict(const cJSON *v, const char *want)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
        if (cJSON_IsString(it) && !strcmp(it->valuestring, want))
            return 1;
    return 0;
}

static void print_verdicts(const cJSON *v)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
        printf("    verdict: %s\n", it->valuestring);
}

static void test_synthetic(cJSON *rec)
{
    cJSON *v = report_add_verdicts(rec);
    static const char *const want[] = {
        "use the GPU for 128-channel 6-block group-norm bf16 training on cuda (against CPU fp32) at batch ≥ 1024 (3.4x, up to 5.1x at batch 4096); "
        "at batch 256 the CPU is within 1.3x",
        "use the GPU for 128-channel 6-block group-norm fp32 training on cuda at every batch measured (64 to 4096): 1.2x to 4.0x the CPU",
        "use the GPU for fp32 GEMM on cuda at size ≥ 1024 (33.3x, up to 50.0x at size 4096); at size 256 the CPU is faster (GPU 0.75x)",
        "use the GPU for bf16 GEMM on cuda (against CPU fp32) at size ≥ 1024 (66.7x, up to 400.0x at size 4096); at size 256 the CPU is faster (GPU 0.5x)",
        "use the GPU for NES rendering of bench.nes at ≥ 256 instances (5.5x); at 16 instances the CPU is faster (GPU 0.44x)",
        "do not use the GPU renderer for Game Boy bench.gb: its video hash differs from the native renderer's at 64 instances "
        "(bbbbbbbbbbbbbbbb vs aaaaaaaaaaaaaaaa)",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!t_check(has_verdict(v, want[i]), "verdict: synthetic record", "%.90s...", want[i]))
            print_verdicts(v);
    int n = cJSON_GetArraySize(v);
    report_add_verdicts(rec);
    t_check(n == 6 && cJSON_GetArraySize(cJSON_GetObjectItem(rec, "verdict")) == 6, "verdict: six workloads, idempotent",
            "%d sentences, %d after a second call", n, cJSON_GetArraySize(cJSON_GetObjectItem(rec, "verdict")));

    char *html = report_html(rec);
    int svgs = count(html, "<svg"), tables = count(html, "<table");
    /* train 2, matmul 2, telemetry 4, nes 1, gb 1 */
    t_check(svgs == 10 && tables == 5, "html: plots and tables", "%d <svg> (want 10), %d <table> (want 5)", svgs, tables);
    int links = count(html, "http://") + count(html, "https://"), xmlns = count(html, "http://www.w3.org/2000/svg");
    t_check(!strstr(html, "<script") && !strstr(html, "<link") && !strstr(html, "<img") && links == xmlns,
            "html: self-contained (no script, link, img; only the SVG namespace URI)", "%d URIs, all %d SVG namespaces", links, xmlns);
    t_check(strstr(html, "batch size (log scale)") && strstr(html, "class=\"band\"") && strstr(html, "THROTTLED") &&
                strstr(html, "Power during the run"),
            "html: log-scale batch axis, shaded phases, throttle marked, telemetry plot", "found");
    free(html);
    char *md = report_markdown(rec);
    t_check(strstr(md, "## Verdict\n\n- use the GPU for 128-channel") && strstr(md, "| device | dtype | channels |") &&
                strstr(md, "| cuda | bf16 | 128 | 6 | group | 1024 | 1 | 8500 |") && strstr(md, "| --- | --- | ---: |"),
            "markdown: verdicts and tables", "%zu bytes", strlen(md));
    t_check(strstr(md, "| cuda bf16 c128 b4096 | 76 |") != NULL, "markdown: telemetry phase table", "phase row present");
    t_check(!strstr(md, "**warning:** the GPU was slowed"), "markdown: no throttle line without telemetry.throttle.warning", "absent");
    free(md);
    /* the run's one throttle line (written by gv_telemetry_stop) is shown once in both views */
    const char *line = "the GPU was slowed in 1 step, whose figures understate it: 'cuda bf16 c128 b4096' (sw_power_cap, SM clock 1980 -> 1600 MHz (-19%), 2 of 5 runs)";
    cJSON *thr = cJSON_AddObjectToObject(cJSON_GetObjectItem(rec, "telemetry"), "throttle");
    cJSON_AddStringToObject(thr, "warning", line);
    md = report_markdown(rec);
    html = report_html(rec);
    char wl[512];
    snprintf(wl, sizeof wl, "**warning:** %s", line);
    t_check(count(md, wl) == 1 && count(html, "warning: the GPU was slowed in 1 step") == 1,
            "report: the run's throttle line, once in Markdown and HTML", "%d and %d times: %s", count(md, wl),
            count(html, "warning: the GPU was slowed in 1 step"), line);
    free(md);
    free(html);
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(rec, "telemetry"), "throttle");
}

static cJSON *mini(double cpu_med, double gpu_med, double spread)
{
    cJSON *r = gv_record_new("bench train", 0, NULL);
    cJSON *a = cJSON_AddArrayToObject(r, "bench_train");
    const char *dev[2] = {"cpu", "cuda"};
    double med[2] = {cpu_med, gpu_med};
    for (int d = 0; d < 2; d++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "device", dev[d]);
        cJSON_AddStringToObject(e, "dtype", "fp32");
        cJSON_AddStringToObject(e, "norm", "batch");
        cJSON_AddNumberToObject(e, "channels", 64);
        cJSON_AddNumberToObject(e, "batch", 512);
        cJSON_AddNumberToObject(e, "samples_per_s_median", med[d]);
        cJSON_AddNumberToObject(e, "samples_per_s_min", med[d] * (1 - spread / 2));
        cJSON_AddNumberToObject(e, "samples_per_s_max", med[d] * (1 + spread / 2));
        cJSON_AddItemToArray(a, e);
    }
    return r;
}

static void test_noise(void)
{
    /* 1.1x with 10% spread on each side: the band is 1.1^2 = 1.21, so no GPU advice. */
    cJSON *r = mini(1000, 1100, 0.10);
    cJSON *v = report_add_verdicts(r);
    const char *want = "keep 64-channel batch-norm fp32 training on cuda on the CPU: at batch 512, the largest measured, the GPU is 1.1x, "
                       "within the noise (±21%)";
    if (!t_check(has_verdict(v, want), "verdict: a speedup inside the noise is not a GPU win", "%s", want))
        print_verdicts(v);
    cJSON_Delete(r);
    /* The sentence states the interval it used when the entries say how they were measured. */
    r = mini(1000, 1100, 0.10);
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(r, "bench_train"))
    {
        cJSON_AddNumberToObject((cJSON *)e, "repeats", 5);
        cJSON_AddNumberToObject((cJSON *)e, "seconds_median", 1.25);
    }
    v = report_add_verdicts(r);
    want = "keep 64-channel batch-norm fp32 training on cuda on the CPU: at batch 512, the largest measured, the GPU is 1.1x, "
           "within the noise (±21%: the spread of 5 GPU runs of 1.2 s and 5 CPU runs of 1.2 s)";
    if (!t_check(has_verdict(v, want), "verdict: the noise band names the repeats it came from", "%s", want))
        print_verdicts(v);
    cJSON_Delete(r);
    /* The same speedup with 1% spread (floored to 2%): 1.1 > 1.02^2. */
    r = mini(1000, 1100, 0.01);
    v = report_add_verdicts(r);
    want = "use the GPU for 64-channel batch-norm fp32 training on cuda at batch 512: 1.1x the CPU (noise ±4%)";
    if (!t_check(has_verdict(v, want), "verdict: the same speedup with tight repeats is a GPU win", "%s", want))
        print_verdicts(v);
    cJSON_Delete(r);
    r = mini(1000, 500, 0.01);
    v = report_add_verdicts(r);
    want = "keep 64-channel batch-norm fp32 training on cuda on the CPU: it is faster at every batch measured, up to batch 512 (GPU 0.5x)";
    if (!t_check(has_verdict(v, want), "verdict: a slower GPU", "%s", want))
        print_verdicts(v);
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "bench_train"), 0);
    cJSON_DeleteItemFromObject(r, "verdict");
    v = report_add_verdicts(r);
    want = "64-channel batch-norm fp32 training on cuda: no CPU measurement of the same configuration to compare with";
    if (!t_check(has_verdict(v, want), "verdict: no CPU counterpart", "%s", want))
        print_verdicts(v);
    cJSON_Delete(r);
    r = gv_record_new("probe", 0, NULL);
    v = report_add_verdicts(r);
    t_check(cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0, "verdict: nothing to compare", "empty array");
    char *html = report_html(r);
    t_check(strstr(html, "no verdict") && strstr(html, "</html>"), "html: a record without benchmarks still renders", "%zu bytes", strlen(html));
    free(html);
    cJSON_Delete(r);
}

/* Checks that the verdicts of the record written as JSON text include want, word for word. */
static void expect_verdict(const char *name, const char *json, const char *want)
{
    cJSON *r = cJSON_Parse(json);
    if (!r) {
        t_check(0, name, "the hand-made record does not parse");
        return;
    }
    cJSON *v = report_add_verdicts(r);
    if (!t_check(has_verdict(v, want), name, "%s", want))
        print_verdicts(v);
    cJSON_Delete(r);
}

/* Several games at once below one game: the emulation sentence says so and names the
 * cause the record shows (a busy machine; a slower renderer), and says nothing when the
 * batch is faster. Figures: 4676 fps for one game, 336 for 8 at once (0.07x). */
static void test_emu_scaling(void)
{
#define EMU_REC(cpus, many) "{\"host\":{\"cpus\":" cpus "},\"bench_nes\":[{\"rom\":\"a.nes\",\"video\":\"native\",\"audio\":\"native\"," \
    "\"instances\":1,\"fps_median\":4676,\"fps_best\":4700,\"threads\":2,\"load_before\":0.2,\"load_max\":0.5}," many "]}"
    expect_verdict("verdict: emulation, 8 games below one on a busy machine",
                   EMU_REC("2", "{\"rom\":\"a.nes\",\"video\":\"native\",\"audio\":\"native\",\"instances\":8,\"fps_median\":336,"
                                "\"fps_best\":350,\"threads\":2,\"load_before\":3.9,\"load_max\":4.6}"),
                   "no GPU was measured: NES emulation on the CPU runs 4676 frames/s for one game (78x real time) and 336 "
                   "instance-frames/s for 8 games at once (native renderer); together they ran at 0.07x the one game's rate, "
                   "where 2 threads could reach 2x: the machine was busy (load average 3.9 before and up to 4.6 during, on 2 "
                   "usable cores), and a batch waits at every frame for its slowest thread, so other work on the cores slows "
                   "it more than one game");
    expect_verdict("verdict: emulation, 8 games below one with a slower renderer",
                   EMU_REC("2", "{\"rom\":\"a.nes\",\"video\":\"host\",\"audio\":\"native\",\"instances\":8,\"fps_median\":2000,"
                                "\"threads\":2,\"load_before\":0.2,\"load_max\":1.5,\"host_over_native\":0.5}"),
                   "no GPU was measured: NES emulation on the CPU runs 4676 frames/s for one game (78x real time) and 2000 "
                   "instance-frames/s for 8 games at once (host renderer); together they ran at 0.43x the one game's rate, "
                   "where 2 threads could reach 2x: the host renderer ran at 0.50x the native renderer's rate at 8 instances");
    expect_verdict("verdict: emulation, 8 games above one need no comment",
                   EMU_REC("2", "{\"rom\":\"a.nes\",\"video\":\"native\",\"audio\":\"native\",\"instances\":8,\"fps_median\":9000,"
                                "\"threads\":2,\"load_before\":3.9,\"load_max\":4.6}"),
                   "no GPU was measured: NES emulation on the CPU runs 4676 frames/s for one game (78x real time) and 9000 "
                   "instance-frames/s for 8 games at once (native renderer)");
#undef EMU_REC
}

/* play: greedy against random says what a one-move lookahead is expected to do in normal
 * mode (the figures: 200 games from seed 1), nothing of it in hardcore mode; a network
 * against both baselines says whether it beats both. */
static void test_play_wording(void)
{
#define PLAY_REC(mode, first, vs) "{\"mode\":\"" mode "\",\"play\":[" first "," \
    "{\"policy\":\"greedy\",\"games\":200,\"score_mean\":16030,\"score_ci95\":2247,\"moves_mean\":82.4}," \
    "{\"policy\":\"random\",\"games\":200,\"score_mean\":19852,\"score_ci95\":1580,\"moves_mean\":92.1}],\"play_vs\":[" vs "]}"
#define GREEDY_VS_RANDOM(v) "{\"policy\":\"greedy\",\"baseline\":\"random\",\"score_diff\":-3822,\"score_diff_ci95\":2747,\"verdict\":\"" v "\"}"
    static const char greedy_first[] = "{\"policy\":\"greedy\",\"games\":200,\"score_mean\":16030,\"score_ci95\":2247,\"moves_mean\":82.4}";
    /* greedy first: the play array starts with it, then the same baseline rows */
    char buf[2048];
    snprintf(buf, sizeof buf, "{\"mode\":\"normal\",\"play\":[%s,"
             "{\"policy\":\"random\",\"games\":200,\"score_mean\":19852,\"score_ci95\":1580,\"moves_mean\":92.1}],"
             "\"play_vs\":[" GREEDY_VS_RANDOM("worse") "]}", greedy_first);
    expect_verdict("verdict: greedy below random is expected (normal mode)", buf,
                   "greedy scores 16030 +- 2247 on average, random 19852 +- 1580: worse (difference -3822 +- 2747, 95% CI "
                   "excludes 0); as expected of a one-move lookahead in normal-mode Drop7: greedy takes the most points now, "
                   "which fills the board sooner (its games last 82.4 moves on average, random's 92.1)");
    snprintf(buf, sizeof buf, "{\"mode\":\"normal\",\"play\":["
             "{\"policy\":\"random\",\"games\":200,\"score_mean\":19852,\"score_ci95\":1580,\"moves_mean\":92.1},%s],"
             "\"play_vs\":[{\"policy\":\"random\",\"baseline\":\"greedy\",\"score_diff\":1000,\"score_diff_ci95\":2747,"
             "\"verdict\":\"not distinguishable\"}]}", greedy_first);
    expect_verdict("verdict: random against greedy, not told apart", buf,
                   "random scores 19852 +- 1580 on average, greedy 16030 +- 2247: not distinguishable (difference +1000 +- "
                   "2747, 95% CI includes 0); a one-move lookahead (greedy) usually scores below random play in normal-mode "
                   "Drop7, since taking the most points now fills the board sooner: these 200 games per policy do not tell "
                   "them apart");
    snprintf(buf, sizeof buf, "{\"mode\":\"hardcore\",\"play\":[%s,"
             "{\"policy\":\"random\",\"games\":200,\"score_mean\":19852,\"score_ci95\":1580,\"moves_mean\":92.1}],"
             "\"play_vs\":[" GREEDY_VS_RANDOM("worse") "]}", greedy_first);
    expect_verdict("verdict: no normal-mode note in hardcore mode", buf,
                   "greedy scores 16030 +- 2247 on average, random 19852 +- 1580: worse (difference -3822 +- 2747, 95% CI "
                   "excludes 0)");
    static const char net[] = "{\"policy\":\"net (16 sims, cpu)\",\"games\":200,\"score_mean\":21000,\"score_ci95\":1500}";
    snprintf(buf, sizeof buf, PLAY_REC("normal", "%s",
             "{\"policy\":\"net (16 sims, cpu)\",\"baseline\":\"greedy\",\"score_diff\":4970,\"score_diff_ci95\":2700,\"verdict\":\"better\"},"
             "{\"policy\":\"net (16 sims, cpu)\",\"baseline\":\"random\",\"score_diff\":1148,\"score_diff_ci95\":2180,\"verdict\":\"not distinguishable\"}"),
             net);
    expect_verdict("verdict: a network that beats greedy only", buf,
                   "net (16 sims, cpu) does not beat both baselines: better than greedy; not distinguishable from random "
                   "(greedy is the weaker baseline here, 16030 against random's 19852, so beating it alone says little)");
    snprintf(buf, sizeof buf, PLAY_REC("normal", "%s",
             "{\"policy\":\"net (16 sims, cpu)\",\"baseline\":\"greedy\",\"score_diff\":4970,\"score_diff_ci95\":2700,\"verdict\":\"better\"},"
             "{\"policy\":\"net (16 sims, cpu)\",\"baseline\":\"random\",\"score_diff\":3148,\"score_diff_ci95\":2180,\"verdict\":\"better\"}"),
             net);
    expect_verdict("verdict: a network that beats both baselines", buf, "net (16 sims, cpu) beats both baselines (greedy and random)");
    expect_verdict("verdict: a network against one baseline", buf,
                   "net (16 sims, cpu) scores 21000 +- 1500 on average, random 19852 +- 1580: better (difference +3148 +- "
                   "2180, 95% CI excludes 0)");
#undef GREEDY_VS_RANDOM
#undef PLAY_REC
}

/* The GPU sentences of bench infer and bench drop7 (from their crossover entries), a GPU
 * whose game records differ, self-play's time shares and train --data's losses. */
static void test_drop7_records(void)
{
    expect_verdict("verdict: bench infer crossover",
                   "{\"bench_infer\":[{\"device\":\"cuda\",\"dtype\":\"fp32\",\"norm\":\"group\",\"channels\":128,\"batch\":1,"
                   "\"speedup_vs_cpu\":0.3},{\"device\":\"cuda\",\"dtype\":\"fp32\",\"norm\":\"group\",\"channels\":128,"
                   "\"batch\":64,\"speedup_vs_cpu\":2.5}],\"bench_infer_crossover\":[{\"device\":\"cuda\",\"dtype\":\"fp32\","
                   "\"norm\":\"group\",\"channels\":128,\"batches_compared\":2,\"gpu_faster_from_batch\":64}]}",
                   "cuda fp32 128-channel group-norm inference beats the CPU from batch 64 on (of 2 batch sizes compared); "
                   "below it, the CPU answers sooner");
    static const char d7[] =
        "{\"bench_drop7\":[{\"device\":\"cuda\",\"player\":\"random\",\"batch\":1,\"speedup_vs_cpu\":0.01,\"records_match_cpu\":true},"
        "{\"device\":\"cuda\",\"player\":\"random\",\"batch\":4096,\"speedup_vs_cpu\":5,\"records_match_cpu\":true},"
        "{\"device\":\"cuda\",\"player\":\"greedy\",\"batch\":64,\"speedup_vs_cpu\":0.5,\"records_match_cpu\":false}],"
        "\"bench_drop7_crossover\":[{\"device\":\"cuda\",\"player\":\"random\",\"batches_compared\":2,\"gpu_faster_from_batch\":4096},"
        "{\"device\":\"cuda\",\"player\":\"greedy\",\"batches_compared\":1,\"gpu_faster_from_batch\":null}]}";
    expect_verdict("verdict: bench drop7 crossover", d7,
                   "play random Drop7 games on cuda from batch 4096 on (up to 5.00x the CPU, at batch 4096); below it the CPU is faster");
    expect_verdict("verdict: bench drop7, records that differ", d7,
                   "do not use cuda for greedy Drop7 games: at batch 64 its game records differ from the CPU's for the same seeds");
    expect_verdict("verdict: bench drop7, a GPU not faster", d7,
                   "keep greedy Drop7 games on the CPU: cuda is not faster at the largest batches measured (best 0.50x, 1 batch "
                   "size compared)");
    static const char sp[] =
        "{\"selfplay\":{\"out\":\"d.st\",\"device\":\"cuda\",\"games_played\":64,\"games_in_file\":64,\"positions_in_file\":5800,"
        "\"sims\":32,\"moves\":5800,\"evals\":180000,\"score_mean\":20500,\"score_ci95\":2100,\"seconds_total\":10,"
        "\"seconds_search\":6,\"seconds_inference\":3,\"seconds_game\":1,\"seconds_write\":0.2}}";
    expect_verdict("verdict: selfplay where the time went", sp,
                   "self-play on cuda: 64 games of 32 simulations per move, mean score 20500 +- 2100 (95% CI); of its 10 s, "
                   "inference took 30% (180000 positions, 60000/s), the search 60%, the game 10%: the search dominates: the "
                   "tree walk on the CPU, not the network, limits self-play, so a faster network device would change little");
    expect_verdict("verdict: train --data, the validation loss rising at the end",
                   "{\"train_drop7\":{\"samples\":556,\"val_samples\":55,\"epochs\":["
                   "{\"epoch\":1,\"train_loss\":2.25,\"val_loss\":2.154,\"val_policy_ce\":1.945,\"val_value_mse\":0.2083},"
                   "{\"epoch\":2,\"train_loss\":1.806,\"val_loss\":1.961,\"val_policy_ce\":1.878,\"val_value_mse\":0.0828},"
                   "{\"epoch\":3,\"train_loss\":1.654,\"val_loss\":1.986,\"val_policy_ce\":1.93,\"val_value_mse\":0.05619}]}}",
                   "training on 556 positions (55 held out) for 3 epochs: validation loss 2.154 after epoch 1, 1.986 after the "
                   "last (policy cross-entropy 1.93, value MSE 0.05619); it was lowest after epoch 2 (1.961) and rose since "
                   "while the training loss fell, a sign of overfitting these positions (more self-play games, or fewer epochs)");
    cJSON *r = cJSON_Parse(sp);
    char *md = report_markdown(r), *html = report_html(r);
    t_check(strstr(md, "| device | games | sims | moves | positions evaluated | mean score | 95% CI ± | seconds | search | "
                       "inference | game | positions/s | writing s |") && strstr(md, "| cuda | 64 | 32 | 5800 | 180000 | 20500 | "
                       "2100 | 10 | 60.0% | 30.0% | 10.0% | 60000 | 0.2 |"),
            "markdown: the selfplay object as a one-row table", "header and row found");
    t_check(count(html, "<svg") == 1 && strstr(html, "Self-play: where the time went") && strstr(html, ">inference</text>"),
            "html: the selfplay time shares as a category plot", "%d <svg>", count(html, "<svg"));
    free(md);
    free(html);
    cJSON_Delete(r);
}

static void test_compare(const cJSON *a, const cJSON *b)
{
    int marked = -1;
    cJSON *out = cJSON_CreateObject();
    char *md = report_compare(a, b, &marked, out);
    /* Designed in make_synthetic.py: bf16 b1024 +17.6% and fp32 b4096 -20% are beyond the
     * noise; cpu b256 +2.1% is inside its band; fp32 b8192 exists only in B. */
    t_check(marked == 2, "compare: two changes beyond the noise", "%d marked", marked);
    t_check(strstr(md, "| device=cuda dtype=bf16 channels=128 blocks=6 norm=group batch=1024 | 8500 | 10000 | +17.6% |") &&
                strstr(md, "| **faster** |"),
            "compare: the bf16 improvement is marked faster", "found");
    t_check(strstr(md, "batch=4096 | 10000 | 8000 | -20.0% |") && strstr(md, "| **slower** |"), "compare: the fp32 regression is marked slower",
            "found");
    t_check(strstr(md, "device=cpu dtype=fp32 channels=128 blocks=6 norm=group batch=256 | 2400 | 2450 | +2.1% | ±") &&
                strstr(md, "| within noise |"),
            "compare: a change inside the noise is not marked", "found");
    t_check(strstr(md, "batch=8192 | — | 11000 | | | only in B |") && strstr(md, "host.probe.blas.version: 0.3.21 → 0.3.26"),
            "compare: new entries and the BLAS upgrade are listed", "found");
    t_check(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(out, "compare"), "marked")) == 2, "compare: JSON form", "marked 2");
    free(md);
    cJSON_Delete(out);
    md = report_compare(a, a, &marked, NULL);
    t_check(marked == 0 && strstr(md, "0 changes beyond the noise"), "compare: a record against itself", "%d marked", marked);
    free(md);
}

/* A benchmark row's "throttled" cell: its configuration ran once per repeat, every run a
 * phase of the same label; the row is THROTTLED when any of them was (here the second). */
static void test_throttled_cell(void)
{
    cJSON *r = gv_record_new("bench matmul", 0, NULL);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "device", "cuda");
    cJSON_AddStringToObject(e, "dtype", "fp32");
    cJSON_AddNumberToObject(e, "m", 4096);
    cJSON_AddNumberToObject(e, "gflops_median", 50000);
    cJSON_AddStringToObject(e, "telemetry_phase", "cuda fp32 4096");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "bench_matmul"), e);
    cJSON *ph = cJSON_AddArrayToObject(cJSON_AddObjectToObject(r, "telemetry"), "phases");
    for (int i = 0; i < 3; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "label", "cuda fp32 4096");
        cJSON_AddBoolToObject(p, "throttled", i == 1);
        cJSON_AddItemToArray(ph, p);
    }
    char *md = report_markdown(r);
    const char *row = strstr(md, "| cuda | fp32 | 4096 |");
    const char *eol = row ? strchr(row, '\n') : NULL;
    int n = row && eol ? (int)(eol - row) : 0;
    char line[1024] = "";
    snprintf(line, sizeof line, "%.*s", n, row ? row : "");
    t_check(n && strstr(line, "THROTTLED"), "report: a row is THROTTLED when any of its runs was (2nd of 3)", "%s", n ? line : "(no row)");
    free(md);
    cJSON_Delete(r);
}

int main(void)
{
    const char *root = getenv("GV_ROOT");
    if (!root) {
        t_skip("report", "GV_ROOT is not set (run through make test)");
        return 0;
    }
    char pa[600], pb[600];
    snprintf(pa, sizeof pa, "%s/tests/fixtures/records/synthetic.json", root);
    snprintf(pb, sizeof pb, "%s/tests/fixtures/records/synthetic_b.json", root);
    gv_err e;
    cJSON *a = NULL, *b = NULL;
    if (!t_check(gv_record_load(pa, &a, &e) == GV_OK && gv_record_load(pb, &b, &e) == GV_OK, "report: load synthetic records", "%s",
                 a && b ? "ok" : e.msg))
        return t_done();
    test_compare(a, b);
    test_synthetic(a);
    test_noise();
    test_throttled_cell();
    test_emu_scaling();
    test_play_wording();
    test_drop7_records();
    cJSON_Delete(a);
    cJSON_Delete(b);
    return t_done();
}
