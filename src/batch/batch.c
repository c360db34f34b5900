/* batch.c: the runs of a sweep in worker processes (see batch.h). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch/batch.h"
#include "core/c_locale.h"
#include "core/detail.h"
#include "core/timer.h"
#include "io/outset.h"
#include "io/output.h"
#include "io/scenario.h"
#include "sim/compare.h"
#include "sim/stack.h"

#define MAX_JOBS 256

/* ---- one run ------------------------------------------------------------------------------- */

static void add_params(cJSON *o, const rs_sweep *sw, long run)
{
    double v[RS_SWEEP_MAX_KEYS];
    rs_sweep_run_values(sw, run, v);
    cJSON *p = cJSON_AddObjectToObject(o, "params");
    for (int k = 0; k < sw->nkeys; k++) {
        if (sw->keys[k].words) /* a choice: its word */
            cJSON_AddStringToObject(p, sw->keys[k].name, sw->keys[k].words[(int)v[k]]);
        else
            cJSON_AddNumberToObject(p, sw->keys[k].name, v[k]);
    }
}

/* The result line of a run that did not get as far as a comparison. */
/* The head of every result line: the run, its parameters, its outcome. */
static cJSON *run_object(const rs_sweep *sw, long run, const char *outcome)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "run", (double)run);
    add_params(o, sw, run);
    cJSON_AddStringToObject(o, "outcome", outcome);
    return o;
}

/* A result object as one line of JSON (the object is freed). */
static char *print_line(cJSON *o)
{
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return line;
}

/* A run's refusal as the sweep file states it: the scenario says "--set KEY: why" of the
 * overrides the run was loaded with, which come from the sweep's [vary] or [set] lines. */
static void sweep_reason(const rs_sweep *sw, const char *reason, char *buf, size_t size)
{
    const char *colon = strncmp(reason, "--set ", 6) == 0 ? strstr(reason, ": ") : NULL;
    snprintf(buf, size, "%s", reason);
    if (!colon)
        return;
    const char *key = reason + 6;
    const int len = (int)(colon - key);
    for (int k = 0; k < sw->nkeys; k++)
        if ((int)strlen(sw->keys[k].name) == len && strncmp(sw->keys[k].name, key, len) == 0) {
            snprintf(buf, size, "%s:%d: vary.%.*s: %s", sw->path, sw->keys[k].line, len, key,
                     colon + 2);
            return;
        }
    for (int i = 0; i < sw->nsets; i++)
        if ((int)strcspn(sw->sets[i], "=") == len && strncmp(sw->sets[i], key, len) == 0) {
            snprintf(buf, size, "%s:%d: set.%.*s: %s", sw->path, sw->set_line[i], len, key,
                     colon + 2);
            return;
        }
}

static char *bad_input_line(const rs_sweep *sw, long run, const char *reason)
{
    cJSON *o = run_object(sw, run, "bad_input");
    char said[1024];
    sweep_reason(sw, reason, said, sizeof said);
    cJSON_AddStringToObject(o, "reason", said);
    cJSON_AddNumberToObject(o, "time_s", 0.0);
    return print_line(o);
}

/* The result line of a finished comparison; stack is the number of runs it was stacked with
 * (1: alone), time_s its wall time. */
static char *result_line(const rs_sweep *sw, long run, const rs_compare_result *r, int stack,
                         double time_s, const char *keep_error)
{
    const locale_t caller = rs_c_locale_enter(); /* the failed checks' values */
    cJSON *o = run_object(sw, run, r->contract_passed ? "passed" : "contract_failed");
    if (keep_error) /* --keep could not write the run's outputs: said, the result stands */
        cJSON_AddStringToObject(o, "keep_error", keep_error);
    cJSON *failed = cJSON_AddArrayToObject(o, "failed_checks");
    for (int i = 0; i < r->nchecks; i++)
        if (!r->checks[i].passed) {
            char text[256];
            snprintf(text, sizeof text, "%s (%s: actual %.9g)", r->checks[i].check->text,
                     r->checks[i].which, r->checks[i].actual);
            cJSON_AddItemToArray(failed, cJSON_CreateString(text));
        }
    cJSON_AddNumberToObject(o, "declared_checks", r->declared_checks);
    cJSON_AddNumberToObject(o, "applied_checks", r->applied_checks);
    if (r->nskipped > 0) /* the contract's checks a comparison does not evaluate (grad_*) */
        rs_add_skipped_checks(o, "skipped", r);
    cJSON_AddNumberToObject(o, "nlp_failed_steps", r->nlp.failed_steps);
    cJSON_AddNumberToObject(o, "lemke_failed_steps", r->lemke.failed_steps + r->shadow_failed_steps);
    cJSON_AddNumberToObject(o, "mode_agreement", r->mode_agreement);
    cJSON_AddNumberToObject(o, "nlp_iterations_mean", r->nlp.iterations_mean);
    cJSON_AddNumberToObject(o, "at_start_steps", r->nlp.at_start_steps);
    cJSON_AddNumberToObject(o, "ipopt_steps", r->nlp.ipopt_steps);
    cJSON_AddNumberToObject(o, "iterations_per_ipopt_step", r->nlp.iterations_per_ipopt_step);
    cJSON_AddNumberToObject(o, "stack", stack);
    cJSON_AddNumberToObject(o, "split_steps", r->nlp.split_steps);
    cJSON *worst = cJSON_AddObjectToObject(o, "shadow_max_abs");
    for (int c = 0; c < r->ncol; c++)
        cJSON_AddNumberToObject(worst, r->col_names[c], r->shadow_max_abs[c]);
    cJSON *fin = cJSON_AddObjectToObject(o, "final_nlp");
    for (int c = 0; c < r->ncol; c++)
        cJSON_AddNumberToObject(fin, r->col_names[c], r->nlp.final[c]);
    cJSON_AddNumberToObject(o, "time_s", time_s);
    cJSON_AddNumberToObject(o, "nlp_step_max_us", r->nlp.us_per_step_max);
    rs_c_locale_leave(caller);
    return print_line(o);
}

