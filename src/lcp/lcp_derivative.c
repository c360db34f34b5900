/* lcp_derivative.c: derivatives of an LCP's solution through its index sets (see
 * relaxsim/lcp_derivative.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "relaxsim/lcp_derivative.h"
#include "core/detail.h"

void rs_lcp_derivative_settings_default(rs_lcp_derivative_settings *s)
{
    if (!s)
        return;
    s->size = sizeof *s;
    s->index_tol = 1e-9;
    s->rank_tol = 1e-12;
    s->z_floor = 0.0;
    s->w_floor = 0.0;
    s->floating = RS_LCP_FLOATING_EXACT;
}

const char *rs_lcp_derivative_status_name(rs_lcp_derivative_status status)
{
    switch (status) {
    case RS_LCP_DERIVATIVE_OK: return "ok";
    case RS_LCP_DERIVATIVE_SINGULAR: return "singular";
    case RS_LCP_DERIVATIVE_FLOATING_FAILED: return "floating_failed";
    case RS_LCP_DERIVATIVE_NOT_SOLUTION: return "not_solution";
    case RS_LCP_DERIVATIVE_INCONSISTENT: return "inconsistent";
    }
    return "unknown";
}

/* ---- the block's singular value decomposition ------------------------------------------------ */

/* A k x k block A = U diag(s) V' by one-sided Jacobi rotations (Hestenes): the columns of U are
 * made mutually orthogonal by plane rotations, accumulated in V; then s_j = |U_j| and U_j is
 * normalised. Accurate to rounding for the small blocks of contact problems, and rank revealing. */
typedef struct block_svd {
    int k;
    double *U, *V, *s; /* k x k, k x k (column-major), k */
    double smax;
} block_svd;

static void jacobi_svd(block_svd *b)
{
    const int k = b->k;
    double *U = b->U, *V = b->V;
    for (int i = 0; i < k * k; i++)
        V[i] = 0.0;
    for (int i = 0; i < k; i++)
        V[i + i * k] = 1.0;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0.0;
        for (int p = 0; p < k - 1; p++)
            for (int q = p + 1; q < k; q++) {
                double alpha = 0.0, beta = 0.0, gamma = 0.0;
                for (int i = 0; i < k; i++) {
                    alpha += U[i + p * k] * U[i + p * k];
                    beta += U[i + q * k] * U[i + q * k];
                    gamma += U[i + p * k] * U[i + q * k];
                }
                if (gamma == 0.0 || fabs(gamma) <= 1e-15 * sqrt(alpha * beta))
                    continue;
                off = fmax(off, fabs(gamma) / sqrt(alpha * beta));
                const double zeta = (beta - alpha) / (2.0 * gamma);
                const double t = (zeta >= 0.0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
                const double c = 1.0 / sqrt(1.0 + t * t), sn = c * t;
                for (int i = 0; i < k; i++) {
                    const double up = U[i + p * k], uq = U[i + q * k];
                    U[i + p * k] = c * up - sn * uq;
                    U[i + q * k] = sn * up + c * uq;
                    const double vp = V[i + p * k], vq = V[i + q * k];
                    V[i + p * k] = c * vp - sn * vq;
                    V[i + q * k] = sn * vp + c * vq;
                }
            }
        if (off <= 1e-15)
            break;
    }
    b->smax = 0.0;
    for (int j = 0; j < k; j++) {
        double norm = 0.0;
        for (int i = 0; i < k; i++)
            norm += U[i + j * k] * U[i + j * k];
        norm = sqrt(norm);
        b->s[j] = norm;
        b->smax = fmax(b->smax, norm);
        for (int i = 0; norm > 0.0 && i < k; i++)
            U[i + j * k] /= norm;
    }
}

/* Factorise M[idx, idx] (k x k); returns its numerical rank at rank_tol, with its condition. */
static int factor_block(int n, const double *M, const int *idx, block_svd *b, double rank_tol,
                        double *condition)
{
    const int k = b->k;
    double amax = 0.0; /* scaled to entries of order 1: no overflow or underflow in the sums */
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++)
            amax = fmax(amax, fabs(M[idx[i] + (size_t)idx[j] * n]));
    const double scale = amax > 0.0 ? amax : 1.0;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++)
            b->U[i + j * k] = M[idx[i] + (size_t)idx[j] * n] / scale;
    jacobi_svd(b);
    for (int j = 0; j < k; j++)
        b->s[j] *= scale;
    b->smax *= scale;
    int rank = 0;
    double smin = INFINITY;
    for (int j = 0; j < k; j++)
        if (b->s[j] > rank_tol * b->smax && b->s[j] > 0.0) {
            rank++;
            smin = fmin(smin, b->s[j]);
        }
    *condition = k == 0 ? 1.0 : rank < k ? INFINITY : b->smax / smin;
    return rank;
}

