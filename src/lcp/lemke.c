/*
 * lemke.c: Lemke's complementary pivoting method with the lexicographic anti-cycling rule.
 *
 * The augmented system is
 *
 *     I w - M z - d z0 = q,      w, z, z0 >= 0,   w_i z_i = 0,
 *
 * with basic variables x_B = B^-1 q. Variables are numbered 0..n-1 for w, n..2n-1 for z and 2n
 * for z0. The kernel keeps the basis inverse B^-1 explicitly (dense, column-major) and updates it
 * by one elementary row operation per pivot (O(n^2)); the entering column is B^-1 A_e.
 *
 * Lexicographic rule. Write the tableau rows as [x_B,i, (B^-1)_i,:]. If every row is
 * lexicographically positive, choosing the leaving row as the lexicographic minimum of
 * row_i / a_i over a_i > 0 keeps them so, and since B^-1 has independent rows the minimum is
 * unique: no basis repeats, so the method cannot cycle. The first pivot (z0 entering with
 * column -d) makes the rows lexicographically positive when, among rows tied for the largest
 * -q_i/d_i, the one with the largest index leaves: a tied row i < r becomes
 * [0, e_i - (d_i/d_r) e_r], whose first non-zero entry (+1 at i) is positive.
 * When z0 is among the rows tied on the ratio, it leaves: that ends the method at once.
 *
 * Termination with z0 out of the basis gives a complementary basis, i.e. a solution. When the
 * pivoted answer fails its certificate (or always, with refine = 2) the kernel re-solves
 * B x_B = q by LU with partial pivoting, which removes the rounding accumulated over the
 * product-form updates, and keeps the better of the two candidates by natural residual. "Solved"
 * is reported only if the certificate recomputed from (M, q, z) passes.
 *
 * Speed at the sizes of contact problems (n = 2 to 10): a cold solve at n <= RS_LEMKE_SMALL_MAX
 * first takes the small-problem path (lemke_small.c: a tableau in local arrays, the same rules),
 * and comes here only where that path does not answer. Here the solve is compiled once per
 * n = 1..8 with n a constant (lemke_solve_core, always inlined), so that its loops unroll, and it
 * reads no clock. M is never copied: its unit scale is a power of two applied where a column is
 * read. A column k of B^-1 stays e_k until a pivot falls on row k, so the entering column and
 * the update touch only the columns pivoted on. The certificate's equilibration of M is computed
 * once per solve, first (its first pass also finds the unit scale), and judges every candidate.
 * Where the time goes at n = 3 (0 pivots): about half in that equilibration, whose Ruiz sweeps
 * (1 to 3 here) are what makes the certificate independent of the problem's units.
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "relaxsim/lcp.h"
#include "core/detail.h"
#include "lcp/lcp_internal.h"
#include "lcp/lemke_internal.h"

/* Largest n for which the workspace size fits comfortably in size_t and n*n in int. */
#define LEMKE_MAX_N 40000

const char *rs_lemke_status_name(rs_lemke_status status)
{
    switch (status) {
    case RS_LEMKE_SOLVED: return "solved";
    case RS_LEMKE_RAY_TERMINATION: return "ray_termination";
    case RS_LEMKE_MAX_PIVOTS: return "max_pivots";
    case RS_LEMKE_BREAKDOWN: return "breakdown";
    case RS_LEMKE_NOT_CERTIFIED: return "not_certified";
    case RS_LEMKE_TOO_LARGE: return "too_large";
    }
    return "unknown";
}

/* The defaults (rs_lemke_settings' documentation gives each). */
static const rs_lemke_settings lemke_defaults = {
    .size = sizeof(rs_lemke_settings),
    .max_pivots = 0,
    .pivot_tol = 1e-11,
    .tie_tol = 1e-12,
    .cert_tol = RS_LCP_CERT_TOL_DEFAULT,
    .refine = 1,
};

void rs_lemke_settings_default(rs_lemke_settings *settings)
{
    if (settings)
        *settings = lemke_defaults;
}

rs_error rs_lemke_settings_validate(const rs_lemke_settings *s, const char **field_out)
{
    const char *bad = NULL;
    if (!s)
        return RS_ERR_NULL_ARG;
    if (s->size != sizeof *s)
        bad = "size";
    else if (s->max_pivots < 0)
        bad = "max_pivots";
    else if (!(s->pivot_tol > 0.0 && s->pivot_tol <= 1e-3))
        bad = "pivot_tol";
    else if (!(s->tie_tol >= 0.0 && s->tie_tol <= 1e-3))
        bad = "tie_tol";
    else if (!(s->cert_tol > 0.0 && s->cert_tol < 1.0))
        bad = "cert_tol";
    else if (s->refine < 0 || s->refine > 2)
        bad = "refine";
    if (field_out)
        *field_out = bad;
    return bad ? RS_ERR_BAD_SETTING : RS_OK;
}

/* Workspace layout: doubles first (alignment), then ints. */
typedef struct lemke_work {
    double *Binv;  /* n*n basis inverse, column-major */
    double *LU;    /* n*n LU factors of the final basis (refinement) */
    double *rhs;   /* n: basic values B^-1 q */
    double *col;   /* n: entering column B^-1 A_e */
    double *x;     /* n: refined basic values */
    double *zc;    /* n: refined candidate z */
    double *wc;    /* n: M zc + q */
    double *q;     /* n: the caller's q at unit scale */
    double *cert;  /* 2 n: the certificate's equilibration of M, D and C */
    double *d;     /* n: covering vector at unit scale (the caller's, or e) */
    double *Ms;    /* n*n the symmetrically equilibrated S M S (lemke_solve_equilibrated) */
    double *S;     /* n: its scaling, powers of two */
    double *qs;    /* n: S q */
    double *ds;    /* n: S d */
    double *zs;    /* n: its z */
    double *ws;    /* n: its w */
    double *ratio; /* n: the ratio test's ratios */
    double *rows;  /* n: the equilibration's row norms (rs_lcp_equilibrate) */
    int *basis;    /* n: variable number of each basic position */
    int *cand;     /* n: rows tied in the ratio test */
    int *piv;      /* n: LU row interchanges */
    int *pivoted;  /* n: 1 once a pivot has been on row k; until then column k of B^-1 is e_k */
} lemke_work;

static size_t lemke_doubles(size_t n)
{
    return 3 * n * n + 16 * n;
}

static size_t lemke_ints(size_t n)
{
    return 4 * n;
}

size_t rs_lemke_workspace_size(int n)
{
    if (n < 1 || n > LEMKE_MAX_N)
        return 0;
    const size_t nn = (size_t)n;
    return lemke_doubles(nn) * sizeof(double) + lemke_ints(nn) * sizeof(int);
}

