/*
 * plot_bodies.c: the pictures of a bodies comparison (relaxsim plot DIR; see plot_bodies.h).
 *
 * The two trajectories are read once each, keeping the poses of at most 2000 evenly spaced rows
 * (every row of a shorter run): the paths are drawn through them, and the outlines of the still
 * picture and the animation's frames are those of a subset. Every body's outline is written in
 * world coordinates from its shape (geom/body.h: vertices about the centre of mass, a disc's
 * radius) and its pose; a disc carries a spoke from its rim at angle theta to its centre, so that
 * rolling shows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/plot_bodies.h"
#include "cli/plot_palette.h"
#include "cli/plot_scene.h"
#include "cli/plot_script.h"
#include "io/scene_file.h"

enum {
    MAX_SAMPLES = 2000, /* rows kept per trajectory */
    MAX_FRAMES = 150,   /* frames of the animation */
    FRAMES_PER_S = 25,  /* at most, of the animation's time (a smoother one only costs time) */
    SNAPSHOTS = 6,      /* outlines in the still picture */
    DISC_SIDES = 48     /* a disc's outline */
};

/* One trajectory: the poses (x, z, theta per body) and times of the kept rows. */
typedef struct samples {
    int n;        /* rows kept */
    int rows;     /* rows in the file */
    double *pose; /* n * 3 nb */
    double *t;    /* n */
} samples;

/* The 1-based column of name in a header line (comma-separated), 0 if absent. */
static int header_column(const char *header, const char *name)
{
    const size_t len = strlen(name);
    int col = 1;
    for (const char *p = header; p; col++) {
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\n' || p[len] == '\r' ||
                                           p[len] == '\0'))
            return col;
        p = strchr(p, ',');
        if (p)
            p++;
    }
    return 0;
}

/* Field col (1-based) of a CSV line as a number (NaN when absent). */
static double field(const char *line, int col)
{
    const char *p = line;
    for (int c = 1; c < col && p; c++) {
        p = strchr(p, ',');
        if (p)
            p++;
    }
    return p ? strtod(p, NULL) : NAN;
}

/* Read DIR/file's poses into s; 0 with a message if the file or a body's column is missing. */
static int read_samples(const char *dir, const char *file, const rs_scene *sc, samples *s)
{
    memset(s, 0, sizeof *s);
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "relaxsim: plot: no bodies pictures: cannot read %s\n", path);
        return 0;
    }
    const int nb = sc->nbodies;
    int *cols = malloc(sizeof(int) * (3 * (size_t)nb + 1));
    char *line = NULL;
    size_t cap = 0;
    int ok = cols && getline(&line, &cap, f) > 0;
    const int tcol = ok ? header_column(line, "t_s") : 0;
    for (int b = 0; ok && b < nb; b++) {
        static const char *const suffix[3] = {"x_m", "z_m", "theta_rad"};
        for (int k = 0; k < 3; k++) {
            char name[RS_BODY_NAME_LEN + 16];
            snprintf(name, sizeof name, "%s.%s", sc->bodies[b].name, suffix[k]);
            cols[3 * b + k] = header_column(line, name);
            if (!cols[3 * b + k]) {
                fprintf(stderr, "relaxsim: plot: no bodies pictures: %s has no column %s\n",
                        path, name);
                ok = 0;
                break;
            }
        }
    }
    while (ok && getline(&line, &cap, f) > 0)
        s->rows++;
    s->n = s->rows < MAX_SAMPLES ? s->rows : MAX_SAMPLES;
    if (ok && s->n == 0) {
        fprintf(stderr, "relaxsim: plot: no bodies pictures: %s has no rows\n", path);
        ok = 0;
    }
    if (ok) {
        s->pose = malloc(sizeof(double) * (size_t)s->n * 3 * (size_t)nb);
        s->t = malloc(sizeof(double) * (size_t)s->n);
        ok = s->pose && s->t;
    }
    if (ok) { /* the second pass: row r is kept as sample k when r = round(k (rows - 1) / (n - 1)) */
        rewind(f);
        ok = getline(&line, &cap, f) > 0;
        int k = 0;
        for (int r = 0; ok && k < s->n && getline(&line, &cap, f) > 0; r++) {
            const int want = s->n == 1 ? 0
                                       : (int)llround((double)k * (s->rows - 1) / (s->n - 1));
            if (r != want)
                continue;
            s->t[k] = tcol ? field(line, tcol) : r;
            for (int c = 0; c < 3 * nb; c++)
                s->pose[(size_t)k * 3 * nb + c] = field(line, cols[c]);
            k++;
        }
        ok = ok && k == s->n;
    }
    free(line);
    free(cols);
    fclose(f);
    return ok;
}

