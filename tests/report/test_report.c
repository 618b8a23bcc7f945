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
    free(md);
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
    cJSON_Delete(a);
    cJSON_Delete(b);
    return t_done();
}
