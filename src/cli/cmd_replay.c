/*
 * cmd_replay.c: `relaxsim replay CAPSULE [--set section.key=value ...] [--ipopt-print-level N]
 * [--json]`: re-solve the one step of a capsule (io/capsule.h) both ways, from the capsule alone:
 * its scenario (and scene) text with the run's overrides and these --set, the state and input
 * before the step, and the stepper's warm start (previous NLP point, previous Lemke basis). It
 * prints the statuses, answers and verdict, and whether they are bitwise the capsule's (they are,
 * on the same build with no --set). Exit 0 when the replayed step agrees, 1 when it does not (a
 * failed solve or another verdict), 2 for a malformed capsule or bad usage. With --continuation:
 * the step's relaxation-bias curve instead (replay_continuation.c).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "relaxsim/lcp_file.h"
#include "cli/cli.h"
#include "cli/replay.h"
#include "io/capsule.h"
#include "io/output.h"
#include "io/scenario.h"
#include "sim/stepper.h"

static const char usage[] = "relaxsim replay CAPSULE [--set section.key=value ...] "
                            "[--ipopt-print-level N] [--json | --continuation [-o DIR]]";

typedef struct replay_args {
    const char *capsule;
    const char *sets[RS_CLI_MAX_SETS];
    int nsets, print_level, json, continuation;
    const char *dir;
} replay_args;

static int parse_args(int argc, char **argv, replay_args *a)
{
    a->print_level = -1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        long n;
        if (strcmp(arg, "--set") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)))
                return 0;
            if (a->nsets == RS_CLI_MAX_SETS)
                return rs_cli_usage_error("replay: at most %d --set", RS_CLI_MAX_SETS), 0;
            a->sets[a->nsets++] = v;
        } else if (strcmp(arg, "--ipopt-print-level") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)) || !rs_cli_parse_long(arg, v, 0, 12, &n))
                return 0;
            a->print_level = (int)n;
        } else if (strcmp(arg, "--json") == 0) {
            a->json = 1;
        } else if (strcmp(arg, "--continuation") == 0) {
            a->continuation = 1;
        } else if (strcmp(arg, "-o") == 0) {
            if (!(a->dir = rs_cli_output_value(argc, argv, &i)))
                return 0;
        } else if (arg[0] == '-' && arg[1]) {
            return rs_cli_usage_error("replay: unknown option '%s' (usage: %s)", arg, usage), 0;
        } else if (a->capsule) {
            return rs_cli_usage_error("replay: one CAPSULE expected (usage: %s)", usage), 0;
        } else {
            a->capsule = arg;
        }
    }
    if (a->dir && !a->continuation)
        return rs_cli_usage_error("replay: -o DIR is for --continuation's files (usage: %s)",
                                  usage),
               0;
    if (a->json && a->continuation) /* the curve is a table and pictures, not a JSON result */
        return rs_cli_usage_error("replay: --json is for a replay, not --continuation's curve "
                                  "(usage: %s)",
                                  usage),
               0;
    return a->capsule || (rs_cli_usage_error("replay: missing CAPSULE (usage: %s)", usage), 0);
}

/* Load the capsule's scenario (its text, scene text and overrides, then the user's --set unless
 * as_recorded) into sc, from the capsule alone: a file it names is never opened. */
static int load_scenario(const char *capsule, const cJSON *o, const replay_args *a, int as_recorded,
                         rs_scenario *sc)
{
    const cJSON *scen = cJSON_GetObjectItem(o, "scenario");
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(scen, "text"));
    const char *scene = cJSON_GetStringValue(cJSON_GetObjectItem(scen, "scene_text"));
    const cJSON *ov = cJSON_GetObjectItem(scen, "overrides");
    if (!text || !cJSON_IsArray(ov))
        return rs_cli_usage_error("%s: scenario: expected its text and overrides", capsule), 0;
    const char *sets[2 * RS_CLI_MAX_SETS];
    int nsets = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, ov)
    {
        if (!cJSON_IsString(s) || nsets == RS_CLI_MAX_SETS)
            return rs_cli_usage_error("%s: scenario.overrides: expected at most %d strings",
                                      capsule, RS_CLI_MAX_SETS), 0;
        if (rs_override_sets_scene(s->valuestring)) /* the scene is its text, however the */
            continue;                                /* override is spaced: no file opened */
        sets[nsets++] = s->valuestring;
    }
    for (int i = 0; !as_recorded && i < a->nsets; i++)
        sets[nsets++] = a->sets[i];
    char name[1100];
    snprintf(name, sizeof name, "%s: scenario.text", capsule);
    rs_error_detail detail = {{0}};
    if (rs_scenario_load_text(name, text, scene, sets, nsets, sc, &detail) != RS_OK)
        return rs_cli_usage_error("%s", detail.message), 0;
    return 1;
}

