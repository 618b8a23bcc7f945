/* test_drop7_encode.c: the encoding of Drop7 positions into the network's 12 input planes
 * (drop7_encode.c). Structural checks of our own encoder on every position, then exact
 * equality (every float's bits, and the legal masks) with tests/drop7/encode_ref.py, an
 * independent Python/numpy encoder written from drop7_reference.py's docstring, on a few
 * hundred positions: random ones, starting boards and positions from played games, with
 * covered next discs and finished games among them. The Python part runs when $PYTHON is
 * set and imports numpy, else one SKIP line says why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/rng.h"
#include "drop7/drop7.h"
#include "drop7/drop7_game.h"

#define NPOS 400

static const char CODE_CHAR[] = ".1234567SC";

/* Positions: a quarter random boards, the rest from games played for a random number of
 * moves (some to the end), in both modes; a covered next disc in some. */
static void make_positions(uint64_t seed, drop7_pos *pos)
{
    gv_rng g;
    gv_rng_seed(&g, seed);
    for (int i = 0; i < NPOS; i++) {
        drop7_rules r;
        drop7_rules_init(&r, (drop7_mode)(i & 1));
        drop7_pos *p = &pos[i];
        drop7_ref_new(&r, gv_rng_u64(&g), p);
        if (i % 4 == 0) {
            for (int x = 0; x < DROP7_N; x++) {
                int h = (int)gv_rng_below(&g, 8);
                for (int y = 0; y < DROP7_N; y++)
                    p->cell[y][x] = y >= DROP7_N - h ? (uint8_t)(1 + gv_rng_below(&g, 9)) : 0;
            }
            p->next = (uint8_t)(1 + gv_rng_below(&g, 9));
            p->drops_left = 1 + (int)gv_rng_below(&g, 30);
        } else {
            int moves = (int)gv_rng_below(&g, 300);
            for (int m = 0; m < moves && !p->over; m++) {
                int x;
                do
                    x = (int)gv_rng_below(&g, DROP7_N);
                while (!drop7_ref_legal(p, x));
                drop7_ref_step(&r, p, x);
            }
        }
    }
}

/* Our encoder's structure: one-hot cells, constant planes 10 and 11 with the right values. */
static void check_structure(const drop7_pos *pos, const float *planes)
{
    int bad = 0, over = 0, covered_next = 0;
    for (int i = 0; i < NPOS; i++) {
        const drop7_pos *p = &pos[i];
        const float *x = planes + (size_t)i * DROP7_PLANE_FLOATS;
        over += p->over != 0;
        covered_next += p->next >= DROP7_SOLID;
        float nv = (p->next >= 1 && p->next <= 7) ? (float)p->next / 7.0f : 0.0f;
        float dv = (float)p->drops_left / 30.0f;
        for (int y = 0; y < DROP7_N; y++)
            for (int c = 0; c < DROP7_N; c++) {
                int k = y * DROP7_N + c;
                float sum = 0;
                for (int pl = 0; pl < 10; pl++)
                    sum += x[pl * DROP7_CELLS + k];
                bad += sum != 1.0f || x[p->cell[y][c] * DROP7_CELLS + k] != 1.0f;
                bad += x[10 * DROP7_CELLS + k] != nv || x[11 * DROP7_CELLS + k] != dv;
            }
        uint8_t m = drop7_legal_mask_pos(p), want = 0;
        for (int c = 0; c < DROP7_N && !p->over; c++)
            want |= (uint8_t)((p->cell[0][c] == 0) << c);
        bad += m != want;
    }
    t_check(bad == 0 && over > 0 && covered_next > 0, "drop7 encode structure",
            "%d positions (%d finished, %d with a covered next disc): planes 0..9 one-hot at the cell's code, "
            "plane 10 next/7, plane 11 drops_left/30, legal masks; %d mismatches", NPOS, over, covered_next, bad);

    /* one position by hand: the top row holds a 7 at x = 0, the bottom row a solid at x = 6 */
    drop7_pos p;
    memset(&p, 0, sizeof p);
    p.cell[0][0] = 7;
    p.cell[6][6] = DROP7_SOLID;
    p.next = 3;
    p.drops_left = 30;
    float one[DROP7_PLANE_FLOATS];
    drop7_encode_pos(&p, one);
    int ok = one[7 * 49 + 0] == 1.0f && one[0 * 49 + 0] == 0.0f && one[8 * 49 + 6 * 7 + 6] == 1.0f &&
             one[0 * 49 + 48] == 0.0f && one[0 * 49 + 1] == 1.0f && one[10 * 49 + 20] == 3.0f / 7.0f &&
             one[11 * 49 + 33] == 1.0f && drop7_legal_mask_pos(&p) == 0x7e;
    t_check(ok, "drop7 encode layout", "index c*49 + y*7 + x with y = 0 the top row: plane 7 [0] = %g, plane 8 [48] = "
            "%g, plane 10 = %.9g (3/7), plane 11 = %g (30/30), legal mask 0x%02x (column 0 full)",
            one[7 * 49], one[8 * 49 + 48], one[10 * 49 + 20], one[11 * 49 + 33], drop7_legal_mask_pos(&p));
}

