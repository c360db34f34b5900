/*
 * cmd_run.c: `relaxsim run SCENARIO [--backend nlp|lemke] [--set key=value ...] [-o traj.csv]`.
 * Simulates with one backend, prints the summary, writes the trajectory CSV with -o.
 * Exit 0 when every step was solved and the contract (its checks that apply) passed, 1 otherwise,
 * 2 for bad usage or input.
 */
#include <stdio.h>

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    char temp[1200] = "";
    if (a.out) { /* -o must be writable before a long simulation, not after it */
        char dir[1100];
        const char *slash = strrchr(a.out, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - a.out) : 1, slash ? a.out : ".");
        struct stat st;
        if (stat(a.out, &st) == 0 && S_ISDIR(st.st_mode))
            return rs_cli_usage_error("-o %s: is a directory (give a file name)", a.out);
        if (rs_check_writable_directory(dir[0] ? dir : "/", &detail) != RS_OK)
            return rs_cli_usage_error("-o: %s", detail.message);
        rs_temp_path(a.out, temp, sizeof temp);
        char kept[1200];
        snprintf(kept, sizeof kept, "nothing written; %s is unchanged", a.out);
        rs_cli_on_interrupt(kept);
    }
    rs_compare_result r;
    rs_error err = rs_compare_run(&sc, backend == RS_BACKEND_LEMKE ? RS_RUN_LEMKE : RS_RUN_NLP,
                                  a.quiet ? NULL : rs_cli_progress, NULL, &r);
    if (err != RS_OK)
        return rs_cli_usage_error("%s: %s", a.scenario, rs_error_string(err));
    if (a.out) { /* the whole file under a temporary name, then renamed into place */
        rs_cli_track_temp(temp);
        err = rs_write_trajectory_csv(temp, &sc, &r, backend, &detail);
        if (err == RS_OK)
            err = rs_rename_into_place(temp, a.out, &detail);
        else
            unlink(temp);
        rs_cli_untrack_temps();
        if (err != RS_OK) {
            rs_compare_free(&r);
            return rs_cli_usage_error("%s", detail.message);
        }
    }
    if (!a.quiet)
        rs_cli_print_summary(stdout, &sc, &r);
    else
        rs_cli_name_failed_checks(stderr, "run", a.scenario, r.checks, r.nchecks);
    const rs_trajectory_stats *t = backend == RS_BACKEND_NLP ? &r.nlp : &r.lemke;
    if (a.quiet && t->failed_steps > 0)
        fprintf(stderr, "relaxsim: run: %s: %d failed steps\n", a.scenario, t->failed_steps);
    const int code = (t->failed_steps == 0 && r.contract_passed) ? RS_EXIT_OK : RS_EXIT_FAILED;
    rs_compare_free(&r);
    rs_scenario_release(&sc);
    return code;
}
