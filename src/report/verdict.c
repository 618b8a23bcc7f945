/* verdict.c: one plain sentence per workload from the benchmark entries of a record.
 * A GPU entry is compared with the CPU entry of the same configuration; the GPU "wins" a
 * point only when its median speedup exceeds (1 + noise_gpu)(1 + noise_cpu), and "loses"
 * only below the inverse; in between the two are within noise. The crossover is the
 * smallest batch/size/instance count from which the GPU wins at every larger one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/harness.h"
#include "core/gv.h"
#include "emu/registry.h"
#include "report/rep_int.h"
#include "report/report.h"

typedef struct {
    double x;
    char xl[32];
    double speedup, noise; /* noise: the factor (1 + n_gpu)(1 + n_cpu) */
    char basis[128];       /* what the band was measured from, for the sentence ("" unknown) */
} vpoint;

/* How the noise band of a GPU entry g against the CPU entry c was measured: the spread of
 * each side's timed repeats and how long a repeat took, e.g. ": the spread of 5 GPU runs
 * of 1.1 s and 5 CPU runs of 1 s". Empty when the entries do not say. */
static void noise_basis(const cJSON *g, const cJSON *c, char *buf, size_t len)
{
    double rg = gv_json_num(g, "repeats"), rc = gv_json_num(c, "repeats");
    double sg = gv_json_num(g, "seconds_median"), sc = gv_json_num(c, "seconds_median");
    buf[0] = 0;
    if (!isfinite(rg) || !isfinite(rc))
        return;
    if (isfinite(sg) && isfinite(sc))
        snprintf(buf, len, ": the spread of %.0f GPU runs of %.2g s and %.0f CPU runs of %.2g s", rg, sg, rc, sc);
    else
        snprintf(buf, len, ": the spread of %.0f GPU and %.0f CPU runs", rg, rc);
}

static int cmp_point(const void *a, const void *b)
{
    double x = ((const vpoint *)a)->x, y = ((const vpoint *)b)->x;
    return (x > y) - (x < y);
}

static int vclass(const vpoint *p)
{
    return p->speedup > p->noise ? 1 : p->speedup < 1 / p->noise ? -1 : 0;
}

static void fmt_x(double s, char *buf, size_t len)
{
    snprintf(buf, len, s >= 1 ? "%.1fx" : "%.2gx", s);
}

/* xfmt places a count in its phrase: "batch %s", "size %s", "%s instances". */
static void at_x(const char *xfmt, const char *count, char *buf, size_t len)
{
    snprintf(buf, len, xfmt, count);
}

/* The sentence for one workload from its points (sorted here). */
static void sentence(const char *workload, const char *xfmt, const char *xs, vpoint *p, int n, char *out, size_t len)
{
    qsort(p, (size_t)n, sizeof *p, cmp_point);
    int t = n;
    while (t > 0 && vclass(&p[t - 1]) == 1)
        t--;
    char a[48], b[48], xa[64], xb[64], ge[48];
    if (t == 0) {
        fmt_x(p[0].speedup, a, sizeof a);
        fmt_x(p[n - 1].speedup, b, sizeof b);
        if (n == 1) {
            at_x(xfmt, p[0].xl, xa, sizeof xa);
            snprintf(out, len, "use the GPU for %s at %s: %s the CPU (noise ±%.0f%%%s)", workload, xa, a, 100 * (p[0].noise - 1),
                     p[0].basis);
        } else {
            snprintf(out, len, "use the GPU for %s at every %s measured (%s to %s): %s to %s the CPU", workload, xs,
                     p[0].xl, p[n - 1].xl, a, b);
        }
        return;
    }
    if (t == n) {
        const vpoint *l = &p[n - 1];
        fmt_x(l->speedup, a, sizeof a);
        at_x(xfmt, l->xl, xa, sizeof xa);
        int all_cpu = 1;
        for (int i = 0; i < n; i++)
            all_cpu &= vclass(&p[i]) == -1;
        if (all_cpu)
            snprintf(out, len, "keep %s on the CPU: it is faster at every %s measured, up to %s (GPU %s)", workload, xs, xa, a);
        else if (vclass(l) == 0)
            snprintf(out, len, "keep %s on the CPU: at %s, the largest measured, the GPU is %s, within the noise (±%.0f%%%s)",
                     workload, xa, a, 100 * (l->noise - 1), l->basis);
        else
            snprintf(out, len, "keep %s on the CPU: at %s, the largest measured, the CPU is faster (GPU %s)", workload, xa, a);
        return;
    }
    snprintf(ge, sizeof ge, "≥ %s", p[t].xl);
    at_x(xfmt, ge, xa, sizeof xa);
    fmt_x(p[t].speedup, a, sizeof a);
    int best = t;
    for (int i = t; i < n; i++)
        if (p[i].speedup > p[best].speedup)
            best = i;
    char up[128] = "";
    if (best != t) {
        fmt_x(p[best].speedup, b, sizeof b);
        at_x(xfmt, p[best].xl, xb, sizeof xb);
        snprintf(up, sizeof up, ", up to %s at %s", b, xb);
    }
    const vpoint *q = &p[t - 1];
    char qa[48];
    at_x(xfmt, q->xl, xb, sizeof xb);
    if (vclass(q) == 0) {
        fmt_x(q->speedup >= 1 ? q->speedup : 1 / q->speedup, qa, sizeof qa);
        snprintf(out, len, "use the GPU for %s at %s (%s%s); at %s the CPU is within %s", workload, xa, a, up, xb, qa);
    } else {
        fmt_x(q->speedup, qa, sizeof qa);
        snprintf(out, len, "use the GPU for %s at %s (%s%s); at %s the CPU is faster (GPU %s)", workload, xa, a, up, xb, qa);
    }
}

