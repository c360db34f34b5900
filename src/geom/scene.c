/* scene.c: building and validating a scene of convex obstacles, and distances to it (scene.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/scene.h"
#include "core/detail.h"

void rs_scene_init(rs_scene *s)
{
    *s = (rs_scene){0};
}

void rs_scene_free(rs_scene *s)
{
    if (!s)
        return;
    free(s->obstacles);
    free(s->edges);
    for (int i = 0; i < s->nbodies; i++)
        rs_body_free(&s->bodies[i]);
    free(s->bodies);
    free(s->friction);
    rs_scene_init(s);
}

int rs_scene_body_index(const rs_scene *s, const char *name)
{
    for (int i = 0; i < s->nbodies; i++)
        if (strcmp(s->bodies[i].name, name) == 0)
            return i;
    return -1;
}

rs_error rs_scene_add_body(rs_scene *s, rs_body *b, rs_error_detail *why)
{
    const int at = rs_scene_body_index(s, b->name);
    if (at >= 0)
        return rs_detail_set(why, RS_ERR_BAD_ARG,
                             "the name '%s' is taken by the body of line %d: give each body its "
                             "own name", b->name, s->bodies[at].line);
    if (s->nbodies == s->cap_bodies) {
        const int cap = s->cap_bodies ? 2 * s->cap_bodies : 8;
        rs_body *more = realloc(s->bodies, sizeof *more * (size_t)cap);
        if (!more)
            return RS_ERR_NOMEM;
        s->bodies = more;
        s->cap_bodies = cap;
    }
    s->bodies[s->nbodies++] = *b;
    memset(b, 0, sizeof *b); /* its vertices are the scene's now */
    return RS_OK;
}

rs_error rs_scene_set_friction(rs_scene *s, int a, int b, double mu, int line)
{
    const int swapped = b >= 0 && b < a, given = rs_scene_pair_friction(s, a, b);
    if (swapped) {
        const int t = a;
        a = b;
        b = t;
    }
    if (given >= 0) {
        s->friction[given].mu = mu;
        s->friction[given].line = line;
        s->friction[given].swapped = swapped;
        return RS_OK;
    }
    if (s->nfriction == s->cap_friction) {
        const int cap = s->cap_friction ? 2 * s->cap_friction : 8;
        rs_scene_friction *more = realloc(s->friction, sizeof *more * (size_t)cap);
        if (!more)
            return RS_ERR_NOMEM;
        s->friction = more;
        s->cap_friction = cap;
    }
    s->friction[s->nfriction++] = (rs_scene_friction){a, b, mu, line, swapped};
    return RS_OK;
}

const char *rs_scene_body_name(const rs_scene *s, int b)
{
    return b == -1 ? "static" : s && b >= 0 && b < s->nbodies ? s->bodies[b].name : "?";
}

int rs_scene_pair_friction(const rs_scene *s, int a, int b)
{
    if (b >= 0 && b < a) {
        const int t = a;
        a = b;
        b = t;
    }
    for (int i = 0; i < s->nfriction; i++)
        if (s->friction[i].a == a && s->friction[i].b == b)
            return i;
    return -1;
}

/* Room for one more obstacle with nedges edges. */
static rs_error reserve(rs_scene *s, int nedges)
{
    if (s->nedges + nedges > RS_SCENE_MAX_EDGES)
        return RS_ERR_DIMENSION;
    if (s->nobstacles == s->cap_obstacles) {
        const int cap = s->cap_obstacles ? 2 * s->cap_obstacles : 16;
        rs_scene_obstacle *o = realloc(s->obstacles, sizeof *o * (size_t)cap);
        if (!o)
            return RS_ERR_NOMEM;
        s->obstacles = o;
        s->cap_obstacles = cap;
    }
    if (s->nedges + nedges > s->cap_edges) {
        int cap = s->cap_edges ? 2 * s->cap_edges : 64;
        while (cap < s->nedges + nedges)
            cap *= 2;
        rs_scene_edge *e = realloc(s->edges, sizeof *e * (size_t)cap);
        if (!e)
            return RS_ERR_NOMEM;
        s->edges = e;
        s->cap_edges = cap;
    }
    return RS_OK;
}

