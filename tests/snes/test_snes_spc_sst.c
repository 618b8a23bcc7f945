/* test_snes_spc_sst.c: the SPC700 core against the public SingleStepTests set for the SPC700
 * (github.com/SingleStepTests/spc700, folder v1/: one JSON file per opcode, 1,000 tests each:
 * registers and RAM before and after one instruction, and every bus cycle as [address, value,
 * "read" | "write" | "wait"]). The data is not part of the tree: it is read from the folder
 * named by GV_SST_SPC700, else tests/data/spc700/v1 (git-ignored; tests/snes/fetch_spc_sst.sh
 * says how to fetch it). Without it the program prints one SKIP line.
 *
 * Each test runs twice, in flat-RAM mode (the set has no I/O registers and no IPL ROM):
 * on the reference path with the bus log, comparing registers, RAM and the cycle list
 * (address, kind, and value where the set gives one), and on the fast path, comparing
 * registers, RAM and the cycle count. One line per opcode gives the pass counts of both.
 * SLEEP and STOP never end: their tests list the opcode fetch and the first halted cycles,
 * and the runner steps until it has as many cycles. */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "emu/snes/snes_spc.h"

#define MAX_CYCLES 64

typedef struct {
    int n;
    snes_spc_bus c[MAX_CYCLES];
    int has_val[MAX_CYCLES];
    int has_addr[MAX_CYCLES];
} cycle_list;

static int json_int(const cJSON *o, const char *k, int *ok)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(v)) {
        *ok = 0;
        return 0;
    }
    return v->valueint;
}

/* Sets registers and RAM from a state object; returns 0 on malformed input. */
static int load_state(snes_spc *s, const cJSON *st)
{
    int ok = 1;
    s->pc = (uint16_t)json_int(st, "pc", &ok);
    s->a = (uint8_t)json_int(st, "a", &ok);
    s->x = (uint8_t)json_int(st, "x", &ok);
    s->y = (uint8_t)json_int(st, "y", &ok);
    s->sp = (uint8_t)json_int(st, "sp", &ok);
    s->psw = (uint8_t)json_int(st, "psw", &ok);
    const cJSON *ram = cJSON_GetObjectItemCaseSensitive(st, "ram"), *e;
    if (!cJSON_IsArray(ram))
        return 0;
    cJSON_ArrayForEach(e, ram) {
        const cJSON *a = cJSON_GetArrayItem(e, 0), *v = cJSON_GetArrayItem(e, 1);
        if (!cJSON_IsNumber(a) || !cJSON_IsNumber(v))
            return 0;
        s->ram[a->valueint & 0xFFFF] = (uint8_t)v->valueint;
    }
    return ok;
}

/* Zeroes the RAM a state lists (cheaper than clearing 64 KiB per test). */
static void clear_ram(snes_spc *s, const cJSON *st)
{
    const cJSON *ram = cJSON_GetObjectItemCaseSensitive(st, "ram"), *e;
    cJSON_ArrayForEach(e, ram) {
        const cJSON *a = cJSON_GetArrayItem(e, 0);
        if (cJSON_IsNumber(a))
            s->ram[a->valueint & 0xFFFF] = 0;
    }
}

static int parse_cycles(const cJSON *arr, cycle_list *cl)
{
    const cJSON *e;
    cl->n = 0;
    cJSON_ArrayForEach(e, arr) {
        if (cl->n >= MAX_CYCLES)
            return 0;
        const cJSON *a = cJSON_GetArrayItem(e, 0), *v = cJSON_GetArrayItem(e, 1), *k = cJSON_GetArrayItem(e, 2);
        if (!cJSON_IsString(k))
            return 0;
        snes_spc_bus *b = &cl->c[cl->n];
        b->kind = !strcmp(k->valuestring, "read")    ? SNES_SPC_BUS_READ
                  : !strcmp(k->valuestring, "write") ? SNES_SPC_BUS_WRITE
                  : !strcmp(k->valuestring, "wait")  ? SNES_SPC_BUS_IDLE
                                                     : 0;
        if (!b->kind)
            return 0;
        cl->has_addr[cl->n] = cJSON_IsNumber(a);
        cl->has_val[cl->n] = cJSON_IsNumber(v);
        b->addr = cJSON_IsNumber(a) ? (uint16_t)a->valueint : 0;
        b->val = cJSON_IsNumber(v) ? (uint8_t)v->valueint : 0;
        cl->n++;
    }
    return 1;
}

