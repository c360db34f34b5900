/*
 * cmd_plot.c: `relaxsim plot DIR`: renders a comparison written by `relaxsim compare -o DIR` to
 * PNG files with gnuplot: positions.png, velocities.png, forces.png (both backends overlaid:
 * NLP solid, Lemke dashed) and differences.png (per-step |NLP - Lemke| on a log scale, with failed
 * steps and mode mismatches marked). The gnuplot script is kept as DIR/plot.gp.
 * For a batch directory (relaxsim batch -o DIR): batch_K.png, the worst per-step difference of
 * each run against the K-th varied key.
 * Exit 0 on success, 1 if gnuplot failed, 2 for bad usage or a directory without results.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/model.h"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (s) {
        const size_t got = fread(s, 1, (size_t)len, f);
        s[got] = '\0';
    }
    fclose(f);
    return s;
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* One PNG: every state column whose unit suffix is `unit` (or every force when unit is NULL). */
static void plot_group(FILE *g, const rs_model *m, const char *png, const char *title,
                       const char *ylabel, const char *unit)
{
    fprintf(g, "set output '%s'\nset title '%s'\nset ylabel '%s'\nunset logscale y\n"
               "set yrange [*:*]\nset format y '%%g'\nplot ", png,
            title, ylabel);
    int first = 1;
    const int ncol = m->nstate + m->nforce;
    for (int c = 0; c < ncol; c++) {
        const int is_state = c < m->nstate;
        const char *name = is_state ? m->state_names[c] : m->force_names[c - m->nstate];
        if (unit ? !(is_state && ends_with(name, unit)) : is_state)
            continue;
        const int csv_col = 3 + m->ninput + c; /* gnuplot columns are 1-based: step, t_s, inputs */
        fprintf(g, "%s'trajectory_nlp.csv' using 2:%d with lines lw 2 lc %d title '%s NLP', "
                   "'trajectory_lemke.csv' using 2:%d with lines dt 2 lw 2 lc %d title '%s Lemke'",
                first ? "" : ", \\\n     ", csv_col, c + 1, name, csv_col, c + 1, name);
        first = 0;
    }
    if (first)
        fprintf(g, "NaN notitle");
    fputc('\n', g);
}

/* DIR/plot.gp opened for writing, with the settings every plot shares; NULL (message printed)
 * if it cannot be written. */
static FILE *open_script(const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/plot.gp", dir);
    FILE *g = fopen(path, "w");
    if (!g) {
        rs_cli_usage_error("plot: %s: cannot write", path);
        return NULL;
    }
    fprintf(g, "# written by relaxsim plot; run from this directory: gnuplot plot.gp\n"
               "set datafile separator ','\nset terminal png size 1100,650 font ',11'\n"
               "set termoption noenhanced\nset grid\nset key outside right\n");
    return g;
}

/* Run DIR/plot.gp from DIR; 0 (message printed) if gnuplot failed. */
static int run_gnuplot(const char *dir)
{
    char cmd[2600];
    snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot plot.gp", dir);
    if (system(cmd) == 0)
        return 1;
    fprintf(stderr, "relaxsim: plot: gnuplot failed on %s/plot.gp\n", dir);
    return 0;
}

/* A batch: the worst shadow difference of each run against each varied key (results.csv:
 * run, the keys, outcome, nlp_failed_steps, mode_agreement, then one shadow_max_abs column per
 * state and force column). */
