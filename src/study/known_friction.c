/* known_friction.c: learning the sliding block's step from known friction (known_friction.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/detail.h"
#include "core/timer.h"
#include "io/scenario.h"
#include "nlp/dense.h"
#include "nlp/ipopt_solver.h"
#include "sim/dataset.h"
#include "study/known_friction.h"

#define NF RS_KF_FEATURES
#define NT (2 * NF) /* the coefficients: row 0's nine, then row 1's */

/* sliding_block_direct's dataset columns: x, v+, v-, u, z (v+', v-'), w (lambda'-, lambda'+),
 * then x', v+', v-' */
enum { C_VP = 1, C_VM = 2, C_U = 3, C_W1 = 6, C_W2 = 7, C_NVP = 9, C_NVM = 10, NCOL = 11 };

const char *rs_kf_variant_name(int variant)
{
    return variant == 0 ? "direct" : variant == 1 ? "slack" : "unknown";
}

void rs_kf_config_default(rs_kf_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->train_steps = 300;
    cfg->test_steps = 300;
    const double noise[] = {0.0, 1e-6, 1e-4, 1e-2};
    cfg->nnoise = 4;
    memcpy(cfg->noise, noise, sizeof noise);
    const double alpha[3][3] = {{1, 0, 0}, {1, 1, 1}, {1, 100, 100}};
    cfg->nweight = 3;
    memcpy(cfg->alpha, alpha, sizeof alpha);
    cfg->noise_seed = 1;
    cfg->stick_tol = 1e-8;
    cfg->eps = 1e-5;
}

/* One data set in the fit's terms: per row the features, the variant's lambda and the target
 * (xd+', xd-'). */
typedef struct kf_data {
    int n;
    double *phi; /* n x NF */
    double *lam; /* n x 2 */
    double *y;   /* n x 2 */
} kf_data;

static void features(double xd, double u, const double *lam, double *phi)
{
    const double base[3] = {1.0, xd, u};
    for (int j = 0; j < 3; j++) {
        phi[j] = base[j];
        phi[3 + j] = base[j] * lam[0];
        phi[6 + j] = base[j] * lam[1];
    }
}

/* Rows of a dataset (values: measured, or clean) as variant's data; mu_mg = mu m g. */
static void to_data(const double *rows, int n, int variant, double mu_mg, kf_data *d)
{
    d->n = n;
    for (int k = 0; k < n; k++) {
        const double *r = rows + (size_t)k * NCOL;
        double *lam = d->lam + 2 * k;
        if (variant == 0) { /* the friction components (lambda+, lambda-) */
            lam[0] = mu_mg - r[C_W2];
            lam[1] = mu_mg - r[C_W1];
        } else { /* the slack friction (lambda'-, lambda'+) = w */
            lam[0] = r[C_W1];
            lam[1] = r[C_W2];
        }
        features(r[C_VP] - r[C_VM], r[C_U], lam, d->phi + (size_t)k * NF);
        d->y[2 * k] = r[C_NVP];
        d->y[2 * k + 1] = r[C_NVM];
    }
}

static int data_alloc(kf_data *d, int n)
{
    d->phi = malloc(sizeof(double) * (size_t)n * (NF + 4));
    d->lam = d->phi + (size_t)n * NF;
    d->y = d->lam + 2 * (size_t)n;
    return d->phi != NULL;
}

static double predict(const double *theta_row, const double *phi)
{
    double s = 0.0;
    for (int j = 0; j < NF; j++)
        s += theta_row[j] * phi[j];
    return s;
}

/* The note's cost (unsmoothed) of coefficients theta (SI) on data d. */
static double note_cost(const double theta[2][NF], const kf_data *d, const double *alpha)
{
    double c = 0.0;
    for (int k = 0; k < d->n; k++) {
        double e2 = 0.0;
        for (int i = 0; i < 2; i++) {
            const double xh = predict(theta[i], d->phi + (size_t)k * NF);
            e2 += (xh - d->y[2 * k + i]) * (xh - d->y[2 * k + i]);
            c += alpha[1] * fabs(d->lam[2 * k + i] * xh) + alpha[2] * fmax(0.0, -xh);
        }
        c += alpha[0] * sqrt(e2);
    }
    return c;
}

