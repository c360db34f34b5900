/*
 * model.h (internal): what a model (problems/<model>.c, or src/models/bodies_model.c over the
 * engine in src/dynamics/) provides. A model knows physics only: its
 * parameters (defaults and ranges), state, inputs, how to pose one time step as an LCP and as a
 * relaxed-complementarity NLP, how to recover the next state and the contact forces from either
 * solution, the physical residuals of a step, and the contact mode of each contact. It never calls
 * a solver and never prints; its callbacks allocate nothing, except into the run's cache
 * (cache_create), which a model grows only for a step larger than any before it (the bodies
 * engine: its step context, dynamics/bodies.h; tests/unit/test_bodies_scratch.c). Called
 * without its cache (rs_step_data.cache NULL), such a model makes a temporary one per call.
 *
 * Columns (state, input, force names) carry their units: "x_m", "xd_mps", "fz_N"; the scenario
 * key of a column is its name without the unit suffix ("x", "xd", "fz").
 */
#ifndef RS_SIM_MODEL_H
#define RS_SIM_MODEL_H

#include "relaxsim/nlp.h"
#include "geom/scene.h"
#include "nlp/nlp_problem.h"

/* A model's sizes are its own: nothing in relaxsim is sized by a fixed capacity; every array of a
 * run is allocated for its model (and, for a model whose step sizes follow its contacts, grown
 * with the largest step met). */

/* Contact modes, named from the physical outputs of a step (the same rule for both solvers). */
typedef enum rs_contact_mode {
    RS_MODE_SEPARATING = 0, /* no contact force */
    RS_MODE_CONTACT = 1,    /* normal force, no friction direction (frictionless contact) */
    RS_MODE_STICKING = 2,   /* normal force, zero tangential velocity */
    RS_MODE_SLIDING_POS = 3,/* sliding in +x */
    RS_MODE_SLIDING_NEG = 4,/* sliding in -x */
    RS_MODE_SLIDING = 5     /* sliding in the plane (point3d_friction: any direction) */
} rs_contact_mode;

const char *rs_contact_mode_name(rs_contact_mode mode); /* "separating", "sliding+", ... */

typedef struct rs_param_def {
    const char *name;  /* scenario key */
    double value;      /* default */
    double lo, hi;     /* valid range, inclusive */
    const char *doc;   /* meaning and unit */
    double multiple_of; /* 0: any value in range; else a whole multiple of it (1: a whole
                           number, 2: an even one) */
} rs_param_def;

/* Everything one step depends on. */
typedef struct rs_step_data {
    const double *params;          /* model parameters, in the order of rs_model.params */
    const double *state;           /* x_k */
    const double *input;           /* u_k */
    double dt;                     /* time step, s */
    int variant;                   /* index into rs_model.variants */
    const rs_nlp_settings *nlp;    /* smoothing eps and the slack penalty */
    const rs_scene *scene;         /* the obstacles (models with needs_scene), else NULL */
    int lcp_answer;                /* set by the stepper for the certificate: 1 when the answer
                                      comes from the step's LCP (Lemke, or its relaxation), 0
                                      from the model's own NLP; a model whose LCP approximates
                                      its physics (a polygonal friction cone) judges each by the
                                      physics it solves */
    void *cache;                   /* the model's scratch for this run (rs_model.cache_create),
                                      or NULL: a model that has one works without it, slower */
} rs_step_data;

/*
 * The natural units of one step, in which its NLP is posed and its tolerances are stated:
 * speed V (m/s), the largest speed of the step (state, contact-free prediction) or the speed
 * gravity adds in one step, whichever is larger; length L = V dt (m); force F = m V / dt (N), the
 * force that changes the velocity by V within the step. A 1 g body and a 1 t one in the same
 * motion see the same dimensionless problem.
 */
typedef struct rs_step_scales {
    double speed;   /* V, m/s, > 0 */
    double length;  /* L = V dt, m */
    double force;   /* F = m V / dt, N */
} rs_step_scales;

/* The largest step LCP the dense solvers take (rows): the stepper keeps M and the relaxation's
 * scaled copy, n x n doubles each, and Lemke's basis inverse, another n x n: 3 n^2 doubles, 1.6 GB
 * at this size. A step whose LCP is larger is refused (status too_large) before anything is
 * allocated for it, and a scenario whose first step is larger is refused when it is loaded. */
#define RS_DENSE_LCP_MAX_N 8192

/* Every value a scenario gives (an initial state, an input) lies within +-RS_VALUE_MAX: beyond
 * it the step's scales leave double precision's reach. A step whose next state leaves it has
 * left the domain of every scene and is a failed step (its certificate fails), never a solved
 * one: a run that flies off to 1e20 m is reported, not passed. */
#define RS_VALUE_MAX 1e12

