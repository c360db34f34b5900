/*
 * lcp_generate.c: seeded LCPs with a known solution (see relaxsim/lcp_generate.h).
 *
 * Construction: draw M from its class, draw a complementary pair z*, w* >= 0 with z*_i w*_i = 0,
 * set q = w* - M z*. With --degenerate the data are small integers (exact ties in the ratio test)
 * and a third of the pairs are floating (z*_i = w*_i = 0).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "relaxsim/lcp_generate.h"
#include "core/detail.h"
#include "core/rng.h"
#include "lcp/lcp_internal.h"

const char *rs_lcp_class_name(rs_lcp_class c)
{
    switch (c) {
    case RS_LCP_CLASS_SPD: return "spd";
    case RS_LCP_CLASS_PMATRIX: return "pmatrix";
    case RS_LCP_CLASS_PSD: return "psd";
    case RS_LCP_CLASS_FRICTION: return "friction";
    }
    return "unknown";
}

rs_error rs_lcp_class_parse(const char *name, rs_lcp_class *out, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!name || !out)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "rs_lcp_class_parse: %s is NULL",
                             !name ? "name" : "out");
    for (int c = RS_LCP_CLASS_SPD; c <= RS_LCP_CLASS_FRICTION; c++)
        if (strcmp(name, rs_lcp_class_name((rs_lcp_class)c)) == 0) {
            *out = (rs_lcp_class)c;
            return RS_OK;
        }
    return rs_detail_set(detail, RS_ERR_BAD_ARG,
                         "unknown LCP class '%.60s' (expected spd, pmatrix, psd or friction)", name);
}

/* An entry of a random factor: uniform in [-1, 1), or in {-1, 0, 1} for degenerate problems. */
static double factor_entry(rs_rng *rng, int degenerate)
{
    return degenerate ? (double)rs_rng_below(rng, 3) - 1.0 : rs_rng_range(rng, -1.0, 1.0);
}

/* M += B B' for B of size n x r (column-major). */
static void add_gram(int n, int r, const double *B, double *M)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int k = 0; k < r; k++)
                s += B[i + (size_t)k * n] * B[j + (size_t)k * n];
            M[i + (size_t)j * n] += s;
        }
}

/* M += K - K' with K random: a skew-symmetric part, which leaves z'Mz unchanged. */
static void add_skew(int n, rs_rng *rng, int degenerate, double *M)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < j; i++) {
            const double k = factor_entry(rng, degenerate);
            M[i + (size_t)j * n] += k;
            M[j + (size_t)i * n] -= k;
        }
}

/* M = B B' (+ shift I) (+ skew) with B of n x r. */
static rs_error fill_gram_class(int n, int r, double shift, int skew, rs_rng *rng, int degenerate,
                                double *M)
{
    double *B = malloc(sizeof(double) * (size_t)n * (size_t)r);
    if (!B)
        return RS_ERR_NOMEM;
    for (size_t i = 0; i < (size_t)n * (size_t)r; i++)
        B[i] = factor_entry(rng, degenerate);
    add_gram(n, r, B, M);
    free(B);
    for (int i = 0; i < n; i++)
        M[i + (size_t)i * n] += shift;
    if (skew)
        add_skew(n, rng, degenerate, M);
    return RS_OK;
}

/* A positive value for a chosen side of a pair. */
static double positive_value(rs_rng *rng, int degenerate)
{
    return degenerate ? (double)(1 + rs_rng_below(rng, 2)) : rs_rng_range(rng, 0.1, 1.1);
}

