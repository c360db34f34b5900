/*
 * gnuplot.c: the one place the command runs gnuplot, and the one quoting of the strings that go
 * into its scripts. gnuplot is started by fork and exec, never through a shell: a directory or a
 * file name is an argument, never code. Every string written into a script goes through
 * rs_gnuplot_string: a single-quoted gnuplot string in which nothing is expanded (no backquote,
 * no macro, no escape sequence), its quotes doubled and its control characters replaced, so that
 * text taken from a file (a sweep key, a variant, a CSV header) stays text.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/plot_script.h"
#include "io/outset.h"

const char *rs_gnuplot_string(char *buf, size_t len, const char *text)
{
    size_t k = 0;
    if (len < 3) {
        if (len)
            buf[0] = '\0';
        return buf;
    }
    buf[k++] = '\'';
    for (const unsigned char *c = (const unsigned char *)text; *c && k + 3 < len; c++) {
        if (*c == '\'') {
            buf[k++] = '\'';
            buf[k++] = '\'';
        } else {
            buf[k++] = (*c < 0x20 || *c == 0x7f) ? '?' : (char)*c; /* a newline ends a command */
        }
    }
    buf[k++] = '\'';
    buf[k] = '\0';
    return buf;
}

int rs_gnuplot_found(void)
{
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", path && *path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char exe[4200];
        struct stat st;
        snprintf(exe, sizeof exe, "%s/gnuplot", *d ? d : ".");
        if (stat(exe, &st) == 0 && S_ISREG(st.st_mode) && access(exe, X_OK) == 0)
            return 1;
    }
    return 0;
}

FILE *rs_plot_open_script(rs_outset *set)
{
    rs_error_detail detail;
    FILE *g = rs_outset_create(set, "plot.gp", &detail);
    if (!g) {
        rs_cli_usage_error("plot: %s", detail.message);
        return NULL;
    }
    fprintf(g, "# written by relaxsim; run from this directory: gnuplot plot.gp\n"
               "set datafile separator ','\nset terminal pngcairo noenhanced size 1100,650 font ',11'\n"
               "set termoption noenhanced\nset grid\nset key outside right\n");
    return g;
}

/* Wait for pid, through interruptions; its exit status, or -1. */
static int wait_for(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int rs_plot_run_gnuplot(rs_outset *set, FILE *script, const char *const *pictures, int npictures)
{
    rs_error_detail detail;
    if (rs_outset_close(set, script, "plot.gp", &detail) != RS_OK) {
        fprintf(stderr, "relaxsim: %s\n", detail.message);
        return 0;
    }
    for (int i = 0; i < npictures; i++)
        if (rs_outset_expect(set, pictures[i], &detail) != RS_OK) {
            fprintf(stderr, "relaxsim: %s\n", detail.message);
            return 0;
        }
    FILE *log = rs_outset_create(set, "plot.log", &detail);
    if (!log) {
        fprintf(stderr, "relaxsim: %s\n", detail.message);
        return 0;
    }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) { /* gnuplot in the staging directory; the inputs beside it are found through
                       its loadpath (the output directory) */
        const int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (chdir(rs_outset_stage(set)) != 0 || null_in < 0 || dup2(null_in, 0) < 0 ||
            dup2(fileno(log), 1) < 0 || dup2(fileno(log), 2) < 0)
            _exit(127);
        execlp("gnuplot", "gnuplot", "-e", "set loadpath '..'", "plot.gp", (char *)NULL);
        _exit(127);
    }
    const int code = pid > 0 ? wait_for(pid) : -1;
    const int log_ok = rs_outset_close(set, log, "plot.log", &detail) == RS_OK;
    if (code == 0 && log_ok)
        return 1;
    for (int i = 0; i < npictures; i++) /* a picture gnuplot gave up on is not an output */
        rs_outset_drop(set, pictures[i]);
    fprintf(stderr, "relaxsim: gnuplot failed on %s/plot.gp (%s; its messages: %s/plot.log)\n",
            rs_outset_dir(set), pid < 0 ? "it could not be started" : code == 127 ? "not found"
                                                                     : "exit status not 0",
            rs_outset_dir(set));
    return 0;
}