/* Below this speed (m/s) nothing moves: V is never smaller (a body at rest without gravity). */
#define RS_STEP_SPEED_FLOOR 1e-12

/* Fill sc from the step's candidate speeds (m/s, absolute values), a floor (g dt, say), the time
 * step and the mass. */
static inline void rs_step_scales_set(rs_step_scales *sc, const double *speeds, int nspeeds,
                                      double floor, double dt, double mass)
{
    double v = floor > RS_STEP_SPEED_FLOOR ? floor : RS_STEP_SPEED_FLOOR;
    for (int i = 0; i < nspeeds; i++)
        v = speeds[i] > v ? speeds[i] : v; /* a NaN speed is skipped: the step check catches it */
    sc->speed = v;
    sc->length = v * dt;
    sc->force = mass * v / dt;
}

/* The unit of a position error at position x: the step's length L, or the rounding of x itself
 * when that is larger (a body far from the origin). */
static inline double rs_length_unit(const rs_step_scales *sc, double x)
{
    const double rounding = 8.0 * 2.220446049250313e-16 * (x < 0 ? -x : x);
    return sc->length > rounding ? sc->length : rounding;
}

/* How far a position update y = x + step (step = dt v) is off beyond its own rounding, in unit
 * (L for a position, L / R for an angle). The update and the residual y - x - step are computed
 * in floating point: y carries up to half an ulp of |y| and the product dt v half an ulp of
 * itself, and the residual's two subtractions round as much again, so that a correct update
 * leaves |y - x - step| <= 2^-53 (2 |y| + |x| + 2 |step|) < DBL_EPSILON (|x| + |y| + |step|)
 * whatever dt is. That much is not an error: it is the precision of a position of size |x|, and
 * at a small step it can exceed the tolerance times L, which does not depend on |x| (a box at
 * z = 0.9 m has an ulp of 1.1e-16 m; at dt = 1e-6 s, L = g dt^2 = 9.8e-12 m, so its rounding
 * is 5.7e-6 L, above cert_tol 1e-6). Only the excess counts. */
static inline double rs_update_excess(double y, double x, double step, double unit)
{
    const double r = y - x - step, a = r < 0 ? -r : r;
    const double rounding = 2.220446049250313e-16 * ((x < 0 ? -x : x) + (y < 0 ? -y : y) +
                                                     (step < 0 ? -step : step));
    return a > rounding ? (a - rounding) / unit : 0.0;
}

/* The domain of a state a run reached, for a body whose contact is at position level: its
 * height above the surface (name, e.g. "z") down to one step's length below it, far more than a
 * step's rounding or the NLP's tolerance leaves (the next step's gap term lifts it); deeper is no
 * state a run reaches. RS_ERR_BAD_ARG with why in detail (may be NULL), else RS_OK. */
rs_error rs_check_reached_height(double height, const char *name, const char *surface,
                                 const rs_step_scales *sc, rs_error_detail *detail);

/* Generic NLP starting points a model can produce (none solves the contact problem). */
typedef enum rs_nlp_start {
    RS_NLP_START_CURRENT = 0,      /* the next state = the current one, no contact forces */
    RS_NLP_START_CONTACT_FREE = 1  /* the integrator with zero contact forces */
} rs_nlp_start;

/* Thresholds of the mode classification. A scenario states them relative to the step's natural
 * units (rs_step_scales); the stepper hands the model absolute ones (N, m/s) for each step. */
typedef struct rs_mode_tols {
    double force;  /* a normal force above this is contact */
    double speed;  /* a tangential speed above this is sliding */
} rs_mode_tols;

/* A direction in the data of one step, for forward-mode derivatives: the tangents of the
 * parameters, the state, the input and the time step (the models' units); the arrays have the
 * model's sizes and belong to whoever builds the tangent. */
typedef struct rs_step_tangent {
    double *params;
    double *state;
    double *input;
    double dt;
} rs_step_tangent;

/* A contact of a step: which bodies touch where (rs_model.contact_geometry). */
typedef struct rs_contact_geometry {
    int a, b;         /* the bodies, in the scene's order; b = -1: a static obstacle */
    double point[2];  /* the contact point on a's surface, (x, z), m */
    double normal[2]; /* unit, from b into a */
    double gap;       /* at the step's start, m (a linearised gap's value) */
} rs_contact_geometry;

typedef struct rs_model rs_model;

struct rs_model {
    const char *name;
    const char *summary;
    const char *source;                  /* the note and section it comes from */
    int nparams;
    const rs_param_def *params;
    int nstate;
    const char *const *state_names;
    const double *state_default;
    const int *velocity_index;           /* state components that are velocities */
    int nvelocity;
    int ninput;
    const char *const *input_names;
    int nforce;
    const char *const *force_names;
    int ncontacts;
    int nvariants;                       /* >= 1; variant 0 is the default */
    const char *const *variants;
    const char *variant_key;             /* the scenario key that names the variant; NULL:
                                            "variant" */
    int needs_scene;                     /* 1: [model] scene = FILE is required (rs_step_data
                                            .scene) */

