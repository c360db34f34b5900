/*
 * bodies.c: rigid bodies from a scene file (docs/bodies.md): discs, boxes and convex polygons in
 * the vertical x-z plane with rotation, against each other and the scene's static obstacles,
 * with inelastic contact and Coulomb friction. The model is the scene's: its parameters, state,
 * inputs and forces are named after the bodies (rs_model.instantiate).
 *
 * Body b has mass m_b, moment of inertia I_b about its centre of mass, generalised position
 * q_b = (x, z, theta) and velocity v_b = (xd, zd, thetad); inputs u_b = (ux, uz, utau), a force at
 * the centre of mass and a torque; gravity g along -z. Semi-implicit Euler, as every model here:
 *     v' = v_free + dt W J^T lambda,     v_free = v + dt W (u - m g e_z)            (D1)
 *     q' = q + dt v'                                                            (D2)
 * with W = diag(1/m_b, 1/m_b, 1/I_b) and lambda the contact forces (N). A contact i between
 * bodies a and b (or a and an obstacle) at the start of the step (geom/contacts.h) has the unit
 * normal n_i from b into a, the tangent t_i = (n_z, -n_x), the gap g_i and lever arms ra_i, rb_i;
 * its rows of J give the relative velocity of a against b at the contact,
 *     J_e v = e . (v_a + w_a ra^perp) - e . (v_b + w_b rb^perp)
 *           = e . v_a + w_a cross(ra, e) - e . v_b - w_b cross(rb, e)     for e = n_i or t_i.
 * Contact i carries a normal force p_i >= 0 along n_i and, with mu_i > 0 (the pair's friction
 * coefficient: the scene's friction line for the pair, else the scenario's model.mu), friction
 * f_i along t_i.
 *
 * The step LCP (Stewart-Trinkle, the planar cone exactly: two tangent directions), per contact
 * z_i = (p_i, beta+_i, beta-_i, gamma_i), f_i = beta+_i - beta-_i, gamma_i the sliding speed:
 *     w_n  = g_i / dt + J_n v'       >= 0  _|_  p_i >= 0        (the gap after the step, / dt)
 *     w_+  = gamma_i + J_t v'        >= 0  _|_  beta+_i >= 0
 *     w_-  = gamma_i - J_t v'        >= 0  _|_  beta-_i >= 0
 *     w_g  = mu_i p_i - beta+ - beta- >= 0  _|_  gamma_i >= 0  (the cone; at its edge: sliding)
 * With v' from (D1) each row is affine in z: M = dt J W J^T (in the rows and columns of the
 * directions n, t, -t), plus the identity blocks of gamma and the cone rows; q = (g/dt + J_n
 * v_free, J_t v_free, -J_t v_free, 0). A frictionless contact (mu_i = 0) has p_i alone.
 *
 * The relaxation of this LCP is the generic one (src/nlp/lcp_relaxation.c), posed in the step's
 * natural units: speed V (the largest speed of any body's point, before and after the free
 * step, or min(1e-6 X / dt, g0 dt) with X the scene's size: a floor that does not vanish with
 * g, find_step), length L = V dt; each contact's own speed V_i (the largest of the bodies it
 * touches through contacts between bodies) and forces in F_i = m_i V_i / dt, m_i the mass of its
 * lighter body or the load it holds up (find_step): gamma and the velocity rows in V_i, the cone
 * row in F_i. The model's own NLP
 * (bodies_nlp.c) poses the same step in the post's style.
 *
 * The certificate (residuals) recomputes the physics from the step's outputs: the bodies' next
 * state and total contact forces, and each contact's (p_i, f_i): (D1)-(D2); the total forces
 * equal J^T lambda; the gaps after the step g_i + dt J_n v' >= 0 (to first order in the step:
 * the contact set and its normals are the start's); p_i >= 0, |f_i| <= mu_i p_i, p_i times the
 * gap after the step, and a sliding contact's friction at the cone's edge against its slip. Each
 * in natural units: lengths in L, an angle in L / R (R the body's extent), speeds in V, an
 * angular speed in V / R, a body's forces in m_b V / dt and its torque in that times R, a
 * contact's forces in max(F_i, |p_i|) (the force it carries when that is larger: residuals);
 * (D2) beyond the rounding of the position update itself (rs_update_excess).
 *
 * A gap within the rounding of the positions it is computed from (8 eps (|x| + |z| + extent)
 * of each body) is found (the margins include it) and, once that rounding exceeds 1e-9 L, taken
 * as 0 (find_step): at small time steps the gap term g_i / dt otherwise turns it into motion.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies.h"
#include "core/detail.h"

/* ---- the step's contacts ------------------------------------------------------------------ */

double bodies_relative_velocity(const rs_contact *c, const double *e, const double *v)
{
    const double *va = v + 3 * c->a;
    double s = e[0] * va[0] + e[1] * va[1] + va[2] * bodies_cross(c->ra, e);
    if (c->b >= 0) {
        const double *vb = v + 3 * c->b;
        s -= e[0] * vb[0] + e[1] * vb[1] + vb[2] * bodies_cross(c->rb, e);
    }
    return s;
}

static void step_free(bodies_step *s)
{
    if (!s)
        return;
    rs_contact_list_free(&s->list);
    free(s->stamp);
    free(s->by_height);
    free(s->group);
    free(s->first); /* (held is its second half) */
    free(s->mu); /* (fscale and vscale are its second and last thirds) */
    free(s->layout_int);
    free(s->layout_dbl);
    free(s);
}

/* *p grown to hold n elements of size bytes when its *cap is less; 0 when out of memory (*p
 * kept). */
static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap)
        return 1;
    void *q = realloc(*p, size * n);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

int bodies_step_layout_arrays(const bodies_step *s, size_t nint, size_t ndbl, int **ip,
                              double **dp)
{
    bodies_step *w = (bodies_step *)s; /* (the scratch is the cache's, not the step's value) */
    void *pi = w->layout_int, *pd = w->layout_dbl;
    const int ok = grow(&pi, &w->layout_int_cap, nint, sizeof(int)) &&
                   grow(&pd, &w->layout_dbl_cap, ndbl, sizeof(double));
    w->layout_int = pi;
    w->layout_dbl = pd;
    *ip = w->layout_int;
    *dp = w->layout_dbl;
    return ok;
}

static bodies_step *step_new(const rs_scene *scene)
{
    bodies_step *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->scene = scene;
    s->nb = scene->nbodies;
    const size_t nb = (size_t)s->nb;
    s->nstamp = 6 * nb + 3 * nb + (size_t)bodies_nparams(scene) + 1;
    /* the stamp, then pose, margin, mass, inertia, extent, vfree, carried, supports, speed,
     * group_speed */
    s->stamp = calloc(s->nstamp + 3 * nb + nb + 3 * nb + 3 * nb + 4 * nb + 1, sizeof(double));
    s->group = malloc(sizeof *s->group * (nb + 1));
    if (!s->stamp || !s->group) {
        step_free(s);
        return NULL;
    }
    s->pose = s->stamp + s->nstamp;
    s->margin = s->pose + 3 * nb;
    s->mass = s->margin + nb;
    s->inertia = s->mass + nb;
    s->extent = s->inertia + nb;
    s->vfree = s->extent + nb;
    s->carried = s->vfree + 3 * nb;
    s->supports = s->carried + nb;
    s->speed = s->supports + nb;
    s->group_speed = s->speed + nb;
    return s;
}

