/* cli.h: what the subcommands of the relaxsim command share. */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <stdint.h>

#include "io/scenario.h"

/* Exit codes of the command. */
enum {
    RS_EXIT_OK = 0,       /* success */
    RS_EXIT_FAILED = 1,   /* a solve or a tolerance contract failed */
    RS_EXIT_USAGE = 2     /* bad usage or bad input */
};

/* Print "relaxsim: MESSAGE" to stderr and return RS_EXIT_USAGE. */
int rs_cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Print "relaxsim: MESSAGE" to stderr and return the exit code of an output that failed with
 * err: RS_EXIT_FAILED when its data could not be written (RS_ERR_WRITE: a full disk, a closed
 * pipe, once the work was done: no bad usage), RS_EXIT_USAGE otherwise (a path refused). */
int rs_cli_output_error(rs_error err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Option values, checked: on failure print what is wrong with OPTION and return 0. */
int rs_cli_parse_long(const char *option, const char *text, long lo, long hi, long *out);
int rs_cli_parse_u64(const char *option, const char *text, uint64_t *out);
int rs_cli_parse_double(const char *option, const char *text, double lo, double hi, double *out);

/* Value of an option that takes one: argv[*i + 1], advancing *i; NULL (message printed) if absent. */
const char *rs_cli_option_value(int argc, char **argv, int *i);

/* The longest output path (-o) taken: the files written below it get their names appended in
 * buffers of about 1100 characters, and a longer path would be cut, not refused. */
#define RS_CLI_MAX_OUT_PATH 900

/* rs_cli_option_value for -o: NULL (with a message) also when the path is empty or longer than
 * RS_CLI_MAX_OUT_PATH. */
const char *rs_cli_output_value(int argc, char **argv, int *i);

/* rs_outfile_begin (io/outset.h) for a command's single-file output: when path is standard
 * output (/dev/stdout), what the command prints goes to stderr from then on, so that stdout
 * carries the file alone (a JSON report followed by check's totals is not JSON). */
struct rs_outfile;
rs_error rs_cli_outfile_begin(const char *path, struct rs_outfile **out, rs_error_detail *detail);

/* A shipped scenario, problems/RELATIVE ("scenarios/x.ini"): below the current directory (the
 * source tree), else where `cmake --install` put it (share/relaxsim/problems), else in the
 * source tree the command was built from; the first that exists, written into buf (the first
 * one if none does: its load then says so). Returns buf. */
const char *rs_cli_shipped_problem(const char *relative, char *buf, size_t len);

/* The arguments of `run` and `compare`: SCENARIO [--set k=v ...] [-o PATH] [--backend B]. */
#define RS_CLI_MAX_SETS 64
typedef struct rs_cli_scenario_args {
    const char *scenario;
    const char *sets[RS_CLI_MAX_SETS];
    int nsets;
    const char *out;
    int backend;      /* -1: as in the scenario; 0 nlp; 1 lemke */
    int quiet;        /* no progress line, no table */
} rs_cli_scenario_args;

/* Parse; allow_backend: accept --backend. Prints the problem and returns 0 on bad usage. */
int rs_cli_parse_scenario_args(int argc, char **argv, const char *usage, int allow_backend,
                               rs_cli_scenario_args *a);

/* Parse the arguments, then load the scenario with its --set overrides into *sc. On bad usage or
 * input, prints the message and returns 0 (the command then exits RS_EXIT_USAGE). */
int rs_cli_load_scenario(int argc, char **argv, const char *usage, int allow_backend,
                         rs_cli_scenario_args *a, rs_scenario *sc);

/* rs_cli_load_scenario for a command with options of its own besides SCENARIO, --set, -o, -q:
 * own(ctx, argc, argv, &i) takes argv[i] if it is one of them (1, i advanced past its value), 0
 * if it is not, -1 (message printed) if it is malformed; the values of --set and -o are never
 * offered to it. ready(ctx) (may be NULL) then checks the command's options before the scenario
 * is loaded (0: message printed). */
typedef int (*rs_cli_own_option)(void *ctx, int argc, char **argv, int *i);
int rs_cli_load_scenario_with(int argc, char **argv, const char *usage, rs_cli_own_option own,
                              int (*ready)(void *ctx), void *ctx, rs_cli_scenario_args *a,
                              rs_scenario *sc);

/* 1 if a command that keeps every step (grad, dataset) can take sc's steps; 0 with the message
 * printed if not. */
int rs_cli_steps_kept_fit(const char *command, const rs_scenario *sc);

/* On SIGINT or SIGTERM: remove the staged outputs (io/outset.h), print "relaxsim: interrupted;
 * WHAT_IS_KEPT" and exit 130 (cli_interrupt.c). */
void rs_cli_on_interrupt(const char *what_is_kept);

/* Subcommands: argv[0] is the subcommand's own name. */
int rs_cmd_lcp_solve(int argc, char **argv);
int rs_cmd_lcp_gen(int argc, char **argv);
int rs_cmd_run(int argc, char **argv);
int rs_cmd_compare(int argc, char **argv);
int rs_cmd_plot(int argc, char **argv);
int rs_cmd_models(int argc, char **argv);
int rs_cmd_batch(int argc, char **argv);
int rs_cmd_grad(int argc, char **argv);
int rs_cmd_study(int argc, char **argv);
int rs_cmd_dataset(int argc, char **argv);
int rs_cmd_check(int argc, char **argv);
int rs_cmd_replay(int argc, char **argv);

/* The files `relaxsim plot DIR` writes into a comparison's or batch's directory: plot owns
 * them, and a new compare into DIR removes them with the old set (pictures of the previous run
 * beside the new data would say what the data no longer does); a fresh batch removes its own
 * (batch.c, remove_previous_batch). */
#define RS_PLOT_OUTPUTS                                                                            \
    "plot.gp", "plot.log", "positions.png", "velocities.png", "forces.png", "differences.png",     \
        "scene.png", "scene.dat", "scene_lines.dat", "batch_*.png", "grad_sweep.png",             \
        "bodies.png", "bodies.gif", "bodies_*.dat"

#endif
