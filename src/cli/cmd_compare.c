/*
 * cmd_compare.c: `relaxsim compare SCENARIO [--set key=value ...] [--capsule STEP ...] [-o DIR]
 * [-q]`. The NLP trajectory with a shadow Lemke solve at every step, plus an independent Lemke
 * trajectory; writes trajectory_nlp.csv, trajectory_lemke.csv, shadow.csv, steps.jsonl and
 * summary.json to DIR (default out/<scenario name>), and DIR/capsules/step_K.json for the steps
 * that failed or did not agree (and those asked for; io/capsule.h), prints the summary, checks
 * the contract.
 * Exit 0 when the contract passed, 1 when a check failed, 2 for bad usage or input.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_report.h"
#include "io/capsule.h"
#include "io/output.h"

static const char usage[] =
    "relaxsim compare SCENARIO [--set section.key=value ...] [--capsule STEP ...] [-o DIR] [-q]";

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

/* The steps of --capsule STEP (repeatable), compare's own option (rs_cli_load_scenario_with). */
typedef struct capsule_steps {
    long step[RS_SCENARIO_MAX_CAPSULE_STEPS];
    int n;
} capsule_steps;

static int capsule_option(void *ctx, int argc, char **argv, int *i)
{
    capsule_steps *c = ctx;
    if (strcmp(argv[*i], "--capsule") != 0)
        return 0;
    const char *v = rs_cli_option_value(argc, argv, i);
    if (!v || !rs_cli_parse_long("--capsule", v, 0, RS_RUN_MAX_STEPS, &c->step[c->n]))
        return -1;
    if (++c->n == RS_SCENARIO_MAX_CAPSULE_STEPS)
        return rs_cli_usage_error("--capsule: at most %d steps", RS_SCENARIO_MAX_CAPSULE_STEPS - 1),
               -1;
    return 1;
}

/* DIR/capsules/ emptied of an earlier run's capsules, then this run's written into it. A capsule
 * that cannot be written is said on stderr and left out of the list (summary.json). */
static void write_capsules(const char *dir, const rs_scenario *sc, const char *scenario_text,
                           const char *scene_text, const rs_cli_scenario_args *a,
                           rs_compare_result *r)
{
    char cdir[1100];
    snprintf(cdir, sizeof cdir, "%s/capsules", dir);
    DIR *d = opendir(cdir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (strncmp(e->d_name, "step_", 5) == 0) {
            char path[1400];
            snprintf(path, sizeof path, "%s/%s", cdir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    int kept = 0;
    for (int i = 0; i < r->ncapsules; i++) {
        char name[64];
        rs_error_detail detail = {{0}};
        if (scenario_text &&
            rs_write_capsule(cdir, sc, scenario_text, scene_text, a->sets, a->nsets, r,
                             &r->capsules[i], name, sizeof name, &detail) == RS_OK) {
            r->capsules[kept++] = r->capsules[i];
            continue;
        }
        fprintf(stderr, "relaxsim: compare: the capsule of step %d was not written: %s\n",
                r->capsules[i].step,
                scenario_text ? detail.message : "the scenario file could not be read");
        free(r->capsules[i].M);
        r->capsules_omitted++;
    }
    r->ncapsules = kept;
}

int rs_cmd_compare(int argc, char **argv)
{
    rs_cli_scenario_args a;
    static rs_scenario sc;
    capsule_steps steps = {{0}, 0};
    if (!rs_cli_load_scenario_with(argc, argv, usage, capsule_option, NULL, &steps, &a, &sc))
        return RS_EXIT_USAGE;
    for (int i = 0; i < steps.n; i++) {
        if (steps.step[i] >= sc.steps) {
            rs_scenario_release(&sc);
            return rs_cli_usage_error("--capsule %ld: the run has steps 0 .. %d", steps.step[i],
                                      sc.steps - 1);
        }
        sc.capsule_steps[sc.ncapsule_steps++] = (int)steps.step[i];
    }
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
    /* the files as this run reads them, for its capsules (read now: a file edited while the run
     * goes on would no longer be the one that ran) */
    char *scenario_text = rs_read_text_file(sc.path);
    char *scene_text = sc.scene ? rs_read_text_file(sc.scene_path) : NULL;
    rs_compare_result r;
    rs_error err = rs_compare_run(&sc, RS_RUN_COMPARE, a.quiet ? NULL : rs_cli_progress, NULL, &r);
    if (err == RS_OK)
        write_capsules(dir, &sc, scenario_text, scene_text, &a, &r);
    free(scenario_text);
    free(scene_text);
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
