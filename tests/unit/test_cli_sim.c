/*
 * test_cli_sim.c: `relaxsim run`, `compare`, `plot`, `models` and `lcp solve --solver ipopt` as a
 * user runs them: exit codes, files written, summary.json keys, messages for bad input.
 */
#include "test_helpers.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define TMP RS_TEST_TMPDIR "/"
#define SCEN RS_SOURCE_DIR "/problems/scenarios/"
#define DATA RS_LCP_DATA_DIR "/"

static char out_buf[1 << 16], err_buf[1 << 14];

static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%ssim_out.txt' 2>'%ssim_err.txt'", RS_CLI_PATH, args, TMP, TMP);
    const int status = system(cmd);
    assert_true(WIFEXITED(status));
    slurp(TMP "sim_out.txt", out_buf, sizeof out_buf);
    slurp(TMP "sim_err.txt", err_buf, sizeof err_buf);
    return WEXITSTATUS(status);
}

/* Run the command with its standard output on a full disk (/dev/full); its exit code, and its
 * standard error in err_buf. */
static int run_to_full_disk(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/full 2>'%ssim_err.txt'", RS_CLI_PATH, args, TMP);
    const int status = system(cmd);
    assert_true(WIFEXITED(status));
    slurp(TMP "sim_err.txt", err_buf, sizeof err_buf);
    return WEXITSTATUS(status);
}

/* A write that fails is exit 1 with its reason, whatever the output: a report on standard output
 * (compare, check, lcp solve --json, models, --help), a file named /dev/stdout (run -o, check
 * --json) or a generated file (lcp gen -o /dev/full). Before, the first five exited 0 and the
 * others 2 (bad usage); a report lost is no success and no usage error. */
static void test_write_errors_fail(void **state)
{
    (void)state;
    static const char *const commands[] = {
        "compare " SCEN "falling_block.ini -o " TMP "full_cmp",
        "check " SCEN "falling_block.ini",
        "lcp solve " RS_LCP_DATA_DIR "/lcp_CPS_1.dat --json",
        "models",
        "--help",
        "run " SCEN "falling_block.ini -o /dev/stdout",
        "check " SCEN "falling_block.ini -q --json /dev/stdout",
        "lcp gen --class spd --n 3 --seed 1 -o /dev/full",
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const int code = run_to_full_disk(commands[i]);
        if (code != 1 || !strstr(err_buf, "No space left on device"))
            print_error("relaxsim %s > /dev/full: exit %d, stderr '%s'\n", commands[i], code,
                        err_buf);
        assert_int_equal(code, 1);
        assert_non_null(strstr(err_buf, "No space left on device"));
    }
}

static cJSON *load_json(const char *path)
{
    static char text[1 << 16];
    assert_true(slurp(path, text, sizeof text) > 0);
    cJSON *o = cJSON_Parse(text);
    assert_non_null(o);
    return o;
}

static const cJSON *at(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItem(o, a);
    if (x && b)
        x = cJSON_GetObjectItem(x, b);
    if (!x)
        fail_msg("summary.json has no %s%s%s", a, b ? "." : "", b ? b : "");
    return x;
}

/* The floor summary.json states for the contract's check whose text starts with key. */
static double check_floor(const cJSON *summary, const char *key)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, at(summary, "contract", "checks"))
    {
        const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(c, "check"));
        const cJSON *floor = cJSON_GetObjectItem(c, "floor");
        if (text && strncmp(text, key, strlen(key)) == 0 && text[strlen(key)] == ' ' &&
            cJSON_IsNumber(floor))
            return floor->valuedouble;
    }
    fail_msg("no floor for %s in summary.json", key);
    return 0.0;
}

static void test_compare_writes_everything(void **state)
{
    (void)state;
    assert_int_equal(run("compare " SCEN "falling_block.ini -o " TMP "cmp -q"), 0);
    cJSON *s = load_json(TMP "cmp/summary.json");
    assert_int_equal(at(s, "steps", NULL)->valueint, 100);
    assert_int_equal(at(s, "nlp", "failed_steps")->valueint, 0);
    assert_true(cJSON_IsNumber(at(s, "nlp", "iterations_mean")));
    assert_true(at(s, "nlp", "us_per_step_median")->valuedouble > 0.0);
    assert_int_equal(at(s, "lemke", "failed_steps")->valueint, 0);
    /* the NLP's answers against Lemke's within the floors the summary states for the
     * contract's checks of the same columns: the NLP's certificate tolerance in each column's
     * natural unit (4.4e-8 m, 4.4e-4 N at the impact's speed; 9.8e-6 N at rest), the tightest
     * bound that holds on every machine (measured 1.5e-12 m, 1.5e-8 N and 9e-12 N) */
    const cJSON *diff = at(s, "shadow", "max_abs_diff");
    assert_true(cJSON_GetObjectItem(diff, "x_m")->valuedouble <=
                check_floor(s, "shadow_max_abs.x_m"));
    assert_true(cJSON_GetObjectItem(diff, "fn_N")->valuedouble <=
                check_floor(s, "shadow_max_abs.fn_N"));
    assert_close(at(s, "shadow", "mode_agreement")->valuedouble, 1.0, 0.0, 0.0);
    assert_close(cJSON_GetObjectItem(at(s, "final", "nlp"), "fn_N")->valuedouble, 9.81,
                 check_floor(s, "final_nlp.fn_N"), 0.0);
    assert_true(cJSON_IsObject(at(s, "final", "lemke")));
    assert_true(cJSON_IsTrue(at(s, "contract", "passed")));
    assert_int_equal(cJSON_GetArraySize(at(s, "contract", "failed")), 0);
    cJSON_Delete(s);
    /* one JSON object per step, and CSVs with a header and one row per step */
    static char text[1 << 20];
    slurp(TMP "cmp/steps.jsonl", text, sizeof text);
    int lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 100);
    cJSON *first = cJSON_ParseWithOpts(text, NULL, 0);
    assert_non_null(first);
    assert_string_equal(cJSON_GetObjectItem(first, "verdict")->valuestring, "agree");
    assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(first, "lemke"), "pivots"));
    cJSON_Delete(first);
    slurp(TMP "cmp/trajectory_nlp.csv", text, sizeof text);
    static const char header[] = "step,t_s,u_N,x_m,xd_mps,fn_N,mode,status,iterations,primal,complementarity\n";
    assert_memory_equal(text, header, strlen(header));
    /* the independent Lemke trajectory is a Lemke run's, byte for byte: it starts each step from
     * its own previous basis, not from the shadow solve's at the NLP's state (which changed the
     * pivot counts of this run, and the rounding of others) */
    static char alone[1 << 20];
    assert_int_equal(run("run " SCEN "falling_block.ini --backend lemke -q -o " TMP "alone.csv"), 0);
    const size_t n = slurp(TMP "cmp/trajectory_lemke.csv", text, sizeof text);
    assert_true(n > 1000);
    assert_int_equal(slurp(TMP "alone.csv", alone, sizeof alone), n);
    assert_memory_equal(text, alone, n);
}

