/*
 * bodies_tangent.c: the bodies model's step derivatives for `relaxsim grad`: the tangents of the
 * step LCP (M, q) and of the recovery (next state, forces) along a direction in the step's data
 * (parameters: g, mu, the masses; the state; the inputs; dt), the step's contact set held fixed
 * (the same features touch: a change of the set between two runs is a switch, as a change of
 * the LCP's index sets is).
 *
 * By the complex step: every quantity of the step is evaluated once more in complex arithmetic
 * at data + i h t (h = 1e-100), from the poses through the contacts' geometry (each contact's
 * features, as rs_find_contacts found them: geom/contacts.h) to (M, q) and to the recovered
 * state; its imaginary part over h is the directional derivative, exact to rounding (no
 * difference is taken: nothing cancels). The formulas are bodies_lcp.c's; test_bodies checks that
 * the complex evaluation at h = 0 gives bodies_lcp.c's (M, q) and recovery, and the tangents
 * against central differences.
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/bodies_rows.h"

typedef double complex cx;

#define CSTEP 1e-100

/* The step's data in complex: params, state, input, dt each + i h t. */
typedef struct cdata {
    const rs_step_data *d;
    const bodies_step *s;
    int nb;
    cx *params, *state, *input, dt;
    cx *mass, *inertia, *vfree; /* per body; inertia: 0 for a locked rotation (W's 1/I = 0) */
    cx *inv_inertia;
} cdata;

static cx cdot(const cx *a, const cx *b)
{
    return a[0] * b[0] + a[1] * b[1];
}

static cx ccross(const cx *r, const cx *e)
{
    return r[0] * e[1] - r[1] * e[0];
}

/* The complex numbers of cdata's arrays. */
static size_t cdata_size(const rs_step_data *d)
{
    const size_t nb = (size_t)d->scene->nbodies;
    return (size_t)bodies_nparams(d->scene) + 6 * nb + 3 * nb + 6 * nb;
}

/* c's data at d + i h t (t NULL: h = 0), its arrays in block (cdata_size). */
static void cdata_init(cdata *c, const rs_step_data *d, const bodies_step *s,
                       const rs_step_tangent *t, cx *block)
{
    memset(c, 0, sizeof *c);
    c->d = d;
    c->s = s;
    c->nb = s->nb;
    const int nb = c->nb, np = bodies_nparams(d->scene);
    c->params = block;
    c->state = c->params + np;
    c->input = c->state + 6 * nb;
    c->mass = c->input + 3 * nb;
    c->inertia = c->mass + nb;
    c->inv_inertia = c->inertia + nb;
    c->vfree = c->inv_inertia + nb;
    const double h = t ? CSTEP : 0.0;
    for (int i = 0; i < np; i++)
        c->params[i] = d->params[i] + I * h * (t ? t->params[i] : 0.0);
    for (int i = 0; i < 6 * nb; i++)
        c->state[i] = d->state[i] + I * h * (t ? t->state[i] : 0.0);
    for (int i = 0; i < 3 * nb; i++)
        c->input[i] = d->input[i] + I * h * (t ? t->input[i] : 0.0);
    c->dt = d->dt + I * h * (t ? t->dt : 0.0);
    const cx g = c->params[BP_G];
    for (int b = 0; b < nb; b++) {
        const rs_body *bd = &d->scene->bodies[b];
        const cx m = c->params[BP_MASS0 + b];
        c->mass[b] = m;
        c->inertia[b] = bd->locked ? 0.0 : bd->inertia > 0.0 ? bd->inertia : m * bd->inertia_per_kg;
        c->inv_inertia[b] = bd->locked ? 0.0 : 1.0 / c->inertia[b];
        const cx *x = c->state + BS_N * b, *u = c->input + BU_N * b;
        c->vfree[3 * b] = x[BS_XD] + c->dt * u[BU_X] / m;
        c->vfree[3 * b + 1] = x[BS_ZD] + c->dt * (u[BU_Z] / m - g);
        c->vfree[3 * b + 2] = x[BS_THD] + c->dt * u[BU_TAU] * c->inv_inertia[b];
    }
}