/* Twice the signed area of the triangle (a, b, c): > 0 when it turns counter-clockwise. */
static double orient(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* 1 if the closed segments [a, b] and [c, d] share a point. */
static int segments_meet(const double *a, const double *b, const double *c, const double *d)
{
    const double o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a),
                 o4 = orient(c, d, b);
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)))
        return 1;
    /* touching: an end point on the other segment */
    const double *p[4] = {c, d, a, b}, *s0[4] = {a, a, c, c}, *s1[4] = {b, b, d, d};
    const double o[4] = {o1, o2, o3, o4};
    for (int k = 0; k < 4; k++)
        if (o[k] == 0.0 && fmin(s0[k][0], s1[k][0]) <= p[k][0] &&
            p[k][0] <= fmax(s0[k][0], s1[k][0]) && fmin(s0[k][1], s1[k][1]) <= p[k][1] &&
            p[k][1] <= fmax(s0[k][1], s1[k][1]))
            return 1;
    return 0;
}

/* The polygon's defects, in the order a person would fix them; RS_OK if it is a valid convex
 * counter-clockwise polygon. Vertices are numbered from 1 in messages. */
rs_error rs_polygon_validate(int nv, const double *xy, rs_error_detail *why)
{
    if (nv < 3)
        return rs_detail_set(why, RS_ERR_BAD_ARG, "a polygon needs at least 3 vertices, got %d",
                             nv);
    if (nv > RS_SCENE_MAX_POLYGON_VERTICES)
        return rs_detail_set(why, RS_ERR_BAD_ARG, "a polygon has at most %d vertices, got %d",
                             RS_SCENE_MAX_POLYGON_VERTICES, nv);
    for (int i = 0; i < 2 * nv; i++) {
        if (!isfinite(xy[i]))
            return rs_detail_set(why, RS_ERR_BAD_ARG, "vertex %d: coordinate %s is not finite",
                                 i / 2 + 1, i % 2 ? "y" : "x");
        if (fabs(xy[i]) > RS_SCENE_MAX_COORD)
            return rs_detail_set(why, RS_ERR_BAD_ARG,
                                 "vertex %d: coordinate %s = %g is beyond +-%g m", i / 2 + 1,
                                 i % 2 ? "y" : "x", xy[i], RS_SCENE_MAX_COORD);
    }
    for (int i = 0; i < nv; i++) {
        const int j = (i + 1) % nv;
        if (xy[2 * i] == xy[2 * j] && xy[2 * i + 1] == xy[2 * j + 1])
            return rs_detail_set(
                why, RS_ERR_BAD_ARG,
                "vertices %d and %d are the same point (%g, %g): a zero-length edge", i + 1, j + 1,
                xy[2 * i], xy[2 * i + 1]);
    }
    for (int i = 0; i < nv; i++)
        for (int j = i + 2; j < nv; j++)
            if (xy[2 * i] == xy[2 * j] && xy[2 * i + 1] == xy[2 * j + 1])
                return rs_detail_set(why, RS_ERR_BAD_ARG,
                                     "vertices %d and %d are the same point (%g, %g): a "
                                     "repeated vertex",
                                     i + 1, j + 1, xy[2 * i], xy[2 * i + 1]);
    for (int i = 0; i < nv; i++) /* edges i -> i+1 and j -> j+1 that are not neighbours */
        for (int j = i + 2; j < nv; j++) {
            if (i == 0 && j == nv - 1)
                continue;
            if (segments_meet(xy + 2 * i, xy + 2 * ((i + 1) % nv), xy + 2 * j,
                              xy + 2 * ((j + 1) % nv)))
                return rs_detail_set(why, RS_ERR_BAD_ARG,
                                     "edges %d-%d and %d-%d cross: the polygon intersects itself",
                                     i + 1, (i + 1) % nv + 1, j + 1, (j + 1) % nv + 1);
        }
    double area2 = 0.0;
    for (int i = 0; i < nv; i++) {
        const int j = (i + 1) % nv;
        area2 += xy[2 * i] * xy[2 * j + 1] - xy[2 * j] * xy[2 * i + 1];
    }
    if (area2 < 0.0)
        return rs_detail_set(why, RS_ERR_BAD_ARG,
                             "the vertices are in clockwise order: list them counter-clockwise");
    for (int k = 0; k < nv; k++) {
        const double *prev = xy + 2 * ((k + nv - 1) % nv), *v = xy + 2 * k,
                     *next = xy + 2 * ((k + 1) % nv);
        const double turn = orient(prev, v, next);
        const double scale =
            hypot(v[0] - prev[0], v[1] - prev[1]) * hypot(next[0] - v[0], next[1] - v[1]);
        if (turn < -1e-12 * scale)
            return rs_detail_set(why, RS_ERR_BAD_ARG,
                                 "not convex at vertex %d (a body must be convex; a "
                                 "non-convex obstacle can be given as several convex polygons)",
                                 k + 1);
        if (turn <= 1e-12 * scale)
            return rs_detail_set(why, RS_ERR_BAD_ARG,
                                 "vertex %d lies on the line through its neighbours: "
                                 "remove it",
                                 k + 1);
    }
    return RS_OK;
}

