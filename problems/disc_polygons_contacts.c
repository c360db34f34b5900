/*
 * disc_polygons_contacts.c: the contact set of one step of disc_polygons (disc_polygons.h).
 *
 * Active contacts: at the start of the step, the edges and vertices within reach of the disc's
 * surface, reach + 2 dt (|v| + |v_free|) (the farthest it can travel in one step, plus a margin).
 * Egan's group of an obstacle is its active contacts, not all its edges: inside the ball B of that
 * radius around p, a convex polygon P is cut out by the edges whose segments meet B (a point x of
 * B outside P leaves P, on the segment from a point of B inside P, through one of those edges, so
 * it violates that edge's half-plane). The far edges only add solutions that leave B: a force
 * large enough to throw the body through the obstacle to a far edge's line (tunnelling), which
 * the OR admits and Lemke finds (on a tile floor it pushed the point 0.5 m sideways). An edge is
 * a contact only if the centre starts on its outer side, n_i . p - c_i >= -1e-6 L: an edge cannot
 * push a body that is behind its line, and with such an edge in the group the OR has solutions
 * that throw the body onto that line (a point sliding on one face of a diamond peg was thrown onto
 * the apex at 7 m/s by an impulse on the other face, in both Lemke's warm and cold solves). The
 * price: a body that passes a convex vertex within a step (from one face to beyond the next, whose
 * line it started behind) is held on the first face's line for that step, by the sag of one
 * step (about g dt^2). The LCP's size changes from step to step.
 *
 * Groups: Stewart-Trinkle makes each contact its own group; Egan's formulations group the
 * contacts of one obstacle. lay_out places a group's unknowns in the LCP's z (disc_polygons.c).
 */
#include <math.h>

#include "disc_polygons.h"

void dp_free_velocity(const rs_step_data *d, double *v_free)
{
    const double *p = d->params, *s = d->state, *u = d->input, dt = d->dt;
    v_free[0] = s[S_XD] + dt * u[U_X] / p[P_M];
    v_free[1] = s[S_ZD] + dt * (u[U_Z] / p[P_M] - p[P_G]);
}

void dp_free_velocity_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dv_free)
{
    const double *p = d->params, *u = d->input, dt = d->dt, m = p[P_M];
    for (int i = 0; i < 2; i++) {
        const double a = u[i] / m - (i == 1 ? p[P_G] : 0.0);
        const double da =
            t->input[i] / m - u[i] * t->params[P_M] / (m * m) - (i == 1 ? t->params[P_G] : 0.0);
        dv_free[i] = t->state[S_XD + i] + t->dt * a + dt * da;
    }
}

void dp_contact_tangent(const contact *c, const rs_step_tangent *t, double *dn, double *dtan,
                        double *dk)
{
    const double dp[2] = {t->state[S_X], t->state[S_Z]};
    dn[0] = c->dn_dp[0] * dp[0] + c->dn_dp[1] * dp[1];
    dn[1] = c->dn_dp[2] * dp[0] + c->dn_dp[3] * dp[1];
    dtan[0] = dn[1]; /* t = (n_z, -n_x) */
    dtan[1] = -dn[0];
    *dk = c->dk_dp[0] * dp[0] + c->dk_dp[1] * dp[1] + t->params[P_R];
}

void dp_step_scales(const rs_step_data *d, rs_step_scales *sc)
{
    const double *p = d->params, *s = d->state;
    double vf[2];
    dp_free_velocity(d, vf);
    const double speeds[] = {hypot(s[S_XD], s[S_ZD]), hypot(vf[0], vf[1])};
    rs_step_scales_set(sc, speeds, 2, p[P_G] * d->dt, d->dt, p[P_M]);
}

int dp_has_friction(const rs_step_data *d)
{
    return d->params[P_MU] > 0.0;
}

double dp_line_distance(const contact *c, const double *x)
{
    return c->n[0] * x[0] + c->n[1] * x[1] - c->k;
}

/* Column offset of e_ij (i != j) among a group's n (n - 1) pairwise auxiliaries. */
int dp_pair_index(int n, int i, int j)
{
    return i * (n - 1) + (j < i ? j : j - 1);
}

/* Lay out a group of n contacts starting at column at; returns 0 if it would not fit. */
static int lay_out(const rs_step_data *d, int first, int n, int at, group_layout *g)
{
    const int note = d->variant == FORM_EGAN_ACCURATE_NOTE;
    g->first = first;
    g->n = n;
    g->c = at;
    at += d->variant == FORM_EGAN_ACCURATE ? n * (n - 1) : n - 1;
    g->g = note ? at : -1;
    at += note ? n : 0;
    g->p = at;
    at += n;
    g->fr = dp_has_friction(d) ? at : -1;
    at += dp_has_friction(d) ? 3 * n : 0;
    g->dummy = note ? at : -1;
    at += note ? 1 : 0;
    g->end = at;
    return at <= MAX_UNKNOWNS;
}

/* A contact on the line n . x = k. vertex: NULL for an edge's line (fixed), else the corner v
 * with dist = |p - v|, whose line turns with p (contact's dn_dp, dk_dp). */
static void add_contact(active_set *a, const double *n, double k, unsigned long long id,
                        const double *vertex, double dist)
{
    contact *c = &a->c[a->ncontacts++];
    c->n[0] = n[0];
    c->n[1] = n[1];
    c->t[0] = n[1];
    c->t[1] = -n[0];
    c->k = k;
    c->id = id;
    for (int i = 0; i < 4; i++)
        c->dn_dp[i] = vertex ? ((i == 0 || i == 3) - n[i / 2] * n[i % 2]) / dist : 0.0;
    for (int i = 0; i < 2; i++) /* dk/dp = N' v (N symmetric) */
        c->dk_dp[i] = vertex ? c->dn_dp[2 * i] * vertex[0] + c->dn_dp[2 * i + 1] * vertex[1] : 0.0;
}

