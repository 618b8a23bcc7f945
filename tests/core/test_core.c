/* test_core.c: the shared utilities: argument parsing, statistics, atomic writes, hashing,
 * reading a record's fields. */
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/args.h"
#include "core/gv.h"
#include "core/hash.h"
#include "core/record.h"
#include "core/rng.h"
#include "core/stats.h"

static void test_args(void)
{
    long batch = 0;
    args_int_list batches = {0};
    const char *out = NULL;
    const char *dtype = NULL;
    int flag = 0;
    args_spec specs[] = {
        {"--batch", ARGS_INT, &batch, "N", "", 1, 1 << 20, 0, 0, NULL},
        {"--batches", ARGS_INT_LIST, &batches, "LIST", "", 1, 1 << 20, 0, 0, NULL},
        {"--output|-o", ARGS_STR, &out, "FILE", "", 0, 0, 0, 0, NULL},
        {"--dtype", ARGS_CHOICE, &dtype, "T", "", 0, 0, 0, 0, "fp32,bf16"},
        {"--flag", ARGS_FLAG, &flag, NULL, "", 0, 0, 0, 0, NULL},
    };
    gv_err e;
    char *ok[] = {"--batch", "64", "--batches=256,1024", "-o", "x.json", "--dtype", "bf16", "--flag", "pos"};
    const char *pos[2];
    int np = 0;
    int r = args_parse(specs, 5, 9, ok, pos, 2, &np, &e);
    t_check(r == ARGS_OK && batch == 64 && batches.n == 2 && batches.v[1] == 1024 && out && !strcmp(out, "x.json") &&
                dtype && !strcmp(dtype, "bf16") && flag == 1 && np == 1 && !strcmp(pos[0], "pos"),
            "args: valid flags parse", "batch=%ld batches.n=%d out=%s np=%d", batch, batches.n, out ? out : "-", np);

    struct { char *argv[3]; int argc; const char *want; } bad[] = {
        {{"--batch", "abc"}, 2, "--batch: expected a whole number, got 'abc'"},
        {{"--batch", "0"}, 2, "--batch: 0 is out of range (1 to 1048576)"},
        {{"--batches", "256,,1"}, 2, "--batches: expected comma-separated whole numbers, got '256,,1'"},
        {{"--nope"}, 1, "unknown flag '--nope' (see --help)"},
        {{"--batch"}, 1, "--batch needs a value (N)"},
        {{"--dtype", "fp64"}, 2, "--dtype: 'fp64' is not one of fp32,bf16"},
    };
    for (size_t i = 0; i < GV_ARRAY_LEN(bad); i++) {
        memset(&e, 0, sizeof e);
        r = args_parse(specs, 5, bad[i].argc, bad[i].argv, NULL, 0, NULL, &e);
        t_check(r == GV_ERR_INPUT && !strcmp(e.msg, bad[i].want), "args: bad input rejected", "'%s' -> '%s'",
                bad[i].argv[0], e.msg);
    }
    char *help[] = {"--help"};
    t_check(args_parse(specs, 5, 1, help, NULL, 0, NULL, &e) == ARGS_HELP, "args: --help", "returns ARGS_HELP");
}

static void test_stats(void)
{
    double x[] = {5, 1, 4, 2, 3};
    gv_stats s;
    gv_stats_compute(x, 5, &s);
    t_check(s.min == 1 && s.max == 5 && s.median == 3 && fabs(s.mean - 3) < 1e-15 && fabs(s.stddev - sqrt(2.5)) < 1e-12,
            "stats: five values", "min %g median %g max %g mean %g sd %g", s.min, s.median, s.max, s.mean, s.stddev);
    double y[] = {4, 1, 3, 2};
    t_check(gv_median(y, 4) == 2.5, "stats: even median", "median of 4,1,3,2 = %g (want 2.5)", gv_median(y, 4));
    double z[100];
    for (int i = 0; i < 100; i++)
        z[i] = 100 - i; /* 100..1 */
    double p99 = gv_quantile(z, 100, 0.99), p0 = gv_quantile(z, 100, 0), p1 = gv_quantile(z, 100, 1);
    t_check(fabs(p99 - 99.01) < 1e-9 && p0 == 1 && p1 == 100, "stats: quantiles",
            "of 1..100: p99 %g (want 99.01), q0 %g (want 1), q1 %g (want 100)", p99, p0, p1);
}

