/*
 * disc_polygons.c: a point mass, or a disc of radius r, in the vertical x-z plane among static
 * convex polygons and half-planes (note 004, "Robotic manipulation project", Nguyen 2006), with
 * inelastic frictionless contact. The scene is read from a file ([model] scene = FILE; see
 * src/io/scene_file.h): each obstacle's edges form one of Egan's groups.
 *
 * State X = (x, z, xd, zd) = (p, v), input u = (ux, uz), one contact force f_i >= 0 (N) along
 * the outward normal n_i of each active edge i. Semi-implicit Euler, as in point2d_friction:
 *     v' = v_free + (dt/m) sum_i f_i n_i,   v_free = v + dt (u/m - g e_z)        (D1)
 *     p' = p + dt v'                                                              (D2)
 * Edge i's signed distance, offset by the radius: d_i(p) = n_i . p - c_i - r. Its value after the
 * step, divided by dt, is the note's eq. (3) (W_in^T nu + psi_i/h, with psi_i = d_i(p)):
 *     rho_i = d_i(p)/dt + n_i . v' = d_i(p')/dt
 *           = b_i + sum_j A_ij f_j,   b_i = d_i(p)/dt + n_i . v_free,   A_ij = (dt/m) n_i . n_j.
 * rho_i >= 0 is exactly d_i(p') >= 0: the edges are straight, so nothing is linearised.
 *
 * Active contacts: at the start of the step, the edges (stewart_trinkle) or the obstacles (Egan)
 * within reach of the disc: distance - r <= reach + 2 dt (|v| + |v_free|), the farthest the body
 * can travel in one step plus a margin. The LCP's size changes from step to step.
 *
 * Formulations ([model] formulation = ...):
 *
 * stewart_trinkle (note eqs. 1-2): for every active edge i,
 *     0 <= rho_i  _|_  f_i >= 0.
 *   z = f, M = A, q = b. Near a convex corner both edges are active and their conditions are
 *   ANDed: the body is kept out of the quarter-plane beyond the corner as if a "virtual edge"
 *   closed it (note figure 1).
 *
 * egan_simple (note section 2.1.2): for each active obstacle with edges 1..n, max_i rho_i >= 0
 * (outside the obstacle iff outside at least one of its edges), built from n-1 max(a, 0) terms by
 * Proposition 2.1 (c = max(a, 0) iff 0 <= c - a _|_ c >= 0):
 *     0 <= c_k - rho_k + c_{k-1} + ... + c_2 + rho_1   _|_  c_k >= 0      k = 2..n
 *     0 <= c_2 + ... + c_n + rho_1                      _|_  f_i >= 0      i = 1..n
 *   By induction m_k = c_k + ... + c_2 + rho_1 = max(rho_1, ..., rho_k) (c_k = max(rho_k -
 *   m_{k-1}, 0)), so the last rows read max_i rho_i >= 0 _|_ f_i: 2n - 1 pairs. A half-plane
 *   (n = 1) is the plain pair rho_1 _|_ f_1. Unknowns per obstacle z = (c_2..c_n, f_1..f_n);
 *   with rho = A f + b substituted, row r of M is the row's combination of A's rows plus its c
 *   coefficients, and q_r the same combination of b. Forces may act on every edge of the group
 *   while max rho = 0, also on edges with rho_i > 0 (the note's section 4.1 artifact: in contact,
 *   the body slides along an edge).
 *
 * The accurate formulation (section 2.2) is not built yet.
 *
 * The NLP is the generic relaxation of the LCP (src/nlp/lcp_relaxation.c), posed in the step's
 * natural units: forces in F = m V / dt, the c's and every row in the speed V.
 */
#include <math.h>
#include <string.h>

#include "sim/model.h"

enum { P_M, P_G, P_R, P_REACH, NPARAM };
enum { S_X, S_Z, S_XD, S_ZD, NSTATE };
enum { U_X, U_Z };
enum { F_X, F_Z };
enum { FORM_STEWART_TRINKLE, FORM_EGAN_SIMPLE, NFORM };

/* The largest LCP: more unknowns than this in one step refuse the step. */
#define MAX_UNKNOWNS 64

