/*
 * cmd_plot.c: `relaxsim plot DIR`: renders a comparison written by `relaxsim compare -o DIR` to
 * PNG files with gnuplot: positions.png, velocities.png, forces.png (both backends overlaid:
 * NLP solid, Lemke dashed) and differences.png (per-step |NLP - Lemke| on a log scale, with failed
 * steps and mode mismatches marked). The gnuplot script is kept as DIR/plot.gp.
 * For a batch directory (relaxsim batch -o DIR): batch_K.png, the worst per-step difference of
 * each run against the K-th varied key.
 * Exit 0 on success, 1 if gnuplot failed, 2 for bad usage, a directory without results or
 * results that are not relaxsim's (each CSV is checked first), or a scene file that is gone.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/plot_bodies.h"
#include "cli/plot_palette.h"
#include "cli/plot_scene.h"
#include "cli/plot_script.h"
#include "io/batch_summary.h"
#include "io/ini_entries.h"
#include "io/output.h"
#include "io/scene_file.h"
#include "models/registry.h"
#include "sim/model.h"


static const char *column_name(const rs_model *m, int c)
{
    return c < m->nstate ? m->state_names[c] : m->force_names[c - m->nstate];
}

/* How many of the model's state and force columns are in unit u (plot_palette.h). */
static int columns_in_unit(const rs_model *m, int u)
{
    int n = 0;
    for (int c = 0; c < m->nstate + m->nforce; c++)
        n += rs_plot_column_unit(column_name(m, c)) == u;
    return n;
}

/* Above this many columns in one panel (a scene of many bodies: the pile's 48 force columns) the
 * legend names the kinds of column, one entry each, instead of covering the panel. */
#define LEGEND_MAX_COLUMNS 8

/* The plot command of every column in unit u, both backends: a column's colour is its own
 * (rs_plot_column_colour), NLP solid, Lemke dashed in a darker shade at half the width. */
static void plot_columns(FILE *g, const rs_model *m, int u)
{
    const int many = columns_in_unit(m, u) > LEGEND_MAX_COLUMNS;
    if (many) /* (a few entries: inside, the panel at full width; restored below) */
        fprintf(g, "set key inside top right opaque\n");
    fprintf(g, "plot ");
    const char *kinds[LEGEND_MAX_COLUMNS]; /* with many: the kinds of column ("fx_N") */
    int nkinds = 0, first = 1, drawn = 0;
    for (int c = 0; c < m->nstate + m->nforce; c++) {
        if (rs_plot_column_unit(column_name(m, c)) != u)
            continue;
        const int csv_col = 3 + m->ninput + c; /* gnuplot columns are 1-based: step, t_s, inputs */
        const char *colour = rs_plot_column_colour(column_name(m, c));
        /* each column drawn thinner than the one before: equal curves show as a line inside a
         * wider one instead of one hiding the other */
        const double lw = many ? 1.5 : fmax(1.5, 4.0 - 1.0 * drawn++);
        char dark[8]; /* Lemke: the same hue darker, dashed, half as wide, inside the NLP line */
        rs_plot_colour_darker(colour, dark);
        char nlp[200], lemke[200], text[160];
        snprintf(text, sizeof text, "%s NLP", column_name(m, c));
        rs_gnuplot_string(nlp, sizeof nlp, text);
        snprintf(text, sizeof text, "%s Lemke", column_name(m, c));
        rs_gnuplot_string(lemke, sizeof lemke, text);
        if (many) {
            const char *dot = strchr(column_name(m, c), '.');
            const char *kind = dot ? dot + 1 : column_name(m, c);
            int known = 0;
            for (int k = 0; k < nkinds; k++)
                known |= strcmp(kinds[k], kind) == 0;
            if (!known && nkinds < LEGEND_MAX_COLUMNS)
                kinds[nkinds++] = kind;
            snprintf(nlp, sizeof nlp, "notitle");
            snprintf(lemke, sizeof lemke, "notitle");
        }
        fprintf(g, "%s'trajectory_nlp.csv' using 2:%d with lines lw %.1f lc rgb '%s' %s%s, "
                   "'trajectory_lemke.csv' using 2:%d with lines dt (8,6) lw %.1f lc rgb '%s' "
                   "%s%s",
                first ? "" : ", \\\n     ", csv_col, lw, colour, many ? "" : "title ", nlp,
                csv_col, 0.5 * lw, dark, many ? "" : "title ", lemke);
        first = 0;
    }
    for (int k = 0; k < nkinds; k++) { /* the legend of many columns: a kind's colour, once */
        char text[160], title[200];
        snprintf(text, sizeof text, "%s of every body: NLP solid, Lemke dashed", kinds[k]);
        fprintf(g, ", \\\n     NaN with lines lw 2 lc rgb '%s' title %s",
                rs_plot_column_colour(kinds[k]), rs_gnuplot_string(title, sizeof title, text));
    }
    if (first)
        fprintf(g, "NaN notitle");
    fputc('\n', g);
    if (many) /* (the key of a scene of bodies' panels, plot_group_by_body) */
        fprintf(g, "set key default\nset key outside right\n");
}

/* The title of a panel of unit u: "angles: NLP (solid) and Lemke (dashed)". */
static void panel_title(FILE *g, int u, const char *more)
{
    const char *label = rs_plot_unit_label[u], *paren = strstr(label, " (");
    fprintf(g, "set title '%.*s%s: NLP (solid) and Lemke (dashed)'\n",
            paren ? (int)(paren - label) : (int)strlen(label), label, more);
}

/* A column of a scene of bodies, "box1.x_m": the body's part ("box1", len) and the kind
 * ("x_m"); 0 for a column without a body. */
static int body_column(const char *name, size_t *len, const char **kind)
{
    const char *dot = strchr(name, '.');
    if (!dot)
        return 0;
    *len = (size_t)(dot - name);
    *kind = dot + 1;
    return 1;
}

/* The index of column c's body among the state's bodies (in the order they come), -1 none. */
static int body_index(const rs_model *m, int c)
{
    size_t len, l2;
    const char *kind, *k2;
    if (!body_column(column_name(m, c), &len, &kind))
        return -1;
    int b = -1;
    for (int s = 0; s < m->nstate; s++) {
        const char *name = m->state_names[s];
        if (!body_column(name, &l2, &k2))
            continue;
        /* a new body where the name's body part differs from the previous column's */
        if (s == 0 || strncmp(name, m->state_names[s - 1], l2 + 1) != 0)
            b++;
        if (l2 == len && strncmp(name, column_name(m, c), len) == 0)
            return b;
    }
    return -1;
}

