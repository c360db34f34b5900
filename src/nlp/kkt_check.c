/* kkt_check.c: the KKT conditions of a candidate point, with least-squares multipliers
 * (see kkt_check.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nlp/cholesky.h"
#include "nlp/kkt_check.h"
#include "nlp/kkt_check_internal.h"
#include "lcp/lcp_internal.h"

/* Column kinds: the multiplier y_c of column c, and where it goes in IPOPT's convention. */
enum { EQUALITY, G_LOWER, G_UPPER, X_LOWER, X_UPPER };

void rs_kkt_check_destroy(rs_kkt_check *c)
{
    if (!c)
        return;
    free(c->x_l);
    free(c->kind);
    free(c->jr);
    free(c->polish_buf);
    free(c->polish_idx);
    free(c);
}

rs_error rs_kkt_check_create(const rs_nlp_problem *p, rs_kkt_check **out)
{
    if (!p || !out)
        return RS_ERR_NULL_ARG;
    *out = NULL;
    if (p->n < 1 || p->m < 0)
        return RS_ERR_DIMENSION;
    const size_t n = (size_t)p->n, m = (size_t)p->m;
    rs_kkt_check *c = calloc(1, sizeof *c);
    if (!c)
        return RS_ERR_NOMEM;
    c->p = *p;
    c->triplets = p->structure != NULL;
    c->lsq = !c->triplets || n <= TRIPLET_LSQ_MAX;
    const size_t k = c->lsq ? 2 * n + m : 0; /* at most active */
    const size_t jsize = c->triplets ? (size_t)p->nnz_jac : m * n;
    c->x_l = malloc(sizeof(double) * (4 * n + 3 * m + jsize + n * k + k * k + 2 * k + 1));
    c->kind = malloc(sizeof(int) * (2 * k + 1));
    if (c->triplets)
        c->jr = malloc(sizeof(int) * (2 * (size_t)p->nnz_jac + 2 * (size_t)p->nnz_hess + m + 1));
    if (!c->x_l || !c->kind || (c->triplets && !c->jr)) {
        rs_kkt_check_destroy(c);
        return RS_ERR_NOMEM;
    }
    if (c->triplets) {
        c->jc = c->jr + p->nnz_jac;
        c->hr = c->jc + p->nnz_jac;
        c->hc = c->hr + p->nnz_hess;
        c->column_of_row = c->hc + p->nnz_hess;
    }
    c->x_u = c->x_l + n;
    c->grad = c->x_u + n;
    c->g_l = c->grad + n;
    c->g_u = c->g_l + m;
    c->g = c->g_u + m;
    c->J = c->g + m;
    c->A = c->J + jsize;
    c->G = c->A + n * k;
    c->y = c->G + k * k;
    c->dy = c->y + k;
    c->r = c->dy + k;
    c->index = c->kind + k;
    p->bounds(p->ctx, c->x_l, c->x_u, c->g_l, c->g_u);
    *out = c;
    return RS_OK;
}

/* Append column `sign` * v (n entries, stride `stride`) standing for (kind, index). */
static int add_column(rs_kkt_check *c, int k, int kind, int index, const double *v, size_t stride,
                      double sign)
{
    const int n = c->p.n;
    double *col = c->A + (size_t)k * n;
    for (int j = 0; j < n; j++)
        col[j] = sign * v[(size_t)j * stride];
    c->kind[k] = kind;
    c->index[k] = index;
    return k + 1;
}

/* The active set at x, as the columns of A: stationarity reads grad f + A y = 0 with y >= 0 for
 * every inequality column (the sign of a minimum is folded into the column). */