/* The stamp of d: 1 if it equals the cached one (and stores it when not). */
static int same_step(bodies_step *s, const rs_step_data *d)
{
    const size_t nb = (size_t)s->nb;
    double *t = s->stamp;
    int same = s->valid;
    const double *parts[3] = {d->state, d->input, d->params};
    const size_t sizes[3] = {6 * nb, 3 * nb, (size_t)bodies_nparams(s->scene)};
    for (int p = 0; p < 3; p++) {
        if (same && memcmp(t, parts[p], sizeof(double) * sizes[p]) != 0)
            same = 0;
        memcpy(t, parts[p], sizeof(double) * sizes[p]);
        t += sizes[p];
    }
    if (same && *t != d->dt)
        same = 0;
    *t = d->dt;
    return same;
}

/* The rounding of the positions of body b's points (m; 0 for an obstacle, b < 0): a point is
 * its centre plus its offset turned by theta, and a gap is a difference of such points (or of a
 * point and an obstacle's line) projected on the normal, each operation rounding to the size of
 * its operands, |centre| + extent. 8 eps of that bounds what the contact finder's arithmetic
 * leaves on a gap: the five-box stack's gaps come out at +-2.8e-17 m (the boxes' centres at
 * 0.1 .. 0.9 m, exactly touching); this bound is 2.0e-15 m for its top box. */
static double position_rounding(const bodies_step *s, int b)
{
    if (b < 0)
        return 0.0;
    return 8.0 * DBL_EPSILON *
           (fabs(s->pose[3 * b]) + fabs(s->pose[3 * b + 1]) + s->extent[b]);
}

/* A contact's force unit follows the load it holds up once that load is more than this many times
 * its lighter body's mass (find_step). */
#define LOAD_UNIT_RATIO 100.0

/* Supporting contacts by the height of the body they hold up, highest first, then by that body
 * and by the contact (qsort's order: for each body from the highest down, its contacts in the
 * list's order). */
