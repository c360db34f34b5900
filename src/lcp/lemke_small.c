/*
 * lemke_small.c: the cold Lemke solve of a small problem (n <= RS_LEMKE_SMALL_MAX), the size of
 * most contact steps, written for speed.
 *
 * It follows the path lemke.c takes (the same unit scale, first leaving row, lexicographic rule
 * and certificate; see the header of lemke.c for the method) and answers only when that path
 * ends in a complementary basis whose z passes its certificate without refinement. Everything
 * else (a ray, a breakdown, a path long enough to be watched for cycling, the pivot limit, a
 * scale that would lose entries, an answer its certificate refuses) returns 0, and the general
 * solve runs from the start: it handles those cases as it always has.
 *
 * Where it differs from lemke.c, for speed at n = 2 to 8:
 *  - A tableau. The columns T_v = B^-1 A_v of the nonbasic variables are kept up to date, so the
 *    entering column is read, not computed as B^-1 A_e (a product on the path of every pivot).
 *    Only nonbasic columns are kept: there are n + 1 of them (2n + 1 variables, n basic), a basic
 *    variable's column is a unit vector, and only a nonbasic variable can enter. When a basic
 *    variable leaves from row r its column was e_r, so after the pivot it is the pivot's eta
 *    column: -a_i / a_r off row r, 1 / a_r on it.
 *  - The ratios as products by 1 / a_i. The n divisions are independent of one another, and the
 *    pivot's 1 / a_r is one of them. A ratio may differ from rhs_i / a_i in its last bit, far
 *    inside the tie tolerance.
 *  - The last pivot (z0 leaving) updates the basic values only: no column is read again.
 * So its rounding differs from lemke.c's at the level of the last bits of z; the path (pivot for
 * pivot) is the same except where two ratios tie to within rounding.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "lcp/lemke_internal.h"

/* The largest n, as an array size. */
enum { K = RS_LEMKE_SMALL_MAX };

/* The pivoting, from the first pivot (z0 enters at row r, w_r leaves) to termination, on the
 * unit-scale problem (qu, du, M times mf). Returns the complementary pivots made (>= 0) with the
 * basic values in rhs and the basis in basis, or -1 where the general solve must decide. */
LEMKE_INLINE int lemke_small_path(const int n, const double *M, double mf, const double *qu,
                                  const double *du, int r, const rs_lemke_settings *s,
                                  double *rhs, int *basis)
{
    const int max_pivots = lemke_pivot_limit(s, n);
    const double tie_tol = s->tie_tol, pivot_tol = s->pivot_tol;
    /* T: column v (column-major, length n) for a nonbasic variable v; nb lists them */
    double T[K * (2 * K + 1)], a[K], inverse[K], ratio[K];
    int nb[K + 1], cand[K];
    for (int j = 0; j < n; j++) { /* z_j: -M_j at unit scale */
        for (int i = 0; i < n; i++)
            T[(n + j) * n + i] = -(M[(size_t)j * (size_t)n + (size_t)i] * mf);
        nb[j] = n + j;
    }
    for (int i = 0; i < n; i++) { /* z0: -d */
        T[2 * n * n + i] = -du[i];
        rhs[i] = qu[i];
        basis[i] = i; /* w */
    }
    nb[n] = 2 * n;
    int entering = 2 * n, slot = n; /* nb[slot] == entering */
    int leaving = r, z0_row = r, count = 0;
    basis[r] = 2 * n;
    double inv = 1.0 / T[2 * n * n + r];
    for (;;) {
        /* pivot on row r: a = T_entering becomes e_r */
        for (int i = 0; i < n; i++)
            a[i] = T[entering * n + i];
        const double rr = rhs[r] * inv;
        for (int i = 0; i < n; i++)
            rhs[i] -= a[i] * rr;
        rhs[r] = rr;
        if (count > 0 && leaving == 2 * n)
            break; /* z0 left: a complementary basis, and no column is needed again */
        for (int c = 0; c <= n; c++) {
            if (c == slot)
                continue;
            double *Tv = T + nb[c] * n;
            const double b = Tv[r] * inv;
            for (int i = 0; i < n; i++)
                Tv[i] -= a[i] * b;
            Tv[r] = b;
        }
        double *Tl = T + leaving * n; /* the leaving variable's column was e_r */
        for (int i = 0; i < n; i++)
            Tl[i] = -(a[i] * inv);
        Tl[r] = inv;
        nb[slot] = leaving;
        if (count > 0 && r == z0_row)
            z0_row = -1;
        if (count >= max_pivots || count >= LEMKE_WATCH_AFTER(n))
            return -1;

        /* the complement of the leaving variable enters */
        entering = leaving < n ? leaving + n : leaving - n;
        for (slot = 0; nb[slot] != entering; slot++)
            ;
        const double *e = T + entering * n;
        double a_inf = 0.0;
        for (int i = 0; i < n; i++)
            a_inf = rs_max2(a_inf, fabs(e[i]));
        const double a_min = pivot_tol * a_inf;
        double best = INFINITY;
        for (int i = 0; i < n; i++) {
            inverse[i] = 1.0 / e[i];
            ratio[i] = e[i] > a_min ? rs_max2(rhs[i], 0.0) * inverse[i] : INFINITY;
            best = ratio[i] < best ? ratio[i] : best;
        }
        if (!(a_inf > 0.0) || !(best < INFINITY))
            return -1; /* a ray */
        /* rows tied with the best (ratio - best <= tie_tol max(1, best): lemke.c's tied) */
        const double band = tie_tol * rs_max2(1.0, best);
        int nc = 0, z0_tied = 0;
        for (int i = 0; i < n; i++)
            if (ratio[i] - best <= band) {
                cand[nc++] = i;
                z0_tied |= i == z0_row;
            }
        r = cand[0];
        if (z0_tied) {
            r = z0_row; /* z0 leaves at once */
        } else if (nc > 1) {
            /* B^-1 for the lexicographic rule: column k is T_k, or e_p where w_k is basic in
             * row p */
            double B[K * K];
            for (int k = 0; k < n * n; k++)
                B[k] = 0.0;
            for (int c = 0; c <= n; c++)
                if (nb[c] < n)
                    for (int i = 0; i < n; i++)
                        B[nb[c] * n + i] = T[nb[c] * n + i];
            for (int p = 0; p < n; p++)
                if (basis[p] < n)
                    B[basis[p] * n + p] = 1.0;
            r = lemke_tie_break(n, e, B, cand, nc, tie_tol);
        }
        inv = inverse[r];
        leaving = basis[r];
        basis[r] = entering;
        count++;
    }
    return rs_all_finite(rhs, (size_t)n) ? count : -1; /* a NaN or an infinity stays to the end */
}

