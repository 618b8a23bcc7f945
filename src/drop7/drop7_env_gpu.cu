/* drop7_env_gpu.cu: the device Drop7 environment (drop7_env.h). The slots and every output
 * array live in device memory; one thread per slot runs drop7_env.h's steps, the code the
 * host runs. A step is three launches on the legacy default stream (the one PyTorch's
 * DLPack exchange names with 1): a check of every column (the lowest illegal slot by
 * atomicMin), the moves (none when a column was illegal) and nothing else; then the verdict
 * (the illegal slot, the games ended) comes back and the step returns with the device done.
 * A reset or step first waits for all work queued on the GPU (a consumer's too, on any
 * stream), so nothing still reading the arrays sees them change under it. Every runtime call
 * is checked, and every launch. */
#include "dev/gpu_common.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

extern "C" {
#include "core/gv.h"
}
#include "drop7/drop7_env.h"
#include "drop7/drop7_gpu.h"

#define ENV_THREADS 128

/* What a step sends back: the lowest slot with an illegal column (INT_MAX: none), the games
 * that ended. */
typedef struct {
    int bad;
    int ended;
} env_verdict;

struct drop7_env_gpu {
    int device, n, max_moves;
    uint64_t base;
    char name[256];
    drop7_rules rules;         /* host copy */
    drop7_rules *d_rules;
    drop7_slot *d_slots;       /* (n) */
    drop7_record *d_rec;       /* (n) the records of the games that ended in the last step */
    drop7_record *d_cur;       /* (n) scratch: the records of the games in progress */
    int64_t *d_act;            /* (n) the host's columns, copied in */
    env_verdict *d_verdict;
    drop7_env_arrays a;
};

/* The slot's element of every output array. */
static __device__ drop7_slot_out slot_out(const drop7_env_arrays *a, drop7_record *rec, int i)
{
    drop7_slot_out o;
    o.obs = a->obs + (size_t)i * DROP7_PLANE_FLOATS;
    o.final_obs = a->final_obs + (size_t)i * DROP7_PLANE_FLOATS;
    o.mask = a->mask + (size_t)i * DROP7_N;
    o.reward = a->reward + i;
    o.terminated = a->terminated + i;
    o.truncated = a->truncated + i;
    o.done = a->done + i;
    o.record = rec + i;
    o.seed = a->seed + i;
    return o;
}

/* Column i of actions, a signed integer of `bits`. */
static __device__ int64_t action_at(const void *actions, int bits, int i)
{
    switch (bits) {
    case 8:
        return ((const int8_t *)actions)[i];
    case 16:
        return ((const int16_t *)actions)[i];
    case 32:
        return ((const int32_t *)actions)[i];
    default:
        return ((const int64_t *)actions)[i];
    }
}

__global__ void drop7_k_env_reset(const drop7_rules *R, drop7_slot *slots, drop7_env_arrays a, uint64_t base, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    drop7_slot *s = &slots[i];
    s->games = 0;
    drop7_slot_begin(R, s, base, i, n);
    drop7_slot_observe(s, a.obs + (size_t)i * DROP7_PLANE_FLOATS, a.mask + (size_t)i * DROP7_N);
    a.seed[i] = s->seed;
}

__global__ void drop7_k_env_check(const drop7_slot *slots, const void *actions, int bits, int n, env_verdict *v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && !drop7_slot_legal(&slots[i], action_at(actions, bits, i)))
        atomicMin(&v->bad, i);
}

__global__ void drop7_k_env_step(const drop7_rules *rules, drop7_slot *slots, const void *actions, int bits,
                                 drop7_env_arrays a, drop7_record *rec, uint64_t base, int n, int max_moves,
                                 env_verdict *v)
{
    __shared__ drop7_rules R;
    drop7_rules_to_shared(&R, rules);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || v->bad != INT_MAX)
        return;
    drop7_slot_out o = slot_out(&a, rec, i);
    if (drop7_slot_step(&R, &slots[i], action_at(actions, bits, i), base, i, n, max_moves, &o))
        atomicAdd(&v->ended, 1);
}

__global__ void drop7_k_env_sample(const drop7_rules *R, drop7_slot *slots, int player, int64_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    drop7_slot *s = &slots[i];
    out[i] = player == DROP7_PLAYER_GREEDY ? drop7_pick_greedy(R, &s->g) : drop7_pick_random(&s->g, s->prng);
}

__global__ void drop7_k_env_records(const drop7_slot *slots, drop7_record *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        drop7_game_record(&slots[i].g, slots[i].seed, slots[i].hash, 0, &out[i]);
}