static int higher_first(const void *p, const void *q)
{
    const bodies_height *a = p, *b = q;
    /* a NaN height (a step that is failing anyway) sorts last, so that the order stays total */
    const int an = isnan(a->z), bn = isnan(b->z);
    if (!an && !bn && a->z != b->z)
        return a->z > b->z ? -1 : 1;
    if (an != bn)
        return an - bn;
    if (a->up != b->up)
        return a->up < b->up ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* The body contact c holds up from below (-1: none): a when the normal, from b into a, points up
 * and a's centre lies above b's (or b is an obstacle); b when it points down and b lies above a;
 * none for a side contact. */
static int held_body(const bodies_step *s, const rs_contact *c)
{
    if (c->n[1] > 0.0 && (c->b < 0 || s->pose[3 * c->a + 1] > s->pose[3 * c->b + 1]))
        return c->a;
    if (c->n[1] < 0.0 && c->b >= 0 && s->pose[3 * c->b + 1] > s->pose[3 * c->a + 1])
        return c->b;
    return -1;
}

/* The mass whose weight each body brings down onto what holds it: its own and what rests on it,
 * s->carried[b], and the number of contacts that hold it, s->supports[b]; each contact's held
 * body in s->held (held_body, -1 for none). The supporting contacts are taken by the height of
 * the body they hold, from the highest down, so that what rests on a body is summed before the
 * body's own share is passed on, split evenly over its supports (a box on its face: two
 * corners, each half): one sort of the contacts, O(C log C). */
static void carried_masses(bodies_step *s)
{
    for (int b = 0; b < s->nb; b++) {
        s->carried[b] = s->mass[b];
        s->supports[b] = 0.0;
    }
    int k = 0;
    for (int i = 0; i < s->list.n; i++) {
        const int up = s->held[i] = held_body(s, &s->list.c[i]);
        if (up < 0)
            continue;
        s->supports[up] += 1.0;
        s->by_height[k++] = (bodies_height){s->pose[3 * up + 1], up, i};
    }
    if (k > 1) /* (one entry needs no sort; before the first contact there is no array) */
        qsort(s->by_height, (size_t)k, sizeof *s->by_height, higher_first);
    for (int j = 0; j < k; j++) { /* each body's load passed on to the bodies beneath it */
        const int up = s->by_height[j].up;
        const rs_contact *c = &s->list.c[s->by_height[j].i];
        const int low = c->a == up ? c->b : c->a;
        if (low >= 0)
            s->carried[low] += s->carried[up] / s->supports[up];
    }
}

/* The root of body b's group in s->group (union-find, paths halved). */
static int group_root(int *group, int b)
{
    while (group[b] != b) {
        group[b] = group[group[b]];
        b = group[b];
    }
    return b;
}

/* s->group_speed[b]: the largest s->speed over the bodies that touch b through the step's
 * contacts between bodies, directly or along a chain (static obstacles join no two bodies: the
 * ground would join them all). A contact's forces move its own bodies, and through them what
 * touches them: an impact on the top of a stack reaches the ground through every contact below
 * it, in one step. */
static void group_speeds(bodies_step *s)
{
    const int nb = s->nb;
    for (int b = 0; b < nb; b++) {
        s->group[b] = b;
        s->group_speed[b] = 0.0;
    }
    for (int i = 0; i < s->list.n; i++) {
        const rs_contact *c = &s->list.c[i];
        if (c->b < 0)
            continue;
        const int ra = group_root(s->group, c->a), rb = group_root(s->group, c->b);
        if (ra != rb)
            s->group[ra] = rb;
    }
    for (int b = 0; b < nb; b++) {
        const int r = group_root(s->group, b);
        s->group_speed[r] = fmax(s->group_speed[r], s->speed[b]);
    }
    for (int b = 0; b < nb; b++)
        s->group_speed[b] = s->group_speed[group_root(s->group, b)];
}

/* Find the step's contacts and what depends on them; 0 when out of memory. */
static int find_step(bodies_step *s, const rs_step_data *d)
{
    const rs_scene *sc = s->scene;
    const double dt = d->dt, g = d->params[BP_G];
    double vmax = g * dt; /* the speed gravity adds in a step: the floor of V */
    double size = 0.0;    /* X: the scene's size (see below) */
    for (int b = 0; b < s->nb; b++) {
        const rs_body *bd = &sc->bodies[b];
        const double *x = d->state + BS_N * b, *u = d->input + BU_N * b;
        const double m = d->params[BP_MASS0 + b], I = rs_body_inertia(bd, m);
        s->mass[b] = m;
        s->inertia[b] = I;
        s->extent[b] = bd->extent;
        s->pose[3 * b] = x[BS_X];
        s->pose[3 * b + 1] = x[BS_Z];
        s->pose[3 * b + 2] = x[BS_TH];
        double *vf = s->vfree + 3 * b;
        vf[0] = x[BS_XD] + dt * u[BU_X] / m;
        vf[1] = x[BS_ZD] + dt * (u[BU_Z] / m - g);
        vf[2] = x[BS_THD] + dt * u[BU_TAU] / I;
        /* how far any point of b moves in the step without contact forces */
        const double before = hypot(x[BS_XD], x[BS_ZD]) + fabs(x[BS_THD]) * bd->extent;
        const double after = hypot(vf[0], vf[1]) + fabs(vf[2]) * bd->extent;
        /* (plus the rounding of its gaps: a gap that rounding leaves positive is found) */
        s->margin[b] = dt * fmax(before, after) + position_rounding(s, b);
        s->speed[b] = fmax(before, after);
        vmax = fmax(vmax, s->speed[b]);
        size = fmax(size, fmax(fabs(x[BS_X]), fabs(x[BS_Z])) + bd->extent);
    }
    /* The floor of V without gravity (a top view: a table, planar pushing, billiards; or g = 0
     * set), where bodies can rest with nothing moving and g dt is 0: the speed that moves a body
     * by a millionth of the scene's size X in one step, 1e-6 X / dt, X the largest coordinate of
     * any body's centre plus its extent (the region the bodies occupy, from the origin). The
     * poses are stored to their rounding, about 1e-16 X, so a resting contact's gap is of that
     * size, and the step LCP turns a gap into a speed, gap / dt: in this floor that is near
     * 1e-10 V, below every tolerance stated in V, L and F (Lemke's certificate, 1e-9, is the
     * tightest), where V = 1e-12 m/s made it 1% of V and failed every resting step. It is
     * capped at g0 dt, the speed standard gravity (g0 = 9.80665 m/s^2) adds in one step: at a
     * small dt, 1e-6 X / dt would outgrow every speed of the scene (1.1 m/s for the stack at
     * dt = 1e-6 s, where gravity adds 9.8e-6 m/s) and loosen every tolerance with it; there
     * the rounding of the poses is judged as it is with gravity, by the certificate's rounding
     * floors (rs_update_excess, the gaps within rounding). With g = 9.81 the floor is never
     * above g dt, so that the units with gravity are unchanged. */
    const double vfloor = fmin(1e-6 * size / dt, 9.80665 * dt);
    vmax = fmax(vmax, vfloor);
    rs_step_scales_set(&s->scales, &vmax, 1, 0.0, dt, 1.0);
    double mmax = 0.0;
    for (int b = 0; b < s->nb; b++)
        mmax = fmax(mmax, s->mass[b]);
    s->scales.force = mmax * s->scales.speed / dt;
    if (rs_find_contacts(sc, s->pose, s->margin, d->params[BP_REACH], &s->list) != RS_OK)
        return 0;
    const int nc = s->list.n;
    if (nc > s->cap_contacts) {
        int *first = realloc(s->first, sizeof(int) * 2 * (size_t)nc);
        if (first)
            s->first = first;
        double *mu = realloc(s->mu, sizeof(double) * 3 * (size_t)nc);
        if (mu)
            s->mu = mu;
        bodies_height *by_height = realloc(s->by_height, sizeof *by_height * (size_t)nc);
        if (by_height)
            s->by_height = by_height;
        if (!first || !mu || !by_height)
            return 0;
        s->cap_contacts = nc;
    }
    s->fscale = s->mu + s->cap_contacts; /* (mu's second third) */
    s->vscale = s->fscale + s->cap_contacts; /* (and its last) */
    s->held = s->first + s->cap_contacts;    /* (first's second half) */
    unsigned long long h = 1469598103934665603ull; /* FNV-1a over the contacts' features */
    s->nz = 0;
    for (int i = 0; i < nc; i++) {
        rs_contact *c = &s->list.c[i];
        /* A gap within the rounding of the positions it is computed from is a touch, 0, once
         * that rounding is a visible part (1e-9) of the step's length L. The normal row has
         * g_i / dt, which turns a gap's rounding e into a speed e / dt = (e / L) V and a force
         * of m e / dt^2: the five-box stack's gaps of +-2.8e-17 m moved its forces by 2.8e-11
         * N (3e-12 of m g) at dt = 1e-3 s, by 6% at 1e-8 s (8.98 to 10.37 N for 9.81), from 0
         * to 177 N at 1e-9 s; and from 1e-10 s a gap rounded positive lay beyond the step's
         * reach g dt^2, and the boxes fell freely through steps whose travel no position can
         * hold. Below 1e-9 L the rounding changes nothing a tolerance sees, and the data of
         * the shipped scenes at their time steps stays as it was, to the bit. */
        const double rounding = position_rounding(s, c->a) + position_rounding(s, c->b);
        if (rounding > 1e-9 * s->scales.length && fabs(c->gap) <= rounding)
            c->gap = 0.0;
        s->first[i] = s->nz;
        s->mu[i] = d->params[bodies_mu_param(sc, c->a, c->b)];
        s->nz += s->mu[i] > 0.0 ? 4 : 1;
        const unsigned long long parts[4] = {(unsigned long long)c->a + 1,
                                             (unsigned long long)(c->b + 2),
                                             (unsigned long long)(c->obstacle + 2), c->feature};
        for (int k = 0; k < 4; k++) {
            h ^= parts[k];
            h *= 1099511628211ull;
        }
    }
    s->key = h;
    /* The force unit of contact i, F_i = m_i V_i / dt, the force that changes the speed of its
     * lighter body m_i by V_i in a step (an impact's: the effective mass of the pair is at most
     * m_i) or, where more than LOAD_UNIT_RATIO times heavier, the mass M_i whose weight it holds
     * up at rest: M_i V_i / dt, M_i g at rest (V_i = g dt there). A light body under a heavy one
     * carries the heavy one's weight at each of its contacts, the ground's included: in the
     * light body's unit, a 1e6 kg disc on a 1 kg box loaded the box's ground contacts with 1e6
     * units, and IPOPT found 496 of 500 steps (dt = 1e-2 s) infeasible. Below that ratio the
     * lighter mass stays the unit: within two orders of magnitude of the load, it scales the
     * rows as well (stacks, the pile: ratios up to about 12).
     * V_i (s->vscale, also the speed unit of the contact's rows in the pairs NLP) is the
     * largest speed of the bodies it touches through a chain of contacts (group_speeds), with
     * V's floors (g dt; vfloor without gravity), not the scene's V, the fastest body's: a
     * contact's forces move those bodies only (with their own bodies' speeds alone, the pile's
     * step 193 failed: two bodies at 0.02 m/s pressed by 111 N from an impact above them, 22 of
     * their unit). Where all the bodies touch through contacts, V_i is V to the bit. In V, a plank
     * resting on a corner while a disc rolled away at 0.79 m/s had a force unit 40 times its
     * weight, and its cone's slack, mu p - |f|, came to 3.4e-3 of it: IPOPT's answer at tol,
     * whose products are about tol, then let the plank slip at tol / 3.4e-3 = 3e-8 V (2.4e-8
     * m/s, kept by every later step), and the polish could not read the light end's pairs (its
     * load at 3e-4 of the unit, within the polish's threshold). In V_i the plank rests to 3e-15
     * m/s (Lemke's to 2.8e-14). */
    carried_masses(s);
    group_speeds(s);
    const double floor_i = fmax(g * dt, fmax(vfloor, RS_STEP_SPEED_FLOOR)); /* V's floors */
    for (int i = 0; i < nc; i++) {
        const rs_contact *c = &s->list.c[i];
        const double m = c->b >= 0 ? fmin(s->mass[c->a], s->mass[c->b]) : s->mass[c->a];
        const int up = s->held[i];
        const double load = up >= 0 ? s->carried[up] / s->supports[up] : 0.0;
        const double Vi = fmax(floor_i, s->group_speed[c->a]);
        s->vscale[i] = Vi;
        s->fscale[i] = (load > LOAD_UNIT_RATIO * m ? load : m) * Vi / dt;
    }
    s->valid = 1;
    return 1;
}

bodies_step *bodies_step_get(const rs_step_data *d, bodies_step **tmp)
{
    *tmp = NULL;
    bodies_step *s = d->cache;
    if (!s && !(s = *tmp = step_new(d->scene)))
        return NULL;
    if (same_step(s, d))
        return s;
    if (!find_step(s, d)) {
        s->valid = 0;
        step_free(*tmp);
        *tmp = NULL;
        return NULL;
    }
    return s;
}

void bodies_step_release(bodies_step *tmp)
{
    step_free(tmp);
}

static void *cache_create(const rs_model *m, const rs_scene *scene)
{
    (void)m;
    return step_new(scene);
}

static void cache_free(void *cache)
{
    step_free(cache);
}

/* ---- the LCP -------------------------------------------------------------------------------- */

/* The direction of unknown k of contact c (0: p along n, 1: beta+ along t, 2: beta- along -t;
 * 3: gamma, no direction) into e; 0 for gamma. */
static int direction(const rs_contact *c, int k, double *e)
{
    double t[2];
    bodies_tangent(c, t);
    if (k == 0) {
        e[0] = c->n[0];
        e[1] = c->n[1];
    } else if (k == 1 || k == 2) {
        const double s = k == 1 ? 1.0 : -1.0;
        e[0] = s * t[0];
        e[1] = s * t[1];
    }
    return k < 3;
}

/* dt times the velocity along f at contact cj caused by a unit force along e at contact ci:
 * sum over the bodies they share of s_i s_j dt (e . f / m + cross(r_i, e) cross(r_j, f) / I). */
static double coupling(const bodies_step *s, double dt, const rs_contact *ci, const double *e,
                       const rs_contact *cj, const double *f)
{
    double v = 0.0;
    const int bi[2] = {ci->a, ci->b}, bj[2] = {cj->a, cj->b};
    const double *ri[2] = {ci->ra, ci->rb}, *rj[2] = {cj->ra, cj->rb};
    for (int x = 0; x < 2; x++)
        for (int y = 0; y < 2; y++) {
            if (bi[x] < 0 || bi[x] != bj[y])
                continue;
            const int b = bi[x];
            const double sign = (x == 0 ? 1.0 : -1.0) * (y == 0 ? 1.0 : -1.0);
            v += sign * dt *
                 ((e[0] * f[0] + e[1] * f[1]) / s->mass[b] +
                  bodies_cross(ri[x], e) * bodies_cross(rj[y], f) / s->inertia[b]);
        }
    return v;
}

static int lcp_size(const rs_step_data *d, unsigned long long *structure)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (!s)
        return -1;
    const int n = s->nz;
    *structure = s->key;
    bodies_step_release(tmp);
    return n;
}

