/*
 * pile_bench.c: the cost of a growing pile of boxes (not a test; scripts/bench.sh runs it).
 *
 * N boxes (0.1 m x 0.06 m, 0.5 kg, mu = 0.5) dropped in rows of 8 into a box-shaped bin (the
 * floor and two walls, half-planes), N = 1, 4, 8, 16, 32, 64 (8 and 32 put piles near 16 and 64
 * active contacts). Each pile settles by Lemke (1500 steps of
 * 2e-3 s); from its settled state it is then timed:
 *   - Lemke: 200 steps, time per step (median) and pivots;
 *   - the NLP (IPOPT, the start check off so that IPOPT solves every step): 50 steps, time per
 *     step and per iteration (each step's time over its iterations, median);
 *   - the step's contacts: those in its LCP (within the step's margin) and the active ones (a
 *     normal force above contact_force_tol F).
 * Target: from the pile nearest 16 active contacts to the one nearest 128, IPOPT's time per
 * iteration grows at most 1.5 times as fast as the active contacts (its ratio at most 1.5 times
 * theirs: the NLP is sparse, a dense one would grow with their square or cube).
 *
 * Memory: the 64-box pile's peak resident set over 1,000 and 100,000 steps of Lemke through the
 * library (rs_compare_run_with, nothing kept per step), each run in its own process (its peak from
 * wait4). Target: flat in the number of steps (the longer run's peak within 1.2 times the
 * shorter's).
 *
 *   pile_bench [--time-only | --memory-only | --scene N]   (--scene: the scene of N boxes)
 */
#define _GNU_SOURCE /* wait4 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "io/scenario.h"
#include "sim/compare.h"

#define PER_ROW 8
#define W 0.1  /* box width, m */
#define H 0.06 /* box height, m */

/* The scene of n boxes in rows of PER_ROW above a bin just wide enough for a row, into buf. */
static void pile_scene(int n, char *buf, size_t len)
{
    const int cols = n < PER_ROW ? n : PER_ROW;
    const double half = 0.5 * cols * (W + 0.02) + 0.01; /* the walls at x = -half, +half */
    int at = snprintf(buf, len,
                      "halfplane 0 0, 0 1\nhalfplane %.6f 0, 1 0\nhalfplane %.6f 0, -1 0\n",
                      -half, half);
    for (int i = 0; i < n && at < (int)len; i++) {
        const int r = i / PER_ROW, c = i % PER_ROW;
        const double x = -half + 0.01 + (c + 0.5) * (W + 0.02) + (r % 2 ? 0.01 : -0.01);
        const double z = 0.05 + r * (H + 0.04);
        const double th = (i % 3 - 1) * 0.15; /* -0.15, 0, 0.15: a pile, not a stack */
        at += snprintf(buf + at, len - (size_t)at,
                       "body b%d box w=%g h=%g m=0.5 x=%.6f z=%.6f theta=%.2f\n", i, W, H, x, z,
                       th);
    }
}

static int load_pile(int n, int steps, const char *const *extra, int nextra, rs_scenario *sc)
{
    static char scene[1 << 16];
    pile_scene(n, scene, sizeof scene);
    char text[512];
    snprintf(text, sizeof text,
             "[model]\nname = bodies\nscene = pile.scene\nmu = 0.5\n\n[run]\nsteps = %d\n"
             "dt = 2e-3\n",
             steps);
    rs_error_detail d;
    if (rs_scenario_load_text("pile_bench", text, scene, extra, nextra, sc, &d) != RS_OK) {
        fprintf(stderr, "pile_bench: %s\n", d.message);
        return 0;
    }
    return 1;
}

/* What the timed runs record per step. */
typedef struct tally {
    int lemke, n;
    double *us, *us_per_iter, *pivots;
    double lcp_contacts, active_contacts, force_tol;
    double *final_state; /* the state after the last step (the settled pile) */
    int nstate;
} tally;

static void record(void *ctx, int k, const rs_compare_step *st)
{
    (void)k;
    tally *t = ctx;
    const rs_step_result *r = t->lemke ? &st->lemke : &st->nlp;
    t->us[t->n] = 1e6 * r->time_s;
    t->pivots[t->n] = r->iterations;
    t->us_per_iter[t->n] = r->iterations > 0 ? 1e6 * r->time_s / r->iterations : NAN;
    t->lcp_contacts += r->ncontact;
    for (int i = 0; i < r->ncontact; i++)
        t->active_contacts += r->contact[2 * i] > t->force_tol;
    memcpy(t->final_state, r->state_next, sizeof(double) * (size_t)t->nstate);
    t->n++;
}

