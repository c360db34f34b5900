/*
 * kkt_polish.c: the polish of an NLP answer on its active set (see kkt_check.h).
 *
 * IPOPT's answer is interior: a complementarity pair whose two sides both vanish at the
 * solution (a contact that touches without pressing, a friction direction that carries no
 * force) ends with both sides near sqrt(mu), mu IPOPT's final barrier parameter (about 1e-11 at
 * tol = 1e-10: a few 1e-6 in natural units), which leaves a resting body creeping and two bodies
 * drifting apart after an inelastic impact. The polish reads the active set off that answer and
 * solves it exactly: every variable within delta of a bound is put on the bound, every equality
 * and every constraint within delta of a bound is held at it, and the free variables move by
 * minimum-norm Gauss-Newton steps
 *
 *     d = -A^+ r,    A = the held rows' Jacobian in the free columns, r their residual,
 *
 * (A kept sparse, as the Jacobian's entries; normal equations A^T A or A A^T in the smaller of
 * the two dimensions, a ridge of 1e-12 of their largest diagonal and refinement passes, as the
 * KKT test's least squares), until a step no longer cuts the residual tenfold. The held rows
 * must then hold to tol, IPOPT's own primal tolerance (the rounding of the state a step starts
 * from, a gap's last bits, can leave the rows of redundant contacts, or a wall's row and the
 * dynamics', 1e-11 apart); a larger residual means inconsistent rows (a pair classified on the
 * wrong side), and IPOPT's answer stands. The polished point is returned only when it is a
 * solution of the same NLP, by a certificate that needs no solver: every bound and constraint
 * holds to tol, the objective is no larger than at x, and its gradient lies on the variables
 * held at their bounds, pushing into them. Then mult_g = 0 and bound multipliers equal to that gradient satisfy the KKT
 * conditions exactly. In a relaxed-complementarity program this is the case when every
 * penalised slack is at 0: the objective is at its floor, and the point a global minimiser.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lcp/lcp_internal.h"
#include "nlp/cholesky.h"
#include "nlp/kkt_check.h"
#include "nlp/kkt_check_internal.h"

#define NEWTON_STEPS 8
#define REFINE_PASSES 4

/* The active set's system: nnz entries (row ei, column ej, value ev) of A (kR x kF), grouped
 * by row (A^T A) or by column (A A^T) through at/start. */
typedef struct held_system {
    int kR, kF, nnz, by_row, k; /* k = kF (by_row) or kR: the normal equations' size */
    int *ei, *ej, *at, *start;
    double *ev;
} held_system;

/* The real workspace, grown with the normal matrix (k x k); NULL if out of memory. (The integer
 * one, fixed by the problem, is allocated at the first polish: 2 n + m for the classification,
 * three per entry of the Jacobian and the group starts.) */
static double *workspace(rs_kkt_check *c, int k, int big)
{
    const rs_nlp_problem *p = &c->p;
    const size_t nnz = c->triplets ? (size_t)p->nnz_jac : (size_t)p->m * (size_t)p->n;
    const size_t need = (size_t)p->m + nnz + (size_t)k * (size_t)k + 5 * (size_t)big + 1;
    if (need > c->polish_cap) {
        double *more = realloc(c->polish_buf, sizeof(double) * need);
        if (!more)
            return NULL;
        c->polish_buf = more;
        c->polish_cap = need;
    }
    return c->polish_buf;
}

/* A at x: the held rows' Jacobian entries in the free columns, grouped for the normal
 * equations (a counting sort on the row or the column). */
static void held_jacobian(rs_kkt_check *c, const double *x, const int *rowpos, const int *colpos,
                          held_system *h)
{
    const rs_nlp_problem *p = &c->p;
    int nnz = 0;
    if (c->triplets) {
        p->structure(p->ctx, c->jr, c->jc, c->hr, c->hc);
        p->jac_values(p->ctx, x, c->J);
        for (int e = 0; e < p->nnz_jac; e++) {
            const int i = rowpos[c->jr[e]], j = colpos[c->jc[e]];
            if (i >= 0 && j >= 0 && c->J[e] != 0.0) {
                h->ei[nnz] = i;
                h->ej[nnz] = j;
                h->ev[nnz++] = c->J[e];
            }
        }
    } else {
        p->eval_jac(p->ctx, x, c->J);
        for (int jj = 0; jj < p->n; jj++)
            for (int ii = 0; colpos[jj] >= 0 && ii < p->m; ii++) {
                const double v = c->J[ii + (size_t)jj * p->m];
                if (rowpos[ii] >= 0 && v != 0.0) {
                    h->ei[nnz] = rowpos[ii];
                    h->ej[nnz] = colpos[jj];
                    h->ev[nnz++] = v;
                }
            }
    }
    h->nnz = nnz;
    const int groups = h->by_row ? h->kR : h->kF;
    const int *key = h->by_row ? h->ei : h->ej;
    memset(h->start, 0, sizeof(int) * ((size_t)groups + 1));
    for (int e = 0; e < nnz; e++)
        h->start[key[e] + 1]++;
    for (int g = 0; g < groups; g++)
        h->start[g + 1] += h->start[g];
    for (int e = 0; e < nnz; e++) /* (start[g] runs ahead, then back by one group) */
        h->at[h->start[key[e]]++] = e;
    for (int g = groups; g > 0; g--)
        h->start[g] = h->start[g - 1];
    h->start[0] = 0;
}