/* One run's outputs kept in keep_dir/runs/<run>/ (--keep): its two trajectories written as the
 * run goes, its summary.json at the end, each file whole or absent (io/outset.h). */
typedef struct kept_run {
    const rs_scenario *sc;
    rs_outfile *nlp, *lemke, *summary;
    const char *failed; /* why the run's files could not be kept (its line says it), or NULL */
    rs_error_detail detail;
} kept_run;

static void kept_step(void *ctx, int k, const rs_compare_step *st)
{
    kept_run *kr = ctx;
    if (kr->nlp) {
        rs_trajectory_csv_row(rs_outfile_stream(kr->nlp), kr->sc, RS_BACKEND_NLP, k, st);
        rs_trajectory_csv_row(rs_outfile_stream(kr->lemke), kr->sc, RS_BACKEND_LEMKE, k, st);
    }
}

static void kept_abort(kept_run *kr)
{
    rs_outfile_abort(kr->nlp);
    rs_outfile_abort(kr->lemke);
    rs_outfile_abort(kr->summary);
    kr->nlp = kr->lemke = kr->summary = NULL;
}

/* Make keep_dir/runs/<run>/ (never through a link) and begin its files. */
static void kept_open(kept_run *kr, const char *keep_dir, long run, const rs_scenario *sc)
{
    memset(kr, 0, sizeof *kr);
    kr->sc = sc;
    char dir[1200], path[1300];
    struct stat st;
    snprintf(dir, sizeof dir, "%s/runs/%ld", keep_dir, run);
    for (int level = 0; level < 2; level++) {
        snprintf(path, sizeof path, level ? "%s/runs/%ld" : "%s/runs", keep_dir, run);
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            rs_detail_set(&kr->detail, RS_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
            kr->failed = kr->detail.message;
            return;
        }
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
            rs_detail_set(&kr->detail, RS_ERR_IO, "%s: not a directory (a link?)", path);
            kr->failed = kr->detail.message;
            return;
        }
    }
    rs_outfile **files[3] = {&kr->nlp, &kr->lemke, &kr->summary};
    static const char *const names[3] = {"trajectory_nlp.csv", "trajectory_lemke.csv",
                                         "summary.json"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (rs_outfile_begin(path, files[i], &kr->detail) != RS_OK) {
            kept_abort(kr);
            kr->failed = kr->detail.message;
            return;
        }
    }
    rs_trajectory_csv_header(rs_outfile_stream(kr->nlp), sc, RS_BACKEND_NLP);
    rs_trajectory_csv_header(rs_outfile_stream(kr->lemke), sc, RS_BACKEND_LEMKE);
}

/* The run's summary, then its files put in place (summary.json last); a reason on failure. */
static const char *kept_close(kept_run *kr, const rs_compare_result *r)
{
    if (kr->failed)
        return kr->failed;
    rs_error err = rs_write_json_stream(rs_outfile_stream(kr->summary),
                                        rs_summary_json_text(kr->sc, r));
    if (err != RS_OK) {
        kept_abort(kr);
        return "out of memory";
    }
    rs_outfile **files[3] = {&kr->nlp, &kr->lemke, &kr->summary};
    for (int i = 0; i < 3; i++) {
        if (err == RS_OK)
            err = rs_outfile_commit(*files[i], &kr->detail);
        else
            rs_outfile_abort(*files[i]);
        *files[i] = NULL;
    }
    return err == RS_OK ? NULL : kr->detail.message;
}

/* Run the scenarios scs[idx[0..count)] (compatible) stacked, or alone when count is 1, and
 * write their lines (and with keep_dir their outputs). Nothing per step is kept in memory. */
