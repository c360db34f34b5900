/*
 * cmd_batch.c: `relaxsim batch SWEEP [-j N] [-o DIR] [--resume] [--shard I/N] [--stack K]
 *   [--keep] [-q]`. --keep also writes each run's trajectories to DIR/runs/<run>/.
 * Runs every parameter combination of a sweep as one `compare` with its contract, in N worker
 * processes; appends each finished run to DIR/results.jsonl; at the end writes the sorted
 * DIR/summary.json and DIR/results.csv and prints a table grouped by the varied keys. With
 * --stack K a worker takes K runs at a time and advances the compatible ones in lock-step, their
 * step NLPs solved as one (sim/stack.h).
 * Exit 0 when every run passed its contract, 1 when any run failed (contract, bad parameter
 * value, crash), 2 for bad usage or a bad sweep file.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/output.h"
#include "io/batch_summary.h"
#include "batch/batch.h"
#include "cli/cli_progress.h"
#ifdef RS_HAVE_MPI
#include "cli/batch_mpi.h"
#endif

static const char usage[] =
    "relaxsim batch SWEEP [-j N] [-o DIR] [--resume [--retry-crashed]] [--shard I/N] [--stack K] "
    "[--keep] [-q]";

static rs_cli_meter meter; /* the batch's progress line (started before the runs) */

static void progress(void *ctx, const rs_batch_counts *c)
{
    (void)ctx;
    char failures[64];
    snprintf(failures, sizeof failures, "%ld failed",
             c->contract_failed + c->bad_input + c->crashed);
    rs_cli_meter_show(&meter, c->done, c->total, "runs", failures);
}

static void print_table(const rs_sweep *sw, const rs_batch_summary *s, const rs_batch_counts *c)
{
    printf("batch %s: %ld runs of %s", sw->path, s->runs, sw->scenario);
    printf(" (%ld run now, %ld resumed, %.1f s)\n\n", c->done - c->skipped, c->skipped, c->wall_s);
    for (int k = 0; k < sw->nkeys; k++) {
        printf("  %-24s %6s %8s %8s   %-28s\n", sw->keys[k].name, "runs", "passed", "failed",
               "worst shadow |NLP - Lemke|");
        for (int g = 0; g < s->ngroups[k]; g++) {
            const rs_batch_group *gr = &s->groups[k][g];
            char worst[64] = "-";
            if (gr->worst_column[0])
                snprintf(worst, sizeof worst, "%.3e (%s)", gr->worst, gr->worst_column);
            char num[RS_SWEEP_WORD_LEN];
            snprintf(num, sizeof num, "%.9g", gr->value);
            const char *value = sw->keys[k].words ? sw->keys[k].words[(int)gr->value] : num;
            printf("  %-24s %6ld %8ld %8ld   %-28s\n", value, gr->runs, gr->passed,
                   gr->runs - gr->passed, worst);
        }
        if (sw->keys[k].nvalues > RS_BATCH_MAX_GROUP_VALUES)
            printf("  (first %d values shown; all in results.csv)\n", RS_BATCH_MAX_GROUP_VALUES);
        printf("\n");
    }
    printf("  passed %ld, contract failed %ld, bad input %ld, crashed %ld\n", s->passed,
           s->contract_failed, s->bad_input, s->crashed);
    if (s->keep_errors)
        printf("  %ld runs could not keep their outputs (--keep): see keep_error in results.jsonl\n",
               s->keep_errors);
}

