/* test_dev.c: the device layer's host side (src/dev/dev_host.c): device names as
 * --devices spells them (dev_parse_names, good and bad spellings), whether a device can be
 * used (dev_check, dev_parse_list, in this build's terms: with or without a GPU backend),
 * the GEMM dtype names, and the CPU GEMM (dev_gemm_* on the CPU) against a plain triple
 * loop in double at odd sizes, with its output poisoned before each run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/rng.h"
#include "dev/dev.h"

/* ---- names ---------------------------------------------------------------------------- */
typedef struct {
    const char *spec;
    gv_status want;          /* GV_OK or the error */
    const char *labels;      /* the devices' labels joined by ',' ("" on an error); GPU names as this build spells them */
    const char *kinds;       /* 'c' CPU, 'g' GPU, one per device */
    const char *idx;         /* one digit per device */
    const char *msg;         /* a piece of the error message */
} name_case;

/* "cuda" in a CPU-only build (the name as given), else the backend's name. */
static const char *gpu_label(const char *given)
{
    return dev_gpu_backend() ? dev_gpu_backend() : given;
}

static void test_parse_names(void)
{
    char lab_cuda[32], lab_cuda1[32], lab_gpu[32], lab_mixed[48];
    snprintf(lab_cuda, sizeof lab_cuda, "%s", gpu_label("cuda"));
    snprintf(lab_cuda1, sizeof lab_cuda1, "%s:1", gpu_label("cuda"));
    snprintf(lab_gpu, sizeof lab_gpu, "%s", gpu_label("gpu"));
    snprintf(lab_mixed, sizeof lab_mixed, "cpu,%s", lab_cuda);
    const name_case cases[] = {
        {"cpu", GV_OK, "cpu", "c", "0", NULL},
        {"cpu,cuda", GV_OK, lab_mixed, "cg", "00", NULL},
        {"cuda:1", GV_OK, lab_cuda1, "g", "1", NULL},
        {"gpu", GV_OK, lab_gpu, "g", "0", NULL},
        {"tpu", GV_ERR_INPUT, "", "", "", "unknown device 'tpu'"},
        {"", GV_ERR_INPUT, "", "", "", "unknown device ''"},
        {"cpu,cpu", GV_ERR_INPUT, "", "", "", "listed twice"},
        {"cuda,gpu", GV_ERR_INPUT, "", "", "", "listed twice"},
        {"cpu,", GV_ERR_INPUT, "", "", "", "unknown device ''"},
        {"CPU", GV_ERR_INPUT, "", "", "", "unknown device 'CPU'"},
        {"cuda:", GV_ERR_INPUT, "", "", "", "bad GPU index"},
        {"cuda:x", GV_ERR_INPUT, "", "", "", "bad GPU index"},
        {"cuda:-1", GV_ERR_INPUT, "", "", "", "bad GPU index"},
        {"cuda:64", GV_ERR_INPUT, "", "", "", "bad GPU index"},
        {"cuda:1x", GV_ERR_INPUT, "", "", "", "bad GPU index"},
    };
    for (size_t i = 0; i < GV_ARRAY_LEN(cases); i++) {
        const name_case *t = &cases[i];
        dev_id d[4];
        int n = -1;
        gv_err err = {{0}};
        gv_status st = dev_parse_names(t->spec, d, 4, &n, &err);
        char labels[64] = "", kinds[8] = "", idx[8] = "";
        for (int k = 0; st == GV_OK && k < n && k < 4; k++) {
            snprintf(labels + strlen(labels), sizeof labels - strlen(labels), "%s%s", k ? "," : "", d[k].label);
            kinds[k] = d[k].kind == DEV_GPU ? 'g' : 'c', kinds[k + 1] = 0;
            idx[k] = (char)('0' + d[k].index % 10), idx[k + 1] = 0;
        }
        const int ok = st == t->want && (st != GV_OK || (!strcmp(labels, t->labels) && !strcmp(kinds, t->kinds) &&
                                                         !strcmp(idx, t->idx))) &&
                       (st == GV_OK || (t->msg && strstr(err.msg, t->msg)));
        char name[64];
        snprintf(name, sizeof name, "dev names '%s'", t->spec);
        if (st == GV_OK)
            t_check(ok, name, "%d device(s): labels %s, kinds %s, indexes %s (expected %s, %s, %s)", n, labels, kinds,
                    idx, t->labels, t->kinds, t->idx);
        else
            t_check(ok, name, "status %d, message \"%s\" (expected status %d and \"%s\")", (int)st, err.msg,
                    (int)t->want, t->msg);
    }
    /* more devices than the caller has room for */
    dev_id d[1];
    int n = 0;
    gv_err err = {{0}};
    gv_status st = dev_parse_names("cpu,cuda", d, 1, &n, &err);
    t_check(st == GV_ERR_INPUT && strstr(err.msg, "too many devices") && n == 1, "dev names: room for one",
            "'cpu,cuda' into one slot: status %d, %d parsed, \"%s\"", (int)st, n, err.msg);
}

