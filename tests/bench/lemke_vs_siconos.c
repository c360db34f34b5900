/*
 * lemke_vs_siconos.c: relaxsim's Lemke against Siconos numerics' lexicographic Lemke
 * (lcp_lexicolemke, Debian libsiconos-numerics-dev) on the same generated LCPs (not a test).
 *
 * For each class and size: the median time per solve of each solver (each solve repeated in
 * batches of at least 2 ms, median of 5 batches, median over seeds), their ratio, and how many
 * problems each solved. Each library's one-call form: lcp_lexicolemke allocates its tableau on
 * every call; relaxsim's rs_lemke_solve_alloc provides its workspace on every call (on the stack
 * up to 8 KiB, n <= 15; from the heap above). relaxsim's time includes the certificate it
 * recomputes for its status. Beside it: relaxsim with a workspace reused across calls (how time
 * stepping uses it) and with one malloc'd and freed per call, and the certificate alone
 * (rs_lcp_certificate_compute on relaxsim's answer), which shows what share of a solve it is. The target: the ratio at most 1 at
 * every n <= 10. "Solved" is judged the same way
 * for both: the solver's own status is success (RS_LEMKE_SOLVED; Siconos info 0) AND the
 * certificate recomputed by relaxsim from the returned z passes at 1e-9.
 *
 *   lemke_vs_siconos [--problems K]
 */
#include <math.h>
#include <siconos/numerics/LCP_Solvers.h>
#include <siconos/numerics/LinearComplementarityProblem.h>
#include <siconos/numerics/NumericsMatrix.h>
#include <siconos/numerics/SolverOptions.h>
#include <siconos/numerics/lcp_cst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relaxsim/relaxsim.h"
#include "bench_util.h"

typedef struct siconos_lcp {
    NumericsMatrix *M;
    LinearComplementarityProblem problem;
    SolverOptions *options;
    int info;
} siconos_lcp;

/* Wrap relaxsim's column-major M (Siconos' dense storage is column-major too) without copying. */
static void siconos_setup(siconos_lcp *s, const rs_lcp *l)
{
    s->M = NM_new();
    s->M->storageType = NM_DENSE;
    s->M->size0 = l->n;
    s->M->size1 = l->n;
    s->M->matrix0 = l->M;
    s->problem.size = l->n;
    s->problem.M = s->M;
    s->problem.q = l->q;
    s->options = solver_options_create(SICONOS_LCP_LEMKE);
    s->options->iparam[SICONOS_IPARAM_MAX_ITER] = 10000 + 100 * l->n;
}

static void siconos_teardown(siconos_lcp *s)
{
    s->M->matrix0 = NULL; /* the data belongs to relaxsim's rs_lcp */
    NM_free(s->M);        /* clears and frees the structure */
    solver_options_delete(s->options);
}

typedef struct timing {
    double seconds;
    int solved;
} timing;

enum { RELAXSIM_REUSED, RELAXSIM_ALLOCATING, RELAXSIM_ONE_CALL, SICONOS, CERTIFICATE };

/* Median seconds per solve (batches of >= 2 ms), and whether the last solve reported success
 * and is certified. */
static timing time_solver(const rs_lcp *l, int who, void *work, size_t bytes, double *z,
                          double *w, siconos_lcp *s)
{
    enum { BATCHES = 5 };
    rs_lemke_info info = {.size = sizeof info};
    int reps = 1;
    double per[BATCHES];
    for (int b = -1; b < BATCHES; b++) { /* b = -1 calibrates the batch length */
        double dt;
        for (;;) {
            const double t0 = rs_wall_seconds();
            for (int r = 0; r < reps; r++) {
                if (who == CERTIFICATE) { /* z is the answer of the last relaxsim solve */
                    rs_lcp_certificate c = {.size = sizeof c};
                    rs_lcp_certificate_compute(l->n, l->M, l->q, z, RS_LCP_CERT_TOL_DEFAULT, w,
                                               &c, NULL);
                } else if (who == SICONOS) {
                    memset(z, 0, sizeof(double) * l->n);
                    lcp_lexicolemke(&s->problem, z, w, &s->info, s->options);
                } else if (who == RELAXSIM_ALLOCATING) {
                    void *fresh = malloc(bytes);
                    rs_lemke_solve(l->n, l->M, l->q, NULL, NULL, fresh, bytes, z, w, &info, NULL);
                    free(fresh);
                } else if (who == RELAXSIM_ONE_CALL) {
                    rs_lemke_solve_alloc(l->n, l->M, l->q, NULL, NULL, z, w, &info, NULL);
                } else {
                    rs_lemke_solve(l->n, l->M, l->q, NULL, NULL, work, bytes, z, w, &info, NULL);
                }
            }
            dt = rs_wall_seconds() - t0;
            if (b >= 0 || dt >= 2e-3 || reps >= (1 << 20))
                break;
            reps *= 2;
        }
        if (b >= 0)
            per[b] = dt / reps;
    }
    rs_lcp_certificate cert = {.size = sizeof cert};
    rs_lcp_certificate_compute(l->n, l->M, l->q, z, RS_LCP_CERT_TOL_DEFAULT, NULL, &cert, NULL);
    const int ok = who == SICONOS       ? s->info == 0
                   : who == CERTIFICATE ? 1
                                        : info.status == RS_LEMKE_SOLVED;
    timing t = {bench_median(per, BATCHES), ok && cert.passed};
    return t;
}