static int same_num(const cJSON *a, const cJSON *b, const char *key)
{
    double x = gv_json_num(a, key), y = gv_json_num(b, key);
    return (isnan(x) && isnan(y)) || x == y;
}

static int same_str(const cJSON *a, const cJSON *b, const char *key)
{
    const char *x = gv_json_str(a, key, NULL), *y = gv_json_str(b, key, NULL);
    return (!x && !y) || (x && y && !strcmp(x, y));
}

static int is_cpu(const cJSON *e)
{
    const char *d = gv_json_str(e, "device", NULL);
    return d && !strcmp(d, "cpu");
}

void rep_add_sentence(cJSON *v, const char *s)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
        if (cJSON_IsString(it) && !strcmp(it->valuestring, s))
            return;
    cJSON_AddItemToArray(v, cJSON_CreateString(s));
}

/* ---- bench_train and bench_matmul: GPU entries against the CPU entry of the same shape. */

const cJSON *rep_cpu_match(const cJSON *arr, const cJSON *g, const char *kind)
{
    static const char *const train_keys[] = {"channels", "blocks", "batch"}, *const mm_keys[] = {"m", "n", "k"};
    const char *const *keys = !strcmp(kind, "train") ? train_keys : mm_keys;
    const cJSON *fallback = NULL, *e;
    cJSON_ArrayForEach(e, arr) {
        if (!is_cpu(e) || (!strcmp(kind, "train") && !same_str(e, g, "norm")))
            continue;
        int ok = 1;
        for (int k = 0; k < 3 && ok; k++)
            ok = same_num(e, g, keys[k]);
        if (!ok)
            continue;
        if (same_str(e, g, "dtype"))
            return e;
        const char *dt = gv_json_str(e, "dtype", NULL);
        if (!fallback || (dt && !strcmp(dt, "fp32")))
            fallback = e;
    }
    return fallback;
}

