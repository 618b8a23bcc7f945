/* dev.h: the device layer. Devices are named on the command line ("cpu", "cuda"; "hip"
 * and "gpu" are accepted for the GPU backend this binary was built with). Nothing above
 * src/dev knows which vendor runs the GPU side: it asks this interface.
 *
 * Two things live here: what a device is (dev_id, dev_gpu_info) and a GEMM that every
 * device runs (for `check` and `bench matmul`), host and GPU behind one interface. The
 * network trainers have their own interface in src/nn/nn.h. */
#ifndef GV_DEV_DEV_H
#define GV_DEV_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DEV_CPU = 0, DEV_GPU = 1 } dev_kind;

typedef struct dev_id {
    dev_kind kind;
    int index;        /* GPU ordinal (0 for the CPU) */
    char label[16];   /* "cpu", "cuda", "cuda:1", "hip" */
} dev_id;

/* The GPU backend compiled into this binary: "cuda", "hip", or NULL for a CPU-only build. */
const char *dev_gpu_backend(void);

/* Number of GPUs the runtime sees; 0 when none (or no backend). When the runtime fails,
 * returns 0 and fills err (if not NULL) with its message. */
int dev_gpu_count(gv_err *err);

/* The CPU as a device (a compound literal: &DEV_ID_CPU is a const dev_id *). */
#define DEV_ID_CPU ((const dev_id){DEV_CPU, 0, "cpu"})

/* Parses "cpu", "cuda", "cpu,cuda", "cuda:1". spec NULL means the default: cpu, plus the
 * GPU when one is present. Asking for a GPU in a CPU-only build, or one that the runtime
 * cannot see, is GV_ERR_ENV with a message that says what to do (dev_check). */
gv_status dev_parse_list(const char *spec, dev_id *out, int max, int *n, gv_err *err);

/* dev_parse_list's spelling alone (spec not NULL): unknown names, bad indexes and devices
 * listed twice are GV_ERR_INPUT; nothing asks the runtime, so a GPU named in a CPU-only
 * build is returned like any other (its label then spells the name as given). */
gv_status dev_parse_names(const char *spec, dev_id *out, int max, int *n, gv_err *err);

/* Whether device d can be used: the CPU always; a GPU when this binary has a GPU backend
 * and the runtime sees d->index. GV_ERR_ENV otherwise, the message beginning with what
 * (how the user named it: "--devices cuda:1", "--gpu 1") and saying what to do. */
gv_status dev_check(const dev_id *d, const char *what, gv_err *err);

typedef struct {
    char vendor[16];          /* "NVIDIA", "AMD" */
    char name[128];           /* "NVIDIA H200" */
    char arch[32];            /* "sm_90", "gfx1030" */
    int sm_count;             /* multiprocessors / compute units */
    int runtime_version;      /* cudaRuntimeGetVersion / hipRuntimeGetVersion */
    int driver_version;       /* cudaDriverGetVersion / hipDriverGetVersion */
    uint64_t mem_total;       /* bytes the runtime reports */
    uint64_t mem_free;
    int unified;              /* integrated GPU sharing system memory (APU) */
    int clock_khz;            /* SM clock the runtime reports (0 if not available) */
    char pci_bus_id[32];
} dev_gpu_info;

gv_status dev_gpu_query(int index, dev_gpu_info *info, gv_err *err);

/* Copies bytes from memory of GPU `index` (src, a device pointer) to the host (dst), and
 * returns when the copy is done (after the device's earlier work on its legacy default
 * stream). GV_ERR_ENV without a GPU backend or when the runtime fails. */
gv_status dev_gpu_download(int index, void *dst, const void *src, size_t bytes, gv_err *err);

/* ---- GEMM on any device -------------------------------------------------------------- */

typedef enum { DEV_GEMM_FP32 = 0, DEV_GEMM_TF32 = 1, DEV_GEMM_BF16 = 2 } dev_gemm_dtype;
const char *dev_gemm_dtype_name(dev_gemm_dtype d); /* "fp32" "tf32" "bf16" */

/* C (M x N) = A (M x K) * B (K x N), all row-major. Inputs are given as float; for bf16 the
 * device rounds them to bf16 and accumulates in fp32; C is always float. */
typedef struct dev_gemm dev_gemm;

/* Opens a GEMM context on device id for fixed sizes and dtype. The CPU supports fp32 only
 * (GV_ERR_INPUT for others, so callers can skip). threads: CPU BLAS threads (0: default). */
gv_status dev_gemm_open(const dev_id *id, int M, int N, int K, dev_gemm_dtype dt, int threads,
                        dev_gemm **out, gv_err *err);
gv_status dev_gemm_set_inputs(dev_gemm *g, const float *A, const float *B, gv_err *err);
/* Fills C with NaN so that elements a faulty GEMM leaves unwritten cannot pass. */
gv_status dev_gemm_poison(dev_gemm *g, gv_err *err);
/* Runs the GEMM reps times back to back and returns the synchronised wall time of all
 * reps in *seconds (device events on the GPU). */
gv_status dev_gemm_run(dev_gemm *g, int reps, double *seconds, gv_err *err);
gv_status dev_gemm_get_output(dev_gemm *g, float *C, gv_err *err);
/* Bytes of device memory the context holds. */
size_t dev_gemm_bytes(const dev_gemm *g);
void dev_gemm_close(dev_gemm *g);

/* GPU side of the GEMM context (implemented in dev_gpu.cu, or dev_gpu_nogpu.c). */
typedef struct dev_gpu_gemm dev_gpu_gemm;
gv_status dev_gpu_gemm_open(int index, int M, int N, int K, dev_gemm_dtype dt, dev_gpu_gemm **out, gv_err *err);
gv_status dev_gpu_gemm_set_inputs(dev_gpu_gemm *g, const float *A, const float *B, gv_err *err);
gv_status dev_gpu_gemm_poison(dev_gpu_gemm *g, gv_err *err);
gv_status dev_gpu_gemm_run(dev_gpu_gemm *g, int reps, double *seconds, gv_err *err);
gv_status dev_gpu_gemm_get_output(dev_gpu_gemm *g, float *C, gv_err *err);
size_t dev_gpu_gemm_bytes(const dev_gpu_gemm *g);
void dev_gpu_gemm_close(dev_gpu_gemm *g);

/* BLAS library facts for probe and records. */
typedef struct {
    char name[64];      /* "OpenBLAS" */
    char version[64];   /* "0.3.21" */
    char config[256];   /* openblas_get_config() */
    char core[64];      /* openblas_get_corename() */
    int threads;        /* threads it will use */
} dev_blas_info;
void dev_blas_query(dev_blas_info *info);
/* Sets the CPU BLAS thread count (0: leave as is). */
void dev_blas_set_threads(int n);

#ifdef __cplusplus
}
#endif

#endif