static void lemke_work_map(size_t n, void *mem, lemke_work *wk)
{
    double *d = (double *)mem;
    wk->Binv = d;
    d += n * n;
    wk->LU = d;
    d += n * n;
    wk->rhs = d;
    d += n;
    wk->col = d;
    d += n;
    wk->x = d;
    d += n;
    wk->zc = d;
    d += n;
    wk->wc = d;
    d += n;
    wk->q = d;
    d += n;
    wk->cert = d;
    d += 2 * n;
    wk->d = d;
    d += n;
    wk->Ms = d;
    d += n * n;
    wk->S = d;
    d += n;
    wk->qs = d;
    d += n;
    wk->ds = d;
    d += n;
    wk->zs = d;
    d += n;
    wk->ws = d;
    d += n;
    wk->ratio = d;
    d += n;
    wk->rows = d;
    d += n;
    int *k = (int *)(void *)d; /* ints follow the doubles: alignment only decreases */
    wk->basis = k;
    k += n;
    wk->cand = k;
    k += n;
    wk->piv = k;
    k += n;
    wk->pivoted = k;
}

/* The certificate of (z, w), w = M z + q, in the units of M's equilibration (computed once per
 * solve, by lemke_unit_scale). */
LEMKE_INLINE void lemke_certify(int n, const double *M, const double *q, const double *z,
                                const double *w, double tol, const lemke_work *wk,
                                lemke_scale scale, rs_lcp_certificate *cert)
{
    rs_lcp_certificate_in(n, M, q, z, w, tol, wk->cert, wk->cert + n, scale.cert_m_inf, cert);
}

/* Pivot on row r with entering column a: rhs and B^-1 rows become those of the new basis.
 * A column k of B^-1 that is still e_k (no pivot on row k yet) has a zero in row r != k: the
 * pivot leaves it as it is. */
LEMKE_INLINE void lemke_pivot(int n, int r, const double *restrict a, double *restrict rhs,
                              double *restrict Binv, int *restrict pivoted)
{
    const double inv = 1.0 / a[r];
    const double rr = rhs[r] * inv;
    for (int i = 0; i < n; i++)
        rhs[i] -= a[i] * rr;
    rhs[r] = rr;
    pivoted[r] = 1;
    for (int k = 0; k < n; k++) {
        if (!pivoted[k])
            continue;
        double *Bk = Binv + (size_t)k * (size_t)n;
        const double b = Bk[r] * inv;
        if (b != 0.0)
            for (int i = 0; i < n; i++)
                Bk[i] -= a[i] * b;
        Bk[r] = b;
    }
}

/* Entering column a = B^-1 A_e for the column A_e of variable e in [I, -M, -d]; a column k of
 * B^-1 not yet pivoted on is e_k, and adds -v_k to a_k alone. */
LEMKE_INLINE void lemke_entering_column(int n, int e, const double *M, double m_factor,
                                        const double *d, const double *restrict Binv,
                                        const int *pivoted, double *restrict a)
{
    const size_t nn = (size_t)n;
    if (e < n) { /* w_e: A_e = e_e */
        memcpy(a, Binv + (size_t)e * nn, nn * sizeof(double));
        return;
    }
    const double *v = (e < 2 * n) ? M + (size_t)(e - n) * nn : d; /* A_e = -v */
    const double f = (e < 2 * n) ? m_factor : 1.0; /* M at unit scale; d is already */
    for (int i = 0; i < n; i++)
        a[i] = 0.0;
    for (int k = 0; k < n; k++) {
        const double vk = v[k] * f;
        if (vk == 0.0)
            continue;
        if (!pivoted[k]) {
            a[k] -= vk;
            continue;
        }
        const double *Bk = Binv + (size_t)k * nn;
        for (int i = 0; i < n; i++)
            a[i] -= vk * Bk[i];
    }
}

/* The lexicographic minimum ratio test: the leaving row, or -1 for a ray (lemke_ratio_rows,
 * then lemke_tie_break among tied rows). */
LEMKE_INLINE int lemke_ratio_test(int n, const double *a, const double *rhs,
                                  const double *Binv, int z0_row, double pivot_tol,
                                  double tie_tol, double *ratio, int *cand)
{
    int nc;
    const int r =
        lemke_ratio_rows(n, a, rhs, z0_row, pivot_tol, tie_tol, ratio, cand, &nc, NULL, NULL);
    return r != LEMKE_TIED ? r : lemke_tie_break(n, a, Binv, cand, nc, tie_tol);
}

/* x = B^-1 x by the factors of lemke_basis_solve (P, then unit L, then U). */
LEMKE_INLINE void lemke_lu_solve(int n, const double *LU, const int *piv, double *x)
{
    const size_t nn = (size_t)n;
    for (int k = 0; k < n; k++) { /* apply P, then forward substitution with unit L */
        const int p = piv[k];
        if (p != k) {
            const double t = x[k];
            x[k] = x[p];
            x[p] = t;
        }
    }
    for (int k = 0; k < n; k++) {
        const double *Lk = LU + (size_t)k * nn;
        for (int i = k + 1; i < n; i++)
            x[i] -= Lk[i] * x[k];
    }
    for (int k = n - 1; k >= 0; k--) {
        const double *Lk = LU + (size_t)k * nn;
        x[k] /= Lk[k];
        for (int i = 0; i < k; i++)
            x[i] -= Lk[i] * x[k];
    }
}

/*
 * Solve B x = q for the basis columns by LU with partial pivoting (in LU, column-major).
 * Returns 0 if the basis is numerically singular.
 */
