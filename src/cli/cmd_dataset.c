/*
 * cmd_dataset.c: `relaxsim dataset SCENARIO -o FILE.csv [--set key=value ...] [--noise SIGMA]
 * [--noise-seed S] [-q]`: the scenario's Lemke trajectory as learning data, one row per step
 * (sim/dataset.h, io/dataset_csv.h). Exit 0 when every step was solved, 1 when Lemke failed a step
 * (the file then holds the rows before it and says so), 2 for bad usage or input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/dataset_csv.h"
#include "io/outset.h"
#include "io/output.h"
#include "io/scenario.h"

static const char usage[] = "relaxsim dataset SCENARIO -o FILE.csv [--set section.key=value ...] "
                            "[--noise SIGMA] [--noise-seed S] [-q]";

typedef struct dataset_args {
    double noise;
    uint64_t seed;
} dataset_args;

/* dataset's own options, --noise and --noise-seed (rs_cli_load_scenario_with). */
static int dataset_option(void *ctx, int argc, char **argv, int *i)
{
    dataset_args *g = ctx;
    const char *arg = argv[*i], *v;
    if (strcmp(arg, "--noise") == 0)
        return (v = rs_cli_option_value(argc, argv, i)) &&
                       rs_cli_parse_double("--noise", v, 0.0, 1e3, &g->noise)
                   ? 1
                   : -1;
    if (strcmp(arg, "--noise-seed") == 0)
        return (v = rs_cli_option_value(argc, argv, i)) &&
                       rs_cli_parse_u64("--noise-seed", v, &g->seed)
                   ? 1
                   : -1;
    return 0;
}

static int dataset_loaded(const dataset_args *g, const rs_cli_scenario_args *a,
                          const rs_scenario *sc)
{
    rs_error_detail detail;
    if (!rs_cli_steps_kept_fit("dataset", sc))
        return RS_EXIT_USAGE;
    if (!a->out)
        return rs_cli_usage_error("dataset: -o FILE.csv is required (usage: %s)", usage);
    rs_outfile *out; /* checked before the run; written whole at its end */
    if (rs_cli_outfile_begin(a->out, &out, &detail) != RS_OK)
        return rs_cli_usage_error("-o: %s", detail.message);
    char kept[1200];
    snprintf(kept, sizeof kept, "nothing written; %s is unchanged", a->out);
    rs_cli_on_interrupt(kept);
    rs_dataset d;
    const rs_error err = rs_dataset_record(sc, g->noise, g->seed, &d);
    if (err != RS_OK)
        rs_outfile_abort(out);
    if (err == RS_ERR_BAD_ARG)
        return rs_cli_usage_error("dataset: %s: model %s does not name its LCP's components "
                                  "(datasets: falling_block, sliding_block_forward, "
                                  "sliding_block_direct, sliding_block_traditional, "
                                  "point2d_friction)",
                                  a->scenario, sc->model->name);
    if (err != RS_OK)
        return rs_cli_usage_error("dataset: %s: %s", a->scenario, rs_error_string(err));
    rs_write_dataset_csv(rs_outfile_stream(out), sc, &d);
    const rs_error werr = rs_outfile_commit(out, &detail);
    const int rows = d.rows, failed = d.failed_step, ncol = d.ncol;
    rs_dataset_free(&d);
    if (werr != RS_OK)
        return rs_cli_output_error(werr, "%s", detail.message);
    if (failed >= 0)
        fprintf(stderr,
                "relaxsim: dataset: %s: Lemke failed at step %d; %s holds the %d rows "
                "before it\n",
                a->scenario, failed, a->out, rows);
    if (!a->quiet)
        printf("  wrote %s: %d rows of %d columns (%s), noise %s\n", a->out, rows, ncol + 2,
               sc->model->name, g->noise > 0.0 ? "on (see its header lines)" : "none");
    return failed >= 0 ? RS_EXIT_FAILED : RS_EXIT_OK;
}

int rs_cmd_dataset(int argc, char **argv)
{
    dataset_args g = {0.0, 1};
    rs_cli_scenario_args a;
    static rs_scenario sc;
    if (!rs_cli_load_scenario_with(argc, argv, usage, dataset_option, NULL, &g, &a, &sc))
        return RS_EXIT_USAGE;
    const int code = dataset_loaded(&g, &a, &sc);
    rs_scenario_release(&sc);
    return code;
}
