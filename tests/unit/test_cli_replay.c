/*
 * test_cli_replay.c: step capsules (relaxsim compare) and their replay (relaxsim replay).
 *
 * - The post's variant of point2d (40 steps, max_iter 100): its failed steps are kept as
 *   capsules, at most 20, the rest counted in summary.json; three of them replay to the same
 *   statuses, states, forces and verdict, bitwise.
 * - point2d with agreement tolerances of 1e-12 (every sliding step is relaxation_bias): a capsule
 *   of such a step replays to relaxation_bias, bitwise the same.
 * - A step asked for with --capsule (an agreeing one) is kept and replays to agree (exit 0).
 * - point2d with eps = 1e-3 fails its landing; its capsule replayed with --set nlp.eps=1e-10
 *   agrees (the fix is found from the capsule alone), and is then no longer the capsule's answer.
 * - --continuation: a sliding step's distance to Lemke's answer falls with the relaxation at a
 *   fitted slope of at least 0.5; the post's variant's failed step is flagged.
 * - A malformed capsule and a --capsule outside the run exit 2.
 */
#include "test_helpers.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define TMP RS_TEST_TMPDIR "/"
#define SCEN RS_SOURCE_DIR "/problems/scenarios/"

static char out_buf[1 << 16], err_buf[1 << 14], text[1 << 20];

static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%sreplay_out.txt' 2>'%sreplay_err.txt'", RS_CLI_PATH, args,
             TMP, TMP);
    const int status = system(cmd);
    assert_true(WIFEXITED(status));
    slurp(TMP "replay_out.txt", out_buf, sizeof out_buf);
    slurp(TMP "replay_err.txt", err_buf, sizeof err_buf);
    return WEXITSTATUS(status);
}

static cJSON *load(const char *path)
{
    assert_true(slurp(path, text, sizeof text) > 0);
    cJSON *o = cJSON_Parse(text);
    assert_non_null(o);
    return o;
}

/* Replay dir/capsules/<name> with --json: its verdict, and whether it is the capsule's. */
static void replay(const char *dir, const char *name, const char *extra, int code,
                   const char *verdict, int identical)
{
    char args[2048];
    snprintf(args, sizeof args, "replay '%s/%s' --json %s", dir, name, extra);
    assert_int_equal(run(args), code);
    cJSON *j = cJSON_Parse(out_buf);
    assert_non_null(j);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "verdict")), verdict);
    assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(j, "identical")), identical);
    cJSON_Delete(j);
}

static void test_failed_steps(void **state)
{
    (void)state;
    /* (30 iterations: a failed step costs its iteration limit, and at 100 this compare took
     * half of the test under the sanitizers) */
    assert_int_equal(run("compare " SCEN "point2d_friction_blog.ini --set run.steps=40 --set "
                         "nlp.max_iter=30 -q -o " TMP "cap_blog"),
                     1);
    cJSON *s = load(TMP "cap_blog/summary.json");
    const cJSON *caps = cJSON_GetObjectItem(s, "capsules");
    /* every step that did not agree qualifies: the failed ones and any biased one. Which of the
     * published NLP's steps reach a solution within the iteration limit can depend on the BLAS
     * under MUMPS (with the reference BLAS, step 36 did within 100, with a phantom contact force
     * in flight; with OpenBLAS none does), so the count is read from the verdicts, which must
     * add up to the 40 steps with no agreement and at least 39 failures */
    const cJSON *verdicts = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "shadow"), "verdicts");
    const int failed = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "nlp"), "failed_steps")->valueint;
    int total = 0;
    for (const cJSON *v = verdicts->child; v; v = v->next)
        total += v->valueint;
    assert_int_equal(total, 40);
    assert_int_equal(cJSON_GetObjectItem(verdicts, "agree")->valueint, 0);
    assert_int_equal(cJSON_GetObjectItem(verdicts, "nlp_failed")->valueint, failed);
    assert_true(failed >= 39);
    const int qualified = 40;
    assert_int_equal(cJSON_GetArraySize(caps), qualified < 20 ? qualified : 20);
    assert_int_equal(cJSON_GetObjectItem(s, "capsules_omitted")->valueint,
                     qualified > 20 ? qualified - 20 : 0);
    for (int i = 0; i < 3; i++) {
        const char *name = cJSON_GetArrayItem(caps, i * 7)->valuestring;
        char path[512];
        snprintf(path, sizeof path, TMP "cap_blog/%s", name);
        cJSON *c = load(path);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict")), "nlp_failed");
        assert_non_null(cJSON_GetStringValue(cJSON_GetObjectItem(c, "lcp_dat")));
        cJSON_Delete(c);
        replay(TMP "cap_blog", name, "", 1, "nlp_failed", 1);
    }
    cJSON_Delete(s);
}

