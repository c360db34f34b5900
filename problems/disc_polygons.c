/*
 * disc_polygons.c: a point mass, or a disc of radius r, in the vertical x-z plane among static
 * convex polygons and half-planes (note 004, "Robotic manipulation project", Nguyen 2006), with
 * inelastic contact and optional Coulomb friction along each contact's tangent. The scene is read
 * from a file ([model] scene = FILE; see src/io/scene_file.h): each obstacle's edges form one of
 * Egan's groups.
 *
 * State X = (x, z, xd, zd) = (p, v), input u = (ux, uz). Each active contact i has an outward unit
 * normal n_i, the tangent t_i = (n_z, -n_x), a normal impulse force p_i >= 0 and, with mu > 0,
 * friction forces beta+_i, beta-_i >= 0 along +t_i and -t_i. Semi-implicit Euler, as in
 * point2d_friction:
 *     v' = v_free + (dt/m) sum_i (p_i n_i + (beta+_i - beta-_i) t_i),
 *     v_free = v + dt (u/m - g e_z)                                                  (D1)
 *     p' = p + dt v'                                                                 (D2)
 *
 * Contacts. Every contact is, for the step, a line: d_i(x) = n_i . x - k_i, the signed distance
 * of the disc's surface from it (positive outside):
 *   edge i of an obstacle: the edge's line offset by r, k_i = c_i + r (exact: edges are straight);
 *   vertex v (a disc, r > 0, with [model] corners = 1): the rounded corner |x - v| - r, linearised
 *     at the start of the step: n = (p - v)/|p - v|, k = n . v + r. Its line is tangent to the
 *     circle of radius r around v, and for p in v's normal cone it supports the disc-offset
 *     polygon, so d >= 0 is never looser than the true rounded corner (|x - v| >= n . (x - v)).
 * The note's eq. (3), W^T nu + psi/h, is d_i's value after the step divided by dt:
 *     rho_i = d_i(p)/dt + n_i . v' = d_i(p')/dt,    s_i = t_i . v'  (the tangential speed),
 * both affine in the forces: rho_i = b_i + sum_j (dt/m) (n_i . e_j) z_j with e_j the direction of
 * force unknown j, b_i = d_i(p)/dt + n_i . v_free; s_i likewise with t_i.
 *
 * Active contacts: which edges and vertices enter a step, and why: disc_polygons_contacts.c.
 *
 * Formulations ([model] formulation = ...), per group of n contacts. m_k = c_k + ... + c_2 + rho_1
 * is max(rho_1, ..., rho_k) by Proposition 2.1 (c = max(a, 0) iff 0 <= c - a _|_ c >= 0; by
 * induction c_k = max(rho_k - m_{k-1}, 0)).
 *
 * stewart_trinkle (note eqs. 1-2): every contact is its own group (n = 1, m_1 = rho_1):
 *     0 <= rho_i  _|_  p_i >= 0.
 *   Near a convex corner both edges are active and their conditions are ANDed: the body is kept out
 *   of the quarter-plane beyond the corner as if a "virtual edge" closed it (note figure 1).
 *
 * egan_simple (section 2.1.2): unknowns (c_2..c_n, p_1..p_n), 2n - 1 pairs:
 *     0 <= c_k - rho_k + m_{k-1}     _|_  c_k >= 0      k = 2..n
 *     0 <= m_n                       _|_  p_i >= 0      i = 1..n
 *   Outside the group iff max rho >= 0. Forces may act on every edge of the group while
 *   max rho = 0, also on an edge with rho_i > 0 (section 4.1: in contact, the body slides along).
 *
 * egan_accurate_note (section 2.2.2, exactly as written): unknowns (c, g_1..g_n, p_1..p_n, p), 3n:
 *     0 <= c_k - rho_k + m_{k-1}     _|_  c_k >= 0      k = 2..n
 *     0 <= g_i + rho_i               _|_  g_i >= 0      g_i = |min(rho_i, 0)|, Proposition 2.3
 *     0 <= g_i + m_n                 _|_  p_i >= 0
 *     0 <= m_n                       _|_  p >= 0        the dummy pair
 *   p appears in no row: M has a zero column (the note's section 4.2, where PATH crashed). And the
 *   p_i rows cannot push: g_i + m_n >= 0 holds for any rho (rho_i < 0: g_i + m_n = m_n - rho_i >=
 *   0), so only the dummy row states non-penetration, and its partner p moves nothing. Lemke's
 *   path from the covering vector e pivots p in whenever the dummy row must leave the basis; its
 *   column is zero, so that path ends on a ray. The LCP is solvable nevertheless, and the path of
 *   another covering vector (Lemke's third attempt, rs_lemke_info.covering_changed) reaches a
 *   solution that passes both certificates on every step of polygon_tiles_note_matrix.ini. Kept
 *   to show what the note's matrix does.
 *
 * egan_accurate (the repair; the note's "future work"): unknowns (e_ij for i != j, p_1..p_n),
 * n^2 pairs, with e_ij = max(rho_j - rho_i, 0) by Proposition 2.1:
 *     0 <= e_ij - rho_j + rho_i                 _|_  e_ij >= 0     i != j
 *     0 <= rho_i + 2 sum_{j != i} e_ij          _|_  p_i >= 0      i = 1..n
 *   Why this is the accurate formulation exactly (its solutions are the note's, with the dummy
 *   p = 0 and g_i = |min(rho_i, 0)|). Let m = max_j rho_j and E_i = sum_j e_ij; then
 *   m - rho_i = max_j e_ij <= E_i, with E_i = 0 for the edge i* that attains the max.
 *   - feasibility: the row of i* is rho_i* = m, so all rows >= 0 implies m >= 0, the group's
 *     non-penetration (the note's dummy row); conversely if m >= 0 every row is
 *     rho_i + 2 E_i >= rho_i + 2 (m - rho_i) = m + (m - rho_i) >= 0.
 *   - complementarity: p_i > 0 needs rho_i + 2 E_i = 0. With m >= 0 that gives 0 >= m + (m -
 *     rho_i), both terms >= 0, so m = 0 and rho_i = m = 0: a force only on an edge at distance zero
 *     while the body is on the group's boundary, the accurate form's eq. (11). Conversely, m = 0 =
 *     rho_i makes every e_ij = 0 (rho_j <= m = rho_i) and the row 0: any p_i >= 0 is allowed.
 *   The non-penetration row now has a partner that pushes (p of the edge that attains the max),
 *   and the row of p_i depends on p_i through rho_i with the positive coefficient (dt/m) |n_i|^2:
 *   no zero column. The factor 2 matters: with rho_i + E_i the row vanishes for rho_i < 0 = m
 *   (E_i = -rho_i), a force on an edge that is not touched. The shorter 2 m_n - rho_i with the
 *   shared c's is also exact, but its diagonal (dt/m)(2 n_1 . n_i - 1) is negative for edges at
 *   more than 60 degrees to edge 1, and Lemke stops on a ray at its first pivot (measured on the
 *   note's figure 1). Cost: n(n - 1) auxiliaries, 16 unknowns for a box against egan_simple's 7.
 *
 * Friction (mu > 0), for each contact i, as in point2d_friction along t_i, 3 more pairs:
 *     0 <= lambda_i + s_i            _|_  beta+_i >= 0
 *     0 <= lambda_i - s_i            _|_  beta-_i >= 0
 *     0 <= mu p_i - beta+_i - beta-_i  _|_  lambda_i >= 0     lambda_i: the sliding speed |s_i|
 *
 * The NLP is the generic relaxation of the LCP (src/nlp/lcp_relaxation.c), posed in the step's
 * natural units: forces in F = m V / dt; c, g, lambda and every row in the speed V, except the
 * friction-cone rows (F).
 */
