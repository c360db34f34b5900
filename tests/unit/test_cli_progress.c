/*
 * test_cli_progress.c: the long commands' progress line. On a terminal (the command's stderr on a
 * pseudo-terminal), check -q, study and grad --sweep draw a line that counts their work and erase
 * it at the end ("\r\033[K"); with stderr on a file, or RELAXSIM_PROGRESS=0, nothing of it is
 * written, and stdout never holds it. The command runs by fork and exec, its stdout into a file,
 * its stderr on the terminal's other end, read until the command exits (no timing).
 */
#define _GNU_SOURCE
#include "test_helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TMP RS_TEST_TMPDIR "/progress_"
#define SCEN RS_SOURCE_DIR "/problems/scenarios/"

static char term_buf[1 << 18], out_buf[1 << 16];

/* Run relaxsim with args (NULL-terminated), its stderr on a terminal when on_tty (else a file),
 * with RELAXSIM_PROGRESS=progress_env when not NULL; term_buf holds what reached the terminal
 * (or the file), out_buf its stdout. Returns the exit code. */
static int run(int on_tty, const char *progress_env, const char *const *args)
{
    const char *argv[32] = {RS_CLI_PATH};
    int n = 1;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    int master = -1, slave = -1;
    if (on_tty)
        assert_int_equal(openpty(&master, &slave, NULL, NULL, NULL), 0);
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const int o = open(TMP "stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0666);
        const int e = on_tty ? slave : open(TMP "stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(126);
        if (on_tty)
            close(master);
        if (progress_env)
            setenv("RELAXSIM_PROGRESS", progress_env, 1);
        else
            unsetenv("RELAXSIM_PROGRESS");
        execv(RS_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    size_t len = 0;
    if (on_tty) {
        close(slave);
        for (;;) { /* until the child closes its end (EIO on Linux) */
            const ssize_t k = read(master, term_buf + len, sizeof term_buf - 1 - len);
            if (k > 0)
                len += (size_t)k;
            else if (k < 0 && errno == EINTR)
                continue;
            else
                break;
            if (len == sizeof term_buf - 1)
                break;
        }
        close(master);
        term_buf[len] = '\0';
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        assert_int_equal(errno, EINTR);
    if (!on_tty)
        slurp(TMP "stderr.txt", term_buf, sizeof term_buf);
    slurp(TMP "stdout.txt", out_buf, sizeof out_buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define RUN_TTY(...) run(1, NULL, (const char *const[]){__VA_ARGS__, NULL})

/* The line was drawn (label and unit as given), erased at the end, and nothing of it is on
 * stdout. */
static void assert_drawn_and_erased(const char *label, const char *unit)
{
    char expect[200];
    snprintf(expect, sizeof expect, "\r  %s: ", label);
    if (!strstr(term_buf, expect))
        fail_msg("no progress line '%s' on the terminal; it got: %.400s", label, term_buf);
    assert_non_null(strstr(term_buf, unit));
    const size_t len = strlen(term_buf);
    assert_true(len >= 4);
    assert_string_equal(term_buf + len - 4, "\r\033[K"); /* the last thing drawn: the erase */
    assert_null(strstr(out_buf, "\033[K"));
    assert_null(strstr(out_buf, expect));
}

static void test_check_quiet_shows_progress(void **state)
{
    (void)state;
    assert_int_equal(RUN_TTY("check", SCEN "falling_block.ini", SCEN "sliding_block_direct.ini",
                             "-q", "-j", "1"),
                     0);
    assert_drawn_and_erased("check", "files");
    assert_non_null(strstr(term_buf, "0 / 2 files"));
    assert_non_null(strstr(term_buf, "falling_block.ini"));
    assert_null(strstr(out_buf, "PASS")); /* -q: the passes print no line, only the total */
    assert_non_null(strstr(out_buf, "2 files: 2 passed"));
}

static void test_study_shows_progress(void **state)
{
    (void)state;
    assert_int_equal(RUN_TTY("study", "noisy-sticking", "--samples", "20000", "--sigmas",
                             "1e-4,0.1", "-q", "-o", TMP "study"),
                     0);
    assert_drawn_and_erased("study noisy-sticking", "samples");
    assert_non_null(strstr(term_buf, "0 / 80000 samples"));
}

static void test_grad_sweep_shows_progress(void **state)
{
    (void)state;
    assert_int_equal(RUN_TTY("grad", SCEN "sliding_block_traditional.ini", "--wrt", "mu",
                             "--sweep", "mu=0.4:0.5:3", "-q", "-o", TMP "grad"),
                     0);
    assert_drawn_and_erased("grad --sweep", "points");
    assert_non_null(strstr(term_buf, "0 / 3 points (0%), ? left: "));
    assert_non_null(strstr(term_buf, "mu = 0.4\033[K"));
}

/* Not a terminal, or RELAXSIM_PROGRESS=0: no line at all. */
static void test_no_progress_off_a_terminal(void **state)
{
    (void)state;
    const char *const args[] = {"check", SCEN "falling_block.ini", "-q", NULL};
    assert_int_equal(run(0, NULL, args), 0);
    assert_string_equal(term_buf, "");
    assert_int_equal(run(1, "0", args), 0);
    assert_string_equal(term_buf, "");
    assert_int_equal(run(1, NULL, args), 0); /* the same command on a terminal draws */
    assert_drawn_and_erased("check", "files");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_quiet_shows_progress),
        cmocka_unit_test(test_study_shows_progress),
        cmocka_unit_test(test_grad_sweep_shows_progress),
        cmocka_unit_test(test_no_progress_off_a_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
