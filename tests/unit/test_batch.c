/*
 * test_batch.c: sweep files and `relaxsim batch`: run numbering, bad sweeps, results identical
 * for any number of workers, an impossible parameter value recorded as bad input while the
 * others finish, a batch killed with SIGKILL and resumed (no lost and no duplicated run), and a
 * worker killed in the middle of a batch (its run recorded as crashed, the batch goes on).
 */
#include "test_helpers.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/scenario.h"
#include "io/sweep.h"
#include "batch/batch.h"

#define TMP RS_TEST_TMPDIR "/"
#define SCEN RS_SOURCE_DIR "/problems/scenarios/"

static rs_sweep sw;

static void test_run_numbering(void **state)
{
    (void)state;
    write_file(TMP "num.ini", "[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\n"
                              "model.m = 1, 2\ninitial.x = 0.5 .. 1.5 / 3\n"
                              "initial.xd = random -1 .. 1 / 2 seed 9\n");
    rs_error_detail d;
    assert_int_equal(rs_sweep_load(TMP "num.ini", &sw, &d), RS_OK);
    assert_int_equal(sw.nruns, 12);
    double v[RS_SWEEP_MAX_KEYS];
    rs_sweep_run_values(&sw, 0, v); /* the last key varies fastest */
    assert_close(v[0], 1.0, 0.0, 0.0);
    assert_close(v[1], 0.5, 0.0, 0.0);
    const double r0 = v[2];
    rs_sweep_run_values(&sw, 1, v);
    assert_close(v[1], 0.5, 0.0, 0.0);
    assert_true(v[2] != r0 && v[2] >= -1.0 && v[2] < 1.0);
    rs_sweep_run_values(&sw, 11, v);
    assert_close(v[0], 2.0, 0.0, 0.0);
    assert_close(v[1], 1.5, 0.0, 0.0);
    char sets[RS_SWEEP_MAX_OVERRIDES][128];
    assert_int_equal(rs_sweep_run_overrides(&sw, 3, sets), 3);
    assert_string_equal(sets[1], "initial.x=1");
    rs_sweep_free(&sw);
    /* [set]: fixed for every run, before the varied keys; log-uniform samples within range */
    write_file(TMP "set.ini", "[sweep]\nscenario = " SCEN "falling_block.ini\n[set]\n"
                              "nlp.check_start = no\n[vary]\n"
                              "model.m = lograndom 1e-3 .. 1e3 / 200 seed 4\n");
    assert_int_equal(rs_sweep_load(TMP "set.ini", &sw, &d), RS_OK);
    assert_int_equal(rs_sweep_run_overrides(&sw, 7, sets), 2);
    assert_string_equal(sets[0], "nlp.check_start=no");
    assert_true(strncmp(sets[1], "model.m=", 8) == 0);
    int below_one = 0;
    for (long r = 0; r < sw.nruns; r++) {
        rs_sweep_run_values(&sw, r, v);
        assert_true(v[0] >= 1e-3 && v[0] < 1e3);
        below_one += v[0] < 1.0;
    }
    assert_true(below_one > 60 && below_one < 140); /* half the decades: about 100 of 200 */
    rs_sweep_free(&sw);
    write_file(TMP "zip.ini", "[sweep]\nscenario = " SCEN "falling_block.ini\ncombine = zip\n"
                              "[vary]\nmodel.m = 1, 2, 3\ninitial.x = 4, 5, 6\n");
    assert_int_equal(rs_sweep_load(TMP "zip.ini", &sw, &d), RS_OK);
    assert_int_equal(sw.nruns, 3);
    rs_sweep_run_values(&sw, 2, v);
    assert_close(v[0], 3.0, 0.0, 0.0);
    assert_close(v[1], 6.0, 0.0, 0.0);
    rs_sweep_free(&sw);
}

static void expect_sweep_error(const char *text, const char *needle)
{
    write_file(TMP "badsweep.ini", text);
    rs_error_detail d;
    const rs_error err = rs_sweep_load(TMP "badsweep.ini", &sw, &d);
    if (err == RS_OK || !strstr(d.message, needle))
        print_error("got '%s', expected '%s'\n", d.message, needle);
    assert_int_not_equal(err, RS_OK);
    assert_non_null(strstr(d.message, needle));
}