LEMKE_INLINE int lemke_basis_solve(int n, const double *M, double m_factor, const double *d,
                                   const int *basis, const double *q, double *LU, int *piv,
                                   double *x)
{
    const size_t nn = (size_t)n;
    for (int p = 0; p < n; p++) {
        double *Lp = LU + (size_t)p * nn;
        const int v = basis[p];
        if (v < n) {
            for (int i = 0; i < n; i++)
                Lp[i] = 0.0;
            Lp[v] = 1.0;
        } else if (v < 2 * n) {
            const double *Mj = M + (size_t)(v - n) * nn;
            for (int i = 0; i < n; i++)
                Lp[i] = -(Mj[i] * m_factor);
        } else {
            for (int i = 0; i < n; i++)
                Lp[i] = -d[i];
        }
    }
    double amax = 0.0;
    for (size_t i = 0; i < nn * nn; i++)
        amax = rs_max2(amax, fabs(LU[i]));
    for (int k = 0; k < n; k++) {
        double *Lk = LU + (size_t)k * nn;
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(Lk[i]) > fabs(Lk[p]))
                p = i;
        piv[k] = p;
        if (!(fabs(Lk[p]) > 1e-14 * amax))
            return 0;
        if (p != k)
            for (int j = 0; j < n; j++) {
                double *Lj = LU + (size_t)j * nn;
                const double t = Lj[k];
                Lj[k] = Lj[p];
                Lj[p] = t;
            }
        const double inv = 1.0 / Lk[k];
        for (int i = k + 1; i < n; i++)
            Lk[i] *= inv;
        for (int j = k + 1; j < n; j++) {
            double *Lj = LU + (size_t)j * nn;
            const double u = Lj[k];
            if (u != 0.0)
                for (int i = k + 1; i < n; i++)
                    Lj[i] -= Lk[i] * u;
        }
    }
    for (int i = 0; i < n; i++)
        x[i] = q[i];
    lemke_lu_solve(n, LU, piv, x);
    return rs_all_finite(x, nn);
}

static rs_error lemke_check_args(int n, const double *M, const double *q, const double *d,
                                 const rs_lemke_settings *settings, const void *work,
                                 size_t work_bytes, const double *z, const double *w,
                                 const rs_lemke_info *info, rs_error_detail *detail)
{
    if (!M || !q || !work || !z || !w || !info)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "rs_lemke_solve: %s is NULL",
                             !M ? "M" : !q ? "q" : !work ? "work" : !z ? "z" : !w ? "w" : "info");
    if (n < 1 || n > LEMKE_MAX_N)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "rs_lemke_solve: n = %d, outside [1, %d]",
                             n, LEMKE_MAX_N);
    if (info->size != sizeof *info) /* (checked inline: a solve at n = 2 takes 100 ns) */
        return RS_SIZE_OK(info, rs_lemke_info, "info", detail);
    const char *field = NULL;
    if (settings && settings->size != sizeof *settings)
        return RS_SETTINGS_SIZE_OK(settings, rs_lemke_settings, "settings", detail);
    if (settings && rs_lemke_settings_validate(settings, &field) != RS_OK)
        return rs_detail_set(detail, RS_ERR_BAD_SETTING,
                             "rs_lemke_solve: settings->%s is out of its range (lcp.h)", field);
    if (work_bytes < rs_lemke_workspace_size(n) || ((uintptr_t)work % sizeof(double)) != 0)
        return rs_detail_set(detail, RS_ERR_WORKSPACE,
                             "rs_lemke_solve: the workspace has %zu bytes%s, n = %d needs %zu "
                             "(rs_lemke_workspace_size), aligned for double",
                             work_bytes, ((uintptr_t)work % sizeof(double)) ? " and is misaligned" : "",
                             n, rs_lemke_workspace_size(n));
    const size_t nn = (size_t)n;
    if (!rs_all_finite(M, nn * nn) || !rs_all_finite(q, nn) || (d && !rs_all_finite(d, nn)))
        return rs_detail_set(detail, RS_ERR_NONFINITE, "rs_lemke_solve: %s has a NaN or an "
                                                       "infinity",
                             !rs_all_finite(M, nn * nn) ? "M" : !rs_all_finite(q, nn) ? "q" : "d");
    for (size_t i = 0; d && i < nn; i++)
        if (!(d[i] > 0.0))
            return rs_detail_set(detail, RS_ERR_BAD_ARG,
                                 "rs_lemke_solve: d[%zu] = %g: a covering vector is > 0", i, d[i]);
    return RS_OK;
}

/* The caller's settings, or the defaults for NULL. */
static const rs_lemke_settings *lemke_settings_or_default(const rs_lemke_settings *settings)
{
    return settings ? settings : &lemke_defaults;
}

/* A 64-bit key of variable v (splitmix64 of v): the XOR of the basic variables' keys names the
 * basis whatever the order of its rows. */