/* Compares registers and the RAM listed in `fin`; writes a description of the first
 * difference into why. */
static int check_final(const snes_spc *s, const cJSON *fin, char *why, size_t wn)
{
    int ok = 1;
    struct { const char *k; int got; } r[] = {
        {"pc", s->pc}, {"a", s->a}, {"x", s->x}, {"y", s->y}, {"sp", s->sp}, {"psw", s->psw},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        int want = json_int(fin, r[i].k, &ok);
        if (want != r[i].got) {
            snprintf(why, wn, "%s = $%02X, expected $%02X", r[i].k, r[i].got, want);
            return 0;
        }
    }
    const cJSON *ram = cJSON_GetObjectItemCaseSensitive(fin, "ram"), *e;
    cJSON_ArrayForEach(e, ram) {
        int a = cJSON_GetArrayItem(e, 0)->valueint & 0xFFFF, v = cJSON_GetArrayItem(e, 1)->valueint;
        if (s->ram[a] != v) {
            snprintf(why, wn, "RAM[$%04X] = $%02X, expected $%02X", a, s->ram[a], v);
            return 0;
        }
    }
    return ok;
}

static const char *kind_name(int k)
{
    return k == SNES_SPC_BUS_READ ? "read" : k == SNES_SPC_BUS_WRITE ? "write" : "wait";
}

static int check_cycles(const snes_spc *s, const cycle_list *want, char *why, size_t wn)
{
    size_t n = s->env.log_n;
    for (size_t i = 0; i < n && (int)i < want->n; i++) {
        const snes_spc_bus *g = &s->env.log[i], *w = &want->c[i];
        int bad = g->kind != w->kind || (want->has_addr[i] && g->addr != w->addr) ||
                  (want->has_val[i] && g->val != w->val);
        if (bad) {
            snprintf(why, wn, "cycle %zu: %s $%04X = $%02X, expected %s $%04X = $%02X", i, kind_name(g->kind),
                     g->addr, g->val, kind_name(w->kind), w->addr, w->val);
            return 0;
        }
    }
    if ((int)n != want->n) {
        snprintf(why, wn, "%zu bus cycles, expected %d", n, want->n);
        return 0;
    }
    return 1;
}

/* Runs one test on one path. Returns 1 when it passes; fills why otherwise. */
static int run_test(snes_spc *s, const cJSON *t, int reference, snes_spc_bus *logbuf, char *why, size_t wn)
{
    const cJSON *ini = cJSON_GetObjectItemCaseSensitive(t, "initial");
    const cJSON *fin = cJSON_GetObjectItemCaseSensitive(t, "final");
    cycle_list want;
    if (!ini || !fin || !parse_cycles(cJSON_GetObjectItemCaseSensitive(t, "cycles"), &want)) {
        snprintf(why, wn, "malformed test");
        return 0;
    }
    s->halted = 0;
    s->cycles = 0;
    if (!load_state(s, ini)) {
        snprintf(why, wn, "malformed initial state");
        return 0;
    }
    s->env.log = reference ? logbuf : NULL;
    s->env.log_cap = reference ? MAX_CYCLES : 0;
    s->env.log_n = 0;
    s->env.reference = reference;
    snes_spc_step(s);
    while (s->halted && s->cycles < (uint64_t)want.n)
        snes_spc_step(s);
    int ok = check_final(s, fin, why, wn);
    if (ok && reference)
        ok = check_cycles(s, &want, why, wn);
    if (ok && !reference && s->cycles != (uint64_t)want.n) {
        snprintf(why, wn, "%llu cycles, expected %d", (unsigned long long)s->cycles, want.n);
        ok = 0;
    }
    clear_ram(s, ini);
    clear_ram(s, fin);
    return ok;
}