int rs_cmd_batch(int argc, char **argv)
{
    rs_batch_options o = {.jobs = 1, .shard_count = 1, .stack = 1};
    const char *sweep_path = NULL;
    int quiet = 0, jobs_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        long n;
        if (strcmp(a, "-j") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)) || !rs_cli_parse_long("-j", v, 1, 256, &n))
                return RS_EXIT_USAGE;
            o.jobs = (int)n;
            jobs_given = 1;
        } else if (strcmp(a, "--stack") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)) ||
                !rs_cli_parse_long("--stack", v, 1, RS_BATCH_MAX_STACK, &n))
                return RS_EXIT_USAGE;
            o.stack = (int)n;
        } else if (strcmp(a, "-o") == 0) {
            if (!(o.out_dir = rs_cli_output_value(argc, argv, &i)))
                return RS_EXIT_USAGE;
        } else if (strcmp(a, "--resume") == 0) {
            o.resume = 1;
        } else if (strcmp(a, "--retry-crashed") == 0) {
            o.retry_crashed = 1;
        } else if (strcmp(a, "--keep") == 0) {
            o.keep = 1;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--shard") == 0) {
            int si, sn, used = 0;
            if (!(v = rs_cli_option_value(argc, argv, &i)))
                return RS_EXIT_USAGE;
            if (sscanf(v, "%d/%d%n", &si, &sn, &used) != 2 || v[used] != '\0' || sn < 1 ||
                si < 0 || si >= sn)
                return rs_cli_usage_error("--shard: expected I/N with 0 <= I < N, got '%s'", v);
            o.shard_index = si;
            o.shard_count = sn;
        } else if (a[0] == '-' && a[1] != '\0') {
            return rs_cli_usage_error("batch: unknown option '%s' (usage: %s)", a, usage);
        } else if (sweep_path) {
            return rs_cli_usage_error("batch: one SWEEP expected, got '%s' and '%s'", sweep_path, a);
        } else {
            sweep_path = a;
        }
    }
    if (!sweep_path)
        return rs_cli_usage_error("batch: missing SWEEP (usage: %s)", usage);
    static rs_sweep sw;
    if (o.retry_crashed && !o.resume)
        return rs_cli_usage_error("batch: --retry-crashed goes with --resume");
    rs_error_detail d;
    if (rs_sweep_load(sweep_path, &sw, &d) != RS_OK)
        return rs_cli_usage_error("%s", d.message);
    char dir[1024];
    if (!o.out_dir) {
        const char *base = strrchr(sweep_path, '/');
        base = base ? base + 1 : sweep_path;
        const char *dot = strrchr(base, '.');
        snprintf(dir, sizeof dir, "out/%.*s", dot && dot != base ? (int)(dot - base) : (int)strlen(base), base);
        o.out_dir = dir;
    }
    char kept[2600];
    snprintf(kept, sizeof kept, "the finished runs are kept in %s/results.jsonl; "
             "'relaxsim batch %s --resume -o %s' continues the batch", o.out_dir, sweep_path,
             o.out_dir);
    rs_cli_on_interrupt(kept); /* removes the files being written (io/outset.h) */
    rs_batch_counts c;
    rs_error run_err;
    rs_cli_meter_start(&meter, "batch");
#ifdef RS_HAVE_MPI
    if (rs_cli_mpi_launched()) {
        if (jobs_given) {
            rs_sweep_free(&sw);
            return rs_cli_usage_error("batch: -j is not used under mpirun: the ranks are the workers");
        }
        if (o.stack > 1) {
            rs_sweep_free(&sw);
            return rs_cli_usage_error("batch: --stack is not available under mpirun (yet): run "
                                      "stacked batches with -j, or shard them with --shard");
        }
        if (o.keep) {
            rs_sweep_free(&sw);
            return rs_cli_usage_error("batch: --keep is not available under mpirun (yet)");
        }
        int is_root = 0;
        run_err = rs_cli_batch_mpi(&sw, &o, progress, &c, &is_root, &d);
        if (!is_root) { /* the computing ranks have nothing to report */
            rs_sweep_free(&sw);
            return RS_EXIT_OK;
        }
    } else
#endif
        run_err = rs_batch_run(&sw, &o, progress, NULL, &c, &d);
    rs_cli_meter_clear(&meter);
    (void)jobs_given;
    if (run_err != RS_OK) {
        rs_sweep_free(&sw);
        return rs_cli_usage_error("batch: %s", d.message);
    }
    if (c.bad_lines > 0) { /* said even with -q: lines of results were not results */
        fprintf(stderr, "relaxsim batch: %s/results.jsonl: %ld line%s not a run result, dropped "
                "(line", o.out_dir, c.bad_lines, c.bad_lines > 1 ? "s were" : " was");
        for (long i = 0; i < c.bad_lines && i < 8; i++)
            fprintf(stderr, "%s %ld", i ? "," : (c.bad_lines > 1 ? "s" : ""), c.bad_line[i]);
        fprintf(stderr, "%s); their runs ran again\n", c.bad_lines > 8 ? ", ..." : "");
    }
    if (c.retried > 0 && !quiet)
        printf("batch: %ld crashed run%s ran again (--retry-crashed)\n", c.retried,
               c.retried > 1 ? "s" : "");
    static rs_batch_summary s;
    const rs_error err = rs_batch_summarize(o.out_dir, &sw, &s, &d);
    if (err == RS_OK && !quiet) {
        print_table(&sw, &s, &c);
        printf("\n  wrote %s/{results.jsonl, results.csv, summary.json}\n", o.out_dir);
    }
    rs_sweep_free(&sw);
    if (err != RS_OK)
        return rs_cli_usage_error("batch: %s", d.message);
    return s.passed == s.runs ? RS_EXIT_OK : RS_EXIT_FAILED;
}