static inline uint64_t lemke_key(int v)
{
    uint64_t x = (uint64_t)v * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/*
 * The pivoting phase, from the first pivot (z0 enters, row r leaves) to termination; fills z (of
 * the caller's problem: the unit-scale z times 2^z_exponent) and *pivots and returns the status.
 * In exact arithmetic the lexicographic rule never repeats a basis; with rounding, the tie
 * tolerance can make a degenerate path cycle (a 64-box pile's step, n = 680, ran to any pivot
 * limit). From LEMKE_WATCH_AFTER(n) pivots on, Brent's method compares the basis's key with one
 * saved at doubling intervals: a cycle of length L is caught within about 2 L pivots of its
 * start, and it is a breakdown, after which the other attempts run.
 */
LEMKE_INLINE rs_lemke_status lemke_pivoting(int n, const double *M, double m_factor,
                                            int z_exponent, const double *q, int r,
                                            const lemke_work *wk, int max_pivots,
                                            double pivot_tol, double tie_tol, double *z,
                                            int *pivots)
{
    const size_t nn = (size_t)n;
    rs_lemke_status status = RS_LEMKE_SOLVED;
    for (size_t i = 0; i < nn * nn; i++)
        wk->Binv[i] = 0.0;
    for (int i = 0; i < n; i++) {
        wk->Binv[(size_t)i * nn + (size_t)i] = 1.0;
        wk->rhs[i] = q[i];
        wk->basis[i] = i;
        wk->pivoted[i] = 0;
    }
    /* First pivot: z0 enters, w_r leaves; its column B^-1 (-d) is -d, as B = I */
    for (int i = 0; i < n; i++)
        wk->col[i] = -wk->d[i];
    lemke_pivot(n, r, wk->col, wk->rhs, wk->Binv, wk->pivoted);
    int leaving = wk->basis[r];
    wk->basis[r] = 2 * n;
    const int z0_row = r; /* z0 stays in its row until it leaves, which ends the path */
    int count = 0; /* the complementary pivots after z0 entered (Siconos' count) */
    uint64_t key = 0, saved = 0; /* the basis's key, and Brent's saved one */
    int power = 0, lambda = 0;   /* 0: not watching yet */
    for (;;) {
        if (count >= max_pivots) {
            status = RS_LEMKE_MAX_PIVOTS;
            break;
        }
        const int entering = leaving < n ? leaving + n : leaving - n; /* complement */
        lemke_entering_column(n, entering, M, m_factor, wk->d, wk->Binv, wk->pivoted, wk->col);
        r = lemke_ratio_test(n, wk->col, wk->rhs, wk->Binv, z0_row, pivot_tol, tie_tol,
                             wk->ratio, wk->cand);
        if (r < 0) {
            status = RS_LEMKE_RAY_TERMINATION;
            break;
        }
        lemke_pivot(n, r, wk->col, wk->rhs, wk->Binv, wk->pivoted);
        leaving = wk->basis[r];
        wk->basis[r] = entering;
        count++;
        if (!rs_all_finite(wk->rhs, nn)) {
            status = RS_LEMKE_BREAKDOWN;
            break;
        }
        if (leaving == 2 * n)
            break; /* z0 left: complementary basis */
        if (count >= LEMKE_WATCH_AFTER(n)) {
            if (power == 0) {
                for (int i = 0; i < n; i++)
                    key ^= lemke_key(wk->basis[i]);
                saved = key;
                power = 1;
            } else {
                key ^= lemke_key(leaving) ^ lemke_key(entering);
                if (key == saved) {
                    status = RS_LEMKE_BREAKDOWN; /* the basis repeats: the path cycles */
                    break;
                }
                if (++lambda == power) {
                    saved = key;
                    power *= 2;
                    lambda = 0;
                }
            }
        }
    }
    lemke_extract_z(n, wk->basis, wk->rhs, z_exponent, z);
    *pivots = count;
    return status;
}

/* Sweeps of iterative refinement in lemke_refine. Each removes most of the error a solve by the
 * same factors leaves, as long as cond(B) eps is well below 1; on a 1e6 kg disc resting on a
 * 1 kg box (tests/data/heavy_disc_step168.dat) the re-solved basis missed its cone row by 1.7e-10
 * of the normal force, and after two sweeps by rounding. */
#define LEMKE_REFINE_SWEEPS 2

/* r = q - B x for the basis columns (lemke_basis_solve's B), accumulated in long double (on
 * x86-64, 64 bits of mantissa): the residual that refines x must carry the digits its own
 * rounding lost. Where long double is double (valgrind's emulation of x87, other platforms) the
 * refinement runs in double: each sweep is still kept only if it helps (lemke_refine), and
 * test_heavy_load_basis_is_refined passes under valgrind too. */
LEMKE_INLINE void lemke_basis_residual(int n, const double *M, double m_factor, const double *d,
                                       const int *basis, const double *q, const double *x,
                                       double *r)
{
    const size_t nn = (size_t)n;
    for (int i = 0; i < n; i++) {
        long double ri = q[i];
        for (int p = 0; p < n; p++) {
            const int v = basis[p];
            if (v < n) /* w_v: a column of I */
                ri -= v == i ? x[p] : 0.0;
            else if (v < 2 * n) /* z_(v-n): a column of -M */
                ri += (long double)(M[(size_t)(v - n) * nn + (size_t)i] * m_factor) * x[p];
            else /* z0: -d */
                ri += (long double)d[i] * x[p];
        }
        r[i] = (double)ri;
    }
}

/*
 * Refinement of a terminal basis whose z has certificate *cert: re-solve B x_B = q directly (at
 * unit scale), then refine it (up to LEMKE_REFINE_SWEEPS times: B d = q - B x, the residual in
 * long double, x += d), keeping each z (in z, w, *cert) whose relative natural residual is no
 * larger than the last kept one's; the first that is larger ends it. Returns 1 if any was kept.
 */
static int lemke_refine(int n, const double *M, const double *q, lemke_scale scale,
                        const lemke_work *wk, double cert_tol, double *z, double *w,
                        rs_lcp_certificate *cert)
{
    if (!lemke_basis_solve(n, M, scale.m_factor, wk->d, wk->basis, wk->q, wk->LU, wk->piv,
                           wk->x))
        return 0;
    int kept = 0;
    for (int sweep = 0;; sweep++) {
        lemke_extract_z(n, wk->basis, wk->x, scale.z_exponent, wk->zc);
        rs_lcp_residual(n, M, q, wk->zc, wk->wc);
        rs_lcp_certificate refined;
        lemke_certify(n, M, q, wk->zc, wk->wc, cert_tol, wk, scale, &refined);
        /* near a singular basis (cond(B) eps near 1) a sweep can make x worse: it ends there */
        if (!refined.finite || refined.rel_natural_residual > cert->rel_natural_residual)
            break;
        memcpy(z, wk->zc, (size_t)n * sizeof(double));
        memcpy(w, wk->wc, (size_t)n * sizeof(double));
        *cert = refined;
        kept = 1;
        if (sweep == LEMKE_REFINE_SWEEPS || refined.rel_natural_residual == 0.0)
            break;
        lemke_basis_residual(n, M, scale.m_factor, wk->d, wk->basis, wk->q, wk->x, wk->rhs);
        lemke_lu_solve(n, wk->LU, wk->piv, wk->rhs);
        for (int i = 0; i < n; i++)
            wk->x[i] += wk->rhs[i];
        if (!rs_all_finite(wk->x, (size_t)n))
            break;
    }
    return kept;
}

/*
 * The cold lexicographic solve on checked arguments, d = NULL meaning the covering vector e.
 * Always inlined, so that lemke_solve_checked can instantiate it with n a compile-time constant:
 * at the sizes of contact problems gcc then unrolls every loop over rows and columns, which is
 * where a small solve spends its time (at n = 2, half the instructions).
 */
LEMKE_INLINE void lemke_solve_core(int n, const double *M, const double *q, const double *d,
                                   const rs_lemke_settings *s, const lemke_work *wk, double *z,
                                   double *w, rs_lemke_info *info)
{
    const int max_pivots = lemke_pivot_limit(s, n);
    const lemke_scale scale =
        lemke_unit_scale(n, M, q, d, wk->cert, wk->cert + n, wk->rows, wk->q, wk->d, NULL);
    const double *qu = wk->q;

    int r = lemke_first_row(n, qu, wk->d, s->tie_tol, wk->ratio);
    rs_lemke_status status = RS_LEMKE_SOLVED;
    int pivots = 0;
    if (r < 0) {
        for (int i = 0; i < n; i++)
            z[i] = 0.0;
    } else {
        status = lemke_pivoting(n, M, scale.m_factor, scale.z_exponent, qu, r, wk, max_pivots,
                                s->pivot_tol, s->tie_tol, z, &pivots);
    }
    rs_lcp_certificate cert;
    rs_lcp_residual(n, M, q, z, w);
    lemke_certify(n, M, q, z, w, s->cert_tol, wk, scale, &cert);

    /* Refinement (refine 1: only when the pivoted answer fails its certificate; 2: always). */
    int refined = 0;
    if (r >= 0 && status == RS_LEMKE_SOLVED && (s->refine == 2 || (s->refine == 1 && !cert.passed)))
        refined = lemke_refine(n, M, q, scale, wk, s->cert_tol, z, w, &cert);
    if (status == RS_LEMKE_SOLVED && !cert.passed)
        status = RS_LEMKE_BREAKDOWN;
    /* A ray reached while z0 is already (numerically) 0: the z it ends with can be a solution,
     * and the certificate, not the path, decides (seen on a friction problem at n = 48) */
    if (status == RS_LEMKE_RAY_TERMINATION && cert.passed)
        status = RS_LEMKE_SOLVED;
    info->status = status;
    info->pivots = pivots;
    info->refined = refined;
    info->warm_started = 0;
    info->equilibrated = 0;
    info->cert = cert;
}

/*
 * A symmetric scaling S (powers of two) that balances M's rows against its columns: each S_i
 * brings the geometric mean of row i's and column i's largest entries of S M S near 1 (Ruiz's
 * sweeps, at most 32). LCP(S M S, S q) is LCP(M, q) with z = S z' and w = w' / S (S > 0), and a
 * symmetric scaling keeps what Lemke's method relies on (P, copositive-plus): only its rows and
 * columns, in the units of the contact problem (velocities against impulses, a step of 1e-12 s),
 * come to one size. Returns 0 if S is the identity.
 */
static int lemke_balance(int n, const double *M, double *S)
{
    const size_t nn = (size_t)n;
    int any = 0;
    for (int i = 0; i < n; i++)
        S[i] = 1.0;
    for (int sweep = 0; sweep < 32; sweep++) {
        int changed = 0;
        for (int i = 0; i < n; i++) {
            double r = 0.0, c = 0.0;
            for (int j = 0; j < n; j++) {
                r = rs_max2(r, fabs(M[(size_t)i + (size_t)j * nn]) * S[j]);
                c = rs_max2(c, fabs(M[(size_t)j + (size_t)i * nn]) * S[j]);
            }
            r *= S[i];
            c *= S[i];
            const double g = r > 0.0 && c > 0.0 ? sqrt(r) * sqrt(c) : rs_max2(r, c);
            const int f = rs_ruiz_step(g, S[i]);
            if (f != 0) {
                S[i] *= rs_power_of_two(f);
                changed = any = 1;
            }
        }
        if (!changed)
            break;
    }
    return any;
}

/* The cold solve with n a constant for the sizes of small contact problems, n = 1..8: at n = 6
 * a constant n takes about a sixth off a solve; the instances for n = 5..8 add about 50 KB of
 * code. */
static void lemke_solve_sized(int n, const double *M, const double *q, const double *d,
                              const rs_lemke_settings *s, const lemke_work *wk, double *z,
                              double *w, rs_lemke_info *info)
{
    assert(n >= 1 && M && q && wk && z && w && info); /* rs_lemke_solve validated them */
#define LEMKE_SOLVE_CORE(size) lemke_solve_core(size, M, q, d, s, wk, z, w, info)
    switch (n) {
    case 1: LEMKE_SOLVE_CORE(1); break;
    case 2: LEMKE_SOLVE_CORE(2); break;
    case 3: LEMKE_SOLVE_CORE(3); break;
    case 4: LEMKE_SOLVE_CORE(4); break;
    case 5: LEMKE_SOLVE_CORE(5); break;
    case 6: LEMKE_SOLVE_CORE(6); break;
    case 7: LEMKE_SOLVE_CORE(7); break;
    case 8: LEMKE_SOLVE_CORE(8); break;
    default: LEMKE_SOLVE_CORE(n); break;
    }
#undef LEMKE_SOLVE_CORE
}

/*
 * A last resort is held to more than the certificate: each row of w against its own terms,
 * |q_i| + sum_j |M_ij z_j|, within tol: no w_i below -tol of them, and no pair with both z_i
 * (relative to z's largest) and |w_i| (relative to its terms) above tol. Stricter than the
 * certificate, which a row that z does not move can pass (certificates.md, known limits); a
 * rows-scaled answer that fails it is refused rather than reported solved.
 */
static int lemke_rows_hold(int n, const double *M, const double *q, const double *z,
                           const double *w, double tol)
{
    double z_max = 0.0;
    for (int i = 0; i < n; i++)
        z_max = rs_max2(z_max, fabs(z[i]));
    for (int i = 0; i < n; i++) {
        double terms = fabs(q[i]);
        for (int j = 0; j < n; j++)
            terms += fabs(M[(size_t)i + (size_t)j * (size_t)n] * z[j]);
        if (w[i] < -tol * terms)
            return 0;
        if (z[i] > tol * z_max && fabs(w[i]) > tol * terms)
            return 0;
    }
    return 1;
}

/* The answer of a transformed problem (balanced, or its rows scaled), mapped back into wk->zs,
 * judged against the problem as given: w recomputed, the certificate on M's own equilibration
 * (the transformed solve replaced it in wk->cert) and, for a last resort (held_to_rows), each
 * row against its own terms too (lemke_rows_hold). 1 (z, w and info its answer's) if it passes. */
static int lemke_keep_if_certified(int n, const double *M, const double *q,
                                   const rs_lemke_settings *s, const lemke_work *wk,
                                   int held_to_rows, int refined, int equilibrated, double *z,
                                   double *w, rs_lemke_info *info)
{
    rs_lcp_residual(n, M, q, wk->zs, wk->ws);
    rs_lcp_certificate cert;
    const double m_inf = rs_lcp_equilibrate(n, M, wk->cert, wk->cert + n, wk->rows, NULL);
    rs_lcp_certificate_in(n, M, q, wk->zs, wk->ws, s->cert_tol, wk->cert, wk->cert + n, m_inf,
                          &cert);
    if (!cert.passed || (held_to_rows && !lemke_rows_hold(n, M, q, wk->zs, wk->ws, s->cert_tol)))
        return 0;
    memcpy(z, wk->zs, (size_t)n * sizeof(double));
    memcpy(w, wk->ws, (size_t)n * sizeof(double));
    info->status = RS_LEMKE_SOLVED;
    info->refined = refined;
    info->equilibrated = equilibrated;
    info->cert = cert;
    return 1;
}

/* Solve a transformed problem, wk->Ms and wk->qs with its row factors in wk->S, into wk->zs: its
 * covering vector is the caller's d mapped (S d), or without one e, the transformed problem's
 * own (for the balanced problem a good one: S e solves 775 fewer of the 100,000 noisiest LCPs of
 * study noisy-sticking). S is bounded, but its products with a caller's extreme entries need
 * not be: a problem that is not finite (S d overflowing, say) is not tried (its pivots would run
 * on infinities). The pivoted basic values carry the rounding of the largest row: the final
 * basis is always re-solved. Its pivots count in info; 1 (and *refined) if it solved. */
static int lemke_solve_transformed(int n, const double *d, const rs_lemke_settings *s,
                                   const lemke_work *wk, rs_lemke_info *info, int *refined)
{
    const size_t nn = (size_t)n;
    for (int i = 0; i < n; i++)
        wk->ds[i] = d ? wk->S[i] * d[i] : 1.0;
    if (!rs_all_finite(wk->Ms, nn * nn) || !rs_all_finite(wk->qs, nn) ||
        !rs_all_finite(wk->ds, nn))
        return 0;
    for (int i = 0; i < n; i++)
        if (!(wk->ds[i] > 0.0))
            return 0;
    rs_lemke_info solved;
    rs_lemke_settings always_refined = *s;
    always_refined.refine = 2;
    lemke_solve_sized(n, wk->Ms, wk->qs, wk->ds, &always_refined, wk, wk->zs, wk->ws, &solved);
    info->pivots += solved.pivots;
    *refined = solved.refined;
    return solved.status == RS_LEMKE_SOLVED;
}

/*
 * When the problem as given fails (a ray, or an answer its certificate refuses), the same
 * problem balanced (lemke_balance): an LCP whose rows and columns are of very different sizes
 * can end on a ray after 0 pivots because its one blocking entry falls below the pivot
 * tolerance (M = [[1e-13, 0], [0.1, 0]], q = (-9.81e-12, 0): z = (98.1, 0)). The balanced
 * problem's answer, mapped back (z = S z', exact), is judged by the certificate of the problem
 * as given, and kept only if it passes: then 1 (info, z and w are its answer's), else 0.
 */
static int lemke_try_balanced(int n, const double *M, const double *q, const double *d,
                              const rs_lemke_settings *s, const lemke_work *wk, double *z,
                              double *w, rs_lemke_info *info)
{
    if (!lemke_balance(n, M, wk->S))
        return 0;
    const size_t nn = (size_t)n;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++)
            wk->Ms[(size_t)i + (size_t)j * nn] =
                wk->S[i] * M[(size_t)i + (size_t)j * nn] * wk->S[j];
        wk->qs[j] = wk->S[j] * q[j];
    }
    int refined;
    if (!lemke_solve_transformed(n, d, s, wk, info, &refined))
        return 0;
    for (int i = 0; i < n; i++)
        wk->zs[i] *= wk->S[i];
    return lemke_keep_if_certified(n, M, q, s, wk, 0, refined, 1, z, w, info);
}

