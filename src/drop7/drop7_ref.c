/* drop7_ref.c: the plain reference of the Drop7 rules (docs/DROP7.md). A 7x7 array of
 * cell codes, scanned whole at every chain step: runs are counted by walking left/right
 * and up/down from each disc, hits by looking at the four neighbours, gravity by
 * compacting each column. Written to be obviously right, not fast; the fast game
 * (drop7_game.h) must give the same positions, scores and random draws, move for move.
 * Random numbers come from core/rng.c (gv_rng) in the order docs/DROP7.md states. */
#include "drop7/drop7.h"

#include <string.h>

#define N DROP7_N

static int is_number(int c)
{
    return c >= 1 && c <= 7;
}

static int is_covered(int c)
{
    return c == DROP7_SOLID || c == DROP7_CRACKED;
}

/* A code 1..9 with probability w[c] / sum(w). */
static int draw(gv_rng *rng, const uint16_t *w)
{
    uint64_t total = 0;
    for (int c = 1; c < DROP7_CODES; c++)
        total += w[c];
    uint64_t r = gv_rng_below(rng, total);
    for (int c = 1; c < DROP7_CODES; c++) {
        if (r < w[c])
            return c;
        r -= w[c];
    }
    return DROP7_CODES - 1;
}

static int drops_of_level(const drop7_rules *r, int level)
{
    int d = r->drops_first - r->drops_step * (level - 1);
    if (d < r->drops_min)
        d = r->drops_min;
    return d;
}

/* Length of the run of discs through (y, x) along the step (dy, dx): (0, 1) the row,
 * (1, 0) the column. */
static int run_through(const drop7_pos *p, int y, int x, int dy, int dx)
{
    int n = 1;
    for (int i = y - dy, j = x - dx; i >= 0 && j >= 0 && p->cell[i][j]; i -= dy, j -= dx)
        n++;
    for (int i = y + dy, j = x + dx; i < N && j < N && p->cell[i][j]; i += dy, j += dx)
        n++;
    return n;
}

/* Marks the numbered discs that explode now; returns how many. */
static int mark_exploding(const drop7_pos *p, uint8_t ex[N][N])
{
    int n = 0;
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            int c = p->cell[y][x];
            ex[y][x] = is_number(c) && (c == run_through(p, y, x, 0, 1) || c == run_through(p, y, x, 1, 0));
            n += ex[y][x];
        }
    return n;
}

/* The lowest empty cell of column x, or -1 when the column is full. */
static int landing_row(const drop7_pos *p, int x)
{
    int y = N - 1;
    while (y >= 0 && p->cell[y][x])
        y--;
    return y;
}

static void gravity(drop7_pos *p)
{
    for (int x = 0; x < N; x++) {
        int k = N - 1;
        for (int y = N - 1; y >= 0; y--) {
            int c = p->cell[y][x];
            if (c) {
                p->cell[y][x] = 0;
                p->cell[k][x] = (uint8_t)c;
                k--;
            }
        }
    }
}

static int board_empty(const drop7_pos *p)
{
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
            if (p->cell[y][x])
                return 0;
    return 1;
}

/* Chain steps until nothing explodes, continuing from step; returns the steps done. */
static int resolve(const drop7_rules *r, drop7_pos *p, int step)
{
    int steps = 0;
    for (;;) {
        uint8_t ex[N][N];
        int n = mark_exploding(p, ex);
        if (n == 0)
            break;
        step++;
        steps++;
        p->score += (int64_t)n * r->chain_points[step < DROP7_MAX_CHAIN ? step : DROP7_MAX_CHAIN];
        p->exploded += n;
        /* each covered disc is hit by its exploding orthogonal neighbours */
        int hits[N][N];
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++) {
                int h = 0;
                if (is_covered(p->cell[y][x])) {
                    h += y > 0 && ex[y - 1][x];
                    h += y < N - 1 && ex[y + 1][x];
                    h += x > 0 && ex[y][x - 1];
                    h += x < N - 1 && ex[y][x + 1];
                    if (!r->hit_each_neighbour && h > 1)
                        h = 1;
                }
                hits[y][x] = h;
            }
        /* crack and reveal; revealed numbers drawn column by column, bottom to top */
        for (int x = 0; x < N; x++)
            for (int y = N - 1; y >= 0; y--) {
                int c = p->cell[y][x], h = hits[y][x];
                int reveal = (c == DROP7_SOLID && h >= 2) || (c == DROP7_CRACKED && h >= 1);
                if (reveal)
                    p->cell[y][x] = (uint8_t)draw(&p->rng, r->reveal_weight);
                else if (c == DROP7_SOLID && h == 1)
                    p->cell[y][x] = DROP7_CRACKED;
            }
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++)
                if (ex[y][x])
                    p->cell[y][x] = DROP7_EMPTY;
        gravity(p);
    }
    if (steps) {
        p->chain_steps += steps;
        if (step > p->max_chain)
            p->max_chain = step;
        if (board_empty(p)) {
            p->score += r->clear_bonus;
            p->clears++;
        }
    }
    return steps;
}