static void samples_free(samples *s)
{
    free(s->pose);
    free(s->t);
}

/* The colour of body b as a 24-bit integer (the palette in order), and the same hue darker (its
 * Lemke lines, as in the other pictures). */
static long body_rgb(int b)
{
    return strtol(rs_plot_palette[b % RS_PLOT_PALETTE_SIZE] + 1, NULL, 16);
}

static long body_rgb_darker(int b)
{
    char dark[8];
    return strtol(rs_plot_colour_darker(rs_plot_palette[b % RS_PLOT_PALETTE_SIZE], dark) + 1,
                  NULL, 16);
}

/* The outline of body b at pose p, closed, as "x,z,rgb,darker rgb" lines (a disc: its rim from angle theta,
 * then its centre: the spoke), then a blank line. Non-finite poses write nothing. */
static void write_outline(FILE *f, const rs_body *bd, int b, const double *p)
{
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        return;
    const double c = cos(p[2]), s = sin(p[2]);
    const long rgb = body_rgb(b), dark = body_rgb_darker(b);
    if (bd->shape == RS_BODY_DISC) {
        for (int k = 0; k <= DISC_SIDES; k++) {
            const double a = p[2] + 6.283185307179586 * k / DISC_SIDES;
            fprintf(f, "%.9g,%.9g,%ld,%ld\n", p[0] + bd->radius * cos(a),
                    p[1] + bd->radius * sin(a), rgb, dark);
        }
        fprintf(f, "%.9g,%.9g,%ld,%ld\n", p[0], p[1], rgb, dark);
    } else {
        for (int k = 0; k <= bd->nvert; k++) {
            const double *v = bd->v + 2 * (k % bd->nvert);
            fprintf(f, "%.9g,%.9g,%ld,%ld\n", p[0] + c * v[0] - s * v[1],
                    p[1] + s * v[0] + c * v[1], rgb, dark);
        }
    }
    fputc('\n', f);
}

/* The sample of frame j of nf (evenly spaced over the kept rows). */
static int frame_sample(const samples *s, int j, int nf)
{
    return nf == 1 ? 0 : (int)llround((double)j * (s->n - 1) / (nf - 1));
}

/* The frame of nf whose time is nearest t. */
static int frame_at(const samples *s, int nf, double t)
{
    int best = 0;
    for (int j = 1; j < nf; j++)
        if (fabs(s->t[frame_sample(s, j, nf)] - t) < fabs(s->t[frame_sample(s, best, nf)] - t))
            best = j;
    return best;
}

/* The times of the outlines into t (returns how many): the user's, or SNAPSHOTS spread from the
 * start to the motion's end (the rest time, then the run's end as the last), or over the whole
 * run; 0 (a message printed) if a time lies outside the run. */
static int snapshot_times(const samples *s, const rs_plot_snapshots *snap, double *t)
{
    const double t0 = s->t[0], t1 = s->t[s->n - 1];
    if (snap && snap->n > 0) {
        /* (a row's time is rounded to the step: within half of one) */
        const double half = s->n > 1 ? 0.5 * (t1 - t0) / (s->n - 1) : 0.0;
        for (int j = 0; j < snap->n; j++) {
            if (snap->t[j] < t0 - half || snap->t[j] > t1 + half) {
                fprintf(stderr, "relaxsim: plot: --at %g: outside the run's rows, t = %g to %g s\n",
                        snap->t[j], t0, t1);
                return 0;
            }
            t[j] = snap->t[j];
        }
        return snap->n;
    }
    const int rests = snap && isfinite(snap->rest_s) && snap->rest_s > t0 && snap->rest_s < t1;
    const int ns = s->n < SNAPSHOTS ? s->n : SNAPSHOTS, spread = rests && ns > 2 ? ns - 1 : ns;
    const double end = rests ? snap->rest_s : t1;
    for (int j = 0; j < spread; j++)
        t[j] = spread == 1 ? t0 : t0 + (end - t0) * j / (spread - 1);
    if (spread < ns)
        t[ns - 1] = t1; /* at rest from snap->rest_s: the end once */
    return ns;
}

