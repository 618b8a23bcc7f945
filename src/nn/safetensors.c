/* safetensors.c: a validating reader and an atomic writer of the safetensors format (see
 * safetensors.h). Nothing in a file is trusted: the header length, the JSON, every dtype,
 * shape and offset pair is checked before a tensor is handed out. Hosts are little-endian
 * (x86-64, AArch64), as is the format. */
#include "nn/safetensors.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    size_t size;
} st_types[] = {
    [NN_ST_F64] = {"F64", 8}, [NN_ST_F32] = {"F32", 4}, [NN_ST_BF16] = {"BF16", 2},
    [NN_ST_F16] = {"F16", 2}, [NN_ST_I64] = {"I64", 8}, [NN_ST_I32] = {"I32", 4},
};

const char *nn_st_dtype_name(nn_st_dtype d)
{
    return (unsigned)d < GV_ARRAY_LEN(st_types) ? st_types[d].name : "?";
}

size_t nn_st_dtype_size(nn_st_dtype d)
{
    return (unsigned)d < GV_ARRAY_LEN(st_types) ? st_types[d].size : 0;
}

static int st_dtype_parse(const char *s, nn_st_dtype *d)
{
    for (size_t i = 0; i < GV_ARRAY_LEN(st_types); i++)
        if (!strcmp(s, st_types[i].name)) {
            *d = (nn_st_dtype)i;
            return 1;
        }
    return 0;
}

void nn_st_free(nn_st_file *f)
{
    for (int i = 0; i < f->n; i++)
        free(f->t[i].name);
    for (int i = 0; i < f->nmeta; i++) {
        free(f->meta_key[i]);
        free(f->meta_val[i]);
    }
    GV_FREE(f->t, f->meta_key, f->meta_val, f->buf);
    memset(f, 0, sizeof *f);
}

/* A JSON number that is a whole number in [0, 2^53]. */
static int json_uint(const cJSON *j, uint64_t *out)
{
    if (!cJSON_IsNumber(j))
        return 0;
    double v = j->valuedouble;
    if (!(v >= 0 && v <= 9007199254740992.0) || v != floor(v))
        return 0;
    *out = (uint64_t)v;
    return 1;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp((*(const nn_st_tensor *const *)a)->name, (*(const nn_st_tensor *const *)b)->name);
}

/* Validates one header entry into t. Returns a message (static text) or NULL when good. */
static const char *st_entry(const cJSON *e, size_t data_len, const uint8_t *data, nn_st_tensor *t, char *why,
                            size_t whylen)
{
    if (!cJSON_IsObject(e))
        return "its header entry is not a JSON object";
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    if (!cJSON_IsString(dt) || !sh || !off)
        return "its header entry needs dtype, shape and data_offsets";
    if (!st_dtype_parse(dt->valuestring, &t->dtype)) {
        snprintf(why, whylen, "unsupported dtype '%.32s' (F64, F32, BF16, F16, I64, I32 are read)", dt->valuestring);
        return why;
    }
    if (!cJSON_IsArray(sh) || cJSON_GetArraySize(sh) > NN_ST_MAX_DIMS)
        return "shape is not an array of at most 8 whole numbers";
    t->ndim = 0;
    uint64_t numel = 1;
    const cJSON *d;
    cJSON_ArrayForEach(d, sh)
    {
        uint64_t v;
        if (!json_uint(d, &v) || v > ((uint64_t)1 << 40))
            return "shape holds something other than a whole number up to 2^40";
        t->shape[t->ndim++] = (int64_t)v;
        if (v && numel > ((uint64_t)1 << 50) / v)
            return "shape has more than 2^50 elements";
        numel *= v;
    }
    uint64_t b, en;
    if (!cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2 || !json_uint(cJSON_GetArrayItem(off, 0), &b) ||
        !json_uint(cJSON_GetArrayItem(off, 1), &en))
        return "data_offsets is not a pair of whole numbers";
    if (b > en || en > data_len) {
        snprintf(why, whylen, "data_offsets [%llu, %llu] lie outside the %zu data bytes (file truncated?)",
                 (unsigned long long)b, (unsigned long long)en, data_len);
        return why;
    }
    uint64_t want = numel * st_types[t->dtype].size;
    if (en - b != want) {
        snprintf(why, whylen, "data_offsets cover %llu bytes but the shape and dtype need %llu",
                 (unsigned long long)(en - b), (unsigned long long)want);
        return why;
    }
    t->numel = (size_t)numel;
    t->data = data + b;
    t->nbytes = (size_t)want;
    return NULL;
}