static void test_bad_sweeps(void **state)
{
    (void)state;
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\nmodel.m = 1, x\n",
                       "badsweep.ini:4: vary.model.m: expected a list");
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\nm = 1\n",
                       "badsweep.ini:4: vary.m: expected a scenario key section.key");
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\nmodel.mu = 1\n",
                       "badsweep.ini:4: vary.model.mu: unknown key for model falling_block");
    expect_sweep_error("[sweep]\nscenario = nowhere.ini\n[vary]\nmodel.m = 1\n",
                       "badsweep.ini:2: sweep.scenario: ");
    expect_sweep_error("[vary]\nmodel.m = 1\n", "sweep.scenario: missing");
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\ncombine = zip\n[vary]\n"
                       "model.m = 1, 2\ninitial.x = 1\n",
                       "badsweep.ini:6: vary.initial.x: combine = zip needs equal counts");
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\n"
                       "model.m = 1 .. 2 / 0\n", "range: need 'lo .. hi / n' with finite ends and 1 <= n");
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\nthreads = 3\n[vary]\nmodel.m = 1\n",
                       "badsweep.ini:3: sweep.threads: unknown key");
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\n"
                       "model.m = lograndom 0 .. 2 / 3 seed 1\n", "lograndom: need finite 0 < lo");
    /* counts never overflow, reals are decimal */
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\n"
                       "model.m = 0.1 .. 0.2 / 4294967298\n", "range: need 'lo .. hi / n'");
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\n"
                       "model.m = 0x10, 2\n", "vary.model.m: expected a list");
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\n[set]\nnlp.warm = 2\n"
                       "[vary]\nmodel.m = 1\n", ":4: set.nlp.warm: unknown key");
    /* a list of words is a choice key: each word must be one of the scenario's choices */
    expect_sweep_error("[sweep]\nscenario = " SCEN "polygon_valley.ini\n[vary]\n"
                       "model.formulation = egan_simple, egan_acurate\n",
                       "badsweep.ini:4: vary.model.formulation: ");
    expect_sweep_error("[sweep]\nscenario = " SCEN "polygon_valley.ini\n[vary]\n"
                       "model.formulation = egan_simple, egan_simple\n", "listed twice");
    expect_sweep_error("[sweep]\nscenario = " SCEN "polygon_valley.ini\n[vary]\n"
                       "model.formulation = egan_simple, 2\n", "expected a list of numbers or of words");
    /* a key given twice would run with one value and be labelled with the other */
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\nmodel.m = 1, 2\n"
                       "model.m = 3\n",
                       "badsweep.ini:5: vary.model.m: duplicate key (first given at line 4)");
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\nmodel.m = 1, 2\n"
                       "[set]\nmodel.m = 3\n",
                       "badsweep.ini:6: set.model.m: already in [vary] at line 4");
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\nscenario = x.ini\n[vary]\n"
                       "model.m = 1\n",
                       "badsweep.ini:3: sweep.scenario: duplicate key");
    expect_sweep_error("[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\nmodel.m = 1,,2\n",
                       "badsweep.ini:4: vary.model.m: a list with an empty item");
    expect_sweep_error("[sweep]\nscenario = " SCEN "polygon_valley.ini\n[vary]\n"
                       "model.formulation = egan_simple,\n",
                       "a list with an empty item");
}

/* Run the command; returns its exit code. */
static int relaxsim(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>'%sbatch_err.txt'", RS_CLI_PATH, args, TMP);
    const int st = system(cmd);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* A sweep over a choice (the formulation of disc_polygons): each run's override is the word,
 * results.jsonl and results.csv carry it, summary.json lists the choices, and every run is a
 * real comparison. */
static void test_choice_sweep(void **state)
{
    (void)state;
    write_file(TMP "forms.ini", "[sweep]\nscenario = " SCEN "polygon_valley.ini\n[set]\n"
                                "run.steps = 400\n[vary]\n"
                                "model.formulation = stewart_trinkle, egan_accurate\n");
    rs_error_detail d;
    assert_int_equal(rs_sweep_load(TMP "forms.ini", &sw, &d), RS_OK);
    assert_int_equal(sw.nruns, 2);
    char sets[RS_SWEEP_MAX_OVERRIDES][128];
    assert_int_equal(rs_sweep_run_overrides(&sw, 1, sets), 2);
    assert_string_equal(sets[1], "model.formulation=egan_accurate");
    rs_sweep_free(&sw);
    system("rm -rf '" TMP "forms'");
    /* -j 1: the runs' lines in run order (the hand edit below is of line 1) */
    assert_int_equal(relaxsim("batch " TMP "forms.ini -j 1 --keep -q -o " TMP "forms"), 1);
    static char csv[1 << 14], sum[1 << 16];
    slurp(TMP "forms/results.csv", csv, sizeof csv);
    assert_non_null(strstr(csv, "\n0,stewart_trinkle,"));
    assert_non_null(strstr(csv, "\n1,egan_accurate,"));
    slurp(TMP "forms/summary.json", sum, sizeof sum);
    cJSON *o = cJSON_Parse(sum);
    assert_non_null(o);
    const cJSON *words = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "choices"), "model.formulation");
    assert_int_equal(cJSON_GetArraySize(words), 2);
    const cJSON *run1 = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "results"), 1);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(run1, "params"),
                                            "model.formulation")->valuestring, "egan_accurate");
    /* 400 steps: the point lands on the slope after about 0.32 s and slides; not yet at rest, so the
     * valley's contract fails for both, but each run compared both backends on every step */
    for (int r = 0; r < 2; r++) {
        const cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "results"), r);
        assert_string_equal(cJSON_GetObjectItem(run, "outcome")->valuestring, "contract_failed");
        assert_int_equal(cJSON_GetObjectItem(run, "nlp_failed_steps")->valueint, 0);
        assert_int_equal(cJSON_GetObjectItem(run, "lemke_failed_steps")->valueint, 0);
    }
    cJSON_Delete(o);
    /* a hand-edited line whose choice is a number (or a word not in the sweep) is not a result
     * of this sweep: --resume drops it and runs its run again (never an index out of the
     * list) */
    static char lines[1 << 16];
    const size_t len = slurp(TMP "forms/results.jsonl", lines, sizeof lines);
    assert_true(len > 0);
    char *at = strstr(lines, "\"model.formulation\":\"stewart_trinkle\"");
    assert_non_null(at);
    const char *number = "\"model.formulation\":1e300";
    char edited[1 << 16];
    snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - lines), lines, number,
             at + strlen("\"model.formulation\":\"stewart_trinkle\""));
    write_file(TMP "forms/results.jsonl", edited);
    remove(TMP "forms/results.csv");
    assert_int_equal(relaxsim("batch " TMP "forms.ini -j 2 --resume -o " TMP "forms"), 1);
    static char err[4096];
    slurp(TMP "batch_err.txt", err, sizeof err);
    assert_non_null(strstr(err, "1 line was not a run result, dropped (line 1)"));
    slurp(TMP "forms/results.csv", csv, sizeof csv);
    assert_non_null(strstr(csv, "\n0,stewart_trinkle,contract_failed,"));
    /* --keep: each run's trajectories, and the batch's scene picture with one colour per run */
    static char traj[1 << 16];
    assert_true(slurp(TMP "forms/runs/1/trajectory_lemke.csv", traj, sizeof traj) > 100);
    assert_true(slurp(TMP "forms/runs/0/summary.json", sum, sizeof sum) > 10);
    cJSON *run0 = cJSON_Parse(sum);
    assert_string_equal(cJSON_GetObjectItem(run0, "variant")->valuestring, "stewart_trinkle");
    cJSON_Delete(run0);
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        assert_int_equal(relaxsim("plot " TMP "forms"), 0);
        static char gp[1 << 16];
        slurp(TMP "forms/plot.gp", gp, sizeof gp);
        assert_non_null(strstr(gp, "'runs/1/trajectory_lemke.csv'"));
        /* one legend entry per run; NLP solid and Lemke dashed are stated once, in the title */
        assert_non_null(strstr(gp, "title 'model.formulation=egan_accurate'"));
        assert_non_null(strstr(gp, "NLP solid, Lemke dashed"));
        assert_true(slurp(TMP "forms/scene.png", traj, sizeof traj) > 1000);
    }
}

