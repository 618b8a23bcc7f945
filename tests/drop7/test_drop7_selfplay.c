/* test_drop7_selfplay.c: self-play's evaluation calls (drop7_agent.c) against a stand-in
 * network (a trainer backend of this file whose answers are a hash of the positions, free of
 * any allocation of its own), so that what is counted is the agent's part alone:
 *   - no allocation per evaluation call: malloc, calloc and realloc of the whole program
 *     are counted (this file defines them, forwarding to the C library's; under a sanitizer,
 *     the sanitizer's allocation hook counts), and the gaps
 *     between two calls that allocated anything must be few (the sample store doubling,
 *     a chunk handed out), not one per call;
 *   - the freed slots refilled across chunks: the same games in chunks of 4 and in one
 *     chunk make the same calls with the same batches (the chunk no longer drains them);
 *   - the padding steps (GV_SELFPLAY_PAD=steps): every batch is one of the steps of
 *     drop7_agent.c, and the games, scores and samples are those of the unpadded run; the
 *     trainer is pinned to the slots' batch while the padded games run (nn_trainer_pin_batch)
 *     and unpinned after them, and not pinned at all without padding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/hd.h"
#include "drop7/drop7_agent.h"
#include "nn/nn_backend.h"

/* ---- counted allocation ---------------------------------------------------------------------
 * Plain builds: this file defines malloc, calloc and realloc, forwarding to glibc's own entry
 * points. Under AddressSanitizer or ThreadSanitizer that would bypass the sanitizer's allocator
 * (memory it hands out, from strdup say, would come back to glibc's free), so there the
 * sanitizer's allocation hook (__sanitizer_malloc_hook) counts instead: every allocation,
 * through any entry point. */
static volatile long allocs;
#if GV_SANITIZED
/* the sanitizers call this (a weak symbol of theirs) after every allocation */
void __sanitizer_malloc_hook(const volatile void *p, size_t n);
void __sanitizer_malloc_hook(const volatile void *p, size_t n)
{
    (void)p, (void)n;
    allocs++;
}
#else
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t k);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

void *malloc(size_t n)
{
    allocs++;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t k)
{
    allocs++;
    return __libc_calloc(n, k);
}
void *realloc(void *p, size_t n)
{
    allocs++;
    return __libc_realloc(p, n);
}
void free(void *p)
{
    __libc_free(p);
}
#endif

/* ---- the stand-in network ----------------------------------------------------------------- */
enum { MAXCALLS = 1 << 20 };
typedef struct {
    const nn_batch *b;
    long calls;
    int *n;              /* (MAXCALLS) batch of each call */
    long alloc_gaps;     /* calls after which something was allocated before the next one */
    long last_allocs;    /* the count when the previous call returned (-1: none yet) */
    long padded;         /* positions of the padding (no cell set, constants 0) */
    int pin;             /* the batch pinned now (nn_trainer_pin_batch; 0: none) */
    long pin_calls;      /* pin_batch calls */
    long pinned_calls;   /* evaluation calls made while pinned */
    int pinned_to;       /* the last batch pinned (not 0) */
} fake;

static gv_status f_set_batch(nn_trainer *t, const nn_batch *b, gv_err *err)
{
    fake *f = (fake *)t->impl;
    (void)err;
    if (f->last_allocs >= 0 && allocs != f->last_allocs)
        f->alloc_gaps++;
    f->b = b;
    return GV_OK;
}

static gv_status f_infer(nn_trainer *t, double *logits, double *value, gv_err *err)
{
    fake *f = (fake *)t->impl;
    (void)err;
    for (int i = 0; i < f->b->n; i++) {
        uint64_t h = 1469598103934665603ull;
        int empty = f->b->consts[2 * i] == 0 && f->b->consts[2 * i + 1] == 0;
        for (int c = 0; c < NN_CELLS; c++) {
            h = (h ^ f->b->cells[(size_t)i * NN_CELLS + c]) * 1099511628211ull;
            empty &= f->b->cells[(size_t)i * NN_CELLS + c] == NN_NO_PLANE;
        }
        f->padded += empty;
        for (int a = 0; a < NN_POLICY; a++)
            logits[(size_t)i * NN_POLICY + a] = (double)((h >> (8 * a)) & 255) / 64.0;
        value[i] = (double)(h >> 56) / 256.0;
    }
    if (f->calls < MAXCALLS)
        f->n[f->calls] = f->b->n;
    f->pinned_calls += f->pin != 0;
    f->calls++;
    f->last_allocs = allocs;
    return GV_OK;
}

static gv_status f_none(nn_trainer *t, gv_err *err)
{
    (void)t, (void)err;
    return GV_OK;
}

static gv_status f_pin_batch(nn_trainer *t, int n, gv_err *err)
{
    fake *f = (fake *)t->impl;
    (void)err;
    f->pin = n;
    f->pin_calls++;
    if (n)
        f->pinned_to = n;
    return GV_OK;
}

static void f_destroy(nn_trainer *t)
{
    free(t);
}