static void run_group(const rs_sweep *sw, const long *runs, rs_scenario *scs, const int *idx,
                      int count, const char *keep_dir, char **lines)
{
    const double t0 = rs_wall_seconds();
    const rs_scenario *group[RS_BATCH_MAX_STACK];
    static rs_compare_result r[RS_BATCH_MAX_STACK];
    rs_compare_options opts[RS_BATCH_MAX_STACK];
    kept_run kept[RS_BATCH_MAX_STACK];
    for (int i = 0; i < count; i++) {
        group[i] = &scs[idx[i]];
        rs_compare_options_default(&opts[i]);
        opts[i].keep_steps = 0;
        if (keep_dir) {
            kept_open(&kept[i], keep_dir, runs[idx[i]], group[i]);
            opts[i].sink = kept_step;
            opts[i].sink_ctx = &kept[i];
        }
    }
    const rs_error err =
        count == 1 ? rs_compare_run_with(group[0], RS_RUN_COMPARE, &opts[0], &r[0])
                   : rs_compare_run_stacked(group, count, RS_RUN_COMPARE, NULL, opts, r);
    const double each = (rs_wall_seconds() - t0) / count;
    for (int i = 0; i < count; i++) {
        const long run = runs[idx[i]];
        const char *reason = NULL;
        if (keep_dir && err == RS_OK)
            reason = kept_close(&kept[i], &r[i]);
        else if (keep_dir)
            kept_abort(&kept[i]);
        lines[idx[i]] = err != RS_OK ? bad_input_line(sw, run, rs_error_string(err))
                                     : result_line(sw, run, &r[i], count, each, reason);
        if (err == RS_OK)
            rs_compare_free(&r[i]);
    }
}

void rs_batch_run_lines(const rs_sweep *sw, const long *runs, int count, const char *keep_dir,
                        char **lines)
{
    if (count < 1 || count > RS_BATCH_MAX_STACK)
        return;
    rs_scenario *scs = malloc(sizeof *scs * (size_t)count);
    int loaded[RS_BATCH_MAX_STACK], grouped[RS_BATCH_MAX_STACK] = {0};
    for (int i = 0; i < count; i++) {
        lines[i] = NULL;
        loaded[i] = 0;
        if (!scs)
            continue;
        char sets[RS_SWEEP_MAX_OVERRIDES][128];
        const char *ptrs[RS_SWEEP_MAX_OVERRIDES];
        const int nsets = rs_sweep_run_overrides(sw, runs[i], sets);
        for (int k = 0; k < nsets; k++)
            ptrs[k] = sets[k];
        rs_error_detail d;
        if (rs_scenario_load(sw->scenario, ptrs, nsets, &scs[i], &d) == RS_OK)
            loaded[i] = 1;
        else
            lines[i] = bad_input_line(sw, runs[i], d.message);
    }
    /* greedy groups of compatible scenarios, in run order */
    for (int i = 0; i < count; i++) {
        if (!loaded[i] || grouped[i])
            continue;
        int idx[RS_BATCH_MAX_STACK], n = 0;
        idx[n++] = i; /* a run heads its own group, stackable or not (a model with per-step
                         sizes never stacks) */
        grouped[i] = 1;
        for (int j = i + 1; j < count; j++)
            if (loaded[j] && !grouped[j] && rs_stack_compatible(&scs[i], &scs[j])) {
                idx[n++] = j;
                grouped[j] = 1;
            }
        run_group(sw, runs, scs, idx, n, keep_dir, lines);
    }
    for (int i = 0; scs && i < count; i++)
        if (loaded[i])
            rs_scenario_release(&scs[i]);
    free(scs);
}

char *rs_batch_run_line(const rs_sweep *sw, long run)
{
    char *line = NULL;
    rs_batch_run_lines(sw, &run, 1, NULL, &line);
    return line;
}

/* ---- worker processes ---------------------------------------------------------------------- */

typedef struct worker {
    pid_t pid;
    int task_fd;    /* parent writes tasks: a count, then that many run numbers */
    int result_fd;  /* parent reads length-prefixed lines, one per run, in task order */
    long runs[RS_BATCH_MAX_STACK]; /* its task */
    int nruns;      /* 0 when idle */
    int next;       /* the run whose line comes next */
} worker;

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        const ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return 0;
        p += w;
        len -= (size_t)w;
    }
    return 1;
}

static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        const ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        p += r;
        len -= (size_t)r;
    }
    return 1;
}

/* The worker's loop: a task in (runs to do together), their result lines out, until the task
 * pipe closes. */
static void worker_main(const rs_sweep *sw, const char *keep_dir, int task_fd, int result_fd)
{
    int64_t task[1 + RS_BATCH_MAX_STACK];
    while (read_all(task_fd, task, sizeof task[0]) && task[0] >= 1 &&
           task[0] <= RS_BATCH_MAX_STACK && read_all(task_fd, task + 1, sizeof task[0] * task[0])) {
        const int count = (int)task[0];
        long runs[RS_BATCH_MAX_STACK];
        char *lines[RS_BATCH_MAX_STACK];
        for (int i = 0; i < count; i++)
            runs[i] = (long)task[1 + i];
        rs_batch_run_lines(sw, runs, count, keep_dir, lines);
        int ok = 1;
        for (int i = 0; i < count; i++) {
            const uint32_t len = lines[i] ? (uint32_t)strlen(lines[i]) : 0;
            ok = ok && write_all(result_fd, &len, sizeof len) && write_all(result_fd, lines[i], len);
            free(lines[i]);
        }
        if (!ok)
            break;
    }
    _exit(0); /* a forked worker ends here; it never returns into the caller's code */
}

/* Start a worker; it closes every descriptor of the parent's that is not its own (the results
 * file and the directory's lock stay the parent's alone). */
