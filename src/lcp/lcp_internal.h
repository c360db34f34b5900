/*
 * lcp_internal.h (internal): helpers shared by the LCP sources.
 *
 * The residual and the certificate are defined here, inline, because Lemke's kernel is compiled
 * for each small n as a constant (see lemke.c): inlined there, their loops unroll too, and at
 * n = 2 the certificate is then a handful of instructions instead of a third of the solve.
 */
#ifndef RS_LCP_INTERNAL_H
#define RS_LCP_INTERNAL_H

#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "relaxsim/lcp.h"
#include "relaxsim/lcp_file.h"

/* Always inlined: the Lemke solve instantiates these per small size (lemke.c), and with n a
 * compile-time constant gcc unrolls their loops (the certificate was half of a solve at n = 2).
 * The small helpers too: in a caller as large as the small path's switch, gcc's inliner
 * otherwise may call them out of line (seen: rs_all_finite and rs_cert_scaled as calls, 60 more
 * instructions per solve at n = 3, after a change elsewhere in that function). */
#if defined(__GNUC__)
#define RS_LCP_INLINE static inline __attribute__((always_inline))
#else
#define RS_LCP_INLINE static inline
#endif

/* 1 if all n entries of x are finite, read from their bits: no floating-point operation on an
 * infinity or a NaN (a caller may trap the exception it would raise). A loop that stops at the
 * first one: the branch-free form (an OR of the exponent fields) is vectorized by the compiler,
 * which then reads 16 bytes at a time from arrays that were just written one entry at a time (z
 * and w of a solve) and waits for those stores to land (measured: 5 to 8 ns of a 120 ns solve
 * at n = 4). */
RS_LCP_INLINE int rs_all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &x[i], sizeof bits);
        if ((bits & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL)
            return 0;
    }
    return 1;
}

/* Plain comparisons: the values are finite where these are used (fmin/fmax are library calls
 * at -O2, and they treat NaN differently, which is not wanted here). */
RS_LCP_INLINE double rs_min2(double a, double b) { return a < b ? a : b; }
RS_LCP_INLINE double rs_max2(double a, double b) { return a > b ? a : b; }

/** w = M z + q (M column-major n*n). */
RS_LCP_INLINE void rs_lcp_residual(int n, const double *M, const double *q, const double *z,
                                   double *w)
{
    /* w = q + sum_j z_j M(:, j), column by column so M is read contiguously. */
    for (int i = 0; i < n; i++)
        w[i] = q[i];
    for (int j = 0; j < n; j++) {
        const double zj = z[j];
        if (zj == 0.0)
            continue;
        const double *Mj = M + (size_t)j * (size_t)n;
        for (int i = 0; i < n; i++)
            w[i] += zj * Mj[i];
    }
}

/* The exponent e with x / 2^e in [0.5, 1) for a finite x > 0 (0 for x = 0), kept within +-1021
 * so that 2^e and 2^-e are normal doubles; read from x's bits (frexp is a library call). */
RS_LCP_INLINE int rs_unit_exponent(double x)
{
    if (!(x > 0.0))
        return 0;
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const int e = (int)((bits >> 52) & 0x7ff) - 1022; /* subnormals: -1022, clamped below */
    return e < -1021 ? -1021 : e > 1021 ? 1021 : e;
}

