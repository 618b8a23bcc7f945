/* test_snes_cpu_sst.c: runs the public SingleStepTests set for the 65816 (one JSON file
 * per opcode and mode, v1/XX.e.json and v1/XX.n.json, 10,000 tests each) through the
 * 65C816 core, when the data is present. Each test is run twice: on the reference bus,
 * comparing the registers, the memory and every bus cycle (address, value, and the
 * VDA/VPA/VPB, RWB, E, M, X and MLB signals; the set writes null for the value of a
 * cycle with none of VDA, VPA, VPB), and on the fast bus, comparing its final state and
 * master clock with the reference run's. Prints one PASS/FAIL line per file, with the
 * first failures spelled out, and a SKIP line for the files that are not there.
 *
 * Data: $GV_SST_65816 (the v1 folder), else tests/data/65816/v1 under the tree (git
 * ignored; docs/SNES_65816.md says how to fill it). Without it: one SKIP line.
 * GV_SST_SAMPLE=N runs the first N tests of each file; GV_SST_ONLY=69.e runs one file. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "core/gv.h"
#include "emu/snes/snes_cpu.h"

#define MEM_SIZE (1u << 24)
#define MAX_CYC 64

typedef struct {
    uint32_t addr;
    int value; /* -1: null */
    char sig[9];
} cyc_t;

typedef struct {
    uint8_t *mem;
    cyc_t cyc[MAX_CYC];
    int ncyc;
} refbus;

/* The reference bus over a flat 16 MiB memory: 8 master clocks per access, 6 internal. */
static unsigned ref_cycle(void *ctx, uint32_t addr, uint8_t *v, unsigned fl, uint64_t clock)
{
    refbus *b = ctx;
    int valid = (fl & (SNES_CYC_VDA | SNES_CYC_VPA | SNES_CYC_VPB)) != 0;
    int value = -1;
    if (fl & SNES_CYC_WRITE) {
        b->mem[addr & 0xFFFFFF] = *v;
        value = *v;
    } else if (valid) {
        *v = b->mem[addr & 0xFFFFFF];
        value = *v;
    }
    if (b->ncyc < MAX_CYC) {
        cyc_t *c = &b->cyc[b->ncyc];
        c->addr = addr;
        c->value = value;
        c->sig[0] = fl & SNES_CYC_VDA ? 'd' : '-';
        c->sig[1] = fl & SNES_CYC_VPA ? 'p' : '-';
        c->sig[2] = fl & SNES_CYC_VPB ? 'v' : '-';
        c->sig[3] = fl & SNES_CYC_WRITE ? 'w' : 'r';
        c->sig[4] = fl & SNES_CYC_E ? 'e' : '-';
        c->sig[5] = fl & SNES_CYC_M ? 'm' : '-';
        c->sig[6] = fl & SNES_CYC_X ? 'x' : '-';
        c->sig[7] = fl & SNES_CYC_MLB ? 'l' : '-';
        c->sig[8] = 0;
    }
    b->ncyc++;
    (void)clock;
    return valid || (fl & SNES_CYC_WRITE) ? 8 : 6;
}

static int geti(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valueint : -1;
}

static void regs_from(const cJSON *st, snes_cpu_regs *r)
{
    r->pc = (uint16_t)geti(st, "pc");
    r->s = (uint16_t)geti(st, "s");
    r->p = (uint8_t)geti(st, "p");
    r->a = (uint16_t)geti(st, "a");
    r->x = (uint16_t)geti(st, "x");
    r->y = (uint16_t)geti(st, "y");
    r->dbr = (uint8_t)geti(st, "dbr");
    r->d = (uint16_t)geti(st, "d");
    r->pbr = (uint8_t)geti(st, "pbr");
    r->e = (uint8_t)geti(st, "e");
}

static void load_ram(uint8_t *mem, const cJSON *st)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(st, "ram"))
        mem[cJSON_GetArrayItem(e, 0)->valueint & 0xFFFFFF] = (uint8_t)cJSON_GetArrayItem(e, 1)->valueint;
}

static void clear_ram(uint8_t *mem, const cJSON *st)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(st, "ram"))
        mem[cJSON_GetArrayItem(e, 0)->valueint & 0xFFFFFF] = 0;
}

