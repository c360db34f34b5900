/*
 * test_cli_check.c: `relaxsim check` as a user's CI runs it, on a directory of its own files: a
 * scenario, a copy of it with one bound broken, a sweep over it, a file relaxsim must refuse.
 * Exit codes (0 all passed, 1 a check failed, 2 bad input), the per-file lines, the JUnit XML
 * (validated with xmllint against tests/junit/junit.xsd, and naming the broken check with its
 * actual value and bound) and the JSON totals.
 */
#include "test_helpers.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define TMP RS_TEST_TMPDIR "/"
#define DIR TMP "check_dir/"

static char out_buf[1 << 16], err_buf[1 << 14], text[1 << 18];

static int sh(const char *cmd)
{
    const int status = system(cmd);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%scheck_out.txt' 2>'%scheck_err.txt'", RS_CLI_PATH, args,
             TMP, TMP);
    const int code = sh(cmd);
    slurp(TMP "check_out.txt", out_buf, sizeof out_buf);
    slurp(TMP "check_err.txt", err_buf, sizeof err_buf);
    return code;
}

static const char block[] = "[model]\nname = falling_block\nm = 1\ng = 9.81\n"
                            "[initial]\nx = 1\nxd = 0\n[run]\nsteps = 100\ndt = 0.01\n"
                            "[expect]\nnlp_failed_steps_max = 0\nlemke_failed_steps_max = 0\n"
                            "first_contact_step = 44\nfinal_nlp.fn_N = %s +- 1e-6\n";

static int xml_valid(const char *path)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "xmllint --noout --schema '%s/tests/junit/junit.xsd' '%s' 2>/dev/null", RS_SOURCE_DIR,
             path);
    return sh(cmd) == 0;
}

