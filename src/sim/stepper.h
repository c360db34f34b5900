/*
 * stepper.h (internal): one time step of a model, solved by either backend from a given state.
 *
 * NLP backend: the model's NLP (or the relaxation of its LCP) through one IPOPT solver reused for
 * the whole run. Every answer is IPOPT's own, or a generic start point that passes the step NLP's
 * KKT test; no path uses a solution of the contact problem. The paths, in the order tried:
 *   start_previous      (nlp.check_start) the previous step's primal-dual solution passes the KKT
 *                       test of the new step (a body at rest);
 *   start_contact_free  (nlp.check_start) the contact-free prediction (the integrator with zero
 *                       contact forces) passes it (a free flight);
 *   ipopt_warm          IPOPT from the previous primal-dual solution (nlp.warm_start), mu_init
 *                       nlp.mu_init, tiny bound pushes; without nlp.check_start, from the
 *                       contact-free prediction instead when that passes the KKT test (a free
 *                       flight; IPOPT then usually certifies it at its first test);
 *   ipopt_cold          IPOPT from the contact-free prediction with IPOPT's cold-start settings
 *                       (mu_init 0.1, its own multipliers);
 *   ipopt_homotopy      a homotopy on the barrier parameter from the model's current-state point:
 *                       the barrier problem at mu = 1e-2, then 1e-6, then the NLP, each stage
 *                       warm-started from the last.
 * The IPOPT paths after the first failed one are fallbacks, at most nlp.retries of them. A step
 * counts as solved only if its solution passes, and the physical residuals recomputed from the
 * recovered state and forces are within nlp.cert_tol (else status "not_certified").
 * Lemke backend: the model's step LCP, solved on a workspace allocated once; with lemke_warm,
 * the basis of the previous Lemke step is tried first (a wrong guess falls back to the cold
 * lexicographic solve, see rs_lemke_solve_warm).
 */
#ifndef RS_SIM_STEPPER_H
#define RS_SIM_STEPPER_H

#include "relaxsim/lcp.h"
#include "relaxsim/nlp.h"
#include "sim/model.h"

/* How an NLP step was solved (stepper.h above). */
typedef enum rs_nlp_path {
    RS_PATH_START_PREVIOUS = 0,
    RS_PATH_START_CONTACT_FREE = 1,
    RS_PATH_IPOPT_WARM = 2,
    RS_PATH_IPOPT_COLD = 3,
    RS_PATH_IPOPT_HOMOTOPY = 4,
    RS_PATH_NO_CONTACT = 5, /* no active contact (a model with per-step sizes): nothing to solve,
                               the contact-free step */
    RS_PATH_START_POLISHED = 6 /* the previous answer polished for this step (tried after both
                                  start candidates, before IPOPT) */
} rs_nlp_path;
#define RS_PATH_COUNT 7
#define RS_PATH_NONE (-1)

/* "start_previous", "start_contact_free", "ipopt_warm", "ipopt_cold", "ipopt_homotopy",
 * "no_contact", "start_polished". */
const char *rs_nlp_path_name(int path);
/* 1 for the paths that call IPOPT. */
int rs_nlp_path_is_ipopt(int path);

/* The answer of one step. Its arrays have the model's sizes and live in storage the result owns:
 * rs_step_result_init allocates them, rs_step_result_free frees them; a result is copied with
 * rs_step_result_copy (never by assignment, which would share the arrays). */
