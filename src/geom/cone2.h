/*
 * cone2.h (internal): the distance from a planar vector to a convex cone given by generators.
 *
 * In the plane every point of cone{g_1, ..., g_k} lies in the cone of at most two of the
 * generators (Caratheodory), so the cone is the union of the two-generator cones, and the
 * distance to it is the smallest distance to one of them. A contact certificate uses this to ask
 * whether a total contact force is a non-negative combination of the forces the contacts that
 * are closed may exert (normals, friction-cone edges).
 */
#ifndef RS_GEOM_CONE2_H
#define RS_GEOM_CONE2_H

#include <math.h>

/* Distance from f to the ray {t a : t >= 0} (a != 0). */
static inline double rs_cone2_ray_distance(const double *f, const double *a)
{
    const double aa = a[0] * a[0] + a[1] * a[1];
    const double t = (f[0] * a[0] + f[1] * a[1]) / aa;
    if (!(t > 0.0))
        return hypot(f[0], f[1]);
    return hypot(f[0] - t * a[0], f[1] - t * a[1]);
}

/* Distance from f to cone{a, b} = {alpha a + beta b : alpha, beta >= 0}. Inside: f = alpha a +
 * beta b by Cramer's rule with both coefficients >= 0; outside, the nearest point is on one of the
 * two rays (parallel or opposite generators give a ray or a line: the rays again). */
static inline double rs_cone2_pair_distance(const double *f, const double *a, const double *b)
{
    const double det = a[0] * b[1] - a[1] * b[0];
    if (det != 0.0) {
        const double alpha = (f[0] * b[1] - f[1] * b[0]) / det;
        const double beta = (a[0] * f[1] - a[1] * f[0]) / det;
        if (alpha >= 0.0 && beta >= 0.0)
            return 0.0;
    }
    return fmin(rs_cone2_ray_distance(f, a), rs_cone2_ray_distance(f, b));
}

#endif