/* A scene of more than one body (columns "BODY.kind"). */
static int several_bodies(const rs_model *m)
{
    return m->nstate > 0 && body_index(m, m->nstate - 1) > 0;
}

/* One panel of a scene of bodies: the columns of one kind ("x_m"), a colour per body (the
 * palette in the scene's order, as bodies.png), NLP solid with the body's name, Lemke dashed in
 * the darker hue. */
static void plot_kind_by_body(FILE *g, const rs_model *m, const char *kind)
{
    fprintf(g, "plot ");
    int first = 1;
    for (int c = 0; c < m->nstate + m->nforce; c++) {
        size_t len;
        const char *k;
        if (!body_column(column_name(m, c), &len, &k) || strcmp(k, kind) != 0)
            continue;
        const int b = body_index(m, c);
        const char *colour = rs_plot_palette[(b < 0 ? 0 : b) % RS_PLOT_PALETTE_SIZE];
        char dark[8], title[200], text[160];
        rs_plot_colour_darker(colour, dark);
        snprintf(text, sizeof text, "%.*s", (int)len, column_name(m, c));
        rs_gnuplot_string(title, sizeof title, text);
        const int csv_col = 3 + m->ninput + c;
        fprintf(g, "%s'trajectory_nlp.csv' using 2:%d with lines lw 2.5 lc rgb '%s' title %s, "
                   "'trajectory_lemke.csv' using 2:%d with lines dt (8,6) lw 1.2 lc rgb '%s' "
                   "notitle",
                first ? "" : ", \\\n     ", csv_col, colour, title, csv_col, dark);
        first = 0;
    }
    if (first)
        fprintf(g, "NaN notitle");
    fputc('\n', g);
}

/* positions.png or velocities.png of a scene of bodies: a panel per kind of column (x, z, theta;
 * their rates), a colour per body. */
static void plot_group_by_body(FILE *g, const rs_model *m, const char *png, int u1, int u2)
{
    const char *kinds[3][2] = {{"x_m", "xd_mps"}, {"z_m", "zd_mps"}, {"theta_rad", "thetad_radps"}};
    const int rates = u1 == 1;
    fprintf(g, "set output '%s'\nset terminal pngcairo noenhanced size 1100,1200 font ',11'\n"
               "unset logscale y\nset yrange [*:*]\nset format y '%%g'\n"
               "set key outside right top maxrows 26 font ',9'\nset multiplot layout 3,1\n",
            png);
    for (int k = 0; k < 3; k++) {
        const int u = k < 2 ? u1 : u2;
        const char *kind = kinds[k][rates], *unit = strrchr(kind, '_'); /* "xd", "_mps" */
        const char *paren = strstr(rs_plot_unit_label[u], " ("); /* " (m/s)" */
        fprintf(g, "set title '%.*s of each body: NLP (solid) and Lemke (dashed, darker)'\n"
                   "set ylabel '%.*s%s'\n",
                (int)(unit - kind), kind, (int)(unit - kind), kind, paren ? paren : "");
        plot_kind_by_body(g, m, kinds[k][rates]);
    }
    fprintf(g, "unset multiplot\nset key default\nset key outside right\n"
               "set terminal pngcairo noenhanced size 1100,650 font ',11'\n");
}

/* positions.png or velocities.png: a panel per unit the model has (lengths, then angles); a scene
 * of several bodies, a panel per kind of column with a colour per body. */
