/* test_probe_schema.c: validates probe records against the schema block of docs/PROBE.md:
 * `gpuvet probe --json -` on this machine (on a GPU machine this covers its GPUs too),
 * and the probes of every fixture tree. Also shows the validator rejects broken records
 * (a wrong type, a null without its reason, a missing field). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/gv.h"
#include "sys/probe.h"

typedef struct {
    char path[96], type[16];
    int nullable;
} rule;

static int load_rules(const char *md, rule *r, int max)
{
    const char *p = strstr(md, "```schema\n");
    if (!p)
        return 0;
    p += 10;
    int n = 0;
    while (*p && strncmp(p, "```", 3) && n < max) {
        char type[16];
        if (sscanf(p, "%95s %15s", r[n].path, type) == 2) {
            size_t l = strlen(type);
            r[n].nullable = type[l - 1] == '?';
            if (r[n].nullable)
                type[l - 1] = 0;
            snprintf(r[n].type, sizeof r[n].type, "%s", type);
            n++;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : "";
    }
    return n;
}

static int type_ok(const cJSON *v, const char *t)
{
    if (!strcmp(t, "string")) return cJSON_IsString(v);
    if (!strcmp(t, "number")) return cJSON_IsNumber(v);
    if (!strcmp(t, "bool")) return cJSON_IsBool(v);
    if (!strcmp(t, "object")) return cJSON_IsObject(v);
    if (!strcmp(t, "array")) return cJSON_IsArray(v);
    return 0;
}

/* Checks `rest` of a rule's path below o; appends problems to err. Returns problem count. */
static int check_path(const cJSON *o, const char *rest, const rule *r, const char *where, char *err, size_t elen)
{
    char head[96];
    const char *dot = strchr(rest, '.');
    size_t hl = dot ? (size_t)(dot - rest) : strlen(rest);
    snprintf(head, sizeof head, "%.*s", (int)hl, rest);
    int arr = hl > 2 && !strcmp(head + hl - 2, "[]");
    if (arr)
        head[hl - 2] = 0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, head);
    char here[512];
    snprintf(here, sizeof here, "%.300s%s%.96s", where, *where ? "." : "", head);
    size_t el = strlen(err);
    if (!v) {
        snprintf(err + el, elen - el, "%s missing; ", here);
        return 1;
    }
    if (arr) {
        if (!cJSON_IsArray(v)) {
            snprintf(err + el, elen - el, "%s is not an array; ", here);
            return 1;
        }
        int bad = 0, i = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, v) {
            char w[300];
            snprintf(w, sizeof w, "%.280s[%d]", here, i++);
            bad += check_path(it, dot + 1, r, w, err, elen);
        }
        return bad;
    }
    if (dot)
        return check_path(v, dot + 1, r, here, err, elen);
    if (cJSON_IsNull(v) && r->nullable) {
        char k[128];
        snprintf(k, sizeof k, "%s_why", head);
        if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, k)))
            return 0;
        snprintf(err + el, elen - el, "%s is null without %s; ", here, k);
        return 1;
    }
    if (!type_ok(v, r->type)) {
        snprintf(err + el, elen - el, "%s is not %s%s; ", here, r->type, r->nullable ? " or null" : "");
        return 1;
    }
    return 0;
}

/* Every null member outside environment.vars must have its _why beside it. */
static int nulls_have_reasons(const cJSON *o, const char *where, char *err, size_t elen)
{
    int bad = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, o) {
        char here[512];
        snprintf(here, sizeof here, "%.300s.%.100s", where, c->string ? c->string : "[]");
        if (c->string && !strcmp(here, ".environment.vars"))
            continue;
        if (cJSON_IsNull(c) && c->string) {
            char k[128];
            snprintf(k, sizeof k, "%s_why", c->string);
            if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, k))) {
                size_t el = strlen(err);
                snprintf(err + el, elen - el, "%s null without reason; ", here);
                bad++;
            }
        }
        if (cJSON_IsObject(c) || cJSON_IsArray(c))
            bad += nulls_have_reasons(c, here, err, elen);
    }
    return bad;
}

