/* contacts.c: the contacts of a scene's bodies (see contacts.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/body.h"
#include "geom/contacts.h"

void rs_contact_list_free(rs_contact_list *l)
{
    if (!l)
        return;
    free(l->c);
    free(l->work);
    l->c = NULL;
    l->work = NULL;
    l->n = l->cap = 0;
    l->work_bytes = 0;
}

/* A convex polygon in world coordinates: nv vertices, counter-clockwise, with the outward unit
 * normal of edge i (from vertex i to i + 1) and, for a scene obstacle, its edges (which say
 * which are interior). */
typedef struct world_polygon {
    int nv;
    const double *v;   /* 2 nv */
    const double *n;   /* 2 nv */
    const rs_scene_edge *edges; /* the scene's edges of an obstacle (for interior), or NULL */
    double centre[2];
} world_polygon;

typedef struct finder {
    const rs_scene *s;
    const double *pose;
    rs_contact_list *out;
    double *wv, *wn; /* every body polygon's world vertices and normals, 2 per vertex */
    int *offset;     /* body i's first vertex in wv */
} finder;

static int edge_is_interior(const world_polygon *p, int i)
{
    return p->edges && p->edges[i].interior;
}

/* 1 if vertex i of an obstacle lies where another obstacle's face covers one of its two edges
 * (scene.h: buried): the seam of two abutting boxes, a box's base corner on the ground. Free
 * space there is bounded by the faces alone, whose contacts hold the body; a contact at the
 * vertex, with its normal tilted towards a body beside it, would kick the body as it crosses. */
static int vertex_is_buried(const world_polygon *p, int i)
{
    return p->edges && (p->edges[i].buried[0] || p->edges[(i + p->nv - 1) % p->nv].buried[1]);
}

/* A new contact of body a against body b (b = -1: the static obstacle k) along the unit normal
 * n from b into a, with its gap; the rest zeroed. NULL when out of memory. */
static rs_contact *add_contact(finder *f, int a, int b, int k, const double *n, double gap)
{
    rs_contact_list *l = f->out;
    if (l->n == l->cap) {
        const int cap = l->cap ? 2 * l->cap : 64;
        rs_contact *c = realloc(l->c, sizeof *c * (size_t)cap);
        if (!c)
            return NULL;
        l->c = c;
        l->cap = cap;
    }
    rs_contact *c = &l->c[l->n++];
    memset(c, 0, sizeof *c);
    c->a = a;
    c->b = b;
    c->obstacle = b < 0 ? k : -1;
    c->n[0] = n[0];
    c->n[1] = n[1];
    c->gap = gap;
    return c;
}

/* Fill the lever arms from a's point pa (on a's surface): b's point is pa - gap n. cb: b's centre
 * (NULL for an obstacle: the point itself). */
static void set_point(rs_contact *c, const double *ca, const double *cb, const double *pa)
{
    c->p[0] = pa[0];
    c->p[1] = pa[1];
    c->ra[0] = pa[0] - ca[0];
    c->ra[1] = pa[1] - ca[1];
    const double pb[2] = {pa[0] - c->gap * c->n[0], pa[1] - c->gap * c->n[1]};
    c->rb[0] = cb ? pb[0] - cb[0] : pb[0];
    c->rb[1] = cb ? pb[1] - cb[1] : pb[1];
}

/* Disc a (centre ca, radius r) against the disc b (cb, rb). */
static int disc_disc(finder *f, int a, int b, const double *ca, double r, const double *cb,
                     double rbad, double limit)
{
    const double dx = ca[0] - cb[0], dz = ca[1] - cb[1], d = hypot(dx, dz);
    const double gap = d - r - rbad;
    if (!(gap < limit))
        return 1;
    const double n[2] = {d > 0.0 ? dx / d : 0.0, d > 0.0 ? dz / d : 1.0}; /* concentric: up */
    rs_contact *c = add_contact(f, a, b, -1, n, gap);
    if (!c)
        return 0;
    const double pa[2] = {ca[0] - r * c->n[0], ca[1] - r * c->n[1]};
    set_point(c, ca, cb, pa);
    c->kind = RS_CONTACT_DISC_DISC;
    return 1;
}

/* The closest point of segment [p, q] to x, and its parameter. */
static double closest_on_segment(const double *p, const double *q, const double *x, double *out)
{
    const double ex = q[0] - p[0], ez = q[1] - p[1], len2 = ex * ex + ez * ez;
    double t = len2 > 0.0 ? ((x[0] - p[0]) * ex + (x[1] - p[1]) * ez) / len2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    out[0] = p[0] + t * ex;
    out[1] = p[1] + t * ez;
    return t;
}