static void plot_group(FILE *g, const rs_model *m, const char *png, int u1, int u2)
{
    if (several_bodies(m)) {
        plot_group_by_body(g, m, png, u1, u2);
        return;
    }
    const int panels = (columns_in_unit(m, u1) > 0) + (columns_in_unit(m, u2) > 0);
    fprintf(g, "set output '%s'\nset terminal pngcairo noenhanced size 1100,%d font ',11'\n"
               "unset logscale y\nset yrange [*:*]\nset format y '%%g'\n",
            png, panels > 1 ? 900 : 650);
    if (panels > 1)
        fprintf(g, "set multiplot layout 2,1\n");
    const int units[2] = {u1, u2};
    for (int k = 0; k < 2; k++) {
        if (!columns_in_unit(m, units[k]) && (panels > 0 || k > 0))
            continue;
        panel_title(g, units[k], "");
        fprintf(g, "set ylabel '%s'\n", rs_plot_unit_label[units[k]]);
        plot_columns(g, m, units[k]);
    }
    if (panels > 1)
        fprintf(g, "unset multiplot\n");
    fprintf(g, "set terminal pngcairo noenhanced size 1100,650 font ',11'\n");
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The forces of trajectory_nlp.csv: the time and size of the largest one (the impact), and the
 * 2nd and 98th percentiles of every force value (the sustained forces: weight, friction). */
typedef struct force_range {
    double impact_t, impact_size, lo, hi;
    double impact_value; /* the impact's force with its sign (impact_size is its size) */
    int ok;
} force_range;

static force_range read_force_range(const char *dir, const rs_model *m)
{
    force_range fr = {0.0, 0.0, 0.0, 0.0, 0.0, 0};
    char path[1200], line[4096];
    snprintf(path, sizeof path, "%s/trajectory_nlp.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(line, sizeof line, f)) {
        if (f)
            fclose(f);
        return fr;
    }
    size_t cap = 4096, n = 0;
    double *v = malloc(sizeof(double) * cap);
    const int first_force = 2 + m->ninput + m->nstate; /* 0-based column of the first force */
    int ok_read = 1;
    while (v && ok_read && fgets(line, sizeof line, f)) {
        int col = 0;
        double t = 0.0;
        for (char *tok = strtok(line, ","); tok; tok = strtok(NULL, ","), col++) {
            if (col == 1)
                t = strtod(tok, NULL);
            if (col < first_force || col >= first_force + m->nforce)
                continue;
            const double x = strtod(tok, NULL);
            if (!isfinite(x))
                continue;
            if (fabs(x) > fr.impact_size) {
                fr.impact_size = fabs(x);
                fr.impact_value = x;
                fr.impact_t = t;
            }
            if (n == cap) {
                double *more = realloc(v, sizeof(double) * 2 * cap);
                if (!more) { /* out of memory: the percentiles of what was read */
                    ok_read = 0;
                    break;
                }
                v = more;
                cap *= 2;
            }
            v[n++] = x;
        }
    }
    fclose(f);
    if (v && n > 0) {
        qsort(v, n, sizeof *v, cmp_double);
        fr.lo = v[(size_t)(0.02 * (double)(n - 1))];
        fr.hi = v[(size_t)(0.98 * (double)(n - 1))];
        fr.ok = 1;
    }
    free(v);
    return fr;
}

/* forces.png: two panels when an impact dwarfs the sustained forces: the full range with the
 * impact marked, and the sustained forces (2nd to 98th percentile of all force values). */
static void plot_forces(FILE *g, const rs_model *m, const char *dir)
{
    const force_range fr = read_force_range(dir, m);
    const double span = fr.hi - fr.lo, margin = span > 0.0 ? 0.25 * span : 1.0;
    const int zoom = fr.ok && fr.impact_size > 3.0 * fmax(fabs(fr.lo), fabs(fr.hi)) + 1e-300;
    const int torques = columns_in_unit(m, 5) > 0; /* bodies: a panel of their own */
    fprintf(g, "set output 'forces.png'\nunset logscale y\nset format y '%%g'\nset ylabel 'N'\n");
    if (!zoom) {
        if (torques)
            fprintf(g, "set terminal pngcairo noenhanced size 1100,900 font ',11'\n"
                       "set multiplot layout 2,1\n");
        fprintf(g, "set title 'contact forces: NLP (solid) and Lemke (dashed)'\nset yrange [*:*]\n");
        plot_columns(g, m, 2);
        if (torques) {
            panel_title(g, 5, " about the centres of mass");
            fprintf(g, "set ylabel 'N m'\n");
            plot_columns(g, m, 5);
            fprintf(g, "unset multiplot\n"
                       "set terminal pngcairo noenhanced size 1100,650 font ',11'\n");
        }
        return;
    }
    fprintf(g, "set terminal pngcairo noenhanced size 1100,%d font ',11'\n"
               "set multiplot layout %d,1\n"
               "set title 'contact forces, full range: NLP (solid) and Lemke (dashed); impact at "
               "t = %.6g s, %.6g N'\nset yrange [*:*]\n"
               "set arrow 1 from %.17g, graph 0 to %.17g, graph 1 nohead dt 3 lc rgb 'gray40'\n",
               torques ? 1200 : 900, torques ? 3 : 2, fr.impact_t, fr.impact_value, fr.impact_t,
               fr.impact_t);
    plot_columns(g, m, 2);
    fprintf(g, "set title 'contact forces, sustained range (2nd to 98th percentile of all force "
               "values; the impact is off scale)'\nset yrange [%.17g:%.17g]\n",
            fr.lo - margin, fr.hi + margin);
    plot_columns(g, m, 2);
    if (torques) {
        fprintf(g, "unset arrow 1\nset yrange [*:*]\nset ylabel 'N m'\n");
        panel_title(g, 5, " about the centres of mass");
        plot_columns(g, m, 5);
    }
    fprintf(g, "unset multiplot\nunset arrow 1\nset terminal pngcairo noenhanced size 1100,650 font ',11'\n");
}

/* A batch kept with --keep (DIR/runs/<run>/) of a model with obstacles: scene.png with every
 * kept run's paths, one colour per run, labelled by its varied keys. 0 if there is none. The
 * scene is the one each run's summary.json carries (scene_text); runs on another scene than the
 * first run's are left out. */
static int batch_scene(FILE *g, rs_outset *set, const char *dir, const cJSON *summary)
{
    static rs_plot_run runs[RS_PLOT_MAX_RUNS];
    int n = 0;
    char *scene = NULL, model[64] = "";
    int other_scene = 0; /* runs on another scene than the first run's: left out */
    const cJSON *results = cJSON_GetObjectItem(summary, "results");
    int beyond = 0; /* runs past RS_PLOT_MAX_RUNS: not drawn */
    for (const cJSON *o = results ? results->child : NULL; o; o = o->next) {
        if (n == RS_PLOT_MAX_RUNS) {
            beyond++;
            continue;
        }
        const cJSON *run = cJSON_GetObjectItem(o, "run");
        if (!cJSON_IsNumber(run) || !(run->valuedouble >= 0 && run->valuedouble < 1e9))
            continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/runs/%ld/summary.json", dir, (long)run->valuedouble);
        cJSON *rs = rs_read_json_file(path);
        const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(rs, "scene_text"));
        if (text && scene && strcmp(text, scene) != 0) {
            other_scene++; /* drawn over the first run's scene, its path would mean nothing */
        } else if (text) {
            if (!scene) {
                scene = strdup(text);
                const cJSON *m = cJSON_GetObjectItem(rs, "model");
                snprintf(model, sizeof model, "%s", cJSON_IsString(m) ? m->valuestring : "?");
            }
            rs_plot_run *p = &runs[n++];
            const cJSON *rr = cJSON_GetObjectItem(cJSON_GetObjectItem(rs, "params"), "r");
            p->radius = cJSON_IsNumber(rr) ? rr->valuedouble : 0.0;
            snprintf(p->nlp, sizeof p->nlp, "runs/%ld/trajectory_nlp.csv", (long)run->valuedouble);
            snprintf(p->lemke, sizeof p->lemke, "runs/%ld/trajectory_lemke.csv",
                     (long)run->valuedouble);
            p->label[0] = '\0';
            const cJSON *params = cJSON_GetObjectItem(o, "params");
            for (const cJSON *k = params ? params->child : NULL; k; k = k->next) {
                char value[64];
                if (cJSON_IsString(k))
                    snprintf(value, sizeof value, "%s", k->valuestring);
                else
                    snprintf(value, sizeof value, "%g", k->valuedouble);
                const size_t len = strlen(p->label);
                snprintf(p->label + len, sizeof p->label - len, "%s%s=%s", len ? " " : "",
                         k->string ? k->string : "?", value);
            }
        }
        cJSON_Delete(rs);
    }
    const rs_model *m = rs_model_find(model);
    if (n > 0 && m && m->instantiate) { /* bodies: paths of centres over one scene say little */
        fprintf(stderr, "relaxsim: plot: no scene.png for a batch of bodies runs: `relaxsim "
                        "compare` a run's scenario for its pictures and animation\n");
        n = 0;
    }
    if (n == 0) {
        free(scene);
        return 0;
    }
    char title[320];
    snprintf(title, sizeof title,
             "%s, %d runs: NLP solid, Lemke dashed, one colour per run; a dot where each ends%s",
             model, n, other_scene ? " (runs on other scenes left out)" : "");
    if (other_scene)
        fprintf(stderr, "relaxsim: plot: scene.png shows the %d runs on the first run's scene; %d "
                        "runs on other scenes are left out\n", n, other_scene);
    if (beyond)
        fprintf(stderr, "relaxsim: plot: scene.png shows the first %d runs; %d more are left out\n",
                n, beyond);
    if (n > RS_PLOT_PALETTE_SIZE)
        fprintf(stderr, "relaxsim: plot: scene.png has %d runs and %d colours: colours repeat (the "
                        "legend names each run)\n", n, RS_PLOT_PALETTE_SIZE);
    const int drawn = rs_plot_scene(g, set, dir, scene, 0, title, runs, n);
    free(scene);
    return drawn;
}