#include <math.h>
#include <string.h>

#include "core/detail.h"
#include "disc_polygons.h"
#include "geom/cone2.h"

static const rs_param_def params[NPARAM] = {
    {"m", 1.0, 1e-6, 1e6, "mass, kg", 0.0},
    {"g", 9.81, 0.0, 1e3, "gravitational acceleration, m/s^2", 0.0},
    {"r", 0.0, 0.0, 1e3, "radius of the disc, m (0: a point)", 0.0},
    {"reach", 1e-3, 0.0, 1e3, "margin of the active set beyond one step's travel, m", 0.0},
    {"mu", 0.0, 0.0, 10.0, "Coulomb friction coefficient along every contact (0: frictionless)",
     0.0},
    {"corners", 1.0, 0.0, 1.0,
     "1: a disc's convex corners are rounded (vertex contacts); 0: edges "
     "only, as in the note (section 4.3)", 1.0},
};
static const char *const state_names[NSTATE] = {"x_m", "z_m", "xd_mps", "zd_mps"};
static const double state_default[NSTATE] = {0.0, 1.0, 0.0, 0.0};
static const int velocity_index[] = {S_XD, S_ZD};
static const char *const input_names[] = {"ux_N", "uz_N"};
static const char *const force_names[] = {"fx_N", "fz_N"};
static const char *const formulations[NFORM] = {"stewart_trinkle", "egan_simple",
                                                "egan_accurate_note", "egan_accurate"};

static double force_scale(const double *p)
{
    return fmax(p[P_M] * p[P_G], 1e-12);
}

static int lcp_size(const rs_step_data *d, unsigned long long *structure)
{
    active_set a;
    if (!dp_find_active(d, &a))
        return -1;
    unsigned long long h = 1469598103934665603ull; /* FNV-1a over the contacts' features */
    for (int i = 0; i < a.ncontacts; i++) {
        h ^= a.c[i].id + 1;
        h *= 1099511628211ull;
    }
    *structure = h;
    return a.nunknowns;
}