/* Every line is a whole JSON object; each run 0..n-1 appears exactly once. */
static void check_results(const char *path, long n, int *crashed)
{
    static char text[1 << 20];
    slurp(path, text, sizeof text);
    int *seen = calloc((size_t)n, sizeof(int));
    long lines = 0;
    *crashed = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        cJSON *o = cJSON_Parse(line);
        assert_non_null(o);
        const long run = (long)cJSON_GetObjectItem(o, "run")->valuedouble;
        assert_true(run >= 0 && run < n);
        seen[run]++;
        *crashed += strcmp(cJSON_GetObjectItem(o, "outcome")->valuestring, "crashed") == 0;
        cJSON_Delete(o);
    }
    assert_int_equal(lines, n);
    for (long r = 0; r < n; r++)
        assert_int_equal(seen[r], 1);
    free(seen);
}

static const char small_sweep[] =
    "[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\nmodel.m = 0.5, 1, 2\n"
    "run.dt = -1, 0.01\ninitial.x = 1, 1.2\n";

/* A piecewise input is swept with quoted values, each one run's list ("1, 3": 1 N, then 3 N from
 * t = 0.2 s; every run was bad_input, "1 values for 2 times", and the quoted form was refused):
 * each run loads its list, results.csv writes its commas as semicolons (one CSV field: "1; 3"),
 * plot draws the batch, and a wrong list names the sweep's line. */
static const char piecewise_base[] = "[model]\nname = sliding_block_traditional\n[input]\n"
                                     "type = piecewise\ntimes = 0, 0.2\nu = 1, 3\n[run]\n"
                                     "steps = 30\ndt = 0.01\n";

static void test_quoted_values_sweep_a_piecewise_input(void **state)
{
    (void)state;
    write_file(TMP "pw_base.ini", piecewise_base);
    write_file(TMP "pw.ini", "[sweep]\nscenario = pw_base.ini\n[vary]\n"
                             "input.u = \"1, 3\", \"2, 6\"\n");
    rs_error_detail d;
    assert_int_equal(rs_sweep_load(TMP "pw.ini", &sw, &d), RS_OK);
    assert_int_equal(sw.nruns, 2);
    char ov[RS_SWEEP_MAX_OVERRIDES][128];
    assert_int_equal(rs_sweep_run_overrides(&sw, 1, ov), 1);
    assert_string_equal(ov[0], "input.u=2, 6");
    const char *set = ov[0];
    rs_scenario sc;
    assert_int_equal(rs_scenario_load(TMP "pw_base.ini", &set, 1, &sc, &d), RS_OK);
    assert_int_equal(sc.input.nvalues[0], 2);
    assert_true(sc.input.values[0][0] == 2.0 && sc.input.values[0][1] == 6.0);
    rs_scenario_release(&sc);
    rs_sweep_free(&sw);
    system("rm -rf '" TMP "pw_out'");
    assert_int_equal(relaxsim("batch " TMP "pw.ini -j 1 -q -o " TMP "pw_out"), 0);
    char csv[4096];
    slurp(TMP "pw_out/results.csv", csv, sizeof csv);
    assert_non_null(strstr(csv, "\n0,1; 3,passed,")); /* (a CSV field each: rs_results_csv_text) */
    assert_non_null(strstr(csv, "\n1,2; 6,passed,"));
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) /* its picture, the lists as ticks */
        assert_int_equal(relaxsim("plot " TMP "pw_out"), 0);
    /* each list checked against the scenario, with the sweep's line */
    expect_sweep_error("[sweep]\nscenario = pw_base.ini\n[vary]\ninput.u = \"1, 3\", \"2\"\n",
                       "badsweep.ini:4: vary.input.u: 1 values for 2 times");
    expect_sweep_error("[sweep]\nscenario = pw_base.ini\n[vary]\ninput.u = \"1, 3\", \"1, 3\"\n",
                       "listed twice");
    expect_sweep_error("[sweep]\nscenario = pw_base.ini\n[vary]\ninput.u = \"1, 3\", \"2, 6\n",
                       "a quote is not closed");
    expect_sweep_error("[sweep]\nscenario = pw_base.ini\n[vary]\ninput.u = \"1, 3\" \"2, 6\"\n",
                       "expected a comma after \"1, 3\"");
}

/* Output buffered by the caller before a batch must not be repeated by the forked workers. */
static void test_workers_do_not_repeat_buffered_output(void **state)
{
    (void)state;
    write_file(TMP "small.ini", small_sweep);
    fflush(stdout);
    FILE *saved = fdopen(dup(fileno(stdout)), "w");
    assert_non_null(freopen(TMP "stdout.txt", "w", stdout));
    printf("BUFFERED-LINE\n"); /* stays in the buffer of a fully buffered file */
    rs_sweep s2;
    rs_error_detail d;
    assert_int_equal(rs_sweep_load(TMP "small.ini", &s2, &d), RS_OK);
    rs_batch_options o = {.jobs = 2, .out_dir = TMP "buffered", .shard_count = 1, .stack = 1};
    rs_batch_counts c;
    assert_int_equal(rs_batch_run(&s2, &o, NULL, NULL, &c, &d), RS_OK);
    rs_sweep_free(&s2);
    fflush(stdout);
    dup2(fileno(saved), fileno(stdout));
    fclose(saved);
    static char text[4096];
    slurp(TMP "stdout.txt", text, sizeof text);
    assert_string_equal(text, "BUFFERED-LINE\n");
}