/* A batch: the worst shadow difference of each run against each varied key (results.csv:
 * run, the keys, outcome, nlp_failed_steps, mode_agreement, then one shadow_max_abs_<column>
 * column per state and force column). One picture per key, one panel per unit (m, m/s, N: never
 * two units on one axis); overlapping runs at one key value are spread sideways (jitter);
 * differences that are exactly 0 get their own marker at the floor of the log axis. */
static int check_results_csv(const char *dir, const char *name);

static int plot_batch(const char *dir, const cJSON *summary, rs_outset *set, char *wrote,
                      size_t wrote_len)
{
    if (!check_results_csv(dir, "results.csv"))
        return RS_EXIT_USAGE;
    const cJSON *keys = cJSON_GetObjectItem(summary, "keys");
    const int nkeys = cJSON_GetArraySize(keys);
    for (const cJSON *key = keys ? keys->child : NULL; key; key = key->next)
        if (!cJSON_IsString(key))
            return rs_cli_usage_error("plot: %s/summary.json: keys: expected the names of the "
                                      "varied keys (strings)", dir);
    if (!cJSON_IsArray(keys) || nkeys < 1 || nkeys > RS_PLOT_MAX_KEYS)
        return rs_cli_usage_error("plot: %s/summary.json: keys: expected 1 to %d varied keys", dir,
                                  RS_PLOT_MAX_KEYS);
    char path[1200], header[4096] = "";
    snprintf(path, sizeof path, "%s/results.csv", dir);
    FILE *csv = fopen(path, "r");
    if (!csv || !fgets(header, sizeof header, csv)) {
        if (csv)
            fclose(csv);
        return rs_cli_usage_error("plot: %s: cannot read", path);
    }
    fclose(csv);
    header[strcspn(header, "\r\n")] = '\0';
    /* the unit of each shadow column (plot_palette.h), and whether it has a positive value and
     * an exact 0 somewhere (a legend lists only what is drawn) */
    int col_unit[256], ncols = 0;
    unsigned char positive[256] = {0}, zero[256] = {0};
    char names[256][64];
    for (char *tok = strtok(header, ","); tok && ncols < 256; tok = strtok(NULL, ",")) {
        col_unit[ncols] = strncmp(tok, "shadow_max_abs_", 15) == 0 ? rs_plot_column_unit(tok) : -1;
        snprintf(names[ncols], sizeof names[0], "%s", tok);
        ncols++;
    }
    csv = fopen(path, "r");
    static char row[1 << 16];
    for (int line = 0; csv && fgets(row, sizeof row, csv); line++) {
        if (line == 0)
            continue;
        int c = 0; /* fields, empty ones included */
        for (char *field = row; field && c < ncols; c++) {
            char *comma = strchr(field, ',');
            if (col_unit[c] >= 0 && *field != ',' && *field != '\n' && *field) {
                const double v = strtod(field, NULL);
                positive[c] |= v > 0.0;
                zero[c] |= v == 0.0;
            }
            field = comma ? comma + 1 : NULL;
        }
    }
    if (csv)
        fclose(csv);
    FILE *g = rs_plot_open_script(set);
    if (!g)
        return RS_EXIT_USAGE;
    int units_drawn[RS_PLOT_UNITS], npanels = 0; /* one panel per unit the columns have */
    for (int u = 0; u < RS_PLOT_UNITS; u++) {
        int any = 0;
        for (int c = 0; c < ncols; c++)
            any |= col_unit[c] == u;
        if (any)
            units_drawn[npanels++] = u;
    }
    fprintf(g, "set terminal pngcairo noenhanced size 1100,%d font ',11'\n"
               "set logscale y\nset format y '%%.0e'\nset jitter overlap 1 spread 0.6\n"
               "set offsets graph 0.06, graph 0.06, graph 0.08, graph 0.08\n"
               "set lmargin at screen 0.1\nset rmargin at screen 0.74\nset key outside right top\n",
            200 + 280 * (npanels > 0 ? npanels : 1));
    int k = 0;
    const cJSON *choices = cJSON_GetObjectItem(summary, "choices");
    char pictures[RS_PLOT_MAX_KEYS + 1][32];
    const char *picture_names[RS_PLOT_MAX_KEYS + 1];
    for (const cJSON *key = keys->child; key; key = key->next, k++) {
        char title[400], text[300], xlabel[200];
        snprintf(text, sizeof text, "worst per-step |NLP - Lemke| of each run against %s (runs at "
                 "one value spread sideways)", key->valuestring);
        snprintf(pictures[k], sizeof pictures[k], "batch_%d.png", k);
        picture_names[k] = pictures[k];
        fprintf(g, "set output '%s'\nset multiplot layout %d,1 title %s\nset xlabel %s\n",
                pictures[k], npanels > 0 ? npanels : 1,
                rs_gnuplot_string(title, sizeof title, text),
                rs_gnuplot_string(xlabel, sizeof xlabel, key->valuestring));
        /* a key of words (model.formulation): categories at 0, 1, ..., the word as tick label */
        const cJSON *words = cJSON_GetObjectItem(choices, key->valuestring);
        char xexpr[64];
        snprintf(xexpr, sizeof xexpr, "%d", 2 + k);
        if (cJSON_IsArray(words)) {
            char word_text[200], csv_text[RS_SWEEP_WORD_LEN]; /* (results.csv's form of it) */
            fprintf(g, "word_%d(s) = ", k);
            int w = 0;
            for (const cJSON *word = words->child; word; word = word->next, w++)
                if (cJSON_IsString(word))
                    fprintf(g, "s eq %s ? %d : ",
                            rs_gnuplot_string(word_text, sizeof word_text,
                                              rs_results_csv_text(word->valuestring, csv_text,
                                                                  sizeof csv_text)),
                            w);
            fprintf(g, "NaN\nset xtics (");
            w = 0;
            for (const cJSON *word = words->child; word; word = word->next, w++)
                if (cJSON_IsString(word))
                    fprintf(g, "%s%s %d", w ? ", " : "",
                            rs_gnuplot_string(word_text, sizeof word_text,
                                              rs_results_csv_text(word->valuestring, csv_text,
                                                                  sizeof csv_text)),
                            w);
            fprintf(g, ")\nset xrange [-0.5:%d.5]\n", w - 1);
            snprintf(xexpr, sizeof xexpr, "(word_%d(strcol(%d)))", k, 2 + k);
        } else {
            fprintf(g, "set xtics autofreq\nset xrange [*:*]\n");
        }
        for (int p = 0; p < npanels; p++) {
            const int u = units_drawn[p];
            fprintf(g, "set title '%s'\nset ylabel '|difference| (0 at 1e-17)'\nunset label 1\n",
                    rs_plot_unit_label[u]);
            int any = 0, drawn = 0;
            for (int c = 0; c < ncols; c++) {
                if (col_unit[c] != u || !(positive[c] || zero[c]))
                    continue;
                const int gc = c + 1;
                const char *colour = rs_plot_column_colour(names[c]);
                /* each column its own mark, each smaller than the one before: columns with the
                 * same value at one key value show as marks inside marks */
                static const int marks[][2] = {{7, 6}, {5, 4}, {9, 8}, {11, 10}, {13, 12}};
                const int mark = drawn % 5;
                const double size = fmax(0.6, 1.6 - 0.3 * drawn++);
                char name[140], zero_title[160];
                snprintf(text, sizeof text, "%s = 0 exactly", names[c] + 15);
                if (positive[c]) {
                    fprintf(g, "%s'results.csv' every ::1 using %s:($%d > 0 ? ($%d > 1e-17 ? $%d "
                               ": 1e-17) : NaN) with points pt %d ps %.2f lc rgb '%s' title %s",
                            any ? ", \\\n     " : "plot ", xexpr, gc, gc, gc, marks[mark][0],
                            size, colour, rs_gnuplot_string(name, sizeof name, names[c] + 15));
                    any = 1;
                }
                if (zero[c]) {
                    fprintf(g, "%s'results.csv' every ::1 using %s:($%d == 0 ? 1e-17 : NaN) with "
                               "points pt %d ps %.2f lc rgb '%s' title %s",
                            any ? ", \\\n     " : "plot ", xexpr, gc, marks[mark][1],
                            size + 0.3, colour, rs_gnuplot_string(zero_title, sizeof zero_title,
                                                                  text));
                    any = 1;
                }
            }
            if (!any)
                fprintf(g, "set label 1 'no run has a value here' at graph 0.5, graph 0.5 "
                           "center\nplot NaN notitle");
            fputc('\n', g);
        }
        fprintf(g, "unset multiplot\n");
    }
    const int with_scene = batch_scene(g, set, dir, summary);
    int npictures = nkeys;
    if (with_scene)
        picture_names[npictures++] = "scene.png";
    if (!rs_plot_run_gnuplot(set, g, picture_names, npictures))
        return RS_EXIT_FAILED;
    if (nkeys == 1)
        snprintf(wrote, wrote_len, "wrote %s/batch_0.png%s\n", dir,
                 with_scene ? " and scene.png (one colour per run)" : "");
    else
        snprintf(wrote, wrote_len, "wrote %s/batch_0.png .. batch_%d.png (one per varied key)%s\n",
                 dir, nkeys - 1, with_scene ? " and scene.png (one colour per run)" : "");
    return RS_EXIT_OK;
}

