/*
 * bodies_complex.h (internal): the bodies engine's step in complex arithmetic, for the complex
 * step of bodies_tangent.c: the step's data at data + i h t, and a block's rows evaluated there
 * (bodies_rows.h: its ops->complex_rows), from which the tangent assembles the LCP and the
 * recovery as bodies_lcp.c does in real arithmetic.
 */
#ifndef RS_DYNAMICS_BODIES_COMPLEX_H
#define RS_DYNAMICS_BODIES_COMPLEX_H

#include <complex.h>

#include "dynamics/bodies_rows.h"

typedef double complex cx;

/* The step's data in complex: params, state, input, dt each + i h t. */
typedef struct cdata {
    const rs_step_data *d;
    const bodies_step *s;
    int nb;
    cx *params, *state, *input, dt;
    cx *mass, *inertia, *vfree; /* per body; inertia: 0 for a locked rotation (W's 1/I = 0) */
    cx *inv_inertia;
} cdata;

static inline cx cdot(const cx *a, const cx *b)
{
    return a[0] * b[0] + a[1] * b[1];
}

static inline cx ccross(const cx *r, const cx *e)
{
    return r[0] * e[1] - r[1] * e[0];
}

/* A Jacobian row in complex (bodies_jrow's). */
typedef struct cjrow {
    int body[2];
    cx c[2][3];
} cjrow;

/* The Jacobian row of direction e at points ra of body a and rb of body b (b < 0: the world). */
static inline void cjrow_set(cjrow *j, int a, int b, const cx *ra, const cx *rb, const cx *e)
{
    j->body[0] = a;
    j->body[1] = b;
    j->c[0][0] = e[0];
    j->c[0][1] = e[1];
    j->c[0][2] = ccross(ra, e);
    j->c[1][0] = -e[0];
    j->c[1][1] = -e[1];
    j->c[1][2] = b >= 0 ? -ccross(rb, e) : 0.0;
}

/* J v (bodies_jrow_dot's order). */
static inline cx cjrow_dot(const cjrow *j, const cx *v)
{
    const cx *va = v + 3 * j->body[0];
    cx s = j->c[0][0] * va[0] + j->c[0][1] * va[1] + j->c[0][2] * va[2];
    if (j->body[1] >= 0) {
        const cx *vb = v + 3 * j->body[1];
        s += j->c[1][0] * vb[0] + j->c[1][1] * vb[1] + j->c[1][2] * vb[2];
    }
    return s;
}

/* A block's rows in complex (bodies_rows.h): each unknown's Jacobian row (has[k] 0: none), its
 * bias in m/s (the LCP's), the values of the couplings A_kc (in the order of the real
 * ops->couplings, whose rows and columns they take), and each reaction's row. */
typedef struct crows {
    cjrow j[BODIES_BLOCK_MAX];
    int has[BODIES_BLOCK_MAX];
    cx bias[BODIES_BLOCK_MAX];
    cx a[BODIES_BLOCK_TERMS];
    cjrow r[BODIES_BLOCK_MAX];
} crows;

#endif
