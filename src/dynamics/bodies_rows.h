/*
 * bodies_rows.h (internal): constraint rows, the blocks every step of the bodies engine is
 * assembled from. A block is one constraint (a contact today; a joint, a limit, a motor later):
 * a few LCP unknowns z_k with their rows w_k, and the forces it puts on at most two bodies. What
 * differs between kinds of block is in a small table of operations (bodies_row_ops), one file per
 * kind (bodies_row_contact.c); the step LCP (bodies_lcp.c), the pairs NLP (bodies_nlp_pairs.c),
 * the bodies' velocities after the step, the certificate (bodies_certificate.c) and the step's
 * derivatives (bodies_tangent.c) are assembled from the blocks through it and never ask which
 * kind a block is.
 *
 * A block's LCP rows, with v' = v_free + dt W J^T lambda (bodies.h, (D1)):
 *     w_k = J_k v' + b_k + sum_c A_kc z_c          (k = 0 .. count - 1)
 * J_k the Jacobian row of unknown k (a generalised direction over two bodies; none for an
 * auxiliary unknown such as a contact's sliding speed), b_k its bias (a contact's gap / dt), A
 * the block's own couplings (a contact's sliding speed in its friction rows, its cone row). The
 * force of unknown k acts along the same J_k, so that the LCP's matrix is
 *     M = dt J W J^T + A,    q = J v_free + b,
 * J W J^T over every pair of unknowns with a Jacobian row, A within each block. The block's
 * physical forces, its reactions (a contact's normal and friction force, N), are linear in its
 * unknowns, r_j = sum_k R_jk z_k, each along a Jacobian row of its own: the bodies' generalised
 * contact forces are sum_j J_j^T r_j over every block.
 *
 * The contacts are the step's first blocks, in the contact list's order (block i is contact i):
 * what is a contact's alone (its geometry, the post's NLP) reads it from there.
 */
#ifndef RS_DYNAMICS_BODIES_ROWS_H
#define RS_DYNAMICS_BODIES_ROWS_H

#include "dynamics/bodies.h"

/* The most unknowns (and reactions) a block has, and its most couplings A_kc or reaction terms
 * R_jk. */
#define BODIES_BLOCK_MAX 4
#define BODIES_BLOCK_TERMS 8

/* A Jacobian row: the velocity of a direction e, relative between two bodies, at their points
 * r_a and r_b: body[0] with coefficients (e_x, e_z, cross(r_a, e)), body[1] (-1: the world,
 * nothing) with -(e_x, e_z, cross(r_b, e)); J v = c[0] . v_body[0] + c[1] . v_body[1]. */
typedef struct bodies_jrow {
    int body[2];
    double c[2][3];
} bodies_jrow;

/* One coefficient of a block: A_kc (row k, column c) or R_jk (reaction j, unknown k). */
typedef struct bodies_term {
    int row, col;
    double value;
} bodies_term;

struct cdata;
struct crows;