typedef struct rs_step_result {
    double *state_next;      /* model->nstate */
    double *forces;          /* model->nforce */
    rs_contact_mode *modes;  /* model->ncontacts */
    double *contact;         /* the step's contacts (rs_model.contact_count): normal and
                                tangential force of each, N; ncontact of them */
    rs_contact_geometry *geometry; /* each contact's bodies, point, normal and gap, for models
                                      with rs_model.contact_geometry (else zeros) */
    int ncontact, contact_cap;
    void *storage;           /* state_next, forces, modes */
    rs_step_scales scales;   /* the step's natural units (rs_model.step_scales) */
    double primal;           /* physical residuals, see rs_model.residuals */
    double complementarity;
    int ok;                  /* solved and certified */
    int status;              /* rs_nlp_status or rs_lemke_status */
    int iterations;          /* IPOPT iterations (all attempts) or Lemke pivots */
    int attempts;            /* NLP: IPOPT solves (all paths, stacked ones included); Lemke: 1 */
    int path;                /* NLP: the rs_nlp_path that gave the answer (failed step: the last
                                one tried); RS_PATH_NONE for Lemke */
    int path_attempts[RS_PATH_COUNT];   /* NLP: tries per path (a KKT test counts as one) */
    int path_iterations[RS_PATH_COUNT]; /* NLP: IPOPT iterations per path */
    int warm_started;        /* Lemke: the previous step's basis was right (0 pivots) */
    int warm_from;           /* NLP, if ipopt_warm was tried: the start it was given last,
                                RS_PATH_START_PREVIOUS or RS_PATH_START_CONTACT_FREE */
    int at_start;            /* NLP: a start point passed the KKT test; IPOPT was not called */
    int polished;            /* NLP: the answer is a polished point (nlp.polish, kkt_check.h's
                                rs_kkt_polish): IPOPT's, or the previous answer's for this step
                                (path start_polished) */
    int stacked;             /* NLP: went through a stacked NLP with other runs (stack.h) */
    double stack_iterations; /* NLP: this run's share of the stacked solves' iterations (1/K of
                                each); `iterations` counts the run's own solves only */
    int split;               /* NLP: its block failed in the stacked NLP; re-solved alone */
    double time_s;           /* wall time of the solve */
    int lcp_size;            /* the step's LCP size, its number of unknowns (it follows the active
                                contacts in models with per-step sizes; lcp_n otherwise); -1 for
                                a refused step */
} rs_step_result;

/* The arrays of a result for model m (zeroed, scalars zeroed). RS_ERR_NOMEM. */
rs_error rs_step_result_init(rs_step_result *r, const rs_model *m);
void rs_step_result_free(rs_step_result *r);
/* Every value zero, the arrays kept (a result about to be filled again). */
void rs_step_result_clear(rs_step_result *r, const rs_model *m);
/* dst's values = src's (both initialised for m); RS_ERR_NOMEM when dst's contact array cannot
 * grow (its other values are copied). */
rs_error rs_step_result_copy(rs_step_result *dst, const rs_step_result *src, const rs_model *m);
/* Room for n contacts in r->contact (r->ncontact set to n); RS_ERR_NOMEM. */
rs_error rs_step_result_contacts(rs_step_result *r, int n);

/* Column c of a step result: the state components, then the forces. */
static inline double rs_step_column(const rs_model *m, const rs_step_result *s, int c)
{
    return c < m->nstate ? s->state_next[c] : s->forces[c - m->nstate];
}

/* The stepper's warm-start state between steps: the previous accepted NLP primal-dual point
 * (n, m: its size) and the previous Lemke basis (nbasis entries), with the keys of the contact
 * sets they belong to. What a replay needs to re-solve one step exactly (io/capsule.h). The
 * arrays are owned (rs_stepper_snapshot_free); rs_stepper_save and rs_stepper_snapshot_alloc
 * size them. */
typedef struct rs_stepper_snapshot {
    int have_prev, n, m;
    unsigned long long point_structure;
    double *x, *g, *x_l, *x_u;   /* n, m, n, n */
    int have_warm;               /* x was polished: x_warm holds IPOPT's own answer, the start
                                    of the next warm IPOPT solve */
    double *x_warm;              /* n */
    int have_basis, nbasis;
    unsigned long long basis_structure;
    unsigned char *basis;        /* nbasis */
} rs_stepper_snapshot;

/* Arrays for an n-variable, m-constraint point and an nbasis basis (zeroed; the old ones freed);
 * RS_ERR_NOMEM. A zeroed snapshot holds nothing and needs no free. */
rs_error rs_stepper_snapshot_alloc(rs_stepper_snapshot *s, int n, int m, int nbasis);
void rs_stepper_snapshot_free(rs_stepper_snapshot *s);
/* dst = src with its own arrays; RS_ERR_NOMEM. */
rs_error rs_stepper_snapshot_copy(rs_stepper_snapshot *dst, const rs_stepper_snapshot *src);

typedef struct rs_stepper_config {
    const rs_model *model;
    const double *params;
    int variant;
    double dt;
    rs_nlp_settings nlp;
    rs_lemke_settings lemke;
    int lemke_warm;          /* 1: try the previous step's basis first (rs_lemke_solve_warm) */
    rs_mode_tols mode_tols;  /* relative to the step's natural force and speed */
    const rs_scene *scene;   /* the obstacles of a model with needs_scene (not owned), else NULL */
    int solver_cache;        /* IPOPT problems kept for the step sizes met, at most (0: the
                                default RS_STEPPER_SOLVER_CACHE); the least recently used one
                                is freed to make room for a new size */
    int warm_max_iter;       /* the iteration limit of a warm IPOPT solve that a cold one
                                follows on the step's ladder (0: nlp.max_iter; time stepping:
                                RS_STEPPER_WARM_MAX_ITER) */
} rs_stepper_config;