/* 1 if x projects beyond an end of P's edge i (t: its clamped parameter) at a buried vertex: the
 * closest point would be that vertex, seen at a slant. At the end itself (x straight above it)
 * the point's normal is the face's, and it is kept. */
static int beyond_buried_end(const world_polygon *P, int i, double t, const double *x)
{
    const int j = (i + 1) % P->nv;
    const double *p = P->v + 2 * i, *q = P->v + 2 * j;
    const double along = (x[0] - p[0]) * (q[0] - p[0]) + (x[1] - p[1]) * (q[1] - p[1]);
    const double len2 = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]);
    return (t <= 0.0 && along < 0.0 && vertex_is_buried(P, i)) ||
           (t >= 1.0 && along > len2 && vertex_is_buried(P, j));
}

/* Disc a (centre ca, radius r) against polygon P (body b, or obstacle k when b = -1). */
static int disc_polygon(finder *f, int a, int b, int k, const double *ca, double r,
                        const world_polygon *P, double limit)
{
    int best = -1;
    double sep = -INFINITY;
    for (int i = 0; i < P->nv; i++) {
        const double *v = P->v + 2 * i, *n = P->n + 2 * i;
        const double s = n[0] * (ca[0] - v[0]) + n[1] * (ca[1] - v[1]);
        if (s > sep && !edge_is_interior(P, i)) {
            sep = s;
            best = i;
        }
    }
    if (best < 0 || sep - r >= limit)
        return 1; /* beyond every face's line by more than the limit: farther still */
    double n[2], gap, q[2] = {0.0, 0.0};
    int feature = best;
    if (sep <= 0.0) { /* the centre is inside: push out through the least-penetrated face */
        n[0] = P->n[2 * best];
        n[1] = P->n[2 * best + 1];
        gap = sep - r;
    } else { /* outside: the closest point of the boundary */
        double dmin = INFINITY;
        for (int i = 0; i < P->nv; i++) {
            if (edge_is_interior(P, i))
                continue;
            double c[2];
            const double t = closest_on_segment(P->v + 2 * i, P->v + 2 * ((i + 1) % P->nv), ca, c);
            const double d = hypot(ca[0] - c[0], ca[1] - c[1]);
            if (beyond_buried_end(P, i, t, ca))
                continue; /* the face beside the vertex, another obstacle's, holds the disc */
            if (d < dmin) {
                dmin = d;
                q[0] = c[0];
                q[1] = c[1];
                feature = t <= 0.0 ? 1000 + i : t >= 1.0 ? 1000 + (i + 1) % P->nv : i;
            }
        }
        if (!(dmin - r < limit))
            return 1;
        n[0] = (ca[0] - q[0]) / dmin;
        n[1] = (ca[1] - q[1]) / dmin;
        gap = dmin - r;
    }
    rs_contact *c = add_contact(f, a, b, k, n, gap);
    if (!c)
        return 0;
    const double pa[2] = {ca[0] - r * n[0], ca[1] - r * n[1]};
    set_point(c, ca, b >= 0 ? P->centre : NULL, pa);
    c->feature = (unsigned long long)feature;
    c->kind = feature >= 1000 ? RS_CONTACT_DISC_VERTEX : RS_CONTACT_DISC_FACE;
    c->face = feature < 1000 ? feature : -1;
    c->vertex = feature >= 1000 ? feature - 1000 : -1;
    return 1;
}

/* 1 if point x of obstacle P (a clipped end of its incident face) is one of its buried vertices
 * and the contact there would push along -rn (out of P) in a direction that is the outward
 * normal of neither exposed face at that vertex: the corner where two abutting obstacles meet,
 * seen by a body's face from the side. Such a vertex is not a corner of free space, and a
 * contact at it kicks a body sliding across the seam (its linearised gap closes though the
 * body's true distance from the faces does not). */
static int at_buried_corner(const world_polygon *P, const double *x, const double *rn)
{
    if (!P->edges)
        return 0;
    for (int i = 0; i < P->nv; i++) {
        const double *v = P->v + 2 * i;
        const double tol = 1e-9 * fmax(1.0, fmax(fabs(v[0]), fabs(v[1])));
        if (fabs(x[0] - v[0]) > tol || fabs(x[1] - v[1]) > tol || !vertex_is_buried(P, i))
            continue;
        for (int k = 0; k < 2; k++) { /* the two faces at vertex i: i - 1 and i */
            const int face = (i + P->nv - k) % P->nv;
            const double *n = P->n + 2 * face;
            if (!edge_is_interior(P, face) && fabs(n[0] + rn[0]) <= 1e-9 &&
                fabs(n[1] + rn[1]) <= 1e-9)
                return 0; /* the push is an exposed face's: an ordinary face contact */
        }
        return 1;
    }
    return 0;
}