/* ---- the fit as an NLP, in scaled variables ----------------------------------------------
 * tau_ij = theta_ij s_j / V, features phi_j / s_j, targets y / V, lambda / L (L its RMS); slacks
 * p (= |lambda xhat| / (L V)) and q (= max(0, -xhat) / V). Objective: the note's cost / (N V). */
typedef struct kf_nlp {
    int N, np, nq, n, m;
    const double *phit; /* N x NF, scaled */
    const double *yt;   /* N x 2 */
    const double *lt;   /* N x 2 */
    double a1, a2, a3, L, eps;
} kf_nlp;

static double xi(const kf_nlp *c, const double *tau, int k, int i)
{
    return predict(tau + i * NF, c->phit + (size_t)k * NF);
}

static void nlp_bounds(void *ctx, double *x_l, double *x_u, double *g_l, double *g_u)
{
    const kf_nlp *c = ctx;
    for (int v = 0; v < c->n; v++) {
        x_l[v] = v < NT ? -RS_NLP_INF : 0.0;
        x_u[v] = RS_NLP_INF;
    }
    for (int r = 0; r < c->m; r++) {
        g_l[r] = 0.0;
        g_u[r] = RS_NLP_INF;
    }
}

/* |rho_k| smoothed and its pieces: rho = xi - y, S = sqrt(|rho|^2 + eps^2). */
static double residual(const kf_nlp *c, const double *tau, int k, double rho[2])
{
    for (int i = 0; i < 2; i++)
        rho[i] = xi(c, tau, k, i) - c->yt[2 * k + i];
    return sqrt(rho[0] * rho[0] + rho[1] * rho[1] + c->eps * c->eps);
}

static double nlp_f(void *ctx, const double *x)
{
    const kf_nlp *c = ctx;
    double f = 0.0, rho[2];
    for (int k = 0; k < c->N; k++)
        f += c->a1 * (residual(c, x, k, rho) - c->eps);
    for (int v = 0; v < c->np; v++)
        f += c->a2 * c->L * x[NT + v];
    for (int v = 0; v < c->nq; v++)
        f += c->a3 * x[NT + c->np + v];
    return f / c->N;
}

static void nlp_grad(void *ctx, const double *x, double *g)
{
    const kf_nlp *c = ctx;
    memset(g, 0, sizeof(double) * (size_t)c->n);
    double rho[2];
    for (int k = 0; k < c->N; k++) {
        const double S = residual(c, x, k, rho);
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < NF; j++)
                g[i * NF + j] += c->a1 * rho[i] / S * c->phit[(size_t)k * NF + j] / c->N;
    }
    for (int v = 0; v < c->np; v++)
        g[NT + v] = c->a2 * c->L / c->N;
    for (int v = 0; v < c->nq; v++)
        g[NT + c->np + v] = c->a3 / c->N;
}

/* Rows: for each (k, i), with a2 > 0: p - l xi >= 0 and p + l xi >= 0 (rows 2 (2k + i) and the
 * next); with a3 > 0: q + xi >= 0 (rows 2 np + 2k + i, or 2k + i without p). */
static int q_row(const kf_nlp *c, int ki)
{
    return 2 * c->np + ki;
}

static void nlp_g(void *ctx, const double *x, double *g)
{
    const kf_nlp *c = ctx;
    for (int k = 0; k < c->N; k++)
        for (int i = 0; i < 2; i++) {
            const int ki = 2 * k + i;
            const double s = xi(c, x, k, i);
            if (c->np) {
                g[2 * ki] = x[NT + ki] - c->lt[ki] * s;
                g[2 * ki + 1] = x[NT + ki] + c->lt[ki] * s;
            }
            if (c->nq)
                g[q_row(c, ki)] = x[NT + c->np + ki] + s;
        }
}