/* 1 if name is one of the names names(0), names(1), ... gives (up to its "unknown"). */
static int is_known_name(const char *name, const char *(*names)(int))
{
    for (int k = 0; name && k < 64 && strcmp(names(k), "unknown") != 0; k++)
        if (strcmp(name, names(k)) == 0)
            return 1;
    return 0;
}

static const char *verdict_name(int k) { return rs_verdict_name((rs_verdict)k); }
static const char *nlp_status_name(int k) { return rs_nlp_status_name((rs_nlp_status)k); }
static const char *lemke_status_name(int k) { return rs_lemke_status_name((rs_lemke_status)k); }

/* 1 if the capsule's record of the comparison is whole: its verdict one of relaxsim's, its diff
 * an object of numbers (null: a NaN difference), and its lcp_dat, when there is one, an LCP that
 * reads (`lcp solve` takes it). */
static int record_whole(const cJSON *o)
{
    if (!is_known_name(cJSON_GetStringValue(cJSON_GetObjectItem(o, "verdict")), verdict_name))
        return 0;
    const cJSON *diff = cJSON_GetObjectItem(o, "diff"), *d;
    if (!cJSON_IsObject(diff) || !diff->child)
        return 0;
    cJSON_ArrayForEach(d, diff)
        if (!cJSON_IsNumber(d) && !cJSON_IsNull(d))
            return 0;
    const cJSON *dat = cJSON_GetObjectItem(o, "lcp_dat");
    if (!dat)
        return 1;
    rs_lcp *lcp = NULL;
    const int reads = cJSON_IsString(dat) && rs_lcp_read_text(dat->valuestring,
                                                              strlen(dat->valuestring), "lcp_dat",
                                                              &lcp, NULL) == RS_OK;
    rs_lcp_destroy(lcp);
    return reads;
}

/* What is wrong with the capsule beyond its scenario (NULL if nothing): the step, the state and
 * input (finite, within the ranges a scenario allows, and in the model's domain), the recorded
 * answers and comparison, and its settings (those of its scenario as recorded). */
static const char *capsule_problem(const cJSON *o, const rs_scenario *sc,
                                   const rs_scenario *recorded, double *state, double *input)
{
    const rs_model *m = sc->model;
    const cJSON *model = cJSON_GetObjectItem(o, "model"), *step = cJSON_GetObjectItem(o, "step");
    const cJSON *variant = cJSON_GetObjectItem(o, "variant");
    if (!cJSON_IsString(model) || strcmp(model->valuestring, m->name) != 0)
        return "model";
    if (!cJSON_IsString(variant) || strcmp(variant->valuestring, m->variants[recorded->variant]))
        return "variant";
    if (!cJSON_IsNumber(step) || !(step->valuedouble >= 0.0) ||
        step->valuedouble >= recorded->steps || step->valuedouble != floor(step->valuedouble))
        return "step (an integer from 0 to the scenario's steps - 1)";
    if (!rs_capsule_read_array(cJSON_GetObjectItem(o, "state_exact"), state, m->nstate))
        return "state_exact";
    if (!rs_capsule_read_array(cJSON_GetObjectItem(o, "input_exact"), input, m->ninput))
        return "input_exact";
    for (int i = 0; i < m->nstate; i++)
        if (!(fabs(state[i]) <= 1e12))
            return "state_exact (beyond 1e12)";
    for (int i = 0; i < m->ninput; i++)
        if (!(fabs(input[i]) <= 1e12))
            return "input_exact (beyond 1e12 N)";
    /* the model's domain: a start's at step 0, a reached state's after it */
    rs_error (*check)(const rs_step_data *, rs_error_detail *) =
        step->valuedouble > 0 && m->check_reached ? m->check_reached : m->check_step;
    if (check) {
        const rs_step_data d = {sc->params,  state,    input,     sc->dt,
                                sc->variant, &sc->nlp, sc->scene, 0, NULL};
        if (check(&d, NULL) != RS_OK)
            return "state_exact (outside the model's domain: a run could not reach it)";
    }
    if (!record_whole(o))
        return "verdict, diff or lcp_dat (the recorded comparison)";
    if (!cJSON_IsObject(cJSON_GetObjectItem(o, "nlp")) ||
        !cJSON_IsObject(cJSON_GetObjectItem(o, "lemke")))
        return "nlp or lemke (the recorded answers)";
    for (int b = 0; b < 2; b++) { /* each recorded answer whole: a replay compares with it */
        const cJSON *rec = cJSON_GetObjectItem(o, b ? "lemke" : "nlp");
        double *v = malloc(sizeof(double) * ((size_t)m->nstate + (size_t)m->nforce + 1));
        const int whole =
            v &&
            is_known_name(cJSON_GetStringValue(cJSON_GetObjectItem(rec, "status")),
                          b ? lemke_status_name : nlp_status_name) &&
            rs_capsule_read_array(cJSON_GetObjectItem(rec, "state_exact"), v, m->nstate) &&
            rs_capsule_read_array(cJSON_GetObjectItem(rec, "forces_exact"), v + m->nstate,
                                  m->nforce);
        free(v);
        if (!whole)
            return b ? "lemke (status, state_exact, forces_exact)"
                     : "nlp (status, state_exact, forces_exact)";
    }
    cJSON *settings = rs_capsule_settings_json(recorded);
    const int same = settings && cJSON_Compare(settings, cJSON_GetObjectItem(o, "settings"), 1);
    cJSON_Delete(settings);
    return same ? NULL : "settings (not those of its scenario)";
}

