/*
 * plot_scene.h (internal): the scene picture of `relaxsim plot` for models with obstacles.
 */
#ifndef RS_CLI_PLOT_SCENE_H
#define RS_CLI_PLOT_SCENE_H

#include <stdio.h>

#include "geom/scene.h"
#include "io/outset.h"

/*
 * Append to the gnuplot script g the commands that draw scene.png: the obstacles of the scene
 * (its text, as summary.json carries it; written to scene.dat of the set), the NLP (solid) and Lemke (dashed) paths of each run (at most
 * RS_PLOT_MAX_RUNS; one run: its steps with a contact force marked), and a disc's outline (a
 * run's radius > 0) at its first and last step;
 * with edge_lines, every edge's line continued beyond its ends, dotted (Stewart-Trinkle's
 * half-planes: near a convex corner they meet in the virtual edge).
 * Returns 1 if the picture was scripted, 0 (a message printed) if the scene or the trajectories
 * cannot be read.
 */
#define RS_PLOT_MAX_RUNS 32

/* One run's trajectories, relative to DIR, and its label ("" for a comparison). */
typedef struct rs_plot_run {
    char nlp[600], lemke[600];
    char label[200];
    double radius; /* the disc's radius (0: a point) */
} rs_plot_run;

/* DIR/scene.dat in the set: one block per obstacle (its closed outline; a half-plane cut by the
 * picture's box x0, x1, z0, z1), blocks separated by two blank lines (gnuplot's index). Returns
 * the number of blocks, -1 if the file cannot be written. */
int rs_plot_scene_dat(rs_outset *set, const rs_scene *sc, const double *box);

int rs_plot_scene(FILE *g, rs_outset *set, const char *dir, const char *scene_text,
                  int edge_lines, const char *title, const rs_plot_run *runs, int nruns);

#endif