static void verdicts_gpu_vs_cpu(const cJSON *arr, const char *kind, cJSON *out)
{
    static const char *const train_group[] = {"channels", "blocks"};
    int train = !strcmp(kind, "train");
    int n = cJSON_GetArraySize(arr);
    char *done = gv_xcalloc((size_t)n + 1, 1);
    int i = 0;
    const cJSON *g;
    cJSON_ArrayForEach(g, arr) {
        int gi = i++;
        if (is_cpu(g) || done[gi])
            continue;
        vpoint *pts = gv_xcalloc((size_t)n, sizeof *pts);
        int np = 0, j = 0;
        const char *cpu_dtype = NULL;
        const cJSON *h;
        cJSON_ArrayForEach(h, arr) {
            int hj = j++;
            if (done[hj] || is_cpu(h) || !same_str(h, g, "device") || !same_str(h, g, "dtype"))
                continue;
            if (train && (!same_num(h, g, train_group[0]) || !same_num(h, g, train_group[1]) || !same_str(h, g, "norm")))
                continue;
            done[hj] = 1;
            const cJSON *c = rep_cpu_match(arr, h, kind);
            if (!c || !(rep_value(c, kind) > 0) || !(rep_value(h, kind) > 0))
                continue;
            cpu_dtype = gv_json_str(c, "dtype", NULL);
            vpoint *p = &pts[np++];
            p->speedup = rep_value(h, kind) / rep_value(c, kind);
            p->noise = (1 + rep_noise(h, kind)) * (1 + rep_noise(c, kind));
            noise_basis(h, c, p->basis, sizeof p->basis);
            if (train) {
                p->x = gv_json_num(h, "batch");
                snprintf(p->xl, sizeof p->xl, "%.0f", p->x);
            } else {
                double m = gv_json_num(h, "m"), nn = gv_json_num(h, "n"), k = gv_json_num(h, "k");
                p->x = cbrt(m * nn * k);
                if (m == nn && nn == k)
                    snprintf(p->xl, sizeof p->xl, "%.0f", m);
                else
                    snprintf(p->xl, sizeof p->xl, "%.0fx%.0fx%.0f", m, nn, k);
            }
        }
        char workload[256], s[1024];
        const char *dev = gv_json_str(g, "device", NULL), *dt = gv_json_str(g, "dtype", NULL);
        char vs[48] = "";
        if (cpu_dtype && dt && strcmp(cpu_dtype, dt))
            snprintf(vs, sizeof vs, " (against CPU %s)", cpu_dtype);
        if (train) {
            char blocks[32] = "";
            if (isfinite(gv_json_num(g, "blocks")))
                snprintf(blocks, sizeof blocks, "%.0f-block ", gv_json_num(g, "blocks"));
            snprintf(workload, sizeof workload, "%.0f-channel %s%s%s%s training on %s%s", gv_json_num(g, "channels"),
                     blocks, gv_json_str(g, "norm", ""), gv_json_str(g, "norm", NULL) ? "-norm " : "", dt ? dt : "?",
                     dev ? dev : "?", vs);
        } else {
            snprintf(workload, sizeof workload, "%s GEMM on %s%s", dt ? dt : "?", dev ? dev : "?", vs);
        }
        if (np == 0)
            snprintf(s, sizeof s, "%s: no CPU measurement of the same configuration to compare with", workload);
        else
            sentence(workload, train ? "batch %s" : "size %s", train ? "batch" : "size", pts, np, s, sizeof s);
        rep_add_sentence(out, s);
        free(pts);
    }
    free(done);
}

/* ---- bench_<console>: the device renderer against the best CPU renderer. */