static int spawn(const rs_sweep *sw, const char *keep_dir, worker *w, const worker *all, int nall,
                 const rs_batch_results *res)
{
    int task[2], result[2];
    if (pipe(task) != 0)
        return 0;
    if (pipe(result) != 0) {
        close(task[0]);
        close(task[1]);
        return 0;
    }
    /* The child must not inherit unwritten stdio buffers: something inside IPOPT/MUMPS flushes
     * C stdio, and the caller's buffered output would then appear once more per worker. */
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        close(task[0]);
        close(task[1]);
        close(result[0]);
        close(result[1]);
        return 0;
    }
    if (pid == 0) {
        rs_outset_forget_inherited();
        for (int i = 0; i < nall; i++) /* the other workers' pipes are not this worker's */
            if (all[i].pid > 0) {
                close(all[i].task_fd);
                close(all[i].result_fd);
            }
        close(res->fd);
        if (res->lock_fd >= 0)
            close(res->lock_fd);
        close(task[1]);
        close(result[0]);
        worker_main(sw, keep_dir, task[0], result[1]);
    }
    close(task[0]);
    close(result[1]);
    w->pid = pid;
    w->task_fd = task[1];
    w->result_fd = result[0];
    w->nruns = w->next = 0;
    return 1;
}

static void retire(worker *w)
{
    close(w->task_fd);
    close(w->result_fd);
    waitpid(w->pid, NULL, 0);
    w->pid = -1;
}

/* ---- resume --------------------------------------------------------------------------------- */

/* One finished run in the outcome counts; an unknown outcome counts as crashed. */
static void tally_outcome(rs_batch_counts *c, const char *outcome)
{
    if (strcmp(outcome, "passed") == 0)
        c->passed++;
    else if (strcmp(outcome, "contract_failed") == 0)
        c->contract_failed++;
    else if (strcmp(outcome, "bad_input") == 0)
        c->bad_input++;
    else
        c->crashed++;
}

/*
 * --resume: mark the runs already in results.jsonl. Every valid line is kept; a line that is not
 * a result (corrupt, torn, a run number outside the sweep, a repeat) is dropped and reported by
 * number; with retry_crashed, crashed runs are dropped to be run again. When anything was
 * dropped, the kept lines are written back under a temporary name and renamed into place.
 */
/* 1 if o is a whole result line of run r of this sweep as a batch writes it: the keys spelt
 * exactly, r an integer, an outcome a batch gives, the parameters the sweep gives run r, and the
 * figures its outcome carries. */
static int is_result_line(const rs_sweep *sw, const cJSON *o, long *r)
{
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(o, "run");
    const cJSON *outcome = cJSON_GetObjectItemCaseSensitive(o, "outcome");
    const cJSON *time = cJSON_GetObjectItemCaseSensitive(o, "time_s");
    if (!cJSON_IsObject(o) || !cJSON_IsNumber(run) || !cJSON_IsString(outcome) ||
        !(run->valuedouble >= 0.0 && run->valuedouble < (double)sw->nruns) ||
        run->valuedouble != floor(run->valuedouble))
        return 0;
    *r = (long)run->valuedouble;
    const char *out = outcome->valuestring;
    const int finished = strcmp(out, "passed") == 0 || strcmp(out, "contract_failed") == 0;
    if (!finished && strcmp(out, "bad_input") != 0 && strcmp(out, "crashed") != 0)
        return 0;
    if (finished && (!cJSON_IsNumber(time) ||
                     !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "shadow_max_abs"))))
        return 0;
    cJSON *expected = run_object(sw, *r, out); /* the parameters as this sweep gives them */
    const int same = cJSON_Compare(cJSON_GetObjectItemCaseSensitive(expected, "params"),
                                   cJSON_GetObjectItemCaseSensitive(o, "params"), 1);
    cJSON_Delete(expected);
    return same;
}

static rs_error scan_results(const rs_sweep *sw, const char *path, unsigned char *done,
                             long nruns, int retry_crashed, rs_batch_counts *c,
                             rs_error_detail *detail)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? RS_OK
                               : rs_detail_set(detail, RS_ERR_IO, "%s: %s", path, strerror(errno));
    enum { LINE_CAP = 1 << 16 };
    char *line = malloc(LINE_CAP);
    rs_outfile *out = NULL;
    rs_error err = line ? rs_outfile_begin(path, &out, detail) : RS_ERR_NOMEM;
    if (err != RS_OK) {
        free(line);
        fclose(f);
        return err;
    }
    FILE *kept = rs_outfile_stream(out);
    long number = 0, dropped = 0;
    while (fgets(line, LINE_CAP, f)) {
        number++;
        size_t len = strlen(line);
        int whole = len > 0 && line[len - 1] == '\n';
        if (!whole) { /* torn, or longer than any result line: skip to its end */
            int ch;
            while (len == LINE_CAP - 1 && (ch = fgetc(f)) != EOF && ch != '\n')
                ;
        }
        /* the whole line is one JSON object and nothing else (a newline aside) */
        const char *end = NULL;
        cJSON *o = whole ? cJSON_ParseWithOpts(line, &end, 0) : NULL;
        if (o && end && strspn(end, "\r\n") != strlen(end)) {
            cJSON_Delete(o);
            o = NULL;
        }
        long r = -1;
        int keep = o && is_result_line(sw, o, &r) && r < nruns && !done[r];
        const cJSON *outcome = cJSON_GetObjectItemCaseSensitive(o, "outcome");
        if (!keep) {
            if (c->bad_lines < 8)
                c->bad_line[c->bad_lines] = number;
            c->bad_lines++;
        } else if (retry_crashed && strcmp(outcome->valuestring, "crashed") == 0) {
            keep = 0;
            c->retried++;
        }
        if (keep) {
            done[r] = 1;
            c->skipped++;
            tally_outcome(c, outcome->valuestring);
            fputs(line, kept);
        } else {
            dropped++;
        }
        cJSON_Delete(o);
    }
    free(line);
    fclose(f);
    if (dropped > 0)
        return rs_outfile_commit(out, detail);
    rs_outfile_abort(out); /* nothing dropped: the file stays as it is */
    return RS_OK;
}

