/*
 * cmd_check.c: `relaxsim check [PATH ...] [-j N] [--junit FILE] [--json FILE] [--filter GLOB]
 * [--exclude GLOB] [-q]`: every scenario and sweep under the paths (default problems/), each run
 * with its contract, reported as a test runner reports: one line per file (PASS, FAIL with the
 * failed checks, BAD input with the message, CRASH), totals, exit 0 when all passed, 1 when a
 * check failed or a run crashed, 2 for bad input (or bad usage).
 *
 * A file is a sweep when it has a [sweep] section, else a scenario. Each is run by this same
 * executable in a child process, so that a crash is one file's outcome and not the checker's:
 * a scenario as `relaxsim compare FILE --summary-only -q -o DIR` (up to N at once), a sweep as
 * `relaxsim batch FILE -j N -q -o DIR` (one at a time, its runs in N workers); the results are
 * read from the child's summary.json or results.jsonl, in a temporary directory removed at the
 * end.
 */
#define _GNU_SOURCE /* mkdtemp, nftw */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_progress.h"
#include "cli/check_report.h"
#include "io/outset.h"
#include "cli/cli.h"
#include "core/timer.h"
#include "io/output.h"

extern char **environ;

static const char usage[] = "relaxsim check [PATH ...] [-j N] [--junit FILE] [--json FILE] "
                            "[--filter GLOB] [--exclude GLOB] [-q]";

#define MAX_GLOBS 16

typedef struct check_args {
    const char *paths[64];
    int npaths;
    long jobs;
    const char *junit, *json;
    const char *filter[MAX_GLOBS], *exclude[MAX_GLOBS];
    int nfilter, nexclude, quiet;
} check_args;

/* ---- finding the files ---------------------------------------------------------------------- */

typedef struct file_list {
    char **path;
    int n, cap;
} file_list;

static int list_add(file_list *l, const char *path)
{
    if (l->n == l->cap) {
        const int cap = l->cap ? 2 * l->cap : 64;
        char **p = realloc(l->path, sizeof *p * (size_t)cap);
        if (!p)
            return 0;
        l->path = p;
        l->cap = cap;
    }
    return (l->path[l->n++] = strdup(path)) != NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Every *.ini under dir (hidden entries skipped), recursively. */
static int walk(const char *dir, file_list *l)
{
    DIR *d = opendir(dir);
    if (!d)
        return rs_cli_usage_error("check: %s: cannot read the directory", dir), 0;
    int ok = 1;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            ok = walk(path, l);
        else if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".ini"))
            ok = list_add(l, path);
    }
    closedir(d);
    return ok;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int selected(const check_args *a, const char *path)
{
    int in = a->nfilter == 0;
    for (int i = 0; i < a->nfilter; i++)
        in |= fnmatch(a->filter[i], path, 0) == 0;
    for (int i = 0; i < a->nexclude; i++)
        in &= fnmatch(a->exclude[i], path, 0) != 0;
    return in;
}

/* A sweep has a [sweep] section (spaces around the brackets' name allowed). */
static int is_sweep_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[512];
    int sweep = 0;
    while (!sweep && fgets(line, sizeof line, f)) {
        char name[64];
        sweep = sscanf(line, " [ %63[^] ] ]", name) == 1 && strcmp(name, "sweep") == 0;
    }
    fclose(f);
    return sweep;
}

/* ---- running one file ----------------------------------------------------------------------- */

typedef struct job {
    pid_t pid;
    int index;
    double t0;
} job;

static int spawn_child(const char *self, const char *work, int index, const rs_check_file *cf,
                       long jobs, pid_t *pid)
{
    char out[4300], err[4300], jtext[32];
    snprintf(out, sizeof out, "%s/%d", work, index);
    snprintf(err, sizeof err, "%s/%d.err", work, index);
    snprintf(jtext, sizeof jtext, "%ld", jobs);
    char *argv[10];
    int n = 0;
    argv[n++] = (char *)self;
    argv[n++] = (char *)(cf->is_sweep ? "batch" : "compare");
    argv[n++] = cf->path;
    if (cf->is_sweep) {
        argv[n++] = (char *)"-j";
        argv[n++] = jtext;
    }
    if (!cf->is_sweep) /* (summary.json is all the check reads: no per-step files) */
        argv[n++] = (char *)"--summary-only";
    argv[n++] = (char *)"-q";
    argv[n++] = (char *)"-o";
    argv[n++] = out;
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int rc = posix_spawn(pid, self, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc; /* 0, or the error number */
}

/* The child's first stderr line without the "relaxsim: " prefix (malloc'd), or NULL. */
static char *first_error_line(const char *work, int index)
{
    char path[4300], line[1024];
    snprintf(path, sizeof path, "%s/%d.err", work, index);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *msg = NULL;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        const char *p = strncmp(line, "relaxsim: ", 10) == 0 ? line + 10 : line;
        msg = strdup(p);
    }
    fclose(f);
    return msg;
}