static void test_contract_failure_exits_1_and_is_named(void **state)
{
    (void)state;
    assert_int_equal(run("compare " SCEN "falling_block.ini -o " TMP "cmp2 --set expect.first_contact_step=40"), 1);
    assert_non_null(strstr(out_buf, "contract: FAILED"));
    assert_non_null(strstr(out_buf, "FAIL first_contact_step = 40"));
    cJSON *s = load_json(TMP "cmp2/summary.json");
    assert_true(cJSON_IsFalse(at(s, "contract", "passed")));
    const cJSON *failed = at(s, "contract", "failed");
    assert_int_equal(cJSON_GetArraySize(failed), 2); /* nlp and lemke trajectories */
    assert_non_null(strstr(cJSON_GetArrayItem(failed, 0)->valuestring, "first_contact_step = 40"));
    cJSON_Delete(s);
}

/* A failed step fails the run even when [expect] does not bound failed steps (the post's
 * variant without its contract: its flight steps are infeasible as published). */
static void test_failed_steps_fail_without_a_contract(void **state)
{
    (void)state;
    write_file(TMP "blog_no_expect.ini",
               "[model]\nname = point2d_friction\nvariant = blog\n[run]\nsteps = 5\n"
               "[nlp]\nwarm_start = no\nmax_iter = 50\n");
    assert_int_equal(run("compare " TMP "blog_no_expect.ini -o " TMP "gate"), 1);
    assert_non_null(strstr(out_buf, "FAIL nlp_failed_steps_max = 0 (implied)"));
    cJSON *s = load_json(TMP "gate/summary.json");
    assert_true(at(s, "nlp", "failed_steps")->valueint > 0);
    assert_true(cJSON_IsFalse(at(s, "contract", "passed")));
    cJSON_Delete(s);
    assert_int_equal(run("run " TMP "blog_no_expect.ini"), 1);
    /* a contract that allows the failures passes */
    assert_int_equal(run("compare " TMP "blog_no_expect.ini -o " TMP "gate -q "
                         "--set expect.nlp_failed_steps_max=5"), 0);
}

/* The command's replacements of IPOPT's and MUMPS's per-step overheads (solver_overheads.c)
 * change no answer: the same trajectories, bit for bit, with them and without them. */
/* Note 004's figure 1 both ways: Egan's form lets the point fall past the corner (the
 * contact-free path, checked to 1e-9 m by the contract), Stewart-Trinkle stops it on the
 * virtual edge; per-step contact sets (none, then two edges or one group) in both backends. A
 * scene with a clockwise polygon is bad input naming the scene file's line. */
static void test_polygon_corner_both_ways(void **state)
{
    (void)state;
    assert_int_equal(run("compare " SCEN "polygon_corner_egan.ini -q -o " TMP "pc_egan"), 0);
    assert_int_equal(run("compare " SCEN "polygon_corner_stewart_trinkle.ini -q -o " TMP "pc_st"),
                     0);
    assert_int_equal(run("compare " SCEN "polygon_corner_egan.ini -q --set nlp.check_start=no -o "
                         TMP "pc_egan_nocheck"), 0);
    write_file(TMP "cw.scene", "# clockwise\npolygon 0 0, 0 1, 1 1, 1 0\n");
    write_file(TMP "cw.ini", "[model]\nname = disc_polygons\nscene = cw.scene\n[initial]\nx = 3\n");
    assert_int_equal(run("run " TMP "cw.ini -q"), 2);
    assert_non_null(strstr(err_buf, "cw.scene:2: polygon: the vertices are in clockwise order"));
    /* the trajectory extremes as contract checks: Egan's point falls below z = 0, Lemke's and
     * the NLP's; a bound it breaks fails the run, named in the output and in summary.json */
    assert_int_equal(run("compare " SCEN "polygon_corner_egan.ini -o " TMP "pc_max "
                         "--set expect.max_lemke.z_m=0.2 --set expect.min_lemke.z_m=-0.6 "
                         "--set expect.max_nlp.xd_mps=1e-9"), 0);
    assert_int_equal(run("compare " SCEN "polygon_corner_egan.ini -o " TMP "pc_max "
                         "--set expect.min_lemke.z_m=-0.5 --set expect.lemke_failed_steps_min=1"),
                     1);
    assert_non_null(strstr(out_buf, "FAIL min_lemke.z_m = -0.5"));
    assert_non_null(strstr(out_buf, "FAIL lemke_failed_steps_min = 1"));
    cJSON *sum = load_json(TMP "pc_max/summary.json");
    assert_close(at(sum, "lemke", "min")->child->next->valuedouble, -0.586762, 1e-9, 0);
    assert_close(at(sum, "lemke", "max")->child->next->valuedouble, 0.2 - 9.81e-6, 1e-12, 0);
    cJSON_Delete(sum);
}