static void test_jobs_do_not_change_results(void **state)
{
    (void)state;
    write_file(TMP "small.ini", small_sweep);
    /* runs fail their contract (it is written for m = 1, x = 1) or have dt = -1: exit 1 */
    assert_int_equal(relaxsim("batch " TMP "small.ini -j 1 -q -o " TMP "b1"), 1);
    assert_int_equal(relaxsim("batch " TMP "small.ini -j 2 -q -o " TMP "b2"), 1);
    static char a[1 << 18], b[1 << 18];
    const size_t la = slurp(TMP "b1/summary.json", a, sizeof a);
    const size_t lb = slurp(TMP "b2/summary.json", b, sizeof b);
    assert_true(la > 100);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    assert_int_equal(slurp(TMP "b1/results.csv", a, sizeof a), slurp(TMP "b2/results.csv", b, sizeof b));
    assert_string_equal(a, b);
    int crashed;
    check_results(TMP "b2/results.jsonl", 12, &crashed);
    assert_int_equal(crashed, 0);
    /* the impossible time step: recorded as bad input with the reason; the others ran */
    slurp(TMP "b1/summary.json", a, sizeof a);
    cJSON *s = cJSON_Parse(a);
    const cJSON *counts = cJSON_GetObjectItem(s, "counts");
    assert_int_equal(cJSON_GetObjectItem(counts, "bad_input")->valueint, 6);
    assert_int_equal(cJSON_GetObjectItem(counts, "passed")->valueint, 1); /* m = 1, x = 1 */
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "results"), 0);
    /* named as the sweep file states it (the reason said "--set run.dt") */
    assert_non_null(strstr(cJSON_GetObjectItem(first, "reason")->valuestring,
                           "small.ini:5: vary.run.dt: the time step must be in [1e-12, 10] s"));
    assert_null(cJSON_GetObjectItem(first, "time_s")); /* timings stay out of the summary */
    cJSON_Delete(s);
}

static void test_shards_partition_the_runs(void **state)
{
    (void)state;
    write_file(TMP "small.ini", small_sweep);
    relaxsim("batch " TMP "small.ini --shard 0/3 -q -o " TMP "sh0");
    relaxsim("batch " TMP "small.ini --shard 1/3 -q -o " TMP "sh1");
    relaxsim("batch " TMP "small.ini --shard 2/3 -q -o " TMP "sh2");
    static char all[1 << 18];
    size_t len = 0;
    for (int i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, TMP "sh%d/results.jsonl", i);
        len += slurp(path, all + len, sizeof all - len);
    }
    write_file(TMP "sh_all.jsonl", all);
    int crashed;
    check_results(TMP "sh_all.jsonl", 12, &crashed);
    assert_int_equal(relaxsim("batch " TMP "small.ini --shard 3/3 -o " TMP "x"), 2);
}

/* 20 runs (about 0.1 s each in Release): long enough to interrupt in the middle. */
static const char long_sweep[] = "[sweep]\nscenario = " SCEN "sliding_block_direct_random.ini\n"
                                 "[vary]\ninput.seed = 1 .. 20 / 20\nrun.steps = 40\n";

/* extra, extra_value: one more option of the batch, or NULL */
static pid_t start_batch(const char *sweep, const char *dir, const char *extra,
                         const char *extra_value)
{
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        freopen("/dev/null", "w", stderr);
        execl(RS_CLI_PATH, "relaxsim", "batch", sweep, "-j", "2", "-q", "-o", dir, extra, extra_value,
              (char *)NULL);
        _exit(127);
    }
    return pid;
}