/*
 * An answer another covering vector found is held to its rows in the problem's own unit too
 * (D, C: M's equilibration, D M C; S the largest |D_i q_i|; m the largest entry of D M C): each
 * D_i w_i at least -tol times max(|D_i q_i|, P), P the largest push (-D_i q_i; S when q >= 0),
 * each z_i / C_i at least -tol times max(z's largest, P / m), and no pair with both of those
 * above tol. P is at most the certificate's unit and equal to it when the largest |q_i| is a
 * push, so the check bites only where positive entries of q dominate. The certificate's
 * row unit grows with z, up to S, and the paths of other covering vectors can follow a ray of an
 * infeasible LCP far out: M's rows 0 to 2 summing to 0 (w_0 + w_1 + w_2 = q_0 + q_1 + q_2 < 0
 * for every z), q = (1e-9, -1, 1e-11, 1e9), end at z of 5e12 to 1e13 times P / m with
 * D w = -P / 2 in a row, which the certificate, in a unit of S = 1e9 P, passes. The answers of
 * contact problems do not grow with the path: the box on a box of 1e-4 its mass has z at 3e4
 * P / m (its load), and its rows hold in this unit to 1e-11. D and C are put in wk->cert.
 */
static int lemke_rows_in_own_unit(int n, const double *M, const double *q, const double *z,
                                  const double *w, double tol, const lemke_work *wk)
{
    const double m_inf = rs_lcp_equilibrate(n, M, wk->cert, wk->cert + n, wk->rows, NULL);
    const double *D = wk->cert, *C = wk->cert + n;
    double push = 0.0, q_inf = 0.0, z_inf = 0.0;
    for (int i = 0; i < n; i++) {
        push = rs_max2(push, -D[i] * q[i]);
        q_inf = rs_max2(q_inf, fabs(D[i] * q[i]));
        z_inf = rs_max2(z_inf, fabs(z[i]) * rs_inverse_factor(C[i]));
    }
    const double unit = push > 0.0 ? push : q_inf;
    if (!(unit > 0.0)) /* q = 0: z = 0 answers it, and the certificate judged w in M z's terms */
        return 1;
    if (m_inf > 0.0)
        z_inf = rs_max2(z_inf, unit / m_inf);
    for (int i = 0; i < n; i++) {
        const double wr = D[i] * w[i] / rs_max2(fabs(D[i] * q[i]), unit);
        const double zr = z_inf > 0.0 ? z[i] * rs_inverse_factor(C[i]) / z_inf : 0.0;
        if (!(wr >= -tol) || !(zr >= -tol) || !(fabs(rs_min2(zr, wr)) <= tol))
            return 0;
    }
    return 1;
}