/* A warm IPOPT solve not converged after this many iterations gives way to a cold one. A warm
 * start is the previous answer, at IPOPT's mu_init; when the step's contacts have moved on, it
 * misses the new rows by 0.1 to 1 in natural units, and IPOPT, its barrier parameter already at
 * 1e-11, crawls through restoration (the pile at eda906f: 134 of its 910 IPOPT steps took over
 * 100 ms, up to 226 iterations, 62% of its NLP time, where a cold start takes about 30). The
 * limit is a cold solve's typical count: a warm solve that converges within it keeps its
 * advantage (the pile: 17% fewer iterations; 15 and 30 measured alike, 50 only 8% fewer). */
#define RS_STEPPER_WARM_MAX_ITER 30

/* The IPOPT problems (with their KKT checks) a stepper keeps by default, one per NLP size met:
 * a scene whose contact counts keep changing meets a new size every few steps (54 in a
 * 1,000-step pile), and each problem holds IPOPT's and the KKT check's arrays. */
#define RS_STEPPER_SOLVER_CACHE 32


typedef struct rs_stepper rs_stepper;

/* The IPOPT problems a stepper holds now (at most its solver_cache). */
int rs_stepper_cached_solvers(const rs_stepper *stepper);

rs_error rs_stepper_create(const rs_stepper_config *config, rs_stepper **out);
void rs_stepper_destroy(rs_stepper *stepper);

/* Forget the warm start (e.g. before an independent trajectory). */
void rs_stepper_reset(rs_stepper *stepper);

/* Save the warm-start state (out's arrays resized: RS_ERR_NOMEM); restore it (RS_ERR_DIMENSION
 * if the snapshot's sizes are not this stepper's, RS_ERR_NOMEM if its arrays cannot grow to
 * them). */
rs_error rs_stepper_save(const rs_stepper *stepper, rs_stepper_snapshot *out);
rs_error rs_stepper_restore(rs_stepper *stepper, const rs_stepper_snapshot *snapshot);

/* The Lemke warm start alone (the basis, its contact set's key) into out, whose NLP point is
 * kept: a comparison's capsule holds its NLP trajectory's point and its shadow solves' basis,
 * each from its own stepper. out's basis array grows to the stepper's capacity (RS_ERR_NOMEM
 * if it cannot; out is then unchanged). */
rs_error rs_stepper_save_basis(const rs_stepper *stepper, rs_stepper_snapshot *out);

void rs_stepper_nlp(rs_stepper *stepper, const double *state, const double *input,
                    rs_step_result *out);

/*
 * The pieces of rs_stepper_nlp, for a caller that solves the NLPs of several runs as one
 * (stack.c, which stacks only fixed-size models). Call begin first (0: the model refuses the
 * step, more active contacts than its maximum); then the step is solved by try_start, by accept
 * (or check_point) of a point the caller found, or by solve_alone. None of them sets
 * out->time_s.
 */
int rs_stepper_nlp_begin(rs_stepper *stepper, const double *state, const double *input);
const rs_nlp_problem *rs_stepper_nlp_problem(const rs_stepper *stepper);
/* 1 if a start point passed the KKT check and the certificate (out filled, at_start = 1). */
int rs_stepper_nlp_try_start(rs_stepper *stepper, rs_step_result *out);
/* 1 if the next solve can be warm-started (nlp.warm_start, and a previous solution exists). */
int rs_stepper_nlp_can_warm_start(const rs_stepper *stepper);
/* The IPOPT paths this run tries in order, for the current step: ipopt_warm (if it can warm
 * start), ipopt_cold, ipopt_homotopy, at most 1 + nlp.retries of them; returns their number. */
int rs_stepper_nlp_ladder(const rs_stepper *stepper, int *paths);
/* The start of path ipopt_warm (returns 1: x and the multipliers of the previous solution; without
 * nlp.check_start, the contact-free prediction and its least-squares multipliers instead when
 * that passes the KKT test; *warm_from says which, RS_PATH_START_PREVIOUS or
 * RS_PATH_START_CONTACT_FREE) or of ipopt_cold (returns 0: the contact-free prediction in x,
 * multipliers and *warm_from untouched). warm_from may be NULL. */