static long count_lines(const char *path)
{
    static char text[1 << 20];
    slurp(path, text, sizeof text);
    long n = 0;
    for (char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The tests below wait on events (a result line written, a process gone), never on how fast the
 * machine is; this only bounds a wait that would otherwise hang: a run takes 0.1 s in Release,
 * 3 s under AddressSanitizer on a loaded machine. */
#define EVENT_LIMIT_MS (15L * 60L * 1000L)

/* Wait until the file has at least n lines; the test fails after EVENT_LIMIT_MS. */
static void wait_for_lines(const char *path, long n)
{
    long waited = 0;
    while (count_lines(path) < n) {
        if (waited > EVENT_LIMIT_MS) {
            print_error("%s: fewer than %ld lines after %ld s\n", path, n, waited / 1000);
            fail();
        }
        sleep_ms(20);
        waited += 20;
    }
}

/* The child processes of pid (its workers), from /proc; returns their number. */
static int children_of(pid_t pid, pid_t *out, int cap)
{
    char path[128], text[1024] = "";
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    slurp(path, text, sizeof text);
    int n = 0;
    for (char *tok = strtok(text, " \n"); tok && n < cap; tok = strtok(NULL, " \n"))
        out[n++] = (pid_t)atoi(tok);
    return n;
}

/* 1 while pid runs: it exists and is not a zombie waiting for its (new) parent to reap it. */
static int process_running(pid_t pid)
{
    char path[64], text[512] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (slurp(path, text, sizeof text) == 0)
        return 0;
    const char *state = strrchr(text, ')'); /* "pid (comm) S ..." */
    return state && state[1] == ' ' && state[2] != 'Z' && state[2] != 'X';
}

/* Wait until every process in pids[0..n) has ended; the test fails after EVENT_LIMIT_MS. */
static void wait_for_exit(const pid_t *pids, int n)
{
    for (int i = 0; i < n; i++)
        for (long waited = 0; process_running(pids[i]); waited += 20) {
            if (waited > EVENT_LIMIT_MS) {
                print_error("worker %d still running after %ld s\n", (int)pids[i], waited / 1000);
                fail();
            }
            sleep_ms(20);
        }
}

/* 20 runs: kill the batch with SIGKILL after the first two results, then --resume. */
static void test_resume_after_sigkill(void **state)
{
    (void)state;
    write_file(TMP "long.ini", long_sweep);
    system("rm -rf '" TMP "killed'");
    const pid_t pid = start_batch(TMP "long.ini", TMP "killed", NULL, NULL);
    wait_for_lines(TMP "killed/results.jsonl", 2);
    /* frozen first (SIGSTOP: no line written from then on, each line being one write), so that
     * the count read is the one the kill leaves, and a batch that has run on in the meantime
     * cannot finish: the kill lands in the middle, whatever the machine's speed */
    kill(pid, SIGSTOP);
    pid_t workers[8];
    const int nworkers = children_of(pid, workers, 8);
    const long before = count_lines(TMP "killed/results.jsonl");
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    assert_int_equal(count_lines(TMP "killed/results.jsonl"), before);
    /* killed after at least 2 runs; on any machine slower than 18 runs in one 20 ms poll it is
     * in the middle, and the resume below runs what is left (were it all done, the resume adds
     * nothing: the assertions below hold either way, none on the machine's speed) */
    assert_true(before >= 2 && before <= 20);
    wait_for_exit(workers, nworkers); /* orphaned workers notice the closed pipes and leave */
    assert_int_equal(relaxsim("batch " TMP "long.ini -j 2 -q --resume -o " TMP "killed"), 0);
    int crashed;
    check_results(TMP "killed/results.jsonl", 20, &crashed);
    assert_int_equal(crashed, 0);
    /* resuming a complete batch runs nothing and duplicates nothing */
    assert_int_equal(relaxsim("batch " TMP "long.ini -q --resume -o " TMP "killed"), 0);
    check_results(TMP "killed/results.jsonl", 20, &crashed);
}

/* --resume refuses a directory written by another sweep, naming what changed; a second batch
 * into a directory in use is refused; a corrupt line in the middle of results.jsonl costs only
 * its own run (reported by line number), and crashed runs can be run again. */
static void test_resume_is_safe(void **state)
{
    (void)state;
    write_file(TMP "fp.ini", "[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\n"
                             "model.m = 0.5, 1, 2\nrun.steps = 20\n");
    system("rm -rf '" TMP "fp'");
    assert_int_equal(relaxsim("batch " TMP "fp.ini -q -o " TMP "fp"), 1); /* short: contracts fail */
    /* the same keys, one value changed */
    write_file(TMP "fp2.ini", "[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\n"
                              "model.m = 0.5, 3, 2\nrun.steps = 20\n");
    assert_int_equal(relaxsim("batch " TMP "fp2.ini -q --resume -o " TMP "fp"), 2);
    static char err[4096];
    slurp(TMP "batch_err.txt", err, sizeof err);
    assert_non_null(strstr(err, "written by a different sweep (sweep.txt line 5: 'vary model.m = "
                                "0.5 1 2' then, 'vary model.m = 0.5 3 2' now)"));
    /* other keys altogether (used to dereference NULL) */
    write_file(TMP "fp3.ini", "[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\n"
                              "initial.x = 1, 2\n");
    assert_int_equal(relaxsim("batch " TMP "fp3.ini -q --resume -o " TMP "fp"), 2);
    /* a corrupt line in the middle, and a run recorded as crashed */
    static char text[1 << 16];
    slurp(TMP "fp/results.jsonl", text, sizeof text);
    char *second = strchr(text, '\n') + 1, *third = strchr(second, '\n') + 1;
    char edited[1 << 16];
    snprintf(edited, sizeof edited, "%.*s{\"run\": 1, \"outc\n%s", (int)(second - text), text,
             third);
    write_file(TMP "fp/results.jsonl", edited);
    assert_int_equal(relaxsim("batch " TMP "fp.ini -q --resume -o " TMP "fp"), 1);
    slurp(TMP "batch_err.txt", err, sizeof err);
    assert_non_null(strstr(err, "results.jsonl: 1 line was not a run result, dropped (line 2)"));
    int crashed;
    check_results(TMP "fp/results.jsonl", 3, &crashed); /* the two valid lines kept, run 1 redone */
    slurp(TMP "fp/results.jsonl", text, sizeof text);
    char *run0 = strstr(text, "{\"run\":0,");
    assert_non_null(run0);
    snprintf(edited, sizeof edited,
             "%.*s{\"run\":0,\"params\":{\"model.m\":0.5,\"run.steps\":20},\"outcome\":"
             "\"crashed\"}%s", (int)(run0 - text), text, strchr(run0, '\n'));
    write_file(TMP "fp/results.jsonl", edited);
    assert_int_equal(relaxsim("batch " TMP "fp.ini -q --resume -o " TMP "fp"), 1);
    check_results(TMP "fp/results.jsonl", 3, &crashed);
    assert_int_equal(crashed, 1); /* kept as it was without --retry-crashed */
    assert_int_equal(relaxsim("batch " TMP "fp.ini -q --retry-crashed -o " TMP "fp"), 2);
    assert_int_equal(relaxsim("batch " TMP "fp.ini -q --resume --retry-crashed -o " TMP "fp"), 1);
    check_results(TMP "fp/results.jsonl", 3, &crashed);
    assert_int_equal(crashed, 0);
    /* only strict, whole result lines of this sweep count: an outcome no batch gives, keys
     * spelt otherwise, text after the object, parameters the sweep does not give the run */
    const char *const not_results[] = {
        "{\"run\":2,\"params\":{\"model.m\":2,\"run.steps\":20},\"outcome\":\"banana\"}",
        "{\"RUN\":2,\"params\":{\"model.m\":2,\"run.steps\":20},\"Outcome\":\"crashed\"}",
        "{\"run\":2,\"params\":{\"model.m\":2,\"run.steps\":20},\"outcome\":\"crashed\"} garbage",
        "{\"run\":2,\"params\":{\"model.m\":7,\"run.steps\":20},\"outcome\":\"crashed\"}",
        "{\"run\":2,\"params\":{\"model.m\":2,\"run.steps\":20},\"outcome\":\"passed\"}", /* no figures */
        "{\"run\":2.5,\"params\":{\"model.m\":2,\"run.steps\":20},\"outcome\":\"crashed\"}"};
    for (size_t i = 0; i < sizeof not_results / sizeof not_results[0]; i++) {
        slurp(TMP "fp/results.jsonl", text, sizeof text);
        char *line = strstr(text, "{\"run\":2,"); /* run 2's line replaced */
        assert_non_null(line);
        char *end = strchr(line, '\n');
        snprintf(edited, sizeof edited, "%.*s%s%s", (int)(line - text), text, not_results[i], end);
        write_file(TMP "fp/results.jsonl", edited);
        assert_int_equal(relaxsim("batch " TMP "fp.ini -q --resume -o " TMP "fp"), 1);
        slurp(TMP "batch_err.txt", err, sizeof err);
        assert_non_null(strstr(err, "1 line was not a run result, dropped"));
        check_results(TMP "fp/results.jsonl", 3, &crashed);
        assert_int_equal(crashed, 0); /* run 2 ran again */
    }
    /* a scene the runs use, named by [set] or [vary], edited before the resume: another sweep
     * (it resumed, and mixed runs of the two scenes in one results.jsonl) */
    write_file(TMP "fp_g.scene", "halfplane 0 0, 0 1\nbody box box w=0.2 h=0.2 z=0.1 xd=1\n");
    write_file(TMP "fp_h.scene", "halfplane 0 0, 0 1\nbody box box w=0.2 h=0.2 z=0.1 xd=1\n");
    write_file(TMP "fp_scene.ini", "[model]\nname = bodies\nscene = fp_g.scene\nmu = 0.3\n"
                                   "[run]\nsteps = 20\n[expect]\nnlp_failed_steps_max = 0\n");
    write_file(TMP "fp_set.ini", "[sweep]\nscenario = fp_scene.ini\n[set]\nmodel.scene = "
                                 "fp_h.scene\n[vary]\nmodel.mu = 0.1, 0.2\n");
    write_file(TMP "fp_vary.ini", "[sweep]\nscenario = fp_scene.ini\n[vary]\nmodel.scene = "
                                  "fp_g.scene, fp_h.scene\n");
    for (int which = 0; which < 2; which++) {
        const char *sweep = which ? "fp_vary.ini" : "fp_set.ini";
        char cmd[512];
        system("rm -rf '" TMP "fp_sc'");
        write_file(TMP "fp_h.scene", "halfplane 0 0, 0 1\nbody box box w=0.2 h=0.2 z=0.1 xd=1\n");
        snprintf(cmd, sizeof cmd, "batch " TMP "%s -q -o " TMP "fp_sc", sweep);
        assert_int_equal(relaxsim(cmd), 0);
        snprintf(cmd, sizeof cmd, "batch " TMP "%s -q --resume -o " TMP "fp_sc", sweep);
        assert_int_equal(relaxsim(cmd), 0); /* unchanged: resumes (nothing left to run) */
        write_file(TMP "fp_h.scene", "halfplane 0 0, 0 1\nbody box box w=0.2 h=0.2 z=0.1 xd=5\n");
        assert_int_equal(relaxsim(cmd), 2);
        slurp(TMP "batch_err.txt", err, sizeof err);
        assert_non_null(strstr(err, "written by a different sweep"));
        assert_non_null(strstr(err, which ? "'scene 1 bytes fnv1a" : "'scene with the sets"));
    }
    /* the same sweep named by another path (through "..": TMP is tmp/test_batch) resumes: its
     * record is its content, not its path */
    assert_int_equal(relaxsim("batch " TMP "../test_batch/fp.ini -q --resume -o " TMP "fp"), 1);
    /* the same sweep resumes, however long its record's lines (30 values of 17 digits), and
     * --resume into an empty directory records the sweep it starts */
    write_file(TMP "fp_long.ini", "[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\n"
                                  "model.m = 0.05 .. 0.5 / 30\nrun.steps = 5\n");
    system("rm -rf '" TMP "fp_long'");
    assert_int_equal(relaxsim("batch " TMP "fp_long.ini -q --resume -o " TMP "fp_long"), 1);
    assert_int_equal(relaxsim("batch " TMP "fp_long.ini -q --resume -o " TMP "fp_long"), 1);
    check_results(TMP "fp_long/results.jsonl", 30, &crashed);
}

/* One batch at a time in a directory: a second one is refused while the first runs. */
static void test_one_batch_per_directory(void **state)
{
    (void)state;
    write_file(TMP "long.ini", long_sweep);
    system("rm -rf '" TMP "locked'");
    const pid_t pid = start_batch(TMP "long.ini", TMP "locked", NULL, NULL);
    wait_for_lines(TMP "locked/results.jsonl", 1); /* the lock is held by now */
    assert_int_equal(relaxsim("batch " TMP "long.ini -q -o " TMP "locked"), 2);
    static char err[4096];
    slurp(TMP "batch_err.txt", err, sizeof err);
    assert_non_null(strstr(err, "another batch is writing into this directory"));
    int status;
    waitpid(pid, &status, 0);
    int crashed;
    check_results(TMP "locked/results.jsonl", 20, &crashed); /* the first batch was not disturbed */
    assert_int_equal(crashed, 0);
}

/* Ctrl-C: the batch says what it kept and how to continue, exits 130, and leaves whole lines. */
static void test_interrupted_batch_says_how_to_resume(void **state)
{
    (void)state;
    write_file(TMP "long.ini", long_sweep);
    system("rm -rf '" TMP "sigint'");
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        freopen(TMP "sigint_err.txt", "w", stderr);
        execl(RS_CLI_PATH, "relaxsim", "batch", TMP "long.ini", "-j", "2", "-q", "-o",
              TMP "sigint", (char *)NULL);
        _exit(127);
    }
    wait_for_lines(TMP "sigint/results.jsonl", 1); /* the handler is in place by now */
    kill(pid, SIGINT);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 130);
    static char text[4096];
    slurp(TMP "sigint_err.txt", text, sizeof text);
    assert_non_null(strstr(text, "interrupted; the finished runs are kept in"));
    assert_non_null(strstr(text, "--resume -o " TMP "sigint' continues the batch"));
    const long kept = count_lines(TMP "sigint/results.jsonl");
    assert_true(kept >= 1 && kept < 20);
    assert_int_equal(relaxsim("batch " TMP "long.ini -q --resume -o " TMP "sigint"), 0);
    int crashed;
    check_results(TMP "sigint/results.jsonl", 20, &crashed);
    assert_int_equal(crashed, 0);
}

