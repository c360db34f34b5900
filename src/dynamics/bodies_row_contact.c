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

#include "dynamics/bodies_rows.h"

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
};
