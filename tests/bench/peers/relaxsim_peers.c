/*
 * relaxsim_peers.c: relaxsim's rows of the peers table (scripts/bench_peers.sh, which prints it
 * beside Box2D's and Chipmunk's on the same scenes: box2d_peers.cpp, chipmunk_peers.c). Each scene
 * is a shipped bodies scenario, run by Lemke and by the NLP (IPOPT) through the library, and each
 * quantity is compared with its closed form:
 *
 *   slide      bodies_box_push_slide: a box pushed by 8 N, mu = 0.3: a = F / m - mu g
 *   tip        bodies_tip_above: a tall box pushed at 0.3 m: it tips when F h > m g w / 2; the
 *              threshold by 16 bisections on F (tipped: its angle below -0.01 rad after 2 s)
 *   slip_roll  bodies_disc_slip_roll: a disc thrown at 3 m/s, mu = 0.2: it rolls at 2 m/s
 *   ramp       bodies_ramp_slide: a box on a 30 degree ramp, mu = 0.3: a = g (sin - mu cos)
 *   stack      bodies_stack: five boxes of 1 kg: the contact under box k carries (6 - k) m g
 *              (each interface's force from the bodies' totals: the sum of fz of the boxes above
 *              it, averaged over the last 100 steps); the top box's drift
 *   pile       bodies_pile: 24 bodies dropped into a valley: the largest speed after 2 s, and
 *              the deepest overlap of the final poses, recomputed from them by relaxsim's contact
 *              geometry (geom/contacts.h) as for the peers' poses
 *
 * Accelerations are measured between the run's middle and end, (v(N) - v(N/2)) / (N/2 dt), as the
 * peers' are. Time per step: the wall clock of the whole run (the step's assembly, solve,
 * certificate and statistics) over its steps.
 *
 *   relaxsim_peers SOURCE_DIR                           the rows, tab-separated
 *   relaxsim_peers SOURCE_DIR --poses FILE ENGINE US    the pile's penetration row for an
 *                                                       engine's final poses (NAME x z theta per
 *                                                       line) and its time per step
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timer.h"
#include "geom/contacts.h"
#include "io/scenario.h"
#include "sim/compare.h"

/* A run's columns (state, then forces) after every step. */
typedef struct trace {
    int ncol, steps;
    double *v; /* steps * ncol */
} trace;

/* The run's record of step k: the NLP trajectory's, or Lemke's. */
typedef struct recorder {
    trace *t;
    const rs_model *m;
    int lemke;
} recorder;

static void record(void *ctx, int k, const rs_compare_step *st)
{
    recorder *rc = ctx;
    const rs_step_result *r = rc->lemke ? &st->lemke : &st->nlp;
    double *row = rc->t->v + (size_t)k * rc->t->ncol;
    memcpy(row, r->state_next, sizeof(double) * (size_t)rc->m->nstate);
    memcpy(row + rc->m->nstate, r->forces, sizeof(double) * (size_t)rc->m->nforce);
}

static const char *const engine_name[2] = {"relaxsim NLP (IPOPT)", "relaxsim Lemke"};

/* Load problems/scenarios/NAME.ini with the overrides; exits on error. */
static void load(const char *src, const char *name, const char *const *sets, int nsets,
                 rs_scenario *sc)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/problems/scenarios/%s.ini", src, name);
    rs_error_detail d;
    if (rs_scenario_load(path, sets, nsets, sc, &d) != RS_OK) {
        fprintf(stderr, "relaxsim_peers: %s\n", d.message);
        exit(2);
    }
}

/* Run sc by one backend into t (allocated); the wall-clock microseconds per step. */
static double run(const rs_scenario *sc, int lemke, trace *t)
{
    t->ncol = sc->model->nstate + sc->model->nforce;
    t->steps = sc->steps;
    t->v = malloc(sizeof(double) * (size_t)t->ncol * (size_t)t->steps);
    if (!t->v)
        exit(2);
    recorder rc = {t, sc->model, lemke};
    rs_compare_options opt;
    rs_compare_options_default(&opt);
    opt.keep_steps = 0;
    opt.sink = record;
    opt.sink_ctx = &rc;
    rs_compare_result r;
    const double t0 = rs_wall_seconds();
    if (rs_compare_run_with(sc, lemke ? RS_RUN_LEMKE : RS_RUN_NLP, &opt, &r) != RS_OK) {
        fprintf(stderr, "relaxsim_peers: %s: the run failed to start\n", sc->path);
        exit(2);
    }
    const double us = 1e6 * (rs_wall_seconds() - t0) / sc->steps;
    const rs_trajectory_stats *s = lemke ? &r.lemke : &r.nlp;
    if (s->failed_steps)
        fprintf(stderr, "relaxsim_peers: %s (%s): %d failed steps\n", sc->path,
                engine_name[lemke], s->failed_steps);
    rs_compare_free(&r);
    return us;
}

