/* cmd_nes.c: placeholder until this command lands; it reports that and exits 3. */
#include <stdio.h>
#include "cli/cli.h"
#include "core/gv.h"
int cmd_run_nes(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "gpuvet: this command is not in this build yet\n"); return GV_EXIT_ENV; }
int cmd_bench_nes(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "gpuvet: this command is not in this build yet\n"); return GV_EXIT_ENV; }
