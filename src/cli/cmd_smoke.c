/* cmd_smoke.c: `gpuvet smoke`: bring each requested GPU up in five stages (dev/smoke.h)
 * and report every stage on its own line with its time, and on failure the runtime's
 * message and a hint. Exit 1 when a stage fails on a device that opened; 3 when there is no
 * GPU backend or the device cannot be opened (with the reason on stderr). */
#include <stdio.h>
#include <math.h>

#include "cli/cli.h"
#include "core/record.h"
#include "dev/dev.h"
#include "dev/smoke.h"

static const cli_help smoke_help = {
    "smoke",
    "gpuvet smoke [--devices cuda[:N],...] [--json FILE]",
    "Brings a GPU up in five stages, each on its own line with its time: open the device,\n"
    "copy [1,2,3] to it, compile a kernel at run time (NVRTC / hipRTC), run it, synchronise\n"
    "and read back [2,3,4]. On failure a stage prints the runtime's error and a hint.\n"
    "Default: GPU 0. Exit 0 when every stage passes, 1 otherwise.",
    0, NULL,
};

int cmd_smoke(int argc, char **argv)
{
    args_common c = {0};
    args_spec specs[] = {ARGS_COMMON_SPECS(&c)};
    int code = cli_parse(&smoke_help, specs, GV_ARRAY_LEN(specs), argc, argv, NULL, &c.quiet);
    if (code != CLI_GO)
        return code;

    /* Which GPU indices: every GPU entry of --devices, else GPU 0. CPU entries are ignored
     * (there is nothing to bring up), and a GPU that the runtime does not list is still
     * tried (the list's spelling alone is checked), so that its failure is reported stage
     * by stage. */
    int idx[CLI_MAX_DEV], nidx = 0;
    if (c.devices) {
        dev_id devs[CLI_MAX_DEV];
        int n = 0;
        gv_err err = {{0}};
        gv_status st = dev_parse_names(c.devices, devs, CLI_MAX_DEV, &n, &err);
        if (st != GV_OK)
            return cli_fail("smoke", st, &err);
        for (int i = 0; i < n; i++)
            if (devs[i].kind == DEV_GPU)
                idx[nidx++] = devs[i].index;
    }
    if (nidx == 0)
        idx[nidx++] = 0;

    if (!dev_gpu_backend()) {
        fprintf(stderr, "gpuvet smoke: this gpuvet was built without a GPU backend: build it with 'make GPU=cuda' "
                        "(NVIDIA) or 'make GPU=hip' (AMD), see docs/BUILD.md\n");
        return GV_EXIT_ENV;
    }
    cJSON *rec = gv_record_new("smoke", argc, argv);
    cJSON *arr = gv_json_add_arr(rec, "smoke");
    int failed = 0, no_device = 0;
    for (int k = 0; k < nidx; k++) {
        smoke_report r;
        int passed = dev_gpu_smoke(idx[k], &r);
        printf("gpuvet smoke: %s GPU %d%s%s\n", r.backend, idx[k], r.device[0] ? ": " : "", r.device);
        for (int i = 0; i < SMOKE_STAGES; i++) {
            const smoke_stage *s = &r.stage[i];
            if (!s->ran) {
                printf("  %d %-9s SKIP            (an earlier stage failed)\n", i + 1, s->name);
                continue;
            }
            printf("  %d %-9s %s %9.3f ms  %s\n", i + 1, s->name, s->ok ? "PASS" : "FAIL", s->seconds * 1e3, s->detail);
            if (!s->ok)
                printf("    hint: %s\n", s->hint);
        }
        printf("  %d/%d stages passed\n", passed, SMOKE_STAGES);
        failed |= passed != SMOKE_STAGES;
        if (!r.stage[0].ok) { /* the device did not open: missing, not misbehaving */
            fprintf(stderr, "gpuvet smoke: GPU %d cannot be opened: %s (hint: %s)\n", idx[k], r.stage[0].detail,
                    r.stage[0].hint);
            no_device = 1;
        }
        cJSON_AddItemToArray(arr, dev_smoke_json(&r, idx[k]));
    }
    return cli_finish("smoke", rec, no_device ? GV_EXIT_ENV : failed ? GV_EXIT_FAIL : GV_EXIT_OK, c.json);
}