/* ---- one batch per directory, and which sweep wrote it ------------------------------------- */

/* 64-bit FNV-1a of a text's bytes (0 for none). */
static uint64_t text_hash(const char *text)
{
    if (!text)
        return 0;
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        h = (h ^ *c) * 1099511628211ULL;
    return h;
}

/* The hash of the scene the base scenario has with the sweep's [set] overrides and one more
 * override (NULL: none), or 0 when that does not load (its runs are bad input, whatever the
 * scene holds). */
static uint64_t scene_hash_with(const rs_sweep *sw, const char *extra)
{
    const char *sets[RS_SWEEP_MAX_SETS + 1];
    int n = 0;
    for (int i = 0; i < sw->nsets; i++)
        sets[n++] = sw->sets[i];
    if (extra)
        sets[n++] = extra;
    static rs_scenario sc;
    rs_error_detail ignored;
    uint64_t h = 0;
    if (rs_scenario_load(sw->scenario, sets, n, &sc, &ignored) == RS_OK)
        h = text_hash(sc.scene_text);
    rs_scenario_release(&sc);
    return h;
}

/* What a sweep is, one line per item; every run's parameters follow from it. Its scenario and
 * scenes are named by their contents, not their paths: the same sweep named by another path
 * (./problems/..., absolute) is the same sweep, and a scene edited since (the base's, one named
 * by [set] model.scene, or each of a [vary] model.scene) makes another. */
static char *sweep_description(const rs_sweep *sw)
{
    size_t cap = 4096, len = 0;
    for (int k = 0; k < sw->nkeys; k++)
        cap += 64 * (size_t)sw->keys[k].nvalues + 128;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    const locale_t caller = rs_c_locale_enter(); /* the values in the C locale */
    static rs_scenario base;
    rs_error_detail ignored;
    const int loaded = rs_scenario_load(sw->scenario, NULL, 0, &base, &ignored) == RS_OK;
    char *scenario_text = loaded ? NULL : rs_read_text_file(sw->scenario);
    len += (size_t)snprintf(text + len, cap - len,
                            "relaxsim sweep 3\nscenario bytes fnv1a %016llx\n"
                            "scene bytes fnv1a %016llx\ncombine %s\n",
                            (unsigned long long)text_hash(loaded ? base.text : scenario_text),
                            (unsigned long long)text_hash(loaded ? base.scene_text : NULL),
                            sw->zip ? "zip" : "product");
    free(scenario_text);
    rs_scenario_release(&base);
    for (int i = 0; i < sw->nsets; i++)
        len += (size_t)snprintf(text + len, cap - len, "set %s\n", sw->sets[i]);
    for (int k = 0; k < sw->nkeys; k++) {
        len += (size_t)snprintf(text + len, cap - len, "vary %s =", sw->keys[k].name);
        for (int v = 0; v < sw->keys[k].nvalues; v++) {
            char num[RS_SWEEP_WORD_LEN];
            const char *w = sw->keys[k].words ? sw->keys[k].words[v] : NULL;
            /* (a quoted text, which may hold spaces, quoted again: one value each) */
            len += (size_t)snprintf(text + len, cap - len, w && strpbrk(w, " ,") ? " \"%s\"" : " %s",
                                    w ? w
                                      : (snprintf(num, sizeof num, "%.17g", sw->keys[k].values[v]),
                                         num));
        }
        len += (size_t)snprintf(text + len, cap - len, "\n");
    }
    len += (size_t)snprintf(text + len, cap - len, "scene with the sets bytes fnv1a %016llx\n",
                            (unsigned long long)scene_hash_with(sw, NULL));
    for (int k = 0; k < sw->nkeys; k++)
        for (int v = 0; sw->keys[k].words && strcmp(sw->keys[k].name, "model.scene") == 0 &&
                        v < sw->keys[k].nvalues;
             v++) {
            char set[RS_SWEEP_WORD_LEN + 32];
            snprintf(set, sizeof set, "model.scene=%s", sw->keys[k].words[v]);
            len += (size_t)snprintf(text + len, cap - len, "scene %d bytes fnv1a %016llx\n", v,
                                    (unsigned long long)scene_hash_with(sw, set));
        }
    rs_c_locale_leave(caller);
    return text;
}