/* A torn last line (as a full disk could leave) is dropped by --resume and its run redone. */
static void test_resume_repairs_a_torn_line(void **state)
{
    (void)state;
    write_file(TMP "small.ini", small_sweep);
    relaxsim("batch " TMP "small.ini -q -o " TMP "torn");
    static char text[1 << 18];
    const size_t len = slurp(TMP "torn/results.jsonl", text, sizeof text);
    text[len - 40] = '\0'; /* cut the last line in the middle */
    write_file(TMP "torn/results.jsonl", text);
    relaxsim("batch " TMP "small.ini -q --resume -o " TMP "torn");
    int crashed;
    check_results(TMP "torn/results.jsonl", 12, &crashed);
}

/* Kill one worker: the runs of its task not yet reported are recorded as crashed, a new worker
 * takes over, the batch ends. stack: the batch's --stack value, or NULL. */
static void kill_a_worker(const char *dir, const char *stack, int *crashed)
{
    write_file(TMP "long.ini", long_sweep);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    system(cmd);
    char results[512];
    snprintf(results, sizeof results, "%s/results.jsonl", dir);
    const pid_t pid = start_batch(TMP "long.ini", dir, stack ? "--stack" : NULL, stack);
    wait_for_lines(results, 2);
    pid_t worker;
    assert_true(children_of(pid, &worker, 1) == 1 && worker > 0);
    kill(worker, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1); /* a crashed run is a failed run */
    check_results(results, 20, crashed);
    static char text[1 << 18];
    slurp(results, text, sizeof text);
    assert_non_null(strstr(text, "killed by signal 9"));
}

