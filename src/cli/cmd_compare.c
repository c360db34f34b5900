/*
 * cmd_compare.c: `relaxsim compare SCENARIO [--set key=value ...] [--capsule STEP ...]
 * [--summary-only] [-o DIR] [-q]`. The NLP trajectory with a shadow Lemke solve at every step,
 * plus an independent Lemke trajectory; writes trajectory_nlp.csv, trajectory_lemke.csv,
 * shadow.csv, steps.jsonl and summary.json to DIR (default out/<scenario name>), and
 * DIR/capsules/step_K.json for the steps that failed or did not agree (and those asked for;
 * io/capsule.h), prints the summary, checks the contract. With --summary-only, summary.json and
 * the capsules alone (what `relaxsim check` reads: formatting the per-step files is a tenth of a
 * pile's run).
 * Exit 0 when the contract passed, 1 when a check failed, 2 for bad usage or input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_report.h"
#include "io/capsule.h"
#include "io/outset.h"
#include "io/output.h"
#include "core/detail.h"

static const char usage[] =
    "relaxsim compare SCENARIO [--set section.key=value ...] [--capsule STEP ...] "
    "[--summary-only] [-o DIR] [-q]";

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
 * The outputs and the capsules as one set (io/outset.h): the per-step files (four, and a scene
 * of bodies' two per-contact files) are
 * written a row at a time as the run goes (nothing per step is kept in memory), summary.json and
 * the capsules at the end; only when every file is whole is the set put in place, summary.json
 * last, an earlier run's capsules removed. A failed write (a full disk) or an interrupt leaves
 * the previous set whole.
 */
enum { NSTREAMED = 6, NCONTACT_FILES = 2 }; /* the last two: a model with contact geometry */
static const char *const streamed_names[NSTREAMED] = {"trajectory_nlp.csv", "trajectory_lemke.csv",
                                                      "shadow.csv",         "steps.jsonl",
                                                      "contacts_nlp.csv",   "contacts_lemke.csv"};

typedef struct compare_files {
    const rs_scenario *sc;
    FILE *f[NSTREAMED];
    int failed; /* a row could not be made (out of memory) */
} compare_files;

static void write_step(void *ctx, int k, const rs_compare_step *st)
{
    compare_files *cf = ctx;
    rs_trajectory_csv_row(cf->f[0], cf->sc, RS_BACKEND_NLP, k, st);
    rs_trajectory_csv_row(cf->f[1], cf->sc, RS_BACKEND_LEMKE, k, st);
    rs_shadow_csv_row(cf->f[2], cf->sc, k, st);
    if (rs_steps_jsonl_row(cf->f[3], cf->sc, k, st) != RS_OK)
        cf->failed = 1;
    if (cf->f[4]) {
        rs_contacts_csv_rows(cf->f[4], cf->sc, RS_BACKEND_NLP, k, st);
        rs_contacts_csv_rows(cf->f[5], cf->sc, RS_BACKEND_LEMKE, k, st);
    }
}

/* Open the streamed files of the set with their headers; 0 (detail filled) on failure. */
static int open_streams(rs_outset *set, compare_files *cf, rs_error_detail *detail)
{
    const int n = cf->sc->model->contact_geometry ? NSTREAMED : NSTREAMED - NCONTACT_FILES;
    for (int i = 0; i < n; i++)
        if (!(cf->f[i] = rs_outset_create(set, streamed_names[i], detail)))
            return 0;
    for (int i = n; i < NSTREAMED; i++)
        cf->f[i] = NULL;
    if (cf->f[4]) {
        rs_contacts_csv_header(cf->f[4]);
        rs_contacts_csv_header(cf->f[5]);
    }
    rs_trajectory_csv_header(cf->f[0], cf->sc, RS_BACKEND_NLP);
    rs_trajectory_csv_header(cf->f[1], cf->sc, RS_BACKEND_LEMKE);
    rs_shadow_csv_header(cf->f[2], cf->sc);
    return 1;
}