static int add_case(rs_check_file *cf, const char *name, const char *failure, int error, double t)
{
    rs_check_case *c = realloc(cf->cases, sizeof *c * (size_t)(cf->ncases + 1));
    if (!c)
        return 0;
    cf->cases = c;
    c += cf->ncases++;
    c->name = strdup(name);
    c->failure = failure ? strdup(failure) : NULL;
    c->error = error;
    c->time_s = t;
    cf->failures += failure && !error;
    cf->errors += failure && error;
    return 1;
}

/* The checks a contract states that the comparison did not evaluate (grad_*), as one line in
 * cf->message (the first few named). */
static void note_skipped(const cJSON *skipped, rs_check_file *cf)
{
    const int n = cJSON_GetArraySize(skipped);
    if (n == 0 || cf->message)
        return;
    char msg[1024];
    int len = snprintf(msg, sizeof msg, "%d stated %s not evaluated by check:", n,
                       n == 1 ? "check" : "checks");
    const cJSON *e;
    int shown = 0;
    cJSON_ArrayForEach(e, skipped)
    {
        const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(e, "check"));
        const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(e, "reason"));
        if (shown++ == 3 || len >= (int)sizeof msg - 1) {
            if (len > (int)sizeof msg - 5) /* (snprintf said what it would have written) */
                len = (int)sizeof msg - 5;
            snprintf(msg + len, sizeof msg - (size_t)len, " ...");
            break;
        }
        len += snprintf(msg + len, sizeof msg - (size_t)len, "%s %s (%s)", shown > 1 ? ";" : "",
                        text ? text : "?", why ? why : "?");
    }
    cf->message = strdup(msg);
}

/* A scenario's cases: its contract's checks from summary.json; 0 if the file is missing or
 * malformed (the child did not finish as it should). *declared: the checks its [expect] states
 * that the comparison evaluated (grad_* keys are relaxsim grad's). */
static int scenario_cases(const char *work, int index, rs_check_file *cf, int *declared,
                          int *stated)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%d/summary.json", work, index);
    cJSON *s = rs_read_json_file(path);
    const cJSON *contract = cJSON_GetObjectItem(s, "contract");
    const cJSON *checks = cJSON_GetObjectItem(contract, "checks");
    const cJSON *applied = cJSON_GetObjectItem(contract, "applied_checks");
    const cJSON *all = cJSON_GetObjectItem(contract, "declared_checks");
    const cJSON *skipped = cJSON_GetObjectItem(contract, "skipped");
    if (!cJSON_IsArray(checks) || !cJSON_IsNumber(applied) || !cJSON_IsNumber(all) ||
        !cJSON_IsArray(skipped)) {
        cJSON_Delete(s);
        return 0;
    }
    *declared = applied->valueint;
    *stated = all->valueint;
    note_skipped(skipped, cf);
    const int n = cJSON_GetArraySize(checks);
    const cJSON *c;
    cJSON_ArrayForEach(c, checks)
    {
        const cJSON *text = cJSON_GetObjectItem(c, "check"),
                    *which = cJSON_GetObjectItem(c, "applies_to");
        const cJSON *actual = cJSON_GetObjectItem(c, "actual");
        char name[512], failure[768];
        snprintf(name, sizeof name, "%s (%s)", cJSON_GetStringValue(text) ? text->valuestring : "?",
                 cJSON_GetStringValue(which) ? which->valuestring : "?");
        const int passed = cJSON_IsTrue(cJSON_GetObjectItem(c, "passed"));
        if (cJSON_IsNumber(actual))
            snprintf(failure, sizeof failure, "%s: actual %.9g, bound: %s", name,
                     actual->valuedouble, text->valuestring);
        else /* a NaN is written as null: it fails every check */
            snprintf(failure, sizeof failure, "%s: actual not a number, bound: %s", name,
                     text->valuestring);
        if (!add_case(cf, name, passed ? NULL : failure, 0, cf->time_s / (n > 0 ? n : 1)))
            break;
    }
    cJSON_Delete(s);
    return 1;
}

