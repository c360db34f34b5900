/*
 * cmd_run.c: `relaxsim run SCENARIO [--backend nlp|lemke] [--set key=value ...] [-o traj.csv]`.
 * Simulates with one backend, prints the summary, writes the trajectory CSV with -o.
 * Exit 0 when every step was solved and the contract (its checks that apply) passed, 1 otherwise,
 * 2 for bad usage or input.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_report.h"
#include "io/output.h"

static const char usage[] =
    "relaxsim run SCENARIO [--backend nlp|lemke] [--set section.key=value ...] [-o traj.csv] [-q]";

int rs_cmd_run(int argc, char **argv)
{
    rs_cli_scenario_args a;
    static rs_scenario sc;
    if (!rs_cli_load_scenario(argc, argv, usage, 1, &a, &sc))
        return RS_EXIT_USAGE;
    rs_error_detail detail;
    if (a.backend >= 0)
        sc.backend_lemke = a.backend;
    const rs_backend backend = sc.backend_lemke ? RS_BACKEND_LEMKE : RS_BACKEND_NLP;
    rs_compare_result r;
    rs_error err = rs_compare_run(&sc, backend == RS_BACKEND_LEMKE ? RS_RUN_LEMKE : RS_RUN_NLP,
                                  a.quiet ? NULL : rs_cli_progress, NULL, &r);
    if (err != RS_OK)
        return rs_cli_usage_error("%s: %s", a.scenario, rs_error_string(err));
    if (a.out && rs_write_trajectory_csv(a.out, &sc, &r, backend, &detail) != RS_OK) {
        rs_compare_free(&r);
        return rs_cli_usage_error("%s", detail.message);
    }
    if (!a.quiet)
        rs_cli_print_summary(stdout, &sc, &r);
    const rs_trajectory_stats *t = backend == RS_BACKEND_NLP ? &r.nlp : &r.lemke;
    const int code = (t->failed_steps == 0 && r.contract_passed) ? RS_EXIT_OK : RS_EXIT_FAILED;
    rs_compare_free(&r);
    return code;
}
