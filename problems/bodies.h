/*
 * bodies.h (internal): what the files of the bodies model share (problems/bodies.c: the model,
 * its step LCP and certificate; problems/bodies_nlp.c: its own NLP). The physics is in
 * bodies.c's header comment and docs/bodies.md.
 */
#ifndef RS_PROBLEMS_BODIES_H
#define RS_PROBLEMS_BODIES_H

#include "geom/contacts.h"
#include "sim/model.h"

/* Parameters: g, mu, reach, each body's mass, then the coefficient of each of the scene's
 * friction lines in their order (model.friction.A.B, model.friction.A.static). */
enum { BP_G = 0, BP_MU = 1, BP_REACH = 2, BP_MASS0 = 3 };

/* The number of parameters of a scene's model. */
static inline int bodies_nparams(const rs_scene *s)
{
    return BP_MASS0 + s->nbodies + s->nfriction;
}

/* The parameter that is the friction coefficient of the pair (a, b) (b = -1: an obstacle): its
 * friction line's, else model.mu. */
static inline int bodies_mu_param(const rs_scene *s, int a, int b)
{
    const int f = rs_scene_pair_friction(s, a, b);
    return f >= 0 ? BP_MASS0 + s->nbodies + f : BP_MU;
}
/* Per body: 6 state components, 3 inputs, 3 force columns. */
enum { BS_X, BS_Z, BS_TH, BS_XD, BS_ZD, BS_THD, BS_N };
enum { BU_X, BU_Z, BU_TAU, BU_N };
enum { BF_X, BF_Z, BF_TAU, BF_N };

typedef struct bodies_height { /* a contact that holds a body up (carried_masses) */
    double z; /* the held body's centre's height, m */
    int up;   /* that body */
    int i;    /* the contact */
} bodies_height;

/* One step's contacts, and what the step's LCP and NLP are built from (bodies.c). Cached per
 * run (rs_step_data.cache) and found again whenever the step's data differ from the stamp. */
typedef struct bodies_step {
    const rs_scene *scene;
    int nb;
    double *stamp;       /* state, input, params, dt of the step the contacts are for */
    size_t nstamp;
    int valid;
    rs_contact_list list;
    double *pose;        /* 3 nb: x, z, theta */
    double *margin;      /* nb */
    double *mass, *inertia, *extent; /* nb */
    double *vfree;       /* 3 nb: the velocities without contact forces (v + dt u / m - g dt) */
    int *first;          /* per contact: its first LCP unknown */
    int *held;           /* per contact: the body it holds up, or -1 (carried_masses) */
    double *mu;          /* per contact */
    double *fscale;      /* per contact: its force unit m V_i / dt (m: its lighter body's mass,
                          * or the mass it holds up when that is 100 times more: find_step) */
    double *vscale;      /* per contact: its speed unit V_i, the speed of the bodies it
                          * touches (group_speed, at least V's floor; at most V): find_step */
    double *carried;     /* nb: the mass each body brings down on its supports (its own too) */
    double *supports;    /* nb: how many contacts hold it up */
    double *speed;       /* nb: how fast any point of it moves, before or after the free step
                            (m/s) */
    double *group_speed; /* nb: the largest speed of the bodies it touches, through a chain of
                            contacts between bodies: its contacts' speed unit (find_step) */
    bodies_height *by_height; /* per contact: scratch, the supporting contacts from the highest
                               * body they hold down */
    int *group;          /* nb: scratch, each body's parent in its contact group (group_speeds) */
    int nz;              /* LCP unknowns */
    int cap_contacts;
    unsigned long long key; /* the contacts' features (the structure key) */
    rs_step_scales scales;
    /* the NLP layouts' arrays (bodies_nlp.c, bodies_nlp_pairs.c: bodies_step_layout_arrays),
     * grown as a step needs and kept with the step: an IPOPT evaluation allocates nothing */
    int *layout_int;
    double *layout_dbl;
    size_t layout_int_cap, layout_dbl_cap;
} bodies_step;