/* A field of a results CSV: 1 a number (nan and inf included: a failed step's state), 2 a word
 * (a mode, a status, a verdict), 3 empty (a batch run without results), 0 none of these. */
static int field_kind(const char *f, size_t len)
{
    char buf[64];
    if (len == 0)
        return 3;
    if (len >= sizeof buf)
        return 0;
    memcpy(buf, f, len);
    buf[len] = '\0';
    double v;
    if (rs_parse_real(buf, &v) != 0)
        return 1;
    /* a mode, a status, a sweep's word (l1, egan_simple) or text ("1; 3": rs_results_csv_text) */
    for (size_t i = 0; i < len; i++)
        if (!(isalnum((unsigned char)buf[i]) || strchr("_+-.; ", buf[i])))
            return 0;
    return 2;
}

/* DIR/name as compare or batch writes it: present, a header and at least one row, every row
 * with the header's number of fields, each column numbers or words throughout (empty fields
 * aside). 0
 * (message naming file, line and column printed) otherwise: gnuplot would draw it wrong or
 * fail without saying where. */
static int check_results_csv(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = rs_read_text_file(path);
    if (!text)
        return rs_cli_usage_error("plot: %s: missing or unreadable (relaxsim compare writes it)",
                                  path),
               0;
    int ok = 1, line = 0, nfields = 0;
    int kinds[64] = {0};
    for (char *row = text; ok && *row;) {
        char *end = strchr(row, '\n');
        const size_t len = end ? (size_t)(end - row) : strlen(row);
        line++;
        int k = 0;
        for (size_t start = 0, i = 0; ok && i <= len; i++) {
            if (i < len && row[i] != ',')
                continue;
            if (line > 1) {
                const int kind = field_kind(row + start, i - start);
                if (k < 64 && kind != 3 && !kinds[k])
                    kinds[k] = kind; /* the column's first non-empty field decides */
                if (!kind || (k < 64 && kind != 3 && kind != kinds[k])) {
                    rs_cli_usage_error("plot: %s:%d: column %d: '%.*s' is not a %s", path, line,
                                       k + 1, (int)(i - start < 40 ? i - start : 40), row + start,
                                       k < 64 && kinds[k] == 2 ? "word" : "number");
                    ok = 0;
                }
            }
            k++;
            start = i + 1;
        }
        if (ok && line == 1)
            nfields = k;
        else if (ok && k != nfields) {
            rs_cli_usage_error("plot: %s:%d: %d fields, the header has %d", path, line, k, nfields);
            ok = 0;
        }
        row = end ? end + 1 : row + len;
    }
    if (ok && line < 2) {
        rs_cli_usage_error("plot: %s: no rows", path);
        ok = 0;
    }
    free(text);
    return ok;
}