static void verdicts_emu(const cJSON *arr, const char *console, cJSON *out)
{
    int n = cJSON_GetArraySize(arr);
    char *done = gv_xcalloc((size_t)n + 1, 1);
    int i = 0;
    const cJSON *g;
    /* Correctness first: a renderer whose hashes differ from the native renderers' is wrong. */
    cJSON_ArrayForEach(g, arr) {
        const cJSON *ok = cJSON_GetObjectItemCaseSensitive(g, "hashes_match_native");
        if (cJSON_IsFalse(ok)) {
            char s[512];
            const char *rom = gv_json_str(g, "rom", "?");
            snprintf(s, sizeof s, "do not trust the %s video / %s audio renderers for %s %s: at %.0f instances their "
                     "hashes differ from the native renderers'", gv_json_str(g, "video", "?"),
                     gv_json_str(g, "audio", "?"), console,
                     strrchr(rom, '/') ? strrchr(rom, '/') + 1 : rom, gv_json_num(g, "instances"));
            rep_add_sentence(out, s);
        }
    }
    cJSON_ArrayForEach(g, arr) {
        int gi = i++;
        const char *v = gv_json_str(g, "video", NULL);
        if (done[gi] || !v || strcmp(v, "device"))
            continue;
        vpoint *pts = gv_xcalloc((size_t)n, sizeof *pts);
        int np = 0, j = 0;
        char bad[512] = "";
        const char *rom = gv_json_str(g, "rom", "?");
        const char *base = strrchr(rom, '/') ? strrchr(rom, '/') + 1 : rom;
        const cJSON *h;
        cJSON_ArrayForEach(h, arr) {
            int hj = j++;
            const char *hv = gv_json_str(h, "video", NULL);
            if (done[hj] || !hv || strcmp(hv, "device") || !same_str(h, g, "rom") || !same_str(h, g, "audio"))
                continue;
            done[hj] = 1;
            const cJSON *best = NULL, *c;
            cJSON_ArrayForEach(c, arr) {
                const char *cv = gv_json_str(c, "video", NULL);
                /* a CPU renderer ("none" draws nothing, so it is no comparison) */
                if (!cv || !strcmp(cv, "device") || !strcmp(cv, "none") || !same_str(c, h, "rom") ||
                    !same_num(c, h, "instances"))
                    continue;
                /* Renderers must agree bit for bit; a differing hash disqualifies the GPU. */
                const char *hv1 = gv_json_str(h, "video_hash", NULL), *cv1 = gv_json_str(c, "video_hash", NULL);
                if (!bad[0] && same_num(c, h, "frames") && hv1 && cv1 && strcmp(hv1, cv1))
                    snprintf(bad, sizeof bad, "do not use the GPU renderer for %s %s: its video hash differs from the %s "
                             "renderer's at %.0f instances (%s vs %s)", console, base, cv, gv_json_num(h, "instances"),
                             hv1, cv1);
                if (same_str(c, h, "audio") && (!best || rep_value(c, "emu") > rep_value(best, "emu")))
                    best = c;
            }
            if (!best || !(rep_value(best, "emu") > 0) || !(rep_value(h, "emu") > 0))
                continue;
            vpoint *p = &pts[np++];
            p->x = gv_json_num(h, "instances");
            snprintf(p->xl, sizeof p->xl, "%.0f", p->x);
            p->speedup = rep_value(h, "emu") / rep_value(best, "emu");
            p->noise = (1 + rep_noise(h, "emu")) * (1 + rep_noise(best, "emu"));
            noise_basis(h, best, p->basis, sizeof p->basis);
        }
        char workload[256], s[1024];
        snprintf(workload, sizeof workload, "%s rendering of %s", console, base);
        if (bad[0])
            snprintf(s, sizeof s, "%s", bad);
        else if (np == 0)
            snprintf(s, sizeof s, "%s: no CPU renderer measured at the same instance counts to compare with", workload);
        else
            sentence(workload, "%s instances", "instance count", pts, np, s, sizeof s);
        rep_add_sentence(out, s);
        free(pts);
    }
    free(done);
}

/* ---- no GPU measured: what the CPU reaches, why there was no GPU, what to do next ---- */

/* Why no GPU was measured, from the record's probe (host.probe), and what to do about it. */
static void no_gpu_reason(const cJSON *rec, char *why, size_t wl, char *next, size_t nl)
{
    const cJSON *p = rep_path(rec, "host.probe");
    const char *backend = gv_json_str(p, "gpu_backend", NULL);
    int gpus = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "gpus"));
    if (!p) {
        snprintf(why, wl, "the record has no probe of the machine");
        snprintf(next, nl, "run gpuvet probe to see which GPUs the machine has");
    } else if (!backend) {
        snprintf(why, wl, "this gpuvet was built without a GPU backend%s", gpus ? " although the machine has a GPU" : "");
        snprintf(next, nl, "install the CUDA toolkit (nvcc) or ROCm, rebuild with make GPU=cuda or make GPU=hip "
                 "(docs/BUILD.md) and run gpuvet all again");
    } else if (!gpus) {
        const char *nodes = gv_json_str(p, "device_nodes_why", NULL);
        snprintf(why, wl, "the %s backend finds no GPU: %s", backend,
                 nodes ? nodes : gv_json_str(p, "gpus_why", "no device"));
        snprintf(next, nl, "install and load the GPU driver (gpuvet probe says what is missing; docs/TROUBLESHOOTING.md), "
                 "then run gpuvet smoke and gpuvet all");
    } else {
        snprintf(why, wl, "no GPU was among the devices asked for");
        snprintf(next, nl, "run gpuvet all --devices cpu,%s", backend);
    }
}

