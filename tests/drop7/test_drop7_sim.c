/* test_drop7_sim.c: batched Drop7 simulation (drop7_sim_batch). The fast game on CPU
 * threads against the plain reference playing the same seeds, both players, both modes:
 * every game record (score, moves and their hash, final board, levels, chains, end)
 * must be identical, and so must the columns played. The CPU batch must not depend on the
 * thread count, and a record's moves replayed on the reference from its seed must give
 * the record again (a game is its seed and its moves). GV_DROP7_SIM_GAMES games per mode
 * and player (default 1000); GV_SEED fixes the seeds (else fresh, printed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/rng.h"
#include "drop7/drop7.h"

#define MAXM 3000

static long env_long(const char *name, long def)
{
    const char *s = getenv(name);
    return s && *s ? strtol(s, NULL, 10) : def;
}

/* Index of the first differing record (and the message), or -1. */
static long first_diff(const drop7_record *a, const drop7_record *b, const uint8_t *ma, const uint8_t *mb, long n,
                       char *msg, size_t len)
{
    for (long i = 0; i < n; i++) {
        if (drop7_record_diff(&a[i], &b[i], msg, len))
            return i;
        if (ma && mb && memcmp(ma + i * MAXM, mb + i * MAXM, (size_t)a[i].nmoves) != 0) {
            snprintf(msg, len, "seed %llu: the columns played differ", (unsigned long long)a[i].seed);
            return i;
        }
    }
    return -1;
}

static void replay_check(const drop7_rules *r, const drop7_record *rec, const uint8_t *moves, long n, const char *label)
{
    long bad = 0;
    for (long i = 0; i < n; i++) {
        drop7_pos p;
        drop7_ref_new(r, rec[i].seed, &p);
        uint64_t h = DROP7_FNV_OFFSET;
        int ok = 1;
        for (int k = 0; k < rec[i].nmoves && ok; k++) {
            int x = moves[i * MAXM + k];
            ok = drop7_ref_legal(&p, x);
            if (ok) {
                drop7_ref_step(r, &p, x);
                h = (h ^ (uint64_t)x) * DROP7_FNV_PRIME;
            }
        }
        int end = p.over ? p.over : DROP7_END_CAP;
        ok = ok && h == rec[i].moves_hash && p.score == rec[i].score && end == rec[i].end &&
             memcmp(p.cell, rec[i].board, DROP7_CELLS) == 0 && p.next == rec[i].next;
        bad += !ok;
    }
    t_check(bad == 0, "drop7 replay", "%s: %ld records replayed from seed and moves on the reference, %ld differ",
            label, n, bad);
}

int main(void)
{
    const char *s = getenv("GV_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 10) : gv_rng_fresh_seed();
    long n = env_long("GV_DROP7_SIM_GAMES", 1000);
    printf("drop7 sim: seed %llu, %ld games per mode and player\n", (unsigned long long)seed, n);
    uint64_t *seeds = malloc((size_t)n * sizeof *seeds);
    drop7_record *ref = malloc((size_t)n * sizeof *ref), *cpu = malloc((size_t)n * sizeof *cpu),
                 *cpu1 = malloc((size_t)n * sizeof *cpu1);
    uint8_t *mref = malloc((size_t)n * MAXM), *mcpu = malloc((size_t)n * MAXM);
    if (!seeds || !ref || !cpu || !cpu1 || !mref || !mcpu) {
        t_check(0, "drop7 sim", "out of memory for %ld games", n);
        return t_done();
    }
    gv_rng g;
    gv_rng_seed(&g, seed);
    for (long i = 0; i < n; i++)
        seeds[i] = gv_rng_u64(&g);

    gv_err err = {{0}};
    for (int mode = 0; mode < 2; mode++)
        for (int player = 0; player < 2; player++) {
            drop7_rules r;
            drop7_rules_init(&r, (drop7_mode)mode);
            char label[64];
            snprintf(label, sizeof label, "%s, %s player", mode ? "hardcore" : "normal", player ? "greedy" : "random");
            drop7_sim_opts o_ref = {DROP7_DEVICE_REF, 0, 0, MAXM}, o_cpu = {DROP7_DEVICE_CPU, 0, 0, MAXM},
                           o_cpu1 = {DROP7_DEVICE_CPU, 1, 0, MAXM};
            gv_status st = drop7_sim_batch(&r, player, seeds, (int)n, &o_ref, ref, mref, &err);
            if (st == GV_OK)
                st = drop7_sim_batch(&r, player, seeds, (int)n, &o_cpu, cpu, mcpu, &err);
            if (st == GV_OK)
                st = drop7_sim_batch(&r, player, seeds, (int)n, &o_cpu1, cpu1, NULL, &err);
            if (st != GV_OK) {
                t_check(0, "drop7 sim", "%s: %s", label, err.msg);
                continue;
            }
            char msg[256] = "";
            long moves = 0, capped = 0, clears = 0, levels = 0;
            int longest = 0, maxc = 0;
            for (long i = 0; i < n; i++) {
                moves += ref[i].nmoves;
                capped += ref[i].end == DROP7_END_CAP;
                clears += ref[i].clears;
                levels += ref[i].level;
                longest = ref[i].nmoves > longest ? ref[i].nmoves : longest;
                maxc = ref[i].max_chain > maxc ? ref[i].max_chain : maxc;
            }
            long d = first_diff(ref, cpu, mref, mcpu, n, msg, sizeof msg);
            t_check(d < 0, "drop7 CPU batch == reference",
                    "%s: %ld games, %ld moves (mean %.1f, longest %d, %ld capped at %d), mean level %.2f, longest chain "
                    "%d, %ld board clears: records and moves identical%s%s", label, n, moves,
                    (double)moves / n, longest, capped, MAXM, (double)levels / n, maxc, clears, d < 0 ? "" : "; ",
                    msg);
            d = first_diff(cpu, cpu1, NULL, NULL, n, msg, sizeof msg);
            t_check(d < 0, "drop7 CPU batch, threads", "%s: all threads == 1 thread on %ld records%s%s", label, n,
                    d < 0 ? "" : "; ", msg);
            replay_check(&r, cpu, mcpu, n < 200 ? n : 200, label);
        }

    /* the API's refusals */
    drop7_rules r;
    drop7_rules_normal(&r);
    drop7_sim_opts o = {DROP7_DEVICE_CPU, 0, 0, 10};
    int bad_player = drop7_sim_batch(&r, 7, seeds, 1, &o, cpu, NULL, &err) == GV_ERR_INPUT;
    for (int c = 0; c < DROP7_CODES; c++)
        r.next_weight[c] = 0;
    int bad_rules = drop7_sim_batch(&r, 0, seeds, 1, &o, cpu, NULL, &err) == GV_ERR_INPUT;
    char rules_msg[GV_ERRLEN];
    snprintf(rules_msg, sizeof rules_msg, "%s", err.msg);
    t_check(bad_player && bad_rules, "drop7 sim refusals", "player 7 and all-zero next weights rejected with "
            "GV_ERR_INPUT (%s)", rules_msg);
    free(seeds), free(ref), free(cpu), free(cpu1), free(mref), free(mcpu);
    return t_done();
}
