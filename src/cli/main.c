/* main.c: the relaxsim command: dispatches to one subcommand per file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relaxsim/relaxsim.h"
#include "cli/cli.h"
#include "io/outset.h"

/* Each command's synopsis and what it does: `relaxsim --help` prints them all, `relaxsim CMD
 * --help` (or `relaxsim --help CMD`) those of CMD. relaxsim(1) and docs/commands/ have each command
 * in full. */
static const struct {
    const char *name; /* "lcp solve", "study known-friction", ... */
    const char *text; /* the synopsis after "relaxsim ", then the description */
} commands[] = {
    {"lcp solve", "lcp solve FILE [--solver lemke|ipopt] [--json] [--max-pivots N] [--tol T]\n"
                  "        solve the LCP in a Siconos .dat file and print its certificate\n"},
    {"lcp gen", "lcp gen --class spd|pmatrix|psd|friction --n N --seed S [--degenerate]\n"
                "          [--storage dense|sparse-block] [--block-size B] -o FILE\n"
                "        write a generated LCP with a known solution\n"},
    {"run", "run SCENARIO [--backend nlp|lemke] [--set section.key=value ...] [-o traj.csv] [-q]\n"
            "        simulate a scenario with one backend\n"},
    {"compare",
     "compare SCENARIO [--set section.key=value ...] [--capsule STEP ...] [-o DIR] [-q]\n"
     "        the NLP trajectory with a Lemke solve of every step from the same state, an\n"
     "        independent Lemke trajectory, and the scenario's tolerance contract\n"},
    {"grad",
     "grad SCENARIO --wrt KEY[,KEY...] [--of COLUMN[@STEP],...] [--fd-step REL] [--rtol R]\n"
     "       [--no-fd] [--fd-nlp] [--fd-nlp-step REL] [--sweep KEY=LO:HI:N]\n"
     "       [--set section.key=value ...] [-o DIR] [-q]\n"
     "        gradients of a run's outputs by the LCP's forward mode, the NLP's KKT\n"
     "        sensitivity and central differences, side by side, with the contract's\n"
     "        gradient checks\n"},
    {"dataset", "dataset SCENARIO -o FILE.csv [--set section.key=value ...] [--noise SIGMA]\n"
                "          [--noise-seed S] [-q]\n"
                "        a scenario's Lemke trajectory as learning data: per step the state, the\n"
                "        input, the step LCP's z and w and the next state, with optional\n"
                "        measurement noise\n"},
    {"study noisy-sticking",
     "study noisy-sticking [--samples N] [--seed S] [--sigmas S1,S2,...] "
     "-o DIR [-q]\n"
     "        note 001's noisy-LCP sticking study: report.md, summary.json,\n"
     "        sticking.png\n"},
    {"study unknown-friction", "study unknown-friction [--starts MU1,...] [--scenario FILE] -o DIR "
                               "[-q]\n"
                               "        note 001's fit of mu: LCP and NLP gradients against\n"
                               "        golden-section search\n"},
    {"study known-friction", "study known-friction [--noises S1,...] [--train N] [--test N] "
                             "[--seed S]\n"
                             "        [--scenario FILE] -o DIR [-q]\n"
                             "        note 000's fit of f and G from data with known friction\n"
                             "        (IPOPT)\n"},
    {"study decomposed-velocities", "study decomposed-velocities [same options] -o DIR [-q]\n"
                                    "        note 000's Remark 4: the same fits with the velocity\n"
                                    "        parts clamped at 0\n"},
    {"replay", "replay CAPSULE [--set section.key=value ...] [--ipopt-print-level N]\n"
               "         [--json | --continuation [-o DIR]]\n"
               "        re-solve one step of a comparison both ways from its capsule\n"
               "        (DIR/capsules/); or its relaxation-bias curve: the distance to Lemke's\n"
               "        answer against eps and tol\n"},
    {"check", "check [PATH ...] [-j N] [--junit FILE] [--json FILE] [--filter GLOB]\n"
              "        [--exclude GLOB] [-q]\n"
              "        every scenario and sweep under the paths (default problems/) with its\n"
              "        contract, as a test runner: one line per file, totals, JUnit XML for CI\n"},
    {"batch", "batch SWEEP [-j N] [-o DIR] [--resume [--retry-crashed]] [--shard I/N]\n"
              "        [--stack K] [--keep] [-q]\n"
              "        every parameter combination of a sweep as a comparison with its\n"
              "        contract, in N worker processes\n"},
    {"plot", "plot DIR [--at T1,T2,...]\n"
             "        PNG plots of a comparison, a batch or a gradient sweep (gnuplot); --at:\n"
             "        the times of a bodies comparison's outlines\n"},
    {"models", "models\n"
               "        list the models with their parameters, state, inputs and variants\n"},
};