/* rs_lemke_small_solve with n a constant (always inlined into lemke_small_sized). */
LEMKE_INLINE int lemke_small(const int n, const double *M, const double *q, const double *d,
                             const rs_lemke_settings *s, double *z, double *w,
                             rs_lemke_info *info)
{
    double zero = 0.0; /* x * 0: 0 while every entry is finite, NaN otherwise */
    for (int k = 0; k < n * n; k++)
        zero += M[k] * 0.0;
    for (int i = 0; i < n; i++)
        zero += q[i] * 0.0;
    if (zero != 0.0)
        return -1;

    /* The certificate's equilibration of M (lemke.c: lemke_unit_scale); its first pass finds
     * the extent of M */
    double D[K], C[K];
    rs_lcp_extent m;
    const double m_inf = rs_lcp_equilibrate(n, M, D, C, NULL, &m);

    /* The unit scale: M / 2^a, q / 2^b, d / 2^c, powers of two just above their largest
     * entries; a problem whose smallest nonzero entry would fall below the normal range goes to
     * the general solve, which keeps it as given */
    double q_max = 0.0, q_min = INFINITY, d_max = 1.0, d_min = 1.0;
    for (int i = 0; i < n; i++) {
        const double aq = fabs(q[i]);
        q_max = rs_max2(q_max, aq);
        q_min = aq > 0.0 && aq < q_min ? aq : q_min;
    }
    if (d) {
        d_max = 0.0;
        d_min = INFINITY;
        for (int i = 0; i < n; i++) {
            d_max = rs_max2(d_max, d[i]);
            d_min = rs_min2(d_min, d[i]);
        }
    }
    const int ea = rs_unit_exponent(m.max), eb = rs_unit_exponent(q_max);
    const double mf = rs_power_of_two(-ea), fb = rs_power_of_two(-eb),
                 fc = rs_power_of_two(-rs_unit_exponent(d_max));
    if ((m.min < INFINITY && !(m.min * mf >= DBL_MIN)) ||
        (q_min < INFINITY && !(q_min * fb >= DBL_MIN)) || !(d_min * fc >= DBL_MIN))
        return 0;
    double qu[K], du[K], start[K];
    for (int i = 0; i < n; i++) {
        qu[i] = q[i] * fb;
        du[i] = (d ? d[i] : 1.0) * fc;
    }

    /* First leaving row: the largest -q_i / d_i, the largest index among ties (without d,
     * d = e / 2 at unit scale: -2 q_i, exact) */
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        start[i] = d ? -qu[i] / du[i] : -2.0 * qu[i];
        worst = rs_max2(worst, start[i]);
    }
    int r = -1;
    for (int i = n - 1; i >= 0 && worst > 0.0; i--)
        if (qu[i] < 0.0 && tied(start[i], worst, s->tie_tol)) {
            r = i;
            break;
        }

    int pivots = 0;
    if (r < 0) { /* q >= 0: z = 0 */
        for (int i = 0; i < n; i++)
            z[i] = 0.0;
    } else {
        double rhs[K];
        int basis[K];
        if ((pivots = lemke_small_path(n, M, mf, qu, du, r, s, rhs, basis)) < 0)
            return 0;
        lemke_extract_z(n, basis, rhs, z);
        lemke_unscale_z(n, eb - ea, z);
    }
    rs_lcp_residual(n, M, q, z, w);
    rs_lcp_certificate_in(n, M, q, z, w, s->cert_tol, D, C, m_inf, &info->cert);
    if (!info->cert.passed)
        return 0;
    info->status = RS_LEMKE_SOLVED;
    info->pivots = pivots;
    info->refined = 0;
    info->warm_started = 0;
    info->equilibrated = 0;
    info->covering_changed = 0;
    return 1;
}

int rs_lemke_small_solve(int n, const double *M, const double *q, const double *d,
                         const rs_lemke_settings *s, double *z, double *w, rs_lemke_info *info)
{
    switch (n) {
    case 1: return lemke_small(1, M, q, d, s, z, w, info);
    case 2: return lemke_small(2, M, q, d, s, z, w, info);
    case 3: return lemke_small(3, M, q, d, s, z, w, info);
    case 4: return lemke_small(4, M, q, d, s, z, w, info);
    case 5: return lemke_small(5, M, q, d, s, z, w, info);
    case 6: return lemke_small(6, M, q, d, s, z, w, info);
    case 7: return lemke_small(7, M, q, d, s, z, w, info);
    case 8: return lemke_small(8, M, q, d, s, z, w, info);
    default: return 0;
    }
}