/* The rounded corner at the start vertex v = e.a of edge i, if p lies in v's normal cone (beyond
 * the end of the previous edge and before the start of edge i) and within reach: its line. */
static int vertex_contact(const rs_scene *sc, int i, const double *p, double r, double reach,
                          double *n, double *k, double *distance)
{
    const rs_scene_edge *e = &sc->edges[i];
    const rs_scene_obstacle *o = &sc->obstacles[e->obstacle];
    if (o->is_halfplane)
        return 0;
    const rs_scene_edge *prev =
        &sc->edges[o->first_edge + (i - o->first_edge + o->nedges - 1) % o->nedges];
    if (e->interior || prev->interior) /* a corner only of the piece, not of free space */
        return 0;
    const double *v = e->a, dx = p[0] - v[0], dz = p[1] - v[1], dist = hypot(dx, dz);
    if (!(dist > 0.0) || dist - r > reach)
        return 0;
    if (dx * (e->b[0] - e->a[0]) + dz * (e->b[1] - e->a[1]) > 0.0 ||
        dx * (prev->b[0] - prev->a[0]) + dz * (prev->b[1] - prev->a[1]) < 0.0)
        return 0;
    n[0] = dx / dist;
    n[1] = dz / dist;
    *k = n[0] * v[0] + n[1] * v[1] + r;
    *distance = dist;
    return 1;
}

/* Is p beyond the line of a side of obstacle k that another obstacle covers entirely, with every
 * free side of k (not covered) farther than reach from the disc (r)? Then p is outside k by that
 * side and could enter k within the step only through the covering obstacle (whose own group
 * stops it): k is left out of the step. Without this, k's group would lack that side (never a
 * contact) and its OR would hold a body that passes beside a thin covering piece as if k reached
 * there. When a free side is within reach (the valley's corner, where a disc of radius r touches
 * k's slope while its centre is beyond the shared side, up to r sqrt(2) from the corner; or a
 * body about to enter k by that side) k stays, and a body passing within reach of the end of a
 * covering piece thinner than reach can meet k's neighbouring side's line there: a virtual edge
 * no longer than reach. */
static int beyond_covered_side(const rs_scene *sc, int k, const double *p, double r, double reach)
{
    const rs_scene_obstacle *o = &sc->obstacles[k];
    int beyond = 0;
    for (int i = o->first_edge; i < o->first_edge + o->nedges; i++) {
        const rs_scene_edge *e = &sc->edges[i];
        if (e->interior)
            beyond |= rs_edge_distance(e, p) > 0.0;
        else if (rs_edge_free_distance(e, p) - r <= reach)
            return 0;
    }
    return beyond;
}

/* Close the group of the contacts added since first; returns 0 if the LCP would overflow. */
static int close_group(const rs_step_data *d, active_set *a, int first)
{
    group_layout *g = &a->g[a->ngroups];
    if (!lay_out(d, first, a->ncontacts - first, a->nunknowns, g))
        return 0;
    a->nunknowns = g->end;
    a->ngroups++;
    return 1;
}

/* The active set of the step (deterministic: every callback of the step rebuilds the same one).
 * Returns 0 when it would need more than MAX_UNKNOWNS unknowns. */
int dp_find_active(const rs_step_data *d, active_set *a)
{
    const rs_scene *sc = d->scene;
    const double *s = d->state, dt = d->dt, *p = d->params, r = p[P_R];
    const int corners = p[P_CORNERS] != 0.0 && r > 0.0;
    double vf[2];
    dp_free_velocity(d, vf);
    const double pos[2] = {s[S_X], s[S_Z]};
    const double reach = p[P_REACH] + 2.0 * dt * (hypot(s[S_XD], s[S_ZD]) + hypot(vf[0], vf[1]));
    rs_step_scales units;
    dp_step_scales(d, &units);
    const double facing_tol = 1e-6 * units.length;
    a->ncontacts = a->ngroups = a->nunknowns = 0;
    const int egan = d->variant != FORM_STEWART_TRINKLE;
    for (int k = 0; k < sc->nobstacles; k++) {
        const rs_scene_obstacle *o = &sc->obstacles[k];
        if (rs_scene_obstacle_distance(sc, k, pos) - r > reach ||
            beyond_covered_side(sc, k, pos, r, reach))
            continue;
        const int first = a->ncontacts;
        for (int i = o->first_edge; i < o->first_edge + o->nedges; i++) {
            double n[2], kv, dist;
            if (a->ncontacts + 2 > MAX_CONTACTS)
                return 0;
            const rs_scene_edge *e = &sc->edges[i];
            /* facing: the centre on the outer side of the edge's line (offset by r when the
             * corners are rounded: behind it, the rounded corner is the contact) */
            const double facing = rs_edge_distance(e, pos) - (corners ? r : 0.0);
            if (facing >= -facing_tol && rs_edge_free_distance(e, pos) - r <= reach) {
                add_contact(a, sc->edges[i].n, sc->edges[i].c + r, 2ull * (unsigned)i, NULL, 0.0);
                if (!egan && !close_group(d, a, a->ncontacts - 1))
                    return 0;
            }
            if (corners && vertex_contact(sc, i, pos, r, reach, n, &kv, &dist)) {
                add_contact(a, n, kv, 2ull * (unsigned)i + 1, sc->edges[i].a, dist);
                if (!egan && !close_group(d, a, a->ncontacts - 1))
                    return 0;
            }
        }
        if (egan && a->ncontacts > first && !close_group(d, a, first))
            return 0;
    }
    return 1;
}