/*
 * The third attempt, when the problem as given and balanced both fail: the problem as given with
 * other covering vectors, d_i (1 + frac((i + 1) f)) for f the fractional parts of phi (the
 * golden ratio), then of sqrt 2, sqrt 3 and sqrt 5 (deterministic, every entry in [d_i, 2 d_i),
 * no two alike), the first whose answer passes, within what is left of the pivot budget. Lemke's
 * path depends on d; on the degenerate LCPs of contact (a box face on a face: four contacts along
 * two lines, their normal rows dependent) the path of d = e can meet a tie that rounding resolves
 * onto a ray, where another d's path does not (a 64-box pile's step, n = 168: d = e ends on a
 * ray after 84 pivots, phi's solves it in 86). A box resting on a box of 1e-4 its mass
 * (mu = 0.5) has steps whose paths of e and of phi both end on a vertex that rounding puts
 * outside the certificate, opposite friction forces of mu N at an interface's two corners (a
 * direction the contact forces do not see: a near-singular basis whose rows round to 2.5e-12 of
 * their terms), 1 step in 500 at mass ratios 1e4 to 1e6; the path of sqrt 2 solves them. Kept
 * only if it passes the certificate of the problem as given and its rows hold in the problem's
 * own unit (lemke_rows_in_own_unit).
 */
