/* drop7_gpu.h: Drop7 games on the GPU (drop7_gpu.cu; drop7_gpu_nogpu.c in builds without
 * a GPU backend, where open fails with GV_ERR_ENV). One device thread plays one whole
 * game with the fast game of drop7_game.h, the same code the host runs, so the records
 * are bit-identical to the CPU's (tests/drop7/test_drop7_gpu.c). Synchronous: play
 * returns when the records are on the host. The context keeps its device buffers
 * between calls (grown as needed), so a benchmark can time play alone. */
#ifndef GV_DROP7_DROP7_GPU_H
#define GV_DROP7_DROP7_GPU_H

#include <stdint.h>

#include "core/gv.h"
#include "drop7/drop7.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct drop7_gpu drop7_gpu;

/* Opens GPU `device` (0 = the first). GV_ERR_ENV with the reason when there is no GPU
 * backend, no such device or no memory; *out is then NULL. Free with drop7_gpu_close. */
gv_status drop7_gpu_open(int device, drop7_gpu **out, gv_err *err);
/* Plays ngames games as drop7_sim_batch does (seeds[i] -> out[i]; moves, when not NULL,
 * has room for ngames * max_moves bytes). The rules are checked first. */
gv_status drop7_gpu_play(drop7_gpu *g, const drop7_rules *r, int player, const uint64_t *seeds, int ngames,
                         int max_moves, drop7_record *out, uint8_t *moves, gv_err *err);
/* The device's name (empty before open). */
const char *drop7_gpu_name(const drop7_gpu *g);
void drop7_gpu_close(drop7_gpu *g);

#ifdef __cplusplus
}
#endif

#endif
