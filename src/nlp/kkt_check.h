/*
 * kkt_check.h (internal): is a given point already a solution of an rs_nlp_problem?
 *
 * For a candidate x (the previous step's solution, or the contact-free prediction) it evaluates
 * IPOPT's own termination test of
 *
 *     min f(x)  s.t.  x_l <= x <= x_u,  g_l <= g(x) <= g_u,
 *
 * the optimality error max(dual / s_d, primal, complementarity / s_c) <= tol, with multipliers of
 * the right signs. The multipliers are the caller's (the previous step's, when the step has not
 * changed) or, if those fail or none are given, the least-squares multipliers of the active set:
 * a bound or constraint side is active when its slack is at most tol (equalities always are),
 * inactive ones get zero, and the active ones minimise |grad f + J^T mult_g - mult_x_l +
 * mult_x_u| (normal equations with a small ridge and refinement passes, so that the degenerate
 * pairs of a complementarity problem get the minimum-norm split); an inequality whose
 * multiplier comes out negative leaves the active set, most negative first, and the rest is
 * solved again. A problem given by its sparse entries with more than TRIPLET_LSQ_MAX (400)
 * variables gets no least squares (their columns are dense): its candidate is tried with the
 * multipliers of a point whose constraints carry none instead (mult_g = 0, each bound's the
 * objective's gradient pushing into it), a polished point's exact ones (kkt_polish.c) and a free
 * flight's.
 * A point that passes is a KKT point IPOPT would have accepted at its first test. A point that
 * fails proves nothing (the least-squares multipliers may simply not be the right ones); the
 * caller then solves as usual. The check allocates nothing after create and never calls IPOPT.
 */
#ifndef RS_KKT_CHECK_H
#define RS_KKT_CHECK_H

#include "relaxsim/error.h"
#include "nlp/nlp_problem.h"

typedef struct rs_kkt_check rs_kkt_check;

/* A checker for problem p (copied; p->ctx must outlive it; the bounds are read once). */
rs_error rs_kkt_check_create(const rs_nlp_problem *p, rs_kkt_check **out);
void rs_kkt_check_destroy(rs_kkt_check *check);

/* 1 if x is a KKT point to tol; then mult_g (m), mult_x_l and mult_x_u (n) hold its multipliers
 * in IPOPT's sign convention. given: 1 if the arrays hold multipliers to try first. 0 otherwise
 * (the arrays are then unspecified). */
int rs_kkt_check_point(rs_kkt_check *check, const double *x, double tol, int given,
                       double *mult_g, double *mult_x_l, double *mult_x_u);

/* The polish of a solution x (IPOPT's, interior) on its active set, into xp (n), kkt_polish.c:
 * every variable within delta of a bound is put on it, every equality and every constraint within
 * delta of a bound held at it, and the other variables solve those rows by minimum-norm
 * Gauss-Newton steps. 1 when xp is then a KKT point of the same problem with exact multipliers,
 * written (mult_g = 0, the bound multipliers the objective's gradient): every bound and
 * constraint holds to tol, f(xp) <= f(x), and the gradient of f lies on the variables put on
 * their bounds, pushing into them (in a relaxed-complementarity program: every penalised slack at
 * 0, the objective at its floor). 0 otherwise (xp and the multipliers unspecified), or when the
 * active set's dense system would exceed RS_POLISH_MAX_ENTRIES. Allocates its workspace at the
 * first call and when a larger active set needs more. */
#define RS_POLISH_MAX_ENTRIES 4e6
int rs_kkt_polish(rs_kkt_check *check, const double *x, double delta, double tol, double *xp,
                  double *mult_g, double *mult_x_l, double *mult_x_u);

#endif