/* dev_check and dev_parse_list as this build answers: the CPU always; a GPU only with a
 * backend and a device the runtime sees; bad spellings are input errors before any check. */
static void test_check_and_list(void)
{
    gv_err err = {{0}};
    gv_status st = dev_check(&DEV_ID_CPU, "--devices cpu", &err);
    t_check(st == GV_OK && !strcmp(DEV_ID_CPU.label, "cpu") && DEV_ID_CPU.kind == DEV_CPU, "dev check cpu",
            "the CPU can always be used: status %d, label %s", (int)st, DEV_ID_CPU.label);

    const int count = dev_gpu_count(NULL);
    dev_id far = {DEV_GPU, 63, "cuda:63"};
    memset(&err, 0, sizeof err);
    st = dev_check(&far, "--devices cuda:63", &err);
    const char *want = dev_gpu_backend() ? "no such GPU" : "built without a GPU backend";
    t_check(st == GV_ERR_ENV && !strncmp(err.msg, "--devices cuda:63: ", 19) && strstr(err.msg, want),
            "dev check cuda:63", "%s build, %d GPU(s) visible: status %d, \"%s\" (expected GV_ERR_ENV, the flag first, "
            "\"%s\")", dev_gpu_backend() ? dev_gpu_backend() : "CPU-only", count, (int)st, err.msg, want);

    dev_id d[4];
    int n = 0;
    memset(&err, 0, sizeof err);
    st = dev_parse_list(NULL, d, 4, &n, &err);
    const int want_n = 1 + (dev_gpu_backend() && count > 0);
    t_check(st == GV_OK && n == want_n && d[0].kind == DEV_CPU && (n == 1 || d[1].kind == DEV_GPU),
            "dev list default", "no --devices: %d device(s), the CPU first (expected %d: the CPU, and the GPU when "
            "one is visible)", n, want_n);

    memset(&err, 0, sizeof err);
    st = dev_parse_list("cuda", d, 4, &n, &err);
    const gv_status want_st = dev_gpu_backend() && count > 0 ? GV_OK : GV_ERR_ENV;
    t_check(st == want_st, "dev list cuda", "status %d (expected %d: %s)%s%s", (int)st, (int)want_st,
            want_st == GV_OK ? "a GPU is visible" : "no usable GPU in this build or machine", st ? ": " : "",
            st ? err.msg : "");

    memset(&err, 0, sizeof err);
    st = dev_parse_list("tpu", d, 4, &n, &err);
    t_check(st == GV_ERR_INPUT && strstr(err.msg, "unknown device"), "dev list tpu",
            "a bad name is an input error before any device is asked: status %d, \"%s\"", (int)st, err.msg);
}

static void test_dtype_names(void)
{
    const char *a = dev_gemm_dtype_name(DEV_GEMM_FP32), *b = dev_gemm_dtype_name(DEV_GEMM_TF32);
    const char *c = dev_gemm_dtype_name(DEV_GEMM_BF16), *d = dev_gemm_dtype_name((dev_gemm_dtype)7);
    t_check(!strcmp(a, "fp32") && !strcmp(b, "tf32") && !strcmp(c, "bf16") && !strcmp(d, "?"), "dev gemm dtype names",
            "fp32 -> %s, tf32 -> %s, bf16 -> %s, an unknown value -> %s", a, b, c, d);
}

/* ---- the CPU GEMM ------------------------------------------------------------------------ */
/* C (M x N) = A (M x K) B (K x N), row-major, in double: the reference. */
static void gemm_ref(const float *A, const float *B, double *C, int M, int N, int K)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
            C[(size_t)i * N + j] = s;
        }
}