/* bodies_<name>.dat: one index per frame, every body's outline in it; bodies_<name>_paths.dat:
 * one index per body, its centre's kept rows. 0 if a file cannot be written. */
static int write_frames(rs_outset *set, const rs_scene *sc, const samples *s, const char *name,
                        int nf)
{
    rs_error_detail detail;
    char file[64];
    snprintf(file, sizeof file, "bodies_%s.dat", name);
    FILE *f = rs_outset_create(set, file, &detail);
    if (!f)
        return 0;
    const int nb = sc->nbodies;
    for (int j = 0; j < nf; j++) {
        const int k = frame_sample(s, j, nf);
        fprintf(f, "%s# t = %.9g s\n", j ? "\n\n" : "", s->t[k]);
        for (int b = 0; b < nb; b++)
            write_outline(f, &sc->bodies[b], b, s->pose + (size_t)k * 3 * nb + 3 * b);
    }
    if (rs_outset_close(set, f, file, &detail) != RS_OK)
        return 0;
    snprintf(file, sizeof file, "bodies_%s_paths.dat", name);
    if (!(f = rs_outset_create(set, file, &detail)))
        return 0;
    for (int b = 0; b < nb; b++) {
        fprintf(f, "%s# %s\n", b ? "\n\n" : "", sc->bodies[b].name);
        for (int k = 0; k < s->n; k++) {
            const double *p = s->pose + (size_t)k * 3 * nb + 3 * b;
            if (isfinite(p[0]) && isfinite(p[1]))
                fprintf(f, "%.9g,%.9g,%ld,%ld\n", p[0], p[1], body_rgb(b), body_rgb_darker(b));
        }
    }
    return rs_outset_close(set, f, file, &detail) == RS_OK;
}

/* The picture's extent: every kept centre grown by its body's extent, and the static polygons;
 * then a margin, and neither side shorter than 0.4 times the other. */
static void extent(const rs_scene *sc, const samples *s, double *box)
{
    const int nb = sc->nbodies;
    box[0] = box[2] = INFINITY;
    box[1] = box[3] = -INFINITY;
    for (int k = 0; k < s->n; k++)
        for (int b = 0; b < nb; b++) {
            const double *p = s->pose + (size_t)k * 3 * nb + 3 * b, r = sc->bodies[b].extent;
            if (!isfinite(p[0]) || !isfinite(p[1]))
                continue;
            box[0] = fmin(box[0], p[0] - r);
            box[1] = fmax(box[1], p[0] + r);
            box[2] = fmin(box[2], p[1] - r);
            box[3] = fmax(box[3], p[1] + r);
        }
    for (int k = 0; k < sc->nobstacles; k++) {
        const rs_scene_obstacle *o = &sc->obstacles[k];
        for (int i = 0; !o->is_halfplane && i < o->nedges; i++) {
            const double *a = sc->edges[o->first_edge + i].a;
            box[0] = fmin(box[0], a[0]);
            box[1] = fmax(box[1], a[0]);
            box[2] = fmin(box[2], a[1]);
            box[3] = fmax(box[3], a[1]);
        }
    }
    if (!(box[0] <= box[1]) || !(box[2] <= box[3])) { /* nothing finite: a unit square */
        box[0] = box[2] = -0.5;
        box[1] = box[3] = 0.5;
    }
    const double margin = 0.08 * fmax(fmax(box[1] - box[0], box[3] - box[2]), 1e-3);
    for (int a = 0; a < 2; a++) {
        double *lo = &box[2 * a], *hi = &box[2 * a + 1];
        const double other = box[2 * (1 - a) + 1] - box[2 * (1 - a)] + 2.0 * margin;
        const double grow = fmax(margin, 0.5 * (0.4 * other - (*hi - *lo)));
        *lo -= grow;
        *hi += grow;
    }
}