static int same_double(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* 1 if the replayed result r is the capsule's recorded one (status, state, forces), bitwise. */
static int same_as_recorded(const rs_model *m, const cJSON *rec, rs_backend backend,
                            const rs_step_result *r)
{
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(rec, "status"));
    double *state = malloc(sizeof(double) * ((size_t)m->nstate + (size_t)m->nforce + 1));
    double *forces = state ? state + m->nstate : NULL;
    int same = state && status && strcmp(status, rs_step_status_name(backend, r)) == 0 &&
               rs_capsule_read_array(cJSON_GetObjectItem(rec, "state_exact"), state, m->nstate) &&
               rs_capsule_read_array(cJSON_GetObjectItem(rec, "forces_exact"), forces, m->nforce);
    for (int i = 0; same && i < m->nstate; i++)
        same = same_double(state[i], r->state_next[i]);
    for (int i = 0; same && i < m->nforce; i++)
        same = same_double(forces[i], r->forces[i]);
    free(state);
    return same;
}

static void print_result(const rs_scenario *sc, const cJSON *o, const rs_compare_step *st,
                         int identical)
{
    const rs_model *m = sc->model;
    const cJSON *step = cJSON_GetObjectItem(o, "step");
    printf("replay of step %d of %s (%s, %s)\n\n", step->valueint,
           cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "scenario"), "path")),
           m->name, m->variants[sc->variant]);
    printf("  %-22s %24s %24s\n", "", "NLP (IPOPT)", "Lemke");
    printf("  %-22s %24s %24s\n", "status", rs_step_status_name(RS_BACKEND_NLP, &st->nlp),
           rs_step_status_name(RS_BACKEND_LEMKE, &st->shadow));
    printf("  %-22s %24s %24s\n", "path", rs_nlp_path_name(st->nlp.path), "");
    printf("  %-22s %24d %24d\n", "iterations / pivots", st->nlp.iterations, st->shadow.iterations);
    for (int c = 0; c < m->nstate + m->nforce; c++) {
        const char *name = c < m->nstate ? m->state_names[c] : m->force_names[c - m->nstate];
        const double a = c < m->nstate ? st->nlp.state_next[c] : st->nlp.forces[c - m->nstate];
        const double b =
            c < m->nstate ? st->shadow.state_next[c] : st->shadow.forces[c - m->nstate];
        printf("  %-22s %24.17g %24.17g\n", name, a, b);
    }
    printf("  %-22s %24.3g %24.3g\n", "primal residual", st->nlp.primal, st->shadow.primal);
    printf("  %-22s %24.3g %24.3g\n", "complementarity", st->nlp.complementarity,
           st->shadow.complementarity);
    for (int i = 0; i < m->ncontacts; i++)
        printf("  %-22s %24s %24s\n", m->ncontacts == 1 ? "mode" : "mode (contact)",
               rs_contact_mode_name(st->nlp.modes[i]), rs_contact_mode_name(st->shadow.modes[i]));
    printf("\n  verdict: %s (the capsule's: %s)\n", rs_verdict_name(st->verdict),
           cJSON_GetStringValue(cJSON_GetObjectItem(o, "verdict")));
    printf("  the same as the capsule (statuses, every state and force, the verdict, bitwise): "
           "%s\n",
           identical ? "yes" : "no");
}