/* Vertex k of body b at its complex pose. */
static void body_vertex(const cdata *c, int b, int k, cx *out)
{
    const rs_body *bd = &c->d->scene->bodies[b];
    const cx *x = c->state + BS_N * b;
    const cx co = ccos(x[BS_TH]), si = csin(x[BS_TH]);
    const double *v = bd->v + 2 * (k % bd->nvert);
    out[0] = x[BS_X] + co * v[0] - si * v[1];
    out[1] = x[BS_Z] + si * v[0] + co * v[1];
}

/* Vertex k of a polygon: body b's (b >= 0) or static obstacle ob's. */
static void poly_vertex(const cdata *c, int b, int ob, int k, cx *out)
{
    if (b >= 0) {
        body_vertex(c, b, k, out);
        return;
    }
    const rs_scene *sc = c->d->scene;
    const rs_scene_obstacle *o = &sc->obstacles[ob];
    const rs_scene_edge *e = &sc->edges[o->first_edge + k % o->nedges];
    out[0] = e->a[0];
    out[1] = e->a[1];
}

/* The outward normal of face k (from vertex k to k + 1, counter-clockwise) of a polygon. */
static void poly_normal(const cdata *c, int b, int ob, int k, cx *n)
{
    cx p[2], q[2];
    poly_vertex(c, b, ob, k, p);
    poly_vertex(c, b, ob, k + 1, q);
    const cx ex = q[0] - p[0], ez = q[1] - p[1], len = csqrt(ex * ex + ez * ez);
    n[0] = ez / len;
    n[1] = -ex / len;
}

/* The geometry of contact ct (its features fixed) at the complex poses: n, gap, ra, rb. */
typedef struct cgeom {
    cx n[2], t[2], gap, ra[2], rb[2];
} cgeom;

