/* test_drop7_speed.c: how fast Drop7 games are played, as information (no timing limits):
 * random-player games per second on one CPU thread and on GV_DROP7_SPEED_THREADS threads
 * (default 2), the greedy player and the plain reference for comparison, and the GPU when
 * one can be used. Each figure is the best and the median of GV_DROP7_SPEED_REPEATS timed
 * runs (default 3) after one untimed warm-up run. The one check: the records of every
 * thread count and of the GPU equal those of one thread. GV_DROP7_SPEED_GAMES sets the
 * CPU batch (default 4000 normal-mode games), GV_DROP7_SPEED_GPU_GAMES the GPU batch
 * (default 262144). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/gv.h"
#include "core/rng.h"
#include "drop7/drop7.h"
#include "drop7/drop7_game.h"
#include "drop7/drop7_gpu.h"

#define MAXM DROP7_DEFAULT_MAX_MOVES

static long env_long(const char *name, long def)
{
    const char *s = getenv(name);
    return s && *s ? strtol(s, NULL, 10) : def;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct {
    const drop7_rules *r;
    int player, threads, ref;
    drop7_gpu *gpu;
} job;

static void run(const job *j, const uint64_t *seeds, int n, drop7_record *out)
{
    if (j->gpu) {
        gv_err err;
        if (drop7_gpu_play(j->gpu, j->r, j->player, seeds, n, MAXM, out, NULL, &err) != GV_OK)
            printf("    GPU: %s\n", err.msg);
    } else if (j->ref) {
        for (int i = 0; i < n; i++)
            drop7_ref_play(j->r, j->player, seeds[i], MAXM, &out[i], NULL);
    } else {
        drop7_game_play_batch(j->r, j->player, seeds, n, MAXM, j->threads, out, NULL);
    }
}

/* Times job j on n games; prints games/s and moves/s (best and median). */
static void measure(const char *label, const job *j, const uint64_t *seeds, int n, drop7_record *out, int reps)
{
    double t[16];
    run(j, seeds, n, out); /* warm-up */
    for (int k = 0; k < reps; k++) {
        double t0 = gv_now();
        run(j, seeds, n, out);
        t[k] = gv_now() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    long moves = 0;
    for (int i = 0; i < n; i++)
        moves += out[i].nmoves;
    printf("info drop7 speed: %-44s %8d games %10ld moves: best %11.0f games/s (%.3g moves/s), median %11.0f "
           "games/s\n", label, n, moves, n / t[0], moves / t[0], n / t[reps / 2]);
    fflush(stdout);
}

int main(void)
{
    int n = (int)env_long("GV_DROP7_SPEED_GAMES", 4000), nthr = (int)env_long("GV_DROP7_SPEED_THREADS", 2);
    int reps = (int)env_long("GV_DROP7_SPEED_REPEATS", 3), ngpu = (int)env_long("GV_DROP7_SPEED_GPU_GAMES", 262144);
    if (reps < 1 || reps > 16)
        reps = 3;
    int nmax = n > ngpu ? n : ngpu;
    uint64_t *seeds = malloc((size_t)nmax * sizeof *seeds);
    drop7_record *one = malloc((size_t)nmax * sizeof *one), *many = malloc((size_t)nmax * sizeof *many);
    if (!seeds || !one || !many) {
        t_check(0, "drop7 speed", "out of memory for %d games", nmax);
        return t_done();
    }
    for (int i = 0; i < nmax; i++)
        seeds[i] = 1000003ull * (uint64_t)i + 17; /* fixed games, so runs compare */
    printf("info drop7 speed: %d CPU%s usable here, load average figures from /proc/loadavg: ", gv_cpu_count(),
           gv_cpu_count() == 1 ? "" : "s");
    FILE *f = fopen("/proc/loadavg", "r");
    char la[128] = "?";
    if (f) {
        if (!fgets(la, sizeof la, f))
            la[0] = 0;
        fclose(f);
    }
    printf("%s", la[0] ? la : "?\n");

    drop7_rules normal, hard;
    drop7_rules_normal(&normal);
    drop7_rules_hardcore(&hard);
    char label[96];
    job j1 = {&normal, DROP7_PLAYER_RANDOM, 1, 0, NULL}, jn = j1;
    jn.threads = nthr;
    measure("normal, random player, 1 thread", &j1, seeds, n, one, reps);
    snprintf(label, sizeof label, "normal, random player, %d threads", nthr);
    measure(label, &jn, seeds, n, many, reps);
    long bad = 0;
    for (int i = 0; i < n; i++) {
        char msg[200];
        bad += drop7_record_diff(&one[i], &many[i], msg, sizeof msg);
    }
    t_check(bad == 0, "drop7 speed runs agree", "normal random play: %d threads == 1 thread on %d records, %ld differ",
            nthr, n, bad);

    job jh = {&hard, DROP7_PLAYER_RANDOM, 1, 0, NULL};
    measure("hardcore, random player, 1 thread", &jh, seeds, n, many, reps);
    job jg = {&normal, DROP7_PLAYER_GREEDY, 1, 0, NULL};
    measure("normal, greedy player, 1 thread", &jg, seeds, n / 4, many, reps);
    job jr = {&normal, DROP7_PLAYER_RANDOM, 1, 1, NULL};
    measure("normal, random player, reference (1 thread)", &jr, seeds, n / 4, many, reps);

    gv_err err;
    drop7_gpu *gpu;
    if (drop7_gpu_open(0, &gpu, &err) != GV_OK) {
        printf("info drop7 speed: no GPU figures: %s\n", err.msg);
    } else {
        job jgpu = {&normal, DROP7_PLAYER_RANDOM, 0, 0, gpu};
        snprintf(label, sizeof label, "normal, random player, GPU %s", drop7_gpu_name(gpu));
        measure(label, &jgpu, seeds, ngpu, many, reps);
        drop7_game_play_batch(&normal, DROP7_PLAYER_RANDOM, seeds, ngpu, MAXM, 0, one, NULL);
        bad = 0;
        for (int i = 0; i < ngpu; i++) {
            char msg[200];
            bad += drop7_record_diff(&one[i], &many[i], msg, sizeof msg);
        }
        t_check(bad == 0, "drop7 speed runs agree", "normal random play: GPU == CPU on %d records, %ld differ", ngpu,
                bad);
        jgpu.player = DROP7_PLAYER_GREEDY;
        snprintf(label, sizeof label, "normal, greedy player, GPU %s", drop7_gpu_name(gpu));
        measure(label, &jgpu, seeds, ngpu / 4, many, reps);
        jgpu.r = &hard;
        jgpu.player = DROP7_PLAYER_RANDOM;
        snprintf(label, sizeof label, "hardcore, random player, GPU %s", drop7_gpu_name(gpu));
        measure(label, &jgpu, seeds, ngpu, many, reps);
        j1.threads = 0;
        measure("normal, random player, all CPU threads", &j1, seeds, ngpu / 4, many, reps);
        drop7_gpu_close(gpu);
    }
    free(seeds), free(one), free(many);
    return t_done();
}