/* A sweep's cases: its runs from results.jsonl; 0 if the file is missing. *declared: the most
 * checks of its runs' contracts that a run evaluated. */
static int sweep_cases(const char *work, int index, rs_check_file *cf, int *declared,
                       int *stated)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%d/results.jsonl", work, index);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    static char line[1 << 16];
    while (fgets(line, sizeof line, f)) {
        cJSON *o = cJSON_Parse(line);
        if (!o)
            continue;
        const cJSON *run = cJSON_GetObjectItem(o, "run"),
                    *params = cJSON_GetObjectItem(o, "params");
        const char *outcome = cJSON_GetStringValue(cJSON_GetObjectItem(o, "outcome"));
        char name[1024], failure[4096] = "";
        int len = snprintf(name, sizeof name, "run %d (", cJSON_IsNumber(run) ? run->valueint : -1);
        const cJSON *p;
        cJSON_ArrayForEach(p, params)
        {
            const int room = len < (int)sizeof name ? (int)sizeof name - len : 0;
            char *at = name + (room ? len : (int)sizeof name - 1); /* full: nothing written */
            const char *sep = p == params->child ? "" : ", ";
            len += cJSON_IsString(p)
                       ? snprintf(at, (size_t)room, "%s%s=%s", sep, p->string, p->valuestring)
                       : snprintf(at, (size_t)room, "%s%s=%.6g", sep, p->string, p->valuedouble);
        }
        if (len < (int)sizeof name - 2)
            strcat(name, ")");
        int error = 0;
        if (!outcome || strcmp(outcome, "passed") != 0) {
            const cJSON *fc = cJSON_GetObjectItem(o, "failed_checks"), *x;
            const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(o, "reason"));
            error = !outcome || strcmp(outcome, "contract_failed") != 0;
            int fl = snprintf(failure, sizeof failure, "%s", outcome ? outcome : "no outcome");
            if (reason)
                fl += snprintf(failure + fl, sizeof failure - (size_t)fl, ": %s", reason);
            cJSON_ArrayForEach(x, fc) if (cJSON_IsString(x) && fl < (int)sizeof failure - 4) fl +=
                snprintf(failure + fl, sizeof failure - (size_t)fl, "; %s", x->valuestring);
        }
        const cJSON *t = cJSON_GetObjectItem(o, "time_s");
        const cJSON *applied = cJSON_GetObjectItem(o, "applied_checks");
        const cJSON *all = cJSON_GetObjectItem(o, "declared_checks");
        note_skipped(cJSON_GetObjectItem(o, "skipped"), cf); /* (the first run's; one contract) */
        if (cJSON_IsNumber(applied) && applied->valueint > *declared)
            *declared = applied->valueint;
        if (cJSON_IsNumber(all) && all->valueint > *stated)
            *stated = all->valueint;
        add_case(cf, name, failure[0] ? failure : NULL, error,
                 cJSON_IsNumber(t) ? t->valuedouble : 0.0);
        cJSON_Delete(o);
    }
    fclose(f);
    return 1;
}