static int lemke_try_covering(int n, const double *M, const double *q, const double *d,
                              const rs_lemke_settings *s, const lemke_work *wk, double *z,
                              double *w, rs_lemke_info *info)
{
    static const double fractions[] = {0.6180339887498949, 0.4142135623730950,
                                       0.7320508075688772, 0.2360679774997897};
    rs_lemke_settings rest = *s;
    /* s->max_pivots > 0: what the caller left of the solve's budget, for these paths together */
    const int budget_end = info->pivots + s->max_pivots;
    for (size_t t = 0; t < sizeof fractions / sizeof *fractions; t++) {
        if ((rest.max_pivots = budget_end - info->pivots) <= 0)
            return 0;
        for (int i = 0; i < n; i++)
            wk->ds[i] = (d ? d[i] : 1.0) * (1.0 + fmod((i + 1) * fractions[t], 1.0));
        rs_lemke_info other;
        lemke_solve_sized(n, M, q, wk->ds, &rest, wk, wk->zs, wk->ws, &other);
        info->pivots += other.pivots;
        if (other.status != RS_LEMKE_SOLVED ||
            !lemke_rows_in_own_unit(n, M, q, wk->zs, wk->ws, s->cert_tol, wk))
            continue;
        memcpy(z, wk->zs, (size_t)n * sizeof(double));
        memcpy(w, wk->ws, (size_t)n * sizeof(double));
        info->status = RS_LEMKE_SOLVED;
        info->refined = other.refined;
        info->covering_changed = 1;
        info->cert = other.cert;
        return 1;
    }
    return 0;
}

/*
 * The fourth attempt, when the others failed: each row of the problem scaled to its own size with
 * q's entry in it, LCP(R M, R q) with R_i a power of two near 1 / max(max_j |M_ij|, |q_i|): the
 * same solutions (R > 0 scales w only). A q whose entries span many orders of magnitude (rows
 * that need no push, q_i 1e12 times their w_i) puts the rows that need one near 1e-12 at unit
 * scale, where the ratio test's tie tolerance, whose floor is 1, can no longer tell their ratios
 * apart: the path takes a wrong pivot and its answer fails the certificate. Scaled this way every
 * row's q_i is at most 1 and a row that needs no push has small entries in M, so it does not
 * block. Tried only for such a q; kept only if it passes the certificate of the problem as given
 * (equilibrated = 2).
 */
static int lemke_try_rows(int n, const double *M, const double *q, const double *d,
                          const rs_lemke_settings *s, const lemke_work *wk, double *z, double *w,
                          rs_lemke_info *info)
{
    const size_t nn = (size_t)n;
    /* only for a q as wide as that: a row to push below 1e-9 of q's largest entry. Elsewhere
     * the scaled rows add answers the certificate cannot refuse: on an infeasible LCP
     * (M = [[0, -1e4], [-1e-4, 0]], q = (-1e-6, 1)) the scaled problem's refined answer leaves
     * w_1 = q_1 in a row z does not move, one of its known limits (certificates.md) */
    double q_max = 0.0, push_min = INFINITY;
    for (int i = 0; i < n; i++) {
        q_max = rs_max2(q_max, fabs(q[i]));
        push_min = q[i] < 0.0 ? rs_min2(push_min, -q[i]) : push_min;
    }
    if (!(push_min < 1e-9 * q_max))
        return 0;
    int uniform = 1;
    for (int i = 0; i < n; i++) {
        double r = fabs(q[i]);
        for (int j = 0; j < n; j++)
            r = rs_max2(r, fabs(M[(size_t)i + (size_t)j * nn]));
        wk->S[i] = rs_power_of_two(-rs_unit_exponent(r)); /* 1 for a zero row */
        uniform &= wk->S[i] == wk->S[0];
    }
    if (uniform) /* the unit scale does this already */
        return 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            wk->Ms[(size_t)i + (size_t)j * nn] = wk->S[i] * M[(size_t)i + (size_t)j * nn];
    for (int i = 0; i < n; i++)
        wk->qs[i] = wk->S[i] * q[i];
    int refined;
    if (!lemke_solve_transformed(n, d, s, wk, info, &refined))
        return 0;
    return lemke_keep_if_certified(n, M, q, s, wk, 1, refined, 2, z, w, info); /* same z */
}

/* The cold solve (at n <= RS_LEMKE_SMALL_MAX the small-problem path first, unless small_tried
 * says it ran already), then when the problem as given fails (a ray, or a breakdown), the
 * balanced problem, then other covering vectors, then the rows scaled with q: the first answer
 * that passes its certificate. */
static void lemke_solve_checked(int n, const double *M, const double *q, const double *d,
                                const rs_lemke_settings *settings, void *work, int small_tried,
                                double *z, double *w, rs_lemke_info *info)
{
    const rs_lemke_settings s = *lemke_settings_or_default(settings);
    if (!small_tried && n <= RS_LEMKE_SMALL_MAX && s.refine != 2 &&
        rs_lemke_small_solve(n, M, q, d, &s, z, w, info) > 0)
        return;
    lemke_work wk;
    lemke_work_map((size_t)n, work, &wk);
    lemke_solve_sized(n, M, q, d, &s, &wk, z, w, info);
    info->covering_changed = 0;
    if (info->status != RS_LEMKE_RAY_TERMINATION && info->status != RS_LEMKE_BREAKDOWN)
        return;
    /* max_pivots bounds every attempt together: the later ones get what is left */
    rs_lemke_settings rest = s;
    const int budget = lemke_pivot_limit(&s, n);
    if ((rest.max_pivots = budget - info->pivots) <= 0)
        return;
    if (lemke_try_balanced(n, M, q, d, &rest, &wk, z, w, info))
        return;
    if ((rest.max_pivots = budget - info->pivots) > 0 &&
        lemke_try_covering(n, M, q, d, &rest, &wk, z, w, info))
        return;
    if ((rest.max_pivots = budget - info->pivots) > 0)
        lemke_try_rows(n, M, q, d, &rest, &wk, z, w, info);
}

/* rs_lemke_solve; small_tried: the small-problem path ran already and did not answer. */
static rs_error lemke_solve(int n, const double *M, const double *q, const double *d,
                            const rs_lemke_settings *settings, void *work, size_t work_bytes,
                            int small_tried, double *z, double *w, rs_lemke_info *info,
                            rs_error_detail *detail)
{
    const rs_error err =
        lemke_check_args(n, M, q, d, settings, work, work_bytes, z, w, info, detail);
    if (err != RS_OK)
        return err;
    lemke_solve_checked(n, M, q, d, settings, work, small_tried, z, w, info);
    return RS_OK;
}