static void nlp_jac(void *ctx, const double *x, double *J)
{
    (void)x;
    const kf_nlp *c = ctx;
    rs_dense_zero(J, c->m, c->n);
    for (int k = 0; k < c->N; k++)
        for (int i = 0; i < 2; i++) {
            const int ki = 2 * k + i;
            const double *ph = c->phit + (size_t)k * NF;
            for (int j = 0; j < NF; j++) {
                if (c->np) {
                    rs_jac_set(J, c->m, 2 * ki, i * NF + j, -c->lt[ki] * ph[j]);
                    rs_jac_set(J, c->m, 2 * ki + 1, i * NF + j, c->lt[ki] * ph[j]);
                }
                if (c->nq)
                    rs_jac_set(J, c->m, q_row(c, ki), i * NF + j, ph[j]);
            }
            if (c->np) {
                rs_jac_set(J, c->m, 2 * ki, NT + ki, 1.0);
                rs_jac_set(J, c->m, 2 * ki + 1, NT + ki, 1.0);
            }
            if (c->nq)
                rs_jac_set(J, c->m, q_row(c, ki), NT + c->np + ki, 1.0);
        }
}

/* The constraints are linear: only the smoothed norms have curvature,
 *     d2 S / d rho_i d rho_i' = delta_ii' / S - rho_i rho_i' / S^3,   rho_i = phit . tau_i - y_i.
 */
static void nlp_hess(void *ctx, const double *x, double obj_factor, const double *lambda, double *H)
{
    (void)lambda;
    const kf_nlp *c = ctx;
    rs_dense_zero(H, c->n, c->n);
    double rho[2];
    for (int k = 0; k < c->N; k++) {
        const double S = residual(c, x, k, rho), *ph = c->phit + (size_t)k * NF;
        for (int i = 0; i < 2; i++)
            for (int ii = 0; ii <= i; ii++) {
                const double w = obj_factor * c->a1 / c->N *
                                 ((i == ii ? 1.0 / S : 0.0) - rho[i] * rho[ii] / (S * S * S));
                for (int j = 0; j < NF; j++)
                    for (int jj = 0; jj < NF; jj++) {
                        const int a = i * NF + j, b = ii * NF + jj;
                        if (a >= b)
                            rs_hess_add(H, c->n, a, b, w * ph[j] * ph[jj]);
                    }
            }
    }
}

static void nlp_sparsity(void *ctx, unsigned char *jac, unsigned char *hess)
{
    const kf_nlp *c = ctx;
    memset(jac, 0, (size_t)c->m * (size_t)c->n);
    memset(hess, 0, (size_t)c->n * (size_t)c->n);
    for (int ki = 0; ki < 2 * c->N; ki++) {
        const int i = ki % 2;
        for (int j = 0; j < NF; j++) {
            if (c->np) {
                jac[2 * ki + (size_t)(i * NF + j) * c->m] = 1;
                jac[2 * ki + 1 + (size_t)(i * NF + j) * c->m] = 1;
            }
            if (c->nq)
                jac[q_row(c, ki) + (size_t)(i * NF + j) * c->m] = 1;
        }
        if (c->np) {
            jac[2 * ki + (size_t)(NT + ki) * c->m] = 1;
            jac[2 * ki + 1 + (size_t)(NT + ki) * c->m] = 1;
        }
        if (c->nq)
            jac[q_row(c, ki) + (size_t)(NT + c->np + ki) * c->m] = 1;
    }
    for (int a = 0; a < NT; a++)
        for (int b = 0; b <= a; b++)
            hess[a + (size_t)b * c->n] = 1;
}