/* Complementary pairs: clamping or separating at random, a third floating when degenerate. */
static void draw_pairs(int n, rs_rng *rng, int degenerate, double *z, double *w)
{
    for (int i = 0; i < n; i++) {
        const uint64_t kind = rs_rng_below(rng, degenerate ? 3 : 2);
        z[i] = kind == 0 ? positive_value(rng, degenerate) : 0.0;
        w[i] = kind == 1 ? positive_value(rng, degenerate) : 0.0;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Frictional contact (Stewart-Trinkle)
 * ------------------------------------------------------------------------------------------- */

typedef struct contact_layout {
    int first;  /* index of lambda_n in the LCP */
    int ndir;   /* tangent directions: 4 (3-D), 2 (planar) or 0 (frictionless) */
    int body;
    double mu;
    double dir[5][3]; /* unit normal, then the tangent directions */
    double point[3];  /* contact point relative to the body's centre of mass */
} contact_layout;

static void cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static void normalize(double a[3])
{
    const double s = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int k = 0; k < 3; k++)
        a[k] /= s;
}

/* A random contact frame: normal n, tangents t1 = unit(n x a), t2 = n x t1 and their negatives. */
static void draw_frame(rs_rng *rng, contact_layout *c)
{
    double nrm[3], a[3], t1[3], t2[3];
    do {
        for (int k = 0; k < 3; k++)
            nrm[k] = rs_rng_range(rng, -1.0, 1.0);
    } while (nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2] < 0.01);
    normalize(nrm);
    a[0] = fabs(nrm[0]) < 0.9 ? 1.0 : 0.0;
    a[1] = 1.0 - a[0];
    a[2] = 0.0;
    cross(nrm, a, t1);
    normalize(t1);
    cross(nrm, t1, t2);
    memcpy(c->dir[0], nrm, sizeof nrm);
    const double *tangents[4] = {t1, t2, t1, t2};
    for (int j = 0; j < c->ndir; j++) {
        /* 3-D: +t1, +t2, -t1, -t2; planar: +t1, -t1. */
        const double *t = c->ndir == 2 ? t1 : tangents[j];
        const double sign = (c->ndir == 2 ? j == 1 : j >= 2) ? -1.0 : 1.0;
        for (int k = 0; k < 3; k++)
            c->dir[1 + j][k] = sign * t[k];
    }
}

/* Lay out the contacts: 3-D ones (6 unknowns) while they fit, then one planar (4), then
 * frictionless ones (1). Returns the number of contacts. */
static int layout_contacts(int n, contact_layout *cs)
{
    int nc = 0, at = 0;
    while (n - at >= 6) {
        cs[nc].first = at;
        cs[nc++].ndir = 4;
        at += 6;
    }
    if (n - at >= 4) {
        cs[nc].first = at;
        cs[nc++].ndir = 2;
        at += 4;
    }
    while (at < n) {
        cs[nc].first = at;
        cs[nc++].ndir = 0;
        at += 1;
    }
    return nc;
}

/* Unknowns of contact c that are impulses (normal and tangent): 1 + ndir; gamma follows them. */
static int impulse_count(const contact_layout *c) { return 1 + c->ndir; }