/* From shadow.csv: which difference columns have a nonzero value somewhere, and how many steps
 * had mismatched modes or a failed solve. */
typedef struct shadow_scan {
    unsigned char *nonzero; /* ncol, owned (NULL: none read) */
    long mismatched, failed;
    double t0, t1; /* the first and last step's time */
} shadow_scan;

static shadow_scan scan_shadow(const char *dir, int ncol)
{
    shadow_scan sc;
    memset(&sc, 0, sizeof sc);
    char path[1200], *line = NULL;
    size_t cap = 0;
    snprintf(path, sizeof path, "%s/shadow.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f || !(sc.nonzero = calloc((size_t)ncol + 1, 1))) {
        if (f)
            fclose(f);
        return sc;
    }
    long rows = 0;
    if (getline(&line, &cap, f) > 0)
        while (getline(&line, &cap, f) > 0) {
            int col = 0; /* 0-based: step, t_s, the differences, verdict, verdict_code, ... */
            for (char *tok = strtok(line, ","); tok; tok = strtok(NULL, ","), col++) {
                if (col == 1) {
                    const double t = strtod(tok, NULL);
                    if (rows++ == 0)
                        sc.t0 = t;
                    sc.t1 = t;
                }
                if (col >= 2 && col < 2 + ncol)
                    sc.nonzero[col - 2] |= strtod(tok, NULL) != 0.0;
                if (col == 3 + ncol) {
                    const long code = strtol(tok, NULL, 10);
                    sc.mismatched += code == 2;
                    sc.failed += code == 3 || code == 4;
                }
            }
        }
    free(line);
    fclose(f);
    return sc;
}

/* differences.png: the per-step |NLP - Lemke| from the same state, one log panel per unit (a
 * metre and a newton never share an axis), each column in its own colour; exact zeros drawn at
 * the floor 1e-17; a column that is exactly 0 at every step is named in its panel's title, not
 * drawn (no legend entry without points), and a panel whose columns all are says so in words.
 * Below them, the steps with mismatched modes or a failed solve. */
static void plot_differences(FILE *g, const rs_model *m, const char *dir)
{
    const int ncol = m->nstate + m->nforce, verdict_col = 3 + ncol + 1;
    const shadow_scan scan = scan_shadow(dir, ncol);
    if (!scan.nonzero)
        return; /* no shadow.csv (or no memory): no differences to draw */
    int units[RS_PLOT_UNITS], npanels = 0;
    for (int u = 0; u < RS_PLOT_UNITS; u++)
        if (columns_in_unit(m, u))
            units[npanels++] = u;
    const int height = 260 + 230 * npanels;
    const double top = 0.95, strip = 150.0 / height, bottom = 0.06 + strip + 40.0 / height;
    const double h = (top - bottom) / npanels;
    fprintf(g, "set output 'differences.png'\nset terminal pngcairo noenhanced size 1100,%d "
               "font ',11'\nset multiplot\nset lmargin at screen 0.12\nset rmargin at screen "
               "0.78\nunset xlabel\nset format x ''\nset logscale y\nset format y '%%.0e'\n"
               "set key outside right top\nset xrange [%.17g:%.17g]\n", height, scan.t0,
            scan.t1 > scan.t0 ? scan.t1 : scan.t0 + 1.0);
    for (int p = 0; p < npanels; p++) {
        const int u = units[p];
        char zero[600] = "", title[800], quoted[900];
        int drawn = 0, len = 0, nzero = 0;
        for (int c = 0; c < ncol; c++)
            if (rs_plot_column_unit(column_name(m, c)) == u && !scan.nonzero[c]) {
                nzero++;
                if (len < (int)sizeof zero) /* (snprintf says what it would have written) */
                    len += snprintf(zero + len, sizeof zero - (size_t)len, "%s%s", len ? ", " : "",
                                    column_name(m, c));
            }
        if (nzero > 6 || len >= (int)sizeof zero) /* more than a title shows (a pile): a count */
            snprintf(zero, sizeof zero, "%d columns", nzero);
        snprintf(title, sizeof title, "%s%s%s%s", p == 0 ? "per-step |NLP - Lemke| from the same "
                 "state: " : "", rs_plot_unit_label[u], zero[0] ? "; exactly 0 at every step: " :
                 "", zero);
        fprintf(g, "set tmargin at screen %.4f\nset bmargin at screen %.4f\nset title %s\n"
                   "set ylabel '|difference| (0 at 1e-17)'\nset yrange [1e-18:*]\nunset label 1\n",
                top - p * h, top - (p + 1) * h + 0.045, rs_gnuplot_string(quoted, sizeof quoted,
                                                                          title));
        for (int c = 0; c < ncol; c++)
            drawn += rs_plot_column_unit(column_name(m, c)) == u && scan.nonzero[c];
        if (!drawn) {
            fprintf(g, "set label 1 'NLP and Lemke agree exactly (every difference is 0)' at "
                       "graph 0.5, graph 0.5 center\nset yrange [1e-18:1]\nplot NaN notitle\n");
            continue;
        }
        fprintf(g, "plot ");
        int first = 1, k = 0;
        for (int c = 0; c < ncol; c++) {
            if (rs_plot_column_unit(column_name(m, c)) != u || !scan.nonzero[c])
                continue;
            char name[140]; /* each thinner than the one before: none hides another */
            fprintf(g, "%s'shadow.csv' using 2:($%d > 1e-17 ? $%d : 1e-17) with lines lw %.1f "
                       "lc rgb '%s' title %s",
                    first ? "" : ", \\\n     ", 3 + c, 3 + c, fmax(1.0, 3.0 - k++),
                    rs_plot_column_colour(column_name(m, c)),
                    rs_gnuplot_string(name, sizeof name, column_name(m, c)));
            first = 0;
        }
        fputc('\n', g);
    }
    char strip_title[200];
    snprintf(strip_title, sizeof strip_title, "steps with mismatched modes (%ld) or a failed solve "
             "(%ld)", scan.mismatched, scan.failed);
    fprintf(g, "set tmargin at screen %.4f\nset bmargin at screen 0.06\nset title '%s'\n"
               "unset label 1\nset format x '%%g'\nset xlabel 't (s)'\nunset logscale y\n"
               "set format y '%%g'\nset ylabel ''\nset yrange [0.5:2.5]\nset ytics "
               "('mode mismatch' 1, 'failed step' 2)\nset key off\n",
            0.06 + strip, strip_title);
    if (scan.mismatched + scan.failed == 0)
        fprintf(g, "set label 1 'none: every step solved both ways, with the same modes' at graph "
                   "0.5, graph 0.5 center\nplot NaN notitle\n");
    else
        fprintf(g, "plot 'shadow.csv' using 2:($%d == 2 ? 1 : NaN) with points pt 7 ps 0.7 "
                   "lc rgb 'orange' notitle, \\\n"
                   "     'shadow.csv' using 2:($%d == 3 || $%d == 4 ? 2 : NaN) with points pt 2 "
                   "ps 0.9 lc rgb 'red' notitle\n",
                verdict_col, verdict_col, verdict_col);
    fprintf(g, "unset multiplot\nunset label 1\nset ytics autofreq\nset key outside right\n"
               "set autoscale xy\nset lmargin -1\nset rmargin -1\nset tmargin -1\n"
               "set bmargin -1\n");
    free(scan.nonzero);
}