static int active_columns(rs_kkt_check *c, const double *x, double tol)
{
    const int n = c->p.n, m = c->p.m;
    int k = 0;
    static const double zero = 0.0;
    for (int i = 0; i < m; i++) {
        /* row i of the column-major J (stride m); with triplets, a zero column filled below */
        const double *row = c->triplets ? &zero : c->J + i;
        const size_t stride = c->triplets ? 0 : (size_t)m;
        const int k0 = k;
        if (c->g_l[i] == c->g_u[i])
            k = add_column(c, k, EQUALITY, i, row, stride, 1.0);
        else if (c->g[i] - c->g_l[i] <= tol) /* g >= g_l active: lambda = -y */
            k = add_column(c, k, G_LOWER, i, row, stride, -1.0);
        else if (c->g_u[i] - c->g[i] <= tol) /* g <= g_u active: lambda = y */
            k = add_column(c, k, G_UPPER, i, row, stride, 1.0);
        if (c->triplets)
            c->column_of_row[i] = k > k0 ? k0 : -1;
    }
    for (int e = 0; c->triplets && e < c->p.nnz_jac; e++) { /* the active rows' entries */
        const int col = c->column_of_row[c->jr[e]];
        if (col >= 0)
            c->A[c->jc[e] + (size_t)col * n] += (c->kind[col] == G_LOWER ? -1.0 : 1.0) * c->J[e];
    }
    for (int j = 0; j < n; j++) {
        const int lower = x[j] - c->x_l[j] <= tol, upper = c->x_u[j] - x[j] <= tol;
        if (!lower && !upper)
            continue;
        double *col = c->A + (size_t)k * n;
        memset(col, 0, sizeof(double) * (size_t)n);
        col[j] = lower ? -1.0 : 1.0; /* grad f - z_L e_j = 0 or grad f + z_U e_j = 0 */
        c->kind[k] = lower ? X_LOWER : X_UPPER;
        c->index[k++] = j;
    }
    return k;
}

/* v = -A^T (grad f + A y): the right-hand side of the normal equations for a correction of y. */
static void normal_rhs(const rs_kkt_check *c, int k, double *v)
{
    const int n = c->p.n;
    for (int j = 0; j < n; j++) {
        double r = c->grad[j];
        for (int a = 0; a < k; a++)
            r += c->A[j + (size_t)a * n] * c->y[a];
        c->r[j] = r;
    }
    for (int a = 0; a < k; a++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s -= c->A[j + (size_t)a * n] * c->r[j];
        v[a] = s;
    }
}

/* Least-squares multipliers: min |grad f + A y| by the normal equations (A^T A + ridge I),
 * Cholesky, then a few refinement passes that remove the ridge's bias (each pass multiplies
 * the error by about ridge / sigma_min^2; starting from y = 0 they converge to the
 * minimum-norm solution). 0 if the factorisation breaks down. */
static int least_squares(rs_kkt_check *c, int k)
{
    const int n = c->p.n;
    double dmax = 0.0;
    for (int a = 0; a < k; a++) {
        const double *ca = c->A + (size_t)a * n;
        for (int b = 0; b <= a; b++) {
            const double *cb = c->A + (size_t)b * n;
            double s = 0.0;
            for (int j = 0; j < n; j++)
                s += ca[j] * cb[j];
            c->G[a + (size_t)b * k] = s;
        }
        dmax = fmax(dmax, c->G[a + (size_t)a * k]);
    }
    if (!rs_cholesky_factor(c->G, k, 1e-12 * fmax(dmax, 1e-300)))
        return 0;
    memset(c->y, 0, sizeof(double) * (size_t)k);
    for (int pass = 0; pass < 4; pass++) {
        normal_rhs(c, k, c->dy);
        rs_cholesky_solve(c->G, k, c->dy);
        for (int a = 0; a < k; a++)
            c->y[a] += c->dy[a];
    }
    return rs_all_finite(c->y, (size_t)k);
}

/* IPOPT's optimality error of (x, multipliers), its termination test (Wachter and Biegler 2006,
 * eq. 5): max(dual / s_d, primal, complementarity / s_c), with s_d and s_c the multipliers'
 * average size over 100, at least 1. A multiplier with the wrong sign, or not finite, makes it
 * infinite (x, g, the gradient and the Jacobian are finite here: the caller checked them). */