static const nn_trainer_ops fake_ops = {"fake", NULL, NULL, f_set_batch, NULL, NULL, NULL, f_none, NULL, f_destroy,
                                        NULL, f_infer, NULL, NULL, f_pin_batch};

typedef drop7_data got; /* the samples handed out, chunk after chunk */

static gv_status keep_chunk(void *ctx, const drop7_agent_result *part, gv_err *err)
{
    drop7_data d = {.n = part->n, .planes = part->planes, .policy = part->policy, .value = part->value,
                    .games = part->ngames};
    (void)err;
    drop7_data_append((got *)ctx, &d);
    return GV_OK;
}

/* Plays games games, parallel side by side, in chunks of chunk, into r (scores), g (the
 * samples as handed out) and f (the calls). */
static int play(nn_trainer *t, fake *f, int games, int parallel, int chunk, drop7_agent_result *r, got *g)
{
    drop7_agent_opts o = {0};
    drop7_rules_init(&o.rules, DROP7_MODE_NORMAL);
    o.policy = DROP7_POLICY_NET, o.net = t, o.sims = 6, o.ngames = games, o.parallel = parallel, o.seed = 11;
    o.dir_alpha = 0.3, o.dir_eps = 0.25, o.temp_moves = 10, o.record = 1, o.max_moves = 60;
    o.chunk = chunk, o.on_chunk = keep_chunk, o.chunk_ctx = g;
    f->calls = 0, f->alloc_gaps = 0, f->last_allocs = -1, f->padded = 0, f->pin_calls = 0, f->pinned_calls = 0, f->pinned_to = 0;
    memset(g, 0, sizeof *g);
    gv_err err = {{0}};
    gv_status st = drop7_agent_play(&o, r, &err);
    if (st != GV_OK)
        printf("# drop7_agent_play: %s\n", err.msg);
    return st == GV_OK;
}

static int same_samples(const got *a, const got *b)
{
    return a->n == b->n && !memcmp(a->planes, b->planes, sizeof(float) * DROP7_PLANE_FLOATS * (size_t)a->n) &&
           !memcmp(a->policy, b->policy, sizeof(float) * DROP7_N * (size_t)a->n) &&
           !memcmp(a->value, b->value, sizeof(float) * (size_t)a->n);
}

static void got_free(got *g)
{
    drop7_data_free(g);
}