rs_error rs_lemke_solve(int n, const double *M, const double *q, const double *d,
                        const rs_lemke_settings *settings, void *work, size_t work_bytes,
                        double *z, double *w, rs_lemke_info *info, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    return lemke_solve(n, M, q, d, settings, work, work_bytes, 0, z, w, info, detail);
}

/* rs_lemke_solve_alloc past the small-problem path: the general solve with a workspace on the
 * stack (8 KiB: a contact problem's size needs no allocation) or from the heap. Not inlined, so
 * that the small path's call does not set up this frame. */
LEMKE_NOINLINE rs_error lemke_solve_alloc_general(int n, const double *M, const double *q,
                                                  const double *d,
                                                  const rs_lemke_settings *settings,
                                                  int small_tried, double *z, double *w,
                                                  rs_lemke_info *info, rs_error_detail *detail)
{
    const size_t bytes = rs_lemke_workspace_size(n);
    double stack[1024];
    if (bytes == 0 || bytes <= sizeof stack) /* (n out of range: the checks say so) */
        return lemke_solve(n, M, q, d, settings, stack, sizeof stack, small_tried, z, w, info,
                           detail);
    void *work = malloc(bytes);
    if (!work)
        return rs_detail_set(detail, RS_ERR_NOMEM, "rs_lemke_solve_alloc: no memory for the "
                                                   "workspace of n = %d (%zu bytes)", n, bytes);
    const rs_error err =
        lemke_solve(n, M, q, d, settings, work, bytes, small_tried, z, w, info, detail);
    free(work);
    return err;
}

rs_error rs_lemke_solve_alloc(int n, const double *M, const double *q, const double *d,
                              const rs_lemke_settings *settings, double *z, double *w,
                              rs_lemke_info *info, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    int small_tried = 0;
    if (n >= 1 && n <= RS_LEMKE_SMALL_MAX && !d && M && q && z && w && info &&
        info->size == sizeof *info &&
        (!settings || rs_lemke_settings_validate(settings, NULL) == RS_OK)) {
        /* a small problem: its own path first, without a workspace (lemke_small.c), then, where
         * that path does not answer, the general solve (which does not try it again) */
        const rs_lemke_settings *s = lemke_settings_or_default(settings);
        if (s->refine != 2) {
            const int small = rs_lemke_small_solve(n, M, q, NULL, s, z, w, info);
            if (small != 0)
                return small > 0 ? RS_OK
                                 : rs_detail_set(detail, RS_ERR_NONFINITE, "rs_lemke_solve_alloc: "
                                                 "M or q has a NaN or an infinity");
            small_tried = 1;
        }
    }
    return lemke_solve_alloc_general(n, M, q, d, settings, small_tried, z, w, info, detail);
}

/* How far below zero a basic variable of a guessed basis may come out (relative to the largest
 * basic value, at unit scale): rounding, about 100 ulp, and no more. */
#define LEMKE_WARM_FEASIBILITY 1e-13

/*
 * The guessed basis of a warm start (z_i basic where basis_guess[i], else w_i), solved by LU,
 * feasible to rounding and certified; 1 (info filled) if it solves the LCP. Always inlined, so
 * that the guess is instantiated per small n, n = 1..4, as the cold solve is (lemke_solve_core).
 */
LEMKE_INLINE int lemke_try_basis(int n, const double *M, const double *q, const double *d,
                                 const unsigned char *basis_guess, double cert_tol,
                                 const lemke_work *wk, double *z, double *w, rs_lemke_info *info)
{
    const lemke_scale scale = /* d: unused by this basis */
        lemke_unit_scale(n, M, q, d, wk->cert, wk->cert + n, wk->rows, wk->q, wk->d, NULL);
    for (int i = 0; i < n; i++)
        wk->basis[i] = basis_guess[i] ? n + i : i;
    if (!lemke_basis_solve(n, M, scale.m_factor, wk->d, wk->basis, wk->q, wk->LU, wk->piv,
                           wk->x))
        return 0;
    /* Every basic variable nonnegative to rounding, not merely within the certificate's
     * tolerance: a wrong basis whose answer is a little infeasible (a friction impulse of
     * -1e-8 of the normal one, a creep at rest) passes a relative certificate, yet the cold
     * solve gives another answer. The problem is at unit scale here, so the bound is relative
     * to the basic values themselves. */
    double xmax = 1.0;
    for (int i = 0; i < n; i++)
        xmax = rs_max2(xmax, fabs(wk->x[i]));
    for (int i = 0; i < n; i++)
        if (!(wk->x[i] >= -LEMKE_WARM_FEASIBILITY * xmax))
            return 0;
    lemke_extract_z(n, wk->basis, wk->x, scale.z_exponent, z);
    rs_lcp_residual(n, M, q, z, w);
    rs_lcp_certificate cert;
    lemke_certify(n, M, q, z, w, cert_tol, wk, scale, &cert);
    if (!cert.passed)
        return 0;
    info->status = RS_LEMKE_SOLVED;
    info->pivots = 0;
    info->refined = 0;
    info->warm_started = 1;
    info->equilibrated = 0;
    info->covering_changed = 0;
    info->cert = cert;
    return 1;
}

rs_error rs_lemke_solve_warm(int n, const double *M, const double *q, const double *d,
                             const rs_lemke_settings *settings, const unsigned char *basis_guess,
                             void *work, size_t work_bytes, double *z, double *w,
                             rs_lemke_info *info, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!basis_guess)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "rs_lemke_solve_warm: basis_guess is NULL");
    const rs_error err =
        lemke_check_args(n, M, q, d, settings, work, work_bytes, z, w, info, detail);
    if (err != RS_OK)
        return err;
    const rs_lemke_settings s = *lemke_settings_or_default(settings);
    lemke_work wk;
    lemke_work_map((size_t)n, work, &wk);
    int solved;
#define LEMKE_TRY_BASIS(size) \
    lemke_try_basis(size, M, q, d, basis_guess, s.cert_tol, &wk, z, w, info)
    switch (n) {
    case 1: solved = LEMKE_TRY_BASIS(1); break;
    case 2: solved = LEMKE_TRY_BASIS(2); break;
    case 3: solved = LEMKE_TRY_BASIS(3); break;
    case 4: solved = LEMKE_TRY_BASIS(4); break;
    default: solved = LEMKE_TRY_BASIS(n); break;
    }
#undef LEMKE_TRY_BASIS
    if (!solved) /* a wrong guess: the cold solve, from scratch (it overwrites z and w) */
        lemke_solve_checked(n, M, q, d, settings, work, 0, z, w, info);
    return RS_OK;
}