static const char exit_codes[] =
    "exit codes: 0 success, 1 a solve or a tolerance check failed, 2 bad usage or input,\n"
    "130 interrupted (SIGINT, SIGTERM)\n";

static void print_usage(FILE *f)
{
    fputs("usage: relaxsim <command> [options]\n\ncommands:\n", f);
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        fprintf(f, "  %s", commands[k].text);
    fputs("\n  --help [COMMAND]   this text, or one command's\n"
          "  --version          the version\n\n",
          f);
    fputs(exit_codes, f);
}

/* The help of the command named by words[0] (and words[1] for lcp and study): every entry whose
 * name starts with it. 0 if there is none. */
static int print_command_help(const char *first, const char *second)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s%s", first, second ? " " : "", second ? second : "");
    int shown = 0;
    for (int pass = 0; pass < 2 && !shown; pass++) /* the two words, then the first alone */
        for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
            const char *want = pass == 0 ? name : first;
            const size_t len = strlen(want);
            if (strncmp(commands[k].name, want, len) == 0 &&
                (commands[k].name[len] == '\0' || commands[k].name[len] == ' ')) {
                printf("%s  relaxsim %s", shown ? "" : "usage:\n", commands[k].text);
                shown++;
            }
        }
    if (shown) /* `models` has no page of its own: it lists the models of docs/models.md */
        printf("\nthe options in full: man relaxsim, or docs/%s%s.md\n%s",
               strcmp(first, "models") == 0 ? "" : "commands/", first, exit_codes);
    return shown;
}

/* What a command printed reached standard output, or the command fails: a full disk or a closed
 * pipe is exit 1 with its reason (a command's report lost is no success), never a silent 0. */
static int stdout_written(int code)
{
    errno = 0;
    const int failed = fflush(stdout) != 0 || ferror(stdout);
    if (!failed)
        return code;
    const int e = errno;
    fprintf(stderr, "relaxsim: standard output: cannot write: %s\n",
            e ? strerror(e) : "a write failed");
    return code == RS_EXIT_OK ? RS_EXIT_FAILED : code;
}

static int run_command(int argc, char **argv);

int main(int argc, char **argv)
{
    /* a command that returns early (an error) leaves no staged output behind */
    atexit(rs_outset_remove_staged);
    return stdout_written(run_command(argc, argv));
}

static int run_command(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return RS_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (argc == 2) {
            print_usage(stdout);
            return RS_EXIT_OK;
        }
        if (argc <= 4 && print_command_help(argv[2], argc == 4 ? argv[3] : NULL))
            return RS_EXIT_OK;
        return rs_cli_usage_error("--help: no command '%s' (see relaxsim --help)", argv[2]);
    }
    if (strcmp(cmd, "--version") == 0) {
        if (argc > 2)
            return rs_cli_usage_error("--version takes no argument");
        printf("relaxsim %s\n", rs_version());
        return RS_EXIT_OK;
    }
    /* COMMAND ... --help: that command's synopsis, whatever else is on the line */
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            const int two_words = strcmp(cmd, "lcp") == 0 || strcmp(cmd, "study") == 0;
            const char *second = two_words && i > 2 ? argv[2] : NULL;
            if (print_command_help(cmd, second))
                return RS_EXIT_OK;
            break; /* an unknown command: said below */
        }
    if (strcmp(cmd, "lcp") == 0) {
        if (argc < 3)
            return rs_cli_usage_error("lcp needs a subcommand: solve or gen (see relaxsim --help)");
        if (strcmp(argv[2], "solve") == 0)
            return rs_cmd_lcp_solve(argc - 2, argv + 2);
        if (strcmp(argv[2], "gen") == 0)
            return rs_cmd_lcp_gen(argc - 2, argv + 2);
        return rs_cli_usage_error("unknown lcp subcommand '%s' (expected solve or gen)", argv[2]);
    }
    if (strcmp(cmd, "run") == 0)
        return rs_cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return rs_cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "study") == 0)
        return rs_cmd_study(argc - 1, argv + 1);
    if (strcmp(cmd, "replay") == 0)
        return rs_cmd_replay(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0)
        return rs_cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "dataset") == 0)
        return rs_cmd_dataset(argc - 1, argv + 1);
    if (strcmp(cmd, "grad") == 0)
        return rs_cmd_grad(argc - 1, argv + 1);
    if (strcmp(cmd, "batch") == 0)
        return rs_cmd_batch(argc - 1, argv + 1);
    if (strcmp(cmd, "plot") == 0)
        return rs_cmd_plot(argc - 1, argv + 1);
    if (strcmp(cmd, "models") == 0)
        return rs_cmd_models(argc - 1, argv + 1);
    return rs_cli_usage_error("unknown command '%s' (see relaxsim --help)", cmd);
}
