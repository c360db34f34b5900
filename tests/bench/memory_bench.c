/*
 * memory_bench.c: peak memory against the length of a run (not a test). A run keeps nothing per
 * step (sim/step_stats.h): its peak resident set must not grow with its steps.
 *
 *   - relaxsim run (Lemke, the falling block at rest) writing its trajectory into /dev/null (the
 *     CSV writer streams) at 2e4, 2e6 and 2e7 steps;
 *   - relaxsim compare (both backends, its five files and capsules into a temporary directory)
 *     at 2e4, 2e5 and 2e6 steps: at 2e7 its files would take 23 GB;
 *   - the comparison itself at 2e4 and 2e7 steps, through the library (rs_compare_run_with,
 *     nothing kept per step, no files): what compare runs, without its writers.
 * Each in its own process, its peak RSS from wait4. Target: the peak at the longest run within
 * 1.2 times the peak at 2e4 steps, for each.
 *
 *   memory_bench SOURCE_DIR RELAXSIM
 */
#define _GNU_SOURCE /* wait4 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/timer.h"
#include "io/scenario.h"
#include "sim/compare.h"

/* Run argv (or, argv NULL, the library comparison of steps steps) in a child; its peak RSS in
 * MB, its wall time in *seconds, its exit code in *code. */
static double peak_mb(char *const *argv, const char *src, long steps, double *seconds, int *code)
{
    fflush(NULL);
    const double t0 = rs_wall_seconds();
    const pid_t pid = fork();
    if (pid == 0) {
        if (argv) {
            execv(argv[0], argv);
            _exit(127);
        }
        char path[1024], set[64];
        snprintf(path, sizeof path, "%s/problems/scenarios/falling_block.ini", src);
        snprintf(set, sizeof set, "run.steps=%ld", steps);
        const char *sets[] = {set};
        static rs_scenario sc;
        static rs_compare_result r;
        rs_error_detail d;
        if (rs_scenario_load(path, sets, 1, &sc, &d) != RS_OK)
            _exit(2);
        rs_compare_options opt;
        rs_compare_options_default(&opt);
        opt.keep_steps = 0;
        _exit(rs_compare_run_with(&sc, RS_RUN_COMPARE, &opt, &r) == RS_OK ? 0 : 1);
    }
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    wait4(pid, &status, 0, &ru);
    *seconds = rs_wall_seconds() - t0;
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return ru.ru_maxrss / 1024.0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: memory_bench SOURCE_DIR RELAXSIM\n");
        return 2;
    }
    const char *src = argv[1];
    char *relaxsim = argv[2];
    char scen[1024], dir[] = "/tmp/relaxsim-membench-XXXXXX";
    snprintf(scen, sizeof scen, "%s/problems/scenarios/falling_block.ini", src);
    if (!mkdtemp(dir))
        return 1;
    printf("Memory against the run's length (the falling block, at rest from 0.46 s)\n\n");
    printf("| %-48s | %10s | %11s | %9s | %4s |\n", "", "steps", "peak RSS MB", "time s", "exit");
    printf("|--------------------------------------------------|------------|-------------|"
           "-----------|------|\n");
    struct { const char *what; int kind; long steps[3]; } rows[] = {
        {"relaxsim run --backend lemke -o /dev/null", 0, {20000, 2000000, 20000000}},
        {"relaxsim compare -o DIR (five files)", 1, {20000, 200000, 2000000}},
        {"the comparison, through the library", 2, {20000, 0, 20000000}},
    };
    int all_met = 1;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        double first = 0.0, last = 0.0;
        for (int k = 0; k < 3; k++) {
            const long steps = rows[r].steps[k];
            if (!steps)
                continue;
            char set[64], out[1100];
            snprintf(set, sizeof set, "run.steps=%ld", steps);
            snprintf(out, sizeof out, "%s/c%ld", dir, steps);
            char *run_argv[] = {relaxsim, "run", scen, "--backend", "lemke", "--set", set,
                                "-o", "/dev/null", "-q", NULL};
            char *compare_argv[] = {relaxsim, "compare", scen, "--set", set, "-o", out, "-q",
                                    NULL};
            double seconds;
            int code;
            const double mb = peak_mb(rows[r].kind == 0   ? run_argv
                                      : rows[r].kind == 1 ? compare_argv
                                                          : NULL,
                                      src, steps, &seconds, &code);
            printf("| %-48s | %10ld | %11.1f | %9.1f | %4d |\n", k ? "" : rows[r].what, steps, mb,
                   seconds, code);
            fflush(stdout);
            if (k == 0)
                first = mb;
            last = mb;
            char rm[1200];
            snprintf(rm, sizeof rm, "rm -rf '%s'", out); /* a path of ours: no data in it */
            if (system(rm) != 0)
                fprintf(stderr, "memory_bench: cannot remove %s\n", out);
        }
        const int met = last <= 1.2 * first;
        all_met &= met;
        printf("| %-48s | %10s | %11.3f | %9s | %4s |\n", "  ratio longest / 2e4 steps", "",
               last / first, "", met ? "met" : "NOT");
    }
    rmdir(dir);
    printf("\n   target: peak RSS at the longest run within 1.2 x the peak at 2e4 steps: %s\n"
           "   (compare is measured to 2e6 steps: at 2e7 its per-step files would take 23 GB; the\n"
           "   comparison it runs is measured to 2e7 through the library)\n",
           all_met ? "met" : "NOT met");
    return 0;
}