static int regs_diff(const snes_cpu_regs *a, const snes_cpu_regs *b, char *out, size_t n)
{
#define F(f)                                                                                   \
    if (a->f != b->f)                                                                          \
        return snprintf(out, n, #f " %X want %X", (unsigned)a->f, (unsigned)b->f), 1;
    F(pc) F(s) F(p) F(a) F(x) F(y) F(dbr) F(d) F(pbr) F(e)
#undef F
    return 0;
}

typedef struct {
    uint8_t *mem, *mem2;
    refbus rb;
    snes_cpu_bus ref, fast;
} runner;

/* Runs one test; returns 1 when it passed, else 0 with a reason in why. */
static int run_test(runner *t, const cJSON *test, char *why, size_t nwhy)
{
    const cJSON *ini = cJSON_GetObjectItemCaseSensitive(test, "initial");
    const cJSON *fin = cJSON_GetObjectItemCaseSensitive(test, "final");
    const cJSON *cycles = cJSON_GetObjectItemCaseSensitive(test, "cycles");
    snes_cpu_regs r0, want, got;
    regs_from(ini, &r0);
    regs_from(fin, &want);
    int ok = 1;

    /* reference bus */
    load_ram(t->mem, ini);
    t->rb.ncyc = 0;
    snes_cpu c;
    snes_cpu_init(&c, &t->ref);
    snes_cpu_set_regs(&c, &r0);
    snes_cpu_step(&c);
    snes_cpu_get_regs(&c, &got);
    uint64_t ref_clock = c.s.clock;
    if (regs_diff(&got, &want, why, nwhy))
        ok = 0;
    const cJSON *e;
    if (ok) {
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(fin, "ram")) {
            uint32_t a = (uint32_t)cJSON_GetArrayItem(e, 0)->valueint;
            int v = cJSON_GetArrayItem(e, 1)->valueint;
            if (t->mem[a] != v) {
                snprintf(why, nwhy, "ram[%06X] %02X want %02X", a, t->mem[a], v);
                ok = 0;
                break;
            }
        }
    }
    int nwant = cJSON_GetArraySize(cycles);
    if (ok && nwant != t->rb.ncyc) {
        snprintf(why, nwhy, "%d cycles, want %d", t->rb.ncyc, nwant);
        ok = 0;
    }
    for (int i = 0; ok && i < nwant && i < MAX_CYC; i++) {
        const cJSON *cy = cJSON_GetArrayItem(cycles, i);
        uint32_t a = (uint32_t)cJSON_GetArrayItem(cy, 0)->valueint;
        const cJSON *vv = cJSON_GetArrayItem(cy, 1);
        int v = cJSON_IsNumber(vv) ? vv->valueint : -1;
        const char *sig = cJSON_GetArrayItem(cy, 2)->valuestring;
        const cyc_t *g = &t->rb.cyc[i];
        if (g->addr != a || g->value != v || strcmp(g->sig, sig) != 0) {
            snprintf(why, nwhy, "cycle %d: %06X %d %s, want %06X %d %s", i, g->addr, g->value, g->sig, a, v, sig);
            ok = 0;
        }
    }

    /* fast bus on a second memory: same final state and clock as the reference run */
    load_ram(t->mem2, ini);
    snes_cpu f;
    snes_cpu_init(&f, &t->fast);
    snes_cpu_set_regs(&f, &r0);
    snes_cpu_step(&f);
    snes_cpu_regs fr;
    snes_cpu_get_regs(&f, &fr);
    char tmp[160];
    if (ok && regs_diff(&fr, &got, tmp, sizeof tmp)) {
        snprintf(why, nwhy, "fast bus differs from reference: %s", tmp);
        ok = 0;
    }
    if (ok && f.s.clock != ref_clock) {
        snprintf(why, nwhy, "fast bus clock %llu, reference %llu", (unsigned long long)f.s.clock,
                 (unsigned long long)ref_clock);
        ok = 0;
    }
    if (ok) {
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(fin, "ram")) {
            uint32_t a = (uint32_t)cJSON_GetArrayItem(e, 0)->valueint;
            if (t->mem2[a] != t->mem[a]) {
                snprintf(why, nwhy, "fast bus ram[%06X] %02X, reference %02X", a, t->mem2[a], t->mem[a]);
                ok = 0;
                break;
            }
        }
    }
    /* Every address the test touches is cleared for the next one: the initial and final
     * lists and every cycle's address. */
    clear_ram(t->mem, ini), clear_ram(t->mem, fin), clear_ram(t->mem2, ini), clear_ram(t->mem2, fin);
    cJSON_ArrayForEach(e, cycles) {
        uint32_t a = (uint32_t)cJSON_GetArrayItem(e, 0)->valueint & 0xFFFFFF;
        t->mem[a] = t->mem2[a] = 0;
    }
    for (int i = 0; i < t->rb.ncyc && i < MAX_CYC; i++)
        t->mem[t->rb.cyc[i].addr] = t->mem2[t->rb.cyc[i].addr] = 0;
    return ok;
}