static void contact_geometry(const cdata *c, const rs_contact *ct, cgeom *g)
{
    const rs_scene *sc = c->d->scene;
    const cx *xa = c->state + BS_N * ct->a;
    const cx ca[2] = {xa[BS_X], xa[BS_Z]};
    cx cb[2] = {0.0, 0.0}, pa[2];
    if (ct->b >= 0) {
        cb[0] = c->state[BS_N * ct->b + BS_X];
        cb[1] = c->state[BS_N * ct->b + BS_Z];
    }
    const double ra_r = sc->bodies[ct->a].radius;
    switch (ct->kind) {
    case RS_CONTACT_DISC_DISC: {
        const cx dx = ca[0] - cb[0], dz = ca[1] - cb[1], len = csqrt(dx * dx + dz * dz);
        g->n[0] = dx / len;
        g->n[1] = dz / len;
        g->gap = len - ra_r - sc->bodies[ct->b].radius;
        pa[0] = ca[0] - ra_r * g->n[0];
        pa[1] = ca[1] - ra_r * g->n[1];
        break;
    }
    case RS_CONTACT_DISC_HALFPLANE:
    case RS_CONTACT_VERTEX_HALFPLANE: {
        const rs_scene_edge *e = &sc->edges[sc->obstacles[ct->obstacle].first_edge];
        g->n[0] = e->n[0];
        g->n[1] = e->n[1];
        if (ct->kind == RS_CONTACT_DISC_HALFPLANE) {
            g->gap = cdot(g->n, ca) - e->c - ra_r;
            pa[0] = ca[0] - ra_r * g->n[0];
            pa[1] = ca[1] - ra_r * g->n[1];
        } else {
            body_vertex(c, ct->a, ct->vertex, pa);
            g->gap = cdot(g->n, pa) - e->c;
        }
        break;
    }
    case RS_CONTACT_DISC_FACE: {
        cx v[2];
        poly_normal(c, ct->b, ct->obstacle, ct->face, g->n);
        poly_vertex(c, ct->b, ct->obstacle, ct->face, v);
        const cx d[2] = {ca[0] - v[0], ca[1] - v[1]};
        g->gap = cdot(g->n, d) - ra_r;
        pa[0] = ca[0] - ra_r * g->n[0];
        pa[1] = ca[1] - ra_r * g->n[1];
        break;
    }
    case RS_CONTACT_DISC_VERTEX: {
        cx q[2];
        poly_vertex(c, ct->b, ct->obstacle, ct->vertex, q);
        const cx dx = ca[0] - q[0], dz = ca[1] - q[1], len = csqrt(dx * dx + dz * dz);
        g->n[0] = dx / len;
        g->n[1] = dz / len;
        g->gap = len - ra_r;
        pa[0] = ca[0] - ra_r * g->n[0];
        pa[1] = ca[1] - ra_r * g->n[1];
        break;
    }
    case RS_CONTACT_FACE_CLIP: {
        /* the reference polygon (R) and the incident one (P) */
        const int rb_body = ct->ref_b ? ct->b : ct->a, rb_ob = ct->ref_b ? ct->obstacle : -1;
        const int pb_body = ct->ref_b ? ct->a : ct->b, pb_ob = ct->ref_b ? -1 : ct->obstacle;
        cx r1[2], r2[2], rn[2], s0[2], s1[2], point[2];
        poly_vertex(c, rb_body, rb_ob, ct->face, r1);
        poly_vertex(c, rb_body, rb_ob, ct->face + 1, r2);
        poly_normal(c, rb_body, rb_ob, ct->face, rn);
        poly_vertex(c, pb_body, pb_ob, ct->incident, s0);
        poly_vertex(c, pb_body, pb_ob, ct->incident + 1, s1);
        if (ct->clip == 0) {
            point[0] = ct->end ? s1[0] : s0[0];
            point[1] = ct->end ? s1[1] : s0[1];
        } else { /* where the incident edge's line meets the reference face's side line */
            const cx t[2] = {r2[0] - r1[0], r2[1] - r1[1]};
            const cx level = cdot(t, ct->clip == 1 ? r1 : r2);
            const cx ds[2] = {s1[0] - s0[0], s1[1] - s0[1]};
            const cx u = (level - cdot(t, s0)) / cdot(t, ds);
            point[0] = s0[0] + u * ds[0];
            point[1] = s0[1] + u * ds[1];
        }
        const cx d[2] = {point[0] - r1[0], point[1] - r1[1]};
        g->gap = cdot(rn, d);
        const double sgn = ct->ref_b ? 1.0 : -1.0;
        g->n[0] = sgn * rn[0];
        g->n[1] = sgn * rn[1];
        pa[0] = ct->ref_b ? point[0] : point[0] + g->gap * g->n[0];
        pa[1] = ct->ref_b ? point[1] : point[1] + g->gap * g->n[1];
        break;
    }
    }
    const cx pb[2] = {pa[0] - g->gap * g->n[0], pa[1] - g->gap * g->n[1]};
    g->ra[0] = pa[0] - ca[0];
    g->ra[1] = pa[1] - ca[1];
    g->rb[0] = pb[0] - cb[0];
    g->rb[1] = pb[1] - cb[1];
    g->t[0] = g->n[1];
    g->t[1] = -g->n[0];
}

/* The relative velocity along e at contact (ct, g) for the generalised velocities v. */
static cx rel_velocity(const rs_contact *ct, const cgeom *g, const cx *e, const cx *v)
{
    const cx *va = v + 3 * ct->a;
    cx s = cdot(e, va) + va[2] * ccross(g->ra, e);
    if (ct->b >= 0) {
        const cx *vb = v + 3 * ct->b;
        s -= cdot(e, vb) + vb[2] * ccross(g->rb, e);
    }
    return s;
}

/* The direction of unknown k of a contact (0: n, 1: t, 2: -t); 0 for gamma. */
static int cdirection(const cgeom *g, int k, cx *e)
{
    if (k == 0) {
        e[0] = g->n[0];
        e[1] = g->n[1];
    } else if (k == 1 || k == 2) {
        const double s = k == 1 ? 1.0 : -1.0;
        e[0] = s * g->t[0];
        e[1] = s * g->t[1];
    }
    return k < 3;
}

static cx ccoupling(const cdata *c, const rs_contact *ci, const cgeom *gi, const cx *e,
                    const rs_contact *cj, const cgeom *gj, const cx *f)
{
    cx v = 0.0;
    const int bi[2] = {ci->a, ci->b}, bj[2] = {cj->a, cj->b};
    const cx *ri[2] = {gi->ra, gi->rb}, *rj[2] = {gj->ra, gj->rb};
    for (int x = 0; x < 2; x++)
        for (int y = 0; y < 2; y++) {
            if (bi[x] < 0 || bi[x] != bj[y])
                continue;
            const int b = bi[x];
            const double sign = (x == 0 ? 1.0 : -1.0) * (y == 0 ? 1.0 : -1.0);
            v += sign * c->dt *
                 (cdot(e, f) / c->mass[b] +
                  ccross(ri[x], e) * ccross(rj[y], f) * c->inv_inertia[b]);
        }
    return v;
}