int rs_stepper_nlp_start_point(rs_stepper *stepper, int path, double *x, double *mult_g,
                               double *mult_x_l, double *mult_x_u, int *warm_from);
/* Take x (with its multipliers) as the step's solution if status is a success and the
 * certificate passes; fills out's state, forces, residuals, modes, status and ok; returns ok. */
int rs_stepper_nlp_accept(rs_stepper *stepper, const double *x, const double *mult_g,
                          const double *mult_x_l, const double *mult_x_u, rs_nlp_status status,
                          rs_step_result *out);
/* The polish of IPOPT's answer x (nlp.polish): the point rs_kkt_polish finds on x's active set
 * (variables and rows within 1e-4 of a bound in natural units, else 1e-6) when it is a solution
 * of the step's NLP whose exact multipliers (in the stepper's arrays mult_g, mult_x_l, mult_x_u)
 * pass the KKT test at nlp.tol, out->polished = 1; NULL otherwise (and for an
 * NLP not posed in natural units), out->polished = 0. x is not changed. */
const double *rs_stepper_nlp_polish(rs_stepper *stepper, const double *x, rs_step_result *out);
/* For an answer x of IPOPT's (status its): its polish accepted with IPOPT's multipliers
 * (rs_stepper_nlp_accept); returns 1, and x is where the next warm IPOPT solve starts until
 * another point is accepted. 0 when x is not polished or its polish fails the step's
 * certificate (x, even if it is the stepper's iterate, is then as it was). */
int rs_stepper_nlp_accept_polished(rs_stepper *stepper, const double *x, const double *mult_g,
                                   const double *mult_x_l, const double *mult_x_u,
                                   rs_nlp_status status, rs_step_result *out);
/* rs_stepper_nlp_accept for an answer of IPOPT's: the polished point first, then, if that is
 * not accepted, IPOPT's own answer. */
int rs_stepper_nlp_accept_ipopt(rs_stepper *stepper, const double *x, const double *mult_g,
                                const double *mult_x_l, const double *mult_x_u,
                                rs_nlp_status status, rs_step_result *out);
/* accept x if it passes the KKT check (kkt_check.h), trying the given multipliers first (NULL:
 * none); returns ok. */
int rs_stepper_nlp_check_point(rs_stepper *stepper, const double *x, const double *mult_g,
                               const double *mult_x_l, const double *mult_x_u,
                               rs_step_result *out);
/* The step by this run's own IPOPT solver along its ladder (out reset first). */
void rs_stepper_nlp_solve_alone(rs_stepper *stepper, rs_step_result *out);
/* The step by Lemke: the previous basis first (when it may apply), then cold; when Lemke finds
 * no answer (a ray, a breakdown, the pivot limit) and some q_i are within rounding of their
 * row's natural unit (rs_model.lcp_units), once more with those q_i at 0 (stepper.c,
 * q_without_rounding). Every answer is held to the step's physics (cert_tol). */
void rs_stepper_lemke(rs_stepper *stepper, const double *state, const double *input,
                      rs_step_result *out);

/*
 * For derivatives (gradient.c): views of the last step, valid until the next step.
 * The step's LCP (M column-major, q) and its pair (z, w): Lemke's after rs_stepper_lemke, the
 * relaxation's (z from IPOPT's answer, clamped at 0; w = M z + q) after rs_stepper_nlp with the
 * relaxation. Returns the LCP's size.
 */
int rs_stepper_step_lcp(const rs_stepper *stepper, const double **M, const double **q,
                        const double **z, const double **w);

/* The last ACCEPTED NLP step's primal-dual point, when the step is posed as the relaxation of
 * the LCP: the NLP (p->ctx is relax), the point x = (zs, s) with IPOPT's multipliers, and the
 * units of the relaxation, z = z_unit zs and ws = w / w_unit (Ms = diag(1/w_unit) M diag(z_unit)),
 * frozen at the step's values. */
typedef struct rs_stepper_relaxed_step {
    const rs_nlp_problem *problem;
    const struct rs_lcp_relaxation *relax;
    const double *x, *mult_g, *mult_x_l, *mult_x_u;
    const double *z_unit;     /* n */
    const double *w_inv_unit; /* n: 1 / w_unit */
} rs_stepper_relaxed_step;

/* 1 and *out filled if the stepper poses its NLP as the LCP's relaxation and a step was accepted
 * since the last reset; 0 otherwise. */
int rs_stepper_relaxed_point(const rs_stepper *stepper, rs_stepper_relaxed_step *out);

#endif