static void lcp_build(const rs_step_data *d, double *M, double *q)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (!s)
        return;
    const int n = s->nz, nc = s->list.n;
    const double dt = d->dt;
    memset(M, 0, sizeof(double) * (size_t)n * (size_t)n);
    memset(q, 0, sizeof(double) * (size_t)n);
    for (int j = 0; j < nc; j++) { /* rows of contact j */
        const rs_contact *cj = &s->list.c[j];
        const int rows = s->mu[j] > 0.0 ? 3 : 1, r0 = s->first[j];
        for (int rk = 0; rk < rows; rk++) {
            double f[2];
            direction(cj, rk, f);
            const int row = r0 + rk;
            q[row] = bodies_relative_velocity(cj, f, s->vfree) + (rk == 0 ? cj->gap / dt : 0.0);
            for (int i = 0; i < nc; i++) { /* columns of contact i's forces */
                const rs_contact *ci = &s->list.c[i];
                const int cols = s->mu[i] > 0.0 ? 3 : 1;
                for (int ck = 0; ck < cols; ck++) {
                    double e[2];
                    direction(ci, ck, e);
                    M[row + (size_t)(s->first[i] + ck) * n] = coupling(s, dt, ci, e, cj, f);
                }
            }
            if (rk > 0) /* gamma_j + / - J_t v' */
                M[row + (size_t)(r0 + 3) * n] = 1.0;
        }
        if (rows == 3) { /* mu p - beta+ - beta- */
            const int row = r0 + 3;
            M[row + (size_t)r0 * n] = s->mu[j];
            M[row + (size_t)(r0 + 1) * n] = -1.0;
            M[row + (size_t)(r0 + 2) * n] = -1.0;
        }
    }
    bodies_step_release(tmp);
}

static void lcp_units(const rs_step_data *d, double *z_unit, double *w_unit)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (!s)
        return;
    for (int i = 0; i < s->list.n; i++) {
        const int f = s->first[i];
        z_unit[f] = s->fscale[i];
        w_unit[f] = s->vscale[i];
        if (s->mu[i] > 0.0) {
            z_unit[f + 1] = z_unit[f + 2] = s->fscale[i];
            z_unit[f + 3] = w_unit[f + 1] = w_unit[f + 2] = s->vscale[i];
            w_unit[f + 3] = s->fscale[i];
        }
    }
    bodies_step_release(tmp);
}