/* d = -A^+ r (kF): the minimum-norm least-squares step of A d = -r. 0 if the factor fails. */
static int min_norm_step(const held_system *h, const double *r, double *G, double *y, double *e,
                         double *d)
{
    const int k = h->k, groups = h->by_row ? h->kR : h->kF;
    const int *other = h->by_row ? h->ej : h->ei; /* the normal matrix's index of an entry */
    memset(G, 0, sizeof(double) * (size_t)k * (size_t)k);
    for (int g = 0; g < groups; g++) /* sum over a row (or column) of its entries' products */
        for (int a = h->start[g]; a < h->start[g + 1]; a++)
            for (int b = h->start[g]; b <= a; b++) {
                const int ea = h->at[a], eb = h->at[b];
                const int hi = other[ea] > other[eb] ? other[ea] : other[eb];
                const int lo = other[ea] + other[eb] - hi;
                G[hi + (size_t)lo * k] += h->ev[ea] * h->ev[eb] * (a == b || hi != lo ? 1.0 : 2.0);
            }
    double dmax = 0.0;
    for (int a = 0; a < k; a++)
        dmax = fmax(dmax, G[a + (size_t)a * k]);
    if (!rs_cholesky_factor(G, k, 1e-12 * fmax(dmax, 1e-300)))
        return 0;
    memset(d, 0, sizeof(double) * (size_t)h->kF);
    memset(y, 0, sizeof(double) * (size_t)k);
    double *rhs = e + h->kR;
    for (int pass = 0; pass < REFINE_PASSES; pass++) {
        for (int i = 0; i < h->kR; i++) /* e = -r - A d, the current step's residual */
            e[i] = -r[i];
        for (int t = 0; t < h->nnz; t++)
            e[h->ei[t]] -= h->ev[t] * d[h->ej[t]];
        if (h->by_row) { /* (A^T A) dd = A^T e */
            memset(rhs, 0, sizeof(double) * (size_t)k);
            for (int t = 0; t < h->nnz; t++)
                rhs[h->ej[t]] += h->ev[t] * e[h->ei[t]];
            rs_cholesky_solve(G, k, rhs);
            for (int j = 0; j < k; j++)
                d[j] += rhs[j];
        } else { /* (A A^T) dy = e, d = A^T y */
            memcpy(rhs, e, sizeof(double) * (size_t)k);
            rs_cholesky_solve(G, k, rhs);
            for (int i = 0; i < k; i++)
                y[i] += rhs[i];
            memset(d, 0, sizeof(double) * (size_t)h->kF);
            for (int t = 0; t < h->nnz; t++)
                d[h->ej[t]] += h->ev[t] * y[h->ei[t]];
        }
    }
    return rs_all_finite(d, (size_t)h->kF);
}
/* The largest residual of the held rows at x (g evaluated into c->g), their residuals in r. */
static double held_residual(rs_kkt_check *c, const double *x, const int *rowpos,
                            const double *target, double *r)
{
    const rs_nlp_problem *p = &c->p;
    double res = 0.0;
    if (p->m > 0)
        p->eval_g(p->ctx, x, c->g);
    for (int i = 0; i < p->m; i++)
        if (rowpos[i] >= 0) {
            r[rowpos[i]] = c->g[i] - target[i];
            if (!(fabs(r[rowpos[i]]) <= INFINITY))
                return INFINITY; /* a NaN row (fmax would drop it) */
            res = fmax(res, fabs(r[rowpos[i]]));
        }
    return res;
}