/* Solve the SPD system A x = b (n x n, row-major, overwritten) by Cholesky; 0 if not SPD. */
static int cholesky_solve(int n, double *A, double *b)
{
    for (int j = 0; j < n; j++) {
        double d = A[j * n + j];
        for (int k = 0; k < j; k++)
            d -= A[j * n + k] * A[j * n + k];
        if (!(d > 0.0))
            return 0;
        A[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            double s = A[i * n + j];
            for (int k = 0; k < j; k++)
                s -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = s / A[j * n + j];
        }
    }
    for (int i = 0; i < n; i++) { /* L y = b */
        for (int k = 0; k < i; k++)
            b[i] -= A[i * n + k] * b[k];
        b[i] /= A[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) { /* L' x = y */
        for (int k = i + 1; k < n; k++)
            b[i] -= A[k * n + i] * b[k];
        b[i] /= A[i * n + i];
    }
    return 1;
}

/* The scaled features' Gram matrix G = sum phit phit' / N (row-major NF x NF). */
static void gram(const kf_nlp *c, double *G)
{
    memset(G, 0, sizeof(double) * NF * NF);
    for (int k = 0; k < c->N; k++)
        for (int a = 0; a < NF; a++)
            for (int b = 0; b < NF; b++)
                G[a * NF + b] += c->phit[(size_t)k * NF + a] * c->phit[(size_t)k * NF + b] / c->N;
}

/* The least-squares coefficients (the fit's start): per row, the normal equations. 0 if the
 * features are rank-deficient. */
static int least_squares(const kf_nlp *c, double *tau)
{
    for (int i = 0; i < 2; i++) {
        double G[NF * NF], *b = tau + i * NF;
        gram(c, G);
        memset(b, 0, sizeof(double) * NF);
        for (int k = 0; k < c->N; k++)
            for (int j = 0; j < NF; j++)
                b[j] += c->phit[(size_t)k * NF + j] * c->yt[2 * k + i] / c->N;
        if (!cholesky_solve(NF, G, b))
            return 0;
    }
    return 1;
}

/* sqrt of the ratio of the extreme eigenvalues of the Gram matrix (cyclic Jacobi): the
 * condition number of the scaled feature matrix. */
static double condition(const kf_nlp *c)
{
    double A[NF * NF];
    gram(c, A);
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0.0;
        for (int p = 0; p < NF; p++)
            for (int q = p + 1; q < NF; q++)
                off += A[p * NF + q] * A[p * NF + q];
        if (off < 1e-30)
            break;
        for (int p = 0; p < NF; p++)
            for (int q = p + 1; q < NF; q++) {
                if (A[p * NF + q] == 0.0)
                    continue;
                const double th = (A[q * NF + q] - A[p * NF + p]) / (2 * A[p * NF + q]);
                const double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1));
                const double cs = 1 / sqrt(t * t + 1), sn = t * cs;
                for (int k = 0; k < NF; k++) { /* columns p, q */
                    const double akp = A[k * NF + p], akq = A[k * NF + q];
                    A[k * NF + p] = cs * akp - sn * akq;
                    A[k * NF + q] = sn * akp + cs * akq;
                }
                for (int k = 0; k < NF; k++) { /* rows p, q */
                    const double apk = A[p * NF + k], aqk = A[q * NF + k];
                    A[p * NF + k] = cs * apk - sn * aqk;
                    A[q * NF + k] = sn * apk + cs * aqk;
                }
            }
    }
    double lo = INFINITY, hi = 0.0;
    for (int p = 0; p < NF; p++) {
        lo = fmin(lo, A[p * NF + p]);
        hi = fmax(hi, A[p * NF + p]);
    }
    return lo > 0.0 ? sqrt(hi / lo) : INFINITY;
}

/* Scales of the training data: each feature's RMS (s), the targets' (V) and lambda's (L). */
typedef struct kf_scales {
    double s[NF], V, L;
} kf_scales;

static void data_scales(const kf_data *d, kf_scales *sc)
{
    double ss[NF] = {0}, yy = 0.0, ll = 0.0;
    for (int k = 0; k < d->n; k++) {
        for (int j = 0; j < NF; j++)
            ss[j] += d->phi[(size_t)k * NF + j] * d->phi[(size_t)k * NF + j];
        yy += d->y[2 * k] * d->y[2 * k] + d->y[2 * k + 1] * d->y[2 * k + 1];
        ll += d->lam[2 * k] * d->lam[2 * k] + d->lam[2 * k + 1] * d->lam[2 * k + 1];
    }
    for (int j = 0; j < NF; j++)
        sc->s[j] = ss[j] > 0.0 ? sqrt(ss[j] / d->n) : 1.0;
    sc->V = yy > 0.0 ? sqrt(yy / (2.0 * d->n)) : 1.0;
    sc->L = ll > 0.0 ? sqrt(ll / (2.0 * d->n)) : 1.0;
}