static void test_relaxation_bias(void **state)
{
    (void)state;
    assert_int_equal(run("compare " SCEN "point2d_friction.ini --set run.agree_atol=1e-12 --set "
                         "run.agree_rtol=1e-12 -q -o " TMP "cap_bias"),
                     0);
    cJSON *s = load(TMP "cap_bias/summary.json");
    const cJSON *caps = cJSON_GetObjectItem(s, "capsules");
    assert_true(cJSON_GetArraySize(caps) >= 2);
    for (int i = 0; i < 2; i++)
        replay(TMP "cap_bias", cJSON_GetArrayItem(caps, i)->valuestring, "", 1, "relaxation_bias",
               1);
    cJSON_Delete(s);
}

/* The relaxation-bias curve: for a sliding step of point2d the distance to Lemke's answer falls
 * with the relaxation (eps = tol = r) at a fitted slope of at least 0.5, and the picture is
 * drawn; the post's variant, whose NLP fails whatever the relaxation, is flagged (exit 1). */
static void test_continuation(void **state)
{
    (void)state;
    assert_int_equal(run("compare " SCEN "point2d_friction.ini --set run.agree_atol=1e-12 --set "
                         "run.agree_rtol=1e-12 --set run.steps=470 -q -o " TMP "cap_cont"),
                     1); /* (470 steps: the rest-time checks of the contract cannot be met) */
    assert_int_equal(
        run("replay " TMP "cap_cont/capsules/step_460.json --continuation -o " TMP "cont"), 0);
    const char *p = strstr(out_buf, "fitted slope of log(distance) on log(relaxation): ");
    assert_non_null(p);
    const double slope =
        strtod(p + strlen("fitted slope of log(distance) on log(relaxation): "), NULL);
    assert_true(slope >= 0.5 && slope <= 2.0);
    assert_non_null(strstr(out_buf, "relaxation bias"));
    assert_true(slurp(TMP "cont/continuation.png", text, sizeof text) > 1000);
    assert_int_equal(run("compare " SCEN "point2d_friction_blog.ini --set run.steps=4 --set "
                         "nlp.max_iter=100 -q -o " TMP "cap_cont_blog"),
                     1);
    assert_int_equal(run("replay " TMP "cap_cont_blog/capsules/step_3.json --continuation"), 1);
    assert_non_null(strstr(out_buf, "FLAG"));
    /* a stack at rest: IPOPT's warm start meets every tol r at once and the distance, 7e-11 of
     * the natural units, stays; the step agrees, and is not flagged (it was, exit 1) */
    assert_int_equal(run("compare " SCEN "bodies_stack.ini --set run.steps=12 --capsule 10 -q -o "
                         TMP "cap_cont_rest"),
                     0);
    assert_int_equal(run("replay " TMP "cap_cont_rest/capsules/step_10.json --continuation"), 0);
    assert_non_null(strstr(out_buf, "agrees with Lemke's at every relaxation"));
}

/* A model with obstacles: the capsule carries its scene file, and the steps asked for replay
 * bitwise (the polygon corner of note 004, in flight and after its landing). */