static const rs_param_def params[NPARAM] = {
    {"m", 1.0, 1e-6, 1e6, "mass, kg"},
    {"g", 9.81, 0.0, 1e3, "gravitational acceleration, m/s^2"},
    {"r", 0.0, 0.0, 1e3, "radius of the disc, m (0: a point)"},
    {"reach", 1e-3, 0.0, 1e3, "margin of the active set beyond one step's travel, m"},
};
static const char *const state_names[NSTATE] = {"x_m", "z_m", "xd_mps", "zd_mps"};
static const double state_default[NSTATE] = {0.0, 1.0, 0.0, 0.0};
static const int velocity_index[] = {S_XD, S_ZD};
static const char *const input_names[] = {"ux_N", "uz_N"};
static const char *const force_names[] = {"fx_N", "fz_N"};
static const char *const formulations[NFORM] = {"stewart_trinkle", "egan_simple"};

/* This step's active contacts: edges in LCP order, grouped by obstacle. */
typedef struct active_set {
    int nedges, ngroups;
    int edge[MAX_UNKNOWNS];        /* scene edge index of each active edge */
    int group_first[MAX_UNKNOWNS + 1]; /* group g: edges [group_first[g], group_first[g+1]) */
    int nunknowns;                 /* the LCP's size */
} active_set;

/* rho = A f + b over the active edges (nedges x nedges, column-major). */
typedef struct rho_terms {
    double A[MAX_UNKNOWNS * MAX_UNKNOWNS]; /* A_ij = (dt/m) n_i . n_j */
    double b[MAX_UNKNOWNS];                /* b_i = d_i(p)/dt + n_i . v_free */
} rho_terms;

static double force_scale(const double *p)
{
    return fmax(p[P_M] * p[P_G], 1e-12);
}

static void free_velocity(const rs_step_data *d, double *v_free)
{
    const double *p = d->params, *s = d->state, *u = d->input, dt = d->dt;
    v_free[0] = s[S_XD] + dt * u[U_X] / p[P_M];
    v_free[1] = s[S_ZD] + dt * (u[U_Z] / p[P_M] - p[P_G]);
}

static void step_scales(const rs_step_data *d, rs_step_scales *sc)
{
    const double *p = d->params, *s = d->state;
    double vf[2];
    free_velocity(d, vf);
    const double speeds[] = {hypot(s[S_XD], s[S_ZD]), hypot(vf[0], vf[1])};
    rs_step_scales_set(sc, speeds, 2, p[P_G] * d->dt, d->dt, p[P_M]);
}

/* The edge's signed distance from the disc's surface: d_i(p) = n_i . p - c_i - r. */
static double edge_gap(const rs_step_data *d, const rs_scene_edge *e, const double *pos)
{
    return rs_edge_distance(e, pos) - d->params[P_R];
}

/* The active set of the step (deterministic: every callback of the step rebuilds the same one).
 * Returns 0 when it would need more than MAX_UNKNOWNS unknowns. */
static int find_active(const rs_step_data *d, active_set *a)
{
    const rs_scene *sc = d->scene;
    const double *s = d->state, dt = d->dt, *p = d->params;
    double vf[2];
    free_velocity(d, vf);
    const double pos[2] = {s[S_X], s[S_Z]};
    const double travel = 2.0 * dt * (hypot(s[S_XD], s[S_ZD]) + hypot(vf[0], vf[1]));
    const double reach = p[P_R] + p[P_REACH] + travel;
    a->nedges = a->ngroups = a->nunknowns = 0;
    for (int k = 0; k < sc->nobstacles; k++) {
        const rs_scene_obstacle *o = &sc->obstacles[k];
        const int first = a->nedges;
        if (d->variant == FORM_STEWART_TRINKLE) { /* each edge near the body on its own */
            for (int i = o->first_edge; i < o->first_edge + o->nedges; i++) {
                if (rs_edge_segment_distance(&sc->edges[i], pos) > reach)
                    continue;
                if (a->nunknowns + 1 > MAX_UNKNOWNS)
                    return 0;
                a->group_first[a->ngroups++] = a->nedges;
                a->edge[a->nedges++] = i;
                a->nunknowns++;
            }
            continue;
        }
        if (rs_scene_obstacle_distance(sc, k, pos) > reach) /* Egan: the whole group */
            continue;
        if (a->nunknowns + 2 * o->nedges - 1 > MAX_UNKNOWNS)
            return 0;
        a->group_first[a->ngroups++] = first;
        for (int i = 0; i < o->nedges; i++)
            a->edge[a->nedges++] = o->first_edge + i;
        a->nunknowns += 2 * o->nedges - 1;
    }
    a->group_first[a->ngroups] = a->nedges;
    return 1;
}

