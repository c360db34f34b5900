/*
 * contact_physics.h (internal): residuals of Coulomb friction along one direction, shared by the
 * models. For a friction force f (N) acting with the next tangential velocity v (m/s) under the
 * limit f_max = mu f_n (N), with forces measured in units of f_scale:
 *   cone violation          max(0, |f| - f_max) / f_scale                      (primal)
 *   maximal dissipation     |v| (f_max - |f|) / f_scale   (sliding uses the full limit)
 *   opposition to motion    max(0, f v) / f_scale          (friction never pushes)
 * The two complementarity terms are in m/s.
 */
#ifndef RS_SIM_CONTACT_PHYSICS_H
#define RS_SIM_CONTACT_PHYSICS_H

#include <math.h>

#include "sim/model.h"

static inline void rs_coulomb_residuals(double v, double f, double f_max, double f_scale,
                                        double *primal, double *complementarity)
{
    *primal = fmax(*primal, fmax(0.0, fabs(f) - f_max) / f_scale);
    *complementarity = fmax(*complementarity, fabs(v) * fmax(0.0, f_max - fabs(f)) / f_scale);
    *complementarity = fmax(*complementarity, fmax(0.0, f * v) / f_scale);
}

/* Mode of a contact that is known to be closed, from its tangential velocity v. */
static inline rs_contact_mode rs_sliding_mode(double v, const rs_mode_tols *tols)
{
    if (fabs(v) <= tols->speed)
        return RS_MODE_STICKING;
    return v > 0.0 ? RS_MODE_SLIDING_POS : RS_MODE_SLIDING_NEG;
}

/* Mode of one friction contact from its normal force (N) and tangential velocity v (m/s). */
static inline rs_contact_mode rs_friction_mode(double f_normal, double v, const rs_mode_tols *tols)
{
    if (!(f_normal > tols->force))
        return RS_MODE_SEPARATING;
    return rs_sliding_mode(v, tols);
}

#endif