static void test_scene_model(void **state)
{
    (void)state;
    assert_int_equal(run("compare " SCEN "polygon_corner_stewart_trinkle.ini --capsule 150 "
                         "--capsule 30 -q -o " TMP "cap_scene"),
                     0);
    cJSON *c = load(TMP "cap_scene/capsules/step_150.json");
    const cJSON *scen = cJSON_GetObjectItem(c, "scenario");
    assert_non_null(cJSON_GetStringValue(cJSON_GetObjectItem(scen, "scene_text")));
    cJSON_Delete(c);
    replay(TMP "cap_scene", "capsules/step_150.json", "", 0, "agree", 1);
    replay(TMP "cap_scene", "capsules/step_30.json", "", 0, "agree", 1);
}

static void test_requested_and_fixed(void **state)
{
    (void)state;
    assert_int_equal(
        run("compare " SCEN "point2d_friction.ini --capsule 100 -q -o " TMP "cap_asked"), 0);
    replay(TMP "cap_asked", "capsules/step_100.json", "", 0, "agree", 1);
    /* beside the capsule, its step LCP as a .dat file (the capsule's lcp_dat text; it was
     * documented but not written), which lcp solve reads */
    static char dat[1 << 14];
    cJSON *c = load(TMP "cap_asked/capsules/step_100.json");
    assert_true(slurp(TMP "cap_asked/capsules/step_100.dat", dat, sizeof dat) > 0);
    assert_string_equal(dat, cJSON_GetStringValue(cJSON_GetObjectItem(c, "lcp_dat")));
    cJSON_Delete(c);
    assert_int_equal(run("lcp solve " TMP "cap_asked/capsules/step_100.dat"), 0);
    /* the landing fails with eps = 1e-3; its capsule replayed with eps = 1e-10 agrees (the run
     * ends with the landing, step 451: the steps after it fail too, at IPOPT's full cost) */
    assert_int_equal(run("compare " SCEN "point2d_friction.ini --set nlp.eps=1e-3 --set "
                         "run.steps=452 -q -o " TMP "cap_eps"),
                     1);
    replay(TMP "cap_eps", "capsules/step_451.json", "", 1, "nlp_failed", 1);
    replay(TMP "cap_eps", "capsules/step_451.json", "--set nlp.eps=1e-10", 0, "agree", 0);
    /* the printed form names the step and says whether it is the capsule's answer */
    assert_int_equal(run("replay " TMP "cap_eps/capsules/step_451.json"), 1);
    assert_non_null(strstr(out_buf, "replay of step 451"));
    assert_non_null(strstr(out_buf, "bitwise): yes"));
}

static void test_bad_input(void **state)
{
    (void)state;
    write_file(TMP "bad_capsule.json", "{\"step\": 3}");
    assert_int_equal(run("replay " TMP "bad_capsule.json"), 2);
    write_file(TMP "bad_capsule.json", "not json");
    assert_int_equal(run("replay " TMP "bad_capsule.json"), 2);
    /* what is not a capsule is named as such: a directory, a .dat, JSON of another kind; and
     * --continuation draws a curve, it has no JSON result (--json was ignored) */
    assert_int_equal(run("replay " TMP), 2);
    assert_non_null(strstr(err_buf, ": is a directory (give a capsule"));
    write_file(TMP "bad_capsule.dat", "1\n0\n1 1\n1 1\n2\n-1\n");
    assert_int_equal(run("replay " TMP "bad_capsule.dat"), 2);
    assert_non_null(strstr(err_buf, "bad_capsule.dat: not a capsule of relaxsim compare"));
    write_file(TMP "bad_capsule.json", "[1, 2]");
    assert_int_equal(run("replay " TMP "bad_capsule.json"), 2);
    assert_non_null(strstr(err_buf, "bad_capsule.json: not a capsule of relaxsim compare"));
    assert_int_equal(run("replay " TMP "bad_capsule.json --continuation --json"), 2);
    assert_non_null(strstr(err_buf, "--json is for a replay, not --continuation's curve"));
    assert_int_equal(run("compare " SCEN "point2d_friction.ini --capsule 5000 -q -o " TMP "cap_x"),
                     2);
    assert_non_null(strstr(err_buf, "--capsule 5000"));
    assert_int_equal(run("replay " TMP "no_such_capsule.json"), 2);
    assert_non_null(strstr(err_buf, "no_such_capsule.json: cannot open: No such file"));
    /* a capsule edited where the checks did not look: its warm start's point (1e300, or null)
     * and a recorded answer without its state (they replayed, exit 0 and "same: no") */
    /* (101 steps: the contract's landing and rest are the whole run's, exit 1) */
    assert_int_equal(run("compare " SCEN "point2d_friction.ini --set run.steps=101 --capsule 100 "
                         "-q -o " TMP "cap_t"),
                     1);
    for (int k = 0; k < 3; k++) {
        cJSON *o = load(TMP "cap_t/capsules/step_100.json");
        cJSON *start = cJSON_GetObjectItem(o, "start");
        if (k < 2)
            cJSON_ReplaceItemInArray(cJSON_GetObjectItem(start, "x"), 0,
                                     k ? cJSON_CreateNull() : cJSON_CreateNumber(1e300));
        else
            cJSON_DeleteItemFromObject(cJSON_GetObjectItem(o, "nlp"), "state_exact");
        char *printed = cJSON_Print(o);
        write_file(TMP "cap_t_edited.json", printed);
        free(printed);
        cJSON_Delete(o);
        assert_int_equal(run("replay " TMP "cap_t_edited.json"), 2);
        assert_non_null(strstr(err_buf, k < 2 ? "start (" : "nlp (status, state_exact"));
    }
}