/* What a fresh batch replaces in dir: the previous sweep's summary.json first (the mark of a
 * complete set), its results.csv, the pictures `relaxsim plot` drew of it (their script and log,
 * batch_*.png), the runs kept with --keep; results.jsonl is truncated and sweep.txt replaced
 * next. An interrupted fresh batch then leaves its own partial results, never a mix of two
 * sweeps, nor the old sweep's pictures beside the new one's data. */
static void remove_previous_batch(const char *dir)
{
    static const char *const files[] = {"summary.json", "results.csv", "plot.gp", "plot.log"};
    static const char *const kept[] = {"trajectory_nlp.csv", "trajectory_lemke.csv",
                                       "summary.json"};
    char path[1300];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    /* the pictures' names first, then the removals (removing while listing may skip entries);
     * plot draws one per column group, a handful */
    char pictures[64][208];
    int npictures = 0;
    DIR *top = opendir(dir);
    for (struct dirent *e; top && npictures < 64 && (e = readdir(top));)
        if (fnmatch("batch_*.png", e->d_name, FNM_PERIOD) == 0 && strlen(e->d_name) < 200)
            snprintf(pictures[npictures++], sizeof pictures[0], "%.200s", e->d_name);
    if (top)
        closedir(top);
    for (int i = 0; i < npictures; i++) {
        snprintf(path, sizeof path, "%.1000s/%.200s", dir, pictures[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/runs", dir);
    struct stat st;
    DIR *d = lstat(path, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        char *end;
        strtol(e->d_name, &end, 10);
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end) /* only the runs' directories */
            continue;
        char run[1700];
        if (strlen(e->d_name) > 20)
            continue;
        for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
            snprintf(run, sizeof run, "%s/%s/%s", path, e->d_name, kept[i]);
            unlink(run);
        }
        snprintf(run, sizeof run, "%s/%s", path, e->d_name);
        rmdir(run); /* left if it holds other files */
    }
    if (d)
        closedir(d);
}

/* Fresh batch: record the sweep in DIR/sweep.txt. --resume: refuse a directory written by a
 * different sweep (or by none that says what it was), naming the first line that differs. */
static rs_error check_sweep_record(const rs_sweep *sw, const char *dir, int resume,
                                   rs_error_detail *detail)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/sweep.txt", dir);
    char *now = sweep_description(sw);
    if (!now)
        return RS_ERR_NOMEM;
    rs_error err = RS_OK;
    FILE *f = resume ? fopen(path, "r") : NULL;
    if (!resume) /* a fresh batch: the previous sweep's set is gone before this one's begins */
        remove_previous_batch(dir);
    if (f) { /* lines of any length: getline */
        const char *p = now;
        char *line = NULL;
        size_t cap = 0;
        long number = 0;
        ssize_t len;
        while (err == RS_OK && (len = getline(&line, &cap, f)) >= 0) {
            number++;
            const char *nl = strchr(p, '\n');
            const size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);
            if ((size_t)len != n || strncmp(line, p, n) != 0) {
                line[strcspn(line, "\n")] = '\0';
                err = rs_detail_set(detail, RS_ERR_BAD_ARG,
                                    "%s: written by a different sweep (sweep.txt line %ld: "
                                    "'%.120s' then, '%.*s' now); resume only the sweep that "
                                    "wrote it, or choose another -o",
                                    dir, number, line, (int)(n > 120 ? 120 : n ? n - 1 : 0), p);
            }
            p += n;
        }
        if (err == RS_OK && *p)
            err = rs_detail_set(detail, RS_ERR_BAD_ARG, "%s: written by a different sweep "
                                "(sweep.txt ends before '%.60s')", dir, p);
        free(line);
        fclose(f);
        free(now);
        return err;
    }
    if (resume) { /* no record: results without one cannot be vouched for */
        char results[1200];
        snprintf(results, sizeof results, "%s/results.jsonl", dir);
        if (access(results, F_OK) == 0) {
            free(now);
            return rs_detail_set(detail, RS_ERR_BAD_ARG, "%s: no sweep.txt: cannot tell which "
                                 "sweep wrote this directory, so it cannot be resumed", dir);
        }
    } /* a fresh batch, or --resume into an empty directory: record the sweep */
    rs_outfile *out;
    err = rs_outfile_begin(path, &out, detail);
    if (err == RS_OK) {
        fputs(now, rs_outfile_stream(out));
        err = rs_outfile_commit(out, detail);
    }
    free(now);
    return err;
}

/* The directory's lock for the batch's life (released by close, also when the batch dies). */
static rs_error lock_directory(const char *dir, int *fd_out, rs_error_detail *detail)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/.lock", dir);
    const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0)
        return rs_detail_set(detail, RS_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            return rs_detail_set(detail, RS_ERR_BAD_ARG, "%s: another batch is writing into this "
                                 "directory; wait for it to end, or choose another -o", dir);
        return rs_detail_set(detail, RS_ERR_IO, "%s: cannot lock: %s", path, strerror(e));
    }
    *fd_out = fd;
    return RS_OK;
}

/* ---- the batch ------------------------------------------------------------------------------ */

