/*
 * cmd_run.c: `relaxsim run SCENARIO [--backend nlp|lemke] [--set key=value ...] [-o traj.csv]`.
 * Simulates with one backend, prints the summary, writes the trajectory CSV with -o.
 * Exit 0 when the contract (its checks that apply) passed, 1 otherwise, 2 for bad usage or input;
 * as in compare, a failed step fails the contract unless it bounds the failed steps itself.
 */
#include <stdio.h>

#include <string.h>

#include "cli/cli.h"
#include "cli/cli_report.h"
#include "io/outset.h"
#include "io/output.h"

static const char usage[] =
    "relaxsim run SCENARIO [--backend nlp|lemke] [--set section.key=value ...] [-o traj.csv] [-q]";

typedef struct run_file {
    const rs_scenario *sc;
    rs_backend backend;
    FILE *f;
} run_file;

static void write_row(void *ctx, int k, const rs_compare_step *st)
{
    const run_file *rf = ctx;
    rs_trajectory_csv_row(rf->f, rf->sc, rf->backend, k, st);
}

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
    rs_outfile *out = NULL; /* -o: checked before a long simulation, written as it goes */
    if (a.out && rs_cli_outfile_begin(a.out, &out, &detail) != RS_OK) {
        rs_scenario_release(&sc);
        return rs_cli_usage_error("-o: %s", detail.message);
    }
    if (out) {
        char kept[1200];
        snprintf(kept, sizeof kept, "nothing written; %s is unchanged", a.out);
        rs_cli_on_interrupt(kept);
    }
    run_file rf = {&sc, backend, out ? rs_outfile_stream(out) : NULL};
    if (rf.f)
        rs_trajectory_csv_header(rf.f, &sc, backend);
    rs_compare_options opt;
    rs_compare_options_default(&opt);
    opt.keep_steps = 0;
    opt.sink = rf.f ? write_row : NULL;
    opt.sink_ctx = &rf;
    opt.progress = rs_cli_progress; /* on a terminal only, -q or not */
    static rs_compare_result r; /* static: its checks table is large */
    rs_error err = rs_compare_run_with(&sc, backend == RS_BACKEND_LEMKE ? RS_RUN_LEMKE : RS_RUN_NLP,
                                       &opt, &r);
    if (err != RS_OK) {
        rs_outfile_abort(out);
        rs_scenario_release(&sc);
        return rs_cli_usage_error("%s: %s", a.scenario, rs_error_string(err));
    }
    const rs_error werr = out ? rs_outfile_commit(out, &detail) : RS_OK;
    if (werr != RS_OK) {
        rs_compare_free(&r);
        rs_scenario_release(&sc);
        return rs_cli_output_error(werr, "%s", detail.message);
    }
    if (!a.quiet)
        rs_cli_print_summary(stdout, &sc, &r);
    else
        rs_cli_name_failed_checks(stderr, "run", a.scenario, r.checks, r.nchecks);
    const rs_trajectory_stats *t = backend == RS_BACKEND_NLP ? &r.nlp : &r.lemke;
    if (a.quiet && t->failed_steps > 0)
        fprintf(stderr, "relaxsim: run: %s: %d failed steps\n", a.scenario, t->failed_steps);
    /* as compare: the contract decides; a failed step fails it unless it bounds them itself */
    const int code = r.contract_passed ? RS_EXIT_OK : RS_EXIT_FAILED;
    rs_compare_free(&r);
    rs_scenario_release(&sc);
    return code;
}
