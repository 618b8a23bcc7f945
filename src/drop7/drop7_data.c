/* drop7_data.c: self-play datasets as safetensors files (see drop7_data.h). */
#include "drop7/drop7_data.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drop7/drop7.h"

static gv_status bad(gv_err *err, const nn_st_file *f, const char *what)
{
    return gv_fail(err, GV_ERR_INPUT, "%s: %s", f->path, what);
}

/* Every sample's planes: one-hot cells, constant planes 10 and 11 in [0, 1]. */
static gv_status check_planes(const nn_st_file *f, const double *x, long n, gv_err *err)
{
    for (long i = 0; i < n; i++) {
        const double *p = x + (size_t)i * DROP7_PLANE_FLOATS;
        for (int c = 0; c < DROP7_CELLS; c++) {
            double sum = 0;
            for (int k = 0; k < 10; k++) {
                double v = p[k * DROP7_CELLS + c];
                if (v != 0 && v != 1)
                    return gv_fail(err, GV_ERR_INPUT, "%s: planes of sample %ld: plane %d cell %d is %g (planes 0..9 "
                                   "are one-hot: 0 or 1)", f->path, i, k, c, v);
                sum += v;
            }
            if (sum != 1)
                return gv_fail(err, GV_ERR_INPUT, "%s: planes of sample %ld: cell %d is set in %g of planes 0..9 "
                               "(exactly one)", f->path, i, c, sum);
        }
        for (int k = 10; k < 12; k++) {
            double v0 = p[k * DROP7_CELLS];
            if (!(v0 >= 0 && v0 <= 1))
                return gv_fail(err, GV_ERR_INPUT, "%s: planes of sample %ld: plane %d is %g (in [0, 1])", f->path, i,
                               k, v0);
            for (int c = 1; c < DROP7_CELLS; c++)
                if (p[k * DROP7_CELLS + c] != v0)
                    return gv_fail(err, GV_ERR_INPUT, "%s: planes of sample %ld: plane %d is not constant (cell %d)",
                                   f->path, i, k, c);
        }
    }
    return GV_OK;
}

/* Metadata field key as a whole number in [lo, hi] into *v (written as plain decimal
 * digits, a '-' allowed before them); absent: *v stays as it is. */
static gv_status meta_int(const nn_st_file *f, const char *key, long long lo, long long hi, long long *v, gv_err *err)
{
    const char *s = nn_st_meta(f, key);
    if (!s)
        return GV_OK;
    const char *p = s + (s[0] == '-');
    int digits = *p != 0;
    for (const char *q = p; *q; q++)
        digits &= *q >= '0' && *q <= '9';
    errno = 0;
    long long x = digits ? strtoll(s, NULL, 10) : 0;
    if (!digits || errno || x < lo || x > hi)
        return gv_fail(err, GV_ERR_INPUT, "%s: __metadata__ %s is \"%.40s\", not a whole number from %lld to %lld",
                       f->path, key, s, lo, hi);
    *v = x;
    return GV_OK;
}

/* Metadata field key as a finite number in [lo, hi] into *v; absent: *v stays. */
static gv_status meta_num(const nn_st_file *f, const char *key, double lo, double hi, double *v, gv_err *err)
{
    const char *s = nn_st_meta(f, key);
    if (!s)
        return GV_OK;
    char *end;
    double x = strtod(s, &end);
    if (end == s || *end || s[0] == ' ' || !(x >= lo && x <= hi))
        return gv_fail(err, GV_ERR_INPUT, "%s: __metadata__ %s is \"%.40s\", not a number from %g to %g", f->path,
                       key, s, lo, hi);
    *v = x;
    return GV_OK;
}