static int plot_batch(const char *dir, const cJSON *summary)
{
    const cJSON *keys = cJSON_GetObjectItem(summary, "keys");
    char path[1200], header[4096] = "";
    snprintf(path, sizeof path, "%s/results.csv", dir);
    FILE *csv = fopen(path, "r");
    if (!csv || !fgets(header, sizeof header, csv)) {
        if (csv)
            fclose(csv);
        return rs_cli_usage_error("plot: %s: cannot read", path);
    }
    fclose(csv);
    int ncols = 1;
    for (const char *p = header; *p; p++)
        ncols += *p == ',';
    const int nkeys = cJSON_GetArraySize(keys), first_diff = 1 + nkeys + 3 + 1; /* 1-based */
    FILE *g = open_script(dir);
    if (!g)
        return RS_EXIT_USAGE;
    fprintf(g, "set logscale y\nset format y '%%.0e'\n"
               "set ylabel 'worst per-step |NLP - Lemke| (floor 1e-17)'\n");
    int k = 0;
    for (const cJSON *key = keys ? keys->child : NULL; key; key = key->next, k++) {
        fprintf(g, "set output 'batch_%d.png'\nset title 'worst shadow difference against %s'\n"
                   "set xlabel '%s'\nplot ", k, key->valuestring, key->valuestring);
        for (int c = first_diff; c <= ncols; c++)
            fprintf(g, "%s'results.csv' every ::1 using %d:($%d > 1e-17 ? $%d : 1e-17) with points "
                       "pt 7 title columnheader(%d)", c > first_diff ? ", \\\n     " : "", 2 + k, c,
                    c, c);
        if (first_diff > ncols)
            fprintf(g, "NaN notitle");
        fputc('\n', g);
    }
    fclose(g);
    if (!run_gnuplot(dir))
        return RS_EXIT_FAILED;
    printf("wrote %s/batch_0.png .. batch_%d.png (one per varied key)\n", dir, nkeys - 1);
    return RS_EXIT_OK;
}

int rs_cmd_plot(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-')
        return rs_cli_usage_error("plot: usage: relaxsim plot DIR (a directory written by "
                                  "relaxsim compare -o DIR)");
    const char *dir = argv[1];
    if (strchr(dir, '\''))
        return rs_cli_usage_error("plot: %s: a directory name with a quote is not supported", dir);
    char path[1200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *text = read_text(path);
    cJSON *summary = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        cJSON_Delete(summary);
        return rs_cli_usage_error("plot: gnuplot not found (install the Debian package gnuplot-nox)");
    }
    if (cJSON_GetObjectItem(summary, "sweep")) {
        const int code = plot_batch(dir, summary);
        cJSON_Delete(summary);
        return code;
    }
    const cJSON *name = cJSON_GetObjectItem(summary, "model");
    const rs_model *m = cJSON_IsString(name) ? rs_model_find(name->valuestring) : NULL;
    if (!m || !cJSON_GetObjectItem(summary, "shadow")) {
        cJSON_Delete(summary);
        return rs_cli_usage_error("plot: %s: no comparison here (expected summary.json written by "
                                  "relaxsim compare or relaxsim batch)", dir);
    }
    cJSON_Delete(summary);
    FILE *g = open_script(dir);
    if (!g)
        return RS_EXIT_USAGE;
    fprintf(g, "set xlabel 't (s)'\n");
    plot_group(g, m, "positions.png", "positions: NLP (solid) and Lemke (dashed)", "m", "_m");
    plot_group(g, m, "velocities.png", "velocities: NLP (solid) and Lemke (dashed)", "m/s", "_mps");
    plot_group(g, m, "forces.png", "contact forces: NLP (solid) and Lemke (dashed)", "N", NULL);
    /* per-step differences, log scale; differences below 1e-17 (zeros included) drawn at 1e-17 */
    const int ncol = m->nstate + m->nforce, verdict_col = 3 + ncol + 1;
    fprintf(g, "set output 'differences.png'\nset title 'per-step |NLP - Lemke| from the same "
               "state'\nset ylabel '|difference| (floor 1e-17)'\nset logscale y\n"
               "set yrange [1e-18:*]\nset format y '%%.0e'\nplot ");
    for (int c = 0; c < ncol; c++) {
        const char *cn = c < m->nstate ? m->state_names[c] : m->force_names[c - m->nstate];
        fprintf(g, "%s'shadow.csv' using 2:($%d > 1e-17 ? $%d : 1e-17) with lines title '%s'",
                c ? ", \\\n     " : "", 3 + c, 3 + c, cn);
    }
    fprintf(g, ", \\\n     'shadow.csv' using 2:($%d == 2 ? 1e-16 : NaN) with points pt 7 ps 0.6 "
               "lc rgb 'orange' title 'mode mismatch'", verdict_col);
    fprintf(g, ", \\\n     'shadow.csv' using 2:($%d >= 3 ? 1e-15 : NaN) with points pt 2 ps 0.8 "
               "lc rgb 'red' title 'failed step'\n", verdict_col);
    fclose(g);
    if (!run_gnuplot(dir))
        return RS_EXIT_FAILED;
    printf("wrote %s/{positions,velocities,forces,differences}.png\n", dir);
    return RS_EXIT_OK;
}