void drop7_ref_new(const drop7_rules *r, uint64_t seed, drop7_pos *p)
{
    memset(p, 0, sizeof *p);
    gv_rng_seed(&p->rng, seed);
    p->level = 1;
    p->drops_left = drops_of_level(r, 1);
    int placed = 0;
    for (int attempt = 0; attempt < 4 * r->start_discs && placed < r->start_discs; attempt++) {
        int x = (int)gv_rng_below(&p->rng, N);
        int code = draw(&p->rng, r->start_weight);
        int y = landing_row(p, x);
        if (y < 0)
            continue;
        p->cell[y][x] = (uint8_t)code;
        uint8_t ex[N][N];
        if (mark_exploding(p, ex)) {
            p->cell[y][x] = DROP7_EMPTY;
            continue;
        }
        placed++;
    }
    p->next = (uint8_t)draw(&p->rng, r->next_weight);
}

int drop7_ref_legal(const drop7_pos *p, int x)
{
    return !p->over && x >= 0 && x < N && p->cell[0][x] == DROP7_EMPTY;
}

int drop7_ref_step(const drop7_rules *r, drop7_pos *p, int x)
{
    int y = landing_row(p, x);
    p->cell[y][x] = p->next;
    int chain = resolve(r, p, 0);
    p->nmoves++;
    p->drops_left--;
    if (p->drops_left == 0) {
        for (int i = 0; i < N; i++)
            if (p->cell[0][i]) { /* the rising row would push this disc out */
                p->over = DROP7_END_OVERFLOW;
                p->next = 0;
                return chain;
            }
        for (int row = 0; row < N - 1; row++)
            memcpy(p->cell[row], p->cell[row + 1], N);
        for (int i = 0; i < N; i++)
            p->cell[N - 1][i] = DROP7_SOLID;
        p->score += r->level_bonus;
        p->level++;
        p->drops_left = drops_of_level(r, p->level);
        resolve(r, p, r->rise_chain_continues ? chain : 0);
    }
    int room = 0;
    for (int i = 0; i < N; i++)
        room += p->cell[0][i] == DROP7_EMPTY;
    if (!room) {
        p->over = DROP7_END_FULL;
        p->next = 0;
        return chain;
    }
    p->next = (uint8_t)draw(&p->rng, r->next_weight);
    return chain;
}

void drop7_ref_play(const drop7_rules *r, int player, uint64_t seed, int max_moves, drop7_record *rec,
                    uint8_t *moves)
{
    drop7_pos p;
    gv_rng prng;
    drop7_ref_new(r, seed, &p);
    gv_rng_seed(&prng, seed ^ DROP7_PLAYER_SEED_XOR);
    uint64_t h = DROP7_FNV_OFFSET;
    while (!p.over && p.nmoves < max_moves) {
        int legal[N], n = 0, x = -1;
        for (int i = 0; i < N; i++)
            if (drop7_ref_legal(&p, i))
                legal[n++] = i;
        if (player == DROP7_PLAYER_GREEDY) {
            int64_t best = 0;
            for (int k = 0; k < n; k++) {
                drop7_pos t = p;
                drop7_ref_step(r, &t, legal[k]);
                if (x < 0 || t.score - p.score > best) {
                    x = legal[k];
                    best = t.score - p.score;
                }
            }
        } else {
            x = legal[gv_rng_below(&prng, (uint64_t)n)];
        }
        if (moves)
            moves[p.nmoves] = (uint8_t)x;
        h = (h ^ (uint64_t)x) * DROP7_FNV_PRIME;
        drop7_ref_step(r, &p, x);
    }
    memset(rec, 0, sizeof *rec);
    rec->seed = seed;
    rec->moves_hash = h;
    rec->score = p.score;
    rec->nmoves = p.nmoves;
    rec->level = p.level;
    rec->chain_steps = p.chain_steps;
    rec->max_chain = p.max_chain;
    rec->exploded = p.exploded;
    rec->clears = p.clears;
    rec->end = p.over ? p.over : DROP7_END_CAP;
    for (int y = 0; y < N; y++)
        memcpy(rec->board + y * N, p.cell[y], N);
    rec->next = p.next;
}
