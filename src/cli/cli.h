/* cli.h: the subcommands of gpuvet. Each takes the words after its name (argv[0] is the
 * first option, not the command) and returns a process exit code (GV_EXIT_*). */
#ifndef GV_CLI_CLI_H
#define GV_CLI_CLI_H

int cmd_probe(int argc, char **argv);
int cmd_smoke(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_soak(int argc, char **argv);
int cmd_bench_matmul(int argc, char **argv);
int cmd_bench_train(int argc, char **argv);
int cmd_bench_emu(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_blas_race(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_all(int argc, char **argv);

/* Parses a command's flags; on --help prints help and sets *exit_code = 0; on a bad flag
 * prints the one-line error and sets *exit_code = 2. Returns 1 when the caller should go
 * on, 0 when it should return *exit_code. Sets gv_quiet from a --quiet flag if the spec
 * list contains one bound to `quiet` (may be NULL). */
#include "core/args.h"
int cli_parse(const char *cmdname, const char *usage, const char *description,
              const args_spec *specs, int nspecs, int argc, char **argv,
              const char **pos, int max_pos, int *npos, const int *quiet, int *exit_code);

#endif