/* b of the active edges, and A when A is not NULL. */
static void find_rho_terms(const rs_step_data *d, const active_set *a, double *A, double *b)
{
    const rs_scene *sc = d->scene;
    const double dt = d->dt, pos[2] = {d->state[S_X], d->state[S_Z]};
    double vf[2];
    free_velocity(d, vf);
    const int n = a->nedges;
    for (int i = 0; i < n; i++) {
        const rs_scene_edge *ei = &sc->edges[a->edge[i]];
        b[i] = edge_gap(d, ei, pos) / dt + ei->n[0] * vf[0] + ei->n[1] * vf[1];
        for (int j = 0; A && j < n; j++) {
            const rs_scene_edge *ej = &sc->edges[a->edge[j]];
            const double nn = ei->n[0] * ej->n[0] + ei->n[1] * ej->n[1];
            A[i + (size_t)j * n] = dt / d->params[P_M] * nn;
        }
    }
}

static int lcp_size(const rs_step_data *d, unsigned long long *structure)
{
    active_set a;
    if (!find_active(d, &a))
        return -1;
    unsigned long long h = 1469598103934665603ull; /* FNV-1a over the active edges */
    for (int i = 0; i < a.nedges; i++) {
        h ^= (unsigned long long)a.edge[i] + 1;
        h *= 1099511628211ull;
    }
    *structure = h;
    return a.nunknowns;
}

/* Column of force f_i (active edge i) in z; the c's of group g come first in its block. */
static int force_column(const active_set *a, int g, int i)
{
    int col = 0;
    for (int h = 0; h < g; h++) {
        const int n = a->group_first[h + 1] - a->group_first[h];
        col += 2 * n - 1;
    }
    const int n = a->group_first[g + 1] - a->group_first[g];
    return col + (n - 1) + (i - a->group_first[g]);
}

/*
 * Row r of the LCP as  w_r = sum_k cc[k] c_k (of its own group) + sum_i rc[i] rho_i  (see the
 * header): the rows of M and q follow by rho = A f + b.
 */
static void put_row(const active_set *a, const rho_terms *t, int row, int nz, const double *rc,
                    double *M, double *q)
{
    const int n = a->nedges;
    double qr = 0.0;
    for (int i = 0; i < n; i++)
        qr += rc[i] * t->b[i];
    q[row] = qr;
    for (int g = 0; g < a->ngroups; g++)
        for (int j = a->group_first[g]; j < a->group_first[g + 1]; j++) {
            double mj = 0.0;
            for (int i = 0; i < n; i++)
                mj += rc[i] * t->A[i + (size_t)j * n];
            M[row + (size_t)force_column(a, g, j) * nz] = mj;
        }
}

static void lcp_build(const rs_step_data *d, double *M, double *q)
{
    active_set a;
    find_active(d, &a);
    rho_terms t;
    find_rho_terms(d, &a, t.A, t.b);
    const int nz = a.nunknowns;
    memset(M, 0, sizeof(double) * (size_t)nz * (size_t)nz);
    double rc[MAX_UNKNOWNS];
    int row = 0;
    for (int g = 0; g < a.ngroups; g++) {
        const int e0 = a.group_first[g], n = a.group_first[g + 1] - e0;
        const int c_col = row; /* c_2..c_n take the first n-1 columns of the block */
        for (int k = 2; k <= n; k++, row++) { /* c_k - rho_k + c_{k-1} + ... + c_2 + rho_1 */
            memset(rc, 0, sizeof(double) * (size_t)a.nedges);
            rc[e0] += 1.0;
            rc[e0 + k - 1] -= 1.0;
            put_row(&a, &t, row, nz, rc, M, q);
            for (int j = 2; j <= k; j++)
                M[row + (size_t)(c_col + j - 2) * nz] = 1.0;
        }
        for (int i = 0; i < n; i++, row++) { /* c_2 + ... + c_n + rho_1 _|_ f_i */
            memset(rc, 0, sizeof(double) * (size_t)a.nedges);
            rc[e0] = 1.0;
            put_row(&a, &t, row, nz, rc, M, q);
            for (int j = 2; j <= n; j++)
                M[row + (size_t)(c_col + j - 2) * nz] = 1.0;
        }
    }
}

