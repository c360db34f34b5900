/*
 * test_cli_lcp.c: the `relaxsim lcp` command as a user runs it: exit codes (0 solved,
 * 1 not solved, 2 bad usage or input), the JSON keys, and the error messages.
 */
#include "test_helpers.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DATA RS_LCP_DATA_DIR "/"
#define TMP RS_TEST_TMPDIR "/"

typedef struct run_result {
    int exit_code;
    char out[1 << 16];
    char err[4096];
} run_result;

/* Run `relaxsim ARGS`, capturing stdout and stderr. */
static run_result *run(const char *args)
{
    static run_result r;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%scli_out.txt' 2>'%scli_err.txt'", RS_CLI_PATH, args, TMP, TMP);
    const int status = system(cmd);
    assert_true(WIFEXITED(status));
    r.exit_code = WEXITSTATUS(status);
    slurp(TMP "cli_out.txt", r.out, sizeof r.out);
    slurp(TMP "cli_err.txt", r.err, sizeof r.err);
    return &r;
}

static void expect_usage_error(const char *args, const char *needle)
{
    const run_result *r = run(args);
    if (r->exit_code != 2 || !strstr(r->err, needle))
        print_error("relaxsim %s: exit %d, stderr '%s'; expected exit 2 and '%s'\n", args,
                    r->exit_code, r->err, needle);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, needle));
}

static void test_murty2_json(void **state)
{
    (void)state;
    const run_result *r = run("lcp solve " DATA "lcp_exp_murty2.dat --json");
    assert_int_equal(r->exit_code, 0);
    cJSON *o = cJSON_Parse(r->out);
    assert_non_null(o);
    assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring, "solved");
    assert_int_equal(cJSON_GetObjectItem(o, "pivots")->valueint, 63);
    assert_true(cJSON_GetObjectItem(o, "natural_residual")->valuedouble < 1e-9);
    assert_true(cJSON_GetObjectItem(o, "max_complementarity")->valuedouble < 1e-9);
    const cJSON *z = cJSON_GetObjectItem(o, "z"), *w = cJSON_GetObjectItem(o, "w");
    assert_int_equal(cJSON_GetArraySize(z), 6);
    assert_int_equal(cJSON_GetArraySize(w), 6);
    assert_close(cJSON_GetArrayItem(z, 5)->valuedouble, 64.0, 1e-12, 0.0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "certificate_passed")));
    cJSON_Delete(o);
}

static void test_text_output(void **state)
{
    (void)state;
    const run_result *r = run("lcp solve " DATA "lcp_exp_murty2.dat");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "status               solved"));
    assert_non_null(strstr(r->out, "pivots               63"));
    assert_non_null(strstr(r->out, "clamping"));
}

static void test_not_solved_exits_1(void **state)
{
    (void)state;
    static const char *files[] = {"lcp_CPS_3", "lcp_Pang_isolated_sol_perturbed"};
    for (int k = 0; k < 2; k++) {
        char args[512];
        snprintf(args, sizeof args, "lcp solve %s%s.dat --json", DATA, files[k]);
        const run_result *r = run(args);
        assert_int_equal(r->exit_code, 1);
        cJSON *o = cJSON_Parse(r->out);
        assert_non_null(o);
        assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring, "ray_termination");
        assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "certificate_passed")));
        cJSON_Delete(o);
    }
    const run_result *r = run("lcp solve " DATA "lcp_exp_murty2.dat --json --max-pivots 5");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->out, "\"status\":\"max_pivots\""));
}

/* The relaxation through IPOPT certifies a solution z = 0 (M = 1, q = 1: z = 1e-15 out of the
 * barrier): it was not_certified, z measured against itself. */
static void test_ipopt_certifies_a_zero_solution(void **state)
{
    (void)state;
    FILE *f = fopen(RS_TEST_TMPDIR "/one.dat", "w");
    assert_non_null(f);
    fputs("1\n0\n1 1\n1 1\n1\n1\n", f);
    fclose(f);
    const run_result *r = run("lcp solve " RS_TEST_TMPDIR "/one.dat --solver ipopt --json");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "\"certificate_passed\":true"));
}