    /* Optional: a model whose parameters, state, inputs and forces are those of its scene (the
     * bodies model): the registry holds a template, and the scenario builds the model of its
     * scene with instantiate (RS_OK and *out; or an error, *out NULL and what to change in
     * detail, may be NULL, when the scene cannot be simulated), which it owns and frees with the
     * instance's release. */
    rs_error (*instantiate)(const rs_model *self, const rs_scene *scene, rs_model **out,
                            rs_error_detail *detail);
    void (*release)(rs_model *instance);

    /* Optional: the model's scratch for one run (a stepper's, a gradient's), set as
     * rs_step_data.cache; cache_free frees it. */
    void *(*cache_create)(const rs_model *m, const rs_scene *scene);
    void (*cache_free)(void *cache);

    /* Optional: the natural unit of every column (state, then forces) in this step, for the
     * comparison's tolerances (compare.c): by default a velocity component in V, a force in F and
     * any other state component in L. A model with angles states them (an angle in L / R, an
     * angular velocity in V / R, a torque in F R, for a body of size R). */
    void (*column_units)(const rs_step_data *d, const rs_step_scales *sc, double *unit);

    /* Optional: the contacts of the step, each with its normal and tangential force (N), which
     * the recover callbacks write (2 per contact, in this count's order) and the certificate
     * reads: contact_count(d) of them in the step from d. NULL: none (the forces are enough). */
    int (*contact_count)(const rs_step_data *d);
    /* Optional, with contact_count: every contact's geometry at the step's start, into
     * out[contact_count(d)] in that order, for the per-contact outputs (contacts_nlp.csv,
     * rs_sim_contacts). */
    void (*contact_geometry)(const rs_step_data *d, rs_contact_geometry *out);

    /* 1: the step sizes follow the contacts with no largest one (lcp_n, nlp_n and nlp_m are
     * then only the first capacities; the stepper grows with the largest step). 0: lcp_n and
     * nlp_n/nlp_m are the largest sizes. */
    int sizes_grow;

    /* Scale of the contact forces of this model (N), for relative tolerances (m g, say). */
    double (*force_scale)(const double *params);

    /* The step's natural units: its NLP (if it has its own), its residuals and every tolerance
     * of the comparison are stated in them. */
    void (*step_scales)(const rs_step_data *d, rs_step_scales *sc);

    /* Check a state and input against the model's domain: RS_OK, or RS_ERR_BAD_ARG and what to
     * change in detail (may be NULL); RS_ERR_NOMEM when it could not check. */
    rs_error (*check_step)(const rs_step_data *d, rs_error_detail *detail);
    /* The same for a state a run reached (a replayed capsule's), which may be allowed what a
     * start is not (bodies overlapping by the penetration one step leaves); NULL: check_step. */
    rs_error (*check_reached)(const rs_step_data *d, rs_error_detail *detail);
    /* 1 if those checks look at the input (a forward-only push): the library's rs_sim_step then
     * checks a caller's input with them; 0: they look at the state alone, which the run reached
     * or rs_sim_set_state checked, and a step's input needs only its range. */
    int check_reads_input;

    /* LCP form: size, then (M, q) of the step (M column-major, every entry written). With
     * lcp_size, lcp_n is the largest size and the step's size is lcp_size(d) in [0, lcp_n] (the
     * active contacts; 0: none, the step is the contact-free one); -1 refuses the step (more
     * active contacts than lcp_n), with a message from check_step. lcp_size also writes a key of
     * the step's structure (which contacts, in which order): a previous step's primal-dual point
     * or Lemke basis is reused only under the same key. Such models relax their LCP for the
     * NLP (nlp_n == 0). */
    int lcp_n;
    int (*lcp_size)(const rs_step_data *d, unsigned long long *structure);
    void (*lcp_build)(const rs_step_data *d, double *M, double *q);
    /* The natural unit of each component of z and of w = M z + q (rs_step_scales: V for a
     * velocity, F for a force, ...), for the relaxation of the LCP when the model has no NLP of
     * its own: it is posed in z / z_unit and w / w_unit. Required when nlp_n == 0. */
    void (*lcp_units)(const rs_step_data *d, double *z_unit, double *w_unit);
    /* Optional (models with a fixed LCP size): what each component of z and of w is, a name
     * ending in its unit (as state_names), for the columns of `relaxsim dataset`. */
    const char *const *lcp_z_names;
    const char *const *lcp_w_names;
    void (*lcp_recover)(const rs_step_data *d, const double *z, const double *w,
                        double *state_next, double *forces, double *contact);
    /* Optional: z at zero contact forces, for models whose LCP has auxiliary unknowns besides
     * the forces (Egan's max terms): the auxiliaries evaluated at the contact-free motion. The
     * NLP's contact-free start (never a solution of the contact problem). NULL: z = 0. */
    void (*lcp_contact_free)(const rs_step_data *d, double *z);