static int run_python(const char *py, const char *script, const char *dir, char *why, size_t len)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' -c 'import numpy' >/dev/null 2>&1", py);
    if (system(cmd) != 0) {
        snprintf(why, len, "PYTHON=%s cannot import numpy (the Python reference encoder needs it)", py);
        return -1;
    }
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s/pos.txt' '%s/planes.f32' '%s/legal.u8'", py, script, dir, dir, dir);
    int rc = system(cmd);
    if (rc != 0) {
        snprintf(why, len, "%s exited with status %d", script, rc);
        return 1;
    }
    return 0;
}

static void compare_with_python(const drop7_pos *pos, const float *planes)
{
    const char *py = getenv("PYTHON");
    if (!py || !*py) {
        t_skip("drop7 encode == Python reference", "PYTHON is not set (make test sets it only to a python3 with torch; "
               "run with PYTHON=python3 where numpy is installed)");
        return;
    }
    const char *root = getenv("GV_ROOT");
    char script[1024], dir[] = "/tmp/gv-drop7-encode-XXXXXX", path[1100], why[1200] = "";
    snprintf(script, sizeof script, "%s/tests/drop7/encode_ref.py", root && *root ? root : ".");
    if (access(script, R_OK) != 0 || !mkdtemp(dir)) {
        t_check(0, "drop7 encode == Python reference", "cannot read %s or make a temporary folder", script);
        return;
    }
    snprintf(path, sizeof path, "%s/pos.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        t_check(0, "drop7 encode == Python reference", "cannot write %s", path);
        return;
    }
    fprintf(f, "%d\n", NPOS);
    for (int i = 0; i < NPOS; i++) {
        fprintf(f, "%d %d %d\n", pos[i].next, pos[i].drops_left, pos[i].over);
        for (int y = 0; y < DROP7_N; y++) {
            for (int x = 0; x < DROP7_N; x++)
                fputc(CODE_CHAR[pos[i].cell[y][x]], f);
            fputc('\n', f);
        }
    }
    fclose(f);
    int rc = run_python(py, script, dir, why, sizeof why);
    if (rc < 0) {
        t_skip("drop7 encode == Python reference", "%s", why);
    } else if (rc > 0) {
        t_check(0, "drop7 encode == Python reference", "%s", why);
    } else {
        size_t nf = (size_t)NPOS * DROP7_PLANE_FLOATS;
        float *ref = malloc(nf * sizeof(float));
        uint8_t legal[NPOS];
        snprintf(path, sizeof path, "%s/planes.f32", dir);
        FILE *a = fopen(path, "rb");
        snprintf(path, sizeof path, "%s/legal.u8", dir);
        FILE *b = fopen(path, "rb");
        size_t got = a && ref ? fread(ref, sizeof(float), nf, a) : 0, gotl = b ? fread(legal, 1, NPOS, b) : 0;
        long diff = 0, first = -1, ldiff = 0;
        for (size_t k = 0; k < got; k++)
            if (memcmp(&ref[k], &planes[k], sizeof(float)) != 0) {
                diff++;
                if (first < 0)
                    first = (long)k;
            }
        for (int i = 0; i < NPOS && (size_t)i < gotl; i++)
            ldiff += legal[i] != drop7_legal_mask_pos(&pos[i]);
        int ok = got == nf && gotl == NPOS && diff == 0 && ldiff == 0;
        t_check(ok, "drop7 encode == Python reference",
                "%d positions, %zu floats read of %zu, %ld differ in their bits%s; %d legal masks, %ld differ",
                NPOS, got, nf, diff, first < 0 ? "" : " (first at the index printed below)", NPOS, ldiff);
        if (first >= 0)
            printf("    position %ld plane %ld cell %ld: C %.9g, Python %.9g\n", first / DROP7_PLANE_FLOATS,
                   (first % DROP7_PLANE_FLOATS) / 49, first % 49, planes[first], ref[first]);
        if (a)
            fclose(a);
        if (b)
            fclose(b);
        free(ref);
    }
    const char *names[] = {"pos.txt", "planes.f32", "legal.u8"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        unlink(path);
    }
    rmdir(dir);
}

int main(void)
{
    const char *s = getenv("GV_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 10) : gv_rng_fresh_seed();
    static drop7_pos pos[NPOS];
    static float planes[(size_t)NPOS * DROP7_PLANE_FLOATS];
    make_positions(seed, pos);
    for (int i = 0; i < NPOS; i++)
        drop7_encode_pos(&pos[i], planes + (size_t)i * DROP7_PLANE_FLOATS);
    printf("drop7 encode: seed %llu\n", (unsigned long long)seed);
    check_structure(pos, planes);
    compare_with_python(pos, planes);
    return t_done();
}