static void test_bad_input_exits_2(void **state)
{
    (void)state;
    FILE *f = fopen(TMP "nan.dat", "w");
    assert_non_null(f);
    fputs("2\n0\n2 2\n2 2\n1 nan\n3 4\n-1 -1\n", f);
    fclose(f);
    expect_usage_error("lcp solve " TMP "nan.dat", "nan.dat: token 8: expected a finite real for M(1,0), got 'nan'");
    expect_usage_error("lcp solve " TMP "missing.dat", "missing.dat: cannot open");
    expect_usage_error("lcp solve", "missing FILE");
    expect_usage_error("lcp solve a.dat b.dat", "one FILE expected");
    expect_usage_error("lcp solve " DATA "lcp_CPS_1.dat --bogus", "unknown option '--bogus'");
    expect_usage_error("lcp solve " DATA "lcp_CPS_1.dat --max-pivots 0", "--max-pivots: 0 is out of range");
    expect_usage_error("lcp solve " DATA "lcp_CPS_1.dat --max-pivots", "--max-pivots needs a value");
    expect_usage_error("lcp solve " DATA "lcp_CPS_1.dat --tol nan", "--tol");
    expect_usage_error("lcp solve " DATA "lcp_CPS_1.dat --tol -1", "--tol");
    expect_usage_error("lcp", "lcp needs a subcommand");
    expect_usage_error("lcp frobnicate", "unknown lcp subcommand");
    expect_usage_error("frobnicate", "unknown command");
}

static void test_gen_then_solve(void **state)
{
    (void)state;
    static const char *classes[] = {"spd", "pmatrix", "psd", "friction"};
    for (int k = 0; k < 4; k++) {
        char args[512];
        snprintf(args, sizeof args, "lcp gen --class %s --n 24 --seed 9 --degenerate -o %sgen.dat", classes[k], TMP);
        run_result *r = run(args);
        assert_int_equal(r->exit_code, 0);
        assert_non_null(strstr(r->out, "wrote"));
        r = run("lcp solve " TMP "gen.dat --json");
        assert_int_equal(r->exit_code, 0);
        snprintf(args, sizeof args, "lcp gen --class %s --n 24 --seed 9 --storage sparse-block -o %sgenb.dat", classes[k], TMP);
        assert_int_equal(run(args)->exit_code, 0);
        assert_int_equal(run("lcp solve " TMP "genb.dat")->exit_code, 0);
    }
    expect_usage_error("lcp gen --class nope --n 3 --seed 1 -o x.dat", "unknown class 'nope'");
    expect_usage_error("lcp gen --class spd --n 0 --seed 1 -o x.dat", "--n: 0 is out of range");
    expect_usage_error("lcp gen --class spd --n 3 --seed -1 -o x.dat", "--seed: expected a non-negative integer");
    expect_usage_error("lcp gen --class spd --n 3 --seed 1", "are required");
    expect_usage_error("lcp gen --class spd --n 3 --seed 1 --block-size 4 -o x.dat", "larger than n");
    expect_usage_error("lcp gen --class spd --n 3 --seed 1 -o " TMP "gen.dat/x.dat",
                       "gen.dat: exists and is not a directory");
}

/* lcp gen -o is a single-file output as run's: its directory made, never written through a
 * link (what the link names is kept), to /dev/stdout with what it says on stderr. */
static void test_gen_output(void **state)
{
    (void)state;
    assert_int_equal(run("lcp gen --class spd --n 3 --seed 1 -o " TMP "go/new/a.dat")->exit_code,
                     0);
    unlink(TMP "go/link.dat");
    assert_int_equal(symlink("new/a.dat", TMP "go/link.dat"), 0);
    expect_usage_error("lcp gen --class spd --n 3 --seed 4 -o " TMP "go/link.dat",
                       "is a symbolic link");
    char text[4096];
    slurp(TMP "go/new/a.dat", text, sizeof text);
    assert_non_null(strstr(text, "--seed 1\n"));
    run_result *r = run("lcp gen --class spd --n 2 --seed 4 -o /dev/stdout");
    assert_int_equal(r->exit_code, 0);
    assert_int_equal(strncmp(r->out, "2\n0\n2 2\n2 2\n", 12), 0);
    assert_null(strstr(r->out, "wrote"));
    assert_non_null(strstr(r->err, "wrote /dev/stdout"));
}

static void test_help_and_version(void **state)
{
    (void)state;
    run_result *r = run("--help");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "lcp solve FILE"));
    r = run("--version");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "relaxsim 0."));
    assert_int_equal(run("")->exit_code, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_murty2_json),
        cmocka_unit_test(test_text_output),
        cmocka_unit_test(test_not_solved_exits_1),
        cmocka_unit_test(test_ipopt_certifies_a_zero_solution),
        cmocka_unit_test(test_bad_input_exits_2),
        cmocka_unit_test(test_gen_then_solve),
        cmocka_unit_test(test_gen_output),
        cmocka_unit_test(test_help_and_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