/* 2^e for |e| <= 1022, built from its bits. */
RS_LCP_INLINE double rs_power_of_two(int e)
{
    const uint64_t bits = (uint64_t)(1023 + e) << 52;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* 1 / c for a factor of rs_lcp_equilibrate (a power of two in [DBL_MIN, 1 / DBL_MIN], so that
 * 1 / c is one too): exact, from its bits. */
RS_LCP_INLINE double rs_inverse_factor(double c)
{
    uint64_t bits;
    memcpy(&bits, &c, sizeof bits);
    assert((bits & 0xfffffffffffffULL) == 0 && bits >> 52 >= 1 && bits >> 52 <= 2045);
    bits = (2046 - (bits >> 52)) << 52;
    double y;
    memcpy(&y, &bits, sizeof y);
    return y;
}

/* The extent of M's entries, read by the equilibration's first pass (rs_lcp_equilibrate). */
typedef struct rs_lcp_extent {
    double max; /* the largest |M_ij| */
    double min; /* the smallest nonzero |M_ij|, INFINITY if M = 0 */
} rs_lcp_extent;

/* The power of two f that a Ruiz step multiplies a scaling factor by: about 1 / sqrt of norm,
 * the norm of the factor's row or column as scaled now; 0 when that is already in [0.5, 2), when
 * it is 0, or when the factor would leave [DBL_MIN, 1 / DBL_MIN] (a zero pattern that cannot be
 * balanced drives factors apart without end: they stop there, finite and nonzero). */
RS_LCP_INLINE int rs_ruiz_step(double norm, double factor)
{
    uint64_t norm_bits, factor_bits;
    memcpy(&norm_bits, &norm, sizeof norm_bits);
    const int biased = (int)(norm_bits >> 52); /* with the sign bit: 2048 for a -0.0 */
    if ((unsigned)(biased - 1022) < 2u)        /* norm in [0.5, 2): the usual case once settled */
        return 0;
    if (!(norm > 0.0)) /* zero, either sign (tested second: the usual case needs no compare) */
        return 0;
    /* e = rs_unit_exponent(norm) = biased - 1022 clamped to +-1021, f = -floor(e / 2): with e +
     * 1022 >= 1, floor(e / 2) = (e + 1022) / 2 - 511, a shift of a nonnegative int */
    const int shifted = biased < 1 ? 1 : biased > 2043 ? 2043 : biased; /* e + 1022 */
    const int f = 511 - (shifted >> 1);
    memcpy(&factor_bits, &factor, sizeof factor_bits);
    const int next = (int)(factor_bits >> 52) + f; /* the biased exponent of factor 2^f */
    return next >= 1 && next <= 2045 ? f : 0;      /* DBL_MIN = 2^-1022, 1 / DBL_MIN = 2^1022 */
}

/*
 * Ruiz equilibration of M in powers of two: row factors D and column factors C with every
 * nonzero row and column of D M C of inf-norm in [0.5, 2) (at most 32 sweeps; rows and columns
 * of zeros keep 1, and no factor leaves [DBL_MIN, 1 / DBL_MIN]); returns the largest |entry| of
 * D M C. Powers of two make D M C exact; for a rescaled D0 M C0 the result is D M C again up to
 * factors of 2 to 4 per row and column (every matrix with its norms in [0.5, 2) is a fixed
 * point): the units the certificate measures an LCP in, whatever units its rows and columns
 * came in. extent (may be NULL) receives the largest and smallest nonzero |M_ij|, which the
 * first pass reads anyway. row (n doubles, or NULL): scratch in which, above n = 8, the row
 * norms are accumulated column by column, reading M in its storage order (a row of a large M
 * is one entry per cache line; the same maxima).
 */
RS_LCP_INLINE double rs_lcp_equilibrate(int n, const double *M, double *D, double *C,
                                        double *restrict row, rs_lcp_extent *extent)
{
    const size_t nn = (size_t)n;
    for (int i = 0; i < n; i++)
        D[i] = C[i] = 1.0;
    double m_inf = 0.0; /* the largest |entry| of D M C, from the last column pass */
    double m_max = 0.0, m_min = INFINITY; /* the largest and smallest nonzero |M_ij| */
    int changed = 1;
    for (int sweep = 0; sweep < 32 && changed; sweep++) {
        /* Rows, each brought to about 1 / sqrt of its norm. A row is settled when the next
         * row pass, seeing the same C, would leave it; when every row is settled and the
         * column pass below changes no C, the next sweep would change nothing: stop now
         * rather than run it to find out (the same D, C and m_inf). */
        int rows_settled = 1;
        const int by_columns = row && n > 8;
        if (by_columns) {
            for (int i = 0; i < n; i++)
                row[i] = 0.0;
            for (size_t j = 0; j < nn; j++) {
                const double *Mj = M + j * nn, cj = C[j];
                for (size_t i = 0; i < nn; i++) {
                    const double m = fabs(Mj[i]);
                    row[i] = rs_max2(row[i], m * cj);
                    m_min = sweep == 0 && m > 0.0 && m < m_min ? m : m_min;
                }
            }
        }
        for (int i = 0; i < n; i++) {
            double r = 0.0;
            if (by_columns)
                r = row[i];
            else if (sweep == 0) /* C = 1: |M|'s row maxima, and the extent of M */
                for (int j = 0; j < n; j++) {
                    const double m = fabs(M[(size_t)i + (size_t)j * nn]);
                    r = rs_max2(r, m);
                    m_min = rs_min2(m_min, m > 0.0 ? m : INFINITY);
                }
            else
                for (int j = 0; j < n; j++)
                    r = rs_max2(r, fabs(M[(size_t)i + (size_t)j * nn]) * C[j]);
            m_max = sweep == 0 ? rs_max2(m_max, r) : m_max;
            const int f = rs_ruiz_step(r * D[i], D[i]);
            if (f != 0) {
                D[i] *= rs_power_of_two(f);
                rows_settled &= rs_ruiz_step(r * D[i], D[i]) == 0;
            }
        }
        changed = !rows_settled;
        m_inf = 0.0;
        for (int j = 0; j < n; j++) { /* columns */
            const double *Mj = M + (size_t)j * nn;
            double col = 0.0;
            for (int i = 0; i < n; i++)
                col = rs_max2(col, D[i] * fabs(Mj[i]));
            const int f = rs_ruiz_step(col * C[j], C[j]);
            if (f != 0) {
                C[j] *= rs_power_of_two(f);
                changed = 1;
            }
            m_inf = rs_max2(m_inf, col * C[j]);
        }
    }
    if (changed) /* 32 sweeps without settling: the norm of the factors as they are */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                m_inf = rs_max2(m_inf, D[i] * fabs(M[(size_t)i + (size_t)j * nn]) * C[j]);
    if (extent) {
        extent->max = m_max;
        extent->min = m_min;
    }
    return m_inf;
}

/* x / scale; a zero scale comes with x = 0 (see rs_lcp_certificate_of), which stays 0. */
RS_LCP_INLINE double rs_cert_relative(double x, double scale)
{
    return scale > 0.0 ? x / scale : (x == 0.0 ? 0.0 : copysign(INFINITY, x));
}

/* 1 / scale when that is finite, else 0 (a zero scale, or a subnormal one whose inverse
 * overflows: x * inf would turn a zero x into NaN). */
RS_LCP_INLINE double rs_cert_inverse(double scale)
{
    const double inverse = scale > 0.0 ? 1.0 / scale : 0.0;
    return inverse < INFINITY ? inverse : 0.0;
}

/* x / scale, as a product by inverse = rs_cert_inverse(scale) where that is not 0. */
RS_LCP_INLINE double rs_cert_scaled(double x, double scale, double inverse)
{
    return inverse > 0.0 ? x * inverse : rs_cert_relative(x, scale);
}

/**
 * Certificate of (z, w) for LCP(M, q); w must already be M z + q. The relative measures are
 * taken in the units of the equilibrated problem (rs_lcp_equilibrate: D M C, D q, z / C, D w),
 * with no absolute floor: a contact LCP's rows and columns carry different units (velocities and
 * forces, impulses and a sliding speed), and these measures do not depend on them, nor on the
 * scale of the whole problem. With S = ||D q||_inf, zeta = ||z / C||_inf and m = ||D M C||_max:
 *  - each z_i / C_i relative to Z = max(zeta, P / m), P / m the problem's own scale of z, the
 *    size that moves the rows that z must push (P = max |D_i q_i| over q_i < 0; S when q >= 0):
 *    a solution z = 0 computed with rounding is then tiny, not 100% of itself;
 *  - each D_i w_i relative to its row's own unit u_i = max(|D_i q_i|, min(m Z, S)): the size of
 *    the row's own data, or of what z in its unit moves it by, whichever is larger, never more
 *    than S. One unit S for all rows let a row whose q_i dwarfs the others (a row of M near
 *    1e-152 with an ordinary q_i, scaled up by about 1e75) hide every other row's violation.
 * When q = 0, S is the largest D_i (|M| |z|)_i (0 only when w = 0 exactly). D, C and m are M's
 * equilibration (rs_lcp_equilibrate), computed once for every candidate judged against one M.
 */
RS_LCP_INLINE void rs_lcp_certificate_in(int n, const double *M, const double *q,
                                         const double *z, const double *w, double tol,
                                         const double *D, const double *C, double m_inf,
                                         rs_lcp_certificate *cert)
{
    double min_z = INFINITY, min_w = INFINITY, max_zw = 0.0, nat = 0.0, z_inf = 0.0;
    /* no arithmetic on an infinity or a NaN: no exception raised */
    const int finite = rs_all_finite(z, (size_t)n) && rs_all_finite(w, (size_t)n);
    for (int i = 0; i < n && finite; i++) {
        const double zi = z[i], wi = w[i];
        min_z = rs_min2(min_z, zi);
        min_w = rs_min2(min_w, wi);
        max_zw = rs_max2(max_zw, fabs(zi * wi));
        nat = rs_max2(nat, fabs(rs_min2(zi, wi)));
        z_inf = rs_max2(z_inf, fabs(zi) * rs_inverse_factor(C[i]));
    }
    double rel_min_z = 0.0, rel_min_w = 0.0, rel_zw = 0.0, rel_nat = 0.0;
    if (finite) {
        double q_inf = 0.0, q_push = 0.0;
        for (int i = 0; i < n; i++) {
            const double qs = D[i] * q[i];
            q_inf = rs_max2(q_inf, fabs(qs));
            q_push = rs_max2(q_push, -qs);
        }
        if (q_inf == 0.0) /* q = 0: w in the size of D M z's terms (0 only if w = 0 exactly) */
            for (int i = 0; i < n; i++) {
                double t = 0.0;
                for (int j = 0; j < n; j++)
                    t += fabs(M[(size_t)i + (size_t)j * (size_t)n] * z[j]);
                q_inf = rs_max2(q_inf, D[i] * t);
            }
        /* z's unit never vanishes with z: at least the size that moves the rows z must push */
        if (m_inf > 0.0)
            z_inf = rs_max2(z_inf, (q_push > 0.0 ? q_push : q_inf) / m_inf);
        /* what z in its unit moves a row by, at most S: the part of each row's unit that is not
         * its own q_i */
        const double moved = rs_min2(m_inf * z_inf, q_inf);
        rel_min_z = rel_min_w = INFINITY;
        /* C is a power of two: z / C exact, as a product by its inverse (read from its bits);
         * one division for z's unit and one for the rows' common part, the others only for a
         * row whose own |D_i q_i| is larger (a zero unit comes with zero entries, which stay 0) */
        const double z_unit = rs_cert_inverse(z_inf), w_unit = rs_cert_inverse(moved);
        for (int i = 0; i < n; i++) {
            const double zs = z[i] * rs_inverse_factor(C[i]), ws = D[i] * w[i];
            const double zr = rs_cert_scaled(zs, z_inf, z_unit);
            const double qs = fabs(D[i] * q[i]);
            const double wr = qs > moved ? ws / qs : rs_cert_scaled(ws, moved, w_unit);
            rel_min_z = rs_min2(rel_min_z, zr);
            rel_min_w = rs_min2(rel_min_w, wr);
            rel_zw = rs_max2(rel_zw, fabs(zr * wr));
            rel_nat = rs_max2(rel_nat, fabs(rs_min2(zr, wr)));
        }
    }
    cert->size = sizeof *cert;
    cert->min_z = finite ? min_z : NAN;
    cert->min_w = finite ? min_w : NAN;
    cert->max_complementarity = finite ? max_zw : NAN;
    cert->natural_residual = finite ? nat : NAN;
    cert->rel_min_z = finite ? rel_min_z : NAN;
    cert->rel_min_w = finite ? rel_min_w : NAN;
    cert->rel_max_complementarity = finite ? rel_zw : NAN;
    cert->rel_natural_residual = finite ? rel_nat : NAN;
    cert->finite = finite;
    /* Written so that any NaN fails the test. */
    cert->passed = finite && cert->rel_min_z >= -tol && cert->rel_min_w >= -tol &&
                   cert->rel_natural_residual <= tol && cert->rel_max_complementarity <= tol;
}

/* The certificate of (z, w) for LCP(M, q) (rs_lcp_certificate_in), equilibrating M first.
 * scratch: 3 n doubles. */
RS_LCP_INLINE void rs_lcp_certificate_of(int n, const double *M, const double *q, const double *z,
                                         const double *w, double tol, double *scratch,
                                         rs_lcp_certificate *cert)
{
    double *D = scratch, *C = scratch + n;
    const double m_inf = rs_lcp_equilibrate(n, M, D, C, scratch + 2 * n, NULL);
    rs_lcp_certificate_in(n, M, q, z, w, tol, D, C, m_inf, cert);
}

/* The Siconos .dat text of lcp into an open stream (rs_lcp_write_file's format and checks; name
 * is what messages call it). Write errors are the stream's: the caller checks them on close. */
rs_error rs_lcp_write_stream(FILE *f, const char *name, const rs_lcp *lcp,
                             rs_lcp_storage storage, int block_size, const char *remark,
                             rs_error_detail *detail);

#endif