void bodies_velocities(const bodies_step *s, double dt, const double *contact, double *v,
                       double *forces)
{
    const int nb = s->nb;
    double *F = forces;
    double local[3 * 8];
    if (!F) /* the totals are needed for v' either way */
        F = nb <= 8 ? local : malloc(sizeof(double) * 3 * (size_t)nb);
    if (!F) {
        for (int i = 0; i < 3 * nb; i++)
            v[i] = NAN;
        return;
    }
    memset(F, 0, sizeof(double) * 3 * (size_t)nb);
    for (int i = 0; i < s->list.n; i++) {
        const rs_contact *c = &s->list.c[i];
        double t[2];
        bodies_tangent(c, t);
        const double p = contact[2 * i], f = contact[2 * i + 1];
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
    for (int b = 0; b < nb; b++) {
        v[3 * b] = s->vfree[3 * b] + dt * F[3 * b] / s->mass[b];
        v[3 * b + 1] = s->vfree[3 * b + 1] + dt * F[3 * b + 1] / s->mass[b];
        v[3 * b + 2] = s->vfree[3 * b + 2] + dt * F[3 * b + 2] / s->inertia[b];
    }
    if (F != forces && F != local)
        free(F);
}

void bodies_integrate(const rs_step_data *d, const double *v, double *sn)
{
    const int nb = d->scene->nbodies;
    for (int b = 0; b < nb; b++) {
        const double *x = d->state + BS_N * b;
        double *y = sn + BS_N * b;
        y[BS_XD] = v[3 * b];
        y[BS_ZD] = v[3 * b + 1];
        y[BS_THD] = v[3 * b + 2];
        y[BS_X] = x[BS_X] + d->dt * y[BS_XD];
        y[BS_Z] = x[BS_Z] + d->dt * y[BS_ZD];
        y[BS_TH] = x[BS_TH] + d->dt * y[BS_THD];
    }
}

/* The generalised velocities after the step, 3 per body, from the next state. */
static void next_velocities(int nb, const double *sn, double *v)
{
    for (int b = 0; b < nb; b++) {
        v[3 * b] = sn[BS_N * b + BS_XD];
        v[3 * b + 1] = sn[BS_N * b + BS_ZD];
        v[3 * b + 2] = sn[BS_N * b + BS_THD];
    }
}

static int contact_count(const rs_step_data *d)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    const int n = s ? s->list.n : 0;
    bodies_step_release(tmp);
    return n;
}

static void contact_geometry(const rs_step_data *d, rs_contact_geometry *out)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    for (int i = 0; s && i < s->list.n; i++) {
        const rs_contact *c = &s->list.c[i];
        out[i] = (rs_contact_geometry){c->a, c->b, {c->p[0], c->p[1]}, {c->n[0], c->n[1]}, c->gap};
    }
    bodies_step_release(tmp);
}

static void lcp_recover(const rs_step_data *d, const double *z, const double *w, double *sn,
                        double *forces, double *contact)
{
    (void)w;
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    const int nb = d->scene->nbodies;
    double *v = malloc(sizeof(double) * (3 * (size_t)nb + 2 * (size_t)(s ? s->list.n : 0) + 1));
    if (!s || !v) {
        for (int i = 0; i < BS_N * nb; i++)
            sn[i] = NAN;
        for (int i = 0; i < BF_N * nb; i++)
            forces[i] = NAN;
        free(v);
        bodies_step_release(tmp);
        return;
    }
    double *lam = v + 3 * nb; /* (p, f) per contact */
    for (int i = 0; i < s->list.n; i++) {
        const int f = s->first[i];
        lam[2 * i] = z[f];
        lam[2 * i + 1] = s->mu[i] > 0.0 ? z[f + 1] - z[f + 2] : 0.0;
    }
    if (contact)
        memcpy(contact, lam, sizeof(double) * 2 * (size_t)s->list.n);
    bodies_velocities(s, d->dt, lam, v, forces);
    bodies_integrate(d, v, sn);
    free(v);
    bodies_step_release(tmp);
}

/* z at zero contact forces: the forces 0, each sliding speed gamma_i = |J_t v_free| (never a
 * solution of the contact problem). */
static void lcp_contact_free(const rs_step_data *d, double *z)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (!s)
        return;
    memset(z, 0, sizeof(double) * (size_t)s->nz);
    for (int i = 0; i < s->list.n; i++)
        if (s->mu[i] > 0.0) {
            double t[2];
            bodies_tangent(&s->list.c[i], t);
            z[s->first[i] + 3] = fabs(bodies_relative_velocity(&s->list.c[i], t, s->vfree));
        }
    bodies_step_release(tmp);
}

/* ---- units, scales, the certificate, modes -------------------------------------------------- */

static void step_scales(const rs_step_data *d, rs_step_scales *sc)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    if (s)
        *sc = s->scales;
    else
        sc->speed = sc->length = sc->force = NAN;
    bodies_step_release(tmp);
}

/* [input] unit = weight: the weight of 1 kg (each body has its own mass; an input in weights
 * is in multiples of g newtons). */
static double force_scale(const double *params)
{
    return fmax(params[BP_G], 1e-12);
}

/* Each column's natural unit: a body's position in L, its angle in L / R, its velocity in V and
 * angular velocity in V / R, its force in m V / dt and torque in m V R / dt (R: its extent). */
static void column_units(const rs_step_data *d, const rs_step_scales *sc, double *unit)
{
    const int nb = d->scene->nbodies;
    for (int b = 0; b < nb; b++) {
        const double R = fmax(d->scene->bodies[b].extent, 1e-300);
        const double F = d->params[BP_MASS0 + b] * sc->speed / d->dt;
        double *u = unit + BS_N * b;
        u[BS_X] = u[BS_Z] = sc->length;
        u[BS_TH] = sc->length / R;
        u[BS_XD] = u[BS_ZD] = sc->speed;
        u[BS_THD] = sc->speed / R;
        double *f = unit + BS_N * nb + BF_N * b;
        f[BF_X] = f[BF_Z] = F;
        f[BF_TAU] = F * R;
    }
}