/* The tangents of the active contacts' lines along a step-data direction (the set held fixed). */
typedef struct contact_tangents {
    double dn[MAX_CONTACTS][2], dt[MAX_CONTACTS][2], dk[MAX_CONTACTS];
} contact_tangents;

static void tangents_of_contacts(const active_set *a, const rs_step_tangent *t,
                                 contact_tangents *ct)
{
    for (int i = 0; i < a->ncontacts; i++)
        dp_contact_tangent(&a->c[i], t, ct->dn[i], ct->dt[i], &ct->dk[i]);
}

/* The step's force unknowns: column and direction of each (p_i along n_i, beta+-_i along +-t_i),
 * and with contact tangents (ct not NULL) the directions' tangents. */
typedef struct force_list {
    int count;
    int col[3 * MAX_CONTACTS];
    double dir[3 * MAX_CONTACTS][2];
    double ddir[3 * MAX_CONTACTS][2];
} force_list;

static void set_force(force_list *f, int k, int col, const double *dir, const double *ddir,
                      double sign)
{
    f->col[k] = col;
    for (int i = 0; i < 2; i++) {
        f->dir[k][i] = sign * dir[i];
        f->ddir[k][i] = ddir ? sign * ddir[i] : 0.0;
    }
}

static void list_forces(const active_set *a, const contact_tangents *ct, force_list *f)
{
    f->count = 0;
    for (int g = 0; g < a->ngroups; g++) {
        const group_layout *gl = &a->g[g];
        for (int i = 0; i < gl->n; i++) {
            const int ci = gl->first + i;
            const contact *c = &a->c[ci];
            set_force(f, f->count++, gl->p + i, c->n, ct ? ct->dn[ci] : NULL, 1.0);
            if (gl->fr < 0)
                continue;
            set_force(f, f->count++, gl->fr + 3 * i, c->t, ct ? ct->dt[ci] : NULL, 1.0);
            set_force(f, f->count++, gl->fr + 3 * i + 1, c->t, ct ? ct->dt[ci] : NULL, -1.0);
        }
    }
}

/* The LCP under construction: w = M z + q, nz unknowns; with a tangent (dM not NULL) its
 * directional derivative (dM, dq) along it is built by the same calls, term by term. */
typedef struct lcp_rows {
    const rs_step_data *d;
    const active_set *a;
    force_list f;
    double vf[2];
    int nz;
    double *M, *q;
    double *dM, *dq; /* NULL: no tangent */
    const rs_step_tangent *t;
    const contact_tangents *ct;
    double dvf[2], d_dt_over_m; /* tangents of v_free and of dt/m */
} lcp_rows;

static double dot2(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1];
}

/* Row += coef * (vec . v') plus constant: vec . v' = vec . v_free + sum_j (dt/m)(vec . e_j) z_j.
 * dvec: vec's tangent (with a tangent). */
static void add_velocity(lcp_rows *L, int row, const double *vec, const double *dvec, double coef)
{
    const double h = coef * L->d->dt / L->d->params[P_M];
    L->q[row] += coef * dot2(vec, L->vf);
    for (int j = 0; j < L->f.count; j++)
        L->M[row + (size_t)L->f.col[j] * L->nz] += h * dot2(vec, L->f.dir[j]);
    if (!L->dM)
        return;
    L->dq[row] += coef * (dot2(dvec, L->vf) + dot2(vec, L->dvf));
    for (int j = 0; j < L->f.count; j++)
        L->dM[row + (size_t)L->f.col[j] * L->nz] +=
            coef * L->d_dt_over_m * dot2(vec, L->f.dir[j]) +
            h * (dot2(dvec, L->f.dir[j]) + dot2(vec, L->f.ddir[j]));
}

/* Row += coef * rho_i = coef (d_i(p)/dt + n_i . v'), d_i(p) = n_i . p - k_i. */
static void add_rho(lcp_rows *L, int row, int i, double coef)
{
    const contact *c = &L->a->c[i];
    const double pos[2] = {L->d->state[S_X], L->d->state[S_Z]}, dt = L->d->dt;
    const double dist = dp_line_distance(c, pos);
    L->q[row] += coef * dist / dt;
    if (L->dM) {
        const double dpos[2] = {L->t->state[S_X], L->t->state[S_Z]};
        const double ddist = dot2(L->ct->dn[i], pos) + dot2(c->n, dpos) - L->ct->dk[i];
        L->dq[row] += coef * (ddist / dt - dist * L->t->dt / (dt * dt));
    }
    add_velocity(L, row, c->n, L->dM ? L->ct->dn[i] : NULL, coef);
}