/* The median of entries of arr at their largest `xkey`, of device cpu: its value and x. */
static int cpu_best(const cJSON *arr, const char *xkey, const char *ykey, double *y, double *x)
{
    const cJSON *e;
    *x = -1;
    cJSON_ArrayForEach(e, arr)
        if (is_cpu(e) && gv_json_num(e, xkey) > *x) {
            *x = gv_json_num(e, xkey);
            *y = gv_json_num(e, ykey);
        }
    return *x >= 0;
}

/* When several games at once (many) made fewer instance-frames/s than one game (one), says
 * so into buf ("" otherwise), with the causes the record shows: a busy machine (the load
 * average against the usable cores), a renderer slower than the native one at that
 * instance count, or else what a frame cost per CPU-second in each. */
static void below_one_game(const cJSON *rec, const cJSON *one, const cJSON *many, char *buf, size_t len)
{
    double f1 = gv_json_num(one, "fps_median"), fn = gv_json_num(many, "fps_median");
    double n = gv_json_num(many, "instances");
    buf[0] = 0;
    if (!(fn < f1))
        return;
    double threads = gv_json_num(many, "threads"), cores = gv_json_num(rep_path(rec, "load"), "cores");
    if (!(cores > 0))
        cores = gv_json_num(rep_path(rec, "host"), "cpus");
    if (!(threads > 0))
        threads = cores;
    double bound = threads > 0 ? GV_MIN(n, threads) : n;
    int k = snprintf(buf, len, "; together they ran at %.2fx the one game's rate, where %.0f threads could reach %.0fx: ", fn / f1, bound, bound);
    int causes = 0;
    double before = gv_json_num(many, "load_before"), during = gv_json_num(many, "load_max");
    if (cores > 0 && (bench_load_busy(before, (int)cores, 0) || bench_load_busy(during, (int)cores, 1)) && k > 0 && (size_t)k < len) {
        k += snprintf(buf + k, len - (size_t)k, "the machine was busy (load average %.1f before and up to %.1f during, on %.0f "
                      "usable cores), and a batch waits at every frame for its slowest thread, so other work on the cores "
                      "slows it more than one game", before, during, cores);
        causes++;
    }
    const char *video = gv_json_str(many, "video", NULL);
    char key[48];
    snprintf(key, sizeof key, "%s_over_native", video ? video : "?");
    double r = gv_json_num(many, key);
    if (video && strcmp(video, "native") && r < 1 && k > 0 && (size_t)k < len) {
        k += snprintf(buf + k, len - (size_t)k, "%sthe %s renderer ran at %.2fx the native renderer's rate at %.0f instances",
                      causes ? "; and " : "", video, r, n);
        causes++;
    }
    double c1 = gv_json_num(one, "fps_per_cpu_second_median"), cn = gv_json_num(many, "fps_per_cpu_second_median");
    if (!causes && k > 0 && (size_t)k < len) {
        if (cn < c1)
            snprintf(buf + k, len - (size_t)k, "the load (%.1f on %.0f cores) and the renderer do not explain it, but per "
                     "CPU-second the batch made %.0f instance-frames against %.0f for one game: a frame cost more CPU time "
                     "in the batch (threads waiting for each other at every frame, or caches shared by more games)",
                     during, cores, cn, c1);
        else
            snprintf(buf + k, len - (size_t)k, "the record shows no cause (load %.1f on %.0f cores, the %s renderer); "
                     "measure again with gpuvet bench", during, cores, video ? video : "?");
    }
}

