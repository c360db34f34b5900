/*
 * plot_scene.h (internal): the scene picture of `relaxsim plot` for models with obstacles.
 */
#ifndef RS_CLI_PLOT_SCENE_H
#define RS_CLI_PLOT_SCENE_H

#include <stdio.h>

/*
 * Append to the gnuplot script g the commands that draw DIR/scene.png: the obstacles of the scene
 * file (written to DIR/scene.dat), the NLP (solid) and Lemke (dashed) paths from DIR's trajectory
 * CSVs, the steps with a contact force, and for radius > 0 the disc at the first and last step;
 * with edge_lines, every edge's line continued beyond its ends, dotted (Stewart-Trinkle's
 * half-planes: near a convex corner they meet in the virtual edge).
 * Returns 1 if the picture was scripted, 0 (a message printed) if the scene or the trajectories
 * cannot be read.
 */
int rs_plot_scene(FILE *g, const char *dir, const char *scene_path, double radius,
                  int edge_lines, const char *title);

#endif