static int cmp_data(const void *a, const void *b)
{
    const nn_st_tensor *x = *(const nn_st_tensor *const *)a, *y = *(const nn_st_tensor *const *)b;
    return (x->data > y->data) - (x->data < y->data);
}

/* The format's rule: the data bytes are exactly the tensors', back to back, with no hole,
 * no overlap and nothing after the last one (a file with more is damaged or not what its
 * header says). */
static gv_status st_covered(const nn_st_file *f, const uint8_t *data, size_t data_len, gv_err *err)
{
    nn_st_tensor **by = gv_xmalloc(sizeof(nn_st_tensor *) * (size_t)(f->n ? f->n : 1));
    for (int i = 0; i < f->n; i++)
        by[i] = &f->t[i];
    qsort(by, (size_t)f->n, sizeof *by, cmp_data);
    size_t at = 0;
    gv_status st = GV_OK;
    for (int i = 0; i < f->n && st == GV_OK; i++) {
        size_t b = (size_t)(by[i]->data - data);
        if (b != at)
            st = gv_fail(err, GV_ERR_INPUT, "%s: tensor '%.80s' starts at data byte %zu, where %zu was expected (%s)",
                         f->path, by[i]->name, b, at, b > at ? "a hole between tensors" : "tensors overlap");
        at = b + by[i]->nbytes;
    }
    if (st == GV_OK && at != data_len)
        st = gv_fail(err, GV_ERR_INPUT, "%s: %zu bytes after the last tensor's data (the file holds more than its "
                     "header describes: damaged, or two files joined?)", f->path, data_len - at);
    free(by);
    return st;
}