extern "C" void drop7_env_gpu_close(drop7_env_gpu *e)
{
    if (!e)
        return;
    (void)cudaSetDevice(e->device);
    gpu_free(e->d_rules, e->d_slots, e->d_rec, e->d_cur, e->d_act, e->d_verdict);
    gpu_free(e->a.obs, e->a.mask, e->a.reward, e->a.terminated, e->a.truncated, e->a.done, e->a.final_obs, e->a.seed,
             e->a.sample);
    free(e);
}

/* Allocates a zeroed device array of n elements of size each. */
template <typename T>
static gv_status alloc0(T **p, size_t n, size_t each, gv_err *err)
{
    GV_GPU_TRY(cudaMalloc((void **)p, n * each), err);
    GV_GPU_TRY(cudaMemset(*p, 0, n * each), err);
    return GV_OK;
}

static gv_status open_in(drop7_env_gpu *e, gv_err *err)
{
    const size_t n = (size_t)e->n;
    gv_status s;
    if ((s = alloc0(&e->d_rules, 1, sizeof(drop7_rules), err)) != GV_OK ||
        (s = alloc0(&e->d_slots, n, sizeof(drop7_slot), err)) != GV_OK ||
        (s = alloc0(&e->d_rec, n, sizeof(drop7_record), err)) != GV_OK ||
        (s = alloc0(&e->d_cur, n, sizeof(drop7_record), err)) != GV_OK ||
        (s = alloc0(&e->d_act, n, sizeof(int64_t), err)) != GV_OK ||
        (s = alloc0(&e->d_verdict, 1, sizeof(env_verdict), err)) != GV_OK ||
        (s = alloc0(&e->a.obs, n, DROP7_PLANE_FLOATS * sizeof(float), err)) != GV_OK ||
        (s = alloc0(&e->a.mask, n, DROP7_N, err)) != GV_OK || (s = alloc0(&e->a.reward, n, sizeof(double), err)) != GV_OK ||
        (s = alloc0(&e->a.terminated, n, 1, err)) != GV_OK || (s = alloc0(&e->a.truncated, n, 1, err)) != GV_OK ||
        (s = alloc0(&e->a.done, n, 1, err)) != GV_OK ||
        (s = alloc0(&e->a.final_obs, n, DROP7_PLANE_FLOATS * sizeof(float), err)) != GV_OK ||
        (s = alloc0(&e->a.seed, n, sizeof(uint64_t), err)) != GV_OK ||
        (s = alloc0(&e->a.sample, n, sizeof(int64_t), err)) != GV_OK)
        return s;
    GV_GPU_TRY(cudaMemcpy(e->d_rules, &e->rules, sizeof e->rules, cudaMemcpyHostToDevice), err);
    return GV_OK;
}

extern "C" gv_status drop7_env_gpu_open(int device, const drop7_rules *r, int n, int max_moves, drop7_env_gpu **out,
                                        gv_err *err)
{
    *out = NULL;
    gv_status s = drop7_rules_check(r, err);
    if (s != GV_OK)
        return s;
    if (n < 1 || max_moves < 1)
        return gv_fail(err, GV_ERR_INPUT, "drop7 env GPU: %d slots, max_moves %d: both must be > 0", n, max_moves);
    drop7_gpu *probe; /* the same checks and messages as the whole-game kernels */
    if ((s = drop7_gpu_open(device, &probe, err)) != GV_OK)
        return s;
    drop7_env_gpu *e = (drop7_env_gpu *)calloc(1, sizeof *e);
    if (e)
        snprintf(e->name, sizeof e->name, "%s", drop7_gpu_name(probe));
    drop7_gpu_close(probe);
    if (!e)
        return gv_fail(err, GV_ERR_ENV, "drop7 env GPU: out of host memory");
    e->device = device;
    e->n = n;
    e->max_moves = max_moves;
    e->rules = *r;
    GV_GPU_TRY(cudaSetDevice(device), err);
    if ((s = open_in(e, err)) != GV_OK) {
        drop7_env_gpu_close(e);
        return s;
    }
    *out = e;
    return GV_OK;
}

extern "C" const drop7_env_arrays *drop7_env_gpu_arrays(const drop7_env_gpu *e)
{
    return &e->a;
}

extern "C" int drop7_env_gpu_device(const drop7_env_gpu *e)
{
    return e->device;
}

extern "C" const char *drop7_env_gpu_name(const drop7_env_gpu *e)
{
    return e ? e->name : "";
}

