/*
 * lemke_small.c: the cold Lemke solve of a small problem (n <= RS_LEMKE_SMALL_MAX), the size of
 * most contact steps, written for speed.
 *
 * It follows the path lemke.c takes (the same unit scale, first leaving row, ratio test,
 * lexicographic rule and certificate, from lemke_internal.h; see the header of lemke.c for the
 * method) and answers only when that path ends in a complementary basis whose z passes its
 * certificate without refinement. Everything else (a ray, a breakdown, a path long enough to be
 * watched for cycling, the pivot limit, a scale that would lose entries, an answer its
 * certificate refuses) returns 0, and the general solve runs from the start: it handles those
 * cases as it always has.
 *
 * Where it differs from lemke.c, for speed at n = 2 to 8:
 *  - A tableau. The columns T_v = B^-1 A_v of the nonbasic variables are kept up to date, so the
 *    entering column is read, not computed as B^-1 A_e (a product on the path of every pivot).
 *    Only nonbasic columns are kept: there are n + 1 of them (2n + 1 variables, n basic), a basic
 *    variable's column is a unit vector, and only a nonbasic variable can enter. When a basic
 *    variable leaves from row r its column was e_r, so after the pivot it is the pivot's eta
 *    column: -a_i / a_r off row r, 1 / a_r on it.
 *  - The ratios as products by 1 / a_i, for the rows that qualify: the divisions do not wait on
 *    one another, and the pivot's 1 / a_r is one of them. A ratio may differ from rhs_i / a_i in
 *    its last bit, far inside the default tie tolerance.
 *  - The last pivot (z0 leaving) updates the basic values only: no column is read again.
 *  - An entering column with an entry within a factor 100 of the pivot tolerance goes to the
 *    general solve: whether that entry qualifies is the rounding's to decide, and the two
 *    roundings differ (an outside review's infeasible LCP: a zero that came out as 2.2e-11
 *    against a tolerance of 1e-11 here and 6.8e-12 there was pivoted on, and its z of 8.8e12
 *    along a ray passed the certificate, whose third known limit that is).
 * So its rounding is not lemke.c's: z agrees to about 1e-13 of ||z|| on the generated problems,
 * less where the pivots are small (4e-9 with a covering vector spread over six orders of
 * magnitude, where lemke.c's own unrefined answer is 5.5e-9 from its refined one), and the path
 * is the same except where two ratios tie to within rounding (which tie_tol = 0 leaves to the
 * rounding).
 */
#include <assert.h>
#include <math.h>
#include <stddef.h>

#include "lcp/lemke_internal.h"

/* The largest n, as an array size. */
#define CAP RS_LEMKE_SMALL_MAX

/* The pivoting, from the first pivot (z0 enters at row r, w_r leaves) to termination, on the
 * unit-scale problem (rhs: q on entry; du, NULL for d = e, whose unit scale is 1/2 in every row;
 * M times mf). Returns the complementary pivots made (>= 0) with the basic values in rhs and the
 * basis in basis, or -1 where the general solve must decide. No copy of q or d: a vectorized copy
 * would wait for the unit scale's stores to land (measured: about 3 ns of 79 at n = 3). */
LEMKE_INLINE int lemke_small_path(const int n, const double *M, double mf, const double *du,
                                  int r, const rs_lemke_settings *s, double *rhs, int *basis)
{
    const int max_pivots = lemke_pivot_limit(s, n);
    const double tie_tol = s->tie_tol, pivot_tol = s->pivot_tol;
    /* T: the columns of the n + 1 nonbasic variables in slots (column-major, slot c at T + c n:
     * its address does not depend on which variable is there); nb[c] is the variable in slot c,
     * slot_of[v] the slot of a nonbasic variable v */
    double T[(CAP + 1) * CAP], a[CAP], ratio[CAP], inverse[CAP];
    int nb[CAP + 1], slot_of[2 * CAP + 1], cand[CAP];
    for (int j = 0; j < n; j++) { /* slot j: z_j, -M_j at unit scale */
        for (int i = 0; i < n; i++)
            T[j * n + i] = -(M[(size_t)j * (size_t)n + (size_t)i] * mf);
        nb[j] = n + j;
        slot_of[n + j] = j;
    }
    for (int i = 0; i < n; i++) { /* slot n: z0, -d */
        T[n * n + i] = du ? -du[i] : -0.5;
        basis[i] = i; /* w */
    }
    nb[n] = 2 * n;
    slot_of[2 * n] = n;
    int entering = 2 * n, slot = n; /* nb[slot] == entering */
    int leaving = r, count = 0;
    const int z0_row = r; /* z0 stays in its row until it leaves, which ends the path */
    basis[r] = 2 * n;
    double inv = 1.0 / (du ? -du[r] : -0.5); /* 1 / a_r: then from the ratio test's inverses */
    for (;;) {
        /* pivot on row r: a = T_entering becomes e_r */
        double *Te = T + slot * n;
        for (int i = 0; i < n; i++)
            a[i] = Te[i];
        const double rr = rhs[r] * inv;
        for (int i = 0; i < n; i++)
            rhs[i] -= a[i] * rr;
        rhs[r] = rr;
        if (count > 0 && leaving == 2 * n)
            break; /* z0 left: a complementary basis, and no column is needed again */
        for (int c = 0; c <= n; c++) {
            if (c == slot)
                continue;
            double *Tv = T + c * n;
            const double b = Tv[r] * inv;
            for (int i = 0; i < n; i++)
                Tv[i] -= a[i] * b;
            Tv[r] = b;
        }
        /* the leaving variable takes the entering one's slot; its column was e_r */
        for (int i = 0; i < n; i++)
            Te[i] = -(a[i] * inv);
        Te[r] = inv;
        nb[slot] = leaving;
        slot_of[leaving] = slot;
        if (count >= max_pivots || count >= LEMKE_WATCH_AFTER(n))
            return -1;

        /* the complement of the leaving variable enters: it is nonbasic, so in a slot */
        entering = leaving < n ? leaving + n : leaving - n;
        slot = slot_of[entering];
        assert(nb[slot] == entering);
        const double *column = T + slot * n;
        int nc, near;
        r = lemke_ratio_rows(n, column, rhs, z0_row, pivot_tol, tie_tol, ratio, cand, &nc, &near,
                             inverse);
        if (r == -1 || near)
            return -1; /* a ray, or an entry whose side of the tolerance rounding decides */
        if (r == LEMKE_TIED) {
            /* B^-1 for the lexicographic rule: its column k is T_k where w_k is nonbasic, e_p
             * where w_k is basic in row p */
            double B[CAP * CAP];
            for (int k = 0; k < n * n; k++)
                B[k] = 0.0;
            for (int c = 0; c <= n; c++)
                if (nb[c] < n)
                    for (int i = 0; i < n; i++)
                        B[nb[c] * n + i] = T[c * n + i];
            for (int p = 0; p < n; p++)
                if (basis[p] < n)
                    B[basis[p] * n + p] = 1.0;
            r = lemke_tie_break(n, column, B, cand, nc, tie_tol);
        }
        inv = inverse[r];
        leaving = basis[r];
        basis[r] = entering;
        count++;
    }
    return rs_all_finite(rhs, (size_t)n) ? count : -1; /* a NaN or an infinity stays to the end */
}