/* M[row, col] += value, whose tangent is dvalue. */
static void add_entry_with(lcp_rows *L, int row, int col, double value, double dvalue)
{
    L->M[row + (size_t)col * L->nz] += value;
    if (L->dM)
        L->dM[row + (size_t)col * L->nz] += dvalue;
}

/* A constant entry (its tangent is 0). */
static void add_entry(lcp_rows *L, int row, int col, double value)
{
    add_entry_with(L, row, col, value, 0.0);
}

/* Row += coef * m_n = coef (c_2 + ... + c_n + rho_1) of group gl. */
static void add_group_max(lcp_rows *L, int row, const group_layout *gl, double coef)
{
    for (int j = 0; j < gl->n - 1; j++)
        add_entry(L, row, gl->c + j, coef);
    add_rho(L, row, gl->first, coef);
}

/* egan_accurate's rows: e_ij - rho_j + rho_i, then rho_i + 2 sum_j e_ij. */
static void build_accurate_group(lcp_rows *L, const group_layout *gl)
{
    const int n = gl->n, e0 = gl->first;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            const int e = gl->c + dp_pair_index(n, i, j);
            add_entry(L, e, e, 1.0);
            add_rho(L, e, e0 + j, -1.0);
            add_rho(L, e, e0 + i, 1.0);
            add_entry(L, gl->p + i, e, 2.0);
        }
    for (int i = 0; i < n; i++)
        add_rho(L, gl->p + i, e0 + i, 1.0);
}

/* The rows of Egan's max chain (egan_simple, egan_accurate_note; stewart_trinkle with n = 1). */
static void build_chain_group(lcp_rows *L, const group_layout *gl)
{
    const int n = gl->n, e0 = gl->first;
    for (int k = 2; k <= n; k++) { /* c_k - rho_k + c_{k-1} + ... + c_2 + rho_1 */
        const int row = gl->c + k - 2;
        for (int j = 2; j <= k; j++)
            add_entry(L, row, gl->c + j - 2, 1.0);
        add_rho(L, row, e0, 1.0);
        add_rho(L, row, e0 + k - 1, -1.0);
    }
    for (int i = 0; gl->g >= 0 && i < n; i++) { /* g_i + rho_i */
        add_entry(L, gl->g + i, gl->g + i, 1.0);
        add_rho(L, gl->g + i, e0 + i, 1.0);
    }
    for (int i = 0; i < n; i++) { /* m_n (+ g_i as the note writes it) _|_ p_i */
        add_group_max(L, gl->p + i, gl, 1.0);
        if (gl->g >= 0)
            add_entry(L, gl->p + i, gl->g + i, 1.0);
    }
    if (gl->dummy >= 0) /* m_n _|_ p: nothing else involves p */
        add_group_max(L, gl->dummy, gl, 1.0);
}

static void build_group(lcp_rows *L, const group_layout *gl)
{
    if (L->d->variant == FORM_EGAN_ACCURATE)
        build_accurate_group(L, gl);
    else
        build_chain_group(L, gl);
    const int n = gl->n, e0 = gl->first;
    for (int i = 0; gl->fr >= 0 && i < n; i++) { /* friction along t_i */
        const int r = gl->fr + 3 * i;
        const contact *c = &L->a->c[e0 + i];
        const double *dtan = L->dM ? L->ct->dt[e0 + i] : NULL;
        add_entry(L, r, r + 2, 1.0); /* lambda_i + s_i */
        add_velocity(L, r, c->t, dtan, 1.0);
        add_entry(L, r + 1, r + 2, 1.0); /* lambda_i - s_i */
        add_velocity(L, r + 1, c->t, dtan, -1.0);
        add_entry_with(L, r + 2, gl->p + i, L->d->params[P_MU], /* mu p_i - beta+_i - beta-_i */
                       L->dM ? L->t->params[P_MU] : 0.0);
        add_entry(L, r + 2, r, -1.0);
        add_entry(L, r + 2, r + 1, -1.0);
    }
}

/* (M, q) of the step, and with t (dM, dq not NULL) their tangents along t. */
static void build_lcp(const rs_step_data *d, const rs_step_tangent *t, double *M, double *q,
                      double *dM, double *dq)
{
    active_set a;
    contact_tangents ct;
    dp_find_active(d, &a);
    if (t)
        tangents_of_contacts(&a, t, &ct);
    lcp_rows L = {.d = d,
                  .a = &a,
                  .nz = a.nunknowns,
                  .M = M,
                  .q = q,
                  .dM = dM,
                  .dq = dq,
                  .t = t,
                  .ct = t ? &ct : NULL};
    list_forces(&a, L.ct, &L.f);
    dp_free_velocity(d, L.vf);
    const size_t nn = (size_t)L.nz * (size_t)L.nz;
    memset(M, 0, sizeof(double) * nn);
    memset(q, 0, sizeof(double) * (size_t)L.nz);
    if (t) {
        const double m = d->params[P_M];
        dp_free_velocity_tangent(d, t, L.dvf);
        L.d_dt_over_m = t->dt / m - d->dt * t->params[P_M] / (m * m);
        memset(dM, 0, sizeof(double) * nn);
        memset(dq, 0, sizeof(double) * (size_t)L.nz);
    }
    for (int g = 0; g < a.ngroups; g++)
        build_group(&L, &a.g[g]);
}