int main(void)
{
    nn_config cfg = {8, 0, NN_NORM_GROUP};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_trainer_opts to = {.dtype = NN_FP32, .max_batch = 64, .infer_only = 1};
    fake f = {0};
    f.n = calloc(MAXCALLS, sizeof(int));
    nn_trainer *t = nn_trainer_new(&fake_ops, &L, &to, &f);
    unsetenv("GV_SELFPLAY_PAD");
    drop7_agent_result r1, r2, r3;
    got g1, g2, g3;

    /* allocation per call, and the chunks: 40 games, 8 side by side, chunks of 4 and one chunk */
    if (play(t, &f, 40, 8, 4, &r1, &g1)) {
        long calls = f.calls, gaps = f.alloc_gaps;
        int *n1 = malloc(sizeof(int) * (size_t)calls);
        memcpy(n1, f.n, sizeof(int) * (size_t)calls);
        t_check(gaps <= 2 * 10 + 16, "no allocation per evaluation call",
                "%ld calls (%ld positions); something was allocated between two calls %ld times (allowed: 2 per chunk "
                "handed out, 10 chunks, + 16 doublings of the sample store)", calls, r1.evals, gaps);
        if (play(t, &f, 40, 8, 40, &r2, &g2)) {
            int same = f.calls == calls && !memcmp(f.n, n1, sizeof(int) * (size_t)calls);
            t_check(same, "chunks do not drain the batch",
                    "chunks of 4 games: %ld calls, one chunk of 40: %ld calls, the batches %s (8 slots refilled "
                    "across the chunks)", calls, f.calls, same ? "identical" : "DIFFER");
            int scores = !memcmp(r1.score, r2.score, sizeof(int64_t) * 40);
            t_check(scores && g1.n == g2.n, "chunks play the same games", "40 scores %s, %ld and %ld samples",
                    scores ? "identical" : "DIFFER", g1.n, g2.n);
            drop7_agent_result_free(&r2);
            got_free(&g2);
        }
        long full = 0, lastfull = -1;
        for (long i = 0; i < calls; i++)
            if (n1[i] == 8)
                full++, lastfull = i;
        t_check(f.pin_calls == 0 && f.pinned_calls == 0, "no pin without padding",
                "unpadded run: %ld pin_batch calls, %ld of %ld evaluation calls pinned", f.pin_calls, f.pinned_calls,
                f.calls);
        t_check(full > calls / 2, "the batch stays full", "%ld of %ld calls had all 8 slots' leaves (the last at call "
                "%ld: the tail of the last games after it)", full, calls, lastfull);
        free(n1);

        /* the padding steps: 40 games, 64 slots would be one chunk of 40 slots; use 24 */
        setenv("GV_SELFPLAY_PAD", "steps", 1);
        if (play(t, &f, 40, 8, 4, &r3, &g3)) {
            int ok = 1;
            for (long i = 0; i < f.calls && i < MAXCALLS; i++)
                ok &= f.n[i] == 8; /* 8 slots: m = 8, every step is 8 */
            int same = same_samples(&g1, &g3) && !memcmp(r1.score, r3.score, sizeof(int64_t) * 40);
            t_check(ok && same && f.padded > 0, "padded batches", "8 slots: %ld calls all of 8 (%s), %ld padding "
                    "positions; games and samples %s the unpadded run's", f.calls, ok ? "yes" : "NO", f.padded,
                    same ? "identical to" : "DIFFER from");
            drop7_agent_result_free(&r3);
            got_free(&g3);
        }
        unsetenv("GV_SELFPLAY_PAD");
        drop7_agent_result_free(&r1);
        got_free(&g1);
    }

    /* the steps at 64 slots: 8, 16, 24, ..., 64 */
    setenv("GV_SELFPLAY_PAD", "steps", 1);
    if (play(t, &f, 100, 64, 100, &r1, &g1)) {
        int ok = 1, sizes[65] = {0}, nsizes = 0;
        for (long i = 0; i < f.calls && i < MAXCALLS; i++) {
            ok &= f.n[i] % 8 == 0 && f.n[i] >= 8 && f.n[i] <= 64;
            nsizes += !sizes[f.n[i]];
            sizes[f.n[i]] = 1;
        }
        t_check(ok && nsizes <= 8 && r1.sizes == nsizes, "padding steps at 64 slots",
                "%ld calls, batches all multiples of 8 up to 64: %s; %d sizes (the result says %d)", f.calls,
                ok ? "yes" : "NO", nsizes, r1.sizes);
        t_check(f.pinned_calls == f.calls && f.pinned_to == 64 && f.pin_calls == 2 && f.pin == 0,
                "padded batches pinned to the slots",
                "%ld of %ld evaluation calls made pinned (to %d; 64 slots), %ld pin_batch calls, pinned after the "
                "games: %d", f.pinned_calls, f.calls, f.pinned_to, f.pin_calls, f.pin);
        drop7_agent_result_free(&r1);
        got_free(&g1);
    }
    { /* the network's expectimax search evaluates each distinct leaf of a tree once: the same
       * games, samples and values as evaluating every leaf (the plain reference) */
        drop7_agent_result re = {0}, rd = {0};
        got ge, gd;
        int ok = 1;
        for (int every = 1; every >= 0 && ok; every--) {
            drop7_agent_opts o = {0};
            drop7_rules_init(&o.rules, DROP7_MODE_NORMAL);
            drop7_expecti_opts eo;
            drop7_expecti_defaults(&eo, 1);
            eo.samples = 3;
            o.policy = DROP7_POLICY_NET_EXPECTI, o.expecti = &eo, o.net = t, o.ngames = 6, o.parallel = 3;
            o.seed = 21, o.record = 1, o.max_moves = 40, o.every_leaf = every;
            o.value_weight = 0.5, o.heuristic_weight = 1, o.weights_set = 1;
            o.chunk = 3, o.on_chunk = keep_chunk, o.chunk_ctx = every ? &ge : &gd;
            memset(every ? &ge : &gd, 0, sizeof ge);
            gv_err err = {{0}};
            if (drop7_agent_play(&o, every ? &re : &rd, &err) != GV_OK)
                printf("# drop7_agent_play: %s\n", err.msg), ok = 0;
        }
        int same = ok && !memcmp(re.score, rd.score, sizeof(int64_t) * 6) && same_samples(&ge, &gd);
        t_check(same && rd.leaves == re.leaves && re.evals == re.leaves && rd.evals < rd.leaves,
                "expectimax leaves deduplicated",
                "6 games, expectimax1 K3 over the fake network: scores and %ld samples %s evaluating every leaf; "
                "%ld leaves, %ld evaluated (every leaf: %ld)", gd.n, same ? "equal to" : "DIFFER FROM", rd.leaves,
                rd.evals, re.evals);
        drop7_agent_result_free(&re);
        drop7_agent_result_free(&rd);
        got_free(&ge);
        got_free(&gd);
    }
    setenv("GV_SELFPLAY_PAD", "sometimes", 1);
    {
        drop7_agent_opts o = {0};
        drop7_rules_init(&o.rules, DROP7_MODE_NORMAL);
        o.policy = DROP7_POLICY_NET, o.net = t, o.ngames = 1, o.parallel = 1;
        gv_err err = {{0}};
        gv_status st = drop7_agent_play(&o, &r1, &err);
        t_check(st == GV_ERR_INPUT, "GV_SELFPLAY_PAD checked", "refused: %s", err.msg);
    }
    unsetenv("GV_SELFPLAY_PAD");
    nn_trainer_destroy(t);
    nn_layout_free(&L);
    free(f.n);
    return t_done();
}