static void test_solver_overheads_change_no_answer(void **state)
{
    (void)state;
    static const char *const files[] = {"trajectory_nlp.csv", "trajectory_lemke.csv"};
    static char a[1 << 20], b[1 << 20];
    const char *args = "compare " SCEN "point2d_friction.ini -q --set run.steps=470 "
                       "--set nlp.check_start=no -o ";
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s" TMP "ovh_off", args);
    assert_int_equal(run(cmd), 1); /* too short for the contract's rest checks */
    snprintf(cmd, sizeof cmd, "%s" TMP "ovh_kept", args);
    assert_int_equal(setenv("RELAXSIM_SOLVER_OVERHEADS", "keep", 1), 0);
    assert_int_equal(run(cmd), 1);
    unsetenv("RELAXSIM_SOLVER_OVERHEADS");
    assert_null(strstr(err_buf, "is linked")); /* the versions built for: nothing to say */
    /* other library versions at run time: each replacement that stands on them is off, said
     * once, and the command works on */
    snprintf(cmd, sizeof cmd, "%s" TMP "ovh_other", args);
    assert_int_equal(setenv("RELAXSIM_IPOPT_VERSION", "3.14.4", 1), 0);
    assert_int_equal(setenv("RELAXSIM_MUMPS_VERSION", "5.6.2", 1), 0);
    assert_int_equal(run(cmd), 1);
    unsetenv("RELAXSIM_IPOPT_VERSION");
    unsetenv("RELAXSIM_MUMPS_VERSION");
    const char *said = strstr(err_buf, "relaxsim: IPOPT 3.14.4 is linked, not the 3.11");
    assert_non_null(said);
    assert_null(strstr(said + 1, "relaxsim: IPOPT 3.14.4")); /* once */
    assert_non_null(strstr(err_buf, "relaxsim: MUMPS 5.6.2 is linked, not the 5.5"));
    static const char *const dirs[] = {TMP "ovh_kept", TMP "ovh_other"};
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < 2; i++) {
            char pa[512], pb[512];
            snprintf(pa, sizeof pa, TMP "ovh_off/%s", files[i]);
            snprintf(pb, sizeof pb, "%s/%s", dirs[d], files[i]);
            const size_t la = slurp(pa, a, sizeof a), lb = slurp(pb, b, sizeof b);
            assert_true(la > 1000);
            assert_int_equal(la, lb);
            assert_memory_equal(a, b, la);
        }
}

/* Outputs: an unwritable -o is refused before the simulation; a failed write (here a file size
 * limit, as a full disk would) names the OS error and leaves the previous outputs whole. */
static void test_outputs_are_checked_first_and_never_torn(void **state)
{
    (void)state;
    assert_int_equal(run("compare " SCEN "falling_block.ini -q -o " SCEN "falling_block.ini"), 2);
    assert_non_null(strstr(err_buf, "falling_block.ini: is a file, not a directory"));
    assert_int_equal(run("run " SCEN "falling_block.ini -q -o " TMP), 2);
    assert_non_null(strstr(err_buf, "is a directory (give a file name)"));
    assert_int_equal(run("compare " SCEN "falling_block.ini -q -o " TMP "whole"), 0);
    static char before[1 << 17], after[1 << 17];
    const size_t len = slurp(TMP "whole/steps.jsonl", before, sizeof before);
    assert_true(len > 40000);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "trap '' XFSZ; ulimit -f 40; '%s' compare " SCEN "falling_block.ini "
             "-q --set run.steps=90 -o " TMP "whole 2>'%sdisk_err.txt'", RS_CLI_PATH, TMP);
    const int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1); /* a failed write: exit 1, no usage */
    slurp(TMP "disk_err.txt", err_buf, sizeof err_buf);
    assert_non_null(strstr(err_buf, "cannot write: File too large"));
    assert_int_equal(slurp(TMP "whole/steps.jsonl", after, sizeof after), len);
    assert_memory_equal(before, after, len); /* the previous set, untouched */
    cJSON *s = load_json(TMP "whole/summary.json");
    assert_int_equal(at(s, "steps", NULL)->valueint, 100); /* the previous run's */
    cJSON_Delete(s);
    assert_int_equal(system("ls -a '" TMP "whole' | grep -q tmp"), 256); /* no temporary left */
}

/* Inputs are bounded like states: an absurd force is refused, not simulated. */
static void test_absurd_input_is_refused(void **state)
{
    (void)state;
    assert_int_equal(run("compare " SCEN "point2d_friction.ini --set input.uz=-1e308 -q"), 2);
    assert_non_null(strstr(err_buf, "input.uz: -1e+308 is out of range [-1e+12, 1e+12]"));
}

static void test_run_one_backend(void **state)
{
    (void)state;
    assert_int_equal(run("run " SCEN "sliding_block_traditional.ini --backend lemke -o " TMP "traj.csv -q"), 0);
    static char text[1 << 16];
    slurp(TMP "traj.csv", text, sizeof text);
    assert_true(strncmp(text, "step,t_s,u_N,x_m,xd_mps,f_N,mode,status,pivots,", 47) == 0);
    assert_non_null(strstr(text, ",sticking,solved,"));
    assert_non_null(strstr(text, ",sliding+,solved,"));
    assert_int_equal(run("run " SCEN "falling_block.ini"), 0);
    assert_non_null(strstr(out_buf, "NLP (IPOPT)"));
    /* a run too short to land fails the landing checks of the contract: exit 1, named */
    assert_int_equal(run("run " SCEN "falling_block.ini --set run.steps=20"), 1);
    assert_non_null(strstr(out_buf, "FAIL first_contact_step = 44"));
    /* a contract's least number of failed Lemke steps counts the comparison's shadow solves: a
     * Lemke run alone, which makes none, applies only the most (the corner note's throw fails
     * one independent step and its shadow: 2 in compare, 1 here) */
    assert_int_equal(run("run " SCEN "polygon_disc_corner_note.ini --backend lemke -q"), 0);
    assert_int_equal(run("run " SCEN "polygon_disc_corner_note.ini --backend lemke -q "
                         "--set expect.lemke_failed_steps_max=0"),
                     1);
    assert_non_null(strstr(err_buf, "FAIL lemke_failed_steps_max = 0 (lemke), actual 1"));
    assert_int_equal(run("run " SCEN "falling_block.ini --backend simplex"), 2);
    assert_non_null(strstr(err_buf, "--backend: expected nlp or lemke"));
}