/* rs_lemke_small_solve with n a constant (always inlined into each case of the switches below). */
LEMKE_INLINE int lemke_small(const int n, const double *M, const double *q, const double *d,
                             const rs_lemke_settings *s, double *z, double *w,
                             rs_lemke_info *info)
{
    if (!rs_all_finite(M, (size_t)n * (size_t)n) || !rs_all_finite(q, (size_t)n))
        return -1;

    /* The unit scale and the certificate's equilibration of M; a problem that the unit scale
     * would lose an entry of goes to the general solve, which keeps it as given */
    double D[CAP], C[CAP], rhs[CAP], du[CAP], ratio[CAP]; /* rhs: q at unit scale, to start */
    int lost;
    const lemke_scale scale = lemke_unit_scale(n, M, q, d, D, C, NULL, rhs, du, &lost);
    if (lost)
        return 0;

    const int r = lemke_first_row(n, rhs, du, s->tie_tol, ratio);
    int pivots = 0;
    if (r < 0) { /* q >= 0: z = 0 */
        for (int i = 0; i < n; i++)
            z[i] = 0.0;
    } else {
        int basis[CAP];
        if ((pivots = lemke_small_path(n, M, scale.m_factor, d ? du : NULL, r, s, rhs, basis)) < 0)
            return 0;
        lemke_extract_z(n, basis, rhs, scale.z_exponent, z);
    }
    rs_lcp_residual(n, M, q, z, w);
    rs_lcp_certificate_in(n, M, q, z, w, s->cert_tol, D, C, scale.cert_m_inf, &info->cert);
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

/* lemke_small for n = 1..8, each size an instance with n a constant, with and without a
 * caller's covering vector d: two functions, not one, since in a function holding both sets gcc
 * compiles each instance worse (130 more instructions per solve at n = 3). */
#define LEMKE_SMALL_SIZES(d)                                                                     \
    switch (n) {                                                                                 \
    case 1: return lemke_small(1, M, q, d, s, z, w, info);                                       \
    case 2: return lemke_small(2, M, q, d, s, z, w, info);                                       \
    case 3: return lemke_small(3, M, q, d, s, z, w, info);                                       \
    case 4: return lemke_small(4, M, q, d, s, z, w, info);                                       \
    case 5: return lemke_small(5, M, q, d, s, z, w, info);                                       \
    case 6: return lemke_small(6, M, q, d, s, z, w, info);                                       \
    case 7: return lemke_small(7, M, q, d, s, z, w, info);                                       \
    case 8: return lemke_small(8, M, q, d, s, z, w, info);                                       \
    default: return 0;                                                                           \
    }

/* d = e (NULL), every caller's inside relaxsim: its unit scale is the constant 1/2 (z0's column
 * -1/2), which these instances fold (measured: 2% to 3% of a solve at n = 3). */
LEMKE_NOINLINE int lemke_small_e(int n, const double *M, const double *q,
                                 const rs_lemke_settings *s, double *z, double *w,
                                 rs_lemke_info *info)
{
    LEMKE_SMALL_SIZES(NULL)
}

/* A caller's own covering vector d: its own eight instances (about 80 KB of code), since one
 * instance for every n was 1.1 to 1.45 times slower. */
LEMKE_NOINLINE int lemke_small_d(int n, const double *M, const double *q, const double *d,
                                 const rs_lemke_settings *s, double *z, double *w,
                                 rs_lemke_info *info)
{
    LEMKE_SMALL_SIZES(d)
}

int rs_lemke_small_solve(int n, const double *M, const double *q, const double *d,
                         const rs_lemke_settings *s, double *z, double *w, rs_lemke_info *info)
{
    return d ? lemke_small_d(n, M, q, d, s, z, w, info) : lemke_small_e(n, M, q, s, z, w, info);
}