/* The metadata fields a dataset may carry, each checked (see drop7_data.h). n: samples. */
static gv_status read_meta(const nn_st_file *f, long n, drop7_data *d, gv_err *err)
{
    long long games = 0, seed = 0, sims = -1, temp = -1;
    GV_TRY(meta_int(f, "games", 1, n, &games, err));
    GV_TRY(meta_int(f, "seed", 0, 1LL << 62, &seed, err));
    GV_TRY(meta_int(f, "sims", 0, 100000, &sims, err));
    GV_TRY(meta_int(f, "temp_moves", 0, 100000, &temp, err));
    d->dirichlet = d->noise = d->discount = NAN;
    GV_TRY(meta_num(f, "value_discount", 0, 1, &d->discount, err));
    GV_TRY(meta_num(f, "dirichlet", 0, 100, &d->dirichlet, err));
    GV_TRY(meta_num(f, "noise", 0, 1, &d->noise, err));
    const char *m = nn_st_meta(f, "mode"), *net = nn_st_meta(f, "net"), *id = nn_st_meta(f, "net_id");
    if (m && strcmp(m, "normal") && strcmp(m, "hardcore"))
        return gv_fail(err, GV_ERR_INPUT, "%s: __metadata__ mode is \"%.40s\", not normal or hardcore", f->path, m);
    if (net && strlen(net) >= sizeof d->net)
        return gv_fail(err, GV_ERR_INPUT, "%s: __metadata__ net is %zu characters long (at most %zu)", f->path,
                       strlen(net), sizeof d->net - 1);
    if (id && (strlen(id) != 16 || strspn(id, "0123456789abcdef") != 16))
        return gv_fail(err, GV_ERR_INPUT, "%s: __metadata__ net_id is \"%.40s\", not 16 hexadecimal digits", f->path, id);
    d->games = (long)games, d->seed = (uint64_t)seed, d->sims = (long)sims, d->temp_moves = (long)temp;
    snprintf(d->mode, sizeof d->mode, "%s", m ? m : "");
    snprintf(d->net, sizeof d->net, "%s", net ? net : "");
    snprintf(d->net_id, sizeof d->net_id, "%s", id ? id : "");
    return GV_OK;
}