/* (M, q) in complex (n = the step's LCP size), with the geometry of every contact. */
static void cbuild(const cdata *c, cx *M, cx *q, cgeom *geo)
{
    const bodies_step *s = c->s;
    const int n = s->nz, nc = s->list.n;
    for (int i = 0; i < nc; i++)
        contact_geometry(c, &s->list.c[i], &geo[i]);
    for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
        M[k] = 0.0;
    for (int k = 0; k < n; k++)
        q[k] = 0.0;
    for (int j = 0; j < nc; j++) {
        const rs_contact *cj = &s->list.c[j];
        /* the pair's mu: its friction line's parameter, else model.mu (each moves with its key) */
        const cx mu = c->params[bodies_mu_param(c->d->scene, cj->a, cj->b)];
        const int rows = s->mu[j] > 0.0 ? 3 : 1, r0 = s->block[j].first; /* (block j: contact j) */
        for (int rk = 0; rk < rows; rk++) {
            cx f[2];
            cdirection(&geo[j], rk, f);
            const int row = r0 + rk;
            q[row] = rel_velocity(cj, &geo[j], f, c->vfree) + (rk == 0 ? geo[j].gap / c->dt : 0.0);
            for (int i = 0; i < nc; i++) {
                const rs_contact *ci = &s->list.c[i];
                const int cols = s->mu[i] > 0.0 ? 3 : 1;
                for (int ck = 0; ck < cols; ck++) {
                    cx e[2];
                    cdirection(&geo[i], ck, e);
                    M[row + (size_t)(s->block[i].first + ck) * n] =
                        ccoupling(c, ci, &geo[i], e, cj, &geo[j], f);
                }
            }
            if (rk > 0)
                M[row + (size_t)(r0 + 3) * n] = 1.0;
        }
        if (rows == 3) {
            const int row = r0 + 3;
            M[row + (size_t)r0 * n] = mu;
            M[row + (size_t)(r0 + 1) * n] = -1.0;
            M[row + (size_t)(r0 + 2) * n] = -1.0;
        }
    }
}

/* The recovery in complex: the contact forces from z, the bodies' totals and v', the state. */
static void crecover(const cdata *c, const cgeom *geo, const cx *z, cx *sn, cx *forces)
{
    const bodies_step *s = c->s;
    const int nb = c->nb;
    for (int k = 0; k < 3 * nb; k++)
        forces[k] = 0.0;
    for (int i = 0; i < s->list.n; i++) {
        const rs_contact *ct = &s->list.c[i];
        const int f0 = s->block[i].first;
        const cx p = z[f0], f = s->mu[i] > 0.0 ? z[f0 + 1] - z[f0 + 2] : 0.0;
        const cx e[2] = {p * geo[i].n[0] + f * geo[i].t[0], p * geo[i].n[1] + f * geo[i].t[1]};
        forces[3 * ct->a] += e[0];
        forces[3 * ct->a + 1] += e[1];
        forces[3 * ct->a + 2] += ccross(geo[i].ra, e);
        if (ct->b >= 0) {
            forces[3 * ct->b] -= e[0];
            forces[3 * ct->b + 1] -= e[1];
            forces[3 * ct->b + 2] -= ccross(geo[i].rb, e);
        }
    }
    for (int b = 0; b < nb; b++) {
        const cx *x = c->state + BS_N * b;
        cx *y = sn + BS_N * b;
        y[BS_XD] = c->vfree[3 * b] + c->dt * forces[3 * b] / c->mass[b];
        y[BS_ZD] = c->vfree[3 * b + 1] + c->dt * forces[3 * b + 1] / c->mass[b];
        y[BS_THD] = c->vfree[3 * b + 2] + c->dt * forces[3 * b + 2] * c->inv_inertia[b];
        y[BS_X] = x[BS_X] + c->dt * y[BS_XD];
        y[BS_Z] = x[BS_Z] + c->dt * y[BS_ZD];
        y[BS_TH] = x[BS_TH] + c->dt * y[BS_THD];
    }
}