int main(void)
{
    const char *dir = getenv("GV_SST_65816");
    char path[4096], def[4096];
    const char *root = getenv("GV_ROOT");
    snprintf(def, sizeof def, "%s/tests/data/65816/v1", root ? root : ".");
    if (!dir || !*dir)
        dir = def;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        t_skip("snes cpu SingleStepTests",
               "no data at %s: set GV_SST_65816 to the v1 folder of the SingleStepTests 65816 set, "
               "or extract it to tests/data/65816/v1 (docs/SNES_65816.md)", dir);
        return t_done();
    }
    long sample = getenv("GV_SST_SAMPLE") ? atol(getenv("GV_SST_SAMPLE")) : 0;
    const char *only = getenv("GV_SST_ONLY");

    runner t;
    memset(&t, 0, sizeof t);
    t.mem = calloc(MEM_SIZE, 1);
    t.mem2 = calloc(MEM_SIZE, 1);
    if (!t.mem || !t.mem2) {
        printf("FAIL snes cpu SingleStepTests: out of memory\n");
        return 1;
    }
    t.rb.mem = t.mem;
    t.ref.ctx = &t.rb;
    t.ref.cycle = ref_cycle;
    for (unsigned p = 0; p < SNES_CPU_PAGES; p++) {
        t.fast.page[p].r = t.mem2 + ((size_t)p << SNES_CPU_PAGE_SHIFT);
        t.fast.page[p].w = t.mem2 + ((size_t)p << SNES_CPU_PAGE_SHIFT);
        t.fast.page[p].len = 8;
    }

    int missing = 0, files = 0;
    long total = 0, total_pass = 0;
    char first_missing[16] = "";
    for (int op = 0; op < 256; op++) {
        for (int mode = 0; mode < 2; mode++) {
            char name[16];
            snprintf(name, sizeof name, "%02x.%c", op, mode ? 'n' : 'e');
            if (only && strcmp(only, name) != 0)
                continue;
            snprintf(path, sizeof path, "%.4000s/%s.json", dir, name);
            uint8_t *data;
            size_t len;
            gv_err err;
            if (gv_read_file(path, 0, &data, &len, &err) != GV_OK) {
                if (!missing++)
                    snprintf(first_missing, sizeof first_missing, "%s", name);
                continue;
            }
            cJSON *arr = cJSON_ParseWithLength((const char *)data, len);
            free(data);
            if (!cJSON_IsArray(arr)) {
                t_check(0, "snes cpu sst", "%s: not a JSON array (a Git LFS pointer or a truncated file?)", path);
                cJSON_Delete(arr);
                continue;
            }
            files++;
            long n = 0, pass = 0;
            char why[256], first[320] = "";
            int shown = 0;
            const cJSON *test;
            cJSON_ArrayForEach(test, arr) {
                if (sample > 0 && n >= sample)
                    break;
                n++;
                if (run_test(&t, test, why, sizeof why)) {
                    pass++;
                } else {
                    if (!shown)
                        snprintf(first, sizeof first, "first failure '%s': %s",
                                 cJSON_GetObjectItemCaseSensitive(test, "name")->valuestring, why);
                    if (shown < 3 && getenv("GV_SST_VERBOSE"))
                        printf("    %s: %s\n", cJSON_GetObjectItemCaseSensitive(test, "name")->valuestring, why);
                    shown++;
                }
            }
            cJSON_Delete(arr);
            total += n, total_pass += pass;
            char label[64];
            snprintf(label, sizeof label, "snes cpu sst %s", name);
            t_check(n > 0 && pass == n, label, "%ld/%ld tests pass (registers, memory, bus cycles, fast bus)%s%s",
                    pass, n, first[0] ? "; " : "", first);
        }
    }
    if (missing)
        t_skip("snes cpu sst missing files", "%d of the 512 files are not in %s (first: %s.json); "
               "those opcodes are covered by test_snes_cpu only", missing, dir, first_missing);
    printf("snes cpu sst: %d files, %ld/%ld tests pass\n", files, total_pass, total);
    free(t.mem);
    free(t.mem2);
    return t_done();
}