/* The obstacles' plot element (none: nothing written); returns whether one was written. */
static int plot_obstacles(FILE *g, int blocks)
{
    if (blocks <= 0)
        return 0;
    fprintf(g, "for [i=0:%d] 'scene.dat' index i with filledcurves closed fc rgb '#d0d0d0' "
               "fs solid 1.0 border lc rgb '#505050' notitle",
            blocks - 1);
    return 1;
}

int rs_plot_bodies(FILE *g, rs_outset *set, const char *dir, const char *scene_text,
                   const char *title, const rs_plot_snapshots *snap)
{
    rs_scene sc;
    rs_scene_init(&sc);
    rs_error_detail why;
    if (rs_scene_read_text("summary.json: scene_text", scene_text, &sc, &why) != RS_OK) {
        fprintf(stderr, "relaxsim: plot: no bodies pictures: %s\n", why.message);
        return 0;
    }
    samples nlp, lemke;
    int ok = sc.nbodies > 0;
    if (!ok)
        fprintf(stderr, "relaxsim: plot: no bodies pictures: the scene has no body\n");
    ok = ok && read_samples(dir, "trajectory_nlp.csv", &sc, &nlp);
    if (ok && !read_samples(dir, "trajectory_lemke.csv", &sc, &lemke)) {
        samples_free(&nlp);
        ok = 0;
    }
    if (!ok) {
        rs_scene_free(&sc);
        return 0;
    }
    /* the animation: about real time, within 3 to 15 s, at most FRAMES_PER_S frames a second
     * and MAX_FRAMES in all */
    const double run = nlp.t[nlp.n - 1] - nlp.t[0];
    const double seconds = fmin(fmax(run, 3.0), 15.0);
    const int max_frames = (int)fmin(MAX_FRAMES, floor(FRAMES_PER_S * seconds + 0.5));
    const int nf = nlp.n < max_frames ? nlp.n : max_frames;
    const int nfl = lemke.n < max_frames ? lemke.n : max_frames;
    double times[RS_PLOT_MAX_SNAPSHOTS];
    const int ns = snapshot_times(&nlp, snap, times);
    if (ns == 0) {
        samples_free(&nlp);
        samples_free(&lemke);
        rs_scene_free(&sc);
        return 0;
    }
    int frame_nlp[RS_PLOT_MAX_SNAPSHOTS], frame_lemke[RS_PLOT_MAX_SNAPSHOTS]; /* each snapshot's */
    for (int j = 0; j < ns; j++) {
        frame_nlp[j] = frame_at(&nlp, nf, times[j]);
        frame_lemke[j] = frame_at(&lemke, nfl, times[j]);
    }
    double box[4];
    extent(&sc, &nlp, box);
    const int blocks = rs_plot_scene_dat(set, &sc, box);
    ok = blocks >= 0 && write_frames(set, &sc, &nlp, "nlp", nf) &&
         write_frames(set, &sc, &lemke, "lemke", nfl);
    if (!ok) {
        fprintf(stderr, "relaxsim: plot: no bodies pictures: cannot write into %s\n", dir);
    } else {
        /* the still picture: the outlines at the snapshots' times, each the frame nearest in
         * time (fainter: earlier: the colour mixed with white), NLP solid, Lemke dashed, and the
         * centres' paths */
        char quoted[900], text[700];
        int len = snprintf(text, sizeof text, "%s: outlines at t =", title);
        for (int j = 0; j < ns && len < (int)sizeof text - 40; j++)
            len += snprintf(text + len, sizeof text - (size_t)len, "%s %.3g", j ? "," : "",
                            nlp.t[frame_sample(&nlp, frame_nlp[j], nf)]);
        if (len < (int)sizeof text - 40)
            snprintf(text + len, sizeof text - (size_t)len, " s (fainter: earlier)");
        fprintf(g, "reset\nset datafile separator ','\n"
                   "set terminal pngcairo noenhanced size 1000,800 font ',11'\n"
                   "set output 'bodies.png'\nset size ratio -1\n"
                   "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\n"
                   "set xlabel 'x (m)'\nset ylabel 'z (m)'\nset title %s\nset grid\n"
                   "set key below horizontal\n"
                   "# c (0xRRGGBB) mixed with white: f = 1 c itself, f = 0 white\n"
                   "mix(v, f) = int(255 - (255 - v) * f)\n"
                   "fade(c, f) = 65536 * mix(int(c) / 65536 %% 256, f) + "
                   "256 * mix(int(c) / 256 %% 256, f) + mix(int(c) %% 256, f)\n"
                   "plot ",
                box[0], box[1], box[2], box[3], rs_gnuplot_string(quoted, sizeof quoted, text));
        int any = plot_obstacles(g, blocks);
        fprintf(g, "%s'bodies_nlp_paths.dat' index 0:%d using 1:2:3 with lines lw 1 "
                   "lc rgb variable title 'path of the centre: NLP solid', "
                   "'bodies_lemke_paths.dat' index 0:%d using 1:2:4 with lines lw 1 dt (6,4) "
                   "lc rgb variable title 'Lemke dashed'",
                any ? ", \\\n     " : "", sc.nbodies - 1, sc.nbodies - 1);
        for (int j = 0; j < ns; j++) {
            const int fi = frame_nlp[j], fl = frame_lemke[j];
            /* the first at 0.25 of its colour (the rest white), the last at full colour */
            const double f = ns == 1 ? 1.0 : 0.25 + 0.75 * j / (ns - 1);
            fprintf(g, ", \\\n     'bodies_nlp.dat' index %d using 1:2:(fade($3, %.3f)) with "
                       "lines lw %.1f lc rgb variable %s",
                    fi, f, j == ns - 1 ? 2.5 : 1.5,
                    j == ns - 1 ? "title 'outline: NLP solid'" : "notitle");
            fprintf(g, ", \\\n     'bodies_lemke.dat' index %d using 1:2:(fade($4, %.3f)) with "
                       "lines lw 1.5 dt (5,4) lc rgb variable %s",
                    fl, f, j == ns - 1 ? "title 'Lemke dashed (darker)'" : "notitle");
        }
        const int last = frame_sample(&nlp, frame_nlp[ns - 1], nf);
        for (int b = 0; b < sc.nbodies; b++) { /* the names at the last outline */
            const double *p = nlp.pose + (size_t)last * 3 * sc.nbodies + 3 * b;
            if (isfinite(p[0]) && isfinite(p[1]))
                fprintf(g, ", \\\n     '+' using (%.17g):(%.17g):(%s) every ::0::0 with labels "
                           "font ',8' tc rgb '#303030' notitle",
                        p[0], p[1],
                        rs_gnuplot_string(quoted, sizeof quoted, sc.bodies[b].name));
        }
        /* the animation (above), its frames' delay in units of 1/100 s */
        const int delay = (int)fmax(2.0, floor(100.0 * seconds / nf + 0.5));
        fprintf(g, "\nreset\nset datafile separator ','\n"
                   "set terminal gif animate noenhanced delay %d loop 0 size 800,640 font ',10'\n"
                   "set output 'bodies.gif'\nset size ratio -1\n"
                   "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\n"
                   "set xlabel 'x (m)'\nset ylabel 'z (m)'\nset key below horizontal\n"
                   "array T[%d]\n",
                delay, box[0], box[1], box[2], box[3], nf);
        for (int j = 0; j < nf; j++)
            fprintf(g, "T[%d] = %.9g\n", j + 1, nlp.t[frame_sample(&nlp, j, nf)]);
        fprintf(g, "do for [j=0:%d] {\n  set title sprintf('%%s  t = %%.3f s', %s, T[j + 1])\n"
                   "  plot ",
                nf - 1, rs_gnuplot_string(quoted, sizeof quoted, title));
        any = plot_obstacles(g, blocks);
        fprintf(g, "%s'bodies_nlp.dat' index j using 1:2:3 with filledcurves closed "
                   "fc rgb variable fs solid 0.35 notitle, \\\n"
                   "       'bodies_nlp.dat' index j using 1:2:3 with lines lw 4 lc rgb variable "
                   "title 'NLP (filled, wide outline)', \\\n"
                   "       'bodies_lemke.dat' index (j * %d / %d) using 1:2:4 with lines lw 1 "
                   "lc rgb variable title 'Lemke (thin outline, darker)'\n}\n",
                any ? ", \\\n       " : "", nfl - 1, nf > 1 ? nf - 1 : 1);
    }
    samples_free(&nlp);
    samples_free(&lemke);
    rs_scene_free(&sc);
    return ok;
}