/* Close the streamed files (each once); the first error in detail. */
static rs_error close_streams(rs_outset *set, compare_files *cf, rs_error_detail *detail)
{
    rs_error err = RS_OK;
    for (int i = 0; i < NSTREAMED; i++) {
        rs_error_detail d;
        const rs_error e = cf->f[i] ? rs_outset_close(set, cf->f[i], streamed_names[i], &d) : RS_OK;
        cf->f[i] = NULL;
        if (e != RS_OK && err == RS_OK) {
            err = e;
            *detail = d;
        }
    }
    return err;
}

/* summary.json and the capsules into the set; the first error in detail. A capsule that cannot
 * be made is said on stderr and left out of the list (summary.json). */
static rs_error write_ends(rs_outset *set, const rs_scenario *sc, const rs_cli_scenario_args *a,
                           rs_compare_result *r, rs_error_detail *detail)
{
    int kept = 0;
    for (int i = 0; i < r->ncapsules; i++) {
        char name[64];
        snprintf(name, sizeof name, "capsules/step_%d.json", r->capsules[i].step);
        rs_error_detail d = {{0}};
        FILE *f = rs_outset_create(set, name, detail);
        if (!f)
            return RS_ERR_IO;
        rs_error e = rs_write_capsule(f, sc, a->sets, a->nsets, r, &r->capsules[i], &d);
        if (rs_outset_close(set, f, name, detail) != RS_OK)
            return RS_ERR_IO;
        char dat[64]; /* beside it, its step LCP as a file `lcp solve` reads */
        snprintf(dat, sizeof dat, "capsules/step_%d.dat", r->capsules[i].step);
        if (e == RS_OK && r->capsules[i].lcp_n > 0) {
            if (!(f = rs_outset_create(set, dat, detail)))
                return RS_ERR_IO;
            e = rs_write_capsule_dat(f, &r->capsules[i], &d);
            if (rs_outset_close(set, f, dat, detail) != RS_OK)
                return RS_ERR_IO;
            if (e != RS_OK)
                rs_outset_drop(set, dat);
        }
        if (e == RS_OK) {
            r->capsules[kept++] = r->capsules[i];
            continue;
        }
        rs_outset_drop(set, name);
        fprintf(stderr, "relaxsim: compare: the capsule of step %d was not written: %s\n",
                r->capsules[i].step, d.message[0] ? d.message : rs_error_string(e));
        rs_capsule_free(&r->capsules[i]);
        r->capsules_omitted++;
    }
    r->ncapsules = kept;
    FILE *f = rs_outset_create(set, "summary.json", detail);
    if (!f)
        return RS_ERR_IO;
    const rs_error e = rs_write_json_stream(f, rs_summary_json_text(sc, r));
    const rs_error c = rs_outset_close(set, f, "summary.json", detail);
    if (e != RS_OK)
        return rs_detail_set(detail, e, "%s/summary.json: %s", rs_outset_dir(set),
                             rs_error_string(e));
    return c;
}

/* compare's own options (rs_cli_load_scenario_with): the steps of --capsule STEP (repeatable),
 * --summary-only */
typedef struct compare_options {
    long step[RS_SCENARIO_MAX_CAPSULE_STEPS];
    int n;
    int summary_only;
} compare_options;

static int compare_option(void *ctx, int argc, char **argv, int *i)
{
    compare_options *c = ctx;
    if (strcmp(argv[*i], "--summary-only") == 0) {
        c->summary_only = 1;
        return 1;
    }
    if (strcmp(argv[*i], "--capsule") != 0)
        return 0;
    const char *v = rs_cli_option_value(argc, argv, i);
    if (!v || !rs_cli_parse_long("--capsule", v, 0, RS_SCENARIO_MAX_STEPS, &c->step[c->n]))
        return -1;
    if (++c->n == RS_SCENARIO_MAX_CAPSULE_STEPS)
        return rs_cli_usage_error("--capsule: at most %d steps", RS_SCENARIO_MAX_CAPSULE_STEPS - 1),
               -1;
    return 1;
}