static void test_a_crashing_worker_does_not_stop_the_batch(void **state)
{
    (void)state;
    int crashed;
    kill_a_worker(TMP "crash", NULL, &crashed);
    assert_int_equal(crashed, 1);
}

/* With --stack 4 a worker's task is 4 runs, reported together at its end: all 4 crash. */
static void test_a_crashing_stacked_worker_loses_its_task_only(void **state)
{
    (void)state;
    int crashed;
    kill_a_worker(TMP "crash_stacked", "4", &crashed);
    assert_int_equal(crashed, 4);
}

/* Stacked runs (4 per task, 2 workers) against the same runs alone: the same outcome per run,
 * bad input still recorded per run, final states within 1e-6. */
static void test_stacked_batch_matches_unstacked(void **state)
{
    (void)state;
    write_file(TMP "p2d.ini", "[sweep]\nscenario = " RS_SOURCE_DIR
                              "/problems/sweeps/point2d_friction_generic.ini\n[vary]\n"
                              "model.mu = 0.05, 0.2\ninitial.xd = 0.5, 2\nrun.dt = 1e-3, -1\n"
                              "run.steps = 600\n");
    assert_int_equal(relaxsim("batch " TMP "p2d.ini -j 1 -q -o " TMP "p2d_alone"), 1);
    assert_int_equal(relaxsim("batch " TMP "p2d.ini -j 2 --stack 4 -q -o " TMP "p2d_stack"), 1);
    assert_int_equal(relaxsim("batch " TMP "p2d.ini --stack 0 -q -o " TMP "x"), 2);
    assert_int_equal(relaxsim("batch " TMP "p2d.ini --stack 257 -q -o " TMP "x"), 2);
    static char a[1 << 18], b[1 << 18];
    slurp(TMP "p2d_alone/summary.json", a, sizeof a);
    slurp(TMP "p2d_stack/summary.json", b, sizeof b);
    cJSON *sa = cJSON_Parse(a), *sb = cJSON_Parse(b);
    const cJSON *ra = cJSON_GetObjectItem(sa, "results"), *rb = cJSON_GetObjectItem(sb, "results");
    assert_int_equal(cJSON_GetArraySize(ra), 8);
    assert_int_equal(cJSON_GetArraySize(rb), 8);
    int passed = 0, stacked = 0;
    for (int i = 0; i < 8; i++) {
        const cJSON *x = cJSON_GetArrayItem(ra, i), *y = cJSON_GetArrayItem(rb, i);
        const char *outcome = cJSON_GetObjectItem(x, "outcome")->valuestring;
        assert_string_equal(outcome, cJSON_GetObjectItem(y, "outcome")->valuestring);
        if (strcmp(outcome, "passed") != 0)
            continue;
        passed++;
        stacked += cJSON_GetObjectItem(y, "stack")->valueint > 1;
        const cJSON *fx = cJSON_GetObjectItem(x, "final_nlp"), *fy = cJSON_GetObjectItem(y, "final_nlp");
        for (const cJSON *c = fx->child; c; c = c->next)
            assert_close(cJSON_GetObjectItem(fy, c->string)->valuedouble, c->valuedouble, 1e-6,
                         1e-9);
    }
    assert_int_equal(passed, 4); /* the runs with dt = -1 are bad input, the others pass */
    assert_int_equal(stacked, 4);
    cJSON_Delete(sa);
    cJSON_Delete(sb);
}