/* Replay the capsule of step k of bodies_box_rest.ini with the box's height z changed to z_m;
 * returns replay's exit code. */
static int replay_box_at(int k, double z_m)
{
    char path[512];
    snprintf(path, sizeof path, TMP "box_rest/capsules/step_%d.json", k);
    cJSON *o = load(path);
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(o, "state_exact"), 1, cJSON_CreateNumber(z_m));
    char *printed = cJSON_Print(o);
    write_file(TMP "box_edited.json", printed);
    free(printed);
    cJSON_Delete(o);
    return run("replay " TMP "box_edited.json");
}

/* A state a run reached is replayed even where it could not start: bodies overlap by the
 * penetration a step leaves (in the shipped pile, 1e-5 to 1.3e-4 m, which replay refused as
 * "outside the model's domain" from step 141 on), up to one step's length L. The box at rest
 * (dt = 1e-3 s: L = g dt^2 = 9.8e-6 m) 5e-6 m into the ground is replayed at step 50, refused
 * at step 0 (a start allows 1e-3 L), and 1 mm into it is refused at both. */
static void test_reached_states_replay(void **state)
{
    (void)state;
    /* (60 steps of the box at rest meet its contract: every step carries m g) */
    assert_int_equal(run("compare " SCEN "bodies_box_rest.ini --set run.steps=60 --capsule 0 "
                         "--capsule 50 -q -o " TMP "box_rest"),
                     0);
    assert_int_not_equal(replay_box_at(50, 0.1 - 5e-6), 2); /* replayed (not the recorded) */
    assert_null(strstr(err_buf, "state_exact"));
    assert_int_equal(replay_box_at(0, 0.1 - 5e-6), 2);
    assert_non_null(strstr(err_buf, "state_exact (outside the model's domain"));
    assert_int_equal(replay_box_at(50, 0.1 - 1e-3), 2);
    assert_non_null(strstr(err_buf, "state_exact (outside the model's domain"));
    assert_int_equal(replay_box_at(0, 0.1), 0); /* the capsule as kept replays bitwise */
    /* an override naming a scene file, however spaced, is the capsule's scene, never a file it
     * opens ("model .scene=F" printed F's first word since --set drops blanks at the dot) */
    write_file(TMP "secret.txt", "TOPSECRET\n");
    static const char *const spaced[] = {"model .scene=", " model. scene =", "model.scene\t="};
    for (size_t k = 0; k < sizeof spaced / sizeof spaced[0]; k++) {
        cJSON *o = load(TMP "box_rest/capsules/step_0.json");
        char ov[600];
        snprintf(ov, sizeof ov, "%s%s", spaced[k], TMP "secret.txt");
        cJSON *list = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "scenario"), "overrides");
        cJSON_AddItemToArray(list, cJSON_CreateString(ov));
        char *printed = cJSON_Print(o);
        write_file(TMP "edited.json", printed);
        free(printed);
        cJSON_Delete(o);
        assert_int_equal(run("replay " TMP "edited.json"), 0); /* its scene_text, as kept */
        assert_null(strstr(err_buf, "TOPSECRET"));
        assert_null(strstr(out_buf, "TOPSECRET"));
    }
}

