/* test_blas_race.c: the multithreaded-GEMM fault detector. A correct BLAS gives zero wrong
 * runs; a GEMM with injected faults (a perturbed element, a row left unwritten, two swapped
 * elements: what races look like) on known runs is caught run by run. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "dev/dev.h"
#include "sys/blas_race.h"

/* Wraps the real GEMM; corrupts the multithreaded calls whose index is listed. */
typedef struct {
    dev_id dev;
    int mt_calls;
} faulty;

static gv_status faulty_gemm(void *ctx, int threads, int M, int N, int K, const float *A, const float *B, float *C, gv_err *err)
{
    faulty *f = ctx;
    gv_status s = blas_race_dev_gemm(&f->dev, threads, M, N, K, A, B, C, err);
    if (s != GV_OK || threads == 1)
        return s;
    int call = f->mt_calls++;
    if (call == 3)
        C[5] += 1e-3f + 1e-3f * fabsf(C[5]);      /* one element off by ~0.1% */
    else if (call == 7)
        for (int j = 0; j < N; j++)
            C[(size_t)2 * N + j] = NAN;          /* row 2 never written */
    else if (call == 12) {
        float t = C[10];                          /* two results swapped */
        C[10] = C[(size_t)N + 11];
        C[(size_t)N + 11] = t;
    }
    return s;
}

int main(void)
{
    gv_err e = {{0}};
    dev_id cpu = {DEV_CPU, 0, "cpu"};
    int sizes[] = {97, 200};
    for (int i = 0; i < 2; i++) {
        blas_race_opts o = {sizes[i], sizes[i], sizes[i], 24, 2, 99 + (uint64_t)i, blas_race_dev_gemm, &cpu, NULL, NULL};
        blas_race_result r;
        gv_status s = blas_race_run(&o, &r, &e);
        t_check(s == GV_OK && r.runs == 24 && r.wrong_runs == 0 && r.single_wrong_runs == 0 && r.single_runs == 3 && !r.ref_wrong &&
                    r.worst_bound_ratio < 1 && r.worst_bound_ratio > 0,
                "blas-race: the installed BLAS, two threads, zero wrong runs", "%dx%dx%d: %d runs, %d wrong, err/bound %.3g, reference err/bound %.3g, "
                "%d runs differ bitwise from one thread", o.M, o.N, o.K, r.runs, r.wrong_runs, r.worst_bound_ratio, r.ref_worst_bound_ratio,
                r.differs_from_single_runs);
    }
    faulty f = {cpu, 0};
    blas_race_opts o = {64, 48, 80, 16, 2, 7, faulty_gemm, &f, NULL, NULL};
    blas_race_result r;
    gv_status s = blas_race_run(&o, &r, &e);
    t_check(s == GV_OK && r.wrong_runs == 3 && r.first_wrong_run == 3 && r.wrong_elements == 1 + 48 + 2,
            "blas-race: injected faults caught on exactly the faulty runs", "%d wrong runs (want 3), first %d (want 3), %lld wrong elements (want 51)",
            r.wrong_runs, r.first_wrong_run, r.wrong_elements);
    t_check(isinf(r.worst_abs_err) && fabs(r.worst_wrong_fraction - 48.0 / (64 * 48)) < 1e-12 && r.single_wrong_runs == 0 && !r.ref_wrong,
            "blas-race: worst error (NaN row) and worst share; control arms clean", "worst err %g, worst share %.4f (want %.4f), 1-thread wrong %d",
            r.worst_abs_err, r.worst_wrong_fraction, 48.0 / (64 * 48), r.single_wrong_runs);
    cJSON *j = blas_race_json(&o, &r);
    t_check(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "wrong_runs")) == 3 && cJSON_IsNull(cJSON_GetObjectItem(j, "worst_abs_err")) &&
                cJSON_IsTrue(cJSON_GetObjectItem(j, "reference_gemm_ok")),
            "blas-race: record entry", "wrong_runs 3, worst_abs_err null (infinite), reference ok");
    cJSON_Delete(j);
    blas_race_opts bad = {0, 4, 4, 1, 2, 1, blas_race_dev_gemm, &cpu, NULL, NULL};
    t_check(blas_race_run(&bad, &r, &e) == GV_ERR_INPUT, "blas-race: bad sizes refused", "%s", e.msg);
    return t_done();
}