/* Count a finished run (just now, or found by --resume) from its result line. */
static void count_outcome(rs_batch_counts *c, const char *line)
{
    cJSON *o = cJSON_Parse(line);
    const cJSON *outcome = cJSON_GetObjectItem(o, "outcome");
    tally_outcome(c, cJSON_IsString(outcome) ? outcome->valuestring : "crashed");
    cJSON_Delete(o);
    c->done++;
}

static int append_line(int fd, const char *line)
{
    /* one write() of the whole line, newline included */
    const size_t len = strlen(line);
    char *buf = malloc(len + 1);
    if (!buf)
        return 0;
    memcpy(buf, line, len);
    buf[len] = '\n';
    const int ok = write_all(fd, buf, len + 1);
    free(buf);
    return ok;
}

static char *crashed_line(const rs_sweep *sw, long run, int status)
{
    char why[96];
    if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "the worker was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(why, sizeof why, "the worker exited with status %d", WEXITSTATUS(status));
    cJSON *o = run_object(sw, run, "crashed");
    cJSON_AddStringToObject(o, "reason", why);
    return print_line(o);
}

rs_error rs_batch_results_open(const rs_sweep *sw, const rs_batch_options *o,
                               rs_batch_results *res, rs_batch_counts *counts,
                               rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!sw || !o || !res || !counts || !o->out_dir)
        return RS_ERR_NULL_ARG;
    if (o->jobs < 1 || o->jobs > MAX_JOBS || o->stack < 1 || o->stack > RS_BATCH_MAX_STACK ||
        o->shard_count < 1 || o->shard_index < 0 ||
        o->shard_index >= o->shard_count)
        return RS_ERR_BAD_ARG;
    memset(res, 0, sizeof *res);
    memset(counts, 0, sizeof *counts);
    res->fd = -1;
    res->lock_fd = -1;
    res->t0 = rs_wall_seconds();
    res->next = o->shard_index;
    rs_error err = rs_make_directory(o->out_dir, detail);
    if (err == RS_OK)
        err = lock_directory(o->out_dir, &res->lock_fd, detail);
    if (err == RS_OK)
        err = check_sweep_record(sw, o->out_dir, o->resume, detail);
    if (err != RS_OK) {
        if (res->lock_fd >= 0)
            close(res->lock_fd);
        res->lock_fd = -1;
        return err;
    }
    snprintf(res->path, sizeof res->path, "%s/results.jsonl", o->out_dir);
    res->done = calloc((size_t)sw->nruns, 1);
    if (!res->done) {
        close(res->lock_fd);
        res->lock_fd = -1;
        return RS_ERR_NOMEM;
    }
    if (o->resume)
        err = scan_results(sw, res->path, res->done, sw->nruns, o->retry_crashed, counts, detail);
    if (err == RS_OK) {
        res->fd = open(res->path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC |
                                      (o->resume ? 0 : O_TRUNC), 0666);
        if (res->fd < 0)
            err = rs_detail_set(detail, RS_ERR_IO, "%s: cannot open for writing: %s", res->path,
                                strerror(errno));
    }
    if (err != RS_OK) {
        free(res->done);
        res->done = NULL;
        close(res->lock_fd);
        res->lock_fd = -1;
        return err;
    }
    counts->done = counts->skipped;
    for (long r = o->shard_index; r < sw->nruns; r += o->shard_count)
        counts->total++;
    return RS_OK;
}

long rs_batch_results_next(const rs_sweep *sw, const rs_batch_options *o, rs_batch_results *res)
{
    while (res->next < sw->nruns && res->done[res->next])
        res->next += o->shard_count;
    if (res->next >= sw->nruns)
        return -1;
    const long run = res->next;
    res->done[run] = 1; /* handed out */
    res->next += o->shard_count;
    return run;
}

rs_error rs_batch_results_append(rs_batch_results *res, const char *line, rs_batch_counts *counts,
                                 rs_error_detail *detail)
{
    if (!line || !append_line(res->fd, line))
        return rs_detail_set(detail, RS_ERR_IO, "%s: write error", res->path);
    count_outcome(counts, line);
    counts->wall_s = rs_wall_seconds() - res->t0;
    return RS_OK;
}

rs_error rs_batch_results_close(rs_batch_results *res, rs_error_detail *detail)
{
    rs_error err = RS_OK;
    if (res->fd >= 0 && close(res->fd) != 0)
        err = rs_detail_set(detail, RS_ERR_IO, "%s: write error", res->path);
    res->fd = -1;
    if (res->lock_fd >= 0)
        close(res->lock_fd);
    res->lock_fd = -1;
    free(res->done);
    res->done = NULL;
    return err;
}

/* --stack K > 1 on a sweep whose model cannot stack is refused before any run: taking K runs
 * at a time and solving each alone would look stacked and not be. */
static rs_error check_stack(const rs_sweep *sw, const rs_batch_options *o, rs_error_detail *detail)
{
    if (o->stack <= 1)
        return RS_OK;
    const char *sets[RS_SWEEP_MAX_SETS];
    for (int i = 0; i < sw->nsets; i++)
        sets[i] = sw->sets[i];
    static rs_scenario base;
    rs_error_detail ignored;
    if (rs_scenario_load(sw->scenario, sets, sw->nsets, &base, &ignored) != RS_OK)
        return RS_OK; /* each run reports its own bad input */
    const char *why;
    const int supported = rs_stack_supported(&base, &why);
    char model[64];
    snprintf(model, sizeof model, "%s", base.model->name);
    rs_scenario_release(&base);
    if (supported)
        return RS_OK;
    return rs_detail_set(detail, RS_ERR_BAD_ARG,
                         "%s:%d: --stack %d: the %s model cannot be stacked (%s); run the sweep "
                         "without --stack", sw->path, sw->scenario_line, o->stack, model, why);
}