/* The physical certificate (the header comment). */
static void residuals(const rs_step_data *d, const double *sn, const double *f,
                      const double *contact, double *primal, double *complementarity)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    const int nb = d->scene->nbodies;
    const int nc = s ? s->list.n : 0;
    double *v = s ? malloc(sizeof(double) * (6 * (size_t)nb + 1)) : NULL;
    if (!s || !v || (nc > 0 && !contact)) { /* nothing to certify the step with */
        *primal = *complementarity = NAN;
        free(v);
        bodies_step_release(tmp);
        return;
    }
    const rs_step_scales *sc = &s->scales;
    const double V = sc->speed, L = sc->length, dt = d->dt;
    double *vc = v + 3 * nb; /* v' implied by the contact forces */
    next_velocities(nb, sn, v);
    double p = 0.0, c = 0.0;
    bodies_velocities(s, dt, contact, vc, NULL);
    for (int b = 0; b < nb; b++) {
        const double R = fmax(s->extent[b], 1e-300), F = s->mass[b] * V / dt;
        const double *x = d->state + BS_N * b, *y = sn + BS_N * b;
        /* (D2): positions from the velocities, beyond the update's own rounding (at dt = 1e-6
         * s a box at z = 0.3 m rounds to 2.8e-17 m = 2.8e-6 L); (D1): the velocities from the
         * contact forces */
        p = fmax(p, rs_update_excess(y[BS_X], x[BS_X], dt * y[BS_XD], L));
        p = fmax(p, rs_update_excess(y[BS_Z], x[BS_Z], dt * y[BS_ZD], L));
        p = fmax(p, rs_update_excess(y[BS_TH], x[BS_TH], dt * y[BS_THD], L / R));
        p = fmax(p, fmax(fabs(v[3 * b] - vc[3 * b]), fabs(v[3 * b + 1] - vc[3 * b + 1])) / V);
        p = fmax(p, fabs(v[3 * b + 2] - vc[3 * b + 2]) * R / V);
        /* the reported totals are the contacts' */
        const double *fb = f + BF_N * b;
        const double dv[2] = {(v[3 * b] - s->vfree[3 * b]) * s->mass[b] / dt,
                              (v[3 * b + 1] - s->vfree[3 * b + 1]) * s->mass[b] / dt};
        p = fmax(p, fmax(fabs(fb[BF_X] - dv[0]), fabs(fb[BF_Z] - dv[1])) / F);
        if (isfinite(s->inertia[b])) /* (a locked rotation takes any torque: its angle holds) */
            p = fmax(p, fabs(fb[BF_TAU] - (v[3 * b + 2] - s->vfree[3 * b + 2]) * s->inertia[b] /
                                              dt) / (F * R));
    }
    for (int i = 0; i < nc; i++) {
        const rs_contact *ct = &s->list.c[i];
        double t[2];
        bodies_tangent(ct, t);
        /* Contact i's forces in F_i = max(m_i V_i / dt, |p_i|): its natural unit (s->fscale,
         * find_step: m_i its lighter body's mass or the load it holds up, V_i its bodies'
         * speed), or the normal force it carries when that is larger. A light body under a heavy one
         * carries the heavy one's weight on both its contacts, the one above and the one
         * with the ground below (m_top = 1e6 m_i: p_i = 1e6 m_i V / dt at rest, V = g dt),
         * and its velocity v' = v_free + dt (p_below - p_above) / m_i, a difference of two
         * terms of 1e6 V, carries a rounding of 1e6 eps V; so do the gaps and slips after the
         * step computed from it. In m_i V / dt the products p gap and f slip then multiplied
         * 1e6 by 1e6 eps (2e-4: Lemke's answers, right to 4e-10 of each force, failed every
         * step). Neither the heavier body's mass (the light body's ground contact carries the
         * same load and has no heavier body) nor the contact's effective mass (1 / (1/m_a +
         * 1/m_b + ...), at most the lighter mass) follows the load: with either, every Lemke
         * step still failed at 1e6, 19 of 500 at 1e4, as before. The force does: a heavy
         * body's contacts are judged alike on a light body and on the ground (in its weight at
         * rest), a light body's in its own unit whatever lies beneath it, and the products'
         * rounding stays eps m_top / m_i. */
        const double Fi = fmax(s->fscale[i], fabs(contact[2 * i])), mu = s->mu[i];
        const double pn = contact[2 * i] / Fi, ft = contact[2 * i + 1] / Fi;
        const double gap = (ct->gap + dt * bodies_relative_velocity(ct, ct->n, v)) / L;
        const double slip = bodies_relative_velocity(ct, t, v) / V;
        /* primal: the inequalities and the cone; complementarity: the products (model.h) */
        p = fmax(p, fmax(-gap, 0.0));      /* no overlap after the step */
        p = fmax(p, fmax(-pn, 0.0));       /* a pushing contact force */
        p = fmax(p, fabs(ft) - mu * pn);   /* within the cone */
        c = fmax(c, fabs(pn) * fmax(gap, 0.0)); /* a force only at zero gap */
        if (mu > 0.0) {
            c = fmax(c, fabs(slip) * fmax(mu * pn - fabs(ft), 0.0)); /* sliding: at the edge */
            c = fmax(c, fmax(ft * slip, 0.0));                       /* against the slip */
        }
    }
    *primal = p;
    *complementarity = c;
    free(v);
    bodies_step_release(tmp);
}

/* One mode per body: separating without contact force; else, among its closed contacts (gap
 * after the step within 1e-6 L), sticking when none slips beyond the speed tolerance, sliding
 * along the tangent of the fastest slip otherwise (+ when the body moves along its t), contact
 * when every one of its contacts is frictionless. */
static void modes(const rs_step_data *d, const double *sn, const double *f,
                  const rs_mode_tols *tols, rs_contact_mode *out)
{
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(d, &tmp);
    const int nb = d->scene->nbodies;
    double *v = s ? malloc(sizeof(double) * (3 * (size_t)nb + 1)) : NULL;
    for (int b = 0; b < nb; b++)
        out[b] = RS_MODE_SEPARATING;
    if (!s || !v) {
        free(v);
        bodies_step_release(tmp);
        return;
    }
    next_velocities(nb, sn, v);
    double *fastest = calloc((size_t)nb, sizeof(double));
    int *friction = calloc((size_t)nb, sizeof(int));
    for (int b = 0; fastest && friction && b < nb; b++) {
        const double *fb = f + BF_N * b;
        const double R = fmax(s->extent[b], 1e-300);
        if (hypot(fb[BF_X], fb[BF_Z]) > tols->force || fabs(fb[BF_TAU]) / R > tols->force)
            out[b] = RS_MODE_CONTACT;
    }
    for (int i = 0; fastest && friction && i < s->list.n; i++) {
        const rs_contact *ct = &s->list.c[i];
        double t[2];
        bodies_tangent(ct, t);
        const double gap = ct->gap + d->dt * bodies_relative_velocity(ct, ct->n, v);
        if (!(gap <= 1e-6 * s->scales.length))
            continue;
        const double slip = bodies_relative_velocity(ct, t, v);
        const int who[2] = {ct->a, ct->b};
        for (int k = 0; k < 2; k++) {
            const int b = who[k];
            if (b < 0 || out[b] == RS_MODE_SEPARATING)
                continue;
            friction[b] |= s->mu[i] > 0.0;
            const double own = k == 0 ? slip : -slip;
            if (fabs(own) > fabs(fastest[b]))
                fastest[b] = own;
        }
    }
    for (int b = 0; fastest && friction && b < nb; b++) {
        if (out[b] == RS_MODE_SEPARATING || !friction[b])
            continue;
        out[b] = !(fabs(fastest[b]) > tols->speed) ? RS_MODE_STICKING
                 : fastest[b] > 0.0                 ? RS_MODE_SLIDING_POS
                                                    : RS_MODE_SLIDING_NEG;
    }
    free(fastest);
    free(friction);
    free(v);
    bodies_step_release(tmp);
}

/* No two bodies overlap, and none is inside an obstacle, by more than overlap times the step's
 * length L (at least 1e-9 m). */
