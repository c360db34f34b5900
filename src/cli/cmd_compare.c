/*
 * cmd_compare.c: `relaxsim compare SCENARIO [--set key=value ...] [-o DIR] [-q]`.
 * The NLP trajectory with a shadow Lemke solve at every step, plus an independent Lemke
 * trajectory; writes trajectory_nlp.csv, trajectory_lemke.csv, shadow.csv, steps.jsonl and
 * summary.json to DIR (default out/<scenario name>), prints the summary, checks the contract.
 * Exit 0 when the contract passed, 1 when a check failed, 2 for bad usage or input.
 */
#include <stdio.h>
#include <string.h>

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

static rs_error write_all(const char *dir, const rs_scenario *sc, const rs_compare_result *r,
                          rs_error_detail *detail)
{
    char path[1200];
    rs_error err = rs_make_directory(dir, detail);
#define WRITE(name, call)                                                                          \
    if (err == RS_OK) {                                                                            \
        snprintf(path, sizeof path, "%s/%s", dir, name);                                           \
        err = call;                                                                                \
    }
    WRITE("trajectory_nlp.csv", rs_write_trajectory_csv(path, sc, r, RS_BACKEND_NLP, detail));
    WRITE("trajectory_lemke.csv", rs_write_trajectory_csv(path, sc, r, RS_BACKEND_LEMKE, detail));
    WRITE("shadow.csv", rs_write_shadow_csv(path, sc, r, detail));
    WRITE("steps.jsonl", rs_write_steps_jsonl(path, sc, r, detail));
    WRITE("summary.json", rs_write_summary_json(path, sc, r, detail));
#undef WRITE
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
    return code;
}