/* The part of edge e that edge cov covers: the same line with opposite normals (within 1e-9 m and
 * 1e-9 rad, relative to the size of the coordinates: a shared side typed twice in a file rounds
 * differently), as an interval [*t0, *t1] of e's parameter t (e.a + t (e.b - e.a)); 0 if none. A
 * half-plane's line covers every segment on it and is covered by none. */
static int covered_part(const rs_scene_edge *cov, const rs_scene_edge *e, double *t0, double *t1)
{
    const double scale = fmax(1.0, fmax(fmax(fabs(e->a[0]), fabs(e->a[1])),
                                        fmax(fabs(e->b[0]), fabs(e->b[1]))));
    const double tol = 1e-9 * scale;
    if (fabs(cov->n[0] + e->n[0]) > 1e-9 || fabs(cov->n[1] + e->n[1]) > 1e-9 ||
        fabs(cov->c + e->c) > tol)
        return 0;
    const double dx = e->b[0] - e->a[0], dy = e->b[1] - e->a[1];
    const double len2 = dx * dx + dy * dy;
    if (len2 == 0.0) /* e is a half-plane's line */
        return 0;
    if (cov->a[0] == cov->b[0] && cov->a[1] == cov->b[1]) { /* cov is a half-plane's line */
        *t0 = 0.0;
        *t1 = 1.0;
        return 1;
    }
    const double sa = ((cov->a[0] - e->a[0]) * dx + (cov->a[1] - e->a[1]) * dy) / len2;
    const double sb = ((cov->b[0] - e->a[0]) * dx + (cov->b[1] - e->a[1]) * dy) / len2;
    const double slack = tol / sqrt(len2);
    *t0 = fmax(0.0, fmin(sa, sb) - slack);
    *t1 = fmin(1.0, fmax(sa, sb) + slack);
    if (*t0 < slack)
        *t0 = 0.0;
    if (*t1 > 1.0 - slack)
        *t1 = 1.0;
    return *t1 - *t0 > slack;
}

/* Add [t0, t1] to e's covered part: merged when the two overlap, else the longer one is kept (a
 * part not recorded stays a contact, the safe side). */