rs_error rs_batch_run(const rs_sweep *sw, const rs_batch_options *o, rs_batch_progress_fn progress,
                      void *progress_ctx, rs_batch_counts *counts, rs_error_detail *detail)
{
    rs_batch_results res;
    rs_error err = check_stack(sw, o, detail);
    if (err != RS_OK)
        return err;
    err = rs_batch_results_open(sw, o, &res, counts, detail);
    if (err != RS_OK)
        return err;
    worker ws[MAX_JOBS];
    for (int i = 0; i < o->jobs; i++)
        ws[i].pid = -1;
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN); /* a dead worker is an EOF, not a signal */
    int alive = 0;
    for (int i = 0; i < o->jobs; i++)
        alive += spawn(sw, o->keep ? o->out_dir : NULL, &ws[i], ws, o->jobs, &res);
    if (alive == 0)
        err = rs_detail_set(detail, RS_ERR_IO, "cannot start worker processes: %s", strerror(errno));
    struct pollfd pfd[MAX_JOBS];
    while (err == RS_OK) {
        /* give every idle worker the next runs that are not done yet (--stack of them) */
        for (int i = 0; i < o->jobs; i++) {
            if (ws[i].pid <= 0 || ws[i].nruns > 0)
                continue;
            int64_t task[1 + RS_BATCH_MAX_STACK];
            int count = 0;
            long run;
            while (count < o->stack && (run = rs_batch_results_next(sw, o, &res)) >= 0)
                task[1 + count++] = run;
            if (count == 0)
                break;
            task[0] = count;
            if (write_all(ws[i].task_fd, task, sizeof task[0] * (size_t)(1 + count))) {
                for (int j = 0; j < count; j++)
                    ws[i].runs[j] = (long)task[1 + j];
                ws[i].nruns = count;
                ws[i].next = 0;
                continue;
            }
            /* The idle worker died before taking the task: put its runs back (the cursor only
             * moves forward, so rewind it) and start another worker in its place. */
            for (int j = 0; j < count; j++) {
                res.done[task[1 + j]] = 0;
                if (task[1 + j] < res.next)
                    res.next = (long)task[1 + j];
            }
            retire(&ws[i]);
            if (!spawn(sw, o->keep ? o->out_dir : NULL, &ws[i], ws, o->jobs, &res) && --alive == 0)
                err = rs_detail_set(detail, RS_ERR_IO, "cannot restart a worker process: %s",
                                    strerror(errno));
            break;
        }
        int busy = 0;
        for (int i = 0; i < o->jobs; i++) {
            pfd[i].fd = ws[i].pid > 0 && ws[i].nruns > 0 ? ws[i].result_fd : -1;
            pfd[i].events = POLLIN;
            pfd[i].revents = 0;
            busy += pfd[i].fd >= 0;
        }
        if (busy == 0)
            break;
        if (poll(pfd, (nfds_t)o->jobs, -1) < 0) {
            if (errno == EINTR)
                continue;
            err = rs_detail_set(detail, RS_ERR_IO, "poll: %s", strerror(errno));
            break;
        }
        for (int i = 0; i < o->jobs && err == RS_OK; i++) {
            if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            uint32_t len = 0;
            char *line = NULL;
            if (read_all(ws[i].result_fd, &len, sizeof len) && (line = malloc((size_t)len + 1)) &&
                read_all(ws[i].result_fd, line, len)) {
                line[len] = '\0';
                err = rs_batch_results_append(&res, line, counts, detail);
                free(line);
                if (++ws[i].next == ws[i].nruns)
                    ws[i].nruns = 0;
            } else { /* the worker died: record the runs of its task not yet reported */
                free(line);
                int status = 0;
                close(ws[i].task_fd);
                close(ws[i].result_fd);
                waitpid(ws[i].pid, &status, 0);
                ws[i].pid = -1;
                for (int j = ws[i].next; j < ws[i].nruns; j++) {
                    line = crashed_line(sw, ws[i].runs[j], status);
                    const rs_error append_err = rs_batch_results_append(&res, line, counts, detail);
                    if (err == RS_OK)
                        err = append_err;
                    free(line);
                }
                if (!spawn(sw, o->keep ? o->out_dir : NULL, &ws[i], ws, o->jobs, &res) && --alive == 0 && err == RS_OK)
                    err = rs_detail_set(detail, RS_ERR_IO, "cannot restart a worker process: %s",
                                        strerror(errno));
            }
            if (progress)
                progress(progress_ctx, counts);
        }
    }
    for (int i = 0; i < o->jobs; i++)
        if (ws[i].pid > 0)
            retire(&ws[i]);
    signal(SIGPIPE, old_pipe);
    const rs_error close_err = rs_batch_results_close(&res, detail);
    return err != RS_OK ? err : close_err;
}