static void test_gemm(gv_rng *rng, int M, int N, int K, int threads)
{
    char name[64];
    snprintf(name, sizeof name, "dev gemm cpu %dx%dx%d", M, N, K);
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N), *C = malloc(sizeof(float) * M * N);
    double *got = malloc(sizeof(double) * M * N), *want = malloc(sizeof(double) * M * N);
    for (int i = 0; i < M * K; i++)
        A[i] = (float)(2 * gv_rng_uniform(rng) - 1);
    for (int i = 0; i < K * N; i++)
        B[i] = (float)(2 * gv_rng_uniform(rng) - 1);
    dev_gemm *g = NULL;
    gv_err err = {{0}};
    double secs = 0;
    size_t poisoned = 0;
    int ok = dev_gemm_open(&DEV_ID_CPU, M, N, K, DEV_GEMM_FP32, threads, &g, &err) == GV_OK &&
             dev_gemm_set_inputs(g, A, B, &err) == GV_OK && dev_gemm_poison(g, &err) == GV_OK &&
             dev_gemm_get_output(g, C, &err) == GV_OK;
    for (int i = 0; ok && i < M * N; i++)
        poisoned += isnan(C[i]) != 0;
    ok = ok && dev_gemm_run(g, 2, &secs, &err) == GV_OK && dev_gemm_get_output(g, C, &err) == GV_OK;
    if (!ok) {
        t_check(0, name, "%s", err.msg);
    } else {
        for (int i = 0; i < M * N; i++)
            got[i] = C[i];
        gemm_ref(A, B, want, M, N, K);
        const double e = t_rel_l2(got, want, (size_t)M * N);
        const size_t bytes = dev_gemm_bytes(g), want_bytes = sizeof(float) * ((size_t)M * K + (size_t)K * N + (size_t)M * N);
        /* float sums of K products: a few ulp times sqrt(K) */
        const double tol = 1e-6 * sqrt((double)K) + 1e-7;
        t_check(e <= tol && poisoned == (size_t)M * N && bytes == want_bytes && secs >= 0, name,
                "%d thread(s), A (M x K) B (K x N) row-major against a triple loop in double: rel_l2 %.2e (tolerance "
                "%.1e); before the run %zu of %d outputs NaN (poisoned); %zu bytes held (expected %zu)",
                threads, e, tol, poisoned, M * N, bytes, want_bytes);
    }
    dev_gemm_close(g);
    free(A), free(B), free(C), free(got), free(want);
}

static void test_gemm_refusals(void)
{
    dev_gemm *g = (dev_gemm *)1;
    gv_err err = {{0}};
    gv_status st = dev_gemm_open(&DEV_ID_CPU, 4, 0, 4, DEV_GEMM_FP32, 1, &g, &err);
    t_check(st == GV_ERR_INPUT && !g && strstr(err.msg, "positive"), "dev gemm sizes", "a 4x0x4 GEMM: status %d, "
            "context %s, \"%s\"", (int)st, g ? "set" : "NULL", err.msg);
    const dev_gemm_dtype other[] = {DEV_GEMM_TF32, DEV_GEMM_BF16};
    for (size_t i = 0; i < GV_ARRAY_LEN(other); i++) {
        g = (dev_gemm *)1;
        memset(&err, 0, sizeof err);
        st = dev_gemm_open(&DEV_ID_CPU, 4, 4, 4, other[i], 1, &g, &err);
        char name[48];
        snprintf(name, sizeof name, "dev gemm cpu %s", dev_gemm_dtype_name(other[i]));
        t_check(st == GV_ERR_INPUT && !g && strstr(err.msg, "fp32 only"), name,
                "the CPU runs fp32 only: status %d (GV_ERR_INPUT, so callers skip), \"%s\"", (int)st, err.msg);
    }
}

int main(void)
{
    test_parse_names();
    test_check_and_list();
    test_dtype_names();
    gv_rng rng;
    gv_rng_seed(&rng, 7);
    /* odd sizes: single elements, rows and columns, shapes no kernel tile divides */
    const int shapes[][3] = {{1, 1, 1}, {1, 17, 5}, {7, 13, 5}, {33, 17, 65}, {128, 1, 257}, {65, 129, 3}, {5, 3, 1000}};
    for (size_t i = 0; i < GV_ARRAY_LEN(shapes); i++)
        test_gemm(&rng, shapes[i][0], shapes[i][1], shapes[i][2], 1);
    test_gemm(&rng, 200, 150, 300, 2);
    test_gemm_refusals();
    return t_done();
}