static void test_bad_scenarios_exit_2(void **state)
{
    (void)state;
    FILE *f = fopen(TMP "bad_dt.ini", "w");
    fputs("[model]\nname = falling_block\n[run]\ndt = -0.01\n", f);
    fclose(f);
    assert_int_equal(run("compare " TMP "bad_dt.ini -o " TMP "x"), 2);
    assert_non_null(strstr(err_buf, "bad_dt.ini:4: run.dt: the time step must be in [1e-12, 10] s"));
    assert_int_equal(run("run " TMP "missing.ini"), 2);
    assert_non_null(strstr(err_buf, "missing.ini: cannot open"));
    assert_int_equal(run("compare " SCEN "falling_block.ini --set model.mu=0.1"), 2);
    assert_non_null(strstr(err_buf, "--set model.mu: unknown key for model falling_block"));
    assert_int_equal(run("compare"), 2);
    assert_non_null(strstr(err_buf, "missing SCENARIO"));
    assert_int_equal(run("compare " SCEN "falling_block.ini --frobnicate"), 2);
    /* an output path too long to hold its files' names is refused, not cut */
    char args[2048], longdir[1000];
    memset(longdir, 'd', sizeof longdir - 1);
    longdir[sizeof longdir - 1] = '\0';
    for (size_t k = 200; k < sizeof longdir - 1; k += 200)
        longdir[k] = '/';
    const char *const commands[] = {"compare", "run", "batch"};
    for (int k = 0; k < 3; k++) {
        snprintf(args, sizeof args, "%s " SCEN "falling_block.ini -q -o " TMP "%s", commands[k],
                 longdir);
        assert_int_equal(run(args), 2);
        assert_non_null(strstr(err_buf, "-o: path longer than 900 characters"));
    }
    /* grad --sweep: exactly three parts */
    const char *const sweeps[] = {"m=1:2", "m=1", "m=", "m=1:2:3:4", "m=1::3"};
    for (int k = 0; k < 5; k++) {
        snprintf(args, sizeof args,
                 "grad " SCEN "falling_block.ini --wrt m --sweep %s -q -o " TMP "gs", sweeps[k]);
        assert_int_equal(run(args), 2);
        assert_non_null(strstr(err_buf, "--sweep: expected KEY=LO:HI:N (three parts)"));
    }
}

static int is_png(const char *path)
{
    unsigned char head[8] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    const size_t got = fread(head, 1, 8, f);
    fclose(f);
    return got == 8 && head[0] == 0x89 && head[1] == 'P' && head[2] == 'N' && head[3] == 'G';
}