/* x = pinv(A) rhs: V diag(1/s) U' rhs over the singular values above rank_tol * smax. */
static void block_solve(const block_svd *b, double rank_tol, const double *rhs, double *x,
                        double *tmp)
{
    const int k = b->k;
    for (int j = 0; j < k; j++) {
        double u = 0.0;
        for (int i = 0; i < k; i++)
            u += b->U[i + j * k] * rhs[i];
        tmp[j] = b->s[j] > rank_tol * b->smax && b->s[j] > 0.0 ? u / b->s[j] : 0.0;
    }
    for (int i = 0; i < k; i++) {
        double v = 0.0;
        for (int j = 0; j < k; j++)
            v += b->V[i + j * k] * tmp[j];
        x[i] = v;
    }
}

/* ---- shared set-up ----------------------------------------------------------------------------- */

static rs_error check_args(int n, const double *M, const double *q, const double *z,
                           const double *dM, const double *dq, const rs_lcp_derivative_settings *s,
                           rs_error_detail *detail)
{
    if (!M || !q || !z)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "LCP derivative: %s is NULL",
                             !M ? "M" : !q ? "q" : "z");
    if (n < 1 || n > 100000)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "LCP derivative: n = %d, outside "
                                                       "[1, 100000]", n);
    if (s->size != sizeof *s)
        return RS_SETTINGS_SIZE_OK(s, rs_lcp_derivative_settings, "settings", detail);
    const char *bad = !(s->index_tol >= 0.0 && s->index_tol < 1.0)   ? "index_tol"
                      : !(s->rank_tol >= 0.0 && s->rank_tol < 1.0)   ? "rank_tol"
                      : !(s->z_floor >= 0.0 && s->z_floor < INFINITY) ? "z_floor"
                      : !(s->w_floor >= 0.0 && s->w_floor < INFINITY) ? "w_floor"
                      : (s->floating != RS_LCP_FLOATING_EXACT && s->floating != RS_LCP_FLOATING_CLAMPING &&
                         s->floating != RS_LCP_FLOATING_SEPARATING)
                          ? "floating"
                          : NULL;
    if (bad)
        return rs_detail_set(detail, RS_ERR_BAD_SETTING,
                             "LCP derivative: settings->%s is out of its range "
                             "(lcp_derivative.h)", bad);
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
        if (!isfinite(M[i]) || (dM && !isfinite(dM[i])))
            return rs_detail_set(detail, RS_ERR_BAD_ARG, "LCP derivative: %s has a NaN or an "
                                                         "infinity", !isfinite(M[i]) ? "M" : "dM");
    for (int i = 0; i < n; i++)
        if (!isfinite(q[i]) || !isfinite(z[i]) || (dq && !isfinite(dq[i])))
            return rs_detail_set(detail, RS_ERR_BAD_ARG, "LCP derivative: %s has a NaN or an "
                                                         "infinity",
                                 !isfinite(q[i]) ? "q" : !isfinite(z[i]) ? "z" : "dq");
    return RS_OK;
}

/* Classify every index (the stated relative tolerances); counts into info. Returns 0 if some
 * index is not complementary. */