static rs_error check_overlaps(const rs_step_data *d, double overlap, rs_error_detail *detail)
{
    const rs_scene *sc = d->scene;
    const int nb = sc->nbodies;
    double *pose = malloc(sizeof(double) * (4 * (size_t)nb + 1));
    if (!pose)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
    double *margin = pose + 3 * nb;
    for (int b = 0; b < nb; b++) {
        pose[3 * b] = d->state[BS_N * b + BS_X];
        pose[3 * b + 1] = d->state[BS_N * b + BS_Z];
        pose[3 * b + 2] = d->state[BS_N * b + BS_TH];
        margin[b] = 0.0;
    }
    rs_contact_list l = {0, 0, NULL};
    rs_error err = RS_OK;
    if (rs_find_contacts(sc, pose, margin, 0.0, &l) != RS_OK) {
        err = rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
    } else {
        rs_step_scales ss;
        step_scales(d, &ss);
        const double tol = fmax(1e-9, overlap * ss.length);
        const rs_contact *worst = NULL;
        for (int i = 0; i < l.n; i++)
            if (l.c[i].gap < -tol && (!worst || l.c[i].gap < worst->gap))
                worst = &l.c[i];
        const char *base = strrchr(sc->name, '/') ? strrchr(sc->name, '/') + 1 : sc->name;
        if (worst && worst->b >= 0)
            err = rs_detail_set(detail, RS_ERR_BAD_ARG,
                                "bodies %s and %s (%.60s lines %d and %d) overlap by %.3g m at "
                                "the start: move them apart (the step's gap term would throw "
                                "them apart within one step)",
                                sc->bodies[worst->a].name, sc->bodies[worst->b].name, base,
                                sc->bodies[worst->a].line, sc->bodies[worst->b].line,
                                -worst->gap);
        else if (worst && sc->obstacles[worst->obstacle].line > 0)
            err = rs_detail_set(detail, RS_ERR_BAD_ARG,
                                "body %s (%.60s line %d) is %.3g m inside the obstacle of line %d "
                                "at the start: move it out (a half-plane's normal points into "
                                "free space)",
                                sc->bodies[worst->a].name, base, sc->bodies[worst->a].line,
                                -worst->gap, sc->obstacles[worst->obstacle].line);
        else if (worst)
            err = rs_detail_set(detail, RS_ERR_BAD_ARG,
                                "body %s is %.3g m inside obstacle %d at the start: move it out",
                                sc->bodies[worst->a].name, -worst->gap, worst->obstacle + 1);
    }
    rs_contact_list_free(&l);
    free(pose);
    return err;
}

/* Every free body's moment of inertia a positive normal number: a disc of r = 1e-300 has
 * m r^2 / 2 = 0, and a step would divide by it (theta came out NaN). */
static rs_error check_inertia(const rs_step_data *d, rs_error_detail *detail)
{
    const rs_scene *sc = d->scene;
    for (int b = 0; b < sc->nbodies; b++) {
        const rs_body *bd = &sc->bodies[b];
        const double m = d->params[BP_MASS0 + b], I = rs_body_inertia(bd, m);
        const char *base = strrchr(sc->name, '/') ? strrchr(sc->name, '/') + 1 : sc->name;
        if (!bd->locked && !(I >= DBL_MIN && I < INFINITY))
            return rs_detail_set(detail, RS_ERR_BAD_ARG,
                                 "body %s (%.60s line %d): its moment of inertia is %g kg m^2 "
                                 "(mass %g kg), which no torque can turn (give the body a size, "
                                 "or inertia = ...)",
                                 bd->name, base, bd->line, I, m);
    }
    return RS_OK;
}

/* The start: overlaps no larger than the rounding of a position (1e-3 L). */
/* A start whose first step LCP the dense solvers cannot hold (RS_DENSE_LCP_MAX_N rows) is
 * refused with its size and what to change: the rows grow with the contacts found, every pair
 * of bodies within one step's travel plus model.reach of each other. */
static rs_error check_size(const rs_step_data *d, rs_error_detail *detail)
{
    unsigned long long key;
    const int n = lcp_size(d, &key);
    if (n < 0)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory finding the first step's "
                                                   "contacts");
    if (n <= RS_DENSE_LCP_MAX_N)
        return RS_OK;
    const double gb = 3.0 * 8.0 * (double)n * (double)n / 1e9;
    return rs_detail_set(detail, RS_ERR_BAD_ARG,
                         "the first step's LCP has %d rows (its dense arrays %.3g GB), more than "
                         "the %d the dense Lemke solver takes: the %d bodies of %.200s have that "
                         "many contact candidates within one step's travel plus model.reach = "
                         "%g m; lower model.reach, or simulate fewer bodies",
                         n, gb, RS_DENSE_LCP_MAX_N, d->scene->nbodies, d->scene->name,
                         d->params[BP_REACH]);
}

static rs_error check_step(const rs_step_data *d, rs_error_detail *detail)
{
    rs_error err = check_inertia(d, detail);
    if (err == RS_OK)
        err = check_overlaps(d, 1e-3, detail);
    return err != RS_OK ? err : check_size(d, detail);
}

/* A state a run reached: overlaps up to one step's length, the penetration a step leaves (a disc
 * on a box's edge, 1e-4 m in the shipped pile), which the next step's gap term throws apart. */
static rs_error check_reached(const rs_step_data *d, rs_error_detail *detail)
{
    const rs_error err = check_inertia(d, detail);
    return err != RS_OK ? err : check_overlaps(d, 1.0, detail);
}

/* ---- the model of a scene --------------------------------------------------------------------- */

typedef struct bodies_model {
    rs_model model; /* first: the instance is its rs_model */
    char *names;    /* every column and parameter name, NUL-separated */
    const char **state_names, **input_names, **force_names;
    rs_param_def *params;
    double *state_default;
    int *velocity_index;
} bodies_model;

static void release(rs_model *m)
{
    bodies_model *bm = (bodies_model *)m;
    if (!bm)
        return;
    free(bm->names);
    free(bm->state_names);
    free(bm->params);
    free(bm->state_default);
    free(bm->velocity_index);
    free(bm);
}

/* The variants name the NLP (bodies.h): the LCP is the same. */
static const char *const variants[] = {"pairs", "post"};

static void nlp_size(const rs_step_data *d, int *n, int *m)
{
    (d->variant == BODIES_POST ? bodies_post_size : bodies_pairs_size)(d, n, m);
}

static void nlp_layout(const rs_step_data *d, int *nnz_jac, int *nnz_hess,
                       unsigned long long *key)
{
    (d->variant == BODIES_POST ? bodies_post_layout : bodies_pairs_layout)(d, nnz_jac, nnz_hess,
                                                                            key);
}

static void nlp_describe(rs_nlp_problem *p, int variant)
{
    memset(p, 0, sizeof *p); /* every field the NLP does not set: none */
    if (variant == BODIES_POST)
        bodies_post_describe(p, variant);
    else
        bodies_pairs_describe(p);
}

static void nlp_start(const rs_step_data *d, rs_nlp_start which, double *x0)
{
    (d->variant == BODIES_POST ? bodies_post_start : bodies_pairs_start)(d, which, x0);
}

static void nlp_recover(const rs_step_data *d, const double *x, double *sn, double *forces,
                        double *contact)
{
    (d->variant == BODIES_POST ? bodies_post_recover : bodies_pairs_recover)(d, x, sn, forces,
                                                                              contact);
}