/* The largest separation of polygon Q from the face lines of P: max over P's faces i of
 * min over Q's vertices of n_i . (q - p_i); the face in *face. */
static double max_separation(const world_polygon *P, const world_polygon *Q, int *face)
{
    double best = -INFINITY;
    *face = -1;
    for (int i = 0; i < P->nv; i++) {
        if (edge_is_interior(P, i))
            continue;
        const double *n = P->n + 2 * i, *v = P->v + 2 * i;
        double s = INFINITY;
        for (int j = 0; j < Q->nv; j++)
            s = fmin(s, n[0] * (Q->v[2 * j] - v[0]) + n[1] * (Q->v[2 * j + 1] - v[1]));
        if (s > best) {
            best = s;
            *face = i;
        }
    }
    return best;
}

/*
 * Polygon A (body a) against polygon B (body b, or obstacle k when b = -1): the face of largest
 * separation over both is the reference face (B's unless A's is clearly larger: a small bias
 * keeps the choice from flickering between equal faces); the other polygon's face whose normal
 * is most opposed to it is the incident face, clipped to the reference face's ends; each clipped
 * end within the limit is a contact.
 */
static int polygon_polygon(finder *f, int a, int b, int k, const world_polygon *A,
                           const world_polygon *B, double limit)
{
    int fa, fb;
    const double sa = max_separation(A, B, &fa), sb = max_separation(B, A, &fb);
    if (fa < 0 && fb < 0)
        return 1;
    if (sa >= limit || sb >= limit)
        return 1; /* a separating line with more than the limit between them */
    const int ref_is_b = fb >= 0 && (fa < 0 || sb >= sa - 1e-9 * (1.0 + fabs(sa)));
    const world_polygon *R = ref_is_b ? B : A, *I = ref_is_b ? A : B;
    const int rf = ref_is_b ? fb : fa;
    const double *rn = R->n + 2 * rf, *r1 = R->v + 2 * rf, *r2 = R->v + 2 * ((rf + 1) % R->nv);
    int inc = 0;
    double most = INFINITY;
    for (int i = 0; i < I->nv; i++) {
        const double d = rn[0] * I->n[2 * i] + rn[1] * I->n[2 * i + 1];
        if (d < most) {
            most = d;
            inc = i;
        }
    }
    double seg[2][2] = {{I->v[2 * inc], I->v[2 * inc + 1]},
                        {I->v[2 * ((inc + 1) % I->nv)], I->v[2 * ((inc + 1) % I->nv) + 1]}};
    int clipped[2] = {0, 0}; /* per end: moved onto side 1 (r1's) or 2 (r2's) */
    /* clip to the reference face's extent: t . (x - r1) >= 0 and t . (x - r2) <= 0 */
    const double t[2] = {r2[0] - r1[0], r2[1] - r1[1]};
    const double lo = t[0] * r1[0] + t[1] * r1[1], hi = t[0] * r2[0] + t[1] * r2[1];
    for (int side = 0; side < 2; side++) {
        const double d0 = t[0] * seg[0][0] + t[1] * seg[0][1];
        const double d1 = t[0] * seg[1][0] + t[1] * seg[1][1];
        /* side 0 keeps d >= lo, side 1 keeps d <= hi */
        const double e0 = side ? hi - d0 : d0 - lo, e1 = side ? hi - d1 : d1 - lo;
        if (e0 < 0.0 && e1 < 0.0)
            return 1; /* the incident face lies beside the reference face: no overlap */
        if (e0 < 0.0 || e1 < 0.0) {
            const double u = e0 / (e0 - e1);
            const double x[2] = {seg[0][0] + u * (seg[1][0] - seg[0][0]),
                                 seg[0][1] + u * (seg[1][1] - seg[0][1])};
            const int out = e0 < 0.0 ? 0 : 1;
            seg[out][0] = x[0];
            seg[out][1] = x[1];
            clipped[out] = side + 1;
        }
    }
    for (int e = 0; e < 2; e++) {
        const double sep = rn[0] * (seg[e][0] - r1[0]) + rn[1] * (seg[e][1] - r1[1]);
        if (!(sep < limit))
            continue;
        if (!ref_is_b && at_buried_corner(B, seg[e], rn))
            continue; /* a seam's corner seen side-on: the obstacles' faces hold the body */
        /* n points out of B into A: the reference face's normal when it is B's */
        const double n[2] = {ref_is_b ? rn[0] : -rn[0], ref_is_b ? rn[1] : -rn[1]};
        rs_contact *c = add_contact(f, a, b, k, n, sep);
        if (!c)
            return 0;
        if (ref_is_b) { /* the point is on A's incident face */
            set_point(c, A->centre, b >= 0 ? B->centre : NULL, seg[e]);
        } else { /* the point is on B's incident face; A's point is gap further along -rn */
            const double pa[2] = {seg[e][0] + sep * c->n[0], seg[e][1] + sep * c->n[1]};
            set_point(c, A->centre, b >= 0 ? B->centre : NULL, pa);
        }
        c->feature = ((unsigned long long)ref_is_b << 40) | ((unsigned long long)rf << 24) |
                     ((unsigned long long)inc << 8) | (unsigned long long)e;
        c->kind = RS_CONTACT_FACE_CLIP;
        c->ref_b = ref_is_b;
        c->face = rf;
        c->incident = inc;
        c->end = e;
        c->clip = clipped[e];
    }
    return 1;
}