static int classify(int n, const double *M, const double *q, const double *z,
                    const rs_lcp_derivative_settings *s, rs_lcp_index_class *cls,
                    rs_lcp_derivative_info *info)
{
    const double tol = s->index_tol;
    double zmax = s->z_floor, wscale = s->w_floor;
    for (int i = 0; i < n; i++) {
        zmax = fmax(zmax, fabs(z[i]));
        double mz = 0.0;
        for (int j = 0; j < n; j++)
            mz += M[i + (size_t)j * n] * z[j];
        wscale = fmax(wscale, fmax(fabs(q[i]), fabs(mz)));
    }
    int ok = 1;
    info->nclamping = info->nseparating = info->nfloating = 0;
    for (int i = 0; i < n; i++) {
        double w = q[i];
        for (int j = 0; j < n; j++)
            w += M[i + (size_t)j * n] * z[j];
        const int z_zero = fabs(z[i]) <= tol * zmax, w_zero = fabs(w) <= tol * wscale;
        if (!z_zero && z[i] > 0.0 && w_zero) {
            cls[i] = RS_LCP_CLAMPING;
            info->nclamping++;
        } else if (z_zero && !w_zero && w > 0.0) {
            cls[i] = RS_LCP_SEPARATING;
            info->nseparating++;
        } else if (z_zero && w_zero) {
            cls[i] = RS_LCP_FLOATING;
            info->nfloating++;
        } else {
            cls[i] = RS_LCP_NOT_COMPLEMENTARY;
            ok = 0;
        }
    }
    return ok;
}

/* Indices whose class is one of the two given, in order; returns their count. */
static int gather(int n, const rs_lcp_index_class *cls, rs_lcp_index_class a,
                  rs_lcp_index_class b, int *idx)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (cls[i] == a || cls[i] == b)
            idx[k++] = i;
    return k;
}

/* Workspace for blocks of up to n: U, V, s, vectors, r = dM z + dq, the index classes. */
typedef struct work {
    block_svd b;
    double *v1, *v2, *v3, *r;
    int *idx, *idx2;
    rs_lcp_index_class *cls;
} work;

static void work_free(work *w)
{
    free(w->b.U);
    free(w->idx);
    free(w->cls);
}

/* What both entry points do first: the settings (defaults for NULL), the arguments checked, the
 * workspace allocated. */
static rs_error begin(int n, const double *M, const double *q, const double *z, const double *dM,
                      const double *dq, const rs_lcp_derivative_settings *settings,
                      rs_lcp_derivative_settings *s, work *w, rs_error_detail *detail)
{
    if (settings)
        *s = *settings;
    else
        rs_lcp_derivative_settings_default(s);
    const rs_error err = check_args(n, M, q, z, dM, dq, s, detail);
    if (err != RS_OK)
        return err;
    const size_t k = (size_t)n;
    w->b.U = malloc(sizeof(double) * (2 * k * k + 5 * k + 1));
    w->idx = malloc(sizeof(int) * (2 * k + 1));
    w->cls = malloc(sizeof *w->cls * k);
    if (!w->b.U || !w->idx || !w->cls) {
        work_free(w);
        return rs_detail_set(detail, RS_ERR_NOMEM, "LCP derivative: no memory for n = %d", n);
    }
    w->b.V = w->b.U + k * k;
    w->b.s = w->b.V + k * k;
    w->v1 = w->b.s + k;
    w->v2 = w->v1 + k;
    w->v3 = w->v2 + k;
    w->r = w->v3 + k;
    w->idx2 = w->idx + k;
    return RS_OK;
}

/* The tie-break rule: M_KK dz_K = -r_K (minimum norm), zero elsewhere. */
static void tie_break(int n, const double *M, const double *r, const rs_lcp_index_class *cls,
                      rs_lcp_floating_rule rule, double rank_tol, work *w, double *dz,
                      rs_lcp_derivative_info *info)
{
    const int k = gather(n, cls, RS_LCP_CLAMPING,
                         rule == RS_LCP_FLOATING_SEPARATING ? RS_LCP_CLAMPING : RS_LCP_FLOATING,
                         w->idx);
    w->b.k = k;
    info->rank = factor_block(n, M, w->idx, &w->b, rank_tol, &info->condition);
    for (int i = 0; i < k; i++)
        w->v1[i] = -r[w->idx[i]];
    block_solve(&w->b, rank_tol, w->v1, w->v2, w->v3);
    memset(dz, 0, sizeof(double) * (size_t)n);
    for (int i = 0; i < k; i++)
        dz[w->idx[i]] = w->v2[i];
    info->floating_used = rule;
    /* how well the clamping equations M_KK dz_K = -r_K hold: exactly unless M_KK is singular and
     * -r_K outside its range */
    double scale = 0.0, res = 0.0; /* relative to the terms' own size: units do not matter */
    for (int i = 0; i < k; i++) {
        double t = r[w->idx[i]];
        scale = fmax(scale, fabs(t));
        for (int j = 0; j < k; j++) {
            const double term = M[w->idx[i] + (size_t)w->idx[j] * n] * w->v2[j];
            t += term;
            scale = fmax(scale, fabs(term));
        }
        res = fmax(res, fabs(t));
    }
    info->residual = scale > 0.0 ? res / scale : 0.0;
    info->status = info->rank == k          ? RS_LCP_DERIVATIVE_OK
                   : info->residual <= 1e-8 ? RS_LCP_DERIVATIVE_SINGULAR /* consistent */
                                            : RS_LCP_DERIVATIVE_INCONSISTENT;
}