gv_status nn_st_parse(nn_st_file *f, const char *label, const uint8_t *buf, size_t len, gv_err *err)
{
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", label);
    if (len < 8)
        return gv_fail(err, GV_ERR_INPUT, "%s: not a safetensors file: %zu bytes, shorter than the 8-byte header length",
                       label, len);
    uint64_t hlen;
    memcpy(&hlen, buf, 8);
    if (hlen < 2 || hlen > NN_ST_MAX_HEADER || hlen > len - 8)
        return gv_fail(err, GV_ERR_INPUT,
                       "%s: not a safetensors file or truncated: header length %llu does not fit the %zu bytes "
                       "after it (limit %llu)", label, (unsigned long long)hlen, len - 8,
                       (unsigned long long)NN_ST_MAX_HEADER);
    const uint8_t *data = buf + 8 + hlen;
    size_t data_len = len - 8 - (size_t)hlen;
    cJSON *root = cJSON_ParseWithLength((const char *)buf + 8, (size_t)hlen);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return gv_fail(err, GV_ERR_INPUT, "%s: the safetensors header is not a JSON object (corrupt file?)", label);
    }
    int count = cJSON_GetArraySize(root);
    f->t = gv_xcalloc((size_t)count + 1, sizeof *f->t);
    gv_status st = GV_OK;
    const cJSON *e;
    cJSON_ArrayForEach(e, root)
    {
        if (!e->string) {
            st = gv_fail(err, GV_ERR_INPUT, "%s: a header entry has no name", label);
            break;
        }
        if (!strcmp(e->string, "__metadata__")) {
            if (!cJSON_IsObject(e) || f->meta_key) {
                st = gv_fail(err, GV_ERR_INPUT, "%s: __metadata__ is not a single JSON object", label);
                break;
            }
            int nm = cJSON_GetArraySize(e);
            f->meta_key = gv_xcalloc((size_t)nm + 1, sizeof(char *));
            f->meta_val = gv_xcalloc((size_t)nm + 1, sizeof(char *));
            const cJSON *m;
            cJSON_ArrayForEach(m, e)
            {
                if (!cJSON_IsString(m) || !m->string) {
                    st = gv_fail(err, GV_ERR_INPUT, "%s: __metadata__ value of '%.64s' is not a string", label,
                                 m->string ? m->string : "?");
                    break;
                }
                f->meta_key[f->nmeta] = gv_xstrdup(m->string);
                f->meta_val[f->nmeta++] = gv_xstrdup(m->valuestring);
            }
            if (st != GV_OK)
                break;
            continue;
        }
        nn_st_tensor *t = &f->t[f->n];
        char why[160];
        const char *bad = st_entry(e, data_len, data, t, why, sizeof why);
        if (bad) {
            st = gv_fail(err, GV_ERR_INPUT, "%s: tensor '%.80s': %s", label, e->string, bad);
            break;
        }
        t->name = gv_xstrdup(e->string);
        f->n++;
    }
    cJSON_Delete(root);
    if (st == GV_OK && f->n > 1) {
        nn_st_tensor **sorted = gv_xmalloc(sizeof(nn_st_tensor *) * (size_t)f->n);
        for (int i = 0; i < f->n; i++)
            sorted[i] = &f->t[i];
        qsort(sorted, (size_t)f->n, sizeof *sorted, cmp_names);
        for (int i = 1; i < f->n && st == GV_OK; i++)
            if (!strcmp(sorted[i]->name, sorted[i - 1]->name))
                st = gv_fail(err, GV_ERR_INPUT, "%s: tensor '%.80s' appears twice in the header", label, sorted[i]->name);
        free(sorted);
    }
    if (st == GV_OK)
        st = st_covered(f, data, data_len, err);
    if (st != GV_OK)
        nn_st_free(f);
    return st;
}

gv_status nn_st_load(nn_st_file *f, const char *path, gv_err *err)
{
    memset(f, 0, sizeof *f);
    uint8_t *buf;
    size_t len;
    gv_status s = gv_read_file(path, (size_t)8 << 30, &buf, &len, err);
    if (s != GV_OK)
        return s;
    s = nn_st_parse(f, path, buf, len, err);
    if (s != GV_OK) {
        free(buf);
        return s;
    }
    f->buf = buf;
    return GV_OK;
}

const nn_st_tensor *nn_st_find(const nn_st_file *f, const char *name)
{
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->t[i].name, name))
            return &f->t[i];
    return NULL;
}

const char *nn_st_meta(const nn_st_file *f, const char *key)
{
    for (int i = 0; i < f->nmeta; i++)
        if (!strcmp(f->meta_key[i], key))
            return f->meta_val[i];
    return NULL;
}

static void shape_str(char *buf, size_t len, int ndim, const int64_t *shape)
{
    size_t o = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < ndim && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (o < len)
        snprintf(buf + o, len - o, ")");
}

static gv_status st_expect(const nn_st_file *f, const char *name, int ndim, const int64_t *shape,
                           const nn_st_tensor **t, gv_err *err);

gv_status nn_st_expect(const nn_st_file *f, const char *name, int ndim, const int64_t *shape, gv_err *err)
{
    const nn_st_tensor *t;
    return st_expect(f, name, ndim, shape, &t, err);
}

/* Finds name and checks its shape; *t set on success. */
static gv_status st_expect(const nn_st_file *f, const char *name, int ndim, const int64_t *shape,
                           const nn_st_tensor **t, gv_err *err)
{
    *t = nn_st_find(f, name);
    if (!*t)
        return gv_fail(err, GV_ERR_INPUT, "%s: tensor '%s' is missing", f->path, name);
    int same = (*t)->ndim == ndim;
    for (int i = 0; same && i < ndim; i++)
        same = (*t)->shape[i] == shape[i];
    if (!same) {
        char want[96], got[96];
        shape_str(want, sizeof want, ndim, shape);
        shape_str(got, sizeof got, (*t)->ndim, (*t)->shape);
        return gv_fail(err, GV_ERR_INPUT, "%s: tensor '%s' has shape %s, expected %s", f->path, name, got, want);
    }
    return GV_OK;
}

