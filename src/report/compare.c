/* compare.c: what changed between two run records. Entries are joined on their
 * configuration keys; a change is marked only when the ratio of the medians leaves the
 * band (1 + noise_a)(1 + noise_b) that both sides' measured spread allows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"
#include "core/record.h"
#include "emu/registry.h"
#include "report/rep_int.h"
#include "report/report.h"

typedef struct {
    const char *key, *kind, *unit;
    const char *const *join;
    int njoin;
} cmp_section;

static const char *const train_join[] = {"device", "dtype", "channels", "blocks", "norm", "batch"};
static const char *const matmul_join[] = {"device", "dtype", "m", "n", "k"};
static const char *const emu_join[] = {"rom", "video", "audio", "instances", "frames"};
/* The sections compared: training, GEMM, and one per emulated console. */
static int cmp_sections(const cmp_section **out)
{
    static cmp_section list[12];
    static char keys[8][32];
    static int n;
    if (!n) {
        list[n++] = (cmp_section){"bench_train", "train", "samples/s", train_join, GV_ARRAY_LEN(train_join)};
        list[n++] = (cmp_section){"bench_matmul", "matmul", "GFLOP/s", matmul_join, GV_ARRAY_LEN(matmul_join)};
        for (int i = 0; emu_consoles[i] && i < 8; i++) {
            snprintf(keys[i], sizeof keys[i], "bench_%s", emu_consoles[i]->name);
            list[n++] = (cmp_section){keys[i], "emu", "frames/s", emu_join, GV_ARRAY_LEN(emu_join)};
        }
    }
    *out = list;
    return n;
}

/* "device=cuda dtype=bf16 batch=1024": the entry's values of the join keys it has. */
static void config_key(const cJSON *e, const cmp_section *s, char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = 0;
    for (int i = 0; i < s->njoin && u < len; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, s->join[i]);
        if (cJSON_IsString(v))
            u += (size_t)snprintf(buf + u, len - u, "%s%s=%s", u ? " " : "", s->join[i], v->valuestring);
        else if (cJSON_IsNumber(v))
            u += (size_t)snprintf(buf + u, len - u, "%s%s=%g", u ? " " : "", s->join[i], v->valuedouble);
    }
}

static const cJSON *find_entry(const cJSON *arr, const cmp_section *s, const char *key)
{
    const cJSON *e;
    char k[512];
    cJSON_ArrayForEach(e, arr) {
        config_key(e, s, k, sizeof k);
        if (!strcmp(k, key))
            return e;
    }
    return NULL;
}

/* A measured figure for a table cell: whole numbers from 1000 up, else 4 digits. */
static const char *fmt_val(double v, char *buf, size_t len)
{
    snprintf(buf, len, fabs(v) >= 1000 ? "%.0f" : "%.4g", v);
    return buf;
}

/* Environment facts whose change explains a change in figures. */
static void env_changes(const cJSON *a, const cJSON *b, rep_buf *md, cJSON *arr)
{
    static const char *const paths[] = {"gpuvet_version", "host.hostname", "host.probe.cpu.model", "host.probe.cpu.governor",
                                        "host.probe.blas.version", "host.probe.blas.core", "host.probe.blas.threads",
                                        "host.probe.kernel.release", "host.probe.nvml.driver_version", "host.probe.driver.rocm"};
    int n = 0;
    rb_puts(md, "## Environment\n\n");
    for (size_t i = 0; i < GV_ARRAY_LEN(paths); i++) {
        const cJSON *x = rep_path(a, paths[i]), *y = rep_path(b, paths[i]);
        char xs[128] = "", ys[128] = "";
        if (cJSON_IsString(x)) snprintf(xs, sizeof xs, "%s", x->valuestring);
        else if (cJSON_IsNumber(x)) snprintf(xs, sizeof xs, "%g", x->valuedouble);
        if (cJSON_IsString(y)) snprintf(ys, sizeof ys, "%s", y->valuestring);
        else if (cJSON_IsNumber(y)) snprintf(ys, sizeof ys, "%g", y->valuedouble);
        if (!strcmp(xs, ys) || (!xs[0] && !ys[0]))
            continue;
        rb_printf(md, "- %s: ", paths[i]);
        rb_md(md, xs[0] ? xs : "(absent)");
        rb_puts(md, " → ");
        rb_md(md, ys[0] ? ys : "(absent)");
        rb_puts(md, "\n");
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "field", paths[i]);
        cJSON_AddStringToObject(o, "a", xs);
        cJSON_AddStringToObject(o, "b", ys);
        cJSON_AddItemToArray(arr, o);
        n++;
    }
    if (!n)
        rb_puts(md, "- no change in the recorded software and machine facts\n");
    rb_puts(md, "\n");
}