/* What a kind of block does, for its item i (its index among the step's blocks of that kind). */
typedef struct bodies_row_ops {
    const char *kind; /* "contact" */
    /* its LCP unknowns (= its rows), at most BODIES_BLOCK_MAX */
    int (*count)(const bodies_step *s, int i);
    /* unknown k's Jacobian row into j; 0 for an unknown without one (an auxiliary) */
    int (*jacobian)(const bodies_step *s, int i, int k, bodies_jrow *j);
    /* row k's bias divided by a speed unit (1 for the LCP's, in m/s; a row's own in the NLP) */
    double (*bias)(const bodies_step *s, int i, int k, double dt, double unit);
    /* its couplings A_kc into a (at most BODIES_BLOCK_TERMS); their number */
    int (*couplings)(const bodies_step *s, int i, bodies_term *a);
    /* each unknown's natural unit and its row's (the step's units: bodies.h) */
    void (*units)(const bodies_step *s, int i, double *z_unit, double *w_unit);
    /* its reactions: their number (a constant of the kind), each one's Jacobian row, the terms
     * R_jk (at most BODIES_BLOCK_TERMS; their number) and its natural unit */
    int nreactions;
    void (*reaction_row)(const bodies_step *s, int i, int j, bodies_jrow *row);
    int (*reaction_terms)(const bodies_step *s, int i, bodies_term *r);
    double (*reaction_unit)(const bodies_step *s, int i);
    /* adds its reactions r (N) to the bodies' generalised forces F (fx, fz, tau per body) */
    void (*apply)(const bodies_step *s, int i, const double *r, double *F);
    /* its auxiliary unknowns at zero force, given its rows' velocity parts jv[k] = J_k v (z
     * zeroed by the caller): a contact's sliding speed |J_t v| */
    void (*start)(const bodies_step *s, int i, const double *jv, double *z);
    /* its certificate at the velocities v after the step and its reactions r: the largest
     * primal and complementarity residuals in its natural units folded into *primal and
     * *complementarity (bodies.h) */
    void (*residual)(const bodies_step *s, int i, double dt, const double *v, const double *r,
                     double *primal, double *complementarity);
    /* for the bodies' modes: 1 when it closes at the velocities v (a contact at zero gap after
     * the step), with its two bodies (body[1] -1: the world), its slip (the velocity of body[0]
     * against body[1] along its tangent) and whether it has friction */
    int (*closed)(const bodies_step *s, int i, double dt, const double *v, int *body,
                  double *slip, int *friction);
    /* for the complex step's tangents: its Jacobian rows, biases, couplings and reaction rows
     * at the step's data in complex arithmetic (bodies_complex.h) */
    void (*complex_rows)(const struct cdata *c, int i, struct crows *out);
} bodies_row_ops;

/* A block of the step: its kind and item, where its unknowns start in the LCP (first, count),
 * its reactions in the reactions array (react_at, ops->nreactions of them), and its first
 * variable in the pairs NLP (pair_at: its unknowns, then their slacks). */
typedef struct bodies_block {
    const bodies_row_ops *ops;
    int item;
    int first, count;
    int react_at;
    int pair_at;
} bodies_block;

extern const bodies_row_ops bodies_contact_rows;

/* J v for the generalised velocities v (3 per body), the world's part 0: each body's part summed
 * in the order of its coefficients, body[0]'s first. */
static inline double bodies_jrow_dot(const bodies_jrow *j, const double *v)
{
    const double *va = v + 3 * j->body[0];
    double s = j->c[0][0] * va[0] + j->c[0][1] * va[1] + j->c[0][2] * va[2];
    if (j->body[1] >= 0) {
        const double *vb = v + 3 * j->body[1];
        s += j->c[1][0] * vb[0] + j->c[1][1] * vb[1] + j->c[1][2] * vb[2];
    }
    return s;
}

/* The Jacobian row of direction e at points ra of body a and rb of body b (b < 0: the world). */
static inline void bodies_jrow_set(bodies_jrow *j, int a, int b, const double *ra,
                                   const double *rb, const double *e)
{
    j->body[0] = a;
    j->body[1] = b;
    j->c[0][0] = e[0];
    j->c[0][1] = e[1];
    j->c[0][2] = bodies_cross(ra, e);
    j->c[1][0] = -e[0];
    j->c[1][1] = -e[1];
    j->c[1][2] = b >= 0 ? -bodies_cross(rb, e) : 0.0;
}

/* Block bk's reactions r (ops->nreactions) from its unknowns z (its own, from z[0]; in any
 * unit: the reactions come in the unknowns'): r_j = sum_k R_jk z_k, each sum from its first
 * term (a reaction without one is 0). */
static inline void bodies_block_reactions(const bodies_step *s, const bodies_block *bk,
                                          const double *z, double *r)
{
    bodies_term t[BODIES_BLOCK_TERMS];
    const int nt = bk->ops->reaction_terms(s, bk->item, t);
    unsigned seen = 0;
    for (int j = 0; j < bk->ops->nreactions; j++)
        r[j] = 0.0;
    for (int k = 0; k < nt; k++) {
        const double v = t[k].value * z[t[k].col];
        if (seen & (1u << t[k].row)) {
            r[t[k].row] += v;
        } else {
            r[t[k].row] = v;
            seen |= 1u << t[k].row;
        }
    }
}

#endif