static rs_error fill_friction(int n, rs_rng *rng, int degenerate, double *M, double *z, double *w)
{
    contact_layout *cs = calloc((size_t)n, sizeof *cs);
    int *row_of = malloc(sizeof(int) * (size_t)n); /* LCP index -> Jacobian row, or -1 for gamma */
    if (!cs || !row_of) {
        free(cs);
        free(row_of);
        return RS_ERR_NOMEM;
    }
    const int nc = layout_contacts(n, cs);
    const int nbodies = 1 + (nc - 1) / 4; /* about four contacts per body: redundant constraints */
    const int m = 6 * nbodies;
    double *minv = malloc(sizeof(double) * (size_t)m); /* diagonal inverse mass matrix */
    int nrows = 0;
    for (int c = 0; c < nc; c++)
        nrows += impulse_count(&cs[c]);
    double *J = calloc((size_t)nrows * (size_t)m, sizeof(double)); /* J(row, dof), column-major */
    if (!minv || !J) {
        free(cs);
        free(row_of);
        free(minv);
        free(J);
        return RS_ERR_NOMEM;
    }
    for (int b = 0; b < nbodies; b++) {
        const double mass = degenerate ? 1.0 : rs_rng_range(rng, 1.0, 10.0);
        for (int k = 0; k < 3; k++) {
            minv[6 * b + k] = 1.0 / mass;
            minv[6 * b + 3 + k] = 1.0 / (degenerate ? 1.0 : rs_rng_range(rng, 0.1, 1.0));
        }
    }
    /* Jacobian rows [u', (r x u)'] on the contact's body, for the normal and each tangent. */
    for (int c = 0, row = 0; c < nc; c++) {
        contact_layout *ct = &cs[c];
        ct->body = (int)rs_rng_below(rng, (uint64_t)nbodies);
        ct->mu = degenerate ? 0.5 : rs_rng_range(rng, 0.1, 1.0);
        for (int k = 0; k < 3; k++)
            ct->point[k] = rs_rng_range(rng, -1.0, 1.0);
        draw_frame(rng, ct);
        for (int j = 0; j < impulse_count(ct); j++, row++) {
            double rxu[3];
            cross(ct->point, ct->dir[j], rxu);
            for (int k = 0; k < 3; k++) {
                J[row + (size_t)(6 * ct->body + k) * nrows] = ct->dir[j][k];
                J[row + (size_t)(6 * ct->body + 3 + k) * nrows] = rxu[k];
            }
            row_of[ct->first + j] = row;
        }
        if (ct->ndir > 0)
            row_of[ct->first + 1 + ct->ndir] = -1;
    }
    /* Impulse block: G = J Minv J'. */
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            const int ra = row_of[a], rb = row_of[b];
            if (ra < 0 || rb < 0)
                continue;
            double s = 0.0;
            for (int k = 0; k < m; k++)
                s += J[ra + (size_t)k * nrows] * minv[k] * J[rb + (size_t)k * nrows];
            M[a + (size_t)b * n] = s;
        }
    /* Friction cone rows and the sliding-speed column: E and [mu, -E']. */
    for (int c = 0; c < nc; c++) {
        const contact_layout *ct = &cs[c];
        if (ct->ndir == 0)
            continue;
        const int g = ct->first + 1 + ct->ndir;
        M[g + (size_t)ct->first * n] = ct->mu;
        for (int j = 0; j < ct->ndir; j++) {
            M[(ct->first + 1 + j) + (size_t)g * n] = 1.0;
            M[g + (size_t)(ct->first + 1 + j) * n] = -1.0;
        }
    }
    /* Known solution, one contact mode at a time. */
    for (int c = 0; c < nc; c++) {
        const contact_layout *ct = &cs[c];
        const int f = ct->first, nd = ct->ndir, g = f + 1 + nd;
        const uint64_t mode = rs_rng_below(rng, degenerate ? 4 : 3); /* 3: touching, no force */
        for (int j = 0; j < impulse_count(ct) + (nd > 0); j++)
            z[f + j] = w[f + j] = 0.0;
        if (mode == 0) { /* separating: gap or normal velocity opens, no impulse */
            w[f] = positive_value(rng, degenerate);
            for (int j = 0; j < nd; j++)
                w[f + 1 + j] = degenerate ? 0.0 : rs_rng_range(rng, 0.0, 1.0);
            continue;
        }
        if (mode == 3)
            continue; /* floating normal pair: in contact with zero impulse */
        const double lambda = positive_value(rng, degenerate);
        z[f] = lambda;
        if (nd == 0)
            continue;
        if (mode == 1) { /* sticking: zero slip, impulse strictly inside the cone */
            double budget = 0.5 * ct->mu * lambda;
            for (int j = 0; j < nd; j++) {
                const double b = degenerate ? 0.0 : rs_rng_range(rng, 0.0, budget / nd);
                z[f + 1 + j] = b;
            }
            continue;
        }
        /* sliding opposite to direction j*: all friction along j*, slip speed gamma > 0;
         * the slip velocity is -gamma d_j*, so w_j = D_j' v + gamma = gamma (1 - d_j . d_j*). */
        const int js = (int)rs_rng_below(rng, (uint64_t)nd);
        const double gamma = positive_value(rng, degenerate);
        z[f + 1 + js] = ct->mu * lambda;
        z[g] = gamma;
        for (int j = 0; j < nd; j++) {
            const double *dj = ct->dir[1 + j], *ds = ct->dir[1 + js];
            const double dot = dj[0] * ds[0] + dj[1] * ds[1] + dj[2] * ds[2];
            w[f + 1 + j] = j == js ? 0.0 : gamma * (1.0 - dot);
        }
    }
    free(cs);
    free(row_of);
    free(minv);
    free(J);
    return RS_OK;
}