/* Fit one variant at one noise level and weighting; the held-out evaluation follows. */
static void fit_one(const kf_data *train, const kf_data *test_clean, const kf_scales *sc,
                    const double theta_true[2][NF], const double *alpha, const rs_kf_config *cfg,
                    rs_kf_fit *out)
{
    const int N = train->n;
    memset(out, 0, sizeof *out);
    out->status = RS_NLP_OTHER_FAILURE;
    kf_nlp c = {
        .N = N, .a1 = alpha[0], .a2 = alpha[1], .a3 = alpha[2], .L = sc->L, .eps = cfg->eps};
    c.np = alpha[1] > 0.0 ? 2 * N : 0;
    c.nq = alpha[2] > 0.0 ? 2 * N : 0;
    c.n = NT + c.np + c.nq;
    c.m = 2 * c.np + c.nq;
    for (int i = 0; i < 2; i++) /* no fit (no memory, rank-deficient data): nothing to report */
        for (int j = 0; j < NF; j++)
            out->theta[i][j] = NAN;
    out->coef_error = out->cost = out->test_rms = NAN;
    out->cost_truth = note_cost(theta_true, train, alpha);
    double *buf = calloc((size_t)N * (NF + 4) + (size_t)c.n, sizeof(double));
    if (!buf)
        return;
    double *phit = buf, *yt = phit + (size_t)N * NF, *lt = yt + 2 * (size_t)N;
    double *x = lt + 2 * (size_t)N;
    for (int k = 0; k < N; k++) {
        for (int j = 0; j < NF; j++)
            phit[(size_t)k * NF + j] = train->phi[(size_t)k * NF + j] / sc->s[j];
        for (int i = 0; i < 2; i++) {
            yt[2 * k + i] = train->y[2 * k + i] / sc->V;
            lt[2 * k + i] = train->lam[2 * k + i] / sc->L;
        }
    }
    c.phit = phit;
    c.yt = yt;
    c.lt = lt;
    if (!least_squares(&c, x)) {
        free(buf);
        return;
    }
    for (int k = 0; k < N; k++) /* slacks just above their bounds at the start */
        for (int i = 0; i < 2; i++) {
            const int ki = 2 * k + i;
            const double s = xi(&c, x, k, i);
            if (c.np)
                x[NT + ki] = fabs(lt[ki] * s) + 1e-3;
            if (c.nq)
                x[NT + c.np + ki] = fmax(0.0, -s) + 1e-3;
        }
    rs_nlp_problem p = {.n = c.n,
                        .m = c.m,
                        .natural_units = 1,
                        .dense_columns = 1, /* the coefficients, in every row */
                        .ctx = &c,
                        .bounds = nlp_bounds,
                        .eval_f = nlp_f,
                        .eval_grad_f = nlp_grad,
                        .eval_g = nlp_g,
                        .eval_jac = nlp_jac,
                        .eval_hess = nlp_hess,
                        .sparsity = nlp_sparsity};
    rs_nlp_settings st;
    rs_nlp_settings_default(&st);
    st.tol = 1e-10;
    st.max_iter = 3000;
    rs_ipopt_solver *solver;
    if (rs_ipopt_create(&p, &st, &solver) == RS_OK) {
        out->status = rs_ipopt_solve(solver, x, 0, NULL, &out->iterations);
        rs_ipopt_destroy(solver);
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < NF; j++) {
            out->theta[i][j] = x[i * NF + j] * sc->V / sc->s[j];
            out->coef_error =
                fmax(out->coef_error, fabs(out->theta[i][j] - theta_true[i][j]) * sc->s[j] / sc->V);
        }
    if (!rs_nlp_status_ok(out->status))
        out->coef_error = NAN; /* no fit: nothing to compare */
    out->cost = note_cost((const double(*)[NF])out->theta, train, alpha);
    const double stick_tol = cfg->stick_tol * sc->V;
    double e2 = 0.0;
    for (int k = 0; k < test_clean->n; k++) {
        const double *ph = test_clean->phi + (size_t)k * NF, *y = test_clean->y + 2 * k;
        double xh[2];
        for (int i = 0; i < 2; i++) {
            xh[i] = predict(out->theta[i], ph);
            e2 += (xh[i] - y[i]) * (xh[i] - y[i]);
        }
        const int stuck = y[0] == 0.0 && y[1] == 0.0;
        const int affine = fabs(xh[0] - xh[1]) <= stick_tol;
        const int clamped = fabs(fmax(0.0, xh[0]) - fmax(0.0, xh[1])) <= stick_tol;
        out->stick_affine += stuck && affine;
        out->stick_clamped += stuck && clamped;
        out->false_stick_affine += !stuck && affine;
        out->false_stick_clamped += !stuck && clamped;
    }
    out->test_rms = sqrt(e2 / (2.0 * test_clean->n)) / sc->V;
    free(buf);
}