static void test_plot(void **state)
{
    (void)state;
    assert_int_equal(run("compare " SCEN "sliding_block_direct.ini -o " TMP "plotdir -q"), 0);
    assert_int_equal(run("plot " TMP "plotdir"), 0);
    static const char *pngs[] = {"positions", "velocities", "forces", "differences"};
    for (int i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, TMP "plotdir/%s.png", pngs[i]);
        assert_true(is_png(path));
    }
    assert_int_equal(run("plot " TMP "nowhere"), 2);
    assert_non_null(strstr(err_buf, "nowhere: no such directory"));
    assert_int_equal(run("plot " TMP "plotdir/positions.png"), 2);
    assert_non_null(strstr(err_buf, "positions.png: not a directory"));
    mkdir(TMP "plot_empty", 0777); /* a directory of something else */
    assert_int_equal(run("plot " TMP "plot_empty"), 2);
    assert_non_null(strstr(err_buf, "no comparison here"));
    assert_int_equal(run("study foo -o " TMP "x"), 2);
    assert_non_null(strstr(err_buf, "unknown study 'foo'"));
    assert_int_equal(run("study -o " TMP "x"), 2);
    assert_non_null(strstr(err_buf, "expected a study name"));
    assert_int_equal(run("plot"), 2);
    /* results that are not compare's: named by file and line, exit 2 (were drawn without their
     * curves, exit 0, or handed to gnuplot, exit 1) */
    assert_int_equal(system("rm -rf '" TMP "plotbad' && cp -r '" TMP "plotdir' '" TMP "plotbad' && "
                            "echo '9,x,y' >> '" TMP "plotbad/shadow.csv'"),
                     0);
    assert_int_equal(run("plot " TMP "plotbad"), 2);
    assert_non_null(strstr(err_buf, "plotbad/shadow.csv:"));
    assert_int_equal(system("rm '" TMP "plotbad/shadow.csv' '" TMP "plotbad/trajectory_nlp.csv'"),
                     0);
    assert_int_equal(run("plot " TMP "plotbad"), 2);
    assert_non_null(strstr(err_buf, "plotbad/trajectory_nlp.csv: missing or unreadable"));
    /* the landing of point2d: dashes that are drawn (pngcairo), the impact in a panel of its own
     * beside the sustained forces, events on a strip of their own, gnuplot's messages kept out
     * of the terminal */
    assert_int_equal(run("compare " SCEN "point2d_friction.ini -o " TMP "plot2d -q"), 0);
    assert_int_equal(run("plot " TMP "plot2d"), 0);
    assert_true(err_buf[0] == '\0');
    static char gp[1 << 16];
    slurp(TMP "plot2d/plot.gp", gp, sizeof gp);
    assert_non_null(strstr(gp, "set terminal pngcairo"));
    assert_null(strstr(gp, "set terminal png "));
    assert_non_null(strstr(gp, "dt (8,6)"));
    assert_non_null(strstr(gp, "impact at t = 0.452 s"));
    assert_non_null(strstr(gp, "sustained range"));
    assert_non_null(strstr(gp, "'mode mismatch' 1, 'failed step' 2"));
    assert_true(is_png(TMP "plot2d/forces.png"));
    /* a model with obstacles: scene.png over the scene file named in summary.json; the valley's
     * two pieces are two outlines in scene.dat; Stewart-Trinkle's picture adds the edge lines */
    assert_int_equal(run("compare " SCEN "polygon_valley.ini -o " TMP "plotv -q"), 0);
    assert_int_equal(run("plot " TMP "plotv"), 0);
    assert_true(err_buf[0] == '\0');
    assert_non_null(strstr(out_buf, "scene}.png"));
    assert_true(is_png(TMP "plotv/scene.png"));
    static char dat[1 << 14];
    slurp(TMP "plotv/scene.dat", dat, sizeof dat);
    assert_non_null(strstr(dat, "# obstacle 2"));
    assert_null(strstr(dat, "# obstacle 3"));
    slurp(TMP "plotv/plot.gp", gp, sizeof gp);
    assert_non_null(strstr(gp, "for [i=0:1] 'scene.dat' index i"));
    assert_null(strstr(gp, "scene_lines.dat"));
    assert_int_equal(run("compare " SCEN "polygon_corner_stewart_trinkle.ini -o " TMP "plotst -q"), 0);
    assert_int_equal(run("plot " TMP "plotst"), 0);
    slurp(TMP "plotst/plot.gp", gp, sizeof gp);
    assert_non_null(strstr(gp, "scene_lines.dat"));
    assert_true(is_png(TMP "plotst/scene.png"));
    /* a bodies run: the outlines' picture and the animation. Each frame's disc is drawn where the
     * trajectory has it: its rim points at r = 0.1 from the centre (1e-8), the first at angle
     * theta (the spoke), the last its centre; 1000 steps of 1 ms (1 s) are animated in 3 s at 25
     * frames a second: 75 frames. */
    assert_int_equal(run("compare " SCEN "bodies_disc_slip_roll.ini -o " TMP
                         "plotb -q"),
                     0);
    assert_int_equal(run("plot " TMP "plotb"), 0);
    assert_true(err_buf[0] == '\0');
    assert_non_null(strstr(out_buf, "bodies}.png and "));
    assert_true(is_png(TMP "plotb/bodies.png"));
    char head[8] = {0};
    assert_true(slurp(TMP "plotb/bodies.gif", head, sizeof head) >= 6);
    assert_int_equal(memcmp(head, "GIF89a", 6), 0);
    slurp(TMP "plotb/plot.gp", gp, sizeof gp);
    assert_non_null(strstr(gp, "gif animate noenhanced"));
    assert_non_null(strstr(gp, "array T[75]"));
    assert_non_null(strstr(gp, "delay 4 loop")); /* 1/100 s units: 75 frames in 3 s */
    static char frames[1 << 20], traj[1 << 20];
    slurp(TMP "plotb/bodies_nlp.dat", frames, sizeof frames);
    slurp(TMP "plotb/trajectory_nlp.csv", traj, sizeof traj);
    int nframes = 0;
    for (const char *f = strstr(frames, "# t = "); f; f = strstr(f + 1, "# t = ")) {
        const double t = strtod(f + 6, NULL);
        /* the trajectory's row of this time: step = t / dt - 1 (dt = 1e-3) */
        const long step = lround(t / 1e-3) - 1;
        char key[32];
        snprintf(key, sizeof key, "\n%ld,", step);
        const char *row = strstr(traj, key);
        assert_non_null(row);
        double v[16];
        const char *p = row + 1;
        for (int c = 0; c < 16 && p; c++) { /* step,t_s,3 inputs,x,z,theta,... */
            v[c] = strtod(p, NULL);
            p = strchr(p, ',');
            p = p ? p + 1 : NULL;
        }
        const double x = v[5], z = v[6], theta = v[7];
        const char *line = strchr(f, '\n') + 1;
        double px, pz, first[2] = {NAN, NAN}, last[2] = {NAN, NAN};
        int points = 0;
        while (sscanf(line, "%lf,%lf", &px, &pz) == 2) {
            if (points++ == 0) {
                first[0] = px;
                first[1] = pz;
            }
            last[0] = px;
            last[1] = pz;
            line = strchr(line, '\n') + 1;
            if (points <= 49)
                assert_true(fabs(hypot(px - x, pz - z) - 0.1) <= 1e-8);
        }
        assert_int_equal(points, 50); /* 48 sides closed, then the centre */
        assert_true(fabs(first[0] - (x + 0.1 * cos(theta))) <= 1e-8);
        assert_true(fabs(first[1] - (z + 0.1 * sin(theta))) <= 1e-8);
        assert_true(hypot(last[0] - x, last[1] - z) <= 1e-8);
        nframes++;
    }
    assert_int_equal(nframes, 75);
}