int main(int argc, char **argv)
{
    int problems = 7;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--problems") == 0 && i + 1 < argc)
            problems = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: lemke_vs_siconos [--problems K]\n");
            return 2;
        }
    }
    if (problems < 1 || problems > 1000) {
        fprintf(stderr, "lemke_vs_siconos: --problems must be in [1, 1000]\n");
        return 2;
    }
    static const int sizes[] = {2, 3, 4, 6, 8, 10, 50, 200};
    enum { NSIZES = sizeof sizes / sizeof sizes[0] };
    static const rs_lcp_class classes[] = {RS_LCP_CLASS_SPD, RS_LCP_CLASS_PMATRIX,
                                           RS_LCP_CLASS_PSD, RS_LCP_CLASS_FRICTION};
    int on_stack = 1; /* the largest n whose workspace rs_lemke_solve_alloc keeps on the stack */
    while (rs_lemke_workspace_size(on_stack + 1) <= 8192)
        on_stack++;
    printf("relaxsim Lemke against Siconos numerics lcp_lexicolemke, %d seeds per row, each in\n"
           "its one-call form (rs_lemke_solve_alloc: workspace on the stack to n = %d; Siconos\n"
           "allocates its tableau), the certificate included; solved = own status success and\n"
           "the certificate recomputed by relaxsim passes at 1e-9; certificate alone: the\n"
           "public rs_lcp_certificate_compute of relaxsim's answer timed by itself (the solve's\n"
           "own certificate shares a pass over M with the unit scale)\n\n", problems, on_stack);
    printf("| %-8s | %4s | %15s | %15s | %9s | %16s | %16s | %12s | %9s | %9s |\n", "class",
           "n", "relaxsim us", "siconos us", "ratio", "relaxsim us,", "relaxsim us,",
           "certificate", "relaxsim", "siconos");
    printf("| %-8s | %4s | %15s | %15s | %9s | %16s | %16s | %12s | %9s | %9s |\n", "", "",
           "(one call)", "(allocating)", "", "reused workspace", "malloc per call", "us, alone",
           "solved", "solved");
    printf("|----------|------|-----------------|-----------------|-----------|------------------|"
           "------------------|--------------|-----------|-----------|\n");
    double worst_small = 0.0; /* the largest ratio at n <= 10 */
    double cert_share_lo = INFINITY, cert_share_hi = 0.0; /* certificate / one call, n <= 10 */
    int worst_n = 0;
    for (size_t c = 0; c < 4; c++) {
        for (size_t k = 0; k <= NSIZES; k++) {
            /* friction also at n = 48: eight 3-D contacts */
            const int n = k < NSIZES ? sizes[k] : 48;
            if (k == NSIZES && classes[c] != RS_LCP_CLASS_FRICTION)
                continue;
            const size_t bytes = rs_lemke_workspace_size(n);
            void *work = malloc(bytes);
            double *z = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
            double *tr = malloc(sizeof(double) * problems), *ts = malloc(sizeof(double) * problems);
            double *tw = malloc(sizeof(double) * problems), *tm = malloc(sizeof(double) * problems);
            double *tc = malloc(sizeof(double) * problems);
            int solved_r = 0, solved_s = 0;
            for (int p = 0; p < problems; p++) {
                rs_lcp *l;
                if (rs_lcp_generate(classes[c], n, (uint64_t)(1000 + p), 0, &l, NULL, NULL, NULL) != RS_OK)
                    return 1;
                siconos_lcp s;
                siconos_setup(&s, l);
                const timing reused = time_solver(l, RELAXSIM_REUSED, work, bytes, z, w, NULL);
                const timing heap = time_solver(l, RELAXSIM_ALLOCATING, NULL, bytes, z, w, NULL);
                const timing a = time_solver(l, RELAXSIM_ONE_CALL, NULL, bytes, z, w, NULL);
                const timing cert = time_solver(l, CERTIFICATE, NULL, 0, z, w, NULL);
                const timing b = time_solver(l, SICONOS, NULL, 0, z, w, &s);
                tr[p] = a.seconds;
                ts[p] = b.seconds;
                tw[p] = reused.seconds;
                tm[p] = heap.seconds;
                tc[p] = cert.seconds;
                solved_r += a.solved && reused.solved && heap.solved;
                solved_s += b.solved;
                siconos_teardown(&s);
                rs_lcp_destroy(l);
            }
            const double mr = bench_median(tr, problems), ms = bench_median(ts, problems);
            const double mw = bench_median(tw, problems), mm = bench_median(tm, problems);
            const double mc = bench_median(tc, problems);
            printf("| %-8s | %4d | %15.3f | %15.3f | %9.3f | %16.3f | %16.3f | %12.3f | %5d/%-3d "
                   "| %5d/%-3d |\n",
                   rs_lcp_class_name(classes[c]), n, 1e6 * mr, 1e6 * ms, mr / ms, 1e6 * mw,
                   1e6 * mm, 1e6 * mc, solved_r, problems, solved_s, problems);
            if (n <= 10) {
                cert_share_lo = fmin(cert_share_lo, mc / mr);
                cert_share_hi = fmax(cert_share_hi, mc / mr);
            }
            if (n <= 10 && mr / ms > worst_small) {
                worst_small = mr / ms;
                worst_n = n;
            }
            fflush(stdout);
            free(work);
            free(z);
            free(w);
            free(tr);
            free(ts);
            free(tw);
            free(tm);
            free(tc);
        }
    }
    printf("\ntarget: relaxsim (one call) at most Siconos's time at every n <= 10: %s (largest "
           "ratio %.3f, at n = %d)\n", worst_small <= 1.0 ? "met" : "NOT met", worst_small, worst_n);
    printf("the certificate alone (rs_lcp_certificate_compute on relaxsim's answer: M's equilibration,\n"
           "w = M z + q and the measures), at n <= 10: %.0f%% to %.0f%% of a one-call solve's time\n",
           100.0 * cert_share_lo, 100.0 * cert_share_hi);
    return 0;
}
