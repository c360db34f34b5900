/* lcp_relaxation.c: an LCP as a relaxed-complementarity NLP (see lcp_relaxation.h), and
 * rs_lcp_solve_relaxed, which solves one LCP that way with IPOPT. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nlp/lcp_relaxation.h"
#include "core/detail.h"
#include "core/timer.h"
#include "lcp/lcp_internal.h"
#include "nlp/ipopt_solver.h"
#include "nlp/smooth.h"

/* w_i = (M z + q)_i */
static double row_w(const rs_lcp_relaxation *r, const double *z, int i)
{
    double w = r->q[i];
    for (int j = 0; j < r->n; j++)
        w += r->M[i + (size_t)j * r->n] * z[j];
    return w;
}

static void relax_bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    const rs_lcp_relaxation *r = ctx;
    for (int i = 0; i < 2 * r->n; i++) {
        x_l[i] = 0.0; /* z >= 0, s >= 0 */
        x_u[i] = RS_NLP_INF;
        g_l[i] = 0.0; /* w >= 0, s - z w >= 0 */
        g_u[i] = RS_NLP_INF;
    }
}

static double relax_f(void *ctx, const double *x)
{
    const rs_lcp_relaxation *r = ctx;
    double f = 0.0;
    for (int i = 0; i < r->n; i++)
        f += rs_penalty(&r->settings, x[r->n + i]);
    return f;
}

static void relax_grad_f(void *ctx, const double *x, double *grad)
{
    const rs_lcp_relaxation *r = ctx;
    for (int i = 0; i < r->n; i++) {
        grad[i] = 0.0;
        grad[r->n + i] = rs_penalty_d1(&r->settings, x[r->n + i]);
    }
}

static void relax_g(void *ctx, const double *x, double *g)
{
    const rs_lcp_relaxation *r = ctx;
    for (int i = 0; i < r->n; i++) {
        g[i] = row_w(r, x, i);
        g[r->n + i] = x[r->n + i] - x[i] * g[i];
    }
}

void rs_lcp_relaxation_param_derivative(const rs_lcp_relaxation *r, const double *dM,
                                        const double *dq, const double *x, const double *mult_g,
                                        double *dgrad, double *dg)
{
    const int n = r->n;
    for (int i = 0; i < n; i++) {
        double dw = dq[i];
        for (int j = 0; j < n; j++)
            dw += dM[i + (size_t)j * n] * x[j];
        dg[i] = dw;
        dg[n + i] = -x[i] * dw;
    }
    for (int j = 0; j < n; j++) {
        double v = -mult_g[n + j] * dg[j];
        for (int i = 0; i < n; i++)
            v += (mult_g[i] - mult_g[n + i] * x[i]) * dM[i + (size_t)j * n];
        dgrad[j] = v;
        dgrad[n + j] = 0.0;
    }
}

/* dw_i/dz_j = M_ij;  dc_i/dz_j = -(delta_ij w_i + z_i M_ij);  dc_i/ds_i = 1. */
static void relax_jac(void *ctx, const double *x, double *J)
{
    const rs_lcp_relaxation *r = ctx;
    const int n = r->n, m = 2 * n;
    memset(J, 0, sizeof(double) * (size_t)m * (size_t)m);
    for (int i = 0; i < n; i++) {
        const double wi = row_w(r, x, i);
        for (int j = 0; j < n; j++) {
            const double Mij = r->M[i + (size_t)j * n];
            J[i + (size_t)j * m] = Mij;
            J[(n + i) + (size_t)j * m] = -x[i] * Mij - (i == j ? wi : 0.0);
        }
        J[(n + i) + (size_t)(n + i) * m] = 1.0;
    }
}

/* Only c_i = s_i - z_i (M z + q)_i is curved in z:  d2 c_i / dz_a dz_b = -(d_ia M_ib + d_ib M_ia),
 * so H_zz(a, b) = -(lambda_c,a M_ab + lambda_c,b M_ba); the penalty adds its curvature on s. */