int rs_cmd_compare(int argc, char **argv)
{
    rs_cli_scenario_args a;
    static rs_scenario sc;
    compare_options own = {{0}, 0, 0};
    if (!rs_cli_load_scenario_with(argc, argv, usage, compare_option, NULL, &own, &a, &sc))
        return RS_EXIT_USAGE;
    for (int i = 0; i < own.n; i++) {
        if (own.step[i] >= sc.steps) {
            rs_scenario_release(&sc);
            return rs_cli_usage_error("--capsule %ld: the run has steps 0 .. %d", own.step[i],
                                      sc.steps - 1);
        }
        sc.capsule_steps[sc.ncapsule_steps++] = (int)own.step[i];
    }
    rs_error_detail detail;
    char dir[1024];
    if (a.out)
        snprintf(dir, sizeof dir, "%s", a.out);
    else
        default_out_dir(a.scenario, dir, sizeof dir);
    /* the output directory must be writable before a long simulation, not after it */
    rs_outset *set;
    if (rs_outset_begin(dir, "summary.json", &set, &detail) != RS_OK) {
        rs_scenario_release(&sc);
        return rs_cli_usage_error("-o: %s", detail.message);
    }
    char kept[1200];
    snprintf(kept, sizeof kept, "nothing written; the previous outputs in %s are unchanged", dir);
    rs_cli_on_interrupt(kept);
    compare_files cf = {&sc, {NULL}, 0};
    static rs_compare_result r; /* static: its checks table is large */
    rs_error err = RS_ERR_IO;
    if (own.summary_only || open_streams(set, &cf, &detail)) {
        rs_compare_options opt;
        rs_compare_options_default(&opt);
        opt.keep_steps = 0;
        opt.sink = own.summary_only ? NULL : write_step;
        opt.sink_ctx = &cf;
        opt.progress = rs_cli_progress; /* on a terminal only, -q or not */
        err = rs_compare_run_with(&sc, RS_RUN_COMPARE, &opt, &r);
        if (err != RS_OK) { /* the scenario could not be run: a usage error, nothing written */
            close_streams(set, &cf, &detail);
            rs_outset_abort(set);
            rs_scenario_release(&sc);
            return rs_cli_usage_error("%s: %s", a.scenario, rs_error_string(err));
        }
        err = close_streams(set, &cf, &detail);
        if (err == RS_OK && cf.failed)
            err = rs_detail_set(&detail, RS_ERR_NOMEM, "%s/steps.jsonl: out of memory", dir);
        if (err == RS_OK)
            err = write_ends(set, &sc, &a, &r, &detail);
    } else {
        close_streams(set, &cf, &detail);
    }
    static const char *const owned[] = {"trajectory_nlp.csv", "trajectory_lemke.csv",
                                        "shadow.csv",         "steps.jsonl",
                                        "contacts_nlp.csv",   "contacts_lemke.csv",
                                        "summary.json",       "capsules/step_*",
                                        RS_PLOT_OUTPUTS};
    if (err != RS_OK) {
        rs_outset_abort(set);
        fprintf(stderr, "relaxsim: %s; nothing written, the previous outputs in %s are "
                        "unchanged\n", detail.message, dir);
        rs_compare_free(&r);
        rs_scenario_release(&sc);
        return err == RS_ERR_WRITE ? RS_EXIT_FAILED : RS_EXIT_USAGE; /* a full disk: no usage */
    }
    const rs_error werr =
        rs_outset_commit(set, owned, (int)(sizeof owned / sizeof owned[0]), &detail);
    if (werr != RS_OK) {
        rs_compare_free(&r);
        rs_scenario_release(&sc);
        return rs_cli_output_error(werr, "%s", detail.message);
    }
    if (!a.quiet) {
        rs_cli_print_summary(stdout, &sc, &r);
        if (own.summary_only)
            printf("\n  wrote %s/summary.json (--summary-only: no per-step files)\n", dir);
        else
            printf("\n  wrote %s/{trajectory_nlp.csv, trajectory_lemke.csv, shadow.csv, "
                   "steps.jsonl, summary.json}\n", dir);
        if (r.ncapsules)
            printf("  and %d step capsule%s in %s/capsules/ (relaxsim replay)%s\n", r.ncapsules,
                   r.ncapsules == 1 ? "" : "s", dir,
                   r.capsules_omitted ? "; more steps qualified (summary.json: capsules_omitted)"
                                      : "");
    } else {
        rs_cli_name_failed_checks(stderr, "compare", a.scenario, r.checks, r.nchecks);
    }
    const int code = r.contract_passed ? RS_EXIT_OK : RS_EXIT_FAILED;
    rs_compare_free(&r);
    rs_scenario_release(&sc);
    return code;
}