static void add_cover(rs_scene_edge *e, double t0, double t1)
{
    if (e->cover[0] > e->cover[1] || (t0 <= e->cover[1] && t1 >= e->cover[0])) {
        const int empty = e->cover[0] > e->cover[1];
        e->cover[0] = empty ? t0 : fmin(e->cover[0], t0);
        e->cover[1] = empty ? t1 : fmax(e->cover[1], t1);
    } else if (t1 - t0 > e->cover[1] - e->cover[0]) {
        e->cover[0] = t0;
        e->cover[1] = t1;
    }
    e->interior = e->cover[0] == 0.0 && e->cover[1] == 1.0;
    e->buried[0] |= t0 == 0.0; /* an end once covered stays buried, whichever part is kept */
    e->buried[1] |= t1 == 1.0;
}

/* Record the covered parts between the obstacle just added (edges from first on) and the others. */
static void mark_interior(rs_scene *s, int first)
{
    for (int i = first; i < s->nedges; i++) {
        s->edges[i].cover[0] = 1.0; /* empty */
        s->edges[i].cover[1] = 0.0;
        s->edges[i].interior = 0;
        s->edges[i].buried[0] = s->edges[i].buried[1] = 0;
    }
    for (int i = first; i < s->nedges; i++)
        for (int j = 0; j < first; j++) {
            double t0, t1;
            if (covered_part(&s->edges[j], &s->edges[i], &t0, &t1))
                add_cover(&s->edges[i], t0, t1);
            if (covered_part(&s->edges[i], &s->edges[j], &t0, &t1))
                add_cover(&s->edges[j], t0, t1);
        }
}

rs_error rs_scene_add_polygon(rs_scene *s, int nv, const double *xy, rs_error_detail *why)
{
    if (!s || !xy)
        return RS_ERR_NULL_ARG;
    rs_error err = rs_polygon_validate(nv, xy, why);
    if (err != RS_OK)
        return err;
    if ((err = reserve(s, nv)) != RS_OK)
        return err == RS_ERR_DIMENSION
                   ? rs_detail_set(why, RS_ERR_BAD_ARG, "a scene has at most %d edges",
                                   RS_SCENE_MAX_EDGES)
                   : err;
    rs_scene_obstacle *o = &s->obstacles[s->nobstacles];
    *o = (rs_scene_obstacle){s->nedges, nv, 0, 0};
    for (int i = 0; i < nv; i++) {
        rs_scene_edge *e = &s->edges[s->nedges + i];
        const double *a = xy + 2 * i, *b = xy + 2 * ((i + 1) % nv);
        const double len = hypot(b[0] - a[0], b[1] - a[1]);
        e->a[0] = a[0];
        e->a[1] = a[1];
        e->b[0] = b[0];
        e->b[1] = b[1];
        /* counter-clockwise: the outside is on the right of a -> b */
        e->n[0] = (b[1] - a[1]) / len;
        e->n[1] = -(b[0] - a[0]) / len;
        e->c = e->n[0] * a[0] + e->n[1] * a[1];
        e->obstacle = s->nobstacles;
    }
    s->nedges += nv;
    s->nobstacles++;
    mark_interior(s, s->nedges - nv);
    return RS_OK;
}

rs_error rs_scene_add_halfplane(rs_scene *s, const double *point, const double *normal,
                                rs_error_detail *why)
{
    if (!s || !point || !normal)
        return RS_ERR_NULL_ARG;
    for (int i = 0; i < 2; i++) {
        if (!isfinite(point[i]) || !isfinite(normal[i]))
            return rs_detail_set(why, RS_ERR_BAD_ARG, "%s %s is not finite",
                                 i ? "y of the" : "x of the",
                                 isfinite(point[i]) ? "normal" : "point");
        if (fabs(point[i]) > RS_SCENE_MAX_COORD || fabs(normal[i]) > RS_SCENE_MAX_COORD)
            return rs_detail_set(why, RS_ERR_BAD_ARG, "a coordinate is beyond +-%g m",
                                 RS_SCENE_MAX_COORD);
    }
    const double len = hypot(normal[0], normal[1]);
    if (!(len > 0.0))
        return rs_detail_set(why, RS_ERR_BAD_ARG, "the normal (0, 0) has no direction");
    rs_error err = reserve(s, 1);
    if (err != RS_OK)
        return err == RS_ERR_DIMENSION
                   ? rs_detail_set(why, RS_ERR_BAD_ARG, "a scene has at most %d edges",
                                   RS_SCENE_MAX_EDGES)
                   : err;
    s->obstacles[s->nobstacles] = (rs_scene_obstacle){s->nedges, 1, 1, 0};
    rs_scene_edge *e = &s->edges[s->nedges];
    e->a[0] = e->b[0] = point[0];
    e->a[1] = e->b[1] = point[1];
    e->n[0] = normal[0] / len;
    e->n[1] = normal[1] / len;
    e->c = e->n[0] * point[0] + e->n[1] * point[1];
    e->obstacle = s->nobstacles;
    s->nedges++;
    s->nobstacles++;
    mark_interior(s, s->nedges - 1);
    return RS_OK;
}

