/* kkt_sensitivity.c: the KKT system of a barrier problem, factorised by MUMPS,
 * back-solved per direction (see kkt_sensitivity.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dmumps_c.h>

#include "core/solver_lock.h"
#include "nlp/kkt_sensitivity.h"

#define MUMPS_JOB_INIT (-1)
#define MUMPS_JOB_END (-2)
#define MUMPS_JOB_ANALYSE_FACTOR 4
#define MUMPS_JOB_FACTOR 2
#define MUMPS_JOB_SOLVE 3
#define MUMPS_USE_COMM_WORLD (-987654) /* the sequential library's communicator */
#define MUMPS_ICNTL(k) icntl[(k)-1]    /* the manual's 1-based numbering */
#define MUMPS_INFOG(k) infog[(k)-1]

struct rs_kkt_sensitivity {
    int n, m, dim; /* dim = n + m */
    DMUMPS_STRUC_C id;
    int analysed, factored;
    /* the lower triangle of K in coordinates (1-based for MUMPS): W (and Sigma_x
     * on the diagonal), J, and -D on the constraint diagonal */
    int nnz;
    int *irn, *jcn;
    double *a;
    int *w_entry;  /* n x n: index in a of W(i, j), i >= j, or -1 */
    int *j_entry;  /* m x n: index in a of J(r, c), or -1 */
    double *W, *J; /* dense callback outputs */
    double *xl, *xu, *gl, *gu, *g;
    double *scale; /* dim: the symmetric scaling S of K (K~ = S K S is factorised) */
    double *rhs;   /* 3 blocks of dim x rhs_cols: MUMPS's right-hand side (overwritten by the
                      solution), the scaled right-hand sides, the iterate */
    int rhs_cols;
};

const char *rs_kkt_sensitivity_status_name(rs_kkt_sensitivity_status s)
{
    switch (s) {
    case RS_KKT_SENS_OK:
        return "ok";
    case RS_KKT_SENS_SINGULAR:
        return "singular";
    case RS_KKT_SENS_FAILED:
        return "failed";
    case RS_KKT_SENS_INACCURATE:
        return "inaccurate";
    }
    return "unknown";
}

static void mumps_call(rs_kkt_sensitivity *s, int job)
{
    s->id.job = job;
    rs_solver_lock(); /* sequential MUMPS is not thread-safe (core/solver_lock.h) */
    dmumps_c(&s->id);
    rs_solver_unlock();
}

void rs_kkt_sensitivity_destroy(rs_kkt_sensitivity *s)
{
    if (!s)
        return;
    if (s->id.job != MUMPS_JOB_END && s->irn) /* initialised */
        mumps_call(s, MUMPS_JOB_END);
    free(s->irn);
    free(s->jcn);
    free(s->a);
    free(s->w_entry);
    free(s->j_entry);
    free(s->W);
    free(s->J);
    free(s->xl);
    free(s->xu);
    free(s->gl);
    free(s->gu);
    free(s->g);
    free(s->scale);
    free(s->rhs);
    free(s);
}

/* The structure: W's lower triangle (from p's Hessian mask, its diagonal
 * always), J (from the Jacobian mask), the constraint diagonal. */
