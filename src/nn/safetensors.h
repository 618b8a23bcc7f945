/* safetensors.h: reading and writing the safetensors format (an 8-byte little-endian
 * header length, a JSON header mapping each tensor name to {dtype, shape, data_offsets},
 * then the raw little-endian data). The reader validates everything before any tensor is
 * used: every error names the file and, where there is one, the tensor. */
#ifndef GV_NN_SAFETENSORS_H
#define GV_NN_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"

#define NN_ST_MAX_DIMS 8
#define NN_ST_MAX_HEADER ((uint64_t)100 << 20) /* 100 MiB, as the Rust reference does */

typedef enum { NN_ST_F64 = 0, NN_ST_F32, NN_ST_BF16, NN_ST_F16, NN_ST_I64, NN_ST_I32 } nn_st_dtype;
const char *nn_st_dtype_name(nn_st_dtype d); /* "F64", "F32", ... */
size_t nn_st_dtype_size(nn_st_dtype d);

typedef struct {
    char *name;
    nn_st_dtype dtype;
    int ndim;
    int64_t shape[NN_ST_MAX_DIMS];
    size_t numel;
    const uint8_t *data;   /* points into the file's buffer */
    size_t nbytes;
} nn_st_tensor;

typedef struct {
    char path[256];        /* the file's name as given (for messages) */
    uint8_t *buf;          /* whole file when loaded with nn_st_load (owned), else NULL */
    int n;
    nn_st_tensor *t;       /* n tensors in header order */
    int nmeta;
    char **meta_key, **meta_val; /* __metadata__ entries */
} nn_st_file;

/* Reads and validates path. On failure f is left empty (nn_st_free is still safe) and err
 * names the file and the problem. Errors are GV_ERR_INPUT except I/O (GV_ERR_ENV). */
gv_status nn_st_load(nn_st_file *f, const char *path, gv_err *err);
/* Validates buf[0..len) (not copied: it must outlive f). label names it in messages. */
gv_status nn_st_parse(nn_st_file *f, const char *label, const uint8_t *buf, size_t len, gv_err *err);
void nn_st_free(nn_st_file *f);

const nn_st_tensor *nn_st_find(const nn_st_file *f, const char *name);
/* GV_OK when tensor name exists with exactly this shape; GV_ERR_INPUT naming both otherwise.
 * (The loader has already checked that every tensor's bytes lie inside the file.) */
gv_status nn_st_expect(const nn_st_file *f, const char *name, int ndim, const int64_t *shape, gv_err *err);
/* A __metadata__ value, or NULL. */
const char *nn_st_meta(const nn_st_file *f, const char *key);

/* Reads tensor name as float64 into out (numel values). The tensor must exist, be a float
 * dtype and have exactly the given shape (ndim values; ndim 0 is a scalar). */
gv_status nn_st_read_f64(const nn_st_file *f, const char *name, int ndim, const int64_t *shape,
                         double *out, gv_err *err);
/* Same for an integer tensor (I64 or I32) into int64. */
gv_status nn_st_read_i64(const nn_st_file *f, const char *name, int ndim, const int64_t *shape,
                         int64_t *out, gv_err *err);

/* Writer: tensors are added in order (data is copied), then written atomically. */
typedef struct nn_st_writer nn_st_writer;
nn_st_writer *nn_st_writer_new(void);
void nn_st_writer_meta(nn_st_writer *w, const char *key, const char *value);
/* Adds a tensor from float64 values stored as dtype (F64, F32, BF16). */
void nn_st_writer_add_f64(nn_st_writer *w, const char *name, nn_st_dtype dtype, int ndim, const int64_t *shape,
                          const double *x);
void nn_st_writer_add_i64(nn_st_writer *w, const char *name, int ndim, const int64_t *shape, const int64_t *x);
/* Serialises into a malloc'd buffer (caller frees). */
gv_status nn_st_writer_bytes(nn_st_writer *w, uint8_t **out, size_t *len, gv_err *err);
gv_status nn_st_writer_save(nn_st_writer *w, const char *path, gv_err *err);
void nn_st_writer_free(nn_st_writer *w);

#endif