/* The workspace of one evaluation: the complex data, M and q (with_matrix), the recovery's
 * z, next state and forces (with_recovery), the contacts' geometry; in the step's arena
 * (bodies_step_arena: an evaluation allocates only when its step is larger than any before). */
typedef struct cwork {
    cdata c;
    cx *M, *q;
    cx *z, *sn, *forces;
    cgeom *geo;
} cwork;

static int cwork_init(cwork *w, const rs_step_data *d, bodies_step *s, const rs_step_tangent *t,
                      int with_matrix, int with_recovery)
{
    memset(w, 0, sizeof *w);
    const size_t n = (size_t)s->nz, nb = (size_t)s->nb, nc = (size_t)s->list.n;
    const size_t ncx = cdata_size(d) + (with_matrix ? n * n + n : 0) +
                       (with_recovery ? n + 6 * nb + 3 * nb : 0);
    cx *a = bodies_step_arena(s, sizeof(cx) * ncx + sizeof(cgeom) * (nc + 1));
    if (!a)
        return 0;
    cdata_init(&w->c, d, s, t, a);
    a += cdata_size(d);
    if (with_matrix) {
        w->M = a;
        w->q = w->M + n * n;
        a = w->q + n;
    }
    if (with_recovery) {
        w->z = a;
        w->sn = w->z + n;
        w->forces = w->sn + 6 * nb;
        a = w->forces + 3 * nb;
    }
    w->geo = (cgeom *)(void *)a; /* (cgeom holds complex numbers: cx's alignment is its own) */
    return 1;
}

void bodies_lcp_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dM, double *dq)
{
    bodies_step *tmp;
    bodies_step *s = bodies_step_get(d, &tmp);
    cwork w;
    const int n = s ? s->nz : 0;
    if (!s || !cwork_init(&w, d, s, t, 1, 0)) {
        for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
            dM[k] = NAN;
        for (int k = 0; k < n; k++)
            dq[k] = NAN;
    } else {
        cbuild(&w.c, w.M, w.q, w.geo);
        for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
            dM[k] = cimag(w.M[k]) / CSTEP;
        for (int k = 0; k < n; k++)
            dq[k] = cimag(w.q[k]) / CSTEP;
    }
    bodies_step_release(tmp);
}

void bodies_lcp_recover_tangent(const rs_step_data *d, const rs_step_tangent *t, const double *z,
                                const double *wz, const double *dz, const double *dw,
                                double *dsn, double *dforces)
{
    (void)wz;
    (void)dw;
    bodies_step *tmp;
    bodies_step *s = bodies_step_get(d, &tmp);
    const int nb = d->scene->nbodies;
    cwork w;
    if (!s || !cwork_init(&w, d, s, t, 0, 1)) {
        for (int k = 0; k < BS_N * nb; k++)
            dsn[k] = NAN;
        for (int k = 0; k < BF_N * nb; k++)
            dforces[k] = NAN;
    } else {
        for (int k = 0; k < s->nz; k++)
            w.z[k] = z[k] + I * CSTEP * dz[k];
        for (int i = 0; i < s->list.n; i++)
            contact_geometry(&w.c, &s->list.c[i], &w.geo[i]);
        crecover(&w.c, w.geo, w.z, w.sn, w.forces);
        for (int k = 0; k < BS_N * nb; k++)
            dsn[k] = cimag(w.sn[k]) / CSTEP;
        for (int k = 0; k < BF_N * nb; k++)
            dforces[k] = cimag(w.forces[k]) / CSTEP;
    }
    bodies_step_release(tmp);
}

int bodies_complex_build(const rs_step_data *d, double *M, double *q)
{
    bodies_step *tmp;
    bodies_step *s = bodies_step_get(d, &tmp);
    cwork w;
    const int ok = s && cwork_init(&w, d, s, NULL, 1, 0);
    if (ok) {
        const size_t n = (size_t)s->nz;
        cbuild(&w.c, w.M, w.q, w.geo);
        for (size_t k = 0; k < n * n; k++)
            M[k] = creal(w.M[k]);
        for (size_t k = 0; k < n; k++)
            q[k] = creal(w.q[k]);
    }
    bodies_step_release(tmp);
    return ok;
}