/* The unknowns at zero contact forces: f = 0, and each group's c_k = max(rho_k - m_{k-1}, 0)
 * with rho = b, the contact-free distances (Proposition 2.1's max terms of the free motion). */
static void lcp_contact_free(const rs_step_data *d, double *z)
{
    active_set a;
    find_active(d, &a);
    double b[MAX_UNKNOWNS];
    find_rho_terms(d, &a, NULL, b);
    int k = 0;
    for (int g = 0; g < a.ngroups; g++) {
        const int e0 = a.group_first[g], n = a.group_first[g + 1] - e0;
        double running_max = b[e0];
        for (int j = 1; j < n; j++, k++) {
            z[k] = fmax(b[e0 + j] - running_max, 0.0);
            running_max += z[k];
        }
        for (int i = 0; i < n; i++, k++)
            z[k] = 0.0;
    }
}

/* Units of the relaxation: a force in F, a c (a speed) in V; every row is a speed. */
static void lcp_units(const rs_step_data *d, double *z_unit, double *w_unit)
{
    active_set a;
    find_active(d, &a);
    rs_step_scales sc;
    step_scales(d, &sc);
    int k = 0;
    for (int g = 0; g < a.ngroups; g++) {
        const int n = a.group_first[g + 1] - a.group_first[g];
        for (int j = 0; j < 2 * n - 1; j++, k++) {
            z_unit[k] = j < n - 1 ? sc.speed : sc.force;
            w_unit[k] = sc.speed;
        }
    }
}

/* (D1), (D2) from the total contact force. */
static void integrate(const rs_step_data *d, const double *force, double *sn)
{
    const double dt = d->dt, m = d->params[P_M];
    double vf[2];
    free_velocity(d, vf);
    sn[S_XD] = vf[0] + dt * force[F_X] / m;
    sn[S_ZD] = vf[1] + dt * force[F_Z] / m;
    sn[S_X] = d->state[S_X] + dt * sn[S_XD];
    sn[S_Z] = d->state[S_Z] + dt * sn[S_ZD];
}

static void lcp_recover(const rs_step_data *d, const double *z, const double *w, double *sn,
                        double *forces)
{
    (void)w;
    active_set a;
    find_active(d, &a);
    forces[F_X] = forces[F_Z] = 0.0;
    for (int g = 0; g < a.ngroups; g++)
        for (int i = a.group_first[g]; i < a.group_first[g + 1]; i++) {
            const rs_scene_edge *e = &d->scene->edges[a.edge[i]];
            const double f = z[force_column(&a, g, i)];
            forces[F_X] += f * e->n[0];
            forces[F_Z] += f * e->n[1];
        }
    integrate(d, forces, sn);
}

/* The body must start outside every obstacle (offset by r): contact is at position level. */
static const char *check_step(const rs_step_data *d)
{
    const double pos[2] = {d->state[S_X], d->state[S_Z]};
    for (int k = 0; k < d->scene->nobstacles; k++)
        if (rs_scene_obstacle_depth(d->scene, k, pos) + d->params[P_R] > 0.0)
            return "the body starts inside an obstacle (closer than r to it): start in free "
                   "space";
    active_set a;
    if (!find_active(d, &a))
        return "more active contacts at the start than the model's largest LCP (64 unknowns)";
    return NULL;
}

/*
 * The deepest the straight path p + t (p' - p), t in [0, 1], goes into a convex group whose edge
 * distances are d0 at p and d1 at p': max over t of D(t) = min_i -d_i(t), d_i linear in t. D is
 * concave and piecewise linear, so its maximum is at t = 0, t = 1 or where two d_i cross. A step
 * that tunnels through an obstacle and lands on its far side (a solution of the LCP: only p'
 * enters it) has a large depth; sliding along an edge has none.
 */
