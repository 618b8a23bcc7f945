/* test_nn_safetensors.c: the safetensors reader and writer and the checkpoint layer:
 * round trips (F64, F32, BF16, I64, metadata; a BatchNorm network's state_dict), and every
 * kind of bad file (too short, bad header length, not JSON, bad dtype, shape or offsets,
 * duplicate names, truncated data, missing tensor, wrong shape or dtype, non-finite values,
 * out-of-range targets) giving GV_ERR_INPUT with a message that names the file and, where
 * there is one, the tensor. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "nn/ckpt.h"
#include "nn/safetensors.h"

/* Builds a file image: 8-byte length, header text, data bytes. */
static uint8_t *image(const char *hdr, const void *data, size_t dlen, size_t *len)
{
    size_t hl = strlen(hdr);
    *len = 8 + hl + dlen;
    uint8_t *b = calloc(1, *len + 1);
    uint64_t h = hl;
    memcpy(b, &h, 8);
    memcpy(b + 8, hdr, hl);
    if (dlen)
        memcpy(b + 8 + hl, data, dlen);
    return b;
}

/* Expects parsing (and reading tensor `read` as shape (2) F64 when not NULL) to fail with a
 * message containing the label and `want`. */
static void expect_bad(const char *name, const char *hdr, size_t dlen, const char *read, const char *want)
{
    static const double data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t len;
    uint8_t *b = image(hdr, data, dlen, &len);
    nn_st_file f;
    gv_err err = {{0}};
    gv_status s = nn_st_parse(&f, "bad.safetensors", b, len, &err);
    if (s == GV_OK && read) {
        double out[2];
        int64_t shape[1] = {2};
        s = nn_st_read_f64(&f, read, 1, shape, out, &err);
        nn_st_free(&f);
    } else if (s == GV_OK) {
        nn_st_free(&f);
    }
    t_check(s == GV_ERR_INPUT && strstr(err.msg, "bad.safetensors") && strstr(err.msg, want), name,
            "status %d, message: %s", (int)s, err.msg);
    free(b);
}

static void round_trip(void)
{
    nn_st_writer *w = nn_st_writer_new();
    nn_st_writer_meta(w, "k", "v");
    double x[6] = {1.5, -2.25, 3e-8, 1e30, -0.0, 7};
    int64_t sh23[2] = {2, 3}, sh6[1] = {6}, i[3] = {-1, 0, 1LL << 40}, sh3[1] = {3};
    nn_st_writer_add_f64(w, "a.f64", NN_ST_F64, 2, sh23, x);
    nn_st_writer_add_f64(w, "b.f32", NN_ST_F32, 1, sh6, x);
    nn_st_writer_add_f64(w, "c.bf16", NN_ST_BF16, 1, sh6, x);
    nn_st_writer_add_i64(w, "d.i64", 1, sh3, i);
    nn_st_writer_add_i64(w, "e.scalar", 0, NULL, i);
    uint8_t *buf;
    size_t len;
    gv_err err = {{0}};
    gv_status ws = nn_st_writer_bytes(w, &buf, &len, &err);
    if (!t_check(ws == GV_OK, "writer", "5 tensors and metadata serialised: %s", ws == GV_OK ? "ok" : err.msg)) {
        nn_st_writer_free(w);
        return;
    }
    nn_st_writer_free(w);
    uint64_t hl;
    memcpy(&hl, buf, 8);
    t_check(hl % 8 == 0 && buf[8] == '{', "writer header", "header length %llu (8-aligned), starts with '{'",
            (unsigned long long)hl);
    nn_st_file f;
    gv_status ps = nn_st_parse(&f, "rt", buf, len, &err);
    if (!t_check(ps == GV_OK && f.n == 5, "round trip parse", "%d tensors read back (5 written) %s", f.n, err.msg)) {
        free(buf);
        return;
    }
    double y[6], z[6], q[6];
    int64_t j[3], sc;
    int ok = nn_st_read_f64(&f, "a.f64", 2, sh23, y, &err) == GV_OK && nn_st_read_f64(&f, "b.f32", 1, sh6, z, &err) == GV_OK &&
             nn_st_read_f64(&f, "c.bf16", 1, sh6, q, &err) == GV_OK && nn_st_read_i64(&f, "d.i64", 1, sh3, j, &err) == GV_OK &&
             nn_st_read_i64(&f, "e.scalar", 0, NULL, &sc, &err) == GV_OK;
    int exact = ok && !memcmp(x, y, sizeof x) && j[0] == -1 && j[2] == (1LL << 40) && sc == -1;
    double ef = 0, eb = 0;
    for (int k = 0; k < 6 && ok; k++) {
        double d32 = fabs(z[k] - x[k]) / (fabs(x[k]) + 1e-300), d16 = fabs(q[k] - x[k]) / (fabs(x[k]) + 1e-300);
        ef = d32 > ef ? d32 : ef;
        eb = d16 > eb ? d16 : eb;
    }
    t_check(exact && ef <= 6e-8 && eb <= 4e-3 && f.n == 5, "round trip values",
            "F64 and I64 exact: %s, F32 worst rel %.2g (<= 6e-8), BF16 worst rel %.2g (<= 4e-3) %s", exact ? "yes" : "no", ef,
            eb, err.msg);
    t_check(nn_st_meta(&f, "k") && !strcmp(nn_st_meta(&f, "k"), "v"), "round trip metadata", "k = %s",
            nn_st_meta(&f, "k") ? nn_st_meta(&f, "k") : "(missing)");
    nn_st_free(&f);
    free(buf);
}