static rs_error check_config(const rs_kf_config *cfg)
{
    if (cfg->train_steps < 20 || cfg->train_steps > RS_KF_MAX_STEPS || cfg->test_steps < 20 ||
        cfg->test_steps > RS_KF_MAX_STEPS || cfg->nnoise < 1 || cfg->nnoise > RS_KF_MAX_NOISES ||
        cfg->nweight < 1 || cfg->nweight > RS_KF_MAX_WEIGHTS || !(cfg->stick_tol > 0.0) ||
        !(cfg->eps > 0.0 && cfg->eps <= 1.0))
        return RS_ERR_BAD_SETTING;
    for (int i = 0; i < cfg->nnoise; i++)
        if (!(cfg->noise[i] >= 0.0 && cfg->noise[i] <= 1.0))
            return RS_ERR_BAD_SETTING;
    for (int w = 0; w < cfg->nweight; w++)
        if (!(cfg->alpha[w][0] > 0.0 && cfg->alpha[w][1] >= 0.0 && cfg->alpha[w][2] >= 0.0 &&
              cfg->alpha[w][0] <= 1e6 && cfg->alpha[w][1] <= 1e6 && cfg->alpha[w][2] <= 1e6))
            return RS_ERR_BAD_SETTING;
    return RS_OK;
}

/* The dataset of sc with steps rows, at the noise level; RS_OK or the error. */
static rs_error record(rs_scenario *sc, int steps, double noise, uint64_t seed, rs_dataset *d)
{
    sc->steps = steps;
    const rs_error err = rs_dataset_record(sc, noise, seed, d);
    if (err == RS_OK && d->failed_step >= 0) {
        rs_dataset_free(d);
        return RS_ERR_BAD_ARG; /* Lemke failed a step: no data */
    }
    return err;
}