/* The step's contacts (the cache's, or a temporary one the caller frees with
 * bodies_step_release when *tmp is set). NULL when out of memory. */
bodies_step *bodies_step_get(const rs_step_data *d, bodies_step **tmp);
void bodies_step_release(bodies_step *tmp);

/* Room for nint ints and ndbl doubles in s's layout arrays (*ip, *dp), valid until the next call
 * for s; grown only when a step needs more (the arrays are the step cache's scratch, which its
 * callbacks share one at a time). 0 when out of memory. */
int bodies_step_layout_arrays(const bodies_step *s, size_t nint, size_t ndbl, int **ip,
                              double **dp);

/* The generalised direction of force e (a unit vector) at contact c, on its body a (sign +1)
 * and b (sign -1): the velocity along e of a relative to b at the contact is
 * sum over its bodies of sign (e . v + w cross(r, e)). */
static inline double bodies_cross(const double *r, const double *e)
{
    return r[0] * e[1] - r[1] * e[0];
}

/* The tangent of a contact: n turned by -90 degrees, t = (n_z, -n_x). */
static inline void bodies_tangent(const rs_contact *c, double *t)
{
    t[0] = c->n[1];
    t[1] = -c->n[0];
}

/* The relative velocity along e at contact c for the generalised velocities v (3 per body). */
double bodies_relative_velocity(const rs_contact *c, const double *e, const double *v);

/* The model's variants: the step LCP is Stewart-Trinkle's either way; the variant chooses the
 * NLP: the relaxation of the LCP's complementarity pairs in velocity variables
 * (bodies_nlp_pairs.c) or the post's form (bodies_nlp.c). */
enum { BODIES_PAIRS = 0, BODIES_POST = 1 };

void bodies_pairs_size(const rs_step_data *d, int *n, int *m);
void bodies_pairs_layout(const rs_step_data *d, int *nnz_jac, int *nnz_hess,
                         unsigned long long *key);
void bodies_pairs_describe(rs_nlp_problem *p);
void bodies_pairs_start(const rs_step_data *d, rs_nlp_start which, double *x0);
void bodies_pairs_recover(const rs_step_data *d, const double *x, double *state_next,
                          double *forces, double *contact);

void bodies_post_size(const rs_step_data *d, int *n, int *m);
void bodies_post_layout(const rs_step_data *d, int *nnz_jac, int *nnz_hess,
                        unsigned long long *key);
void bodies_post_describe(rs_nlp_problem *p, int variant);
void bodies_post_start(const rs_step_data *d, rs_nlp_start which, double *x0);
void bodies_post_recover(const rs_step_data *d, const double *x, double *state_next,
                         double *forces, double *contact);

/* The generalised velocities of the bodies (3 each) and the step's positions from them, and
 * the totals of the contact forces (below), for both NLPs' recovery. */

/* The step's velocities after contact impulses: v' = vfree + dt W (J^T lambda), from the contact
 * forces (normal p_i, tangential f_i along t_i) of every contact; and the bodies' total contact
 * forces (fx, fz, tau per body) into forces (may be NULL). */
void bodies_velocities(const bodies_step *s, double dt, const double *contact, double *v,
                       double *forces);

/* Positions from velocities: x' = x + dt v' (state_next's velocities set from v). */
void bodies_integrate(const rs_step_data *d, const double *v, double *state_next);

/* The step's derivatives along a data tangent, the contact set held fixed (bodies_tangent.c: by
 * the complex step), as rs_model.lcp_tangent and lcp_recover_tangent. */
void bodies_lcp_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dM, double *dq);
void bodies_lcp_recover_tangent(const rs_step_data *d, const rs_step_tangent *t, const double *z,
                                const double *w, const double *dz, const double *dw,
                                double *dstate_next, double *dforces);
/* For the tests: (M, q) from bodies_tangent.c's complex evaluation at the data (no tangent),
 * which must equal the model's lcp_build. 0 when out of memory. */
int bodies_complex_build(const rs_step_data *d, double *M, double *q);

#endif