gv_status drop7_data_read(const nn_st_file *f, drop7_data *d, gv_err *err)
{
    memset(d, 0, sizeof *d);
    const char *fmt = nn_st_meta(f, "format"), *ver = nn_st_meta(f, "version");
    if (!fmt || strcmp(fmt, DROP7_DATA_FORMAT))
        return bad(err, f, "not a gpuvet Drop7 self-play dataset (no __metadata__ format \"" DROP7_DATA_FORMAT "\")");
    if (!ver || strcmp(ver, DROP7_DATA_VERSION))
        return gv_fail(err, GV_ERR_INPUT, "%s: dataset version %s (this gpuvet reads version " DROP7_DATA_VERSION ")",
                       f->path, ver ? ver : "missing");
    const char *vs = nn_st_meta(f, "value_scale");
    if (!vs || strtod(vs, NULL) != DROP7_VALUE_SCALE)
        return gv_fail(err, GV_ERR_INPUT, "%s: value_scale %s (this gpuvet's values are points / 10000)", f->path,
                       vs ? vs : "missing");
    const nn_st_tensor *pt = nn_st_find(f, "planes");
    if (!pt)
        return bad(err, f, "no tensor 'planes'");
    if (pt->ndim != 4 || pt->shape[1] != DROP7_PLANES || pt->shape[2] != DROP7_N || pt->shape[3] != DROP7_N) {
        char sh[96] = "";
        for (int i = 0; i < pt->ndim; i++)
            snprintf(sh + strlen(sh), sizeof sh - strlen(sh), "%s%lld", i ? ", " : "", (long long)pt->shape[i]);
        return gv_fail(err, GV_ERR_INPUT, "%s: tensor 'planes' has shape (%s); a Drop7 dataset has (N, 12, 7, 7): 12 "
                       "input planes of 7x7", f->path, sh);
    }
    long n = (long)pt->shape[0];
    if (n < 1)
        return bad(err, f, "the dataset holds no samples");
    drop7_data meta = {0};
    GV_TRY(read_meta(f, n, &meta, err));
    int64_t sp[4] = {n, DROP7_PLANES, DROP7_N, DROP7_N}, spol[2] = {n, DROP7_N}, sv[1] = {n};
    GV_TRY(nn_st_expect(f, "policy", 2, spol, err));
    GV_TRY(nn_st_expect(f, "value", 1, sv, err));
    double *x = malloc(sizeof(double) * DROP7_PLANE_FLOATS * (size_t)n);
    double *pol = malloc(sizeof(double) * DROP7_N * (size_t)n), *val = malloc(sizeof(double) * (size_t)n);
    gv_status s = GV_OK;
    if (!x || !pol || !val)
        s = gv_fail(err, GV_ERR_ENV, "%s: out of memory for %ld samples", f->path, n);
    if (s == GV_OK)
        s = nn_st_read_f64(f, "planes", 4, sp, x, err);
    if (s == GV_OK)
        s = nn_st_read_f64(f, "policy", 2, spol, pol, err);
    if (s == GV_OK)
        s = nn_st_read_f64(f, "value", 1, sv, val, err);
    if (s == GV_OK)
        s = check_planes(f, x, n, err);
    for (long i = 0; i < n && s == GV_OK; i++) {
        double sum = 0;
        for (int a = 0; a < DROP7_N; a++) {
            double v = pol[i * DROP7_N + a];
            if (!(v >= 0 && v <= 1)) {
                s = gv_fail(err, GV_ERR_INPUT, "%s: policy of sample %ld: column %d is %g (a probability)", f->path, i, a, v);
                break;
            }
            sum += v;
        }
        if (s == GV_OK && fabs(sum - 1) > 1e-3)
            s = gv_fail(err, GV_ERR_INPUT, "%s: policy of sample %ld sums to %g (a distribution sums to 1)", f->path, i, sum);
        if (s == GV_OK && !(fabs(val[i]) <= DROP7_DATA_MAX_VALUE))
            s = gv_fail(err, GV_ERR_INPUT, "%s: value of sample %ld is %g (finite, at most %g in magnitude)", f->path, i,
                        val[i], DROP7_DATA_MAX_VALUE);
    }
    if (s == GV_OK) {
        *d = meta;
        d->n = n;
        d->planes = gv_xmalloc(sizeof(float) * DROP7_PLANE_FLOATS * (size_t)n);
        d->policy = gv_xmalloc(sizeof(float) * DROP7_N * (size_t)n);
        d->value = gv_xmalloc(sizeof(float) * (size_t)n);
        for (size_t i = 0; i < (size_t)n * DROP7_PLANE_FLOATS; i++)
            d->planes[i] = (float)x[i];
        for (size_t i = 0; i < (size_t)n * DROP7_N; i++)
            d->policy[i] = (float)pol[i];
        for (long i = 0; i < n; i++)
            d->value[i] = (float)val[i];
    }
    free(x), free(pol), free(val);
    return s;
}

gv_status drop7_data_load(const char *path, drop7_data *d, gv_err *err)
{
    nn_st_file f;
    memset(d, 0, sizeof *d);
    gv_status s = nn_st_load(&f, path, err);
    if (s == GV_OK)
        s = drop7_data_read(&f, d, err);
    nn_st_free(&f);
    return s;
}

gv_status drop7_data_load_if_exists(const char *path, drop7_data *d, int *found, gv_err *err)
{
    memset(d, 0, sizeof *d);
    uint8_t *buf;
    size_t len;
    GV_TRY(gv_read_file_if_exists(path, (size_t)8 << 30, &buf, &len, found, err));
    if (!*found)
        return GV_OK;
    nn_st_file f;
    gv_status s = nn_st_parse(&f, path, buf, len, err);
    if (s == GV_OK)
        s = drop7_data_read(&f, d, err);
    nn_st_free(&f);
    free(buf);
    return s;
}

gv_status drop7_data_load_many(const char *const *paths, int n, drop7_data *d, gv_err *err)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < n; i++) {
        drop7_data part;
        gv_status s = drop7_data_load(paths[i], &part, err);
        if (s != GV_OK) {
            drop7_data_free(d);
            return s;
        }
        if (i == 0) {
            *d = part;
            continue;
        }
        drop7_data_append(d, &part);
        drop7_data_free(&part);
    }
    return GV_OK;
}