static const char *data_dir(char *buf, size_t n)
{
    const char *d = getenv("GV_SST_SPC700");
    if (d && *d)
        return d;
    const char *root = getenv("GV_ROOT");
    snprintf(buf, n, "%s/tests/data/spc700/v1", root ? root : ".");
    return buf;
}

int main(void)
{
    char dbuf[1024];
    const char *dir = data_dir(dbuf, sizeof dbuf);
    char path[1200];
    snprintf(path, sizeof path, "%s/00.json", dir);
    struct stat st;
    if (stat(path, &st) != 0) {
        t_skip("spc700 SingleStepTests", "no data in %s: run tests/snes/fetch_spc_sst.sh (or set GV_SST_SPC700 "
               "to a copy of github.com/SingleStepTests/spc700 v1/)", dir);
        return 0;
    }
    snes_spc *s = malloc(sizeof *s);
    snes_spc_bus *logbuf = malloc(MAX_CYCLES * sizeof *logbuf);
    if (!s || !logbuf)
        return 1;
    snes_spc_power(s);
    snes_spc_set_flat(s, 1);
    memset(s->ram, 0, sizeof s->ram);
    long tot_ref = 0, tot_fast = 0, tot = 0;
    int ops_full = 0;
    for (int op = 0; op < 256; op++) {
        char name[64];
        snprintf(name, sizeof name, "spc700 sst %02X", op);
        snprintf(path, sizeof path, "%s/%02x.json", dir, op);
        uint8_t *text;
        size_t len;
        gv_err e;
        if (gv_read_file(path, 0, &text, &len, &e) != GV_OK) {
            t_check(0, name, "%s", e.msg);
            continue;
        }
        cJSON *arr = cJSON_Parse((const char *)text);
        free(text);
        if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0) {
            t_check(0, name, "%s: not a JSON array of tests", path);
            cJSON_Delete(arr);
            continue;
        }
        int n = 0, pass_ref = 0, pass_fast = 0;
        char first_fail[512] = "", why[400];
        const cJSON *t;
        cJSON_ArrayForEach(t, arr) {
            n++;
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(t, "name");
            if (run_test(s, t, 1, logbuf, why, sizeof why))
                pass_ref++;
            else if (!first_fail[0])
                snprintf(first_fail, sizeof first_fail, "; first failure (reference path) '%s': %s",
                         cJSON_IsString(nm) ? nm->valuestring : "?", why);
            if (run_test(s, t, 0, logbuf, why, sizeof why))
                pass_fast++;
            else if (!first_fail[0])
                snprintf(first_fail, sizeof first_fail, "; first failure (fast path) '%s': %s",
                         cJSON_IsString(nm) ? nm->valuestring : "?", why);
        }
        cJSON_Delete(arr);
        t_check(pass_ref == n && pass_fast == n, name, "reference path (registers, RAM, bus cycles) %d/%d, "
                "fast path (registers, RAM, cycle count) %d/%d%s", pass_ref, n, pass_fast, n, first_fail);
        tot_ref += pass_ref, tot_fast += pass_fast, tot += n;
        ops_full += pass_ref == n && pass_fast == n;
    }
    t_check(tot_ref == tot && tot_fast == tot, "spc700 sst total", "%d/256 opcodes at 100%%; tests passed: "
            "reference path %ld/%ld, fast path %ld/%ld", ops_full, tot_ref, tot, tot_fast, tot);
    free(logbuf);
    free(s);
    return t_done();
}
