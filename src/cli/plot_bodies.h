/*
 * plot_bodies.h (internal): the pictures of a comparison of the bodies model (relaxsim plot DIR):
 *   bodies.png  the scene, every body's outline at up to six times (fainter: earlier; the NLP
 *               solid in the body's colour, Lemke dashed in the same hue darker), the path of each
 *               centre, each body's name at its last place; the times the user's (plot --at), or
 *               spread over the motion: from the start to the later of the two runs' rest times
 *               (summary.json's rest_time_s), and the end (the whole run when either never rests);
 *   bodies.gif  the run as an animation (gnuplot's gif terminal, animate; it draws no dashes):
 *               the NLP's bodies filled with a wide outline, Lemke's thin outlines in the darker
 *               hue over them, lasting about the run's time within 3 to 15 s, at most 25
 *               frames a second and 150 in all.
 * Their data: scene.dat (the obstacles), bodies_nlp.dat and bodies_lemke.dat (one index per
 * frame: every body's outline), bodies_nlp_paths.dat and bodies_lemke_paths.dat (one index per
 * body).
 */
#ifndef RS_CLI_PLOT_BODIES_H
#define RS_CLI_PLOT_BODIES_H

#include <stdio.h>

#include "io/outset.h"

#define RS_PLOT_MAX_SNAPSHOTS 12

/* The times of bodies.png's outlines: n of them, increasing (plot --at), or n = 0 and the outlines
 * spread over the motion, which ends at rest_s (NaN: the run never rests). */
typedef struct rs_plot_snapshots {
    int n;
    double t[RS_PLOT_MAX_SNAPSHOTS];
    double rest_s;
} rs_plot_snapshots;

/* Append to the gnuplot script g the commands that draw both pictures from DIR's trajectories and
 * the scene's text (summary.json's scene_text), with title and the outlines at snap's times;
 * writes their data into the set. Returns 1 if scripted, 0 (a message printed) if the scene or a
 * trajectory cannot be read, or a time of snap lies outside the run. */
int rs_plot_bodies(FILE *g, rs_outset *set, const char *dir, const char *scene_text,
                   const char *title, const rs_plot_snapshots *snap);

#endif