extern "C" gv_status drop7_env_gpu_reset(drop7_env_gpu *e, uint64_t base, gv_err *err)
{
    GV_GPU_TRY(cudaSetDevice(e->device), err);
    GV_GPU_TRY(cudaDeviceSynchronize(), err);
    e->base = base;
    drop7_k_env_reset<<<gpu_blocks((size_t)e->n, ENV_THREADS), ENV_THREADS>>>(e->d_rules, e->d_slots, e->a, base, e->n);
    GV_GPU_TRY(cudaGetLastError(), err);
    GV_GPU_TRY(cudaDeviceSynchronize(), err);
    return GV_OK;
}

extern "C" gv_status drop7_env_gpu_step(drop7_env_gpu *e, const void *actions, int on_device, int bits, long *ended,
                                        gv_err *err)
{
    *ended = 0;
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
        return gv_fail(err, GV_ERR_INPUT, "Drop7Env.step: actions of %d-bit integers (8, 16, 32 or 64)", bits);
    GV_GPU_TRY(cudaSetDevice(e->device), err);
    GV_GPU_TRY(cudaDeviceSynchronize(), err); /* readers of the last step's arrays are done */
    const void *act = actions;
    if (!on_device) {
        GV_GPU_TRY(cudaMemcpy(e->d_act, actions, (size_t)e->n * (size_t)(bits / 8), cudaMemcpyHostToDevice), err);
        act = e->d_act;
    }
    env_verdict v = {INT_MAX, 0};
    GV_GPU_TRY(cudaMemcpy(e->d_verdict, &v, sizeof v, cudaMemcpyHostToDevice), err);
    unsigned blocks = gpu_blocks((size_t)e->n, ENV_THREADS);
    drop7_k_env_check<<<blocks, ENV_THREADS>>>(e->d_slots, act, bits, e->n, e->d_verdict);
    GV_GPU_TRY(cudaGetLastError(), err);
    drop7_k_env_step<<<blocks, ENV_THREADS>>>(e->d_rules, e->d_slots, act, bits, e->a, e->d_rec, e->base, e->n,
                                              e->max_moves, e->d_verdict);
    GV_GPU_TRY(cudaGetLastError(), err);
    GV_GPU_TRY(cudaMemcpy(&v, e->d_verdict, sizeof v, cudaMemcpyDeviceToHost), err);
    if (v.bad != INT_MAX) { /* nothing was played: say why, from the slot and its column */
        drop7_slot s;
        int64_t a = 0;
        GV_GPU_TRY(cudaMemcpy(&s, e->d_slots + v.bad, sizeof s, cudaMemcpyDeviceToHost), err);
        GV_GPU_TRY(cudaMemcpy(&a, (const uint8_t *)act + (size_t)v.bad * (size_t)(bits / 8), (size_t)(bits / 8),
                              cudaMemcpyDeviceToHost),
                   err);
        if (bits < 64) /* sign-extend the narrower integer */
            a = (int64_t)((uint64_t)a << (64 - bits)) >> (64 - bits);
        gv_status s2 = drop7_slot_check(&s, v.bad, a, "Drop7Env.step", err);
        return s2 != GV_OK ? s2 : gv_fail(err, GV_ERR_INTERNAL, "internal error: drop7 env GPU: slot %d's column %lld "
                                                               "was found illegal on the device only", v.bad, (long long)a);
    }
    *ended = v.ended;
    return GV_OK;
}

extern "C" gv_status drop7_env_gpu_sample(drop7_env_gpu *e, int player, gv_err *err)
{
    if (player != DROP7_PLAYER_RANDOM && player != DROP7_PLAYER_GREEDY)
        return gv_fail(err, GV_ERR_INPUT, "Drop7Env.sample: player %d (0 random, 1 greedy)", player);
    GV_GPU_TRY(cudaSetDevice(e->device), err);
    drop7_k_env_sample<<<gpu_blocks((size_t)e->n, ENV_THREADS), ENV_THREADS>>>(e->d_rules, e->d_slots, player,
                                                                                e->a.sample, e->n);
    GV_GPU_TRY(cudaGetLastError(), err);
    GV_GPU_TRY(cudaDeviceSynchronize(), err);
    return GV_OK;
}

extern "C" gv_status drop7_env_gpu_records(drop7_env_gpu *e, int current, drop7_record *out, gv_err *err)
{
    GV_GPU_TRY(cudaSetDevice(e->device), err);
    if (current) {
        drop7_k_env_records<<<gpu_blocks((size_t)e->n, ENV_THREADS), ENV_THREADS>>>(e->d_slots, e->d_cur, e->n);
        GV_GPU_TRY(cudaGetLastError(), err);
    }
    GV_GPU_TRY(cudaMemcpy(out, current ? e->d_cur : e->d_rec, (size_t)e->n * sizeof(drop7_record),
                          cudaMemcpyDeviceToHost),
               err);
    return GV_OK;
}
