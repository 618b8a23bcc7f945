/* drop7_gpu.cu: Drop7 games on the GPU (see drop7_gpu.h). One thread per game, 128
 * threads a block; each block first copies the rules into shared memory, then every
 * thread plays its game to the end with drop7_game_play (drop7_game.h, the code the
 * host runs) and writes its record, and its moves when asked. Games differ in length,
 * so a warp runs as long as its longest game; that costs less than keeping games in
 * step. Every runtime call is checked, with file and line in the message, and so is
 * every launch. */
#include "dev/gpu_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "core/gv.h"
}
#include "drop7/drop7_env.h"
#include "drop7/drop7_game.h"
#include "drop7/drop7_gpu.h"

#define DROP7_THREADS 128



struct drop7_gpu {
    int device;
    char name[256];
    drop7_rules *d_rules;
    uint64_t *d_seeds;
    drop7_record *d_rec;
    uint8_t *d_moves;
    size_t cap_games, cap_moves; /* games of seeds/records, bytes of moves */
};

__global__ void drop7_k_play(const drop7_rules *rules, int player, const uint64_t *seeds, int n, int max_moves,
                             drop7_record *out, uint8_t *moves)
{
    __shared__ drop7_rules R;
    drop7_rules_to_shared(&R, rules);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    drop7_record rec;
    drop7_game_play(&R, player, seeds[i], max_moves, &rec, moves ? moves + (size_t)i * max_moves : NULL);
    out[i] = rec;
}

extern "C" gv_status drop7_gpu_open(int device, drop7_gpu **out, gv_err *err)
{
    *out = NULL;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return gv_fail(err, GV_ERR_ENV, "GPU: no usable device (%s)",
                       e != cudaSuccess ? cudaGetErrorString(e) : "the runtime sees 0 devices");
    if (device < 0 || device >= count)
        return gv_fail(err, GV_ERR_ENV, "GPU: device %d does not exist (%d device%s)", device, count,
                       count == 1 ? "" : "s");
    GV_GPU_TRY(cudaSetDevice(device), err);
    cudaDeviceProp prop;
    GV_GPU_TRY(cudaGetDeviceProperties(&prop, device), err);
    drop7_gpu *g = (drop7_gpu *)calloc(1, sizeof *g);
    if (!g)
        return gv_fail(err, GV_ERR_ENV, "drop7 GPU: out of host memory");
    g->device = device;
    snprintf(g->name, sizeof g->name, "%s", prop.name);
    e = cudaMalloc((void **)&g->d_rules, sizeof(drop7_rules));
    if (e != cudaSuccess) {
        free(g);
        return gv_fail(err, GV_ERR_ENV, "GPU: cudaMalloc of the rules failed: %s at %s:%d", cudaGetErrorString(e),
                       __FILE__, __LINE__);
    }
    *out = g;
    return GV_OK;
}

/* Grows a device buffer to hold at least need bytes (contents are not kept). */
static gv_status grow(void **buf, size_t *cap, size_t need, gv_err *err)
{
    if (need <= *cap)
        return GV_OK;
    if (*buf)
        GV_GPU_TRY(cudaFree(*buf), err);
    *buf = NULL;
    *cap = 0;
    GV_GPU_TRY(cudaMalloc(buf, need), err);
    *cap = need;
    return GV_OK;
}

extern "C" gv_status drop7_gpu_play(drop7_gpu *g, const drop7_rules *r, int player, const uint64_t *seeds, int ngames,
                                    int max_moves, drop7_record *out, uint8_t *moves, gv_err *err)
{
    gv_status s = drop7_rules_check(r, err);
    if (s != GV_OK)
        return s;
    if (ngames <= 0)
        return GV_OK;
    if (max_moves <= 0)
        return gv_fail(err, GV_ERR_INPUT, "drop7 GPU: max_moves %d must be > 0", max_moves);
    GV_GPU_TRY(cudaSetDevice(g->device), err);
    size_t cap_games = g->cap_games;
    size_t cap_rec = cap_games * sizeof(drop7_record), cap_seed = cap_games * sizeof(uint64_t);
    if ((size_t)ngames > cap_games) {
        if ((s = grow((void **)&g->d_seeds, &cap_seed, (size_t)ngames * sizeof(uint64_t), err)) != GV_OK ||
            (s = grow((void **)&g->d_rec, &cap_rec, (size_t)ngames * sizeof(drop7_record), err)) != GV_OK) {
            g->cap_games = 0; /* a partial grow leaves a buffer we cannot vouch for */
            return s;
        }
        g->cap_games = (size_t)ngames;
    }
    size_t mbytes = moves ? (size_t)ngames * (size_t)max_moves : 0;
    if (moves && (s = grow((void **)&g->d_moves, &g->cap_moves, mbytes, err)) != GV_OK)
        return s;
    GV_GPU_TRY(cudaMemcpy(g->d_rules, r, sizeof *r, cudaMemcpyHostToDevice), err);
    GV_GPU_TRY(cudaMemcpy(g->d_seeds, seeds, (size_t)ngames * sizeof(uint64_t), cudaMemcpyHostToDevice), err);
    unsigned blocks = (unsigned)((ngames + DROP7_THREADS - 1) / DROP7_THREADS);
    drop7_k_play<<<blocks, DROP7_THREADS>>>(g->d_rules, player, g->d_seeds, ngames, max_moves, g->d_rec,
                                             moves ? g->d_moves : NULL);
    GV_GPU_TRY(cudaGetLastError(), err);
    GV_GPU_TRY(cudaDeviceSynchronize(), err);
    GV_GPU_TRY(cudaMemcpy(out, g->d_rec, (size_t)ngames * sizeof(drop7_record), cudaMemcpyDeviceToHost), err);
    if (moves)
        GV_GPU_TRY(cudaMemcpy(moves, g->d_moves, mbytes, cudaMemcpyDeviceToHost), err);
    return GV_OK;
}

extern "C" const char *drop7_gpu_name(const drop7_gpu *g)
{
    return g ? g->name : "";
}

extern "C" void drop7_gpu_close(drop7_gpu *g)
{
    if (!g)
        return;
    (void)cudaSetDevice(g->device);
    gpu_free(g->d_rules, g->d_seeds, g->d_rec, g->d_moves);
    free(g);
}
