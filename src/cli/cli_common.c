/* cli_common.c: flag parsing with help and errors, shared by every subcommand. */
#include <stdio.h>

#include "cli/cli.h"
#include "core/gv.h"

int cli_parse(const char *cmdname, const char *usage, const char *description,
              const args_spec *specs, int nspecs, int argc, char **argv,
              const char **pos, int max_pos, int *npos, const int *quiet, int *exit_code)
{
    gv_err err = {{0}};
    int r = args_parse(specs, nspecs, argc, argv, pos, max_pos, npos, &err);
    if (r == ARGS_HELP) {
        args_print_help(stdout, usage, description, specs, nspecs);
        *exit_code = GV_EXIT_OK;
        return 0;
    }
    if (r != ARGS_OK) {
        fprintf(stderr, "gpuvet %s: %s\n", cmdname, err.msg);
        *exit_code = GV_EXIT_USAGE;
        return 0;
    }
    if (quiet && *quiet)
        gv_quiet = 1;
    return 1;
}
