/*
 * bodies_row_contact.c: a contact as a block of constraint rows (bodies_rows.h): Stewart and
 * Trinkle's planar contact (bodies.h). Contact i between bodies a and b (or a and an obstacle)
 * with normal n_i, tangent t_i, gap g_i and friction coefficient mu_i has the unknowns
 *     z = (p, beta+, beta-, gamma)     (p alone when mu_i = 0)
 * along n, t and -t (gamma has no direction), and the rows
 *     w_n = J_n v' + g_i / dt          >= 0  _|_  p >= 0
 *     w_+ = J_t v' + gamma             >= 0  _|_  beta+ >= 0
 *     w_- = -J_t v' + gamma            >= 0  _|_  beta- >= 0
 *     w_g = mu_i p - beta+ - beta-     >= 0  _|_  gamma >= 0
 * Its reactions are its normal force p along n and its friction force f = beta+ - beta- along
 * t (N); its forces in F_i and speeds in V_i, the contact's own units (find_step).
 */
#include <math.h>
#include <string.h>

#include "dynamics/bodies_complex.h"

static int count(const bodies_step *s, int i)
{
    return s->mu[i] > 0.0 ? 4 : 1;
}

/* The direction of unknown k (0: n, 1: t, 2: -t) into e; 0 for gamma (k = 3). */
static int direction(const rs_contact *c, int k, double *e)
{
    double t[2];
    bodies_tangent(c, t);
    if (k == 0) {
        e[0] = c->n[0];
        e[1] = c->n[1];
    } else if (k == 1 || k == 2) {
        const double sg = k == 1 ? 1.0 : -1.0;
        e[0] = sg * t[0];
        e[1] = sg * t[1];
    }
    return k < 3;
}

static int jacobian(const bodies_step *s, int i, int k, bodies_jrow *j)
{
    const rs_contact *c = &s->list.c[i];
    double e[2] = {0.0, 0.0};
    if (!direction(c, k, e))
        return 0;
    bodies_jrow_set(j, c->a, c->b, c->ra, c->rb, e);
    return 1;
}

static double bias(const bodies_step *s, int i, int k, double dt, double unit)
{
    return k == 0 ? s->list.c[i].gap / (unit * dt) : 0.0;
}

static int couplings(const bodies_step *s, int i, bodies_term *a)
{
    if (!(s->mu[i] > 0.0))
        return 0;
    a[0] = (bodies_term){1, 3, 1.0};      /* w_+: gamma */
    a[1] = (bodies_term){2, 3, 1.0};      /* w_-: gamma */
    a[2] = (bodies_term){3, 0, s->mu[i]}; /* w_g: mu p - beta+ - beta- */
    a[3] = (bodies_term){3, 1, -1.0};
    a[4] = (bodies_term){3, 2, -1.0};
    return 5;
}

/* The forces in F_i, gamma and the velocity rows in V_i, the cone row in F_i. */
static void units(const bodies_step *s, int i, double *z_unit, double *w_unit)
{
    z_unit[0] = s->fscale[i];
    w_unit[0] = s->vscale[i];
    if (s->mu[i] > 0.0) {
        z_unit[1] = z_unit[2] = s->fscale[i];
        z_unit[3] = w_unit[1] = w_unit[2] = s->vscale[i];
        w_unit[3] = s->fscale[i];
    }
}

static void reaction_row(const bodies_step *s, int i, int j, bodies_jrow *row)
{
    const rs_contact *c = &s->list.c[i];
    double t[2];
    bodies_tangent(c, t);
    bodies_jrow_set(row, c->a, c->b, c->ra, c->rb, j == 0 ? c->n : t);
}

static int reaction_terms(const bodies_step *s, int i, bodies_term *r)
{
    r[0] = (bodies_term){0, 0, 1.0}; /* p */
    if (!(s->mu[i] > 0.0))
        return 1; /* (f = 0) */
    r[1] = (bodies_term){1, 1, 1.0}; /* f = beta+ - beta- */
    r[2] = (bodies_term){1, 2, -1.0};
    return 3;
}

static double reaction_unit(const bodies_step *s, int i)
{
    return s->fscale[i];
}

/* The force p n + f t at the contact point: on a, and its opposite on b. */
static void apply(const bodies_step *s, int i, const double *r, double *F)
{
    const rs_contact *c = &s->list.c[i];
    double t[2];
    bodies_tangent(c, t);
    const double p = r[0], f = r[1];
    const double e[2] = {p * c->n[0] + f * t[0], p * c->n[1] + f * t[1]};
    F[3 * c->a] += e[0];
    F[3 * c->a + 1] += e[1];
    F[3 * c->a + 2] += bodies_cross(c->ra, e);
    if (c->b >= 0) {
        F[3 * c->b] -= e[0];
        F[3 * c->b + 1] -= e[1];
        F[3 * c->b + 2] -= bodies_cross(c->rb, e);
    }
}

/* gamma = |J_t v|, the slip without friction (never a solution of the contact problem). */
static void start(const bodies_step *s, int i, const double *jv, double *z)
{
    if (s->mu[i] > 0.0)
        z[3] = fabs(jv[1]);
}

