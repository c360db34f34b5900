/*
 * bodies_step.c: one step of the bodies engine prepared (dynamics/bodies.h: the physics): the
 * contacts found at the step's start, each contact's units (its force unit from the load it holds
 * up, its speed from the bodies it touches), the free velocities, and the velocities and
 * positions after the step from given contact forces. Every other file of the engine reads the
 * step from here; this file calls none of them.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detail.h"
#include "dynamics/bodies_rows.h"

/* ---- the step's contacts ------------------------------------------------------------------ */

void bodies_step_free(bodies_step *s)
{
    if (!s)
        return;
    rs_contact_list_free(&s->list);
    free(s->stamp);
    free(s->by_height);
    free(s->group);
    free(s->block);
    free(s->jrow); /* (rrow is its last third) */
    free(s->held); /* (friction_index is its second half) */
    free(s->mu); /* (fscale and vscale are its second and last thirds) */
    free(s->work);
    rs_contact_list_free(&s->reached);
    free(s->arena);
    free(s);
}

void *bodies_step_arena(bodies_step *s, size_t bytes)
{
    if (bytes > s->arena_cap) {
        void *a = realloc(s->arena, bytes); /* (malloc's alignment: any type's) */
        if (!a)
            return NULL;
        s->arena = a;
        s->arena_cap = bytes;
    }
    return s->arena;
}