/* Fill cf's outcome and cases from the finished child's wait status. */
static void collect(const char *work, int index, int status, rs_check_file *cf)
{
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 2) {
        cf->outcome = RS_CHECK_BAD_INPUT;
        cf->message = first_error_line(work, index);
        add_case(cf, "load", cf->message ? cf->message : "refused", 1, cf->time_s);
        return;
    }
    int declared = 0, stated = 0; /* the contract's checks evaluated, and all it states */
    const int read = (code == 0 || code == 1) &&
                     (cf->is_sweep ? sweep_cases(work, index, cf, &declared, &stated)
                                   : scenario_cases(work, index, cf, &declared, &stated));
    if (!read) {
        char msg[512], *said = first_error_line(work, index);
        if (WIFSIGNALED(status))
            snprintf(msg, sizeof msg, "killed by signal %d (%s)%s%s", WTERMSIG(status),
                     strsignal(WTERMSIG(status)), said ? ": " : "", said ? said : "");
        else
            snprintf(msg, sizeof msg, "exit %d without its results%s%s", code, said ? ": " : "",
                     said ? said : "");
        free(said);
        cf->outcome = RS_CHECK_CRASHED;
        cf->message = strdup(msg);
        add_case(cf, "run", msg, 1, cf->time_s);
        return;
    }
    if (code == 1 && cf->failures + cf->errors == 0) /* failed without naming a check */
        add_case(cf, "run", "the run failed (exit 1) without a failed check", 1, 0.0);
    cf->outcome = code == 0 && cf->failures + cf->errors == 0 ? RS_CHECK_PASSED : RS_CHECK_FAILED;
    if (cf->outcome == RS_CHECK_PASSED && declared == 0) { /* nothing stated, nothing passed */
        cf->outcome = RS_CHECK_NO_CONTRACT;
        free(cf->message); /* the skipped checks: said below */
        cf->message = strdup(stated > 0
                                 ? "no check of its [expect] contract applies to a comparison "
                                   "(grad_* keys are checked by relaxsim grad): only the implied "
                                   "gates (no failed step) were checked"
                                 : "no [expect] contract: only the implied gates (no failed step) "
                                   "were checked; state what the run must show");
        add_case(cf, "contract", cf->message, 0, 0.0); /* a failure in the JUnit report */
    }
}

static void print_line(const rs_check_file *cf, int done, int total, int quiet)
{
    if (quiet && cf->outcome == RS_CHECK_PASSED)
        return;
    static const char *const tags[] = {"PASS ", "FAIL ", "BAD  ", "CRASH", "NONE "};
    char count[64] = "";
    if (cf->outcome <= RS_CHECK_FAILED)
        snprintf(count, sizeof count, "%d %s, ", cf->ncases,
                 cf->is_sweep ? (cf->ncases == 1 ? "run" : "runs")
                              : (cf->ncases == 1 ? "check" : "checks"));
    printf("[%*d/%d] %s %s  (%s%.1f s)\n", total >= 100 ? 3 : 2, done, total, tags[cf->outcome],
           cf->path, count, cf->time_s);
    if (cf->message)
        printf("        %s\n", cf->message);
    int shown = 0;
    for (int k = 0; k < cf->ncases; k++)
        if (cf->cases[k].failure && cf->outcome == RS_CHECK_FAILED && shown++ < 10)
            printf("        %s%s%s\n", cf->is_sweep ? cf->cases[k].name : "",
                   cf->is_sweep ? ": " : "", cf->cases[k].failure);
    if (shown > 10)
        printf("        ... and %d more\n", shown - 10);
    fflush(stdout);
}

/* ---- the command ---------------------------------------------------------------------------- */

static int parse_args(int argc, char **argv, check_args *a)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    a->jobs = cpus > 0 ? cpus : 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (strcmp(arg, "-j") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)) ||
                !rs_cli_parse_long("-j", v, 1, 256, &a->jobs))
                return 0;
        } else if (strcmp(arg, "--junit") == 0 || strcmp(arg, "--json") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)))
                return 0;
            *(arg[3] == 'u' ? &a->junit : &a->json) = v;
        } else if (strcmp(arg, "--filter") == 0 || strcmp(arg, "--exclude") == 0) {
            const int inc = arg[2] == 'f';
            if (!(v = rs_cli_option_value(argc, argv, &i)))
                return 0;
            if ((inc ? a->nfilter : a->nexclude) == MAX_GLOBS)
                return rs_cli_usage_error("%s: at most %d patterns", arg, MAX_GLOBS), 0;
            if (inc)
                a->filter[a->nfilter++] = v;
            else
                a->exclude[a->nexclude++] = v;
        } else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
            a->quiet = 1;
        } else if (arg[0] == '-' && arg[1]) {
            return rs_cli_usage_error("check: unknown option '%s' (usage: %s)", arg, usage), 0;
        } else if (a->npaths == (int)(sizeof a->paths / sizeof a->paths[0])) {
            return rs_cli_usage_error("check: at most 64 paths"), 0;
        } else {
            a->paths[a->npaths++] = arg;
        }
    }
    if (a->npaths == 0)
        a->paths[a->npaths++] = "problems";
    return 1;
}

