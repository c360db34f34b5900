/*
 * plot_scene.c: scene.png for a model with obstacles (relaxsim plot DIR), for a comparison or a
 * batch kept with --keep. The scene file named in summary.json is read again; its polygons are
 * written to DIR/scene.dat (clipped to the picture), the trajectories drawn over them in the x-z
 * plane at equal scales: NLP solid, Lemke dashed (one run: blue and red with each step that ends
 * with a contact force marked; several: one colour per run), and a disc's outline at its first
 * and last step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/plot_palette.h"
#include "cli/plot_scene.h"
#include "cli/plot_script.h"
#include "io/scene_file.h"

/* 1-based columns of x_m, z_m and mode in a trajectory CSV header; 0 if absent. */
typedef struct traj_columns {
    int x, z, mode;
} traj_columns;

/* Columns, and the extent of the path (x0, x1, z0, z1) grown to cover the file's finite rows, the
 * first and last position. Returns 0 if the file cannot be read or lacks a column. */
static int read_path(const char *path, traj_columns *c, double *box, double *first, double *last)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    memset(c, 0, sizeof *c);
    if (fgets(line, sizeof line, f)) {
        int col = 1;
        for (char *tok = strtok(line, ",\r\n"); tok; tok = strtok(NULL, ",\r\n"), col++) {
            if (strcmp(tok, "x_m") == 0)
                c->x = col;
            else if (strcmp(tok, "z_m") == 0)
                c->z = col;
            else if (strcmp(tok, "mode") == 0)
                c->mode = col;
        }
    }
    int rows = 0;
    while (c->x && c->z && fgets(line, sizeof line, f)) {
        double x = NAN, z = NAN;
        int col = 1;
        for (char *p = line; *p; col++) {
            if (col == c->x)
                x = strtod(p, NULL);
            if (col == c->z)
                z = strtod(p, NULL);
            p = strchr(p, ',');
            if (!p)
                break;
            p++;
        }
        if (!isfinite(x) || !isfinite(z))
            continue;
        box[0] = fmin(box[0], x);
        box[1] = fmax(box[1], x);
        box[2] = fmin(box[2], z);
        box[3] = fmax(box[3], z);
        if (rows++ == 0) {
            first[0] = x;
            first[1] = z;
        }
        last[0] = x;
        last[1] = z;
    }
    fclose(f);
    return c->x && c->z && c->mode && rows > 0;
}

/* Clip polygon v (n vertices, in place) to the half-plane nx x + nz z <= c (Sutherland-Hodgman);
 * returns the new vertex count (at most n + 1; the caller's array has room for it). */
static int clip(double (*v)[2], int n, double nx, double nz, double c)
{
    double out[RS_SCENE_MAX_POLYGON_VERTICES + 8][2];
    int k = 0;
    for (int i = 0; i < n; i++) {
        const double *a = v[i], *b = v[(i + 1) % n];
        const double da = nx * a[0] + nz * a[1] - c, db = nx * b[0] + nz * b[1] - c;
        if (da <= 0.0) {
            out[k][0] = a[0];
            out[k++][1] = a[1];
        }
        if ((da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0)) {
            const double t = da / (da - db);
            out[k][0] = a[0] + t * (b[0] - a[0]);
            out[k++][1] = a[1] + t * (b[1] - a[1]);
        }
    }
    memcpy(v, out, sizeof(double) * 2 * (size_t)k);
    return k;
}

/* Clip polygon v to the picture's box (x0, x1, z0, z1). */
static int clip_to_box(double (*v)[2], int n, const double *box)
{
    n = clip(v, n, -1.0, 0.0, -box[0]);
    n = clip(v, n, 1.0, 0.0, box[1]);
    n = clip(v, n, 0.0, -1.0, -box[2]);
    return clip(v, n, 0.0, 1.0, box[3]);
}

int rs_plot_scene_dat(rs_outset *set, const rs_scene *sc, const double *box)
{
    rs_error_detail detail;
    FILE *f = rs_outset_create(set, "scene.dat", &detail);
    if (!f)
        return -1;
    int blocks = 0;
    for (int k = 0; k < sc->nobstacles; k++) {
        const rs_scene_obstacle *o = &sc->obstacles[k];
        double v[RS_SCENE_MAX_POLYGON_VERTICES + 8][2];
        int nv = 0;
        if (o->is_halfplane) { /* the box, cut by the half-plane n . p <= c */
            const rs_scene_edge *e = &sc->edges[o->first_edge];
            const double rect[4][2] = {{box[0], box[2]}, {box[1], box[2]}, {box[1], box[3]},
                                       {box[0], box[3]}};
            memcpy(v, rect, sizeof rect);
            nv = clip(v, 4, e->n[0], e->n[1], e->c);
        } else {
            for (int i = 0; i < o->nedges; i++) {
                v[nv][0] = sc->edges[o->first_edge + i].a[0];
                v[nv++][1] = sc->edges[o->first_edge + i].a[1];
            }
            nv = clip_to_box(v, nv, box);
        }
        if (nv < 3)
            continue;
        fprintf(f, "%s# obstacle %d\n", blocks ? "\n\n" : "", k + 1);
        for (int i = 0; i <= nv; i++)
            fprintf(f, "%.17g,%.17g\n", v[i % nv][0], v[i % nv][1]);
        blocks++;
    }
    return rs_outset_close(set, f, "scene.dat", &detail) == RS_OK ? blocks : -1;
}