int rs_cmd_replay(int argc, char **argv)
{
    replay_args a = {0};
    if (!parse_args(argc, argv, &a))
        return RS_EXIT_USAGE;
    FILE *probe = fopen(a.capsule, "r");
    if (!probe)
        return rs_cli_usage_error("%s: cannot open: %s", a.capsule, strerror(errno));
    struct stat info;
    const int is_dir = fstat(fileno(probe), &info) == 0 && S_ISDIR(info.st_mode);
    fclose(probe);
    if (is_dir)
        return rs_cli_usage_error("%s: is a directory (give a capsule, DIR/capsules/step_K.json)",
                                  a.capsule);
    cJSON *o = rs_read_json_file(a.capsule);
    if (!o || !cJSON_IsObject(cJSON_GetObjectItem(o, "scenario"))) {
        cJSON_Delete(o);
        return rs_cli_usage_error("%s: not a capsule of relaxsim compare (a JSON object with its "
                                  "scenario)",
                                  a.capsule);
    }
    static rs_scenario sc, recorded;
    int code = RS_EXIT_USAGE;
    if (!load_scenario(a.capsule, o, &a, 1, &recorded)) {
        cJSON_Delete(o);
        return RS_EXIT_USAGE;
    }
    if (!load_scenario(a.capsule, o, &a, 0, &sc)) {
        rs_scenario_release(&recorded);
        cJSON_Delete(o);
        return RS_EXIT_USAGE;
    }
    const rs_model *m = sc.model;
    if (a.print_level >= 0)
        sc.nlp.print_level = a.print_level;
    double *state = calloc((size_t)m->nstate + (size_t)m->ninput + 1, sizeof(double));
    double *input = state ? state + m->nstate : NULL;
    rs_stepper_snapshot *snap = calloc(1, sizeof *snap);
    const cJSON *step = cJSON_GetObjectItem(o, "step");
    const char *bad =
        !snap || !state ? "out of memory" : capsule_problem(o, &sc, &recorded, state, input);
    if (!bad && !rs_capsule_read_start(cJSON_GetObjectItem(o, "start"), snap))
        bad = "start (its sizes, keys and a finite point within 1e12)";
    rs_scenario_release(&recorded);
    rs_stepper *st = NULL;
    rs_stepper_config cfg = rs_scenario_stepper_config(&sc);
    if (!bad && rs_stepper_create(&cfg, &st) != RS_OK)
        bad = "its scenario cannot be solved here";
    rs_error restored = RS_OK;
    if (!bad && (restored = rs_stepper_restore(st, snap)) != RS_OK)
        bad = restored == RS_ERR_NOMEM ? "start (out of memory)"
                                       : "start (its sizes are not this model's: a capsule of "
                                         "another build?)";
    if (bad) {
        rs_cli_usage_error("%s: %s: malformed or inconsistent", a.capsule, bad);
    } else if (a.continuation) {
        code = rs_replay_continuation(&sc, snap, state, input, step->valueint, a.dir);
    } else {
        static rs_compare_step cs;
        if (rs_compare_step_init(&cs, m) != RS_OK) {
            rs_stepper_destroy(st);
            rs_stepper_snapshot_free(snap);
            free(snap);
            free(state);
            rs_scenario_release(&sc);
            cJSON_Delete(o);
            return rs_cli_usage_error("replay: out of memory");
        }
        memcpy(cs.input, input, sizeof(double) * (size_t)m->ninput);
        rs_stepper_nlp(st, state, input, &cs.nlp);
        rs_stepper_lemke(st, state, input, &cs.shadow);
        cs.verdict = rs_compare_judge(&sc, &cs, m->nstate + m->nforce, state);
        const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItem(o, "verdict"));
        const int identical =
            same_as_recorded(m, cJSON_GetObjectItem(o, "nlp"), RS_BACKEND_NLP, &cs.nlp) &&
            same_as_recorded(m, cJSON_GetObjectItem(o, "lemke"), RS_BACKEND_LEMKE, &cs.shadow) &&
            verdict && strcmp(verdict, rs_verdict_name(cs.verdict)) == 0;
        if (a.json) {
            cJSON *j = cJSON_CreateObject();
            cJSON_AddNumberToObject(j, "step", step->valueint);
            cJSON_AddStringToObject(j, "verdict", rs_verdict_name(cs.verdict));
            cJSON_AddStringToObject(j, "capsule_verdict", verdict ? verdict : "");
            cJSON_AddBoolToObject(j, "identical", identical);
            cJSON_AddItemToObject(j, "nlp", rs_step_result_json(m, RS_BACKEND_NLP, &cs.nlp));
            cJSON_AddItemToObject(j, "lemke", rs_step_result_json(m, RS_BACKEND_LEMKE, &cs.shadow));
            char *text = cJSON_Print(j);
            cJSON_Delete(j);
            if (text)
                puts(text);
            free(text);
        } else {
            print_result(&sc, o, &cs, identical);
        }
        code = cs.verdict == RS_VERDICT_AGREE ? RS_EXIT_OK : RS_EXIT_FAILED;
        rs_compare_step_free(&cs);
    }
    rs_stepper_destroy(st);
    rs_stepper_snapshot_free(snap);
    free(snap);
    free(state);
    rs_scenario_release(&sc);
    cJSON_Delete(o);
    return code;
}