static void lcp_build(const rs_step_data *d, double *M, double *q)
{
    build_lcp(d, NULL, M, q, NULL, NULL);
}

/* The tangent of (M, q) along t with the step's contact set held fixed (the set is a discrete
 * choice, like the LCP's index sets: a change of it between two runs is a switch). */
static void lcp_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dM, double *dq)
{
    double M[MAX_UNKNOWNS * MAX_UNKNOWNS], q[MAX_UNKNOWNS];
    build_lcp(d, t, M, q, dM, dq);
}

/* The unknowns at zero contact forces (the forces, beta and the dummy 0), with the auxiliaries of
 * the contact-free motion: c_k = max(rho_k - m_{k-1}, 0) (e_ij = max(rho_j - rho_i, 0) for
 * egan_accurate), g_i = max(-rho_i, 0) and lambda_i =
 * |s_i|, from rho_i = b_i and s_i = t_i . v_free. Never a solution of the contact problem. */
static void lcp_contact_free(const rs_step_data *d, double *z)
{
    active_set a;
    dp_find_active(d, &a);
    double vf[2];
    dp_free_velocity(d, vf);
    const double pos[2] = {d->state[S_X], d->state[S_Z]};
    memset(z, 0, sizeof(double) * (size_t)a.nunknowns);
    for (int g = 0; g < a.ngroups; g++) {
        const group_layout *gl = &a.g[g];
        double b[MAX_CONTACTS];
        for (int i = 0; i < gl->n; i++) {
            const contact *c = &a.c[gl->first + i];
            b[i] = dp_line_distance(c, pos) / d->dt + c->n[0] * vf[0] + c->n[1] * vf[1];
            if (gl->g >= 0)
                z[gl->g + i] = fmax(-b[i], 0.0);
            if (gl->fr >= 0)
                z[gl->fr + 3 * i + 2] = fabs(c->t[0] * vf[0] + c->t[1] * vf[1]);
        }
        if (d->variant == FORM_EGAN_ACCURATE) { /* e_ij = max(rho_j - rho_i, 0) */
            for (int i = 0; i < gl->n; i++)
                for (int j = 0; j < gl->n; j++)
                    if (j != i)
                        z[gl->c + dp_pair_index(gl->n, i, j)] = fmax(b[j] - b[i], 0.0);
            continue;
        }
        double running_max = b[0];
        for (int k = 1; k < gl->n; k++) {
            z[gl->c + k - 1] = fmax(b[k] - running_max, 0.0);
            running_max += z[gl->c + k - 1];
        }
    }
}

/* Units of the relaxation: forces (p, beta, the dummy) in F; c, e, g, lambda in V; every row a
 * speed V except the friction-cone rows mu p - beta+ - beta- (F). */
static void lcp_units(const rs_step_data *d, double *z_unit, double *w_unit)
{
    active_set a;
    dp_find_active(d, &a);
    rs_step_scales sc;
    dp_step_scales(d, &sc);
    for (int j = 0; j < a.nunknowns; j++)
        z_unit[j] = w_unit[j] = sc.speed;
    for (int g = 0; g < a.ngroups; g++) {
        const group_layout *gl = &a.g[g];
        for (int i = 0; i < gl->n; i++) {
            z_unit[gl->p + i] = sc.force;
            if (gl->fr >= 0) {
                z_unit[gl->fr + 3 * i] = z_unit[gl->fr + 3 * i + 1] = sc.force;
                w_unit[gl->fr + 3 * i + 2] = sc.force;
            }
        }
        if (gl->dummy >= 0)
            z_unit[gl->dummy] = sc.force;
    }
}

/* (D1), (D2) from the total contact force. */
static void integrate(const rs_step_data *d, const double *force, double *sn)
{
    const double dt = d->dt, m = d->params[P_M];
    double vf[2];
    dp_free_velocity(d, vf);
    sn[S_XD] = vf[0] + dt * force[F_X] / m;
    sn[S_ZD] = vf[1] + dt * force[F_Z] / m;
    sn[S_X] = d->state[S_X] + dt * sn[S_XD];
    sn[S_Z] = d->state[S_Z] + dt * sn[S_ZD];
}