/* Run sc by one backend, recording every step into t (its arrays sized for sc->steps); a contact
 * is active with a normal force above force_tol N. */
static int timed(const rs_scenario *sc, int lemke, double force_tol, tally *t)
{
    memset(t, 0, sizeof *t);
    t->lemke = lemke;
    t->force_tol = force_tol;
    t->nstate = sc->model->nstate;
    t->us = malloc(sizeof(double) * 3 * (size_t)sc->steps);
    t->final_state = malloc(sizeof(double) * (size_t)t->nstate);
    t->us_per_iter = t->us + sc->steps;
    t->pivots = t->us_per_iter + sc->steps;
    rs_compare_options opt;
    rs_compare_options_default(&opt);
    opt.keep_steps = 0;
    opt.sink = record;
    opt.sink_ctx = t;
    rs_compare_result r;
    if (rs_compare_run_with(sc, lemke ? RS_RUN_LEMKE : RS_RUN_NLP, &opt, &r) != RS_OK)
        return 0;
    const int failed = lemke ? r.lemke.failed_steps : r.nlp.failed_steps;
    rs_compare_free(&r);
    if (failed)
        fprintf(stderr, "pile_bench: %d failed steps\n", failed);
    return 1;
}

static void tally_free(tally *t)
{
    free(t->us);
    free(t->final_state);
}

/* The median of the finite values of x[0..n). */
static double finite_median(double *x, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(x[i]))
            x[k++] = x[i];
    return k ? bench_median(x, k) : NAN;
}

typedef struct pile_row {
    int boxes;
    double lcp_contacts, active, lemke_us, lemke_pivots, nlp_us, nlp_iters, nlp_us_per_iter;
} pile_row;

static int time_pile(int n, pile_row *row)
{
    rs_scenario settle = {0}, lem = {0}, nlp = {0};
    tally t;
    if (!load_pile(n, 1500, NULL, 0, &settle) || !timed(&settle, 1, 0.0, &t))
        return 0;
    /* the settled state is the timed runs' initial state */
    const char *lemke_sets[] = {"run.steps=200"};
    const char *nlp_sets[] = {"run.steps=50", "nlp.check_start=no", "nlp.warm_start=no"};
    if (!load_pile(n, 200, lemke_sets, 1, &lem) || !load_pile(n, 50, nlp_sets, 3, &nlp))
        return 0;
    memcpy(lem.initial, t.final_state, sizeof(double) * (size_t)t.nstate);
    memcpy(nlp.initial, t.final_state, sizeof(double) * (size_t)t.nstate);
    tally_free(&t);
    row->boxes = n;
    /* active: a normal force above 1e-9 of a box's weight (Lemke's inactive ones are exact 0) */
    if (!timed(&lem, 1, 1e-9 * 0.5 * 9.81, &t))
        return 0;
    row->lemke_us = finite_median(t.us, t.n);
    row->lemke_pivots = finite_median(t.pivots, t.n);
    row->lcp_contacts = t.lcp_contacts / t.n;
    row->active = t.active_contacts / t.n;
    tally_free(&t);
    if (!timed(&nlp, 0, 0.0, &t))
        return 0;
    row->nlp_us = finite_median(t.us, t.n);
    row->nlp_iters = finite_median(t.pivots, t.n);
    row->nlp_us_per_iter = finite_median(t.us_per_iter, t.n);
    tally_free(&t);
    rs_scenario_release(&settle);
    rs_scenario_release(&lem);
    rs_scenario_release(&nlp);
    return 1;
}

/* The 64-box pile run by Lemke for steps steps through the library in a child process (nothing
 * kept per step); its peak resident set in MB, its wall time and its failed steps (-1: the
 * child failed). */
static double pile_peak_mb(long steps, double *seconds, int *failed)
{
    fflush(NULL);
    const double t0 = rs_wall_seconds();
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return NAN;
    const pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        char set[64];
        snprintf(set, sizeof set, "run.steps=%ld", steps);
        const char *sets[] = {set};
        static rs_scenario sc;
        static rs_compare_result r;
        if (!load_pile(64, (int)steps, sets, 1, &sc))
            _exit(2);
        rs_compare_options opt;
        rs_compare_options_default(&opt);
        opt.keep_steps = 0;
        if (rs_compare_run_with(&sc, RS_RUN_LEMKE, &opt, &r) != RS_OK)
            _exit(1);
        const int n = r.lemke.failed_steps;
        if (write(pipefd[1], &n, sizeof n) != (ssize_t)sizeof n)
            _exit(1);
        _exit(0);
    }
    close(pipefd[1]);
    *failed = -1;
    if (read(pipefd[0], failed, sizeof *failed) != (ssize_t)sizeof *failed)
        *failed = -1;
    close(pipefd[0]);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    wait4(pid, &status, 0, &ru);
    *seconds = rs_wall_seconds() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        *failed = -1;
    return ru.ru_maxrss / 1024.0;
}