/* The scenario's file name without its directory and .ini (summary.json's scenario), in buf. */
static const char *scenario_name(const cJSON *summary, char *buf, size_t len)
{
    const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(summary, "scenario"));
    const char *base = path ? strrchr(path, '/') : NULL;
    snprintf(buf, len, "%s", base ? base + 1 : path ? path : "bodies");
    char *dot = strrchr(buf, '.');
    if (dot && strcmp(dot, ".ini") == 0)
        *dot = '\0';
    return buf;
}

/* A comparison (relaxsim compare -o DIR): positions, velocities, forces, differences and, for a
 * model with obstacles, the scene. */
static int plot_comparison(const char *dir, const cJSON *summary, const rs_model *m,
                           const rs_plot_snapshots *snap, rs_outset *set, char *wrote,
                           size_t wrote_len)
{
    if (!check_results_csv(dir, "trajectory_nlp.csv") ||
        !check_results_csv(dir, "trajectory_lemke.csv") || !check_results_csv(dir, "shadow.csv"))
        return RS_EXIT_USAGE;
    const cJSON *scene = cJSON_GetObjectItem(summary, "scene");
    const char *scene_text = cJSON_GetStringValue(cJSON_GetObjectItem(summary, "scene_text"));
    if (scene && !scene_text)
        return rs_cli_usage_error("plot: %s/summary.json: a model with obstacles but no "
                                  "scene_text (written by an older relaxsim: run the comparison "
                                  "again)", dir);
    FILE *g = rs_plot_open_script(set);
    if (!g)
        return RS_EXIT_USAGE;
    fprintf(g, "set xlabel 't (s)'\n");
    plot_group(g, m, "positions.png", 0, 3);
    plot_group(g, m, "velocities.png", 1, 4);
    plot_forces(g, m, dir);
    plot_differences(g, m, dir);
    /* a model with obstacles: the scene with both paths */
    const cJSON *radius = cJSON_GetObjectItem(cJSON_GetObjectItem(summary, "params"), "r");
    const cJSON *variant = cJSON_GetObjectItem(summary, "variant");
    char title[600];
    snprintf(title, sizeof title, "%s (%s): NLP solid, Lemke dashed, dots: a contact force",
             m->name, cJSON_IsString(variant) ? variant->valuestring : "?");
    rs_plot_run one = {"trajectory_nlp.csv", "trajectory_lemke.csv", "",
                       cJSON_IsNumber(radius) ? radius->valuedouble : 0.0};
    const int bodies = m->release != NULL; /* an instance: a model of bodies from its scene */
    char buf[300];
    const int with_scene =
        scene_text &&
        (bodies ? rs_plot_bodies(g, set, dir, scene_text, scenario_name(summary, buf, sizeof buf),
                                 snap)
                : rs_plot_scene(g, set, dir, scene_text,
                                cJSON_IsString(variant) &&
                                    strcmp(variant->valuestring, "stewart_trinkle") == 0,
                                title, &one, 1));
    if (scene_text && !with_scene) { /* rs_plot_scene or rs_plot_bodies said why */
        fclose(g);
        return RS_EXIT_USAGE;
    }
    static const char *const pictures[] = {"positions.png", "velocities.png", "forces.png",
                                           "differences.png", "scene.png"};
    static const char *const pictures_bodies[] = {"positions.png", "velocities.png",
                                                  "forces.png", "differences.png", "bodies.png",
                                                  "bodies.gif"};
    if (!rs_plot_run_gnuplot(set, g, bodies ? pictures_bodies : pictures,
                             with_scene ? 5 + bodies : 4))
        return RS_EXIT_FAILED;
    const char *scene_png = !with_scene ? "" : bodies ? ",bodies" : ",scene";
    snprintf(wrote, wrote_len, "wrote %s/{positions,velocities,forces,differences%s}.png%s%s%s\n",
             dir, scene_png, with_scene && bodies ? " and " : "", with_scene && bodies ? dir : "",
             with_scene && bodies ? "/bodies.gif" : "");
    return RS_EXIT_OK;
}

/* The model of a comparison's scene (a model built from its scene: the bodies), from its
 * summary's scene_text into *scene; NULL with a message if it cannot be built. */
static rs_model *scene_model(const rs_model *m, const cJSON *summary, const char *dir,
                             rs_scene *scene)
{
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(summary, "scene_text"));
    rs_scene_init(scene);
    rs_error_detail detail;
    if (!text) {
        rs_cli_usage_error("plot: %s/summary.json: a model of bodies but no scene_text", dir);
        return NULL;
    }
    if (rs_scene_read_text("summary.json: scene_text", text, scene, &detail) != RS_OK) {
        rs_cli_usage_error("plot: %s/%s", dir, detail.message);
        return NULL;
    }
    rs_model *inst = NULL;
    if (m->instantiate(m, scene, &inst, &detail) != RS_OK) {
        rs_cli_usage_error("plot: %s/summary.json: scene_text: %s", dir, detail.message);
        rs_scene_free(scene);
    }
    return inst;
}