/* Column NAME (without its unit: "box.xd") of the run's model; exits if absent. */
static int column(const rs_scenario *sc, const char *name)
{
    const rs_model *m = sc->model;
    int c = rs_column_index(m->state_names, m->nstate, name);
    if (c < 0 && m->nforce > 0) {
        c = rs_column_index(m->force_names, m->nforce, name);
        c = c < 0 ? -1 : m->nstate + c;
    }
    if (c < 0) {
        fprintf(stderr, "relaxsim_peers: %s: no column %s\n", sc->path, name);
        exit(2);
    }
    return c;
}

static double at(const trace *t, int step, int col)
{
    return t->v[(size_t)step * t->ncol + col];
}

static void row(const char *scene, int lemke, const char *quantity, double closed, double measured,
                double us)
{
    const double err = closed != 0.0 ? fabs(measured - closed) / fabs(closed) : fabs(measured);
    printf("%s\t%s\t%s\t%.6g\t%.6g\t%.6g\t%.6g\n", scene, engine_name[lemke], quantity, closed,
           measured, err, us);
}

static void slide(const char *src, int lemke)
{
    rs_scenario sc = {0};
    load(src, "bodies_box_push_slide", NULL, 0, &sc);
    trace t;
    const double us = run(&sc, lemke, &t);
    const int xd = column(&sc, "box.xd"), n = sc.steps;
    const double a = (at(&t, n - 1, xd) - at(&t, n / 2 - 1, xd)) / ((n - n / 2) * sc.dt);
    row("slide", lemke, "acceleration (m/s^2)", 8.0 / 2.0 - 0.3 * 9.81, a, us);
    free(t.v);
    rs_scenario_release(&sc);
}

static void tip(const char *src, int lemke)
{
    const double threshold = 2.0 * 9.81 * 0.2 / (2.0 * 0.3);
    double lo = 0.5 * threshold, hi = 1.5 * threshold, us = 0.0;
    for (int k = 0; k < 16; k++) {
        const double F = 0.5 * (lo + hi);
        char ux[64], utau[64];
        snprintf(ux, sizeof ux, "input.box.ux=%.17g", F);
        snprintf(utau, sizeof utau, "input.box.utau=%.17g", -0.1 * F);
        const char *sets[] = {ux, utau, "run.steps=2000"};
        rs_scenario sc = {0};
        load(src, "bodies_tip_above", sets, 3, &sc);
        trace t;
        us += run(&sc, lemke, &t) / 16.0;
        const int th = column(&sc, "box.theta");
        if (at(&t, sc.steps - 1, th) < -0.01)
            hi = F;
        else
            lo = F;
        free(t.v);
        rs_scenario_release(&sc);
    }
    row("tip", lemke, "tipping force (N)", threshold, 0.5 * (lo + hi), us);
}

static void slip_roll(const char *src, int lemke)
{
    rs_scenario sc = {0};
    load(src, "bodies_disc_slip_roll", NULL, 0, &sc);
    trace t;
    const double us = run(&sc, lemke, &t);
    const int n = sc.steps;
    row("slip_roll", lemke, "rolling speed (m/s)", 2.0, at(&t, n - 1, column(&sc, "disc.xd")),
        us);
    row("slip_roll", lemke, "spin x radius (m/s)", 2.0,
        -0.1 * at(&t, n - 1, column(&sc, "disc.thetad")), us);
    free(t.v);
    rs_scenario_release(&sc);
}

static void ramp(const char *src, int lemke)
{
    rs_scenario sc = {0};
    load(src, "bodies_ramp_slide", NULL, 0, &sc);
    trace t;
    const double us = run(&sc, lemke, &t);
    const int xd = column(&sc, "box.xd"), zd = column(&sc, "box.zd"), n = sc.steps;
    const double v1 = hypot(at(&t, n - 1, xd), at(&t, n - 1, zd));
    const double v0 = hypot(at(&t, n / 2 - 1, xd), at(&t, n / 2 - 1, zd));
    const double a30 = 30.0 * 3.14159265358979323846 / 180.0;
    row("ramp", lemke, "acceleration (m/s^2)", 9.81 * (sin(a30) - 0.3 * cos(a30)),
        (v1 - v0) / ((n - n / 2) * sc.dt), us);
    free(t.v);
    rs_scenario_release(&sc);
}