/* relaxsim grad: its files, its table, its contract, its refusals and its sweep picture. */
static void test_grad(void **state)
{
    (void)state;
    /* a velocity with a zero gradient: its differences carry the positions' rounding over dt
     * (5.8e-8 here), which the noise floor must include (this was a false `disagree`) */
    assert_int_equal(run("grad " SCEN "falling_block.ini --wrt m --set run.steps=10 --set "
                         "run.dt=1e-3 -q -o " TMP "grad_fall"),
                     0);
    /* reduced (rs_test_reduced): through the landing, 460 steps */
    const int steps = rs_test_reduced() ? 460 : 1200;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "grad " SCEN "point2d_friction.ini --wrt mu,xd --of x,fz@451 -o " TMP
             "grad1 --set run.steps=%d", steps);
    assert_int_equal(run(cmd), 0);
    char at_end[64];
    snprintf(at_end, sizeof at_end, "x_m@%-12d model.mu", steps - 1);
    assert_non_null(strstr(out_buf, at_end));
    assert_non_null(strstr(out_buf, "contract: passed"));
    /* a gradient with respect to a push that friction holds: the differences' runs (ux = +-1e-6
     * N) rest with friction -ux, never with a warm basis's fx = 0 (their difference was NaN) */
    assert_int_equal(run("grad " SCEN "point2d_friction.ini --wrt ux --of x -q -o " TMP "grad_ux"),
                     0);
    static char csv[1 << 16];
    assert_true(slurp(TMP "grad1/gradients.csv", csv, sizeof csv) > 0);
    assert_non_null(strstr(csv, "output,key,value,lcp,nlp,fd,fd_step"));
    assert_non_null(strstr(csv, "fz_N@451,initial.xd,"));
    cJSON *s = load_json(TMP "grad1/grad.json");
    assert_int_equal(cJSON_GetArraySize(at(s, "keys", NULL)), 2);
    assert_true(cJSON_IsTrue(at(s, "contract_passed", NULL)));
    cJSON_Delete(s);
    /* tangents.csv: a row per step, key and method, and a header */
    static char tan[1 << 22];
    const size_t len = slurp(TMP "grad1/tangents.csv", tan, sizeof tan);
    int lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += tan[i] == '\n';
    assert_int_equal(lines, 1 + steps * 2 * 2);
    /* a gradient check that cannot be met: exit 1, the check named with its value */
    snprintf(cmd, sizeof cmd, "grad " SCEN "point2d_friction.ini --wrt z --of x -o " TMP
             "grad2 --set expect.grad_nlp_fd_max_rel=1e-12 --set run.steps=%d", steps);
    assert_int_equal(run(cmd), 1);
    assert_non_null(strstr(out_buf, "FAIL grad_nlp_fd_max_rel = 1e-12"));
    /* failed NLP steps (one IPOPT iteration each): the NLP gradient fails from there, the pair's
     * verdict says so, and the implied gate fails the run */
    snprintf(cmd, sizeof cmd, "grad " SCEN "point2d_friction.ini --wrt mu --of x -o " TMP
             "grad5 --set nlp.max_iter=1 --set nlp.check_start=no --set nlp.retries=0 --set "
             "run.steps=%d", steps);
    assert_int_equal(run(cmd), 1);
    assert_non_null(strstr(out_buf, "failed"));
    assert_non_null(strstr(out_buf, "FAIL grad_failed_max = 0 (implied)"));
    /* refusals: exit 2 with the reason */
    assert_int_equal(run("grad " SCEN "point2d_friction.ini --wrt tol -o " TMP "grad3"), 2);
    assert_non_null(strstr(err_buf, "--wrt tol"));
    assert_int_equal(run("grad " SCEN "point2d_friction.ini -o " TMP "grad3"), 2);
    assert_non_null(strstr(err_buf, "--wrt KEY"));
    /* a key or an output named twice (each row came out two or three times) */
    assert_int_equal(run("grad " SCEN "point2d_friction.ini --wrt mu,model.mu -o " TMP "grad3"), 2);
    assert_non_null(strstr(err_buf, "--wrt model.mu: model.mu is named twice"));
    /* a parameter of whole values has no derivative (it ran, then failed its differences) */
    assert_int_equal(run("grad " SCEN "point3d_friction.ini --wrt directions -o " TMP "grad3"), 2);
    assert_non_null(strstr(err_buf, "model.directions takes whole values only"));
    assert_int_equal(run("grad " SCEN "point2d_friction.ini --wrt mu --of x,x@1199 -o " TMP
                         "grad3"),
                     2);
    assert_non_null(strstr(err_buf, "--of x@1199: x_m@1199 is named twice"));
    assert_int_equal(run("grad " SCEN "point2d_friction.ini --wrt mu --of x@1200 -o " TMP "grad3"),
                     2);
    assert_int_equal(run("grad " SCEN "point2d_friction.ini --wrt mu -o " TMP
                         "grad3 --set input.unit=weight"),
                     2);
    assert_non_null(strstr(err_buf, "unit = weight"));
    /* a sweep and its picture */
    assert_int_equal(run("grad " SCEN "sliding_block_forward.ini --wrt mu --of x --sweep "
                         "mu=0.3:0.6:4 -q -o " TMP "grad4"),
                     0);
    assert_true(slurp(TMP "grad4/sweep.csv", csv, sizeof csv) > 0);
    assert_non_null(strstr(csv, "model.mu,output,key,value,lcp"));
    assert_int_equal(run("plot " TMP "grad4"), 0);
    assert_true(is_png(TMP "grad4/grad_sweep.png"));
}

/* relaxsim study noisy-sticking on a reduced size: its files, and exit 0 with the expectations
 * met; an unknown study is bad usage. */