static double bf16_to_f64(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float x;
    memcpy(&x, &u, 4);
    return x;
}

static double f16_to_f64(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

gv_status nn_st_read_f64(const nn_st_file *f, const char *name, int ndim, const int64_t *shape,
                         double *out, gv_err *err)
{
    const nn_st_tensor *t;
    gv_status s = st_expect(f, name, ndim, shape, &t, err);
    if (s != GV_OK)
        return s;
    const uint8_t *p = t->data;
    for (size_t i = 0; i < t->numel; i++) {
        switch (t->dtype) {
        case NN_ST_F64: memcpy(&out[i], p + 8 * i, 8); break;
        case NN_ST_F32: {
            float x;
            memcpy(&x, p + 4 * i, 4);
            out[i] = x;
            break;
        }
        case NN_ST_BF16:
        case NN_ST_F16: {
            uint16_t h;
            memcpy(&h, p + 2 * i, 2);
            out[i] = t->dtype == NN_ST_BF16 ? bf16_to_f64(h) : f16_to_f64(h);
            break;
        }
        default:
            return gv_fail(err, GV_ERR_INPUT, "%s: tensor '%s' has dtype %s, expected a float dtype (F64, F32, BF16, F16)",
                           f->path, name, nn_st_dtype_name(t->dtype));
        }
    }
    return GV_OK;
}

gv_status nn_st_read_i64(const nn_st_file *f, const char *name, int ndim, const int64_t *shape,
                         int64_t *out, gv_err *err)
{
    const nn_st_tensor *t;
    gv_status s = st_expect(f, name, ndim, shape, &t, err);
    if (s != GV_OK)
        return s;
    if (t->dtype != NN_ST_I64 && t->dtype != NN_ST_I32)
        return gv_fail(err, GV_ERR_INPUT, "%s: tensor '%s' has dtype %s, expected I64 or I32", f->path, name,
                       nn_st_dtype_name(t->dtype));
    for (size_t i = 0; i < t->numel; i++) {
        if (t->dtype == NN_ST_I64) {
            memcpy(&out[i], t->data + 8 * i, 8);
        } else {
            int32_t v;
            memcpy(&v, t->data + 4 * i, 4);
            out[i] = v;
        }
    }
    return GV_OK;
}

/* ---- writer ---------------------------------------------------------------------------- */

typedef struct {
    char *name;
    nn_st_dtype dtype;
    int ndim;
    int64_t shape[NN_ST_MAX_DIMS];
    uint8_t *data;
    size_t nbytes;
} st_item;

struct nn_st_writer {
    int n, cap;
    st_item *items;
    cJSON *meta;
};

nn_st_writer *nn_st_writer_new(void)
{
    nn_st_writer *w = gv_xcalloc(1, sizeof *w);
    w->meta = cJSON_CreateObject();
    if (!w->meta) {
        fprintf(stderr, "gpuvet: out of memory\n");
        exit(GV_EXIT_ENV);
    }
    return w;
}

void nn_st_writer_meta(nn_st_writer *w, const char *key, const char *value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(w->meta, key);
    cJSON_AddStringToObject(w->meta, key, value);
}

static st_item *writer_push(nn_st_writer *w, const char *name, nn_st_dtype dtype, int ndim, const int64_t *shape,
                            size_t *numel)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->items = gv_xrealloc(w->items, sizeof(st_item) * (size_t)w->cap);
    }
    st_item *it = &w->items[w->n++];
    memset(it, 0, sizeof *it);
    it->name = gv_xstrdup(name);
    it->dtype = dtype;
    it->ndim = ndim;
    *numel = 1;
    for (int i = 0; i < ndim; i++) {
        it->shape[i] = shape[i];
        *numel *= (size_t)shape[i];
    }
    it->nbytes = *numel * nn_st_dtype_size(dtype);
    it->data = gv_xmalloc(it->nbytes ? it->nbytes : 1);
    return it;
}