/* A capsule edited by hand is refused, each field by name, never replayed from a made-up point:
 * no verdict (printed as "(null)" before) or one relaxsim never writes, a status, diff or
 * lcp_dat that is not a record of relaxsim's, a state below the ground, a step beyond the run, its
 * settings or variant changed, its scenario broken (named as the capsule's scenario.text, not as
 * a temporary file); -o without --continuation is a usage error. */
static void test_edited_capsules(void **state)
{
    (void)state;
    assert_int_equal(
        run("compare " SCEN "point2d_friction.ini --capsule 100 -q -o " TMP "cap_edit"), 0);
    static const struct {
        const char *path[3]; /* object keys down to the edited value */
        const char *json;    /* its new value, or NULL to delete it */
        const char *needle;
    } edits[] = {
        {{"verdict"}, NULL, "verdict, diff or lcp_dat (the recorded comparison): malformed"},
        /* a record that is not relaxsim's: a verdict or status it never writes, a diff of text
         * or none, an lcp_dat that does not read (it replayed with exit 1, "bitwise: yes") */
        {{"verdict"}, "\"whatever\"", "verdict, diff or lcp_dat"},
        {{"diff"}, NULL, "verdict, diff or lcp_dat"},
        {{"diff", "x_m"}, "\"0\"", "verdict, diff or lcp_dat"},
        {{"lcp_dat"}, "\"garbage\"", "verdict, diff or lcp_dat"},
        {{"nlp", "status"}, "\"bogus\"", "nlp (status, state_exact, forces_exact): malformed"},
        {{"lemke", "status"}, "\"max_iter\"", "lemke (status, state_exact, forces_exact)"},
        {{"state_exact"}, "[0.5, -1, 0, 0]", "state_exact (outside the model's domain"},
        {{"step"}, "1e30", "step (an integer from 0"},
        {{"step"}, "-1", "step (an integer from 0"},
        {{"settings", "nlp", "tol"}, "-1", "settings (not those of its scenario)"},
        {{"variant"}, "\"blog\"", "variant: malformed"},
        {{"scenario", "text"}, "\"[model\"", "edited.json: scenario.text:1: syntax error"},
    };
    for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
        cJSON *o = load(TMP "cap_edit/capsules/step_100.json");
        cJSON *parent = o;
        int depth = 0;
        while (depth + 1 < 3 && edits[k].path[depth + 1])
            parent = cJSON_GetObjectItem(parent, edits[k].path[depth++]);
        assert_non_null(parent);
        if (edits[k].json)
            assert_true(cJSON_ReplaceItemInObject(parent, edits[k].path[depth],
                                                  cJSON_Parse(edits[k].json)));
        else
            cJSON_DeleteItemFromObject(parent, edits[k].path[depth]);
        char *printed = cJSON_Print(o);
        write_file(TMP "edited.json", printed);
        free(printed);
        cJSON_Delete(o);
        assert_int_equal(run("replay " TMP "edited.json"), 2);
        if (!strstr(err_buf, edits[k].needle))
            print_error("edit %zu: '%s', expected '%s'\n", k, err_buf, edits[k].needle);
        assert_non_null(strstr(err_buf, edits[k].needle));
    }
    assert_int_equal(run("replay " TMP "cap_edit/capsules/step_100.json -o " TMP "x"), 2);
    assert_non_null(strstr(err_buf, "-o DIR is for --continuation"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failed_steps),        cmocka_unit_test(test_relaxation_bias),
        cmocka_unit_test(test_continuation),        cmocka_unit_test(test_scene_model),
        cmocka_unit_test(test_requested_and_fixed), cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_edited_capsules),     cmocka_unit_test(test_reached_states_replay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