static rs_error instantiate(const rs_model *self, const rs_scene *scene, rs_model **out,
                            rs_error_detail *detail)
{
    *out = NULL;
    const int nb = scene->nbodies;
    if (nb < 1)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "the scene has no body: declare them with 'body NAME disc|box|"
                             "polygon ...' lines (docs/bodies.md)");
    bodies_model *bm = calloc(1, sizeof *bm);
    const size_t ns = BS_N * (size_t)nb, nin = BU_N * (size_t)nb, nf = BF_N * (size_t)nb;
    const size_t np = (size_t)bodies_nparams(scene), nfr = (size_t)scene->nfriction;
    const size_t slot = RS_BODY_NAME_LEN + 16, pair_slot = 2 * RS_BODY_NAME_LEN + 16;
    if (bm) {
        bm->names = malloc((ns + nin + nf + np) * slot + nfr * pair_slot);
        bm->state_names = malloc(sizeof(char *) * (ns + nin + nf));
        bm->params = calloc(np, sizeof *bm->params);
        bm->state_default = malloc(sizeof(double) * ns);
        bm->velocity_index = malloc(sizeof(int) * 3 * (size_t)nb);
    }
    if (!bm || !bm->names || !bm->state_names || !bm->params || !bm->state_default ||
        !bm->velocity_index) {
        release((rs_model *)bm); /* (the model is bm's first member; NULL is accepted) */
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
    }
    bm->model = *self;
    bm->input_names = bm->state_names + ns;
    bm->force_names = bm->input_names + nin;
    char *at = bm->names;
    static const char *const st[BS_N] = {"x_m", "z_m", "theta_rad", "xd_mps", "zd_mps",
                                         "thetad_radps"};
    static const char *const in[BU_N] = {"ux_N", "uz_N", "utau_Nm"};
    static const char *const fo[BF_N] = {"fx_N", "fz_N", "tau_Nm"};
    for (int b = 0; b < nb; b++) {
        const rs_body *bd = &scene->bodies[b];
        for (int k = 0; k < BS_N; k++, at += slot) {
            snprintf(at, slot, "%s.%s", bd->name, st[k]);
            bm->state_names[BS_N * b + k] = at;
            bm->state_default[BS_N * b + k] = bd->initial[k];
        }
        for (int k = 0; k < BU_N; k++, at += slot) {
            snprintf(at, slot, "%s.%s", bd->name, in[k]);
            bm->input_names[BU_N * b + k] = at;
        }
        for (int k = 0; k < BF_N; k++, at += slot) {
            snprintf(at, slot, "%s.%s", bd->name, fo[k]);
            bm->force_names[BF_N * b + k] = at;
        }
        for (int k = 0; k < 3; k++)
            bm->velocity_index[3 * b + k] = BS_N * b + BS_XD + k;
        snprintf(at, slot, "%s.m", bd->name);
        bm->params[BP_MASS0 + b] =
            (rs_param_def){at, bd->mass, 1e-9, 1e9, "the body's mass, kg", 0.0};
        at += slot;
    }
    for (int f = 0; f < scene->nfriction; f++) { /* model.friction.A.B: a friction line's mu */
        const rs_scene_friction *fr = &scene->friction[f];
        /* (named as its line names the pair) */
        const char *first = scene->bodies[fr->swapped ? fr->b : fr->a].name;
        const char *second = fr->b < 0 ? "static" : scene->bodies[fr->swapped ? fr->a : fr->b].name;
        snprintf(at, pair_slot, "friction.%s.%s", first, second);
        bm->params[BP_MASS0 + nb + f] = (rs_param_def){
            at, fr->mu, 0.0, 10.0, "Coulomb friction coefficient of the pair (its scene line)", 0.0};
        at += pair_slot;
    }
    bm->params[BP_G] =
        (rs_param_def){"g", 9.81, 0.0, 1e3, "gravitational acceleration, m/s^2", 0.0};
    bm->params[BP_MU] = (rs_param_def){"mu", 0.0, 0.0, 10.0,
                                       "Coulomb friction coefficient of every pair without a "
                                       "friction line of its own", 0.0};
    bm->params[BP_REACH] = (rs_param_def){"reach", 0.0, 0.0, 1e3,
                                          "margin of the contacts found beyond one step's travel, "
                                          "m", 0.0};
    rs_model *m = &bm->model;
    m->instantiate = NULL; /* an instance is a model like any other */
    m->release = release;
    m->nparams = (int)np;
    m->params = bm->params;
    m->nstate = (int)ns;
    m->state_names = bm->state_names;
    m->state_default = bm->state_default;
    m->velocity_index = bm->velocity_index;
    m->nvelocity = 3 * nb;
    m->ninput = (int)nin;
    m->input_names = bm->input_names;
    m->nforce = (int)nf;
    m->force_names = bm->force_names;
    m->ncontacts = nb;
    *out = m;
    return RS_OK;
}

static const rs_param_def template_params[] = {
    {"g", 9.81, 0.0, 1e3, "gravitational acceleration, m/s^2", 0.0},
    {"mu", 0.0, 0.0, 10.0, "Coulomb friction coefficient of every pair without its own", 0.0},
    {"reach", 0.0, 0.0, 1e3, "margin of the contacts found beyond one step's travel, m", 0.0},
};
/* What `relaxsim models` lists: a scene's columns are its bodies' (BODY stands for a name). */
static const char *const template_state[] = {"BODY.x_m",    "BODY.z_m",    "BODY.theta_rad",
                                             "BODY.xd_mps", "BODY.zd_mps", "BODY.thetad_radps"};
static const double template_default[] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
static const int template_velocity[] = {3, 4, 5};
static const char *const template_input[] = {"BODY.ux_N", "BODY.uz_N", "BODY.utau_Nm"};
static const char *const template_force[] = {"BODY.fx_N", "BODY.fz_N", "BODY.tau_Nm"};

const rs_model rs_model_bodies = {
    .name = "bodies",
    .summary = "rigid discs, boxes and polygons from a scene file, with rotation and Coulomb "
               "friction (per body: x, z, theta and their rates; per body and pair: m, mu)",
    .source = "docs/bodies.md: Stewart-Trinkle's planar step, the post's relaxation",
    .nparams = 3,
    .params = template_params,
    .nstate = 6,
    .state_names = template_state,
    .state_default = template_default,
    .velocity_index = template_velocity,
    .nvelocity = 3,
    .ninput = 3,
    .input_names = template_input,
    .nforce = 3,
    .force_names = template_force,
    .ncontacts = 0,
    .nvariants = 2,
    .variants = variants,
    .needs_scene = 1,
    .instantiate = instantiate,
    .release = release,
    .cache_create = cache_create,
    .cache_free = cache_free,
    .column_units = column_units,
    .contact_count = contact_count,
    .contact_geometry = contact_geometry,
    .sizes_grow = 1,
    .force_scale = force_scale,
    .step_scales = step_scales,
    .check_step = check_step,
    .check_reached = check_reached,
    .lcp_n = 0,
    .lcp_size = lcp_size,
    .lcp_build = lcp_build,
    .lcp_units = lcp_units,
    .lcp_recover = lcp_recover,
    .lcp_contact_free = lcp_contact_free,
    .lcp_tangent = bodies_lcp_tangent,
    .lcp_recover_tangent = bodies_lcp_recover_tangent,
    .nlp_n = 0, /* (sizes_grow: per step, nlp_size) */
    .nlp_m = 0,
    .nlp_size = nlp_size,
    .nlp_layout = nlp_layout,
    .nlp_describe = nlp_describe,
    .nlp_start = nlp_start,
    .nlp_recover = nlp_recover,
    .residuals = residuals,
    .modes = modes,
};