static void list_free(file_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->path[i]);
    free(l->path);
}

static int collect_files(const check_args *a, rs_check_file **out, int *n)
{
    file_list l = {0};
    *out = NULL;
    *n = 0;
    for (int i = 0; i < a->npaths; i++) {
        struct stat st;
        const int ok =
            stat(a->paths[i], &st) == 0
                ? (S_ISDIR(st.st_mode) ? walk(a->paths[i], &l) : list_add(&l, a->paths[i]))
                : (rs_cli_usage_error("check: %s: no such file or directory", a->paths[i]), 0);
        if (!ok) {
            list_free(&l);
            return 0;
        }
    }
    qsort(l.path, (size_t)l.n, sizeof *l.path, by_name);
    *out = calloc((size_t)(l.n ? l.n : 1), sizeof **out);
    *n = 0;
    for (int i = 0; i < l.n; i++) /* selected, and not named twice (kept: the first) */
        if (*out && selected(a, l.path[i]) &&
            (*n == 0 || strcmp(l.path[i], (*out)[*n - 1].path) != 0)) {
            (*out)[*n].path = l.path[i];
            (*out)[(*n)++].is_sweep = is_sweep_file(l.path[i]);
            l.path[i] = NULL; /* owned by *out now */
        }
    list_free(&l);
    if (!*out)
        return rs_cli_usage_error("check: out of memory"), 0;
    if (*n == 0) {
        free(*out);
        *out = NULL;
        return rs_cli_usage_error("check: no scenario or sweep (*.ini) selected under the paths"),
               0;
    }
    return 1;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void free_files(rs_check_file *files, int n)
{
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < files[i].ncases; k++) {
            free(files[i].cases[k].name);
            free(files[i].cases[k].failure);
        }
        free(files[i].cases);
        free(files[i].path);
        free(files[i].message);
    }
    free(files);
}

/* SIGINT or SIGTERM while files run: the children are stopped, the temporary directory removed,
 * and the command exits 130 without reports. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

/* Run every file: scenarios up to jobs at once, each sweep alone (its runs in jobs workers). */
static int run_all(const check_args *a, const char *self, const char *work, rs_check_file *files,
                   int n)
{
    job *running = calloc((size_t)a->jobs, sizeof *running);
    if (!running)
        return rs_cli_usage_error("check: out of memory"), 0;
    int next = 0, active = 0, done = 0, ok = 1;
    rs_cli_meter meter; /* on a terminal: how many files are done, and which run now */
    rs_cli_meter_start(&meter, "check");
    while (done < n) {
        /* start what may start: a scenario while a slot is free; a sweep when nothing runs */
        while (ok && next < n && active < a->jobs && (!files[next].is_sweep || active == 0)) {
            job *j = &running[active];
            j->index = next;
            j->t0 = rs_wall_seconds();
            const int rc = spawn_child(self, work, next, &files[next], a->jobs, &j->pid);
            if (rc != 0) {
                ok = (rs_cli_usage_error("check: cannot start %s: %s", self, strerror(rc)), 0);
                break;
            }
            active++;
            if (files[next++].is_sweep)
                break; /* a sweep uses every slot */
        }
        if (active > 0) {
            char now[300];
            snprintf(now, sizeof now, "%s%s", files[running[0].index].path,
                     active > 1 ? " and others" : "");
            rs_cli_meter_show(&meter, done, n, "files", now);
        }
        if (active == 0)
            break;
        int status;
        const pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0 && errno == EINTR && !interrupted)
            continue;
        if (pid < 0 || interrupted) { /* stop the children, then give up */
            for (int s = 0; s < active; s++)
                kill(running[s].pid, SIGTERM);
            for (int s = 0; s < active; s++)
                waitpid(running[s].pid, &status, 0);
            break;
        }
        for (int s = 0; s < active; s++)
            if (running[s].pid == pid) {
                rs_check_file *cf = &files[running[s].index];
                cf->time_s = rs_wall_seconds() - running[s].t0;
                collect(work, running[s].index, status, cf);
                rs_cli_meter_clear(&meter); /* the report's line, then the meter's again */
                print_line(cf, ++done, n, a->quiet);
                running[s] = running[--active];
                break;
            }
    }
    rs_cli_meter_clear(&meter);
    free(running);
    return ok && done == n;
}