/* DIR/scene_lines.dat: each polygon edge's line continued beyond both ends by len (dotted in the
 * picture: the half-planes Stewart-Trinkle enforces, whose intersection near a convex corner is
 * the virtual edge). Returns 0 if the file cannot be written. */
static int write_edge_lines(rs_outset *set, const rs_scene *sc, double len)
{
    rs_error_detail detail;
    FILE *f = rs_outset_create(set, "scene_lines.dat", &detail);
    if (!f)
        return 0;
    for (int i = 0; i < sc->nedges; i++) {
        const rs_scene_edge *e = &sc->edges[i];
        const double dx = e->b[0] - e->a[0], dz = e->b[1] - e->a[1], l = hypot(dx, dz);
        if (e->interior || l == 0.0)
            continue;
        const double ux = len * dx / l, uz = len * dz / l;
        fprintf(f, "%.17g,%.17g\n%.17g,%.17g\n\n%.17g,%.17g\n%.17g,%.17g\n\n", e->a[0] - ux,
                e->a[1] - uz, e->a[0], e->a[1], e->b[0], e->b[1], e->b[0] + ux, e->b[1] + uz);
    }
    return rs_outset_close(set, f, "scene_lines.dat", &detail) == RS_OK;
}

int rs_plot_scene(FILE *g, rs_outset *set, const char *dir, const char *scene_text,
                  int edge_lines, const char *title, const rs_plot_run *runs, int nruns)
{
    double radius = 0.0; /* the largest: room around the paths */
    for (int k = 0; k < nruns && k < RS_PLOT_MAX_RUNS; k++)
        radius = fmax(radius, runs[k].radius);
    rs_scene sc;
    rs_scene_init(&sc);
    rs_error_detail why;
    if (rs_scene_read_text("summary.json: scene_text", scene_text, &sc, &why) != RS_OK) {
        fprintf(stderr, "relaxsim: plot: no scene.png: %s\n", why.message);
        return 0;
    }
    double box[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    enum { MAX_PATHS = 2 * RS_PLOT_MAX_RUNS };
    static double first[MAX_PATHS][2], last[MAX_PATHS][2];
    static traj_columns cols[MAX_PATHS];
    static int have[MAX_PATHS];
    int any_path = 0;
    for (int k = 0; k < nruns && k < RS_PLOT_MAX_RUNS; k++)
        for (int t = 0; t < 2; t++) {
            char path[1400];
            snprintf(path, sizeof path, "%s/%s", dir, t ? runs[k].lemke : runs[k].nlp);
            have[2 * k + t] = read_path(path, &cols[2 * k + t], box, first[2 * k + t],
                                        last[2 * k + t]);
            any_path |= have[2 * k + t];
        }
    if (!any_path) {
        rs_scene_free(&sc);
        fprintf(stderr, "relaxsim: plot: no scene.png: no trajectory with x_m, z_m in %s\n", dir);
        return 0;
    }
    /* every obstacle that has an extent is in the frame (the scene's, not only the paths'):
     * its vertices grow the box; half-planes, unbounded, are cut by it */
    for (int k = 0; k < sc.nobstacles; k++) {
        const rs_scene_obstacle *o = &sc.obstacles[k];
        if (o->is_halfplane)
            continue;
        for (int i = 0; i < o->nedges; i++) {
            const double *a = sc.edges[o->first_edge + i].a;
            box[0] = fmin(box[0], a[0]);
            box[1] = fmax(box[1], a[0]);
            box[2] = fmin(box[2], a[1]);
            box[3] = fmax(box[3], a[1]);
        }
    }
    /* the paths and the obstacles, with room around them for the disc and the half-planes'
     * edges, and neither side shorter than 0.6 times the other (a straight fall is not a
     * sliver) */
    const double span = fmax(box[1] - box[0], box[3] - box[2]);
    const double margin = fmax(0.15 * span, 2.0 * radius + 0.05 * fmax(span, 0.2));
    for (int a = 0; a < 2; a++) {
        double *lo = &box[2 * a], *hi = &box[2 * a + 1];
        const double other = box[2 * (1 - a) + 1] - box[2 * (1 - a)] + 2.0 * margin;
        const double grow = fmax(margin, 0.5 * (0.6 * other - (*hi - *lo)));
        *lo -= grow;
        *hi += grow;
    }
    const int blocks = rs_plot_scene_dat(set, &sc, box);
    edge_lines = edge_lines && write_edge_lines(set, &sc, fmax(box[1] - box[0], box[3] - box[2]));
    rs_scene_free(&sc);
    if (blocks < 0) {
        fprintf(stderr, "relaxsim: plot: no scene.png: cannot write %s/scene.dat\n", dir);
        return 0;
    }
    char quoted_title[800];
    fprintf(g, "reset\nset datafile separator ','\n"
               "set terminal pngcairo noenhanced size 1000,900 font ',11'\nset output 'scene.png'\n"
               "set size ratio -1\nset xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\n"
               "set xlabel 'x (m)'\nset ylabel 'z (m)'\nset title %s\n"
               "set bmargin at screen 0.16\nset key at screen 0.5, screen 0.055 center center horizontal\nset grid\nplot ",
            box[0], box[1], box[2], box[3],
            rs_gnuplot_string(quoted_title, sizeof quoted_title, title));
    int any = 0; /* plot elements written so far: the next one needs a separator */
    if (blocks > 0) {
        fprintf(g, "for [i=0:%d] 'scene.dat' index i with filledcurves closed fc rgb '#d0d0d0' "
                   "fs solid 1.0 border lc rgb '#505050' title (i == 0 ? 'obstacles' : '')",
                blocks - 1);
        any = 1;
    }
    if (edge_lines) {
        fprintf(g, "%s'scene_lines.dat' with lines dt (6,4) lw 1.5 lc rgb '#e67e00' "
                   "title 'edge lines continued (Stewart-Trinkle: virtual edges)'",
                any ? ", \\\n     " : "");
        any = 1;
    }
    /* one run: NLP blue, Lemke red, contact steps marked; several: one colour per run */
    static const char *const two[2] = {"#1f77b4", "#d62728"};
    static const char *const dash[2] = {"solid", "(8,6)"}; /* as in the other pictures */
    static const char *const name[2] = {"NLP", "Lemke"};
    for (int k = 0; k < nruns && k < RS_PLOT_MAX_RUNS; k++)
        for (int t = 0; t < 2; t++) {
            const int i = 2 * k + t;
            if (!have[i])
                continue;
            const char *colour =
                nruns == 1 ? two[t] : rs_plot_palette[k % RS_PLOT_PALETTE_SIZE];
            const char *file = t ? runs[k].lemke : runs[k].nlp;
            char label[300], quoted[700];
            /* several runs: one legend entry each (NLP solid, Lemke dashed is in the title),
             * each run's lines and end mark wider than the next one's, so that runs that
             * coincide all show (an outline of each colour) */
            const double lw = nruns == 1 ? 2.0 : 2.0 + 2.0 * (nruns - 1 - k);
            if (nruns == 1)
                snprintf(label, sizeof label, "%s path", name[t]);
            else
                snprintf(label, sizeof label, "%s", runs[k].label[0] ? runs[k].label : "run");
            fprintf(g, "%s'%s' every ::1 using %d:%d with lines lw %.1f dt %s lc rgb '%s' ",
                    any ? ", \\\n     " : "", file, cols[i].x, cols[i].z, lw, dash[t], colour);
            if (nruns == 1 || t == 0)
                fprintf(g, "title %s", rs_gnuplot_string(quoted, sizeof quoted, label));
            else
                fprintf(g, "notitle");
            any = 1;
            if (nruns == 1)
                fprintf(g, ", \\\n     '%s' every ::1 using %d:(strcol(%d) eq 'separating' ? NaN : "
                           "$%d) with points pt %d ps 0.8 lc rgb '%s' title '%s: contact force'",
                        file, cols[i].x, cols[i].mode, cols[i].z, t ? 6 : 7, colour, name[t]);
            if (nruns > 1) /* where each run ends (the paths can lie on top of each other) */
                fprintf(g, ", \\\n     '+' using (%.17g):(%.17g) every ::0::0 with points pt %d "
                           "ps %.2f lc rgb '%s' notitle",
                        last[i][0], last[i][1], t ? 6 : 7, 1.2 + 0.8 * (nruns - 1 - k), colour);
            for (int end = 0; runs[k].radius > 0.0 && end < 2; end++) {
                const double *at = end ? last[i] : first[i];
                fprintf(g, ", \\\n     '+' using (%.17g):(%.17g):(%.17g) every ::0::0 with "
                           "circles lc rgb '%s' dt %s notitle",
                        at[0], at[1], runs[k].radius, colour, dash[t]);
            }
        }
    fputc('\n', g);
    return 1;
}