static void test_atomic(void)
{
    char dir[] = "/tmp/gvtestXXXXXX";
    if (!mkdtemp(dir)) {
        t_check(0, "atomic write", "mkdtemp failed");
        return;
    }
    char path[256];
    snprintf(path, sizeof path, "%s/out.bin", dir);
    gv_err e;
    int s1 = gv_write_file_atomic(path, "hello", 5, &e);
    int s2 = gv_write_file_atomic(path, "world!", 6, &e);
    uint8_t *d = NULL;
    size_t n = 0;
    int s3 = gv_read_file(path, 0, &d, &n, &e);
    t_check(s1 == GV_OK && s2 == GV_OK && s3 == GV_OK && n == 6 && !memcmp(d, "world!", 6), "atomic write: replace",
            "read back %zu bytes '%.*s'", n, (int)n, d ? (char *)d : "");
    free(d);
    char bad[300];
    snprintf(bad, sizeof bad, "%s/no/such/dir/x", dir);
    int s4 = gv_write_file_atomic(bad, "x", 1, &e);
    t_check(s4 == GV_ERR_ENV && strstr(e.msg, bad), "atomic write: bad directory", "%s", e.msg);
    int s5 = gv_read_file(bad, 0, &d, &n, &e);
    t_check(s5 == GV_ERR_INPUT && strstr(e.msg, "cannot open"), "read file: missing", "%s", e.msg);
    unlink(path);
    rmdir(dir);
}

static void test_hash_rng(void)
{
    /* XXH3-64 of the empty input is a published constant of the algorithm. */
    uint64_t h = gv_hash64("", 0);
    t_check(h == 0x2d06800538d394c2ull, "hash: XXH3 empty input", "%016llx (want 2d06800538d394c2)",
            (unsigned long long)h);
    gv_hasher *st = gv_hasher_new();
    gv_hasher_update(st, "hello ", 6);
    gv_hasher_update(st, "world", 5);
    uint64_t a = gv_hasher_digest(st), b = gv_hash64("hello world", 11);
    gv_hasher_free(st);
    t_check(a == b, "hash: streaming equals one-shot", "%016llx vs %016llx", (unsigned long long)a, (unsigned long long)b);
    gv_rng r1, r2;
    gv_rng_seed(&r1, 42);
    gv_rng_seed(&r2, 42);
    int same = 1;
    double sum = 0, sum2 = 0;
    for (int i = 0; i < 100000; i++) {
        double u = gv_rng_normal(&r1);
        same &= u == gv_rng_normal(&r2);
        sum += u;
        sum2 += u * u;
    }
    double mean = sum / 100000, var = sum2 / 100000 - mean * mean;
    t_check(same && fabs(mean) < 0.02 && fabs(var - 1) < 0.02, "rng: normal deviates", "reproducible=%d mean %.4f var %.4f",
            same, mean, var);
}

/* gv_json_num and gv_json_str, the one way a record's fields are read: a missing field or one
 * of another type gives NAN or the caller's default (NULL included). */
static void test_json_fields(void)
{
    cJSON *o = cJSON_Parse("{\"n\": 2.5, \"s\": \"cpu\", \"z\": null}");
    double n = gv_json_num(o, "n"), ms = gv_json_num(o, "s"), mz = gv_json_num(o, "z"), mx = gv_json_num(o, "x");
    t_check(n == 2.5 && isnan(ms) && isnan(mz) && isnan(mx) && isnan(gv_json_num(NULL, "n")), "json: numbers",
            "n %g, a string %g, null %g, missing %g, no object %g (want 2.5 then NAN)", n, ms, mz, mx,
            gv_json_num(NULL, "n"));
    const char *s = gv_json_str(o, "s", NULL), *sn = gv_json_str(o, "n", "?"), *sx = gv_json_str(o, "x", NULL);
    t_check(s && !strcmp(s, "cpu") && !strcmp(sn, "?") && !sx && !strcmp(gv_json_str(o, "z", ""), ""), "json: strings",
            "s \"%s\", a number \"%s\", missing %s, null \"%s\" (want cpu, then the default: ?, NULL, \"\")", s ? s : "NULL",
            sn, sx ? sx : "NULL", gv_json_str(o, "z", ""));
    cJSON_Delete(o);
}

int main(void)
{
    test_args();
    test_stats();
    test_atomic();
    test_hash_rng();
    test_json_fields();
    return t_done();
}