double rs_edge_segment_distance(const rs_scene_edge *e, const double *p)
{
    const double dx = e->b[0] - e->a[0], dy = e->b[1] - e->a[1];
    const double len2 = dx * dx + dy * dy;
    if (len2 == 0.0) /* a half-plane's line */
        return fabs(rs_edge_distance(e, p));
    double t = ((p[0] - e->a[0]) * dx + (p[1] - e->a[1]) * dy) / len2;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return hypot(p[0] - (e->a[0] + t * dx), p[1] - (e->a[1] + t * dy));
}

/* Distance from p to the segment a + t (b - a), t in [t0, t1]. */
static double part_distance(const rs_scene_edge *e, const double *p, double t0, double t1)
{
    const double dx = e->b[0] - e->a[0], dy = e->b[1] - e->a[1];
    const double len2 = dx * dx + dy * dy;
    double t = ((p[0] - e->a[0]) * dx + (p[1] - e->a[1]) * dy) / len2;
    t = t < t0 ? t0 : t > t1 ? t1 : t;
    return hypot(p[0] - (e->a[0] + t * dx), p[1] - (e->a[1] + t * dy));
}

double rs_edge_free_distance(const rs_scene_edge *e, const double *p)
{
    if (e->interior)
        return INFINITY;
    if (e->cover[0] > e->cover[1]) /* nothing covered */
        return rs_edge_segment_distance(e, p);
    double d = INFINITY;
    if (e->cover[0] > 0.0)
        d = part_distance(e, p, 0.0, e->cover[0]);
    if (e->cover[1] < 1.0)
        d = fmin(d, part_distance(e, p, e->cover[1], 1.0));
    return d;
}

double rs_scene_obstacle_depth(const rs_scene *s, int k, const double *p)
{
    const rs_scene_obstacle *o = &s->obstacles[k];
    double dmax = -INFINITY;
    for (int i = o->first_edge; i < o->first_edge + o->nedges; i++) {
        const double d = rs_edge_distance(&s->edges[i], p);
        dmax = d > dmax ? d : dmax;
    }
    return -dmax;
}

double rs_scene_obstacle_distance(const rs_scene *s, int k, const double *p)
{
    const rs_scene_obstacle *o = &s->obstacles[k];
    if (rs_scene_obstacle_depth(s, k, p) >= 0.0)
        return 0.0;
    if (o->is_halfplane)
        return rs_edge_distance(&s->edges[o->first_edge], p);
    double dmin = INFINITY;
    for (int i = o->first_edge; i < o->first_edge + o->nedges; i++) {
        const double d = rs_edge_segment_distance(&s->edges[i], p);
        dmin = d < dmin ? d : dmin;
    }
    return dmin;
}

double rs_scene_depth(const rs_scene *s, const double *p)
{
    double depth = -INFINITY;
    for (int k = 0; k < s->nobstacles; k++) {
        const double d = rs_scene_obstacle_depth(s, k, p);
        depth = d > depth ? d : depth;
    }
    return depth;
}
