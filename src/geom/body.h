/*
 * body.h (internal): the rigid bodies of a scene, as shapes with mass: a disc or a convex
 * polygon (a box is a polygon) in the vertical x-z plane, with its own frame. No dynamics here.
 *
 * A body's pose is (x, z, theta): the position of its centre of mass and its angle, positive
 * counter-clockwise (from +x towards +z). A point b of the body frame is at
 *     p = (x, z) + R(theta) b,    R(theta) = [[cos theta, -sin theta], [sin theta, cos theta]].
 * A polygon's vertices are given in the body frame, counter-clockwise; they are moved so that the
 * frame's origin is the polygon's centroid (a uniform body's centre of mass), which the pose
 * follows. The moment of inertia about the centre of mass is m times the shape's inertia per
 * unit mass (uniform density) unless the scene gives it.
 */
#ifndef RS_GEOM_BODY_H
#define RS_GEOM_BODY_H

#include "relaxsim/error.h"

#define RS_BODY_NAME_LEN 32

typedef enum rs_body_shape { RS_BODY_DISC = 0, RS_BODY_POLYGON = 1 } rs_body_shape;

typedef struct rs_body {
    char name[RS_BODY_NAME_LEN]; /* letters, digits, '_': a scenario key's part ("box1") */
    rs_body_shape shape;
    int is_box;           /* a polygon given as a box (width w, height h) */
    double w, h;          /* the box's sides, m */
    double radius;        /* a disc's radius, m */
    int nvert;            /* a polygon's vertices, about the centroid, counter-clockwise */
    double *v;            /* (x0, z0, x1, z1, ...), owned */
    double shift[2];      /* how far the given vertices were moved to centre them, m */
    double mass;          /* kg, the default of the scenario key model.<name>.m */
    double inertia;       /* kg m^2 given in the scene, or 0: mass times inertia_per_kg */
    double inertia_per_kg;/* the uniform shape's, about its centroid, m^2 */
    double extent;        /* the largest distance from the centre of mass to the shape, m */
    double initial[6];    /* the default initial state: x, z, theta, xd, zd, thetad */
    int locked;           /* rotation locked (rotation=locked): the angle never changes, as if
                             the inertia were infinite */
    int line;             /* where the scene declares it (1-based; 0: built in code) */
} rs_body;

/* A disc of radius r; RS_ERR_BAD_ARG with a reason (r not finite and > 0). */
rs_error rs_body_set_disc(rs_body *b, double r, rs_error_detail *why);

/* A box w by h, centred, sides along the body frame's axes. */
rs_error rs_body_set_box(rs_body *b, double w, double h, rs_error_detail *why);

/* A convex polygon of nv vertices xy (body frame, counter-clockwise); refused for the defects
 * of rs_polygon_validate. b->v is allocated (rs_body_free). */
rs_error rs_body_set_polygon(rs_body *b, int nv, const double *xy, rs_error_detail *why);

void rs_body_free(rs_body *b);

/* The moment of inertia about the centre of mass for mass m (kg m^2). */
static inline double rs_body_inertia(const rs_body *b, double m)
{
    return b->locked ? 1.0 / 0.0 : b->inertia > 0.0 ? b->inertia : m * b->inertia_per_kg;
}

/* The polygon's defects (convex, counter-clockwise, no repeated vertex, no crossing, finite);
 * RS_OK for a valid polygon. The same rules as a scene's obstacles (scene.h). */
rs_error rs_polygon_validate(int nv, const double *xy, rs_error_detail *why);

#endif