void drop7_data_append(drop7_data *dst, const drop7_data *src)
{
    size_t n = (size_t)(dst->n + src->n);
    dst->planes = gv_xrealloc(dst->planes, sizeof(float) * DROP7_PLANE_FLOATS * n);
    dst->policy = gv_xrealloc(dst->policy, sizeof(float) * DROP7_N * n);
    dst->value = gv_xrealloc(dst->value, sizeof(float) * n);
    memcpy(dst->planes + (size_t)dst->n * DROP7_PLANE_FLOATS, src->planes, sizeof(float) * DROP7_PLANE_FLOATS * (size_t)src->n);
    memcpy(dst->policy + (size_t)dst->n * DROP7_N, src->policy, sizeof(float) * DROP7_N * (size_t)src->n);
    memcpy(dst->value + dst->n, src->value, sizeof(float) * (size_t)src->n);
    dst->n = (long)n;
    dst->games += src->games;
}

gv_status drop7_data_save(const char *path, const drop7_data *d, gv_err *err)
{
    if (d->n < 1)
        return gv_fail(err, GV_ERR_INPUT, "%s: no samples to write", path);
    nn_st_writer *w = nn_st_writer_new();
    char buf[64];
    nn_st_writer_meta(w, "format", DROP7_DATA_FORMAT);
    nn_st_writer_meta(w, "version", DROP7_DATA_VERSION);
    nn_st_writer_meta(w, "value_scale", "10000");
    snprintf(buf, sizeof buf, "%ld", d->games);
    nn_st_writer_meta(w, "games", buf);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)d->seed);
    nn_st_writer_meta(w, "seed", buf);
    if (d->mode[0])
        nn_st_writer_meta(w, "mode", d->mode);
    const struct { const char *key; long v; } ints[] = {{"sims", d->sims}, {"temp_moves", d->temp_moves}};
    for (size_t i = 0; i < GV_ARRAY_LEN(ints); i++)
        if (ints[i].v >= 0) {
            snprintf(buf, sizeof buf, "%ld", ints[i].v);
            nn_st_writer_meta(w, ints[i].key, buf);
        }
    const struct { const char *key; double v; } nums[] = {{"dirichlet", d->dirichlet}, {"noise", d->noise},
                                                          {"value_discount", d->discount}};
    for (size_t i = 0; i < GV_ARRAY_LEN(nums); i++)
        if (isfinite(nums[i].v)) {
            snprintf(buf, sizeof buf, "%.17g", nums[i].v);
            nn_st_writer_meta(w, nums[i].key, buf);
        }
    if (d->net[0])
        nn_st_writer_meta(w, "net", d->net);
    if (d->net_id[0])
        nn_st_writer_meta(w, "net_id", d->net_id);
    size_t n = (size_t)d->n, most = n * DROP7_PLANE_FLOATS;
    double *tmp = gv_xmalloc(sizeof(double) * most);
    int64_t sp[4] = {d->n, DROP7_PLANES, DROP7_N, DROP7_N}, spol[2] = {d->n, DROP7_N}, sv[1] = {d->n};
    for (size_t i = 0; i < most; i++)
        tmp[i] = d->planes[i];
    nn_st_writer_add_f64(w, "planes", NN_ST_F32, 4, sp, tmp);
    for (size_t i = 0; i < n * DROP7_N; i++)
        tmp[i] = d->policy[i];
    nn_st_writer_add_f64(w, "policy", NN_ST_F32, 2, spol, tmp);
    for (size_t i = 0; i < n; i++)
        tmp[i] = d->value[i];
    nn_st_writer_add_f64(w, "value", NN_ST_F32, 1, sv, tmp);
    free(tmp);
    gv_status s = nn_st_writer_save(w, path, err);
    nn_st_writer_free(w);
    return s;
}

void drop7_data_free(drop7_data *d)
{
    free(d->planes), free(d->policy), free(d->value);
    memset(d, 0, sizeof *d);
}