static void stack(const char *src, int lemke)
{
    rs_scenario sc = {0};
    load(src, "bodies_stack", NULL, 0, &sc);
    trace t;
    const double us = run(&sc, lemke, &t);
    const int n = sc.steps;
    int fz[5];
    for (int b = 0; b < 5; b++) {
        char name[32];
        snprintf(name, sizeof name, "b%d.fz", b + 1);
        fz[b] = column(&sc, name);
    }
    for (int k = 0; k < 5; k++) { /* the interface under box k + 1: the weight of boxes k+1..5 */
        double mean = 0.0;
        for (int s = n - 100; s < n; s++)
            for (int b = k; b < 5; b++)
                mean += at(&t, s, fz[b]) / 100.0;
        char q[64];
        snprintf(q, sizeof q, "contact force under box %d (N)", k + 1);
        row("stack", lemke, q, (5 - k) * 9.81, mean, us);
    }
    const double dx = at(&t, n - 1, column(&sc, "b5.x")) - 0.0;
    const double dz = at(&t, n - 1, column(&sc, "b5.z")) - 0.9;
    row("stack", lemke, "drift of the top box (m, absolute)", 0.0, hypot(dx, dz), us);
    free(t.v);
    rs_scenario_release(&sc);
}

/* The deepest overlap (m, >= 0) of the scene's bodies at the poses (3 per body). */
static double deepest_overlap(const rs_scene *s, const double *pose)
{
    double *margin = calloc((size_t)s->nbodies + 1, sizeof(double));
    rs_contact_list l = {0};
    double deepest = 0.0;
    if (!margin || rs_find_contacts(s, pose, margin, 0.0, &l) != RS_OK)
        exit(2);
    for (int i = 0; i < l.n; i++)
        deepest = fmax(deepest, -l.c[i].gap);
    rs_contact_list_free(&l);
    free(margin);
    return deepest;
}

static void pile(const char *src, int lemke)
{
    rs_scenario sc = {0};
    load(src, "bodies_pile", NULL, 0, &sc);
    trace t;
    const double us = run(&sc, lemke, &t);
    const int nb = sc.scene->nbodies, n = sc.steps;
    double *pose = malloc(sizeof(double) * 3 * (size_t)nb), vmax = 0.0;
    for (int b = 0; b < nb; b++) {
        const double *x = t.v + (size_t)(n - 1) * t.ncol + 6 * b; /* x, z, theta, xd, zd, thetad */
        pose[3 * b] = x[0];
        pose[3 * b + 1] = x[1];
        pose[3 * b + 2] = x[2];
        vmax = fmax(vmax, hypot(x[3], x[4]));
    }
    row("pile", lemke, "largest speed at the end (m/s, absolute)", 0.0, vmax, us);
    row("pile", lemke, "penetration (m, absolute)", 0.0, deepest_overlap(sc.scene, pose), us);
    free(pose);
    free(t.v);
    rs_scenario_release(&sc);
}

/* The penetration row of an engine's final pile poses (FILE: NAME x z theta per line). */
static int peer_poses(const char *src, const char *file, const char *engine, double us)
{
    rs_scenario sc = {0};
    load(src, "bodies_pile", NULL, 0, &sc);
    const rs_scene *s = sc.scene;
    double *pose = malloc(sizeof(double) * 3 * (size_t)s->nbodies);
    int *seen = calloc((size_t)s->nbodies, sizeof(int));
    FILE *f = fopen(file, "r");
    if (!f || !pose || !seen) {
        fprintf(stderr, "relaxsim_peers: cannot read %s\n", file);
        return 2;
    }
    char name[64];
    double x, z, th;
    while (fscanf(f, "%63s %lf %lf %lf", name, &x, &z, &th) == 4)
        for (int b = 0; b < s->nbodies; b++)
            if (strcmp(s->bodies[b].name, name) == 0) {
                pose[3 * b] = x;
                pose[3 * b + 1] = z;
                pose[3 * b + 2] = th;
                seen[b] = 1;
            }
    fclose(f);
    for (int b = 0; b < s->nbodies; b++)
        if (!seen[b]) {
            fprintf(stderr, "relaxsim_peers: %s has no pose of %s\n", file, s->bodies[b].name);
            return 2;
        }
    const double d = deepest_overlap(s, pose);
    printf("pile\t%s\tpenetration (m, absolute)\t0\t%.6g\t%.6g\t%.6g\n", engine, d, d, us);
    free(pose);
    free(seen);
    rs_scenario_release(&sc);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[2], "--poses") == 0)
        return peer_poses(argv[1], argv[3], argv[4], atof(argv[5]));
    if (argc != 2) {
        fprintf(stderr, "usage: relaxsim_peers SOURCE_DIR [--poses FILE ENGINE US_PER_STEP]\n");
        return 2;
    }
    for (int lemke = 1; lemke >= 0; lemke--) {
        slide(argv[1], lemke);
        tip(argv[1], lemke);
        slip_roll(argv[1], lemke);
        ramp(argv[1], lemke);
        stack(argv[1], lemke);
        pile(argv[1], lemke);
    }
    return 0;
}