static void relax_hess(void *ctx, const double *x, double obj_factor, const double *lambda,
                       double *H)
{
    (void)x;
    const rs_lcp_relaxation *r = ctx;
    const int n = r->n, nv = 2 * n;
    memset(H, 0, sizeof(double) * (size_t)nv * (size_t)nv);
    const double *lc = lambda + n;
    for (int b = 0; b < n; b++)
        for (int a = b; a < n; a++)
            H[a + (size_t)b * nv] = -(lc[a] * r->M[a + (size_t)b * n] + lc[b] * r->M[b + (size_t)a * n]);
    for (int i = 0; i < n; i++)
        H[(n + i) + (size_t)(n + i) * nv] = obj_factor * rs_penalty_d2(&r->settings);
}

void rs_lcp_relaxation_problem(rs_lcp_relaxation *r, rs_nlp_problem *p)
{
    memset(p, 0, sizeof *p); /* every field the NLP does not set: none */
    p->n = 2 * r->n;
    p->m = 2 * r->n;
    p->natural_units = 0; /* M and q as given (rs_lcp_solve_relaxed equilibrates its own copy) */
    p->ctx = r;
    p->bounds = relax_bounds;
    p->eval_f = relax_f;
    p->eval_grad_f = relax_grad_f;
    p->eval_g = relax_g;
    p->eval_jac = relax_jac;
    p->eval_hess = relax_hess;
    p->sparsity = NULL; /* dense */
}

void rs_lcp_relaxation_guess(const rs_lcp_relaxation *r, double shift, double *x)
{
    for (int i = 0; i < r->n; i++)
        x[i] = 1.0 + shift;
    for (int i = 0; i < r->n; i++)
        x[r->n + i] = fmax(0.0, x[i] * row_w(r, x, i)) + 1.0;
}

/*
 * Ruiz equilibration: positive diagonal D (rows) and C (columns) such that D M C has rows and
 * columns of inf-norm near 1. LCP(M, q) and LCP(D M C, D q) have the same solutions up to
 * z = C z' (D w = D M C z' + D q keeps the signs of w and z and their complementarity). Then
 * D q is divided by its inf-norm b and C multiplied by it (LCP(A, D q / b) is solved by z' / b),
 * so that the NLP sees a problem of unit size whatever the scale of q.
 */
static void equilibrate(int n, const double *M, const double *q, double *Ms, double *qs,
                        double *D, double *C)
{
    const size_t nn = (size_t)n;
    memcpy(Ms, M, sizeof(double) * nn * nn);
    for (int i = 0; i < n; i++)
        D[i] = C[i] = 1.0;
    for (int pass = 0; pass < 20; pass++) {
        for (int i = 0; i < n; i++) { /* row scaling */
            double r = 0.0;
            for (int j = 0; j < n; j++)
                r = fmax(r, fabs(Ms[i + j * nn]));
            const double f = r > 0.0 ? 1.0 / sqrt(r) : 1.0;
            D[i] *= f;
            for (int j = 0; j < n; j++)
                Ms[i + j * nn] *= f;
        }
        for (int j = 0; j < n; j++) { /* column scaling */
            double c = 0.0;
            for (int i = 0; i < n; i++)
                c = fmax(c, fabs(Ms[i + j * nn]));
            const double f = c > 0.0 ? 1.0 / sqrt(c) : 1.0;
            C[j] *= f;
            for (int i = 0; i < n; i++)
                Ms[i + j * nn] *= f;
        }
    }
    double b = 0.0;
    for (int i = 0; i < n; i++) {
        qs[i] = D[i] * q[i];
        b = fmax(b, fabs(qs[i]));
    }
    if (b > 0.0)
        for (int i = 0; i < n; i++) {
            qs[i] /= b;
            C[i] *= b;
        }
}