static rs_error build_structure(rs_kkt_sensitivity *s, const rs_nlp_problem *p)
{
    const int n = s->n, m = s->m;
    unsigned char *jac_mask = malloc((size_t)m * n + 1), *hess_mask = malloc((size_t)n * n);
    if (!jac_mask || !hess_mask) {
        free(jac_mask);
        free(hess_mask);
        return RS_ERR_NOMEM;
    }
    memset(jac_mask, 1, (size_t)m * n + 1);
    memset(hess_mask, 1, (size_t)n * n);
    if (p->sparsity)
        p->sparsity(p->ctx, jac_mask, hess_mask);
    const size_t cap = (size_t)n * (n + 1) / 2 + (size_t)m * n + (size_t)m;
    s->irn = malloc(sizeof(int) * cap);
    s->jcn = malloc(sizeof(int) * cap);
    s->a = malloc(sizeof(double) * cap);
    rs_error err = (s->irn && s->jcn && s->a) ? RS_OK : RS_ERR_NOMEM;
    int k = 0;
    for (int j = 0; err == RS_OK && j < n; j++)
        for (int i = j; i < n; i++) {
            s->w_entry[i + (size_t)j * n] = -1;
            if (i == j || hess_mask[i + (size_t)j * n]) {
                s->w_entry[i + (size_t)j * n] = k;
                s->irn[k] = i + 1;
                s->jcn[k++] = j + 1;
            }
        }
    for (int c = 0; err == RS_OK && c < n; c++)
        for (int r = 0; r < m; r++) {
            s->j_entry[r + (size_t)c * m] = -1;
            if (jac_mask[r + (size_t)c * m]) {
                s->j_entry[r + (size_t)c * m] = k;
                s->irn[k] = n + r + 1;
                s->jcn[k++] = c + 1;
            }
        }
    for (int r = 0; err == RS_OK && r < m; r++) {
        s->irn[k] = n + r + 1;
        s->jcn[k++] = n + r + 1;
    }
    s->nnz = k;
    free(jac_mask);
    free(hess_mask);
    return err;
}

rs_error rs_kkt_sensitivity_create(const rs_nlp_problem *p, rs_kkt_sensitivity **out)
{
    if (!p || !out)
        return RS_ERR_NULL_ARG;
    *out = NULL;
    if (p->n < 1 || p->m < 0)
        return RS_ERR_DIMENSION;
    rs_kkt_sensitivity *s = calloc(1, sizeof *s);
    if (!s)
        return RS_ERR_NOMEM;
    const int n = p->n, m = p->m;
    s->n = n;
    s->m = m;
    s->dim = n + m;
    s->id.job = MUMPS_JOB_END; /* not initialised yet */
    s->w_entry = malloc(sizeof(int) * (size_t)n * n);
    s->j_entry = malloc(sizeof(int) * ((size_t)m * n + 1));
    s->W = malloc(sizeof(double) * (size_t)n * n);
    s->J = malloc(sizeof(double) * ((size_t)m * n + 1));
    s->xl = malloc(sizeof(double) * (size_t)n);
    s->xu = malloc(sizeof(double) * (size_t)n);
    s->gl = malloc(sizeof(double) * ((size_t)m + 1));
    s->gu = malloc(sizeof(double) * ((size_t)m + 1));
    s->g = malloc(sizeof(double) * ((size_t)m + 1));
    s->scale = malloc(sizeof(double) * (size_t)(n + m));
    rs_error err = (s->w_entry && s->j_entry && s->W && s->J && s->xl && s->xu && s->gl && s->gu &&
                    s->g && s->scale)
                       ? build_structure(s, p)
                       : RS_ERR_NOMEM;
    if (err != RS_OK) {
        rs_kkt_sensitivity_destroy(s);
        return err;
    }
    p->bounds(p->ctx, s->xl, s->xu, s->gl, s->gu);
    s->id.comm_fortran = MUMPS_USE_COMM_WORLD;
    s->id.par = 1; /* the host works */
    s->id.sym = 2; /* general symmetric (indefinite): LDL^T with 2 x 2 pivots */
    mumps_call(s, MUMPS_JOB_INIT);
    if (s->id.MUMPS_INFOG(1) < 0) {
        s->id.job = MUMPS_JOB_END; /* nothing to end */
        rs_kkt_sensitivity_destroy(s);
        return RS_ERR_NOMEM;
    }
    s->id.MUMPS_ICNTL(1) = -1; /* no output of any kind */
    s->id.MUMPS_ICNTL(2) = -1;
    s->id.MUMPS_ICNTL(3) = -1;
    s->id.MUMPS_ICNTL(4) = 0;
    /* iterative refinement: our own (rs_kkt_sensitivity_solve), over every right-hand side */
    s->id.n = s->dim;
    s->id.nnz = s->nnz;
    s->id.irn = s->irn;
    s->id.jcn = s->jcn;
    s->id.a = s->a;
    *out = s;
    return RS_OK;
}