rs_error rs_kf_run(const char *scenario_path, const rs_kf_config *cfg, rs_kf_result *out,
                   rs_error_detail *detail)
{
    memset(out, 0, sizeof *out);
    rs_detail_clear(detail);
    if (check_config(cfg) != RS_OK)
        return rs_detail_set(detail, RS_ERR_BAD_SETTING, "settings out of range");
    rs_scenario sc; /* 23 kB, like held below */
    if (rs_scenario_load(scenario_path, NULL, 0, &sc, detail) != RS_OK)
        return RS_ERR_BAD_ARG;
    rs_error err = RS_OK;
    if (strcmp(sc.model->name, "sliding_block_direct") != 0)
        err = rs_detail_set(detail, RS_ERR_BAD_ARG,
                            "%s: the known-friction fit needs a sliding_block_direct scenario",
                            scenario_path);
    else if (sc.input.kind != RS_INPUT_RANDOM)
        err = rs_detail_set(detail, RS_ERR_BAD_ARG,
                            "%s: the known-friction fit needs [input] type = random (the "
                            "held-out data are the same scenario with another seed)",
                            scenario_path);
    const double t0 = rs_wall_seconds();
    out->m = sc.params[0];
    out->g = sc.params[1];
    out->mu = sc.params[2];
    out->dt = sc.dt;
    const double c = sc.dt / out->m, mu_mg = out->mu * out->m * out->g;
    const double truth[RS_KF_VARIANTS][2][NF] = {
        {{0, 1, c, 0, 0, 0, -c, 0, 0}, {0, -1, -c, -c, 0, 0, 0, 0, 0}},
        {{-c * mu_mg, 1, c, c, 0, 0, 0, 0, 0}, {-c * mu_mg, -1, -c, 0, 0, 0, c, 0, 0}}};
    memcpy(out->theta_true, truth, sizeof truth);
    rs_dataset test = {0}, clean = {0};
    kf_data train_d = {0}, test_d = {0};
    if (err == RS_OK) {
        rs_scenario held = sc;
        held.input.seed = sc.input.seed + 1000003u; /* another push sequence */
        err = record(&held, cfg->test_steps, 0.0, 0, &test);
        if (err == RS_OK)
            err = record(&sc, cfg->train_steps, 0.0, 0, &clean);
        if (err == RS_OK &&
            (!data_alloc(&train_d, cfg->train_steps) || !data_alloc(&test_d, cfg->test_steps)))
            err = RS_ERR_NOMEM;
        if (err != RS_OK)
            rs_detail_set(detail, err, "%s: %s", scenario_path,
                          err == RS_ERR_BAD_ARG ? "Lemke failed a step of the data"
                                                : rs_error_string(err));
    }
    for (int v = 0; err == RS_OK && v < RS_KF_VARIANTS; v++) {
        to_data(test.values, test.rows, v, mu_mg, &test_d);
        to_data(clean.values, clean.rows, v, mu_mg, &train_d);
        kf_scales scales;
        data_scales(&train_d, &scales); /* the noise-free data's scales, for every noise level */
        if (v == 0) {
            out->speed_rms = scales.V;
            out->train_steps = train_d.n;
            out->test_steps = test_d.n;
            for (int k = 0; k < train_d.n; k++)
                out->train_stuck += train_d.y[2 * k] == 0.0 && train_d.y[2 * k + 1] == 0.0;
            for (int k = 0; k < test_d.n; k++)
                out->test_stuck += test_d.y[2 * k] == 0.0 && test_d.y[2 * k + 1] == 0.0;
        }
        {
            kf_nlp cn = {.N = train_d.n};
            double *phit = malloc(sizeof(double) * (size_t)train_d.n * NF);
            if (!phit) {
                err = rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
                break;
            }
            for (int k = 0; k < train_d.n; k++)
                for (int j = 0; j < NF; j++)
                    phit[(size_t)k * NF + j] = train_d.phi[(size_t)k * NF + j] / scales.s[j];
            cn.phit = phit;
            out->cond[v] = condition(&cn);
            free(phit);
        }
        for (int s = 0; s < cfg->nnoise; s++) {
            rs_dataset noisy;
            err =
                record(&sc, cfg->train_steps, cfg->noise[s], cfg->noise_seed + (uint64_t)s, &noisy);
            if (err != RS_OK) {
                rs_detail_set(detail, err, "%s: the data with noise %g: %s", scenario_path,
                              cfg->noise[s], err == RS_ERR_BAD_ARG ? "Lemke failed a step"
                                                                    : rs_error_string(err));
                break;
            }
            to_data(noisy.values, noisy.rows, v, mu_mg, &train_d);
            rs_dataset_free(&noisy);
            for (int w = 0; w < cfg->nweight; w++) {
                const long total = (long)RS_KF_VARIANTS * cfg->nnoise * cfg->nweight;
                rs_study_report(&cfg->progress, ((long)v * cfg->nnoise + s) * cfg->nweight + w,
                                total);
                fit_one(&train_d, &test_d, &scales, truth[v], cfg->alpha[w], cfg,
                        &out->fit[v][s][w]);
            }
        }
    }
    free(train_d.phi);
    free(test_d.phi);
    rs_dataset_free(&test);
    rs_dataset_free(&clean);
    rs_scenario_release(&sc);
    rs_study_report(&cfg->progress, 1, 1); /* the end (also of a run stopped by an error) */
    out->time_s = rs_wall_seconds() - t0;
    return err;
}
