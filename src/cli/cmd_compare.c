/*
 * cmd_compare.c: `relaxsim compare SCENARIO [--set key=value ...] [-o DIR] [-q]`.
 * The NLP trajectory with a shadow Lemke solve at every step, plus an independent Lemke
 * trajectory; writes trajectory_nlp.csv, trajectory_lemke.csv, shadow.csv, steps.jsonl and
 * summary.json to DIR (default out/<scenario name>), prints the summary, checks the contract.
 * Exit 0 when the contract passed, 1 when a check failed, 2 for bad usage or input.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_report.h"
#include "io/output.h"

static const char usage[] =
    "relaxsim compare SCENARIO [--set section.key=value ...] [-o DIR] [-q]";

/* out/<file name without directory and extension> */
static void default_out_dir(const char *scenario, char *buf, size_t n)
{
    const char *base = strrchr(scenario, '/');
    base = base ? base + 1 : scenario;
    const char *dot = strrchr(base, '.');
    const int len = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    snprintf(buf, n, "out/%.*s", len, base);
}

/*
 * The five outputs as one set: each is written under a temporary name; only when all five are
 * complete is the old summary.json removed and the files renamed into place, summary.json last.
 * A failed write (a full disk) or an interrupt leaves the previous set whole; a directory without
 * summary.json holds no complete set.
 */
enum { NFILES = 5 };
static const char *const file_names[NFILES] = {"trajectory_nlp.csv", "trajectory_lemke.csv",
                                               "shadow.csv", "steps.jsonl", "summary.json"};

static rs_error write_one(int i, const char *path, const rs_scenario *sc,
                          const rs_compare_result *r, rs_error_detail *detail)
{
    switch (i) {
    case 0: return rs_write_trajectory_csv(path, sc, r, RS_BACKEND_NLP, detail);
    case 1: return rs_write_trajectory_csv(path, sc, r, RS_BACKEND_LEMKE, detail);
    case 2: return rs_write_shadow_csv(path, sc, r, detail);
    case 3: return rs_write_steps_jsonl(path, sc, r, detail);
    default: return rs_write_summary_json(path, sc, r, detail);
    }
}

static rs_error write_all(const char *dir, const rs_scenario *sc, const rs_compare_result *r,
                          rs_error_detail *detail)
{
    char final[NFILES][1100], temp[NFILES][1200];
    rs_error err = RS_OK;
    int written = 0;
    for (; written < NFILES && err == RS_OK; written++) {
        snprintf(final[written], sizeof final[0], "%s/%s", dir, file_names[written]);
        rs_temp_path(final[written], temp[written], sizeof temp[0]);
        rs_cli_track_temp(temp[written]);
        err = write_one(written, temp[written], sc, r, detail);
    }
    if (err != RS_OK) {
        for (int i = 0; i < written; i++)
            unlink(temp[i]);
        rs_cli_untrack_temps();
        return err;
    }
    char kept[1200];
    snprintf(kept, sizeof kept, "%s was being replaced: it holds no complete set now (no "
             "summary.json); run the comparison again", dir);
    rs_cli_on_interrupt(kept);
    unlink(final[NFILES - 1]); /* the old set is incomplete from here on */
    for (int i = 0; i < NFILES && err == RS_OK; i++)
        err = rs_rename_into_place(temp[i], final[i], detail);
    for (int i = 0; i < NFILES; i++) /* after a failed rename: no temporary file stays behind */
        unlink(temp[i]);
    rs_cli_untrack_temps();
    return err;
}

int rs_cmd_compare(int argc, char **argv)
{
    rs_cli_scenario_args a;
    static rs_scenario sc;
    if (!rs_cli_load_scenario(argc, argv, usage, 0, &a, &sc))
        return RS_EXIT_USAGE;
    rs_error_detail detail;
    char dir[1024];
    if (a.out)
        snprintf(dir, sizeof dir, "%s", a.out);
    else
        default_out_dir(a.scenario, dir, sizeof dir);
    /* the output directory must be writable before a long simulation, not after it */
    if (rs_check_writable_directory(dir, &detail) != RS_OK)
        return rs_cli_usage_error("-o: %s", detail.message);
    char kept[1200];
    snprintf(kept, sizeof kept, "nothing written; the previous outputs in %s are unchanged", dir);
    rs_cli_on_interrupt(kept);
    rs_compare_result r;
    rs_error err = rs_compare_run(&sc, RS_RUN_COMPARE, a.quiet ? NULL : rs_cli_progress, NULL, &r);
    if (err != RS_OK)
        return rs_cli_usage_error("%s: %s", a.scenario, rs_error_string(err));
    if (write_all(dir, &sc, &r, &detail) != RS_OK) {
        rs_compare_free(&r);
        return rs_cli_usage_error("%s", detail.message);
    }
    if (!a.quiet) {
        rs_cli_print_summary(stdout, &sc, &r);
        printf("\n  wrote %s/{trajectory_nlp.csv, trajectory_lemke.csv, shadow.csv, steps.jsonl, "
               "summary.json}\n", dir);
    }
    const int code = r.contract_passed ? RS_EXIT_OK : RS_EXIT_FAILED;
    rs_compare_free(&r);
    rs_scenario_release(&sc);
    return code;
}