int rs_cmd_check(int argc, char **argv)
{
    check_args a = {0};
    if (!parse_args(argc, argv, &a))
        return RS_EXIT_USAGE;
    rs_check_file *files;
    int n;
    if (!collect_files(&a, &files, &n))
        return RS_EXIT_USAGE;
    /* the reports' files before the work: a path that cannot be written is said now; two reports
     * into one file or one stream would leave one of them, or neither, whole */
    if (a.junit && a.json &&
        (strcmp(a.junit, a.json) == 0 ||
         (rs_path_is_stdout(a.junit) && rs_path_is_stdout(a.json)))) {
        free_files(files, n);
        return rs_cli_usage_error("check: --junit and --json name the same file (%s)", a.json);
    }
    rs_outfile *junit = NULL, *json = NULL;
    rs_error_detail detail;
    if ((a.junit && rs_cli_outfile_begin(a.junit, &junit, &detail) != RS_OK) ||
        (a.json && rs_cli_outfile_begin(a.json, &json, &detail) != RS_OK)) {
        rs_outfile_abort(junit);
        free_files(files, n);
        /* the report that failed: --junit's is begun first */
        return rs_cli_usage_error("check: %s: %s", a.junit && !junit ? "--junit" : "--json",
                                  detail.message);
    }
    char self[4096];
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    const char *tmp = getenv("TMPDIR");
    char workbuf[4200];
    snprintf(workbuf, sizeof workbuf, "%s/relaxsim-check-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (len <= 0 || !mkdtemp(workbuf)) {
        rs_outfile_abort(junit);
        rs_outfile_abort(json);
        free_files(files, n);
        return rs_cli_usage_error("check: cannot find the relaxsim executable or make a "
                                  "temporary directory");
    }
    self[len] = '\0';
    int sweeps = 0;
    for (int i = 0; i < n; i++)
        sweeps += files[i].is_sweep;
    if (!a.quiet)
        printf("relaxsim check: %d file%s (%d scenario%s, %d sweep%s), %ld job%s\n\n", n,
               n == 1 ? "" : "s", n - sweeps, n - sweeps == 1 ? "" : "s", sweeps,
               sweeps == 1 ? "" : "s", a.jobs, a.jobs == 1 ? "" : "s");
    fflush(stdout);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: waitpid returns to look at the flag */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    const double t0 = rs_wall_seconds();
    const int complete = run_all(&a, self, workbuf, files, n);
    const double elapsed = rs_wall_seconds() - t0;
    nftw(workbuf, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (interrupted) {
        rs_outfile_abort(junit);
        rs_outfile_abort(json);
        free_files(files, n);
        fprintf(stderr, "relaxsim: check: interrupted; the runs were stopped, no report "
                        "written\n");
        return 130;
    }
    int counts[RS_CHECK_OUTCOMES] = {0};
    for (int i = 0; i < n; i++)
        counts[files[i].outcome]++;
    int reports = 1;
    if (complete) {
        printf("\n%d file%s: %d passed, %d failed, %d bad input, %d crashed, %d without a "
               "contract (%.1f s)\n", n, n == 1 ? "" : "s", counts[RS_CHECK_PASSED],
               counts[RS_CHECK_FAILED], counts[RS_CHECK_BAD_INPUT], counts[RS_CHECK_CRASHED],
               counts[RS_CHECK_NO_CONTRACT], elapsed);
        if (junit)
            reports &= rs_check_write_junit(junit, files, n, elapsed);
        if (json)
            reports &= rs_check_write_json(json, files, n, elapsed);
    } else {
        rs_outfile_abort(junit);
        rs_outfile_abort(json);
    }
    free_files(files, n);
    if (!complete)
        return RS_EXIT_USAGE;
    if (!reports) /* a report that could not be written: its reason said */
        return RS_EXIT_FAILED;
    return counts[RS_CHECK_BAD_INPUT]                           ? RS_EXIT_USAGE
           : counts[RS_CHECK_FAILED] + counts[RS_CHECK_CRASHED] + counts[RS_CHECK_NO_CONTRACT]
               ? RS_EXIT_FAILED
                                                                : RS_EXIT_OK;
}