static void test_study(void **state)
{
    (void)state;
    assert_int_equal(run("study noisy-sticking --samples 5000 --sigmas 1e-3,1 -q -o " TMP
                         "study1"),
                     0);
    static char text[1 << 16];
    assert_true(slurp(TMP "study1/report.md", text, sizeof text) > 0);
    assert_non_null(strstr(text, "the note says"));
    assert_non_null(strstr(text, "Expectations: met"));
    cJSON *s = load_json(TMP "study1/summary.json");
    assert_true(cJSON_IsTrue(at(s, "expectations_met", NULL)));
    assert_int_equal(cJSON_GetArraySize(at(s, "sigmas", NULL)), 2);
    cJSON_Delete(s);
    assert_true(is_png(TMP "study1/sticking.png"));
    /* reduced: the block's 100 steps cut to 60 (it stops at step 52), the fits' trajectories
     * as long (the fits are the same code; under the sanitizers every IPOPT solve's MUMPS
     * buffers are fresh pages, and this study was 40% of the test) */
    static char sbt[4096];
    assert_true(slurp(SCEN "sliding_block_traditional.ini", sbt, sizeof sbt) > 0);
    char *at_steps = strstr(sbt, "steps = 100");
    assert_non_null(at_steps);
    if (rs_test_reduced())
        memcpy(at_steps, "steps =  60", 11);
    write_file(TMP "sbt.ini", sbt);
    assert_int_equal(run("study unknown-friction --starts 1 --scenario " TMP "sbt.ini -q -o " TMP
                         "study3"),
                     0);
    assert_true(slurp(TMP "study3/report.md", text, sizeof text) > 0);
    assert_non_null(strstr(text, "zero gradient"));
    assert_true(is_png(TMP "study3/unknown_friction.png"));
    const char *fits[2][2] = {{"known-friction", "known_friction.png"},
                              {"decomposed-velocities", "decomposed_velocities.png"}};
    for (int i = 0; i < 2; i++) {
        char args[1024], file[512];
        snprintf(args, sizeof args,
                 "study %s --train 40 --test 40 --noises 0,1e-4 --scenario " SCEN
                 "sliding_block_direct_random.ini -q -o " TMP "study4",
                 fits[i][0]);
        assert_int_equal(run(args), 0);
        assert_true(slurp(TMP "study4/report.md", text, sizeof text) > 0);
        assert_non_null(strstr(text, "the note says"));
        cJSON *j = load_json(TMP "study4/summary.json");
        assert_true(cJSON_IsTrue(at(j, "expectations_met", NULL)));
        assert_int_equal(cJSON_GetArraySize(at(j, "fits", NULL)), i ? 4 : 12);
        cJSON_Delete(j);
        snprintf(file, sizeof file, TMP "study4/%s", fits[i][1]);
        assert_true(is_png(file));
    }
    assert_int_equal(
        run("study known-friction --scenario " SCEN "falling_block.ini -o " TMP "study2"), 2);
    assert_non_null(strstr(err_buf, "needs a sliding_block_direct scenario"));
    assert_int_equal(run("study known-friction --noises 2 -o " TMP "study2"), 2);
    assert_int_equal(run("study no-such-study -o " TMP "study2"), 2);
    assert_int_equal(run("study noisy-sticking --samples 5 -o " TMP "study2"), 2);
}

/* The numbers of a dataset CSV (header lines and the names row skipped): rows x ncol into v;
 * returns the rows. The header lines are copied to header. */
static int read_dataset(const char *path, double *v, int max_cells, int *ncol, char *header,
                        size_t header_len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char line[8192];
    int rows = 0, cells = 0, names = 0;
    header[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            strncat(header, line, header_len - strlen(header) - 1);
            continue;
        }
        if (!names++)
            continue;
        int c = 0;
        for (char *p = line, *end; *p && *p != '\n'; p = *end == ',' ? end + 1 : end, c++) {
            assert_true(cells < max_cells);
            v[cells++] = strtod(p, &end);
            assert_true(end != p);
        }
        *ncol = c;
        rows++;
    }
    fclose(f);
    return rows;
}

/* relaxsim dataset: the rows are a certificate of the LCP they come from. For the direct sliding
 * block (m = 1 kg, mu = 0.5, g = 9.81, dt = 0.01) each row's z, w >= 0, z_i w_i = 0, w = M z + q
 * recomputed from the row's state and input (M = (m/dt) I, q as in the model), the next state
 * is z with x' = x + dt (v+' - v-'), and each row starts where the previous ended. With --noise
 * every measured column moves, by sigma times its RMS within 20%, the input not at all; the
 * header says so. Bad input exits 2. */
static void test_dataset(void **state)
{
    (void)state;
    static double clean[400 * 13], noisy[400 * 13];
    static char header[4096];
    int ncol = 0;
    assert_int_equal(run("dataset " SCEN "sliding_block_direct_random.ini --set run.steps=400 -o " TMP
                         "ds.csv -q"),
                     0);
    assert_int_equal(read_dataset(TMP "ds.csv", clean, 400 * 13, &ncol, header, sizeof header),
                     400);
    assert_int_equal(ncol, 13); /* step, t_s, x, v+, v-, u, z1, z2, w1, w2, x', v+', v-' */
    assert_non_null(strstr(header, "# noise: none"));
    const double k = 1.0 / 0.01, mu_mg = 0.5 * 9.81;
    int stuck = 0;
    for (int r = 0; r < 400; r++) {
        const double *row = clean + r * 13;
        const double x = row[2], vp = row[3], vm = row[4], u = row[5];
        const double z1 = row[6], z2 = row[7], w1 = row[8], w2 = row[9];
        assert_true(z1 >= 0.0 && z2 >= 0.0 && w1 >= -1e-12 && w2 >= -1e-12);
        assert_true(fabs(z1 * w1) <= 1e-12 && fabs(z2 * w2) <= 1e-12);
        assert_true(fabs(w1 - (k * z1 - k * (vp - vm) - u + mu_mg)) <= 1e-9);
        assert_true(fabs(w2 - (k * z2 + k * (vp - vm) + u + mu_mg)) <= 1e-9);
        assert_true(row[10] == x + 0.01 * (z1 - z2) && row[11] == z1 && row[12] == z2);
        if (r > 0)
            assert_memory_equal(row + 2, row - 13 + 10, 3 * sizeof(double));
        stuck += z1 == 0.0 && z2 == 0.0;
    }
    assert_true(stuck > 20 && stuck < 380); /* it slides and sticks */
    assert_int_equal(run("dataset " SCEN "sliding_block_direct_random.ini --set run.steps=400 "
                         "--noise 0.01 --noise-seed 4 -o " TMP "dsn.csv -q"),
                     0);
    assert_int_equal(read_dataset(TMP "dsn.csv", noisy, 400 * 13, &ncol, header, sizeof header),
                     400);
    assert_non_null(strstr(header, "standard deviation 0.01"));
    assert_non_null(strstr(header, "seed 4"));
    for (int c = 2; c < 13; c++) {
        double ss = 0.0, dd = 0.0;
        for (int r = 0; r < 400; r++) {
            ss += clean[r * 13 + c] * clean[r * 13 + c];
            dd += (noisy[r * 13 + c] - clean[r * 13 + c]) * (noisy[r * 13 + c] - clean[r * 13 + c]);
        }
        if (c == 5) {
            assert_true(dd == 0.0); /* the input is commanded, not measured */
            continue;
        }
        const double ratio = sqrt(dd / ss); /* the noise's RMS over the column's */
        assert_true(fabs(ratio - 0.01) <= 0.002);
    }
    assert_int_equal(run("dataset " SCEN "point3d_friction.ini -o " TMP "ds3.csv"), 2);
    assert_non_null(strstr(err_buf, "does not name its LCP's components"));
    assert_int_equal(run("dataset " SCEN "falling_block.ini"), 2);
    assert_non_null(strstr(err_buf, "-o FILE.csv is required"));
    assert_int_equal(run("dataset " SCEN "falling_block.ini --noise nan -o " TMP "ds4.csv"), 2);
    assert_int_equal(run("dataset " SCEN "falling_block.ini --set run.dt=-1 -o " TMP "ds4.csv"), 2);
}

