/*
 * point_friction_nlp.h: what the own NLPs of point2d_friction and point3d_friction share. Both
 * minimise P(s1) + P(s2) over their two complementarity slacks, bound the normal force, both
 * slacks and the sliding speed lambda below by 0 and leave every other variable free, and put
 * their equality constraints first, then the inequalities g >= 0. Each model states where its
 * variables sit (point_nlp_layout) and keeps its own constraints.
 */
#ifndef RS_PROBLEMS_POINT_FRICTION_NLP_H
#define RS_PROBLEMS_POINT_FRICTION_NLP_H

#include "nlp/smooth.h"
#include "sim/model.h"

typedef struct point_nlp_layout {
    int nv, ng;        /* variables, constraints */
    int last_equality; /* constraints 0 .. last_equality are equalities */
    int fz, s1, s2, lam;
} point_nlp_layout;

static inline void point_nlp_bounds(const point_nlp_layout *l, double *x_l, double *x_u,
                                    double *g_l, double *g_u)
{
    for (int j = 0; j < l->nv; j++) {
        x_l[j] = -RS_NLP_INF;
        x_u[j] = RS_NLP_INF;
    }
    x_l[l->fz] = x_l[l->s1] = x_l[l->s2] = x_l[l->lam] = 0.0;
    for (int i = 0; i < l->ng; i++) {
        g_l[i] = 0.0;
        g_u[i] = i <= l->last_equality ? 0.0 : RS_NLP_INF;
    }
}

/* P(s1) + P(s2), the slack penalty of the step's settings. */
static inline double point_nlp_f(const point_nlp_layout *l, const rs_step_data *d, const double *x)
{
    return rs_penalty(d->nlp, x[l->s1]) + rs_penalty(d->nlp, x[l->s2]);
}

static inline void point_nlp_grad_f(const point_nlp_layout *l, const rs_step_data *d,
                                    const double *x, double *grad)
{
    for (int j = 0; j < l->nv; j++)
        grad[j] = 0.0;
    grad[l->s1] = rs_penalty_d1(d->nlp, x[l->s1]);
    grad[l->s2] = rs_penalty_d1(d->nlp, x[l->s2]);
}

#endif