static void test_check(void **state)
{
    (void)state;
    char content[1024];
    sh("rm -rf '" DIR "' && mkdir -p '" DIR "sub'");
    snprintf(content, sizeof content, block, "9.81");
    write_file(DIR "block.ini", content);
    write_file(
        DIR "sub/sweep.ini",
        "[sweep]\nscenario = ../block.ini\n[vary]\nmodel.m = 1, 2\n[set]\nrun.steps = 100\n");
    /* one scenario that passes */
    assert_int_equal(run("check " DIR "block.ini --junit " TMP "ok.xml --json " TMP "ok.json"), 0);
    assert_non_null(strstr(out_buf, "PASS "));
    assert_non_null(strstr(out_buf, "1 file: 1 passed, 0 failed, 0 bad input, 0 crashed, 0 without "
                                    "a contract"));
    assert_true(xml_valid(TMP "ok.xml"));
    assert_true(slurp(TMP "ok.xml", text, sizeof text) > 0);
    assert_non_null(strstr(text, "tests=\"5\" failures=\"0\" errors=\"0\""));
    assert_non_null(strstr(text, "name=\"first_contact_step = 44 (nlp)\""));

    /* the sweep: its run with m = 2 fails the bound fn = 9.81 (it rests with 19.62 N) */
    assert_int_equal(run("check " DIR " -j 2 --junit " TMP "sweep.xml --json " TMP "sweep.json"),
                     1);
    assert_non_null(strstr(out_buf, "FAIL  " DIR "sub/sweep.ini  (2 runs"));
    assert_non_null(strstr(out_buf, "PASS  " DIR "block.ini"));
    assert_true(xml_valid(TMP "sweep.xml"));
    assert_true(slurp(TMP "sweep.xml", text, sizeof text) > 0);
    assert_non_null(strstr(text, "name=\"run 1 (model.m=2)\""));
    assert_non_null(strstr(text, "final_nlp.fn_N = 9.81 +- 1e-6 (nlp: actual 19.62"));
    cJSON *j = cJSON_Parse((slurp(TMP "sweep.json", text, sizeof text), text));
    assert_non_null(j);
    const cJSON *t = cJSON_GetObjectItem(j, "totals");
    assert_int_equal(cJSON_GetObjectItem(t, "files")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(t, "passed")->valueint, 1);
    assert_int_equal(cJSON_GetObjectItem(t, "failed")->valueint, 1);
    cJSON_Delete(j);

    /* one bound broken in a copy: exit 1, the check named with its actual value and bound */
    snprintf(content, sizeof content, block, "9.5");
    write_file(DIR "broken.ini", content);
    assert_int_equal(
        run("check " DIR " --filter '*.ini' --exclude '*sweep*' --junit " TMP "broken.xml"), 1);
    assert_non_null(strstr(out_buf, "FAIL  " DIR "broken.ini"));
    assert_non_null(strstr(out_buf, "final_nlp.fn_N = 9.5 +- 1e-6 (nlp): actual 9.81"));
    assert_non_null(strstr(out_buf, "2 files: 1 passed, 1 failed"));
    assert_true(xml_valid(TMP "broken.xml"));
    assert_true(slurp(TMP "broken.xml", text, sizeof text) > 0);
    assert_non_null(strstr(text, "<failure message=\"final_nlp.fn_N = 9.5 +- 1e-6 (nlp): actual "
                                 "9.81"));
    assert_non_null(strstr(text, "bound: final_nlp.fn_N = 9.5 +- 1e-6\" type=\"contract\""));

    /* a file relaxsim refuses: exit 2, its message (file, line, key) in the report */
    write_file(DIR "bad.ini", "[model]\nname = falling_block\nmass = 1\n");
    assert_int_equal(run("check " DIR " --exclude '*sweep*' --junit " TMP "bad.xml"), 2);
    assert_non_null(strstr(out_buf, "BAD   " DIR "bad.ini"));
    assert_non_null(strstr(out_buf, "bad.ini:3"));
    assert_true(xml_valid(TMP "bad.xml"));
    assert_true(slurp(TMP "bad.xml", text, sizeof text) > 0);
    assert_non_null(strstr(text, "<error message="));

    /* a path with XML's special characters, and a sweep over words: a valid report that names
     * each run by its word */
    sh("mkdir -p '" TMP "check_x&<y>'");
    snprintf(content, sizeof content, block, "9.81");
    write_file(TMP "check_x&<y>/block.ini", content);
    assert_int_equal(run("check '" TMP "check_x&<y>' " RS_SOURCE_DIR
                         "/problems/sweeps/polygon_formulations.ini --junit " TMP "words.xml"),
                     0);
    assert_true(xml_valid(TMP "words.xml"));
    assert_true(slurp(TMP "words.xml", text, sizeof text) > 0);
    assert_non_null(strstr(text, "check_x&amp;&lt;y&gt;"));
    assert_non_null(strstr(text, "name=\"run 0 (model.formulation=egan_simple)\""));

    /* a scenario without [expect], alone and as a sweep's: reported as such, never as passed
     * (exit 1), a failure in the JUnit report */
    write_file(DIR "none.ini", "[model]\nname = falling_block\n[run]\nsteps = 10\n");
    write_file(DIR "none_sweep.ini",
               "[sweep]\nscenario = none.ini\n[vary]\nmodel.m = 1, 2\n");
    assert_int_equal(run("check " DIR "none.ini " DIR "none_sweep.ini --junit " TMP "none.xml "
                         "--json " TMP "none.json"),
                     1);
    assert_non_null(strstr(out_buf, "NONE  " DIR "none.ini"));
    assert_non_null(strstr(out_buf, "NONE  " DIR "none_sweep.ini"));
    assert_non_null(strstr(out_buf, "2 files: 0 passed, 0 failed, 0 bad input, 0 crashed, 2 without "
                                    "a contract"));
    assert_true(xml_valid(TMP "none.xml"));
    assert_true(slurp(TMP "none.xml", text, sizeof text) > 0);
    assert_non_null(strstr(text, "<failure message=\"no [expect] contract"));
    assert_true(slurp(TMP "none.json", text, sizeof text) > 0);
    assert_non_null(strstr(text, "\"no_contract\":\t2"));
    remove(DIR "none.ini");
    remove(DIR "none_sweep.ini");

    /* a contract that states only what relaxsim grad checks, alone and as a sweep's: the
     * comparison evaluates none of it, so nothing stated was checked (NONE, exit 1); in a
     * mixed contract the grad_* check is named as not evaluated, beside the PASS */
    write_file(DIR "grad_only.ini", "[model]\nname = falling_block\n[run]\nsteps = 10\n"
                                    "[expect]\ngrad_lcp_fd_max_rel = 0\ngrad_failed_max = 0\n");
    write_file(DIR "grad_sweep.ini", "[sweep]\nscenario = grad_only.ini\n[vary]\nmodel.m = 1, 2\n");
    write_file(DIR "grad_mixed.ini", "[model]\nname = falling_block\n[run]\nsteps = 10\n"
                                     "[expect]\nnlp_failed_steps_max = 0\n"
                                     "grad_lcp_fd_max_rel = 0\n");
    assert_int_equal(run("check " DIR "grad_only.ini " DIR "grad_sweep.ini -j 1 --json " TMP
                         "grad.json"),
                     1);
    assert_non_null(strstr(out_buf, "NONE  " DIR "grad_only.ini"));
    assert_non_null(strstr(out_buf, "NONE  " DIR "grad_sweep.ini"));
    assert_non_null(strstr(out_buf, "no check of its [expect] contract applies to a comparison"));
    assert_true(slurp(TMP "grad.json", text, sizeof text) > 0);
    assert_non_null(strstr(text, "\"no_contract\":\t2"));
    write_file(DIR "grad_mixed_sweep.ini",
               "[sweep]\nscenario = grad_mixed.ini\n[vary]\nmodel.m = 1, 2\n");
    assert_int_equal(run("check " DIR "grad_mixed.ini " DIR "grad_mixed_sweep.ini -j 1"), 0);
    assert_non_null(strstr(out_buf, "PASS  " DIR "grad_mixed.ini"));
    assert_non_null(strstr(out_buf, "PASS  " DIR "grad_mixed_sweep.ini"));
    /* named under each file, the sweep's too (a sweep printed a bare PASS) */
    const char *said = strstr(out_buf, "1 stated check not evaluated by check: grad_lcp_fd_max_rel "
                                       "= 0 (checked by relaxsim grad)");
    assert_non_null(said);
    assert_non_null(strstr(said + 1, "1 stated check not evaluated by check"));
    remove(DIR "grad_mixed_sweep.ini");
    remove(DIR "grad_only.ini");
    remove(DIR "grad_sweep.ini");
    remove(DIR "grad_mixed.ini");

    /* a file name that is not UTF-8 XML allows (a surrogate, U+FFFE, an overlong '/', a lead
     * byte above U+10FFFF): the JUnit report stays well-formed */
    sh("rm -rf '" TMP "check_utf8' && mkdir -p '" TMP "check_utf8'");
    snprintf(content, sizeof content, block, "9.81");
    write_file(TMP "check_utf8/s\xed\xa0\x80x\xef\xbf\xbey\xc0\xafz\xf5\x80\x80\x80.ini",
               content);
    assert_int_equal(run("check '" TMP "check_utf8' --junit " TMP "utf8.xml --json " TMP
                         "utf8.json"),
                     0);
    assert_true(xml_valid(TMP "utf8.xml"));
    assert_true(slurp(TMP "utf8.json", text, sizeof text) > 0);
    cJSON *u = cJSON_Parse(text);
    assert_non_null(u);
    const char *path = cJSON_GetStringValue(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(u, "files"), 0), "path"));
    assert_non_null(path);
    assert_null(strstr(path, "\xed\xa0\x80"));
    assert_null(strstr(path, "\xef\xbf\xbe"));
    cJSON_Delete(u);

    /* usage: nothing selected, a missing path, an unknown option */
    assert_int_equal(run("check " DIR " --filter '*.none'"), 2);
    assert_non_null(strstr(err_buf, "no scenario or sweep"));
    assert_int_equal(run("check " DIR "missing"), 2);
    assert_int_equal(run("check " DIR " --frobnicate"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