static int validate(const cJSON *p, const rule *r, int nr, char *err, size_t elen)
{
    err[0] = 0;
    int bad = 0;
    for (int i = 0; i < nr; i++)
        bad += check_path(p, r[i].path, &r[i], "", err, elen);
    return bad + nulls_have_reasons(p, "", err, elen);
}

static cJSON *run_probe(void)
{
    const char *bin = getenv("GPUVET");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' probe --json - 2>/dev/null", bin);
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, n = 0;
    char *buf = gv_xmalloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0)
        n += got;
    buf[n] = 0;
    int rc = pclose(f);
    cJSON *rec = rc == 0 ? cJSON_Parse(buf) : NULL, *p = NULL;
    free(buf);
    /* --json - prints the run record; the probe is its host.probe */
    cJSON *host = cJSON_GetObjectItem(rec, "host");
    if (host)
        p = cJSON_DetachItemFromObject(host, "probe");
    cJSON_Delete(rec);
    return p;
}

int main(void)
{
    const char *root = getenv("GV_ROOT");
    if (!root || !getenv("GPUVET")) {
        t_skip("probe schema", "GV_ROOT/GPUVET not set (run through make test)");
        return 0;
    }
    char path[600], err[8192];
    snprintf(path, sizeof path, "%s/docs/PROBE.md", root);
    uint8_t *md;
    size_t len;
    gv_err e;
    if (gv_read_file(path, 0, &md, &len, &e) != GV_OK) {
        t_check(0, "probe schema: docs/PROBE.md", "%s", e.msg);
        return t_done();
    }
    rule rules[256];
    int nr = load_rules((const char *)md, rules, 256);
    free(md);
    t_check(nr > 50, "probe schema: rules read from docs/PROBE.md", "%d rules", nr);

    cJSON *p = run_probe();
    if (t_check(p != NULL, "probe schema: gpuvet probe --json - is JSON", "%s", p ? "parsed" : "no output or bad JSON")) {
        int bad = validate(p, rules, nr, err, sizeof err);
        t_check(bad == 0, "probe schema: this machine's probe", "%d problems %s; %d GPUs", bad, err, cJSON_GetArraySize(cJSON_GetObjectItem(p, "gpus")));
        /* The validator must be able to fail. */
        cJSON *m = cJSON_Duplicate(p, 1);
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(m, "cpu"), "usable_cpus", cJSON_CreateString("two"));
        cJSON_DeleteItemFromObject(m, "kernel");
        cJSON *blas = cJSON_GetObjectItem(m, "blas");
        cJSON_ReplaceItemInObject(blas, "version", cJSON_CreateNull());
        cJSON_DeleteItemFromObject(blas, "version_why");
        bad = validate(m, rules, nr, err, sizeof err);
        t_check(bad >= 3 && strstr(err, "cpu.usable_cpus is not number") && strstr(err, "kernel missing") &&
                    strstr(err, "blas.version is null without version_why"),
                "probe schema: a broken record is rejected", "%d problems: %.300s", bad, err);
        cJSON_Delete(m);
        cJSON_Delete(p);
    }
    static const char *const trees[] = {"apu", "dgpu", "nvidia-mismatch"};
    for (size_t i = 0; i < GV_ARRAY_LEN(trees); i++) {
        char r[600];
        snprintf(r, sizeof r, "%s/tests/fixtures/sysfs/%s", root, trees[i]);
        char *envp[] = {"HSA_OVERRIDE_GFX_VERSION=11.0.0", "OMP_NUM_THREADS=1", NULL};
        sys_probe_opts o = {r, envp, "libgpuvet-no-such-nvml.so.1", 1};
        cJSON *q = sys_probe_json_opts(&o);
        int bad = validate(q, rules, nr, err, sizeof err);
        t_check(bad == 0, "probe schema: fixture tree", "%s: %d problems %s", trees[i], bad, err);
        cJSON_Delete(q);
    }
    return t_done();
}
