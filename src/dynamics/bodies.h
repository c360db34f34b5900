/*
 * bodies.h (internal): the bodies engine, what its files share. Rigid bodies from a scene file
 * (docs/bodies.md): discs, boxes and convex polygons in the vertical x-z plane with rotation,
 * against each other and the scene's static obstacles, with inelastic contact and Coulomb
 * friction. The model is the scene's: its parameters, state, inputs and forces are named after
 * the bodies (src/models/bodies_model.c, instantiate).
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
 * (bodies_nlp_post.c) poses the same step in the post's style.
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
 *
 * The engine's files, each calling only those above it in this list (and none of them the
 * model's): bodies_row_contact.c (a contact as a block of constraint rows: bodies_rows.h),
 * bodies_step.c (the step prepared: contacts, blocks, units, velocities), bodies_lcp.c (the
 * LCP and its recovery), bodies_certificate.c (units, certificate, modes), bodies_checks.c (a
 * state's checks), bodies_nlp_pairs.c and bodies_nlp_post.c (the two NLPs), bodies_tangent.c
 * (the step's derivatives). src/models/bodies_model.c makes the engine a model of the registry.
 */
#ifndef RS_DYNAMICS_BODIES_H
#define RS_DYNAMICS_BODIES_H

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

/* One step's contacts, and what the step's LCP and NLP are built from (bodies_step.c). Cached per
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
    double *vfree_scaled; /* 3 nb: vfree in the NLPs' units, (vx / V, vz / V, w R_b / V) */
    struct bodies_block *block; /* the step's blocks of constraint rows (bodies_rows.h): the
                                 * contacts first, block i contact i */
    int nblocks;
    int nreact;          /* their reactions (bodies_rows.h), 2 per contact */
    struct bodies_jrow *jrow; /* nz: each LCP unknown's Jacobian row (body[0] -1: none) */
    struct bodies_jrow *rrow; /* nreact: each reaction's Jacobian row */
    int *held;           /* per contact: the body it holds up, or -1 (carried_masses) */
    /* the NLPs' layouts (bodies_nlp_post.c, bodies_nlp_pairs.c), found with the contacts */
    int *friction_index; /* per contact: its index among the contacts with friction, or -1 */
    int nfriction;       /* the contacts with friction */
    int pairs_n;         /* the pairs NLP's variables (= its rows) */
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
    /* The step's scratch, sized with its contacts (find_step grows it when a step has more
     * contacts than any before it): the callbacks that recover, certify and check a step use it
     * one at a time and allocate nothing. */
    double *work;        /* 8 nb + 2 cap_contacts + 1 doubles */
    int *work_int;       /* nb + 1 */
    double *totals;      /* 3 nb: bodies_velocities' force totals when its caller wants none */
    rs_contact_list reached; /* bodies_checks.c: the contacts of a state's check */
    void *arena;         /* bodies_step_arena: the tangents' complex workspace */
    size_t arena_cap;    /* its bytes */
} bodies_step;

/* s's arena of at least bytes (aligned for any type), for one evaluation at a time: the
 * complex step's workspace (bodies_tangent.c), of a size only a gradient needs (n^2 complex
 * numbers for an LCP of n rows), so grown when a step needs more than any before it, not with
 * the contacts. NULL when out of memory. */
void *bodies_step_arena(bodies_step *s, size_t bytes);

/* The doubles of s->work for a step of nc contacts (find_step). */
static inline size_t bodies_work_size(int nb, int nc)
{
    return 8 * (size_t)nb + 2 * (size_t)nc + 1;
}

/* A step context for the scene, its contacts not yet found (the run's cache), and its release
 * (NULL is accepted). NULL when out of memory. */
bodies_step *bodies_step_new(const rs_scene *scene);
void bodies_step_free(bodies_step *s);

/* The step's contacts (the cache's, or a temporary one the caller frees with
 * bodies_step_release when *tmp is set). NULL when out of memory. */
bodies_step *bodies_step_get(const rs_step_data *d, bodies_step **tmp);
void bodies_step_release(bodies_step *tmp);

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
static inline double bodies_relative_velocity(const rs_contact *c, const double *e,
                                              const double *v)
{
    const double *va = v + 3 * c->a;
    double s = e[0] * va[0] + e[1] * va[1] + va[2] * bodies_cross(c->ra, e);
    if (c->b >= 0) {
        const double *vb = v + 3 * c->b;
        s -= e[0] * vb[0] + e[1] * vb[1] + vb[2] * bodies_cross(c->rb, e);
    }
    return s;
}

/* The model's variants: the step LCP is Stewart-Trinkle's either way; the variant chooses the
 * NLP: the relaxation of the LCP's complementarity pairs in velocity variables
 * (bodies_nlp_pairs.c) or the post's form (bodies_nlp_post.c). */
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

/* The step's velocities after contact impulses: v' = vfree + dt W (J^T lambda), from the
 * reactions of every block (bodies_rows.h; a contact's normal p_i and friction f_i along t_i,
 * 2 per contact: the contacts' come first); and the bodies' total contact forces (fx, fz, tau
 * per body) into forces (may be NULL). */
void bodies_velocities(const bodies_step *s, double dt, const double *reactions, double *v,
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

/* The step LCP (bodies_lcp.c), as rs_model's lcp_size, lcp_build, lcp_units, lcp_recover and
 * lcp_contact_free, and the step's contacts as its contact_count and contact_geometry. */
int bodies_lcp_size(const rs_step_data *d, unsigned long long *structure);
void bodies_lcp_build(const rs_step_data *d, double *M, double *q);
void bodies_lcp_units(const rs_step_data *d, double *z_unit, double *w_unit);
void bodies_lcp_recover(const rs_step_data *d, const double *z, const double *w, double *sn,
                        double *forces, double *contact);
void bodies_lcp_contact_free(const rs_step_data *d, double *z);
int bodies_contact_count(const rs_step_data *d);
void bodies_contact_geometry(const rs_step_data *d, rs_contact_geometry *out);

/* Units, the physical certificate and the modes (bodies_certificate.c), as rs_model's
 * step_scales, column_units, residuals and modes. */
void bodies_step_scales(const rs_step_data *d, rs_step_scales *sc);
void bodies_column_units(const rs_step_data *d, const rs_step_scales *sc, double *unit);
void bodies_residuals(const rs_step_data *d, const double *sn, const double *f,
                      const double *contact, double *primal, double *complementarity);
void bodies_modes(const rs_step_data *d, const double *sn, const double *f,
                  const rs_mode_tols *tols, rs_contact_mode *out);

/* A state's checks (bodies_checks.c), as rs_model's check_step (a run's start) and
 * check_reached (a state a run reached). */
rs_error bodies_check_step(const rs_step_data *d, rs_error_detail *detail);
rs_error bodies_check_reached(const rs_step_data *d, rs_error_detail *detail);

#endif