static void lcp_recover(const rs_step_data *d, const double *z, const double *w, double *sn,
                        double *forces, double *per_contact)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    (void)w;
    active_set a;
    dp_find_active(d, &a);
    force_list f;
    list_forces(&a, NULL, &f);
    forces[F_X] = forces[F_Z] = 0.0;
    for (int j = 0; j < f.count; j++) {
        forces[F_X] += z[f.col[j]] * f.dir[j][0];
        forces[F_Z] += z[f.col[j]] * f.dir[j][1];
    }
    integrate(d, forces, sn);
}

/* Tangent of lcp_recover: the force sum_j z_j e_j moves with z and with the directions e_j (a
 * vertex contact's turn with p); then the integrator (D1), (D2). */
static void lcp_recover_tangent(const rs_step_data *d, const rs_step_tangent *t, const double *z,
                                const double *w, const double *dz, const double *dw, double *dsn,
                                double *dforces)
{
    (void)w;
    (void)dw;
    active_set a;
    contact_tangents ct;
    dp_find_active(d, &a);
    tangents_of_contacts(&a, t, &ct);
    force_list f;
    list_forces(&a, &ct, &f);
    double force[2] = {0.0, 0.0}, sn[NSTATE];
    dforces[F_X] = dforces[F_Z] = 0.0;
    for (int j = 0; j < f.count; j++)
        for (int i = 0; i < 2; i++) {
            force[i] += z[f.col[j]] * f.dir[j][i];
            dforces[i] += dz[f.col[j]] * f.dir[j][i] + z[f.col[j]] * f.ddir[j][i];
        }
    integrate(d, force, sn);
    double dvf[2];
    dp_free_velocity_tangent(d, t, dvf);
    const double dt = d->dt, m = d->params[P_M];
    for (int i = 0; i < 2; i++) { /* v' = v_free + dt f / m,  p' = p + dt v' */
        dsn[S_XD + i] = dvf[i] + t->dt * force[i] / m + dt * dforces[i] / m -
                        dt * force[i] * t->params[P_M] / (m * m);
        dsn[S_X + i] = t->state[S_X + i] + t->dt * sn[S_XD + i] + dt * dsn[S_XD + i];
    }
}

/* How far p lies inside the scene's obstacles offset by r, rounded at the corners (the true
 * geometry, whatever the formulation): max over obstacles of r - distance, <= 0 outside. */
static double scene_penetration(const rs_scene *sc, const double *p, double r)
{
    double worst = -INFINITY;
    for (int k = 0; k < sc->nobstacles; k++) {
        const double depth = rs_scene_obstacle_depth(sc, k, p);
        const double dist = depth > 0.0 ? -depth : rs_scene_obstacle_distance(sc, k, p);
        worst = fmax(worst, r - dist);
    }
    return worst;
}

/* The body must start outside every obstacle offset by r (the true, rounded offset): contact is
 * at position level. A start inside by less than 1e-3 of the step's length L is contact, within
 * the rounding and the NLP's tolerance. */
static rs_error check_step(const rs_step_data *d, rs_error_detail *detail)
{
    const double pos[2] = {d->state[S_X], d->state[S_Z]};
    rs_step_scales sc;
    dp_step_scales(d, &sc);
    if (scene_penetration(d->scene, pos, d->params[P_R]) > 1e-3 * sc.length)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "the body starts inside an obstacle (closer than r to it): start in "
                             "free space");
    if (d->params[P_CORNERS] != 0.0 && d->params[P_CORNERS] != 1.0)
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "corners must be 0 or 1");
    active_set a;
    if (!dp_find_active(d, &a))
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "more active contacts at the start than the model's largest LCP (64 "
                             "unknowns)");
    return RS_OK;
}

/* A state a run reached (or a caller sets): inside an obstacle by up to one step's length L, the
 * penetration a step can leave, which the next step's gap term throws out; deeper is refused. */
static rs_error check_reached(const rs_step_data *d, rs_error_detail *detail)
{
    const double pos[2] = {d->state[S_X], d->state[S_Z]};
    rs_step_scales sc;
    dp_step_scales(d, &sc);
    const double depth = scene_penetration(d->scene, pos, d->params[P_R]);
    if (depth > sc.length)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "the body is %.3g m inside an obstacle (closer than r to it), more "
                             "than one step's length (%.3g m), which no step leaves",
                             depth, sc.length);
    active_set a;
    if (!dp_find_active(d, &a))
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "more active contacts than the model's largest LCP (64 unknowns)");
    return RS_OK;
}

/*
 * The deepest the straight path p + t (p' - p), t in [0, 1], goes into a group whose contact
 * distances are d0 at p and d1 at p': max over t of D(t) = min_i -d_i(t), d_i linear in t. D is
 * concave and piecewise linear, so its maximum is at t = 0, t = 1 or where two d_i cross. A step
 * that tunnels through an obstacle and lands on its far side (a solution of the LCP: only p'
 * enters it) has a large depth; sliding along an edge has none. Inside the path (0 < t < 1) the
 * depth is reduced by an allowance: the chord is the step's path only to within dt |v' - v|
 * (paths from p that leave with v and arrive at p' with v' are that far apart), so a body that
 * slides off a convex vertex cuts its corner by up to about g dt^2 (the sag of one step). A
 * tunnel through an obstacle thicker than twice that is still caught; the end points get none.
 */