rs_error rs_lcp_solve_relaxed(int n, const double *M, const double *q,
                              const rs_nlp_settings *settings, double cert_tol, double *z,
                              double *w, rs_lcp_certificate *cert, rs_nlp_info *info,
                              rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!M || !q || !z || !w || !cert || !info)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "rs_lcp_solve_relaxed: %s is NULL",
                             !M ? "M" : !q ? "q" : !z ? "z" : !w ? "w" : !cert ? "cert" : "info");
    if (n < 1 || n > 2000)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "rs_lcp_solve_relaxed: n = %d, outside "
                                                       "[1, 2000]", n);
    rs_error err = RS_SIZE_OK(cert, rs_lcp_certificate, "cert", detail);
    if (err == RS_OK)
        err = RS_SIZE_OK(info, rs_nlp_info, "info", detail);
    if (err == RS_OK && settings && settings->size != sizeof *settings)
        err = RS_SETTINGS_SIZE_OK(settings, rs_nlp_settings, "settings", detail);
    if (err != RS_OK)
        return err;
    if (!rs_all_finite(M, (size_t)n * (size_t)n) || !rs_all_finite(q, (size_t)n))
        return rs_detail_set(detail, RS_ERR_NONFINITE, "rs_lcp_solve_relaxed: %s has a NaN or an "
                                                       "infinity",
                             rs_all_finite(M, (size_t)n * (size_t)n) ? "q" : "M");
    if (!(cert_tol > 0.0 && cert_tol < 1.0))
        return rs_detail_set(detail, RS_ERR_BAD_SETTING,
                             "rs_lcp_solve_relaxed: cert_tol = %g, outside (0, 1)", cert_tol);
    const size_t nn = (size_t)n;
    double *x = malloc(sizeof(double) * (nn * nn + 8 * nn)); /* x, M and q scaled, D, C, and
                                                                the certificate's scratch */
    if (!x)
        return rs_detail_set(detail, RS_ERR_NOMEM, "rs_lcp_solve_relaxed: no memory for n = %d", n);
    double *Ms = x + 2 * nn, *qs = Ms + nn * nn, *D = qs + nn, *C = D + nn, *scratch = C + nn;
    equilibrate(n, M, q, Ms, qs, D, C);
    rs_lcp_relaxation r;
    r.n = n;
    r.M = Ms;
    r.q = qs;
    if (settings)
        r.settings = *settings;
    else
        rs_nlp_settings_default(&r.settings);
    rs_nlp_problem p;
    rs_lcp_relaxation_problem(&r, &p);
    rs_ipopt_solver *solver;
    const char *field = NULL;
    err = rs_nlp_settings_validate(&r.settings, &field);
    if (err != RS_OK)
        rs_detail_set(detail, err, "rs_lcp_solve_relaxed: settings->%s is out of its range (nlp.h)",
                      field ? field : "?");
    else if ((err = rs_ipopt_create(&p, &r.settings, &solver)) != RS_OK)
        rs_detail_set(detail, err, "rs_lcp_solve_relaxed: IPOPT's problem could not be created");
    if (err != RS_OK) {
        free(x);
        return err;
    }
    const double t0 = rs_wall_seconds();
    rs_nlp_info out = {.size = sizeof out};
    /* First attempt from z = 1; each retry starts from a different point (z = 1 + attempt). */
    for (int attempt = 0; attempt <= r.settings.retries; attempt++) {
        rs_lcp_relaxation_guess(&r, (double)attempt, x);
        int iters = 0;
        out.status = rs_ipopt_solve(solver, x, 0, &out.ipopt_status, &iters);
        out.iterations += iters;
        out.attempts = attempt + 1;
        for (int i = 0; i < n; i++)
            z[i] = C[i] * fmax(x[i], 0.0); /* unscale; IPOPT honours bounds to within 1e-8 */
        rs_lcp_residual(n, M, q, z, w);
        rs_lcp_certificate_of(n, M, q, z, w, cert_tol, scratch, cert);
        if (rs_nlp_status_ok(out.status) && !cert->passed)
            out.status = RS_NLP_NOT_CERTIFIED;
        if (rs_nlp_status_ok(out.status))
            break;
    }
    out.solve_time_s = rs_wall_seconds() - t0;
    out.primal_infeasibility = fmax(0.0, -fmin(cert->min_w, 0.0));
    out.complementarity = cert->max_complementarity;
    *info = out;
    free(x);
    rs_ipopt_destroy(solver);
    return RS_OK;
}