bodies_step *bodies_step_new(const rs_scene *scene)
{
    bodies_step *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->scene = scene;
    s->nb = scene->nbodies;
    const size_t nb = (size_t)s->nb;
    s->nstamp = 6 * nb + 3 * nb + (size_t)bodies_nparams(scene) + 1;
    /* the stamp, then pose, margin, mass, inertia, extent, vfree, vfree_scaled, totals,
     * carried, supports, speed, group_speed */
    s->stamp = calloc(s->nstamp + 3 * nb + nb + 3 * nb + 3 * 3 * nb + 4 * nb + 1,
                      sizeof(double));
    s->group = malloc(sizeof *s->group * (2 * nb + 1)); /* (and work_int) */
    s->work = malloc(sizeof *s->work * bodies_work_size(s->nb, 0));
    if (!s->stamp || !s->group || !s->work) {
        bodies_step_free(s);
        return NULL;
    }
    s->pose = s->stamp + s->nstamp;
    s->margin = s->pose + 3 * nb;
    s->mass = s->margin + nb;
    s->inertia = s->mass + nb;
    s->extent = s->inertia + nb;
    s->vfree = s->extent + nb;
    s->vfree_scaled = s->vfree + 3 * nb;
    s->totals = s->vfree_scaled + 3 * nb;
    s->carried = s->totals + 3 * nb;
    s->supports = s->carried + nb;
    s->speed = s->supports + nb;
    s->group_speed = s->speed + nb;
    s->work_int = s->group + nb;
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
    const double V = s->scales.speed;
    for (int b = 0; b < s->nb; b++) { /* the free velocities in the NLPs' units */
        s->vfree_scaled[3 * b] = s->vfree[3 * b] / V;
        s->vfree_scaled[3 * b + 1] = s->vfree[3 * b + 1] / V;
        s->vfree_scaled[3 * b + 2] = s->vfree[3 * b + 2] * s->extent[b] / V;
    }
    if (rs_find_contacts(sc, s->pose, s->margin, d->params[BP_REACH], &s->list) != RS_OK)
        return 0;
    const int nc = s->list.n;
    if (nc > s->cap_contacts) {
        bodies_block *block = realloc(s->block, sizeof *block * (size_t)nc);
        if (block)
            s->block = block;
        bodies_jrow *jrow = realloc(s->jrow, sizeof *jrow * (BODIES_BLOCK_MAX + 2) * (size_t)nc);
        if (jrow)
            s->jrow = jrow;
        int *held = realloc(s->held, sizeof(int) * 2 * (size_t)nc);
        if (held)
            s->held = held;
        double *mu = realloc(s->mu, sizeof(double) * 3 * (size_t)nc);
        if (mu)
            s->mu = mu;
        bodies_height *by_height = realloc(s->by_height, sizeof *by_height * (size_t)nc);
        if (by_height)
            s->by_height = by_height;
        double *work = realloc(s->work, sizeof(double) * bodies_work_size(s->nb, nc));
        if (work)
            s->work = work;
        if (!block || !jrow || !held || !mu || !by_height || !work)
            return 0;
        s->cap_contacts = nc;
    }
    s->fscale = s->mu + s->cap_contacts; /* (mu's second third) */
    s->vscale = s->fscale + s->cap_contacts; /* (and its last) */
    s->friction_index = s->held + s->cap_contacts; /* (held's second half) */
    s->rrow = s->jrow + BODIES_BLOCK_MAX * s->cap_contacts; /* (2 reactions a contact) */
    unsigned long long h = 1469598103934665603ull; /* FNV-1a over the contacts' features */
    s->nz = 0;
    s->nreact = 0;
    s->nfriction = 0;
    s->pairs_n = 3 * s->nb; /* (the pairs NLP's variables: the bodies' velocities first) */
    s->nblocks = nc;
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
        s->mu[i] = d->params[bodies_mu_param(sc, c->a, c->b)];
        s->friction_index[i] = s->mu[i] > 0.0 ? s->nfriction++ : -1;
        /* block i, contact i: its unknowns, its reactions, its variables in the pairs NLP (its z
         * and w, then its slacks and rows c) */
        bodies_block *bk = &s->block[i];
        bk->ops = &bodies_contact_rows;
        bk->item = i;
        bk->first = s->nz;
        bk->count = bk->ops->count(s, i);
        bk->react_at = s->nreact;
        bk->pair_at = s->pairs_n;
        s->nz += bk->count;
        s->nreact += bk->ops->nreactions;
        s->pairs_n += 2 * bk->count;
        const unsigned long long parts[4] = {(unsigned long long)c->a + 1,
                                             (unsigned long long)(c->b + 2),
                                             (unsigned long long)(c->obstacle + 2), c->feature};
        for (int k = 0; k < 4; k++) {
            h ^= parts[k];
            h *= 1099511628211ull;
        }
    }
    s->key = h;
    for (int k = 0; k < s->nblocks; k++) { /* the blocks' Jacobian rows, once a step */
        const bodies_block *bk = &s->block[k];
        for (int j = 0; j < bk->count; j++)
            if (!bk->ops->jacobian(s, bk->item, j, &s->jrow[bk->first + j]))
                s->jrow[bk->first + j].body[0] = -1;
        for (int j = 0; j < bk->ops->nreactions; j++)
            bk->ops->reaction_row(s, bk->item, j, &s->rrow[bk->react_at + j]);
    }
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
    if (!s && !(s = *tmp = bodies_step_new(d->scene)))
        return NULL;
    if (same_step(s, d))
        return s;
    if (!find_step(s, d)) {
        s->valid = 0;
        bodies_step_free(*tmp);
        *tmp = NULL;
        return NULL;
    }
    return s;
}

void bodies_step_release(bodies_step *tmp)
{
    bodies_step_free(tmp);
}


void bodies_velocities(const bodies_step *s, double dt, const double *reactions, double *v,
                       double *forces)
{
    const int nb = s->nb;
    double *F = forces ? forces : s->totals; /* the totals are needed for v' either way */
    memset(F, 0, sizeof(double) * 3 * (size_t)nb);
    for (int k = 0; k < s->nblocks; k++) {
        const bodies_block *bk = &s->block[k];
        bk->ops->apply(s, bk->item, reactions + bk->react_at, F);
    }
    for (int b = 0; b < nb; b++) {
        v[3 * b] = s->vfree[3 * b] + dt * F[3 * b] / s->mass[b];
        v[3 * b + 1] = s->vfree[3 * b + 1] + dt * F[3 * b + 1] / s->mass[b];
        v[3 * b + 2] = s->vfree[3 * b + 2] + dt * F[3 * b + 2] / s->inertia[b];
    }
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