static double depth_at(const double *d0, const double *d1, int n, double t)
{
    double depth = INFINITY;
    for (int k = 0; k < n; k++)
        depth = fmin(depth, -(d0[k] + t * (d1[k] - d0[k])));
    return depth;
}

static double path_depth(const double *d0, const double *d1, int n, double allowance)
{
    double best = fmax(depth_at(d0, d1, n, 0.0), depth_at(d0, d1, n, 1.0));
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) { /* where d_i(t) = d_j(t) */
            const double slope = (d1[i] - d0[i]) - (d1[j] - d0[j]);
            if (slope == 0.0)
                continue;
            const double t = (d0[j] - d0[i]) / slope;
            if (t > 0.0 && t < 1.0)
                best = fmax(best, depth_at(d0, d1, n, t) - allowance);
        }
    return best;
}

/* A set of force directions a contact may exert, and how far the step is from letting it. */
typedef struct cone_piece {
    double cost; /* dimensionless: 0 when the contact may push in these directions */
    int ngen;
    double gen[2][2];
} cone_piece;

/* How far, in the formulation's own terms, contact i of a group is from being allowed to push:
 * its distance after the step (stewart_trinkle), the group's (egan_simple: any edge of a group on
 * its boundary), or both (the accurate forms: only an edge at distance zero, on the boundary). */
static double contact_cost(int form, double d_i, double group_max)
{
    if (form == FORM_STEWART_TRINKLE)
        return fabs(d_i);
    if (form == FORM_EGAN_SIMPLE)
        return fabs(group_max);
    return fmax(fabs(group_max), fabs(d_i));
}

/*
 * The complementarity certificate. The step's total force f (in F) must be a non-negative
 * combination of the forces the contacts may exert, and those contacts must be closed; the cost of
 * admitting a piece is how far it is from closed (distances in L, a sliding speed in V). With the
 * pieces sorted by cost, the residual is min over k of max(cost_k, dist(f, cone of the k cheapest
 * pieces)), with k = 0 giving |f|: 0 exactly when f lies in the cone of the closed contacts.
 * Pieces of contact i: its normal with the friction edge that opposes sliding, n_i - mu sign(s_i)
 * t_i, at its cost; and, with friction, the whole cone n_i +- mu t_i at max(cost, |s_i|/V) (a
 * sticking contact).
 */
static double cone_residual(const double *f, cone_piece *pc, int np)
{
    for (int i = 1; i < np; i++) /* insertion sort by cost */
        for (int j = i; j > 0 && pc[j].cost < pc[j - 1].cost; j--) {
            const cone_piece t = pc[j];
            pc[j] = pc[j - 1];
            pc[j - 1] = t;
        }
    const double *gens[4 * MAX_CONTACTS];
    int ng = 0;
    double dist = hypot(f[0], f[1]), best = dist;
    for (int k = 0; k < np; k++) {
        for (int m = 0; m < pc[k].ngen; m++) {
            gens[ng++] = pc[k].gen[m];
            for (int j = 0; j < ng; j++)
                dist = fmin(dist, rs_cone2_pair_distance(f, gens[j], gens[ng - 1]));
        }
        best = fmin(best, fmax(pc[k].cost, dist));
    }
    return best;
}

/*
 * Physical certificate, in the step's natural units:
 *   primal: (D1)-(D2) from the reported force; the group's non-penetration after the step,
 *           max_i d_i(p') >= 0 (Egan's OR; each contact alone for stewart_trinkle); no
 *           tunnelling: the deepest point of the straight path from p to p' inside a group
 *           (path_depth); and p' outside every obstacle of the scene, active or not (a body
 *           that sank deeper than the reach has no active contact left); distances divided by L;
 *   complementarity: cone_residual of the total force over the contacts' pieces; and no
 *           positive power, f . v' <= 0 (in F V): inelastic contact and friction only take energy
 *           away. A force that throws the body onto a line it started behind does work, even
 *           where the cone test passes at the step's end.
 */