static void residual(const bodies_step *s, int i, double dt, const double *v, const double *r,
                     double *primal, double *complementarity)
{
    const rs_contact *ct = &s->list.c[i];
    const double L = s->scales.length, V = s->scales.speed;
    double t[2];
    bodies_tangent(ct, t);
    /* The contact's forces in F_i = max(m_i V_i / dt, |p_i|): its natural unit (s->fscale,
     * find_step: m_i its lighter body's mass or the load it holds up, V_i its bodies' speed),
     * or the normal force it carries when that is larger. A light body under a heavy one
     * carries the heavy one's weight on both its contacts, the one above and the one with the
     * ground below (m_top = 1e6 m_i: p_i = 1e6 m_i V / dt at rest, V = g dt), and its velocity
     * v' = v_free + dt (p_below - p_above) / m_i, a difference of two terms of 1e6 V, carries a
     * rounding of 1e6 eps V; so do the gaps and slips after the step computed from it. In
     * m_i V / dt the products p gap and f slip then multiplied 1e6 by 1e6 eps (2e-4: Lemke's
     * answers, right to 4e-10 of each force, failed every step). Neither the heavier body's
     * mass (the light body's ground contact carries the same load and has no heavier body) nor
     * the contact's effective mass (1 / (1/m_a + 1/m_b + ...), at most the lighter mass)
     * follows the load: with either, every Lemke step still failed at 1e6, 19 of 500 at 1e4,
     * as before. The force does: a heavy body's contacts are judged alike on a light body and
     * on the ground (in its weight at rest), a light body's in its own unit whatever lies
     * beneath it, and the products' rounding stays eps m_top / m_i. */
    const double Fi = fmax(s->fscale[i], fabs(r[0])), mu = s->mu[i];
    const double pn = r[0] / Fi, ft = r[1] / Fi;
    const double gap = (ct->gap + dt * bodies_relative_velocity(ct, ct->n, v)) / L;
    const double slip = bodies_relative_velocity(ct, t, v) / V;
    double p = *primal, c = *complementarity;
    /* primal: the inequalities and the cone; complementarity: the products (model.h) */
    p = fmax(p, fmax(-gap, 0.0));      /* no overlap after the step */
    p = fmax(p, fmax(-pn, 0.0));       /* a pushing contact force */
    p = fmax(p, fabs(ft) - mu * pn);   /* within the cone */
    c = fmax(c, fabs(pn) * fmax(gap, 0.0)); /* a force only at zero gap */
    if (mu > 0.0) {
        c = fmax(c, fabs(slip) * fmax(mu * pn - fabs(ft), 0.0)); /* sliding: at the edge */
        c = fmax(c, fmax(ft * slip, 0.0));                       /* against the slip */
    }
    *primal = p;
    *complementarity = c;
}

/* Closed: its gap after the step within 1e-6 L. */
static int closed(const bodies_step *s, int i, double dt, const double *v, int *body,
                  double *slip, int *friction)
{
    const rs_contact *ct = &s->list.c[i];
    body[0] = ct->a;
    body[1] = ct->b;
    double t[2];
    bodies_tangent(ct, t);
    const double gap = ct->gap + dt * bodies_relative_velocity(ct, ct->n, v);
    if (!(gap <= 1e-6 * s->scales.length))
        return 0;
    *slip = bodies_relative_velocity(ct, t, v);
    *friction = s->mu[i] > 0.0;
    return 1;
}

/* ---- in complex, for the complex step's tangents (bodies_tangent.c) ---------------------- */

/* The contact's geometry at the step's complex data (bodies_complex.h), its features held
 * (rs_find_contacts's: geom/contacts.h): the formulas of geom/contacts.c in complex. */

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

/* Contact i's rows at the complex data: as jacobian, bias, couplings and reaction_row above,
 * from its geometry there and its pair's mu (its friction line's parameter, else model.mu: each
 * moves with its key). */
static void complex_rows(const cdata *c, int i, crows *out)
{
    const bodies_step *s = c->s;
    const rs_contact *ct = &s->list.c[i];
    cgeom g;
    memset(&g, 0, sizeof g); /* (every kind of contact sets it all) */
    contact_geometry(c, ct, &g);
    for (int k = 0; k < count(s, i); k++) {
        cx e[2] = {0.0, 0.0};
        out->has[k] = cdirection(&g, k, e);
        if (out->has[k])
            cjrow_set(&out->j[k], ct->a, ct->b, g.ra, g.rb, e);
        out->bias[k] = k == 0 ? g.gap / c->dt : 0.0;
    }
    if (s->mu[i] > 0.0) { /* (couplings' order) */
        out->a[0] = out->a[1] = 1.0;
        out->a[2] = c->params[bodies_mu_param(c->d->scene, ct->a, ct->b)];
        out->a[3] = out->a[4] = -1.0;
    }
    cjrow_set(&out->r[0], ct->a, ct->b, g.ra, g.rb, g.n);
    cjrow_set(&out->r[1], ct->a, ct->b, g.ra, g.rb, g.t);
}

const bodies_row_ops bodies_contact_rows = {
    .kind = "contact",
    .count = count,
    .jacobian = jacobian,
    .bias = bias,
    .couplings = couplings,
    .units = units,
    .nreactions = 2,
    .reaction_row = reaction_row,
    .reaction_terms = reaction_terms,
    .reaction_unit = reaction_unit,
    .apply = apply,
    .start = start,
    .residual = residual,
    .closed = closed,
    .complex_rows = complex_rows,
};
