/* noisy_sticking.c: the noisy-LCP sticking Monte Carlo (see noisy_sticking.h). */
#include <math.h>
#include <string.h>

#include "core/rng.h"
#include "core/timer.h"
#include "relaxsim/lcp.h"
#include "study/noisy_sticking.h"

#define M_BLOCK 1.0
#define MU 0.5
#define G_ACC 9.81
#define DT 0.01

void rs_stick_config_default(rs_stick_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    const double sigmas[] = {1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0};
    cfg->nsigma = 7;
    memcpy(cfg->sigma, sigmas, sizeof sigmas);
    cfg->samples = 100000;
    cfg->seed = 1;
    cfg->stick_tol = 1e-9;
    cfg->near_tol = 1e-3;
    cfg->v_b = 0.03;
}

/* The standard normal quantile: the x with Phi(x) = p, 0.5 <= p < 1, by bisection on
 * Phi(x) = erfc(-x / sqrt 2) / 2 (to about 1e-12 in x: enough for an interval's width). */
static double normal_quantile(double p)
{
    double lo = 0.0, hi = 40.0;
    for (int it = 0; it < 60; it++) {
        const double mid = 0.5 * (lo + hi);
        if (0.5 * erfc(-mid / sqrt(2.0)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double rs_stick_simultaneous_z(int nsigma)
{
    const double alpha = 0.05 / (RS_STICK_INTERVALS_PER_SIGMA * (double)nsigma);
    return normal_quantile(1.0 - 0.5 * alpha);
}

/* The Wilson score interval of a binomial fraction k / n at normal quantile z. */
static void wilson(long k, long n, double z, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    const double p = (double)k / (double)n, nn = (double)n;
    const double centre = (p + z * z / (2 * nn)) / (1 + z * z / nn);
    const double half = z * sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / (1 + z * z / nn);
    *lo = fmax(0.0, centre - half);
    *hi = fmin(1.0, centre + half);
}

/* One case at one sigma: samples noisy LCPs of the block at velocity v and push u. */
static void run_case(const rs_stick_config *cfg, double sigma, double v, double u, double z_int,
                     long before, rs_rng *rng, void *work, size_t work_bytes, rs_stick_case *out)
{
    const double c = DT / M_BLOCK;
    /* the true (G, f), column-major */
    const double G0[9] = {c, -c, -1.0, -c, c, -1.0, 1.0, 1.0, 0.0};
    const double f0[3] = {v + c * u, -(v + c * u), MU * M_BLOCK * G_ACC};
    rs_lemke_settings st;
    rs_lemke_settings_default(&st);
    memset(out, 0, sizeof *out);
    const long total = 2L * cfg->nsigma * cfg->samples;
    for (long s = 0; s < cfg->samples; s++) {
        if (s % 4096 == 0) /* before: the samples of the cases already run */
            rs_study_report(&cfg->progress, before + s, total);
        double G[9], f[3], z[3], w[3];
        for (int e = 0; e < 9; e++)
            G[e] = G0[e] + sigma * rs_rng_normal(rng);
        for (int i = 0; i < 3; i++)
            f[i] = f0[i] + sigma * rs_rng_normal(rng);
        rs_lemke_info info = {.size = sizeof info};
        if (rs_lemke_solve(3, G, f, NULL, &st, work, work_bytes, z, w, &info, NULL) != RS_OK ||
            info.status != RS_LEMKE_SOLVED) {
            out->unsolved++;
            continue;
        }
        out->solved++;
        const double v_next = v + c * (u + z[0] - z[1]); /* the true integrator */
        out->stuck += fabs(v_next) <= cfg->stick_tol;
        out->near += fabs(v_next) <= cfg->near_tol;
    }
    /* of all samples, as the note counts: an LCP Lemke cannot solve gives no step, so no
     * sticking step */
    out->fraction = (double)out->stuck / (double)cfg->samples;
    out->near_fraction = (double)out->near / (double)cfg->samples;
    wilson(out->stuck, cfg->samples, z_int, &out->lo, &out->hi);
    wilson(out->near, cfg->samples, z_int, &out->near_lo, &out->near_hi);
}

rs_error rs_stick_run(const rs_stick_config *cfg, rs_stick_result *out)
{
    memset(out, 0, sizeof *out);
    if (cfg->nsigma < 1 || cfg->nsigma > RS_STICK_MAX_SIGMAS || cfg->samples < 100 ||
        cfg->samples > 100000000L || !(cfg->stick_tol > 0.0) || !(cfg->near_tol > 0.0) ||
        !isfinite(cfg->near_tol) || !isfinite(cfg->v_b))
        return RS_ERR_BAD_SETTING;
    for (int i = 0; i < cfg->nsigma; i++)
        if (!(cfg->sigma[i] >= 0.0 && cfg->sigma[i] <= 1e6))
            return RS_ERR_BAD_SETTING;
    double work[512]; /* 4 KiB, aligned for the solver's doubles */
    const size_t need = rs_lemke_workspace_size(3);
    if (need > sizeof work)
        return RS_ERR_NOMEM;
    const double t0 = rs_wall_seconds();
    rs_rng rng;
    rs_rng_seed(&rng, cfg->seed);
    out->nsigma = cfg->nsigma;
    out->z = rs_stick_simultaneous_z(cfg->nsigma);
    for (int i = 0; i < cfg->nsigma; i++) {
        const long before = 2L * i * cfg->samples;
        run_case(cfg, cfg->sigma[i], 0.0, 0.0, out->z, before, &rng, work, sizeof work,
                 &out->a[i]);
        run_case(cfg, cfg->sigma[i], cfg->v_b, 0.0, out->z, before + cfg->samples, &rng, work,
                 sizeof work, &out->b[i]);
    }
    rs_study_report(&cfg->progress, 2L * cfg->nsigma * cfg->samples,
                    2L * cfg->nsigma * cfg->samples);
    out->time_s = rs_wall_seconds() - t0;
    return RS_OK;
}