/* Body i as a world polygon (its vertices posed in f->wv). */
static world_polygon body_polygon(const finder *f, int i)
{
    const rs_body *bd = &f->s->bodies[i];
    world_polygon P = {bd->nvert, f->wv + 2 * f->offset[i], f->wn + 2 * f->offset[i], NULL,
                       {f->pose[3 * i], f->pose[3 * i + 1]}};
    return P;
}

/* Obstacle k (a polygon) as a world polygon: its edges' start points and normals, copied to
 * scratch (2 nv each). */
static world_polygon obstacle_polygon(const rs_scene *s, int k, double *v, double *n)
{
    const rs_scene_obstacle *o = &s->obstacles[k];
    double cx = 0.0, cz = 0.0;
    for (int i = 0; i < o->nedges; i++) {
        const rs_scene_edge *e = &s->edges[o->first_edge + i];
        v[2 * i] = e->a[0];
        v[2 * i + 1] = e->a[1];
        n[2 * i] = e->n[0];
        n[2 * i + 1] = e->n[1];
        cx += e->a[0] / o->nedges;
        cz += e->a[1] / o->nedges;
    }
    world_polygon P = {o->nedges, v, n, s->edges + o->first_edge, {cx, cz}};
    return P;
}

/* Body a against the half-plane edge e. */
static int body_halfplane(finder *f, int a, int k, const rs_scene_edge *e, double limit)
{
    const rs_body *bd = &f->s->bodies[a];
    const double *ca = f->pose + 3 * a;
    if (bd->shape == RS_BODY_DISC) {
        const double gap = e->n[0] * ca[0] + e->n[1] * ca[1] - e->c - bd->radius;
        if (!(gap < limit))
            return 1;
        rs_contact *c = add_contact(f, a, -1, k, e->n, gap);
        if (!c)
            return 0;
        const double pa[2] = {ca[0] - bd->radius * e->n[0], ca[1] - bd->radius * e->n[1]};
        set_point(c, ca, NULL, pa);
        c->kind = RS_CONTACT_DISC_HALFPLANE;
        return 1;
    }
    const world_polygon P = body_polygon(f, a);
    for (int i = 0; i < P.nv; i++) {
        const double *v = P.v + 2 * i;
        const double gap = e->n[0] * v[0] + e->n[1] * v[1] - e->c;
        if (!(gap < limit))
            continue;
        rs_contact *c = add_contact(f, a, -1, k, e->n, gap);
        if (!c)
            return 0;
        set_point(c, ca, NULL, v);
        c->feature = 2000 + (unsigned long long)i;
        c->kind = RS_CONTACT_VERTEX_HALFPLANE;
        c->vertex = i;
    }
    return 1;
}

/* A bounding test: could bodies i and j be within limit of each other? */
static int near(const finder *f, int i, int j, double limit)
{
    const double *pi = f->pose + 3 * i, *pj = f->pose + 3 * j;
    const double reach = f->s->bodies[i].extent + f->s->bodies[j].extent + limit;
    return fabs(pi[0] - pj[0]) <= reach && fabs(pi[1] - pj[1]) <= reach &&
           hypot(pi[0] - pj[0], pi[1] - pj[1]) <= reach;
}