rs_error rs_lcp_generate(rs_lcp_class cls, int n, uint64_t seed, int degenerate, rs_lcp **out,
                         double *z_star, double *w_star, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!out)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "rs_lcp_generate: out is NULL");
    *out = NULL;
    if (n < 1 || n > RS_LCP_FILE_MAX_N)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "rs_lcp_generate: n = %d, outside [1, %d]",
                             n, RS_LCP_FILE_MAX_N);
    if (cls < RS_LCP_CLASS_SPD || cls > RS_LCP_CLASS_FRICTION || (degenerate != 0 && degenerate != 1))
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "rs_lcp_generate: %s = %d is not one of the "
                                                     "values lcp_generate.h lists",
                             degenerate != 0 && degenerate != 1 ? "degenerate" : "cls",
                             degenerate != 0 && degenerate != 1 ? degenerate : (int)cls);
    rs_lcp *lcp;
    rs_error err = rs_lcp_create(n, &lcp, detail);
    if (err != RS_OK)
        return err;
    double *z = malloc(sizeof(double) * (size_t)n), *w = malloc(sizeof(double) * (size_t)n);
    double *mz = malloc(sizeof(double) * (size_t)n);
    if (!z || !w || !mz) {
        err = rs_detail_set(detail, RS_ERR_NOMEM, "rs_lcp_generate: no memory for n = %d", n);
        goto done;
    }
    rs_rng rng;
    /* Distinct streams per class: the class is mixed into the seed. */
    rs_rng_seed(&rng, seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(cls + 1)) ^ (uint64_t)degenerate);
    const double shift = degenerate ? (double)n : 0.1 * n;
    switch (cls) {
    case RS_LCP_CLASS_SPD:
        err = fill_gram_class(n, n, shift, 0, &rng, degenerate, lcp->M);
        break;
    case RS_LCP_CLASS_PMATRIX:
        err = fill_gram_class(n, n, shift, 1, &rng, degenerate, lcp->M);
        for (int i = 0; i < n && err == RS_OK; i++) { /* row scaling by a positive diagonal */
            const double di = degenerate ? (double)(1u << rs_rng_below(&rng, 3))
                                         : pow(10.0, rs_rng_range(&rng, -1.0, 1.0));
            for (int j = 0; j < n; j++)
                lcp->M[i + (size_t)j * n] *= di;
        }
        break;
    case RS_LCP_CLASS_PSD:
        err = fill_gram_class(n, (n + 1) / 2, 0.0, 1, &rng, degenerate, lcp->M);
        break;
    case RS_LCP_CLASS_FRICTION:
        err = fill_friction(n, &rng, degenerate, lcp->M, z, w);
        break;
    }
    if (err != RS_OK)
        goto done;
    if (cls != RS_LCP_CLASS_FRICTION)
        draw_pairs(n, &rng, degenerate, z, w);
    /* q = w* - M z* (q is still zero, so the residual routine gives M z*). */
    rs_lcp_residual(n, lcp->M, lcp->q, z, mz);
    for (int i = 0; i < n; i++)
        lcp->q[i] = w[i] - mz[i];
    /* Friction: the gamma rows (the only zero diagonal entries) have q = 0 exactly; their w is
     * mu lambda_n - e'beta, >= 0 by the choice of mode. */
    if (cls == RS_LCP_CLASS_FRICTION)
        for (int i = 0; i < n; i++)
            if (lcp->M[i + (size_t)i * n] == 0.0)
                lcp->q[i] = 0.0;
    if (z_star)
        memcpy(z_star, z, sizeof(double) * (size_t)n);
    if (w_star)
        rs_lcp_residual(n, lcp->M, lcp->q, z, w_star);
done:
    free(z);
    free(w);
    free(mz);
    if (err != RS_OK) {
        rs_lcp_destroy(lcp);
        if (err == RS_ERR_NOMEM) /* (the fills' own failure: their scratch) */
            rs_detail_set(detail, err, "rs_lcp_generate: no memory for n = %d", n);
    } else {
        *out = lcp;
    }
    return err;
}