static void test_trajectories_are_reproducible(void **state)
{
    (void)state;
    static char a[1 << 18], b[1 << 18];
    assert_int_equal(run("compare " SCEN "point2d_friction.ini --set run.steps=480 -o " TMP "rep1 -q"), 1);
    assert_int_equal(run("compare " SCEN "point2d_friction.ini --set run.steps=480 -o " TMP "rep2 -q"), 1);
    const size_t la = slurp(TMP "rep1/trajectory_nlp.csv", a, sizeof a);
    const size_t lb = slurp(TMP "rep2/trajectory_nlp.csv", b, sizeof b);
    assert_true(la > 1000);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
}

static void test_lcp_solve_with_ipopt(void **state)
{
    (void)state;
    assert_int_equal(run("lcp solve " DATA "lcp_exp_murty2.dat --solver ipopt --json"), 0);
    cJSON *o = cJSON_Parse(out_buf);
    assert_non_null(o);
    assert_string_equal(cJSON_GetObjectItem(o, "solver")->valuestring, "ipopt");
    assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring, "solved");
    assert_true(cJSON_GetObjectItem(o, "iterations")->valueint > 0);
    /* the certificate keys are those of Lemke's report */
    assert_true(cJSON_GetObjectItem(o, "natural_residual")->valuedouble < 1e-6 * 126);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "certificate_passed")));
    assert_close(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "z"), 5)->valuedouble, 64.0, 1e-4, 0.0);
    cJSON_Delete(o);
    assert_int_equal(run("lcp solve " DATA "lcp_Pang_isolated_sol_perturbed.dat --solver ipopt --json"), 1);
    assert_non_null(strstr(out_buf, "\"status\":\"infeasible\""));
    assert_int_equal(run("lcp solve " DATA "lcp_CPS_1.dat --solver simplex"), 2);
}

static void test_models_listing(void **state)
{
    (void)state;
    assert_int_equal(run("models"), 0);
    assert_non_null(strstr(out_buf, "point2d_friction: "));
    assert_non_null(strstr(out_buf, "corrected (default) blog"));
    assert_non_null(strstr(out_buf, "sliding_block_traditional"));
}

/* Every command answers --help with its synopsis and exit 0, wherever --help stands. */
static void test_help(void **state)
{
    (void)state;
    static const struct {
        const char *args, *needle;
    } cases[] = {
        {"--help", "relaxsim <command> [options]"},
        {"compare --help", "relaxsim compare SCENARIO"},
        {"run " SCEN "falling_block.ini -h", "relaxsim run SCENARIO"},
        {"lcp solve --help", "relaxsim lcp solve FILE"},
        {"lcp --help", "relaxsim lcp gen --class"},
        {"study unknown-friction --help", "relaxsim study unknown-friction"},
        {"--help replay", "relaxsim replay CAPSULE"},
        {"batch --help", "[--stack K] [--keep] [-q]"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(run(cases[k].args), 0);
        assert_non_null(strstr(out_buf, cases[k].needle));
    }
    assert_int_equal(run("--help frobnicate"), 2);
    assert_int_equal(run("--version extra"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_writes_everything),
        cmocka_unit_test(test_write_errors_fail),
        cmocka_unit_test(test_contract_failure_exits_1_and_is_named),
        cmocka_unit_test(test_polygon_corner_both_ways),
        cmocka_unit_test(test_failed_steps_fail_without_a_contract),
        cmocka_unit_test(test_absurd_input_is_refused),
        cmocka_unit_test(test_solver_overheads_change_no_answer),
        cmocka_unit_test(test_outputs_are_checked_first_and_never_torn),
        cmocka_unit_test(test_run_one_backend),
        cmocka_unit_test(test_bad_scenarios_exit_2),
        cmocka_unit_test(test_plot),
        cmocka_unit_test(test_grad),
        cmocka_unit_test(test_study),
        cmocka_unit_test(test_dataset),
        cmocka_unit_test(test_trajectories_are_reproducible),
        cmocka_unit_test(test_lcp_solve_with_ipopt),
        cmocka_unit_test(test_models_listing),
        cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
