/* drop7_bench.h: the engine of `gpuvet bench drop7`: batched Drop7 games on CPU threads
 * and on the GPU through the one measurement harness (bench/harness.h), per device,
 * player (random, greedy) and batch size (games per call). One call plays a whole batch
 * of games from fixed seeds; a timed run makes enough calls to last min_time; the rate is games/s (moves/s beside it, from the records).
 * Every GPU configuration's records are compared with the CPU's for the same seeds before
 * any timing: a difference is GV_ERR_WRONG (exit 1). Record keys (docs/RECORD.md):
 * "bench_drop7" entries {device, player, mode, batch, threads, games_per_s_*, calls, moves (per call),
 * moves_per_s_median, records_match_cpu, speedup_vs_cpu} and "bench_drop7_crossover"
 * {device, player, batches_compared, gpu_faster_from_batch}. */
#ifndef GV_DROP7_DROP7_BENCH_H
#define GV_DROP7_DROP7_BENCH_H

#include <cJSON.h>

#include "dev/dev.h"
#include "drop7/drop7.h"
#include "sys/telemetry.h"

#define DROP7_BENCH_MAX 32

typedef struct {
    const dev_id *devs;
    int ndev;
    drop7_mode mode;
    int players[2], nplayers;           /* DROP7_PLAYER_* */
    int batches[DROP7_BENCH_MAX], nbatches;
    int repeats;
    double min_time;                    /* seconds a timed run lasts at least (calls per run) */
    int threads;                        /* CPU threads, 0 = all */
    uint64_t seed;                      /* game i of a batch plays seed + i */
    gv_telemetry *tel;
} drop7_bench_opts;

/* Measures every (device, player, batch), fills rec. GV_ERR_WRONG when a GPU's records
 * differ from the CPU's (the message names the first difference), GV_ERR_ENV when a
 * device cannot be used. */
gv_status drop7_bench_run(const drop7_bench_opts *o, cJSON *rec, gv_err *err);

#endif