char *report_compare(const cJSON *a, const cJSON *b, int *marked, cJSON *out)
{
    rep_buf md;
    rb_init(&md);
    int nmarked = 0;
    cJSON *js = cJSON_CreateObject();
    cJSON *entries = cJSON_AddArrayToObject(js, "entries");
    rb_printf(&md, "# gpuvet compare: %s (%s) → %s (%s)\n\n", gv_json_str(a, "command", "?"),
              gv_json_str(a, "started_at", "?"), gv_json_str(b, "command", "?"), gv_json_str(b, "started_at", "?"));
    rb_puts(&md, "A change is marked only when B/A leaves the band (1 + noise A)(1 + noise B), where each noise is that "
                 "side's measured spread (max((max-min)/median, 2 cv), at least 2%).\n\n");
    env_changes(a, b, &md, cJSON_AddArrayToObject(js, "environment"));
    const cmp_section *secs;
    int nsec = cmp_sections(&secs);
    for (int si = 0; si < nsec; si++) {
        const cmp_section *s = &secs[si];
        const cJSON *xa = cJSON_GetObjectItemCaseSensitive(a, s->key), *xb = cJSON_GetObjectItemCaseSensitive(b, s->key);
        if (!cJSON_GetArraySize(xa) && !cJSON_GetArraySize(xb))
            continue;
        rb_printf(&md, "## %s (%s, median)\n\n| configuration | A | B | change | noise band | |\n| --- | ---: | ---: | ---: | ---: | --- |\n",
                  s->key, s->unit);
        const cJSON *e;
        char key[512], f1[32], f2[32];
        cJSON_ArrayForEach(e, xa) {
            config_key(e, s, key, sizeof key);
            const cJSON *f = find_entry(xb, s, key);
            double va = rep_value(e, s->kind), vb = f ? rep_value(f, s->kind) : NAN;
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "section", s->key);
            cJSON_AddStringToObject(o, "config", key);
            gv_json_add_num(o, "a", va);
            gv_json_add_num(o, "b", vb);
            rb_puts(&md, "| ");
            rb_md(&md, key);
            if (!f) {
                rb_printf(&md, " | %s | — | | | only in A |\n", fmt_val(va, f1, sizeof f1));
                cJSON_AddStringToObject(o, "mark", "only_a");
            } else if (!(va > 0) || !(vb > 0)) {
                rb_puts(&md, " | | | | | not measured |\n");
                cJSON_AddStringToObject(o, "mark", "unmeasured");
            } else {
                double ratio = vb / va, band = (1 + rep_noise(e, s->kind)) * (1 + rep_noise(f, s->kind));
                const char *mark = ratio > band ? "faster" : ratio < 1 / band ? "slower" : "within noise";
                int sig = ratio > band || ratio < 1 / band;
                nmarked += sig;
                rb_printf(&md, " | %s | %s | %+.1f%% | ±%.1f%% | %s%s%s |\n", fmt_val(va, f1, sizeof f1), fmt_val(vb, f2, sizeof f2),
                          100 * (ratio - 1), 100 * (band - 1),
                          sig ? "**" : "", mark, sig ? "**" : "");
                gv_json_add_num(o, "ratio", ratio);
                gv_json_add_num(o, "band", band);
                cJSON_AddStringToObject(o, "mark", mark);
            }
            cJSON_AddItemToArray(entries, o);
        }
        cJSON_ArrayForEach(e, xb) {
            config_key(e, s, key, sizeof key);
            if (find_entry(xa, s, key))
                continue;
            rb_puts(&md, "| ");
            rb_md(&md, key);
            rb_printf(&md, " | — | %s | | | only in B |\n", fmt_val(rep_value(e, s->kind), f1, sizeof f1));
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "section", s->key);
            cJSON_AddStringToObject(o, "config", key);
            gv_json_add_num(o, "b", rep_value(e, s->kind));
            cJSON_AddStringToObject(o, "mark", "only_b");
            cJSON_AddItemToArray(entries, o);
        }
        rb_puts(&md, "\n");
    }
    /* Correctness: a comparison that passed and now fails (or the reverse) is always marked. */
    const cJSON *ca = cJSON_GetObjectItemCaseSensitive(a, "check"), *cb = cJSON_GetObjectItemCaseSensitive(b, "check"), *e;
    int header = 0;
    cJSON_ArrayForEach(e, ca) {
        const cJSON *f;
        cJSON_ArrayForEach(f, cb) {
            static const char *const keys[] = {"device", "what", "norm", "dtype"};
            int same = 1;
            for (size_t k = 0; k < GV_ARRAY_LEN(keys) && same; k++) {
                const char *x = gv_json_str(e, keys[k], NULL), *y = gv_json_str(f, keys[k], NULL);
                same = (!x && !y) || (x && y && !strcmp(x, y));
            }
            if (!same || cJSON_IsTrue(cJSON_GetObjectItem(e, "pass")) == cJSON_IsTrue(cJSON_GetObjectItem(f, "pass")))
                continue;
            if (!header++)
                rb_puts(&md, "## check: results that changed\n\n");
            rb_printf(&md, "- **%s %s**: %s → %s (%s %.3g → %.3g)\n", gv_json_str(e, "device", "?"),
                      gv_json_str(e, "what", "?"), cJSON_IsTrue(cJSON_GetObjectItem(e, "pass")) ? "pass" : "FAIL",
                      cJSON_IsTrue(cJSON_GetObjectItem(f, "pass")) ? "pass" : "FAIL", gv_json_str(e, "metric", ""),
                      gv_json_num(e, "value"), gv_json_num(f, "value"));
            nmarked++;
        }
    }
    rb_printf(&md, "%s%d change%s beyond the noise\n", header ? "\n" : "", nmarked, nmarked == 1 ? "" : "s");
    cJSON_AddNumberToObject(js, "marked", nmarked);
    if (out)
        cJSON_AddItemToObject(out, "compare", js);
    else
        cJSON_Delete(js);
    if (marked)
        *marked = nmarked;
    return rb_take(&md);
}
