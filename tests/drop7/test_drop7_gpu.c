/* test_drop7_gpu.c: Drop7 games on the GPU (drop7_gpu.h) against the fast game on CPU
 * threads, the same seeds, both players and both modes: every record and every column
 * played must be identical (the CPU batch is itself checked against the reference by
 * test_drop7_sim). One SKIP line where no GPU can be used. GV_DROP7_GPU_GAMES games per
 * mode and player (default 4096); GV_SEED fixes the seeds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/rng.h"
#include "drop7/drop7.h"
#include "drop7/drop7_game.h"
#include "drop7/drop7_gpu.h"

#define MAXM 3000

int main(void)
{
    const char *s = getenv("GV_SEED"), *ng = getenv("GV_DROP7_GPU_GAMES");
    uint64_t seed = s ? strtoull(s, NULL, 10) : gv_rng_fresh_seed();
    long n = ng && *ng ? strtol(ng, NULL, 10) : 4096;
    gv_err err = {{0}};
    drop7_gpu *gpu;
    if (drop7_gpu_open(0, &gpu, &err) != GV_OK) {
        t_skip_gpu("drop7 GPU == CPU", "no GPU here: %s", err.msg);
        return t_done();
    }
    printf("drop7 gpu: %s, seed %llu, %ld games per mode and player\n", drop7_gpu_name(gpu),
           (unsigned long long)seed, n);
    uint64_t *seeds = malloc((size_t)n * sizeof *seeds);
    drop7_record *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    uint8_t *ma = malloc((size_t)n * MAXM), *mb = malloc((size_t)n * MAXM);
    if (!seeds || !a || !b || !ma || !mb) {
        t_check(0, "drop7 GPU == CPU", "out of host memory for %ld games", n);
        return t_done();
    }
    gv_rng g;
    gv_rng_seed(&g, seed);
    for (long i = 0; i < n; i++)
        seeds[i] = gv_rng_u64(&g);
    for (int mode = 0; mode < 2; mode++)
        for (int player = 0; player < 2; player++) {
            drop7_rules r;
            drop7_rules_init(&r, (drop7_mode)mode);
            if (mode == 1 && player == 1) /* the optional rules too, on one pairing */
                r.hit_each_neighbour = 0, r.rise_chain_continues = 1;
            drop7_game_play_batch(&r, player, seeds, (int)n, MAXM, 0, a, ma);
            memset(b, 0xa5, (size_t)n * sizeof *b);
            if (drop7_gpu_play(gpu, &r, player, seeds, (int)n, MAXM, b, mb, &err) != GV_OK) {
                t_check(0, "drop7 GPU == CPU", "%s", err.msg);
                continue;
            }
            long bad = 0, first = -1, moves = 0;
            char msg[256] = "", one[256];
            for (long i = 0; i < n; i++) {
                moves += a[i].nmoves;
                int d = drop7_record_diff(&a[i], &b[i], one, sizeof one);
                if (!d && memcmp(ma + i * MAXM, mb + i * MAXM, (size_t)a[i].nmoves) != 0) {
                    d = 1;
                    snprintf(one, sizeof one, "game %ld: the columns played differ", i);
                }
                bad += d;
                if (d && first < 0) {
                    first = i;
                    snprintf(msg, sizeof msg, "%s", one);
                }
            }
            t_check(bad == 0, "drop7 GPU == CPU", "%s, %s player%s: %ld games, %ld moves, %ld records differ%s%s",
                    mode ? "hardcore" : "normal", player ? "greedy" : "random",
                    mode == 1 && player == 1 ? " (one hit per step, rise chain continues)" : "", n, moves, bad,
                    bad ? "; first: " : "", bad ? msg : "");
        }
    drop7_gpu_close(gpu);
    free(seeds), free(a), free(b), free(ma), free(mb);
    return t_done();
}