static void bad_files(void)
{
    size_t len;
    nn_st_file f;
    gv_err err = {{0}};
    uint8_t tiny[5] = {1, 2, 3, 4, 5};
    t_check(nn_st_parse(&f, "bad.safetensors", tiny, 5, &err) == GV_ERR_INPUT && strstr(err.msg, "bad.safetensors"),
            "5-byte file", "%s", err.msg);
    uint8_t *b = image("{}", NULL, 0, &len);
    uint64_t huge = 1ull << 40;
    memcpy(b, &huge, 8);
    t_check(nn_st_parse(&f, "bad.safetensors", b, len, &err) == GV_ERR_INPUT && strstr(err.msg, "header length"),
            "header length beyond the file", "%s", err.msg);
    free(b);
    expect_bad("header not JSON", "{\"a\": {\"dtype\": \"F64\"", 0, NULL, "not a JSON object");
    expect_bad("header a JSON array", "[1, 2]", 0, NULL, "not a JSON object");
    expect_bad("entry not an object", "{\"w\": 5}", 0, NULL, "'w'");
    expect_bad("missing data_offsets", "{\"w\": {\"dtype\": \"F64\", \"shape\": [2]}}", 16, NULL, "data_offsets");
    expect_bad("unknown dtype", "{\"w\": {\"dtype\": \"Q7\", \"shape\": [2], \"data_offsets\": [0, 16]}}", 16, NULL,
               "dtype 'Q7'");
    expect_bad("negative dim", "{\"w\": {\"dtype\": \"F64\", \"shape\": [-2], \"data_offsets\": [0, 16]}}", 16, NULL,
               "shape");
    expect_bad("fractional dim", "{\"w\": {\"dtype\": \"F64\", \"shape\": [1.5], \"data_offsets\": [0, 16]}}", 16, NULL,
               "shape");
    expect_bad("offsets past the end (truncated)", "{\"w\": {\"dtype\": \"F64\", \"shape\": [4], \"data_offsets\": [0, 32]}}",
               16, NULL, "truncated");
    expect_bad("offsets reversed", "{\"w\": {\"dtype\": \"F64\", \"shape\": [0], \"data_offsets\": [16, 8]}}", 16, NULL,
               "'w'");
    expect_bad("offsets disagree with shape", "{\"w\": {\"dtype\": \"F64\", \"shape\": [3], \"data_offsets\": [0, 16]}}",
               32, NULL, "need 24");
    expect_bad("huge shape", "{\"w\": {\"dtype\": \"F64\", \"shape\": [1099511627776, 1099511627776], \"data_offsets\": [0, 16]}}",
               16, NULL, "'w'");
    expect_bad("duplicate name",
               "{\"w\": {\"dtype\": \"F64\", \"shape\": [2], \"data_offsets\": [0, 16]}, \"w\": {\"dtype\": \"F64\", "
               "\"shape\": [2], \"data_offsets\": [0, 16]}}", 16, NULL, "twice");
    /* the data bytes are exactly the tensors', back to back */
    expect_bad("bytes after the last tensor", "{\"w\": {\"dtype\": \"F64\", \"shape\": [2], \"data_offsets\": [0, 16]}}",
               24, NULL, "8 bytes after the last tensor");
    expect_bad("a hole before a tensor", "{\"w\": {\"dtype\": \"F64\", \"shape\": [2], \"data_offsets\": [8, 24]}}",
               24, NULL, "a hole between tensors");
    expect_bad("overlapping tensors",
               "{\"w\": {\"dtype\": \"F64\", \"shape\": [2], \"data_offsets\": [0, 16]}, \"v\": {\"dtype\": \"F64\", "
               "\"shape\": [2], \"data_offsets\": [8, 24]}}", 24, NULL, "tensors overlap");
    expect_bad("metadata not strings", "{\"__metadata__\": {\"a\": 1}}", 0, NULL, "__metadata__");
    expect_bad("missing tensor", "{\"w\": {\"dtype\": \"F64\", \"shape\": [2], \"data_offsets\": [0, 16]}}", 16, "x",
               "'x' is missing");
    expect_bad("wrong shape", "{\"w\": {\"dtype\": \"F64\", \"shape\": [1, 2], \"data_offsets\": [0, 16]}}", 16, "w",
               "'w' has shape (1, 2), expected (2)");
    expect_bad("integer where a float is expected",
               "{\"w\": {\"dtype\": \"I64\", \"shape\": [2], \"data_offsets\": [0, 16]}}", 16, "w", "'w' has dtype I64");
    /* a missing file */
    gv_status s = nn_st_load(&f, "/nonexistent/ck.safetensors", &err);
    t_check(s == GV_ERR_INPUT && strstr(err.msg, "/nonexistent/ck.safetensors"), "missing file", "%s", err.msg);
}