static void residuals(const rs_step_data *d, const double *sn, const double *f, const double *per_contact, double *primal,
                      double *complementarity)
{
    (void)per_contact; /* (no per-contact forces: model.h) */
    rs_step_scales sc;
    dp_step_scales(d, &sc);
    double pred[NSTATE];
    integrate(d, f, pred);
    double p = 0.0;
    for (int i = 0; i < NSTATE; i++)
        p = fmax(p, fabs(sn[i] - pred[i]) / (i < S_XD ? rs_length_unit(&sc, pred[i]) : sc.speed));
    active_set a;
    dp_find_active(d, &a);
    const double pos[2] = {d->state[S_X], d->state[S_Z]}, next[2] = {sn[S_X], sn[S_Z]};
    const double mu = d->params[P_MU];
    const double allowance = d->dt * hypot(sn[S_XD] - d->state[S_XD], sn[S_ZD] - d->state[S_ZD]);
    cone_piece pc[2 * MAX_CONTACTS];
    int np = 0;
    for (int g = 0; g < a.ngroups; g++) {
        const group_layout *gl = &a.g[g];
        double d0[MAX_CONTACTS], d1[MAX_CONTACTS];
        double gmax = -INFINITY;
        for (int i = 0; i < gl->n; i++) {
            d0[i] = dp_line_distance(&a.c[gl->first + i], pos);
            d1[i] = dp_line_distance(&a.c[gl->first + i], next);
            gmax = fmax(gmax, d1[i]);
        }
        p = fmax(p, fmax(-gmax, path_depth(d0, d1, gl->n, allowance)) / sc.length);
        for (int i = 0; i < gl->n; i++) {
            const contact *c = &a.c[gl->first + i];
            const double cost = contact_cost(d->variant, d1[i], gmax) / sc.length;
            const double slip = (c->t[0] * sn[S_XD] + c->t[1] * sn[S_ZD]) / sc.speed;
            const double sgn = slip > 0.0 ? 1.0 : slip < 0.0 ? -1.0 : 0.0;
            cone_piece *sliding = &pc[np++];
            sliding->cost = cost;
            sliding->ngen = 1;
            for (int k = 0; k < 2; k++)
                sliding->gen[0][k] = c->n[k] - mu * sgn * c->t[k];
            if (!(mu > 0.0))
                continue;
            cone_piece *sticking = &pc[np++];
            sticking->cost = fmax(cost, fabs(slip));
            sticking->ngen = 2;
            for (int k = 0; k < 2; k++) {
                sticking->gen[0][k] = c->n[k] + mu * c->t[k];
                sticking->gen[1][k] = c->n[k] - mu * c->t[k];
            }
        }
    }
    p = fmax(p, scene_penetration(d->scene, next, d->params[P_R]) / sc.length);
    *primal = p;
    const double fh[2] = {f[F_X] / sc.force, f[F_Z] / sc.force};
    const double power = (fh[0] * sn[S_XD] + fh[1] * sn[S_ZD]) / sc.speed;
    *complementarity = fmax(cone_residual(fh, pc, np), fmax(power, 0.0));
}

/* One contact mode for the body: separating without force; with a force, frictionless contact,
 * or with friction sticking / sliding along x by the sign of xd'. */
static void modes(const rs_step_data *d, const double *sn, const double *f,
                  const rs_mode_tols *tols, rs_contact_mode *out)
{
    if (!(hypot(f[F_X], f[F_Z]) > tols->force))
        out[0] = RS_MODE_SEPARATING;
    else if (!(d->params[P_MU] > 0.0))
        out[0] = RS_MODE_CONTACT;
    else if (hypot(sn[S_XD], sn[S_ZD]) <= tols->speed)
        out[0] = RS_MODE_STICKING;
    else
        out[0] = sn[S_XD] >= 0.0 ? RS_MODE_SLIDING_POS : RS_MODE_SLIDING_NEG;
}

const rs_model rs_model_disc_polygons = {
    .name = "disc_polygons",
    .summary = "point or disc among polygon obstacles, Coulomb friction, per-step contact sets",
    .source = "note 004 sections 1-4",
    .nparams = NPARAM,
    .params = params,
    .nstate = NSTATE,
    .state_names = state_names,
    .state_default = state_default,
    .velocity_index = velocity_index,
    .nvelocity = 2,
    .ninput = 2,
    .input_names = input_names,
    .nforce = 2,
    .force_names = force_names,
    .ncontacts = 1,
    .nvariants = NFORM,
    .variants = formulations,
    .variant_key = "formulation",
    .needs_scene = 1,
    .force_scale = force_scale,
    .step_scales = dp_step_scales,
    .check_step = check_step,
    .check_reached = check_reached,
    .lcp_n = MAX_UNKNOWNS,
    .lcp_size = lcp_size,
    .lcp_build = lcp_build,
    .lcp_units = lcp_units,
    .lcp_recover = lcp_recover,
    .lcp_tangent = lcp_tangent,
    .lcp_recover_tangent = lcp_recover_tangent,
    .lcp_contact_free = lcp_contact_free,
    .nlp_n = 84, /* 4 + 16 contacts x 5: disc_polygons_nlp.c */
    .nlp_m = 84,
    .nlp_size = dp_nlp_size,
    .nlp_describe = dp_nlp_describe,
    .nlp_start = dp_nlp_start,
    .nlp_recover = dp_nlp_recover,
    .residuals = residuals,
    .modes = modes,
};