/* EXACT with floating indices: the derivative LCP over F, with dz_C eliminated through M_CC.
 * Returns 0 (nothing written) when M_CC is singular or Lemke does not solve it. */
static int exact_floating(int n, const double *M, const double *r, const rs_lcp_index_class *cls,
                          double rank_tol, work *w, double *dz, rs_lcp_derivative_info *info)
{
    int *C = w->idx, *F = w->idx2;
    const int kc = gather(n, cls, RS_LCP_CLAMPING, RS_LCP_CLAMPING, C);
    const int kf = gather(n, cls, RS_LCP_FLOATING, RS_LCP_FLOATING, F);
    w->b.k = kc;
    double cond;
    const int rank = factor_block(n, M, C, &w->b, rank_tol, &cond);
    if (rank < kc)
        return 0;
    /* X = M_CC^-1 M_CF (kc x kf), y = M_CC^-1 r_C; S = M_FF - M_FC X, rt = r_F - M_FC y */
    double *X = malloc(sizeof(double) * ((size_t)kc * kf + (size_t)kf * kf + 3 * (size_t)kf + 1));
    if (!X)
        return 0;
    double *S = X + (size_t)kc * kf, *rt = S + (size_t)kf * kf, *zf = rt + kf, *wf = zf + kf;
    for (int j = 0; j < kf; j++) {
        for (int i = 0; i < kc; i++)
            w->v1[i] = M[C[i] + (size_t)F[j] * n];
        block_solve(&w->b, rank_tol, w->v1, X + (size_t)j * kc, w->v3);
    }
    for (int i = 0; i < kc; i++)
        w->v1[i] = r[C[i]];
    block_solve(&w->b, rank_tol, w->v1, w->v2, w->v3); /* y in v2 */
    for (int i = 0; i < kf; i++) {
        double t = r[F[i]];
        for (int c = 0; c < kc; c++)
            t -= M[F[i] + (size_t)C[c] * n] * w->v2[c];
        rt[i] = t;
        for (int j = 0; j < kf; j++) {
            double sij = M[F[i] + (size_t)F[j] * n];
            for (int c = 0; c < kc; c++)
                sij -= M[F[i] + (size_t)C[c] * n] * X[c + (size_t)j * kc];
            S[i + (size_t)j * kf] = sij;
        }
    }
    rs_lemke_info li = {.size = sizeof li};
    const rs_error err = rs_lemke_solve_alloc(kf, S, rt, NULL, NULL, zf, wf, &li, NULL);
    if (err != RS_OK || li.status != RS_LEMKE_SOLVED) {
        free(X);
        return 0;
    }
    memset(dz, 0, sizeof(double) * (size_t)n);
    for (int j = 0; j < kf; j++)
        dz[F[j]] = zf[j];
    for (int i = 0; i < kc; i++) { /* dz_C = -(y + X dz_F) */
        double t = w->v2[i];
        for (int j = 0; j < kf; j++)
            t += X[i + (size_t)j * kc] * zf[j];
        dz[C[i]] = -t;
    }
    free(X);
    info->rank = kc;
    info->condition = cond;
    info->floating_used = RS_LCP_FLOATING_EXACT;
    info->status = RS_LCP_DERIVATIVE_OK;
    return 1;
}

