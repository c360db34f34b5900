/* cli_common.c: argument parsing helpers shared by the subcommands. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/outset.h"

/* "relaxsim: MESSAGE" on stderr. */
static void say(const char *fmt, va_list ap)
{
    fputs("relaxsim: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int rs_cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    return RS_EXIT_USAGE;
}

int rs_cli_output_error(rs_error err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    return err == RS_ERR_WRITE ? RS_EXIT_FAILED : RS_EXIT_USAGE;
}

int rs_cli_parse_long(const char *option, const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    const long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE) {
        rs_cli_usage_error("%s: expected an integer, got '%s'", option, text);
        return 0;
    }
    if (v < lo || v > hi) {
        rs_cli_usage_error("%s: %ld is out of range [%ld, %ld]", option, v, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

int rs_cli_parse_u64(const char *option, const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || text[0] == '-') {
        rs_cli_usage_error("%s: expected a non-negative integer, got '%s'", option, text);
        return 0;
    }
    *out = (uint64_t)v;
    return 1;
}

int rs_cli_parse_double(const char *option, const char *text, double lo, double hi, double *out)
{
    char *end;
    const double v = strtod(text, &end);
    if (end == text || *end != '\0') {
        rs_cli_usage_error("%s: expected a number, got '%s'", option, text);
        return 0;
    }
    if (!isfinite(v) || v < lo || v > hi) {
        rs_cli_usage_error("%s: %s is out of range [%g, %g]", option, text, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

const char *rs_cli_option_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        rs_cli_usage_error("%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

const char *rs_cli_output_value(int argc, char **argv, int *i)
{
    const char *v = rs_cli_option_value(argc, argv, i);
    if (v && !*v) {
        rs_cli_usage_error("%s: empty path", argv[*i - 1]);
        return NULL;
    }
    if (v && strlen(v) > RS_CLI_MAX_OUT_PATH) {
        rs_cli_usage_error("%s: path longer than %d characters", argv[*i - 1], RS_CLI_MAX_OUT_PATH);
        return NULL;
    }
    return v;
}

const char *rs_cli_shipped_problem(const char *relative, char *buf, size_t len)
{
    const char *const roots[] = {"problems", RS_INSTALLED_PROBLEMS, RS_SOURCE_PROBLEMS};
    for (int k = 0; k < 3; k++) {
        snprintf(buf, len, "%s/%s", roots[k], relative);
        if (access(buf, R_OK) == 0)
            return buf;
    }
    snprintf(buf, len, "%s/%s", roots[0], relative);
    return buf;
}

int rs_cli_parse_scenario_args(int argc, char **argv, const char *usage, int allow_backend,
                               rs_cli_scenario_args *a)
{
    memset(a, 0, sizeof *a);
    a->backend = -1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (strcmp(arg, "--set") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)))
                return 0;
            if (a->nsets >= RS_CLI_MAX_SETS) {
                rs_cli_usage_error("--set: at most %d overrides", RS_CLI_MAX_SETS);
                return 0;
            }
            a->sets[a->nsets++] = v;
        } else if (strcmp(arg, "-o") == 0) {
            if (!(a->out = rs_cli_output_value(argc, argv, &i)))
                return 0;
        } else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
            a->quiet = 1;
        } else if (allow_backend && strcmp(arg, "--backend") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)))
                return 0;
            if (strcmp(v, "nlp") == 0)
                a->backend = 0;
            else if (strcmp(v, "lemke") == 0)
                a->backend = 1;
            else {
                rs_cli_usage_error("--backend: expected nlp or lemke, got '%s'", v);
                return 0;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            rs_cli_usage_error("%s: unknown option '%s' (usage: %s)", argv[0], arg, usage);
            return 0;
        } else if (a->scenario) {
            rs_cli_usage_error("%s: one SCENARIO expected, got '%s' and '%s'", argv[0], a->scenario, arg);
            return 0;
        } else {
            a->scenario = arg;
        }
    }
    if (!a->scenario) {
        rs_cli_usage_error("%s: missing SCENARIO (usage: %s)", argv[0], usage);
        return 0;
    }
    return 1;
}

int rs_cli_load_scenario(int argc, char **argv, const char *usage, int allow_backend,
                         rs_cli_scenario_args *a, rs_scenario *sc)
{
    if (!rs_cli_parse_scenario_args(argc, argv, usage, allow_backend, a))
        return 0;
    rs_error_detail detail;
    if (rs_scenario_load(a->scenario, a->sets, a->nsets, sc, &detail) != RS_OK) {
        rs_cli_usage_error("%s", detail.message);
        return 0;
    }
    return 1;
}

int rs_cli_load_scenario_with(int argc, char **argv, const char *usage, rs_cli_own_option own,
                              int (*ready)(void *ctx), void *ctx, rs_cli_scenario_args *a,
                              rs_scenario *sc)
{
    char **rest = malloc(sizeof(char *) * (size_t)(argc + 1));
    if (!rest)
        return rs_cli_usage_error("out of memory"), 0;
    int nrest = 0, ok = 1;
    rest[nrest++] = argv[0];
    for (int i = 1; ok && i < argc; i++) {
        const int taken = own(ctx, argc, argv, &i);
        if (taken < 0)
            ok = 0;
        else if (!taken) {
            rest[nrest++] = argv[i];
            if ((strcmp(argv[i], "--set") == 0 || strcmp(argv[i], "-o") == 0) && i + 1 < argc)
                rest[nrest++] = argv[++i];
        }
    }
    rest[nrest] = NULL;
    ok = ok && (!ready || ready(ctx)) && rs_cli_load_scenario(nrest, rest, usage, 0, a, sc);
    free(rest);
    return ok;
}

int rs_cli_steps_kept_fit(const char *command, const rs_scenario *sc)
{
    if (sc->steps <= RS_RUN_MAX_STEPS)
        return 1;
    return rs_cli_usage_error("%s: %s: %d steps: %s keeps every step in memory (about 0.9 KB "
                              "each): at most %d steps; split the run, or use run or compare "
                              "(they keep nothing per step)",
                              command, sc->path, sc->steps, command, RS_RUN_MAX_STEPS),
           0;
}

rs_error rs_cli_outfile_begin(const char *path, rs_outfile **out, rs_error_detail *detail)
{
    const rs_error err = rs_outfile_begin(path, out, detail);
    if (err == RS_OK && rs_outfile_is_stdout(*out)) {
        fflush(stdout);
        dup2(STDERR_FILENO, STDOUT_FILENO);
    }
    return err;
}