/* The row whose active contacts are nearest target (on a log scale). */
static int nearest(const pile_row *rows, int n, double target)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (fabs(log(rows[i].active / target)) < fabs(log(rows[best].active / target)))
            best = i;
    return best;
}

static void time_section(void)
{
    static const int sizes[] = {1, 4, 8, 16, 32, 64};
    enum { NSIZES = sizeof sizes / sizeof sizes[0] };
    pile_row rows[NSIZES];
    for (int i = 0; i < NSIZES; i++)
        if (!time_pile(sizes[i], &rows[i]))
            exit(1);
    printf("A growing pile of boxes (0.1 x 0.06 m, 0.5 kg, mu = 0.5, dt = 2e-3 s) in a bin, "
           "settled\n\n");
    printf("| boxes | contacts: LCP | active | Lemke us/step | pivots | NLP us/step | "
           "iterations | NLP us/iteration |\n");
    printf("|------:|--------------:|-------:|--------------:|-------:|------------:|"
           "-----------:|-----------------:|\n");
    for (int i = 0; i < NSIZES; i++)
        printf("| %5d | %13.1f | %6.1f | %13.1f | %6.0f | %11.1f | %10.0f | %16.1f |\n",
               rows[i].boxes, rows[i].lcp_contacts, rows[i].active, rows[i].lemke_us,
               rows[i].lemke_pivots, rows[i].nlp_us, rows[i].nlp_iters, rows[i].nlp_us_per_iter);
    const int a = nearest(rows, NSIZES, 16.0), b = nearest(rows, NSIZES, 128.0);
    const double contacts = rows[b].active / rows[a].active;
    const double per_iter = rows[b].nlp_us_per_iter / rows[a].nlp_us_per_iter;
    printf("\n   Medians over the timed steps: Lemke 200, the NLP 50 (IPOPT from a cold start every\n"
           "   step: the start check and the warm start off, so that it iterates). Active: a\n"
           "   normal force above 1e-9 of a box's weight. From %.0f to %.0f active contacts (%d and\n"
           "   %d boxes) they grow %.2f times; IPOPT's time per iteration %.2f times: %.2f times\n"
           "   as fast (exponent %.2f). Target: at most 1.5 times as fast: %s.\n\n",
           rows[a].active, rows[b].active, rows[a].boxes, rows[b].boxes, contacts, per_iter,
           per_iter / contacts, log(per_iter) / log(contacts),
           per_iter <= 1.5 * contacts ? "met" : "NOT met");
}

static void memory_section(void)
{
    static const long lengths[] = {1000, 100000};
    double mb[2], sec[2];
    int failed[2];
    for (int i = 0; i < 2; i++)
        mb[i] = pile_peak_mb(lengths[i], &sec[i], &failed[i]);
    printf("Memory of the 64-box pile against the run's length (Lemke, through the library)\n\n");
    printf("|   steps | peak RSS (MB) | ratio to 1,000 steps | wall time (s) | failed steps |\n");
    printf("|--------:|--------------:|---------------------:|--------------:|-------------:|\n");
    for (int i = 0; i < 2; i++)
        printf("| %7ld | %13.1f | %20.3f | %13.1f | %12d |\n", lengths[i], mb[i], mb[i] / mb[0],
               sec[i], failed[i]);
    printf("\n   Each run in its own process (peak from wait4), nothing kept per step; failed steps:\n"
           "   Lemke steps without a certified answer, counted. Target: flat\n"
           "   in the number of steps (the longer run's peak within 1.2 times the shorter's): "
           "%s.\n",
           mb[1] <= 1.2 * mb[0] ? "met" : "NOT met");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--scene") == 0) { /* the scene of N boxes, to look at */
        static char scene[1 << 16];
        pile_scene(atoi(argv[2]), scene, sizeof scene);
        fputs(scene, stdout);
        return 0;
    }
    const int time_only = argc == 2 && strcmp(argv[1], "--time-only") == 0;
    const int memory_only = argc == 2 && strcmp(argv[1], "--memory-only") == 0;
    if (argc > 1 && !time_only && !memory_only) {
        fprintf(stderr, "usage: pile_bench [--time-only | --memory-only | --scene N]\n");
        return 2;
    }
    if (!memory_only)
        time_section();
    if (!time_only)
        memory_section();
    return 0;
}
