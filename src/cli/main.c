/* main.c: the relaxsim command: dispatches to one subcommand per file. */
#include <stdio.h>
#include <string.h>

#include "relaxsim/relaxsim.h"
#include "cli/cli.h"

static const char usage_text[] =
    "usage: relaxsim <command> [options]\n"
    "\n"
    "commands:\n"
    "  lcp solve FILE [--solver lemke|ipopt] [--json] [--max-pivots N] [--tol T]\n"
    "        solve the LCP in a Siconos .dat file and print its certificate\n"
    "  lcp gen --class spd|pmatrix|psd|friction --n N --seed S [--degenerate]\n"
    "          [--storage dense|sparse-block] [--block-size B] -o FILE\n"
    "        write a generated LCP with a known solution\n"
    "  run SCENARIO [--backend nlp|lemke] [--set section.key=value ...] [-o traj.csv] [-q]\n"
    "        simulate a scenario with one backend\n"
    "  compare SCENARIO [--set section.key=value ...] [--capsule STEP ...] [-o DIR] [-q]\n"
    "        the NLP trajectory with a Lemke solve of every step from the same state, an\n"
    "        independent Lemke trajectory, and the scenario's tolerance contract\n"
    "  grad SCENARIO --wrt KEY[,KEY...] [--of COLUMN[@STEP],...] [--fd-step REL] [--rtol R]\n"
    "       [--no-fd] [--fd-nlp] [--fd-nlp-step REL] [--sweep KEY=LO:HI:N]\n"
    "       [--set section.key=value ...] [-o DIR] [-q]\n"
    "        gradients of a run's outputs by the LCP's forward mode, the NLP's KKT sensitivity\n"
    "        and central differences, side by side, with the contract's gradient checks\n"
    "  dataset SCENARIO -o FILE.csv [--set section.key=value ...] [--noise SIGMA]\n"
    "          [--noise-seed S] [-q]\n"
    "        a scenario's Lemke trajectory as learning data: per step the state, the input,\n"
    "        the step LCP's z and w and the next state, with optional measurement noise\n"
    "  study noisy-sticking [--samples N] [--seed S] [--sigmas S1,S2,...] -o DIR [-q]\n"
    "        note 001's noisy-LCP sticking study: report.md, summary.json, sticking.png\n"
    "  study unknown-friction [--starts MU1,...] [--scenario FILE] -o DIR [-q]\n"
    "        note 001's fit of mu: LCP and NLP gradients against golden-section search\n"
    "  study known-friction [--noises S1,...] [--train N] [--test N] [--seed S]\n"
    "        [--scenario FILE] -o DIR [-q]\n"
    "        note 000's fit of f and G from data with known friction, by IPOPT\n"
    "  study decomposed-velocities [same options] -o DIR [-q]\n"
    "        note 000's Remark 4: the same fits with the velocity parts clamped at 0\n"
    "  replay CAPSULE [--set section.key=value ...] [--ipopt-print-level N] [--json]\n"
    "         [--continuation [-o DIR]]\n"
    "        re-solve one step of a comparison both ways from its capsule (DIR/capsules/); or\n"
    "        its relaxation-bias curve: the distance to Lemke's answer against eps and tol\n"
    "  check [PATH ...] [-j N] [--junit FILE] [--json FILE] [--filter GLOB] [--exclude GLOB]\n"
    "        [-q]\n"
    "        every scenario and sweep under the paths (default problems/) with its contract, as\n"
    "        a test runner: one line per file, totals, JUnit XML for CI\n"
    "  batch SWEEP [-j N] [-o DIR] [--resume] [--shard I/N] [-q]\n"
    "        every parameter combination of a sweep as a comparison with its contract, in N\n"
    "        worker processes\n"
    "  plot DIR\n"
    "        PNG plots of a comparison or of a batch (gnuplot)\n"
    "  models\n"
    "        list the models with their parameters, state, inputs and variants\n"
    "\n"
    "  --help       this text\n"
    "  --version    the version\n"
    "\n"
    "exit codes: 0 success, 1 a solve or a tolerance check failed, 2 bad usage or input\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return RS_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return RS_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("relaxsim %s\n", rs_version());
        return RS_EXIT_OK;
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
