/*
 * scene_file.h (internal): reading a scene file (problems/scenarios/NAME.scene).
 *
 * One item per line; '#' starts a comment (to the end of the line); blank lines are skipped.
 * Lengths in metres, angles in radians, decimal numbers.
 *
 *     polygon   x1 y1, x2 y2, x3 y3, ...   a static convex polygon, vertices counter-clockwise
 *     halfplane px py, nx ny               the obstacle n . (p - point) <= 0: its boundary
 *                                          passes through (px, py), n points into free space
 *     body NAME disc r=R [keys]            a rigid body (the bodies model, docs/bodies.md):
 *     body NAME box w=W h=H [keys]         keys m (kg, default 1), inertia (kg m^2, default the
 *     body NAME polygon [keys] vertices x1 z1, x2 z2, ...   uniform shape's), x, z, theta, xd,
 *                                          zd, thetad (the initial state); a polygon's vertices
 *                                          in the body frame, counter-clockwise
 *     friction NAME NAME|static MU         a pair's friction coefficient (static: NAME against
 *                                          every obstacle), in place of the scenario's model.mu
 *
 * Every defect names the file, the line and what is wrong ("walls.scene:4: polygon: the vertices
 * are in clockwise order: list them counter-clockwise"): a non-convex polygon given as one piece,
 * clockwise order, a repeated vertex, a zero-length edge, a self-intersection, a non-finite or
 * malformed coordinate, an unknown keyword or key, a key given twice, a body name used twice or
 * not a name, a mass, size or inertia not > 0, a value beyond its range, a line longer than 4095
 * characters, an empty scene.
 */
#ifndef RS_IO_SCENE_FILE_H
#define RS_IO_SCENE_FILE_H

#include "geom/scene.h"
#include "relaxsim/error.h"

/* Read the scene at path into *scene (initialised here; the caller frees it with rs_scene_free,
 * also on failure). RS_ERR_IO when the file cannot be read, RS_ERR_PARSE for a defect. */
rs_error rs_scene_read(const char *path, rs_scene *scene, rs_error_detail *detail);

/* The same from a scene's text in memory; name stands for the file in messages. */
rs_error rs_scene_read_text(const char *name, const char *text, rs_scene *scene,
                            rs_error_detail *detail);

#endif