    /* Optional, both or neither (gradients, src/sim/gradient.c): exact directional derivatives
     * along the step-data tangent t. lcp_tangent writes every entry of dM = (dM/dtheta) t and
     * dq = (dq/dtheta) t; lcp_recover_tangent differentiates lcp_recover: given a solution (z, w)
     * and its tangent (dz, dw), the tangents of the next state and of the forces. A model with
     * per-step sizes differentiates with the step's contact set held fixed. A model without them
     * has no gradients. */
    void (*lcp_tangent)(const rs_step_data *d, const rs_step_tangent *t, double *dM, double *dq);
    void (*lcp_recover_tangent)(const rs_step_data *d, const rs_step_tangent *t, const double *z,
                                const double *w, const double *dz, const double *dw,
                                double *dstate_next, double *dforces);

    /* Optional: for a model whose own NLP solves physics that its LCP only approximates
     * (point3d_friction: the circular friction cone against a k-gon): this step's difference of
     * each column (state, then forces) between the exact physics' answer and the LCP's answer
     * (state_next, forces, modes), from the same state; returns 1 if the two answers' mode pair
     * (the NLP's nlp_modes against the LCP's) is one the approximation explains, 0 otherwise.
     * The comparison's verdict "approximation_bias" (compare.h): the NLP matches the exact
     * physics within the agreement tolerance where it differs from the LCP. */
    int (*shadow_bias)(const rs_step_data *d, const double *state_next, const double *forces,
                       const rs_contact_mode *lcp_modes, const rs_contact_mode *nlp_modes,
                       double *bias);

    /* NLP form; nlp_n == 0 means: the relaxation of the LCP form (src/nlp/lcp_relaxation.c). A
     * model with its own NLP and lcp_units can also be solved by the relaxation ([nlp] form =
     * relaxation). With per-step sizes (lcp_size), nlp_n and nlp_m are the largest and nlp_size
     * gives the step's (n = m = -1: more contacts than the NLP takes, the step is refused). */
    int nlp_n, nlp_m;
    void (*nlp_size)(const rs_step_data *d, int *n, int *m);
    /* Optional, with nlp_size, for an NLP given as triplets (rs_nlp_problem.structure): the
     * step's nonzero counts, and a key of its bounds (which variables and constraints are
     * bounded how): a solver is reused for a step with the same sizes, counts and key. */
    void (*nlp_layout)(const rs_step_data *d, int *nnz_jac, int *nnz_hess,
                       unsigned long long *bounds_key);
    /* callbacks and p->natural_units for the variant; p->ctx is set to the rs_step_data */
    void (*nlp_describe)(rs_nlp_problem *p, int variant);
    void (*nlp_start)(const rs_step_data *d, rs_nlp_start which, double *x0);
    void (*nlp_recover)(const rs_step_data *d, const double *x, double *state_next,
                        double *forces, double *contact);

    /* Physical certificate of a step from (x_k, u_k) to (x_k+1, forces), whichever solver
     * produced it: the largest violation of the model's equations, inequalities and cone
     * (dimensionless, relative to the model's scales) and the largest complementarity product. */
    void (*residuals)(const rs_step_data *d, const double *state_next, const double *forces,
                      const double *contact, double *primal, double *complementarity);

    /* Contact mode of each contact after a step. */
    void (*modes)(const rs_step_data *d, const double *state_next, const double *forces,
                  const rs_mode_tols *tols, rs_contact_mode *modes);
};

/* RS_OK if the model's sizes are consistent and every callback it needs is there; else
 * RS_ERR_BAD_ARG and what is wrong in detail (may be NULL). The stepper refuses a model that
 * fails it. */
rs_error rs_model_check(const rs_model *m, rs_error_detail *detail);

/* 1 if the model poses its own NLP (else its NLP is the relaxation of its LCP). */
static inline int rs_model_own_nlp(const rs_model *m)
{
    return m->nlp_describe != NULL;
}

/* Index of a column name without its unit suffix ("xd" for "xd_mps"); -1 if absent. */
int rs_column_index(const char *const *names, int count, const char *key);

/* The state indices of body's velocity, "BODY.xd_mps" and "BODY.zd_mps", into *xd and *zd (each
 * may be NULL): 0, or -1 if the model's state has not both. */
int rs_speed_columns(const rs_model *m, const char *body, int *xd, int *zd);

#endif