static void verdicts_cpu_only(const cJSON *rec, cJSON *out)
{
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(rec, "bench_train"), *mm = cJSON_GetObjectItemCaseSensitive(rec, "bench_matmul"), *e;
    int any = 0, gpu = 0;
    cJSON_ArrayForEach(e, tr) any = 1, gpu |= !is_cpu(e);
    cJSON_ArrayForEach(e, mm) any = 1, gpu |= !is_cpu(e);
    for (int i = 0; emu_consoles[i]; i++) {
        char key[32];
        snprintf(key, sizeof key, "bench_%s", emu_consoles[i]->name);
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, key)) {
            any = 1;
            const char *v = gv_json_str(e, "video", NULL), *a = gv_json_str(e, "audio", NULL);
            gpu |= (v && !strcmp(v, "device")) || (a && !strcmp(a, "device"));
        }
    }
    if (!any || gpu)
        return;
    char why[512], next[512], s[1400];
    no_gpu_reason(rec, why, sizeof why, next, sizeof next);
    double y, x;
    if (cpu_best(tr, "batch", "samples_per_s_median", &y, &x)) {
        const cJSON *f = tr->child;
        snprintf(s, sizeof s, "no GPU was measured (%s): training on the CPU reaches %.0f samples/s (%.0f channels, "
                 "batch %.0f); to see whether a GPU is worth it, %s", why, y, gv_json_num(f, "channels"), x, next);
        rep_add_sentence(out, s);
    }
    if (cpu_best(mm, "n", "gflops_median", &y, &x)) {
        snprintf(s, sizeof s, "no GPU was measured: GEMM on the CPU reaches %.0f GFLOP/s (fp32, size %.0f)", y, x);
        rep_add_sentence(out, s);
    }
    for (int i = 0; emu_consoles[i]; i++) {
        char key[32];
        snprintf(key, sizeof key, "bench_%s", emu_consoles[i]->name);
        const cJSON *one = NULL, *many = NULL;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rec, key)) {
            const char *v = gv_json_str(e, "video", NULL);
            double n = gv_json_num(e, "instances"), nm = gv_json_num(many, "instances");
            if (n == 1 && v && !strcmp(v, "native"))
                one = e;
            if (!many || n > nm || (n == nm && gv_json_num(e, "fps_median") > gv_json_num(many, "fps_median")))
                many = e;
        }
        if (!one)
            continue;
        double f1 = gv_json_num(one, "fps_median"), n = gv_json_num(many, "instances");
        int k = snprintf(s, sizeof s, "no GPU was measured: %s emulation on the CPU runs %.0f frames/s for one game (%.0fx real time)",
                         emu_consoles[i]->title, f1, f1 / 60.0);
        if (n > 1 && k > 0 && (size_t)k < sizeof s) {
            const char *how = gv_json_str(many, "video", "?");
            k += snprintf(s + k, sizeof s - (size_t)k,
                          " and %.0f instance-frames/s for %.0f games at once (%s renderer)",
                          gv_json_num(many, "fps_median"), n, how);
            if (k > 0 && (size_t)k < sizeof s)
                below_one_game(rec, one, many, s + k, sizeof s - (size_t)k);
        }
        rep_add_sentence(out, s);
    }
}

cJSON *report_add_verdicts(cJSON *rec)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, "verdict");
    if (!cJSON_IsArray(v)) {
        cJSON_DeleteItemFromObjectCaseSensitive(rec, "verdict");
        v = cJSON_AddArrayToObject(rec, "verdict");
    }
    const cJSON *a;
    if (cJSON_IsArray(a = cJSON_GetObjectItemCaseSensitive(rec, "bench_train")))
        verdicts_gpu_vs_cpu(a, "train", v);
    if (cJSON_IsArray(a = cJSON_GetObjectItemCaseSensitive(rec, "bench_matmul")))
        verdicts_gpu_vs_cpu(a, "matmul", v);
    for (int i = 0; emu_consoles[i]; i++) {
        char key[32];
        snprintf(key, sizeof key, "bench_%s", emu_consoles[i]->name);
        if (cJSON_IsArray(a = cJSON_GetObjectItemCaseSensitive(rec, key)))
            verdicts_emu(a, emu_consoles[i]->title, v);
    }
    verdicts_cpu_only(rec, v);
    rep_verdicts_drop7(rec, v);
    return v;
}

void report_print_verdicts(const cJSON *rec, FILE *f)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "verdict"))
        if (cJSON_IsString(it))
            fprintf(f, "verdict: %s\n", it->valuestring);
}

double rep_speedup(const cJSON *arr, const cJSON *g, const char *kind)
{
    if (is_cpu(g))
        return NAN;
    const cJSON *c = rep_cpu_match(arr, g, kind);
    double gv = rep_value(g, kind), cv = c ? rep_value(c, kind) : NAN;
    return cv > 0 && gv > 0 ? gv / cv : NAN;
}