/* v / a of a bound or constraint side with gap a and multiplier v (both >= 0 at
 * a solution), on the central path a v = mu: the larger of the two is kept, the
 * other follows (header). */
static double central_ratio(double gap, double mult, double mu)
{
    if (gap > 0.0 && mult > 0.0) /* an interior point's own pair (IPOPT's final iterate) */
        return mult / gap;
    const double a = fmax(gap, 0.0), v = fmax(mult, 0.0), floor = sqrt(mu);
    if (a >= v) {
        const double at = fmax(a, floor);
        return (mu / at) / at;
    }
    const double vt = fmax(v, floor);
    return vt / (mu / vt);
}

static int finite_bound(double b)
{
    return fabs(b) < RS_NLP_INF / 10.0;
}

static rs_kkt_sensitivity_status fail(rs_kkt_sensitivity_info *info, rs_kkt_sensitivity_status st,
                                      int mumps_error)
{
    info->status = st;
    info->mumps_error = mumps_error;
    return st;
}

rs_kkt_sensitivity_status rs_kkt_sensitivity_factor(rs_kkt_sensitivity *s, const rs_nlp_problem *p,
                                                    const double *x, const double *mult_g,
                                                    const double *mult_x_l, const double *mult_x_u,
                                                    double mu, rs_kkt_sensitivity_info *info)
{
    const int n = s->n, m = s->m;
    *info = (rs_kkt_sensitivity_info){RS_KKT_SENS_OK, 0, 0.0};
    s->factored = 0;
    if (!(mu > 0.0) || !isfinite(mu))
        return fail(info, RS_KKT_SENS_FAILED, 0);
    p->eval_hess(p->ctx, x, 1.0, mult_g, s->W);
    if (m > 0) {
        p->eval_jac(p->ctx, x, s->J);
        p->eval_g(p->ctx, x, s->g);
    }
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++)
            if (s->w_entry[i + (size_t)j * n] >= 0)
                s->a[s->w_entry[i + (size_t)j * n]] = s->W[i + (size_t)j * n];
    for (int i = 0; i < n; i++) { /* Sigma_x */
        double sigma = 0.0;
        if (finite_bound(s->xl[i]))
            sigma += central_ratio(x[i] - s->xl[i], mult_x_l[i], mu);
        if (finite_bound(s->xu[i]))
            sigma += central_ratio(s->xu[i] - x[i], mult_x_u[i], mu);
        s->a[s->w_entry[i + (size_t)i * n]] += sigma;
    }
    for (int c = 0; c < n; c++)
        for (int r = 0; r < m; r++)
            if (s->j_entry[r + (size_t)c * m] >= 0)
                s->a[s->j_entry[r + (size_t)c * m]] = s->J[r + (size_t)c * m];
    const int diag0 = s->nnz - m;
    for (int r = 0; r < m; r++) { /* -D: 0 for equalities, else minus 1 / (sum of v / a) */
        double sigma = 0.0;
        if (s->gl[r] != s->gu[r]) {
            /* IPOPT's sign convention: mult_g <= 0 pushes from the lower side, >= 0
             * the upper */
            if (finite_bound(s->gl[r]))
                sigma += central_ratio(s->g[r] - s->gl[r], -mult_g[r], mu);
            if (finite_bound(s->gu[r]))
                sigma += central_ratio(s->gu[r] - s->g[r], mult_g[r], mu);
        }
        s->a[diag0 + r] = sigma > 0.0 ? -1.0 / sigma : 0.0;
    }
    /* Scale a variable with a large diagonal (an active bound's Sigma ~ v^2 / mu) and a row with
     * a large D (an inactive constraint's gap^2 / mu) to diagonal 1, so that entries of 1e20 and
     * of 1 do not meet in one pivot. The solve's backward error is measured on this scaled
     * system, where every diagonal is at most 1 and a row's entries compare. */
    for (int i = 0; i < n; i++)
        s->scale[i] = 1.0 / sqrt(fmax(fabs(s->a[s->w_entry[i + (size_t)i * n]]), 1.0));
    for (int r = 0; r < m; r++)
        s->scale[n + r] = 1.0 / sqrt(fmax(fabs(s->a[diag0 + r]), 1.0));
    for (int k = 0; k < s->nnz; k++) {
        s->a[k] *= s->scale[s->irn[k] - 1] * s->scale[s->jcn[k] - 1];
        if (!isfinite(s->a[k]))
            return fail(info, RS_KKT_SENS_FAILED, 0);
    }
    mumps_call(s, s->analysed ? MUMPS_JOB_FACTOR : MUMPS_JOB_ANALYSE_FACTOR);
    const int e = s->id.MUMPS_INFOG(1);
    if (e < 0) {
        s->analysed = 0; /* analyse again next time (a failed analysis leaves
                            nothing to reuse) */
        return fail(info, e == -10 ? RS_KKT_SENS_SINGULAR : RS_KKT_SENS_FAILED, e);
    }
    s->analysed = 1;
    s->factored = 1;
    return RS_KKT_SENS_OK;
}