rs_error rs_find_contacts(const rs_scene *s, const double *pose, const double *margin,
                          double reach, rs_contact_list *out)
{
    out->n = 0;
    int nv = 0, maxob = 0;
    for (int i = 0; i < s->nbodies; i++)
        nv += s->bodies[i].nvert;
    for (int k = 0; k < s->nobstacles; k++)
        maxob = s->obstacles[k].nedges > maxob ? s->obstacles[k].nedges : maxob;
    const size_t nd = 4 * (size_t)nv + 4 * (size_t)maxob + 1, ni = (size_t)s->nbodies + 1;
    const size_t bytes = sizeof(double) * nd + sizeof(int) * ni;
    if (bytes > out->work_bytes) { /* (the doubles first: the ints after them are aligned) */
        void *w = realloc(out->work, bytes);
        if (!w)
            return RS_ERR_NOMEM;
        out->work = w;
        out->work_bytes = bytes;
    }
    double *scratch = out->work;
    int *offset = (int *)(void *)(scratch + nd);
    finder f = {s, pose, out, scratch, scratch + 2 * nv, offset};
    double *ov = scratch + 4 * nv, *on = ov + 2 * maxob;
    int at = 0;
    for (int i = 0; i < s->nbodies; i++) { /* each polygon's world vertices and normals */
        const rs_body *bd = &s->bodies[i];
        offset[i] = at;
        const double c = cos(pose[3 * i + 2]), sn = sin(pose[3 * i + 2]);
        for (int k = 0; k < bd->nvert; k++) {
            const double *b = bd->v + 2 * k;
            f.wv[2 * (at + k)] = pose[3 * i] + c * b[0] - sn * b[1];
            f.wv[2 * (at + k) + 1] = pose[3 * i + 1] + sn * b[0] + c * b[1];
        }
        for (int k = 0; k < bd->nvert; k++) {
            const double *p = f.wv + 2 * (at + k), *q = f.wv + 2 * (at + (k + 1) % bd->nvert);
            const double len = hypot(q[0] - p[0], q[1] - p[1]);
            f.wn[2 * (at + k)] = (q[1] - p[1]) / len; /* counter-clockwise: outside on the right */
            f.wn[2 * (at + k) + 1] = -(q[0] - p[0]) / len;
        }
        at += bd->nvert;
    }
    int ok = 1;
    for (int i = 0; ok && i < s->nbodies; i++)
        for (int j = i + 1; ok && j < s->nbodies; j++) {
            const double limit = margin[i] + margin[j] + reach;
            if (!near(&f, i, j, limit))
                continue;
            const rs_body *bi = &s->bodies[i], *bj = &s->bodies[j];
            const double *ci = pose + 3 * i, *cj = pose + 3 * j;
            if (bi->shape == RS_BODY_DISC && bj->shape == RS_BODY_DISC) {
                ok = disc_disc(&f, i, j, ci, bi->radius, cj, bj->radius, limit);
            } else if (bi->shape == RS_BODY_DISC) {
                const world_polygon P = body_polygon(&f, j);
                ok = disc_polygon(&f, i, j, -1, ci, bi->radius, &P, limit);
            } else if (bj->shape == RS_BODY_DISC) { /* the disc is a: the normal points into j */
                const world_polygon P = body_polygon(&f, i);
                ok = disc_polygon(&f, j, i, -1, cj, bj->radius, &P, limit);
            } else {
                const world_polygon A = body_polygon(&f, i), B = body_polygon(&f, j);
                ok = polygon_polygon(&f, i, j, -1, &A, &B, limit);
            }
        }
    for (int i = 0; ok && i < s->nbodies; i++) {
        const rs_body *bi = &s->bodies[i];
        const double limit = margin[i] + reach;
        for (int k = 0; ok && k < s->nobstacles; k++) {
            const rs_scene_obstacle *o = &s->obstacles[k];
            if (o->is_halfplane) {
                ok = body_halfplane(&f, i, k, &s->edges[o->first_edge], limit);
                continue;
            }
            const world_polygon P = obstacle_polygon(s, k, ov, on);
            if (bi->shape == RS_BODY_DISC) {
                ok = disc_polygon(&f, i, -1, k, pose + 3 * i, bi->radius, &P, limit);
            } else {
                const world_polygon A = body_polygon(&f, i);
                ok = polygon_polygon(&f, i, -1, k, &A, &P, limit);
            }
        }
    }
    return ok ? RS_OK : RS_ERR_NOMEM;
}
