/*
 * plot_bodies.h (internal): the pictures of a comparison of the bodies model (relaxsim plot DIR):
 *   bodies.png  the scene, every body's outline at six times of the run (fainter: earlier; the NLP
 *               solid in the body's colour, Lemke dashed in the same hue darker), the path of each
 *               centre, each body's name at its last place;
 *   bodies.gif  the run as an animation (gnuplot's gif terminal, animate; it draws no dashes):
 *               the NLP's bodies filled with a wide outline, Lemke's thin outlines in the darker
 *               hue over them, at most 150 frames, lasting about the run's time within 3 to 15 s.
 * Their data: scene.dat (the obstacles), bodies_nlp.dat and bodies_lemke.dat (one index per
 * frame: every body's outline), bodies_nlp_paths.dat and bodies_lemke_paths.dat (one index per
 * body).
 */
#ifndef RS_CLI_PLOT_BODIES_H
#define RS_CLI_PLOT_BODIES_H

#include <stdio.h>

#include "io/outset.h"

/* Append to the gnuplot script g the commands that draw both pictures from DIR's trajectories and
 * the scene's text (summary.json's scene_text), with title; writes their data into the set.
 * Returns 1 if scripted, 0 (a message printed) if the scene or a trajectory cannot be read. */
int rs_plot_bodies(FILE *g, rs_outset *set, const char *dir, const char *scene_text,
                   const char *title);

#endif
