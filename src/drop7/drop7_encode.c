/* drop7_encode.c: positions to the network's input, as drop7_reference.py's docstring
 * gives it: (12, 7, 7) float32 per position at c*49 + y*7 + x, with y = 0 the top row
 * (the row a person sees on top; the network does not care, but it is fixed so that
 * checkpoints and datasets agree). Planes 0..9 one-hot by cell code (0 empty, 1..7 the
 * disc's number, 8 solid, 9 cracked); plane 10 the next disc's number / 7 everywhere
 * (0 for a covered next disc); plane 11 the drops left before the row rises / 30
 * everywhere. The encoder itself is drop7_game_encode (drop7_game.h), usable on the
 * device too; tests/drop7/encode_ref.py is the independent Python reference. */
#include "drop7/drop7_game.h"

void drop7_encode_pos(const drop7_pos *p, float *out)
{
    drop7_game g;
    drop7_game_load(p, &g);
    drop7_game_encode(&g, out);
}

uint8_t drop7_legal_mask_pos(const drop7_pos *p)
{
    drop7_game g;
    drop7_game_load(p, &g);
    return (uint8_t)drop7_legal(&g);
}

void drop7_game_encode_batch(const drop7_game *g, int n, float *out, uint8_t *legal)
{
    for (int i = 0; i < n; i++) {
        drop7_game_encode(&g[i], out + (size_t)i * DROP7_PLANE_FLOATS);
        if (legal)
            legal[i] = (uint8_t)drop7_legal(&g[i]);
    }
}