/* The normwise backward error of y for K~ y = b (K~ from its lower triangle in coordinates):
 * max_i |K~ y - b|_i / (max_i (|K~| |y|)_i + max_i |b_i|), the measure LAPACK's solvers
 * report. (A componentwise one cannot be met in rows whose terms cancel to nothing at mu.) */
static double relative_residual(const rs_kkt_sensitivity *s, const double *y, const double *b)
{
    const int dim = s->dim;
    double *r = calloc((size_t)dim * 2, sizeof(double));
    if (!r)
        return INFINITY;
    double *size = r + dim;
    for (int i = 0; i < dim; i++)
        r[i] = -b[i];
    for (int k = 0; k < s->nnz; k++) {
        const int i = s->irn[k] - 1, j = s->jcn[k] - 1;
        r[i] += s->a[k] * y[j];
        size[i] += fabs(s->a[k] * y[j]);
        if (i != j) {
            r[j] += s->a[k] * y[i];
            size[j] += fabs(s->a[k] * y[i]);
        }
    }
    double worst = 0.0, ky = 0.0, nb = 0.0;
    int finite = 1;
    for (int i = 0; i < dim; i++) {
        finite &= isfinite(r[i]) && isfinite(size[i]) && isfinite(y[i]);
        worst = fmax(worst, fabs(r[i]));
        ky = fmax(ky, size[i]);
        nb = fmax(nb, fabs(b[i]));
    }
    free(r);
    const double scale = ky + nb;
    if (!finite) /* fmax would skip a NaN row: a non-finite answer is never accurate */
        return INFINITY;
    return scale > 0.0 ? worst / scale : (worst == 0.0 ? 0.0 : INFINITY);
}

/* One pass over every column: first, y = K~^-1 b; else y += K~^-1 (b - K~ y). Returns the
 * largest normwise backward error of y before the pass (0 on the first; INFINITY when MUMPS
 * fails). */