int rs_kkt_polish(rs_kkt_check *c, const double *x, double delta, double tol, double *xp,
                  double *mult_g, double *mult_x_l, double *mult_x_u)
{
    const rs_nlp_problem *p = &c->p;
    const int n = p->n, m = p->m;
    if (!rs_all_finite(x, (size_t)n))
        return 0;
    const size_t nnz = c->triplets ? (size_t)p->nnz_jac : (size_t)m * (size_t)n;
    const size_t ints = 2 * (size_t)n + (size_t)m + 3 * nnz + (size_t)(n > m ? n : m) + 2;
    if (!c->polish_idx && !(c->polish_idx = malloc(sizeof(int) * ints)))
        return 0;
    int *side = c->polish_idx, *colpos = side + n, *rowpos = colpos + n;
    /* the active set at x: variables on their bounds, rows held at theirs */
    int kF = 0, kR = 0;
    for (int j = 0; j < n; j++) {
        side[j] = x[j] - c->x_l[j] <= delta ? -1 : c->x_u[j] - x[j] <= delta ? 1 : 0;
        xp[j] = side[j] < 0 ? c->x_l[j] : side[j] > 0 ? c->x_u[j] : x[j];
        colpos[j] = side[j] ? -1 : kF++;
    }
    if (m > 0) {
        p->eval_g(p->ctx, x, c->g);
        if (!rs_all_finite(c->g, (size_t)m))
            return 0;
    }
    for (int i = 0; i < m; i++)
        rowpos[i] = c->g_l[i] == c->g_u[i] || c->g[i] - c->g_l[i] <= delta ||
                            c->g_u[i] - c->g[i] <= delta
                        ? kR++
                        : -1;
    const int big = kR > kF ? kR : kF;
    held_system h = {kR, kF, 0, kF <= kR, kF <= kR ? kF : kR, NULL, NULL, NULL, NULL, NULL};
    if ((double)h.k * (double)h.k > RS_POLISH_MAX_ENTRIES)
        return 0;
    double *target = workspace(c, h.k, big);
    if (!target)
        return 0;
    h.ei = rowpos + m;
    h.ej = h.ei + nnz;
    h.at = h.ej + nnz;
    h.start = h.at + nnz;
    h.ev = target + m;
    double *G = h.ev + nnz, *y = G + (size_t)h.k * (size_t)h.k;
    double *r = y + big, *d = r + big, *e = d + big; /* e: 2 big (a residual, a right-hand side) */
    for (int i = 0; i < m; i++) /* the bound each held row is held at */
        target[i] = c->g_l[i] == c->g_u[i] || c->g[i] - c->g_l[i] <= delta ? c->g_l[i] : c->g_u[i];
    const double res_max = tol;
    double res = held_residual(c, xp, rowpos, target, r);
    /* Gauss-Newton until a step no longer cuts the residual tenfold: the rows' rounding floor
     * (or, above res_max, inconsistent rows: a pair put on the wrong side). A product row
     * s - z w with both factors free is driven to 0 itself, not to res_max: its smaller factor
     * goes to 0 (a step moves each factor by about the residual over the other). */
    for (int step = 0; step < NEWTON_STEPS && res > 0.0; step++) {
        if (kF == 0)
            break;
        held_jacobian(c, xp, rowpos, colpos, &h);
        if (!rs_all_finite(h.ev, (size_t)h.nnz) || !min_norm_step(&h, r, G, y, e, d))
            return 0;
        for (int j = 0; j < n; j++)
            if (colpos[j] >= 0)
                xp[j] += d[colpos[j]];
        const double before = res;
        res = held_residual(c, xp, rowpos, target, r);
        if (res > before) { /* a step that made it worse is taken back */
            for (int j = 0; j < n; j++)
                if (colpos[j] >= 0)
                    xp[j] -= d[colpos[j]];
            res = held_residual(c, xp, rowpos, target, r);
            break;
        }
        if (!(res <= 0.1 * before))
            break;
    }
    if (!(res <= res_max))
        return 0;
    /* the certificate: feasible to tol (c->g holds g(xp)), objective no larger, gradient on the
     * bounds held */
    for (int j = 0; j < n; j++)
        if (!(xp[j] >= c->x_l[j] - tol && xp[j] <= c->x_u[j] + tol))
            return 0;
    for (int i = 0; i < m; i++)
        if (!(c->g[i] >= c->g_l[i] - tol && c->g[i] <= c->g_u[i] + tol))
            return 0;
    if (!(p->eval_f(p->ctx, xp) <= p->eval_f(p->ctx, x)))
        return 0;
    p->eval_grad_f(p->ctx, xp, c->grad);
    for (int j = 0; j < n; j++) {
        const double gj = c->grad[j];
        if (!(side[j] < 0 ? gj >= -tol : side[j] > 0 ? gj <= tol : fabs(gj) <= tol))
            return 0;
        mult_x_l[j] = side[j] < 0 ? fmax(gj, 0.0) : 0.0;
        mult_x_u[j] = side[j] > 0 ? fmax(-gj, 0.0) : 0.0;
    }
    memset(mult_g, 0, sizeof(double) * (size_t)m);
    return 1;
}