rs_error rs_lcp_directional_derivative(int n, const double *M, const double *q, const double *z,
                                       const double *dM, const double *dq,
                                       const rs_lcp_derivative_settings *settings,
                                       rs_lcp_index_class *classes, double *dz,
                                       rs_lcp_derivative_info *info, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!dz || !info)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "rs_lcp_directional_derivative: %s is NULL",
                             !dz ? "dz" : "info");
    const rs_error size = RS_SIZE_OK(info, rs_lcp_derivative_info, "info", detail);
    if (size != RS_OK)
        return size;
    rs_lcp_derivative_settings s;
    work w = {0};
    const rs_error err = begin(n, M, q, z, dM, dq, settings, &s, &w, detail);
    if (err != RS_OK)
        return err;
    rs_lcp_index_class *cls = w.cls;
    double *r = w.r;
    memset(info, 0, sizeof *info);
    info->size = sizeof *info;
    info->floating_used = s.floating;
    if (!classify(n, M, q, z, &s, cls, info)) {
        memset(dz, 0, sizeof(double) * (size_t)n);
        info->status = RS_LCP_DERIVATIVE_NOT_SOLUTION;
    } else {
        for (int i = 0; i < n; i++) { /* r = dM z + dq */
            double t = dq ? dq[i] : 0.0;
            for (int j = 0; dM && j < n; j++)
                t += dM[i + (size_t)j * n] * z[j];
            r[i] = t;
        }
        if (s.floating != RS_LCP_FLOATING_EXACT || info->nfloating == 0) {
            tie_break(n, M, r, cls, s.floating == RS_LCP_FLOATING_SEPARATING
                                        ? RS_LCP_FLOATING_SEPARATING
                                        : RS_LCP_FLOATING_CLAMPING,
                      s.rank_tol, &w, dz, info);
            if (s.floating == RS_LCP_FLOATING_EXACT) /* no floating index: every rule agrees */
                info->floating_used = RS_LCP_FLOATING_EXACT;
        } else if (!exact_floating(n, M, r, cls, s.rank_tol, &w, dz, info)) {
            tie_break(n, M, r, cls, RS_LCP_FLOATING_CLAMPING, s.rank_tol, &w, dz, info);
            info->status = RS_LCP_DERIVATIVE_FLOATING_FAILED;
        }
    }
    if (classes)
        memcpy(classes, cls, sizeof *cls * (size_t)n);
    work_free(&w);
    return RS_OK;
}

rs_error rs_lcp_jacobian_q(int n, const double *M, const double *q, const double *z,
                           const rs_lcp_derivative_settings *settings, double *J,
                           rs_lcp_derivative_info *info, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!J || !info)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "rs_lcp_jacobian_q: %s is NULL",
                             !J ? "J" : "info");
    const rs_error size = RS_SIZE_OK(info, rs_lcp_derivative_info, "info", detail);
    if (size != RS_OK)
        return size;
    rs_lcp_derivative_settings s;
    work w = {0};
    const rs_error err = begin(n, M, q, z, NULL, NULL, settings, &s, &w, detail);
    if (err != RS_OK)
        return err;
    memset(info, 0, sizeof *info);
    info->size = sizeof *info;
    memset(J, 0, sizeof(double) * (size_t)n * (size_t)n);
    const rs_lcp_floating_rule rule =
        s.floating == RS_LCP_FLOATING_SEPARATING ? RS_LCP_FLOATING_SEPARATING : RS_LCP_FLOATING_CLAMPING;
    info->floating_used = rule;
    if (!classify(n, M, q, z, &s, w.cls, info)) {
        info->status = RS_LCP_DERIVATIVE_NOT_SOLUTION;
    } else { /* J_KK = -pinv(M_KK): column j of the pseudo-inverse solves for e_j */
        const int k = gather(n, w.cls, RS_LCP_CLAMPING,
                             rule == RS_LCP_FLOATING_SEPARATING ? RS_LCP_CLAMPING : RS_LCP_FLOATING,
                             w.idx);
        w.b.k = k;
        info->rank = factor_block(n, M, w.idx, &w.b, s.rank_tol, &info->condition);
        info->status = info->rank < k ? RS_LCP_DERIVATIVE_SINGULAR : RS_LCP_DERIVATIVE_OK;
        for (int j = 0; j < k; j++) {
            for (int i = 0; i < k; i++)
                w.v1[i] = i == j ? -1.0 : 0.0;
            block_solve(&w.b, s.rank_tol, w.v1, w.v2, w.v3);
            for (int i = 0; i < k; i++)
                J[w.idx[i] + (size_t)w.idx[j] * n] = w.v2[i];
        }
    }
    work_free(&w);
    return RS_OK;
}
