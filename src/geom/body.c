/* body.c: rigid bodies' shapes and mass properties (see body.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detail.h"
#include "geom/body.h"
#include "geom/scene.h"

void rs_body_free(rs_body *b)
{
    if (!b)
        return;
    free(b->v);
    b->v = NULL;
    b->nvert = 0;
}

static int positive_length(double v)
{
    return isfinite(v) && v > 0.0 && v <= RS_SCENE_MAX_COORD;
}

rs_error rs_body_set_disc(rs_body *b, double r, rs_error_detail *why)
{
    if (!positive_length(r))
        return rs_detail_set(why, RS_ERR_BAD_ARG,
                             "r = %g: a disc's radius must be a finite length > 0 (m)", r);
    rs_body_free(b);
    b->shape = RS_BODY_DISC;
    b->radius = r;
    b->inertia_per_kg = 0.5 * r * r; /* a uniform disc: m r^2 / 2 */
    b->extent = r;
    return RS_OK;
}

/*
 * A polygon's area A, centroid C and second moment about its centroid per unit area, from the
 * triangles (0, v_i, v_i+1) with c_i = v_i x v_i+1:
 *     A = sum c_i / 2,   C = sum (v_i + v_i+1) c_i / (6 A),
 *     J_0 = sum c_i (v_i . v_i + v_i . v_i+1 + v_i+1 . v_i+1) / 12   (about the origin),
 * and per unit mass J_0 / A. A and C are summed with the vertices relative to the first, J_0 with
 * them relative to C, so that J_0 / A is the moment about the centroid itself, with no
 * parallel-axis difference J_0 / A - |C|^2 to cancel.
 */
rs_error rs_body_set_polygon(rs_body *b, int nv, const double *xy, rs_error_detail *why)
{
    rs_error err = rs_polygon_validate(nv, xy, why);
    if (err != RS_OK)
        return err;
    /* area and centroid from the vertices relative to the first (sums of products of
     * coordinates far from the origin, 1e6 m, lose the polygon's own size to rounding) */
    const double ox = xy[0], oz = xy[1];
    double area2 = 0.0, cx = 0.0, cz = 0.0;
    for (int i = 0; i < nv; i++) {
        const double *p = xy + 2 * i, *q = xy + 2 * ((i + 1) % nv);
        const double px = p[0] - ox, pz = p[1] - oz, qx = q[0] - ox, qz = q[1] - oz;
        const double c = px * qz - qx * pz;
        area2 += c;
        cx += (px + qx) * c;
        cz += (pz + qz) * c;
    }
    const double area = 0.5 * area2;
    cx = ox + cx / (3.0 * area2);
    cz = oz + cz / (3.0 * area2);
    double *v = malloc(sizeof(double) * 2 * (size_t)nv);
    if (!v)
        return RS_ERR_NOMEM;
    double extent = 0.0;
    for (int i = 0; i < nv; i++) {
        v[2 * i] = xy[2 * i] - cx;
        v[2 * i + 1] = xy[2 * i + 1] - cz;
        extent = fmax(extent, hypot(v[2 * i], v[2 * i + 1]));
    }
    /* the second moment about the centroid directly, from the centred vertices: the parallel
     * axes J_0 / A - |C|^2 about the origin cancelled (a unit square at 1e6 m came out -21.8) */
    double j0 = 0.0;
    for (int i = 0; i < nv; i++) {
        const double *p = v + 2 * i, *q = v + 2 * ((i + 1) % nv);
        const double c = p[0] * q[1] - q[0] * p[1];
        j0 += c * (p[0] * p[0] + p[1] * p[1] + p[0] * q[0] + p[1] * q[1] + q[0] * q[0] +
                   q[1] * q[1]);
    }
    rs_body_free(b);
    b->shape = RS_BODY_POLYGON;
    b->nvert = nv;
    b->v = v;
    b->shift[0] = -cx;
    b->shift[1] = -cz;
    b->inertia_per_kg = j0 / 12.0 / area;
    b->extent = extent;
    b->is_box = 0;
    return RS_OK;
}

rs_error rs_body_set_box(rs_body *b, double w, double h, rs_error_detail *why)
{
    if (!positive_length(w) || !positive_length(h))
        return rs_detail_set(why, RS_ERR_BAD_ARG,
                             "w = %g, h = %g: a box's sides must be finite lengths > 0 (m)", w,
                             h);
    const double xy[8] = {-w / 2, -h / 2, w / 2, -h / 2, w / 2, h / 2, -w / 2, h / 2};
    rs_error err = rs_body_set_polygon(b, 4, xy, why);
    if (err != RS_OK)
        return err;
    b->is_box = 1;
    b->w = w;
    b->h = h;
    b->inertia_per_kg = (w * w + h * h) / 12.0; /* exact, not summed */
    return RS_OK;
}