/* --at T1,T2,...: the outlines' times of bodies.png, increasing, into snap. */
static int parse_at(const char *text, rs_plot_snapshots *snap)
{
    char buf[600];
    if (strlen(text) >= sizeof buf)
        return rs_cli_usage_error("plot: --at: a list of more than %zu characters",
                                  sizeof buf - 1),
               0;
    snprintf(buf, sizeof buf, "%s", text);
    char *items[RS_PLOT_MAX_SNAPSHOTS];
    const int n = rs_split_list(buf, items, RS_PLOT_MAX_SNAPSHOTS);
    if (n == -1)
        return rs_cli_usage_error("plot: --at: a list with an empty item"), 0;
    if (n == -2)
        return rs_cli_usage_error("plot: --at: at most %d times", RS_PLOT_MAX_SNAPSHOTS), 0;
    snap->n = 0;
    for (int i = 0; i < n; i++) {
        double v;
        if (!rs_cli_parse_double("--at", items[i], -1e12, 1e12, &v))
            return 0;
        if (snap->n > 0 && !(v > snap->t[snap->n - 1]))
            return rs_cli_usage_error("plot: --at: the times must increase (%g after %g)", v,
                                      snap->t[snap->n - 1]),
                   0;
        snap->t[snap->n++] = v;
    }
    if (snap->n == 0) /* (a guard: --at given, no time) */
        return rs_cli_usage_error("plot: --at: expected times in seconds, T1,T2,..."), 0;
    return 1;
}

/* The later of the two runs' rest times (summary.json), NaN when either never rests. */
static double motion_end(const cJSON *summary)
{
    double end = -INFINITY;
    static const char *const runs[] = {"nlp", "lemke"};
    for (int r = 0; r < 2; r++) {
        const cJSON *rest =
            cJSON_GetObjectItem(cJSON_GetObjectItem(summary, runs[r]), "rest_time_s");
        if (!cJSON_IsNumber(rest))
            return NAN;
        end = fmax(end, rest->valuedouble);
    }
    return end;
}

int rs_cmd_plot(int argc, char **argv)
{
    static const char usage[] = "plot: usage: relaxsim plot DIR [--at T1,T2,...] (a directory "
                                "written by relaxsim compare, batch, or grad --sweep; --at: the "
                                "times of bodies.png's outlines, s)";
    rs_plot_snapshots snap = {0, {0}, NAN};
    if (argc == 4 && strcmp(argv[2], "--at") == 0) {
        if (!parse_at(argv[3], &snap))
            return RS_EXIT_USAGE;
    } else if (argc != 2) {
        return rs_cli_usage_error("%s", usage);
    }
    if (argv[1][0] == '-')
        return rs_cli_usage_error("%s", usage);
    const char *dir = argv[1];
    struct stat dir_st;
    if (stat(dir, &dir_st) != 0)
        return rs_cli_usage_error("plot: %s: %s", dir,
                                  errno == ENOENT ? "no such directory" : strerror(errno));
    if (!S_ISDIR(dir_st.st_mode))
        return rs_cli_usage_error("plot: %s: not a directory (give the directory a comparison, a "
                                  "batch or a gradient sweep wrote)",
                                  dir);
    char path[1200], sweep_csv[1200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    snprintf(sweep_csv, sizeof sweep_csv, "%s/sweep.csv", dir);
    cJSON *summary = rs_read_json_file(path);
    const int grad_sweep = !summary && access(sweep_csv, R_OK) == 0; /* relaxsim grad --sweep */
    const int batch = cJSON_GetObjectItem(summary, "sweep") != NULL;
    const cJSON *name = cJSON_GetObjectItem(summary, "model");
    const rs_model *m = cJSON_IsString(name) ? rs_model_find(name->valuestring) : NULL;
    struct stat st;
    if (!summary && !grad_sweep && stat(path, &st) == 0)
        return rs_cli_usage_error(
            "plot: %s: %s", path,
            !S_ISREG(st.st_mode)     ? "not a file"
            : access(path, R_OK) != 0 ? "cannot be read"
                                      : "not valid JSON (a file cut short, or not written by "
                                        "relaxsim)");
    if (!grad_sweep && !batch && (!m || !cJSON_GetObjectItem(summary, "shadow"))) {
        cJSON_Delete(summary);
        return rs_cli_usage_error("plot: %s: no comparison here (expected summary.json written by "
                                  "relaxsim compare or relaxsim batch)", dir);
    }
    if (snap.n > 0 && (grad_sweep || batch || !m->instantiate)) {
        cJSON_Delete(summary);
        return rs_cli_usage_error("plot: --at: the times of bodies.png's outlines, a comparison of "
                                  "bodies; %s is %s", dir,
                                  grad_sweep ? "a gradient sweep"
                                  : batch    ? "a batch"
                                             : "a comparison of another model (no bodies.png)");
    }
    snap.rest_s = summary ? motion_end(summary) : NAN;
    if (!rs_gnuplot_found()) {
        cJSON_Delete(summary);
        return rs_cli_usage_error("plot: gnuplot not found (install the Debian package gnuplot-nox)");
    }
    rs_outset *set;
    rs_error_detail detail;
    if (rs_outset_begin(dir, NULL, &set, &detail) != RS_OK) {
        cJSON_Delete(summary);
        return rs_cli_usage_error("plot: %s", detail.message);
    }
    rs_cli_on_interrupt("the previous pictures are unchanged");
    char wrote[1400] = "";
    rs_scene scene;
    rs_model *instance = NULL; /* the model of the comparison's own scene */
    if (!grad_sweep && !batch && m->instantiate &&
        !(instance = scene_model(m, summary, dir, &scene))) {
        cJSON_Delete(summary);
        rs_outset_abort(set);
        return RS_EXIT_USAGE;
    }
    const int code = grad_sweep ? rs_plot_grad_sweep(dir, set, wrote, sizeof wrote)
                     : batch    ? plot_batch(dir, summary, set, wrote, sizeof wrote)
                                : plot_comparison(dir, summary, instance ? instance : m, &snap,
                                                  set, wrote, sizeof wrote);
    if (instance) {
        instance->release(instance);
        rs_scene_free(&scene);
    }
    cJSON_Delete(summary);
    if (code == RS_EXIT_USAGE) {
        rs_outset_abort(set);
        return code;
    }
    /* the files plot writes: those the new pictures lack are removed with the old set */
    static const char *const owned[] = {RS_PLOT_OUTPUTS};
    const int nowned = code == RS_EXIT_OK ? (int)(sizeof owned / sizeof owned[0]) : 2;
    /* gnuplot failed: its script and log are kept, the old pictures stay; a picture gnuplot left
     * empty or cut short (a full disk): nothing is replaced, exit 1 */
    const rs_error werr = rs_outset_commit(set, owned, nowned, &detail);
    if (werr != RS_OK)
        return rs_cli_output_error(werr, "plot: %s", detail.message);
    fputs(wrote, stdout);
    return code;
}
