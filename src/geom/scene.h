/*
 * scene.h (internal): a static planar scene of obstacles, and the geometry a contact model asks
 * of it. No physics here.
 *
 * Obstacles are convex polygons (vertices counter-clockwise) and half-planes (ground, walls).
 * Every edge has an outward unit normal n and an offset c, so that
 *
 *     d(p) = n . p - c
 *
 * is the signed distance of a point p from the edge's line (positive outside). Each obstacle's
 * edges form one of Egan's groups (note 004, rules 1-3): p is outside a convex polygon iff
 * d_i(p) >= 0 for at least one of its edges, and outside the scene iff it is outside every
 * obstacle. A non-convex obstacle is given as several convex pieces.
 *
 * The scene owns its arrays; it is built once (rs_scene_add_*) and then only read. Adding an
 * obstacle records the parts of edges it covers, and of its own edges that others cover (edges
 * within 1e-9 m and 1e-9 rad of the same line, with opposite normals); an edge covered entirely
 * is interior.
 */
#ifndef RS_GEOM_SCENE_H
#define RS_GEOM_SCENE_H

#include <stddef.h>

#include "geom/body.h"
#include "relaxsim/error.h"

/* Coordinates are refused beyond this (m): squared distances must not overflow. */
#define RS_SCENE_MAX_COORD 1e12
/* At most this many vertices per polygon and edges per scene. */
#define RS_SCENE_MAX_POLYGON_VERTICES 64
#define RS_SCENE_MAX_EDGES 100000

typedef struct rs_scene_edge {
    double a[2], b[2]; /* end points, counter-clockwise around the polygon (a half-plane: a is
                          a point on its line, b = a) */
    double n[2];       /* outward unit normal */
    double c;          /* offset: d(p) = n . p - c */
    int obstacle;      /* index of the obstacle (Egan's group) it belongs to */
    double cover[2];   /* the part [t0, t1] of a + t (b - a) that edges of other obstacles cover
                          (on the same line, opposite normal: two tiles' shared side, a box's
                          base on the ground): not on the boundary of free space; t0 > t1: none */
    int interior;      /* 1: covered entirely (cover = [0, 1]): never a contact */
    int buried[2];     /* 1: end a (buried[0]) or b (buried[1]) lies within the covered part:
                          a vertex where this obstacle meets another's face (the seam of two
                          abutting boxes, a box's base corner on the ground), never on the
                          boundary of free space as a corner: it carries no vertex contact */
} rs_scene_edge;

typedef struct rs_scene_obstacle {
    int first_edge;    /* its edges are [first_edge, first_edge + nedges) */
    int nedges;        /* >= 3 for a polygon, 1 for a half-plane */
    int is_halfplane;
    int line;          /* its line in the scene file, for messages (0: not from a file) */
} rs_scene_obstacle;

/* A friction coefficient for one pair: bodies a and b (b = -1: a against every static
 * obstacle), in place of the scenario's model.mu. */
typedef struct rs_scene_friction {
    int a, b;    /* a < b (b = -1: the obstacles) */
    double mu;
    int line;
    int swapped; /* the line named b first (its key, model.friction.B.A, keeps that order) */
} rs_scene_friction;

typedef struct rs_scene {
    int nobstacles, nedges;
    rs_scene_obstacle *obstacles;
    rs_scene_edge *edges;
    int cap_obstacles, cap_edges; /* allocated */
    /* the rigid bodies (the bodies model; body.h), in the order declared */
    int nbodies, cap_bodies;
    rs_body *bodies;
    int nfriction, cap_friction;
    rs_scene_friction *friction;
    char name[256];               /* the file (or what messages call it), for messages */
} rs_scene;

/* Add body b (its arrays move into the scene; b is emptied). RS_ERR_BAD_ARG with a reason when
 * its name is taken; RS_ERR_NOMEM. */
rs_error rs_scene_add_body(rs_scene *s, rs_body *b, rs_error_detail *why);

/* The index of the body named name, -1 if none. */
int rs_scene_body_index(const rs_scene *s, const char *name);

/* The name of body b as outputs give it: "static" for b = -1 (the obstacles), "?" for an index
 * the scene has no body at. */
const char *rs_scene_body_name(const rs_scene *s, int b);

/* The index into s->friction of the pair's line (b = -1: an obstacle), -1 if it has none. */
int rs_scene_pair_friction(const rs_scene *s, int a, int b);

/* Record a pair's coefficient; a second one for the same pair replaces the first. */
rs_error rs_scene_set_friction(rs_scene *s, int a, int b, double mu, int line);

/* An empty scene (no allocation until the first obstacle). */
void rs_scene_init(rs_scene *s);
/* Free the scene's arrays; the scene is empty afterwards. NULL is accepted. */
void rs_scene_free(rs_scene *s);

/*
 * Add a convex polygon of nv vertices xy = (x0, y0, x1, y1, ...), counter-clockwise. Refused with
 * RS_ERR_BAD_ARG and a reason in why (a sentence without the file position; NULL: none) when a coordinate is
 * not finite or beyond RS_SCENE_MAX_COORD, nv < 3 or > RS_SCENE_MAX_POLYGON_VERTICES, two
 * consecutive vertices coincide (a zero-length edge), two others coincide (a repeated vertex),
 * two edges cross (a self-intersection), the order is clockwise, a vertex lies on the line of
 * its neighbours, or the polygon is not convex.
 */
rs_error rs_scene_add_polygon(rs_scene *s, int nv, const double *xy, rs_error_detail *why);

/* Add the half-plane {p : n . (p - point) <= 0} as an obstacle: its boundary passes through point
 * and normal (any length > 0) points out of the obstacle, into free space. */
rs_error rs_scene_add_halfplane(rs_scene *s, const double *point, const double *normal,
                                rs_error_detail *why);

/* Signed distance of p from edge e's line (positive on the free side). */
static inline double rs_edge_distance(const rs_scene_edge *e, const double *p)
{
    return e->n[0] * p[0] + e->n[1] * p[1] - e->c;
}

/* Euclidean distance from p to the edge's segment (to the line for a half-plane). */
double rs_edge_segment_distance(const rs_scene_edge *e, const double *p);

/* Distance from p to the part of the edge that is not covered (INFINITY for an interior edge). */
double rs_edge_free_distance(const rs_scene_edge *e, const double *p);

/*
 * How deep p is inside obstacle k: depth = -max_i d_i(p) over its edges; > 0 inside, <= 0
 * outside (outside a polygon, -depth is only a lower bound of the distance: use
 * rs_scene_obstacle_distance for the distance).
 */
double rs_scene_obstacle_depth(const rs_scene *s, int k, const double *p);

/* Euclidean distance from p to obstacle k (0 inside). */
double rs_scene_obstacle_distance(const rs_scene *s, int k, const double *p);

/* The deepest penetration of p into any obstacle (<= 0 when p is in free space). */
double rs_scene_depth(const rs_scene *s, const double *p);

#endif