static double optimality_error(const rs_kkt_check *c, const double *x, const double *mult_g,
                               const double *mult_x_l, const double *mult_x_u, double primal)
{
    const int n = c->p.n, m = c->p.m;
    if (!rs_all_finite(mult_g, (size_t)m) || !rs_all_finite(mult_x_l, (size_t)n) ||
        !rs_all_finite(mult_x_u, (size_t)n))
        return INFINITY;
    double sum_g = 0.0, sum_x = 0.0, dual = 0.0, compl = 0.0;
    for (int i = 0; i < m; i++) {
        const double l = mult_g[i];
        sum_g += fabs(l);
        if (c->g_l[i] == c->g_u[i])
            continue;
        /* g >= g_l pushes with l <= 0, g <= g_u with l >= 0; a finite side's slack times |l| */
        const double slack = l < 0.0 ? c->g[i] - c->g_l[i] : c->g_u[i] - c->g[i];
        if (l != 0.0 && !isfinite(slack))
            return INFINITY; /* a multiplier on a side without a bound */
        if (l != 0.0)
            compl = fmax(compl, slack * fabs(l));
    }
    for (int j = 0; j < n; j++) {
        if (mult_x_l[j] < 0.0 || mult_x_u[j] < 0.0)
            return INFINITY;
        sum_x += mult_x_l[j] + mult_x_u[j];
        if (mult_x_l[j] > 0.0)
            compl = fmax(compl, (x[j] - c->x_l[j]) * mult_x_l[j]);
        if (mult_x_u[j] > 0.0)
            compl = fmax(compl, (c->x_u[j] - x[j]) * mult_x_u[j]);
        double r = c->grad[j] - mult_x_l[j] + mult_x_u[j];
        for (int i = 0; !c->triplets && i < m; i++)
            r += c->J[i + (size_t)j * m] * mult_g[i];
        c->r[j] = r;
    }
    for (int e = 0; c->triplets && e < c->p.nnz_jac; e++) /* J^T mult_g, by its entries */
        c->r[c->jc[e]] += c->J[e] * mult_g[c->jr[e]];
    for (int j = 0; j < n; j++)
        dual = fmax(dual, fabs(c->r[j]));
    const double s_d = fmax(100.0, (sum_g + sum_x) / (m + 2 * n)) / 100.0;
    const double s_c = fmax(100.0, sum_x / (2 * n)) / 100.0;
    const double e = fmax(fmax(dual / s_d, primal), compl / s_c);
    return isnan(e) ? INFINITY : e;
}

/* The least-squares multipliers of the active set at x, in IPOPT's convention. An inequality
 * whose multiplier comes out negative is taken out of the active set (its multiplier 0) and the
 * rest solved again, most negative first: a simple active-set form of nonnegative least
 * squares; the optimality error then judges what is left. */
static int least_squares_multipliers(rs_kkt_check *c, const double *x, double tol,
                                     double *mult_g, double *mult_x_l, double *mult_x_u)
{
    const int n = c->p.n, m = c->p.m;
    int k = active_columns(c, x, tol);
    for (;;) { /* drop the most negative inequality multiplier's column until none is left */
        if (k > 0 && !least_squares(c, k))
            return 0;
        int worst = -1;
        for (int a = 0; a < k; a++)
            if (c->kind[a] != EQUALITY && c->y[a] < 0.0 && (worst < 0 || c->y[a] < c->y[worst]))
                worst = a;
        if (worst < 0)
            break;
        k--;
        memmove(c->A + (size_t)worst * n, c->A + (size_t)(worst + 1) * n,
                sizeof(double) * (size_t)n * (size_t)(k - worst));
        memmove(c->kind + worst, c->kind + worst + 1, sizeof(int) * (size_t)(k - worst));
        memmove(c->index + worst, c->index + worst + 1, sizeof(int) * (size_t)(k - worst));
    }
    memset(mult_g, 0, sizeof(double) * (size_t)m);
    memset(mult_x_l, 0, sizeof(double) * (size_t)n);
    memset(mult_x_u, 0, sizeof(double) * (size_t)n);
    for (int a = 0; a < k; a++) {
        const double y = c->y[a], yp = fmax(y, 0.0);
        switch (c->kind[a]) {
        case EQUALITY: mult_g[c->index[a]] = y; break;
        case G_LOWER: mult_g[c->index[a]] = -yp; break;
        case G_UPPER: mult_g[c->index[a]] = yp; break;
        case X_LOWER: mult_x_l[c->index[a]] = yp; break;
        case X_UPPER: mult_x_u[c->index[a]] = yp; break;
        }
    }
    return 1;
}