/* --stack on a sweep whose model's steps change size with its contacts (the bodies model,
 * disc_polygons) is refused before any run, exit 2, naming the sweep's line and the reason:
 * nothing is written (each run solved alone would have looked stacked). */
static void test_stack_refused_where_it_cannot_stack(void **state)
{
    (void)state;
    static const char *const scenarios[] = {"bodies_box_rest.ini", "polygon_valley.ini"};
    for (int i = 0; i < 2; i++) {
        char text[512], cmd[1024];
        static char err[4096];
        snprintf(text, sizeof text, "[sweep]\nscenario = %s%s\n[vary]\nrun.steps = 3, 4\n", SCEN,
                 scenarios[i]);
        write_file(TMP "nostack.ini", text);
        system("rm -rf '" TMP "nostack'");
        snprintf(cmd, sizeof cmd, "batch " TMP "nostack.ini --stack 2 -q -o " TMP "nostack");
        assert_int_equal(relaxsim(cmd), 2);
        slurp(TMP "batch_err.txt", err, sizeof err);
        assert_non_null(strstr(err, "nostack.ini:2: --stack 2: the "));
        assert_non_null(strstr(err, "cannot be stacked"));
        assert_int_equal(access(TMP "nostack", F_OK), -1); /* nothing written */
        snprintf(cmd, sizeof cmd, "batch " TMP "nostack.ini -q -o " TMP "nostack");
        const int rc = relaxsim(cmd); /* alone, it runs (its 3 and 4 steps may miss the contract) */
        assert_true(rc == 0 || rc == 1);
        assert_int_equal(access(TMP "nostack/results.jsonl", F_OK), 0);
    }
}

/* A scenario with warm starts off (the post's, as published) runs in a batch, stacked or not. */
static void test_batch_runs_without_warm_starts(void **state)
{
    (void)state;
    write_file(TMP "cold.ini", "[sweep]\nscenario = " SCEN "point2d_friction_blog.ini\n[vary]\n"
                               "run.steps = 3, 4\nnlp.max_iter = 50\n");
    for (int stack = 0; stack < 2; stack++) {
        /* exit 1: 3 and 4 steps cannot meet the 1200-step contract */
        assert_int_equal(relaxsim(stack ? "batch " TMP "cold.ini -q --stack 2 -o " TMP "cold2"
                                        : "batch " TMP "cold.ini -q -o " TMP "cold1"), 1);
        int crashed;
        check_results(stack ? TMP "cold2/results.jsonl" : TMP "cold1/results.jsonl", 2, &crashed);
        assert_int_equal(crashed, 0);
    }
}

/* A fresh batch into a plotted directory takes the old sweep's pictures with it (batch_0.png
 * and the plot's script stayed beside the new sweep's data); --resume keeps them. */
static void test_fresh_batch_takes_old_pictures(void **state)
{
    (void)state;
    write_file(TMP "pics.ini", "[sweep]\nscenario = " SCEN "falling_block.ini\n[vary]\n"
                               "model.m = 1, 2\n[set]\nrun.steps = 20\n");
    system("rm -rf '" TMP "pics'");
    assert_int_equal(relaxsim("batch " TMP "pics.ini -q -o " TMP "pics"), 1); /* short runs */
    assert_int_equal(relaxsim("plot " TMP "pics"), 0);
    struct stat st;
    assert_int_equal(stat(TMP "pics/batch_0.png", &st), 0);
    assert_int_equal(relaxsim("batch " TMP "pics.ini -q --resume -o " TMP "pics"), 1);
    assert_int_equal(stat(TMP "pics/batch_0.png", &st), 0);
    assert_int_equal(relaxsim("batch " TMP "pics.ini -q -o " TMP "pics"), 1);
    assert_int_not_equal(stat(TMP "pics/batch_0.png", &st), 0);
    assert_int_not_equal(stat(TMP "pics/plot.gp", &st), 0);
    assert_int_equal(stat(TMP "pics/summary.json", &st), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_numbering),
        cmocka_unit_test(test_batch_runs_without_warm_starts),
        cmocka_unit_test(test_stack_refused_where_it_cannot_stack),
        cmocka_unit_test(test_bad_sweeps),
        cmocka_unit_test(test_quoted_values_sweep_a_piecewise_input),
        cmocka_unit_test(test_choice_sweep),
        cmocka_unit_test(test_jobs_do_not_change_results),
        cmocka_unit_test(test_stacked_batch_matches_unstacked),
        cmocka_unit_test(test_a_crashing_stacked_worker_loses_its_task_only),
        cmocka_unit_test(test_workers_do_not_repeat_buffered_output),
        cmocka_unit_test(test_shards_partition_the_runs),
        cmocka_unit_test(test_resume_after_sigkill),
        cmocka_unit_test(test_resume_repairs_a_torn_line),
        cmocka_unit_test(test_interrupted_batch_says_how_to_resume),
        cmocka_unit_test(test_resume_is_safe),
        cmocka_unit_test(test_one_batch_per_directory),
        cmocka_unit_test(test_fresh_batch_takes_old_pictures),
        cmocka_unit_test(test_a_crashing_worker_does_not_stop_the_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
