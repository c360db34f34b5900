/*
 * lemke_bench.c: time per Lemke solve on generated LCPs (not a test).
 *
 * For each class and size, several seeded problems are solved with the non-allocating kernel on
 * a workspace allocated once. A solve of a few microseconds is repeated in a batch long enough to
 * time (at least 2 ms); the time per solve of a problem is the median over 5 batches, and the
 * table shows the median over problems. Pivots and the number solved are shown beside it.
 *
 *   lemke_bench [--problems K] [--degenerate]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relaxsim/relaxsim.h"
#include "bench_util.h"

/* Median seconds per solve of one problem, by repeated timed batches. */
static double time_solve(const rs_lcp *l, void *work, size_t bytes, double *z, double *w,
                         rs_lemke_info *info)
{
    enum { BATCHES = 5 };
    const double min_batch_s = 2e-3;
    int reps = 1;
    for (;;) { /* calibrate the batch length */
        const double t0 = rs_wall_seconds();
        for (int r = 0; r < reps; r++)
            rs_lemke_solve(l->n, l->M, l->q, NULL, NULL, work, bytes, z, w, info, NULL);
        const double dt = rs_wall_seconds() - t0;
        if (dt >= min_batch_s || reps >= (1 << 20))
            break;
        reps *= dt > 0 ? (int)fmin(16.0, fmax(2.0, 1.5 * min_batch_s / dt)) : 16;
    }
    double per[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        const double t0 = rs_wall_seconds();
        for (int r = 0; r < reps; r++)
            rs_lemke_solve(l->n, l->M, l->q, NULL, NULL, work, bytes, z, w, info, NULL);
        per[b] = (rs_wall_seconds() - t0) / reps;
    }
    return bench_median(per, BATCHES);
}

int main(int argc, char **argv)
{
    int problems = 7, degenerate = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--problems") == 0 && i + 1 < argc)
            problems = atoi(argv[++i]);
        else if (strcmp(argv[i], "--degenerate") == 0)
            degenerate = 1;
        else {
            fprintf(stderr, "usage: lemke_bench [--problems K] [--degenerate]\n");
            return 2;
        }
    }
    if (problems < 1 || problems > 1000) {
        fprintf(stderr, "lemke_bench: --problems must be in [1, 1000]\n");
        return 2;
    }
    static const int sizes[] = {2, 3, 10, 50, 200};
    static const rs_lcp_class classes[] = {RS_LCP_CLASS_SPD, RS_LCP_CLASS_PMATRIX,
                                           RS_LCP_CLASS_PSD, RS_LCP_CLASS_FRICTION};
    printf("Lemke (lexicographic; LU re-solve only when needed), %s problems, %d seeds per row\n\n",
           degenerate ? "degenerate" : "generic", problems);
    printf("| %-8s | %4s | %14s | %14s | %12s | %8s |\n", "class", "n", "median us/solve",
           "median pivots", "us/pivot", "solved");
    printf("|----------|------|-----------------|----------------|--------------|----------|\n");
    int failures = 0;
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            const int n = sizes[k];
            const size_t bytes = rs_lemke_workspace_size(n);
            void *work = malloc(bytes);
            double *z = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
            double *times = malloc(sizeof(double) * problems), *pivots = malloc(sizeof(double) * problems);
            int solved = 0;
            for (int p = 0; p < problems; p++) {
                rs_lcp *l;
                if (rs_lcp_generate(classes[c], n, (uint64_t)(1000 + p), degenerate, &l, NULL, NULL, NULL) != RS_OK) {
                    fprintf(stderr, "lemke_bench: generation failed\n");
                    return 1;
                }
                rs_lemke_info info = {.size = sizeof info};
                times[p] = time_solve(l, work, bytes, z, w, &info);
                pivots[p] = info.pivots;
                solved += info.status == RS_LEMKE_SOLVED;
                rs_lcp_destroy(l);
            }
            failures += problems - solved;
            const double t_us = 1e6 * bench_median(times, problems), piv = bench_median(pivots, problems);
            printf("| %-8s | %4d | %15.2f | %14.0f | %12.3f | %4d/%-3d |\n",
                   rs_lcp_class_name(classes[c]), n, t_us, piv, piv > 0 ? t_us / piv : 0.0,
                   solved, problems);
            fflush(stdout);
            free(work);
            free(z);
            free(w);
            free(times);
            free(pivots);
        }
    if (failures)
        printf("\n%d problem(s) not solved\n", failures);
    return failures ? 1 : 0;
}