static double depth_at(const double *d0, const double *d1, int n, double t)
{
    double depth = INFINITY;
    for (int k = 0; k < n; k++)
        depth = fmin(depth, -(d0[k] + t * (d1[k] - d0[k])));
    return depth;
}

static double path_depth(const double *d0, const double *d1, int n)
{
    double best = fmax(depth_at(d0, d1, n, 0.0), depth_at(d0, d1, n, 1.0));
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) { /* where d_i(t) = d_j(t) */
            const double slope = (d1[i] - d0[i]) - (d1[j] - d0[j]);
            if (slope == 0.0)
                continue;
            const double t = (d0[j] - d0[i]) / slope;
            if (t > 0.0 && t < 1.0)
                best = fmax(best, depth_at(d0, d1, n, t));
        }
    return best;
}

/*
 * Physical certificate, in the step's natural units, the same for every formulation:
 *   primal: (D1)-(D2) from the reported force; Egan's non-penetration after the step,
 *           max_i d_i(p') >= 0 for every active obstacle (exact for a point; for a disc the
 *           offset polygon, the note's section 4.3); and no tunnelling: the deepest point of the
 *           straight path from p to p' inside an active obstacle (path_depth); divided by L;
 *   complementarity: a force only while touching: min(|f|/F, gap/L) with gap the smallest
 *           distance after the step to an active obstacle (offset by r). The total force is all
 *           the certificate sees, so a force on one obstacle while touching another passes.
 */
static void residuals(const rs_step_data *d, const double *sn, const double *f, double *primal,
                      double *complementarity)
{
    rs_step_scales sc;
    step_scales(d, &sc);
    double pred[NSTATE];
    integrate(d, f, pred);
    double p = 0.0;
    for (int i = 0; i < NSTATE; i++)
        p = fmax(p, fabs(sn[i] - pred[i]) /
                        (i < S_XD ? rs_length_unit(&sc, pred[i]) : sc.speed));
    active_set a;
    find_active(d, &a);
    const double pos[2] = {d->state[S_X], d->state[S_Z]}, next[2] = {sn[S_X], sn[S_Z]};
    double gap = INFINITY;
    for (int g = 0; g < a.ngroups; g++) {
        const int e0 = a.group_first[g], n = a.group_first[g + 1] - e0;
        double d0[MAX_UNKNOWNS], d1[MAX_UNKNOWNS];
        double gmax = -INFINITY; /* max_i d_i(p') of the group */
        for (int i = 0; i < n; i++) {
            const rs_scene_edge *e = &d->scene->edges[a.edge[e0 + i]];
            d0[i] = edge_gap(d, e, pos);
            d1[i] = edge_gap(d, e, next);
            gmax = fmax(gmax, d1[i]);
        }
        p = fmax(p, fmax(-gmax, path_depth(d0, d1, n)) / sc.length);
        gap = fmin(gap, fmax(gmax, 0.0));
    }
    *primal = p;
    const double fh = hypot(f[F_X], f[F_Z]) / sc.force;
    *complementarity = a.ngroups ? fmin(fh, gap / sc.length) : fh;
}

static void modes(const rs_step_data *d, const double *sn, const double *f,
                  const rs_mode_tols *tols, rs_contact_mode *out)
{
    (void)d;
    (void)sn;
    out[0] = hypot(f[F_X], f[F_Z]) > tols->force ? RS_MODE_CONTACT : RS_MODE_SEPARATING;
}

const rs_model rs_model_disc_polygons = {
    .name = "disc_polygons",
    .summary = "point or disc among polygon obstacles, frictionless, per-step contact sets",
    .source = "note 004 sections 1-2",
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
    .step_scales = step_scales,
    .check_step = check_step,
    .lcp_n = MAX_UNKNOWNS,
    .lcp_size = lcp_size,
    .lcp_build = lcp_build,
    .lcp_units = lcp_units,
    .lcp_recover = lcp_recover,
    .lcp_contact_free = lcp_contact_free,
    .nlp_n = 0,
    .residuals = residuals,
    .modes = modes,
};