static double refine(rs_kkt_sensitivity *s, int nrhs, const double *b, double *y, int first)
{
    const int dim = s->dim;
    double worst = 0.0, *r = s->rhs;
    for (int k = 0; k < nrhs; k++) {
        const double *yk = y + (size_t)k * dim, *bk = b + (size_t)k * dim;
        double *rk = r + (size_t)k * dim;
        memcpy(rk, bk, sizeof(double) * (size_t)dim);
        if (first)
            continue;
        worst = fmax(worst, relative_residual(s, yk, bk));
        for (int e = 0; e < s->nnz; e++) { /* r = b - K~ y */
            const int i = s->irn[e] - 1, j = s->jcn[e] - 1;
            rk[i] -= s->a[e] * yk[j];
            if (i != j)
                rk[j] -= s->a[e] * yk[i];
        }
    }
    s->id.nrhs = nrhs;
    s->id.lrhs = dim;
    s->id.rhs = r;
    mumps_call(s, MUMPS_JOB_SOLVE);
    if (s->id.MUMPS_INFOG(1) < 0)
        return INFINITY;
    for (size_t e = 0; e < (size_t)dim * nrhs; e++)
        y[e] = first ? r[e] : y[e] + r[e];
    return worst;
}

rs_kkt_sensitivity_status rs_kkt_sensitivity_solve(rs_kkt_sensitivity *s, int nrhs,
                                                   const double *dgrad, const double *dg,
                                                   double *dx, double *dmult_g,
                                                   rs_kkt_sensitivity_info *info)
{
    const int n = s->n, m = s->m, dim = s->dim;
    info->status = RS_KKT_SENS_OK;
    info->mumps_error = 0;
    info->residual = 0.0;
    if (!s->factored || nrhs < 1)
        return fail(info, RS_KKT_SENS_FAILED, 0);
    if (nrhs > s->rhs_cols) {
        double *grown = realloc(s->rhs, sizeof(double) * 3 * (size_t)dim * nrhs);
        if (!grown)
            return fail(info, RS_KKT_SENS_FAILED, 0);
        s->rhs = grown;
        s->rhs_cols = nrhs;
    }
    const size_t block = (size_t)dim * s->rhs_cols;
    double *b = s->rhs + block, *y = s->rhs + 2 * block; /* b~ = -S rhs; y~, with y = S y~ */
    double size[RS_KKT_SENS_MAX_RHS];
    if (nrhs > RS_KKT_SENS_MAX_RHS)
        return fail(info, RS_KKT_SENS_FAILED, 0);
    for (int k = 0; k < nrhs; k++) {
        /* each right-hand side solved at size 1 (a tangent decaying to 1e-300 would otherwise
         * be solved in subnormal numbers) and scaled back; a zero one has the answer 0 */
        double *bk = b + (size_t)k * dim;
        size[k] = 0.0;
        for (int i = 0; i < dim; i++) {
            bk[i] = -s->scale[i] * (i < n ? dgrad[i + (size_t)k * n] : dg[i - n + (size_t)k * m]);
            size[k] = fmax(size[k], fabs(bk[i]));
        }
        for (int i = 0; i < dim; i++)
            bk[i] = size[k] > 0.0 ? bk[i] / size[k] : 0.0;
    }
    /* the solve, then iterative refinement while the backward error is above rounding */
    double err = refine(s, nrhs, b, y, 1);
    for (int pass = 0; pass < 4 && err < INFINITY; pass++) {
        err = refine(s, nrhs, b, y, 0);
        if (err <= 1e-15)
            break;
    }
    if (!(err < INFINITY))
        return fail(info, RS_KKT_SENS_FAILED, s->id.MUMPS_INFOG(1));
    for (int k = 0; k < nrhs; k++) {
        const double *yk = y + (size_t)k * dim;
        info->residual = fmax(info->residual, relative_residual(s, yk, b + (size_t)k * dim));
        for (int i = 0; i < n; i++)
            dx[i + (size_t)k * n] = size[k] * s->scale[i] * yk[i];
        for (int r = 0; dmult_g && r < m; r++)
            dmult_g[r + (size_t)k * m] = size[k] * s->scale[n + r] * yk[n + r];
    }
    if (!isfinite(info->residual))
        return fail(info, RS_KKT_SENS_FAILED, 0);
    if (info->residual > RS_KKT_SENS_MAX_RESIDUAL)
        return fail(info, RS_KKT_SENS_INACCURATE, 0);
    return RS_KKT_SENS_OK;
}
