/* cli_common.c: what every command shares: flag parsing with help and errors, the one
 * error line, the device list, the telemetry sampler and writing the record. */
#include <math.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/gv.h"
#include "core/record.h"

int cli_parse(const cli_help *help, const args_spec *specs, int nspecs, int argc, char **argv, const char **pos,
              const int *quiet)
{
    gv_err err = {{0}};
    int npos = 0;
    int r = args_parse(specs, nspecs, argc, argv, pos, help->words, &npos, &err);
    if (r == ARGS_HELP) {
        args_print_help(stdout, help->usage, help->description, specs, nspecs);
        return GV_EXIT_OK;
    }
    if (r != ARGS_OK) {
        fprintf(stderr, "gpuvet %s: %s\n", help->name, err.msg);
        return GV_EXIT_USAGE;
    }
    if (npos != help->words) {
        fprintf(stderr, "gpuvet %s: give %s\n", help->name, help->what);
        return GV_EXIT_USAGE;
    }
    if (quiet && *quiet)
        gv_quiet = 1;
    return CLI_GO;
}

int cli_parse_devices(const cli_help *help, const args_spec *specs, int nspecs, int argc, char **argv,
                      const args_common *com, dev_id *devs, int *ndev)
{
    int code = cli_parse(help, specs, nspecs, argc, argv, NULL, &com->quiet);
    if (code == CLI_GO && (code = cli_devices(help->name, com->devices, devs, ndev)) == 0)
        code = CLI_GO;
    return code;
}

int cli_fail(const char *cmd, gv_status st, const gv_err *err)
{
    fflush(stdout);
    fprintf(stderr, "gpuvet %s: %s\n", cmd, err->msg);
    return gv_status_exit(st);
}

int cli_devices(const char *cmd, const char *spec, dev_id *devs, int *n)
{
    gv_err err = {{0}};
    gv_status s = dev_parse_list(spec, devs, CLI_MAX_DEV, n, &err);
    return s == GV_OK ? 0 : cli_fail(cmd, s, &err);
}

gv_telemetry *cli_telemetry(const dev_id *devs, int ndev, double hz)
{
    int gpu = -1;
    for (int i = 0; i < ndev && gpu < 0; i++)
        if (devs[i].kind == DEV_GPU)
            gpu = devs[i].index;
    gv_telemetry_opts o = {hz, gpu, NULL, NULL};
    return gv_telemetry_start(&o);
}

cJSON *cli_record_start(const char *cmd, int argc, char **argv, const dev_id *devs, int ndev, double hz,
                        gv_telemetry **tel)
{
    *tel = cli_telemetry(devs, ndev, hz);
    return gv_record_new(cmd, argc, argv);
}

int cli_finish(const char *cmd, cJSON *rec, int code, const char *json)
{
    if (json) {
        gv_err err = {{0}};
        if (gv_record_finish_write(rec, code, json, &err) != GV_OK) {
            fprintf(stderr, "gpuvet %s: %s\n", cmd, err.msg);
            if (code == GV_EXIT_OK)
                code = GV_EXIT_ENV;
        }
    }
    cJSON_Delete(rec);
    return code;
}

void cli_load_line(const cJSON *rec)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(rec, "load");
    if (l && !gv_quiet)
        printf("load average %.2f before, %.2f at most during, %.2f after (%.0f usable cores)\n",
               gv_json_num(l, "before"), gv_json_num(l, "max"), gv_json_num(l, "after"), gv_json_num(l, "cores"));
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(rec, "warnings"))
        if (cJSON_IsString(w))
            printf("warning: %s\n", w->valuestring);
}

int cli_one_device(const char *cmd, const char *spec, dev_id *d)
{
    dev_id devs[CLI_MAX_DEV];
    int n, code;
    if ((code = cli_devices(cmd, spec, devs, &n)))
        return code;
    if (spec && n != 1) {
        fprintf(stderr, "gpuvet %s: --devices takes one device here (got %d)\n", cmd, n);
        return GV_EXIT_USAGE;
    }
    *d = devs[n - 1];
    return 0;
}