/* The multipliers of a point whose constraints carry none (mult_g = 0): each variable within tol of
 * a bound takes the objective's gradient there as that bound's multiplier, when it pushes into
 * the bound. A polished point's exact multipliers are these (kkt_polish.c), so that a polished
 * solution met again (a body at rest) passes the test with them at any size. */
static void gradient_multipliers(const rs_kkt_check *c, const double *x, double tol,
                                 double *mult_g, double *mult_x_l, double *mult_x_u)
{
    memset(mult_g, 0, sizeof(double) * (size_t)c->p.m);
    for (int j = 0; j < c->p.n; j++) {
        const double gj = c->grad[j];
        mult_x_l[j] = x[j] - c->x_l[j] <= tol && gj > 0.0 ? gj : 0.0;
        mult_x_u[j] = c->x_u[j] - x[j] <= tol && gj < 0.0 ? -gj : 0.0;
    }
}

int rs_kkt_check_point(rs_kkt_check *c, const double *x, double tol, int given, double *mult_g,
                       double *mult_x_l, double *mult_x_u)
{
    const rs_nlp_problem *p = &c->p;
    const int n = p->n, m = p->m;
    if (!rs_all_finite(x, (size_t)n))
        return 0;
    double primal = 0.0;
    for (int j = 0; j < n; j++)
        primal = fmax(primal, fmax(c->x_l[j] - x[j], x[j] - c->x_u[j]));
    if (m > 0) {
        p->eval_g(p->ctx, x, c->g);
        if (!rs_all_finite(c->g, (size_t)m))
            return 0; /* fmax below would drop a NaN */
        for (int i = 0; i < m; i++)
            primal = fmax(primal, fmax(c->g_l[i] - c->g[i], c->g[i] - c->g_u[i]));
    }
    if (!(primal <= tol))
        return 0;
    p->eval_grad_f(p->ctx, x, c->grad);
    const size_t jsize = c->triplets ? (size_t)p->nnz_jac : (size_t)m * (size_t)n;
    if (m > 0 && c->triplets) {
        p->structure(p->ctx, c->jr, c->jc, c->hr, c->hc);
        p->jac_values(p->ctx, x, c->J);
    } else if (m > 0) {
        p->eval_jac(p->ctx, x, c->J);
    }
    if (!rs_all_finite(c->grad, (size_t)n) || !rs_all_finite(c->J, m > 0 ? jsize : 0))
        return 0;
    if (given && optimality_error(c, x, mult_g, mult_x_l, mult_x_u, primal) <= tol)
        return 1;
    if (!c->lsq) { /* too large for dense least squares: a polished point's multipliers */
        gradient_multipliers(c, x, tol, mult_g, mult_x_l, mult_x_u);
        return optimality_error(c, x, mult_g, mult_x_l, mult_x_u, primal) <= tol;
    }
    return least_squares_multipliers(c, x, tol, mult_g, mult_x_l, mult_x_u) &&
           optimality_error(c, x, mult_g, mult_x_l, mult_x_u, primal) <= tol;
}
