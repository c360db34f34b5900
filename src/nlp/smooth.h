/*
 * smooth.h (internal): the smoothing and relaxation terms shared by every NLP.
 *
 * Smoothed norm of a scalar: |a| ~ ssqrt(a^2) = sqrt(a^2 + eps^2) - eps. It is 0 at a = 0,
 * differentiable everywhere, below |a| by at most eps, and
 *     d/da   ssqrt(a^2) = a / sqrt(a^2 + eps^2)
 *     d2/da2 ssqrt(a^2) = eps^2 / (a^2 + eps^2)^(3/2).
 *
 * Slack penalty on s >= 0: L1 weight * s (gradient weight, no curvature) or
 * L2 weight * s^2 (gradient 2 weight s, curvature 2 weight).
 */
#ifndef RS_NLP_SMOOTH_H
#define RS_NLP_SMOOTH_H

#include <math.h>

#include "relaxsim/nlp.h"

static inline double rs_snorm(double a, double eps)
{
    return sqrt(a * a + eps * eps) - eps;
}

static inline double rs_snorm_d1(double a, double eps)
{
    return a / sqrt(a * a + eps * eps);
}

static inline double rs_snorm_d2(double a, double eps)
{
    const double r = a * a + eps * eps;
    return eps * eps / (r * sqrt(r));
}

static inline double rs_penalty(const rs_nlp_settings *s, double slack)
{
    return s->penalty == RS_NLP_PENALTY_L1 ? s->penalty_weight * slack
                                           : s->penalty_weight * slack * slack;
}

static inline double rs_penalty_d1(const rs_nlp_settings *s, double slack)
{
    return s->penalty == RS_NLP_PENALTY_L1 ? s->penalty_weight : 2.0 * s->penalty_weight * slack;
}

static inline double rs_penalty_d2(const rs_nlp_settings *s)
{
    return s->penalty == RS_NLP_PENALTY_L1 ? 0.0 : 2.0 * s->penalty_weight;
}

#endif