/* A BatchNorm network's checkpoint: save, load, compare; then damaged copies. */
static void checkpoints(const char *dir)
{
    nn_config cfg = {16, 1, NN_NORM_BATCH};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s, r;
    nn_state_alloc(&s, &L);
    nn_state_alloc(&r, &L);
    nn_state_init_random(&s, 5);
    for (size_t i = 0; i < L.nbuffers; i++)
        s.buffers[i] = 0.5 + 0.001 * (double)i;
    for (int i = 0; i < L.nbn; i++)
        s.num_batches[i] = 10 + i;
    char path[512], bad[512];
    snprintf(path, sizeof path, "%s/ck_test.safetensors", dir);
    snprintf(bad, sizeof bad, "%s/ck_bad.safetensors", dir);
    gv_err err = {{0}};
    gv_status st = nn_ckpt_save(path, &s, NN_ST_F64, &err);
    nn_st_file f;
    nn_config got;
    if (st == GV_OK)
        st = nn_ckpt_open(path, &f, &got, &err);
    if (!t_check(st == GV_OK, "checkpoint save and open", "%s", err.msg[0] ? err.msg : path))
        goto out;
    t_check(got.channels == 16 && got.blocks == 1 && got.norm == NN_NORM_BATCH, "checkpoint configuration",
            "read channels %d, blocks %d, %s norm from the tensors", got.channels, got.blocks, nn_norm_name(got.norm));
    st = nn_ckpt_read_state(&f, "", &r, &err);
    int same = st == GV_OK && !memcmp(s.params, r.params, sizeof(double) * L.nparams) &&
               !memcmp(s.buffers, r.buffers, sizeof(double) * L.nbuffers) &&
               !memcmp(s.num_batches, r.num_batches, sizeof(int64_t) * (size_t)L.nbn);
    t_check(same, "checkpoint round trip", "%zu parameters, %zu buffer values, %d counters identical %s", L.nparams,
            L.nbuffers, L.nbn, err.msg);
    nn_st_free(&f);
    /* truncated copy */
    uint8_t *buf;
    size_t len;
    if (gv_read_file(path, 0, &buf, &len, &err) != GV_OK)
        goto out;
    gv_write_file_atomic(bad, buf, len - 100, &err);
    st = nn_ckpt_open(bad, &f, &got, &err);
    t_check(st == GV_ERR_INPUT && strstr(err.msg, bad) && strstr(err.msg, "tensor '"), "truncated checkpoint", "%s",
            err.msg);
    /* a non-finite parameter: overwrite the first value of stem.weight with NaN */
    uint64_t hl;
    memcpy(&hl, buf, 8);
    double nan = NAN;
    char *hdr = strndup((const char *)buf + 8, hl);
    char *p = strstr(hdr, "\"stem.weight\"");
    const char *off = p ? strstr(p, "data_offsets\":[") : NULL;
    if (off) {
        size_t o = strtoul(off + 15, NULL, 10);
        memcpy(buf + 8 + hl + o + 8, &nan, 8);
        gv_write_file_atomic(bad, buf, len, &err);
        st = nn_ckpt_open(bad, &f, &got, &err);
        if (st == GV_OK) {
            st = nn_ckpt_read_state(&f, "", &r, &err);
            nn_st_free(&f);
        }
        t_check(st == GV_ERR_INPUT && strstr(err.msg, "'stem.weight'") && strstr(err.msg, "non-finite"),
                "non-finite parameter", "%s", err.msg);
    } else {
        t_check(0, "non-finite parameter", "could not find stem.weight in the header");
    }
    free(hdr);
    free(buf);
    /* a checkpoint of another configuration: 16 channels read as 24 */
    nn_config c24 = {24, 1, NN_NORM_BATCH};
    nn_layout L24;
    nn_layout_init(&L24, &c24);
    nn_state s24;
    nn_state_alloc(&s24, &L24);
    st = nn_ckpt_open(path, &f, &got, &err);
    if (st == GV_OK) {
        st = nn_ckpt_read_state(&f, "", &s24, &err);
        nn_st_free(&f);
    }
    t_check(st == GV_ERR_INPUT && strstr(err.msg, "'stem.weight' has shape (16, 12, 3, 3), expected (24, 12, 3, 3)"),
            "checkpoint of another shape", "%s", err.msg);
    /* a GroupNorm layout reading the BatchNorm file is fine (extra tensors ignored); the
     * other way round a running stat is missing */
    nn_state_free(&s24);
    nn_layout_free(&L24);
    nn_config cg = {16, 1, NN_NORM_GROUP};
    nn_layout Lg;
    nn_layout_init(&Lg, &cg);
    nn_state sg;
    nn_state_alloc(&sg, &Lg);
    nn_state_init_random(&sg, 3);
    nn_ckpt_save(bad, &sg, NN_ST_F32, &err);
    st = nn_ckpt_open(bad, &f, &got, &err);
    if (st == GV_OK) {
        st = nn_ckpt_read_state(&f, "", &r, &err); /* r has the BatchNorm layout */
        nn_st_free(&f);
    }
    t_check(st == GV_ERR_INPUT && strstr(err.msg, "'sn.running_mean' is missing"), "missing tensor in a checkpoint",
            "%s", err.msg);
    nn_state_free(&sg);
    nn_layout_free(&Lg);
    unlink(bad);
    unlink(path);
out:
    nn_state_free(&s);
    nn_state_free(&r);
    nn_layout_free(&L);
}

int main(void)
{
    round_trip();
    bad_files();
    const char *dir = getenv("GV_BUILD");
    checkpoints(dir && *dir ? dir : "/tmp");
    return t_done();
}