void nn_st_writer_add_f64(nn_st_writer *w, const char *name, nn_st_dtype dtype, int ndim, const int64_t *shape,
                          const double *x)
{
    size_t numel;
    st_item *it = writer_push(w, name, dtype, ndim, shape, &numel);
    for (size_t i = 0; i < numel; i++) {
        if (dtype == NN_ST_F64) {
            memcpy(it->data + 8 * i, &x[i], 8);
        } else if (dtype == NN_ST_F32) {
            float v = (float)x[i];
            memcpy(it->data + 4 * i, &v, 4);
        } else { /* BF16, round to nearest even */
            float v = (float)x[i];
            uint32_t u;
            memcpy(&u, &v, 4);
            uint16_t h = isnan(v) ? 0x7fc0 : (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
            memcpy(it->data + 2 * i, &h, 2);
        }
    }
}

void nn_st_writer_add_i64(nn_st_writer *w, const char *name, int ndim, const int64_t *shape, const int64_t *x)
{
    size_t numel;
    st_item *it = writer_push(w, name, NN_ST_I64, ndim, shape, &numel);
    memcpy(it->data, x, 8 * numel);
}

gv_status nn_st_writer_bytes(nn_st_writer *w, uint8_t **out, size_t *len, gv_err *err)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return gv_fail(err, GV_ERR_ENV, "out of memory building a safetensors header");
    if (cJSON_GetArraySize(w->meta) > 0)
        cJSON_AddItemReferenceToObject(root, "__metadata__", w->meta);
    size_t off = 0;
    for (int i = 0; i < w->n; i++) {
        st_item *it = &w->items[i];
        cJSON *e = cJSON_AddObjectToObject(root, it->name);
        cJSON_AddStringToObject(e, "dtype", nn_st_dtype_name(it->dtype));
        cJSON *sh = cJSON_AddArrayToObject(e, "shape");
        for (int k = 0; k < it->ndim; k++)
            cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)it->shape[k]));
        cJSON *o = cJSON_AddArrayToObject(e, "data_offsets");
        cJSON_AddItemToArray(o, cJSON_CreateNumber((double)off));
        cJSON_AddItemToArray(o, cJSON_CreateNumber((double)(off + it->nbytes)));
        off += it->nbytes;
    }
    char *hdr = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!hdr)
        return gv_fail(err, GV_ERR_ENV, "out of memory printing a safetensors header");
    size_t hl = strlen(hdr);
    size_t padded = (hl + 7) & ~(size_t)7; /* data starts 8-byte aligned, padded with spaces */
    size_t total = 8 + padded + off;
    uint8_t *buf = malloc(total);
    if (!buf) {
        cJSON_free(hdr);
        return gv_fail(err, GV_ERR_ENV, "out of memory for a %zu-byte safetensors file", total);
    }
    uint64_t h64 = padded;
    memcpy(buf, &h64, 8);
    memcpy(buf + 8, hdr, hl);
    memset(buf + 8 + hl, ' ', padded - hl);
    cJSON_free(hdr);
    uint8_t *p = buf + 8 + padded;
    for (int i = 0; i < w->n; i++) {
        memcpy(p, w->items[i].data, w->items[i].nbytes);
        p += w->items[i].nbytes;
    }
    *out = buf;
    *len = total;
    return GV_OK;
}

gv_status nn_st_writer_save(nn_st_writer *w, const char *path, gv_err *err)
{
    uint8_t *buf;
    size_t len;
    gv_status s = nn_st_writer_bytes(w, &buf, &len, err);
    if (s != GV_OK)
        return s;
    s = gv_write_file_atomic(path, buf, len, err);
    free(buf);
    return s;
}

void nn_st_writer_free(nn_st_writer *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->n; i++) {
        free(w->items[i].name);
        free(w->items[i].data);
    }
    free(w->items);
    cJSON_Delete(w->meta);
    free(w);
}
