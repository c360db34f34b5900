/*
 * sim_bench.c: time-stepping benchmarks (not a test). Every figure is printed with its baseline
 * measured in the same run and their ratio.
 *
 *   1. NLP step, single run, point2d_friction default scenario, through the library (the relaxsim
 *      command's removal of IPOPT's and MUMPS's per-step overheads is not in it: see
 *      scripts/bench_nlp_step.sh for the command against a baseline build): the IPOPT steps,
 *      their median time and mean iterations, beside the all-step figures, with the contract
 *      verdict; beside them the post's formulation with cold starts (point2d_friction_blog.ini,
 *      first 300 steps), without a ratio: it is another formulation.
 *   2. Workers: throughput of a 32-run point2d batch (600 steps each: the first 450 are free
 *      flight, solved by the start check) with -j 2 against -j 1.
 *   3. Memory: peak RSS of one point2d comparison (in a child process); the batch parent's peak
 *      RSS before and after 1,000 short runs.
 *   4. Lemke warm start from the previous step's basis during time stepping: pivots and time per
 *      step against cold solves, and how many steps the guess solved.
 *   5. Stacked solves: NLP time per run and step of 64 point2d runs stacked (K = 64) against the
 *      same 64 runs alone, with the start check on (the default) and off.
 *   7. The peg board (disc_polygons, 126 pegs, 5000 steps, the pegboard scenario), both backends:
 *      time per step by the step's LCP size (its active contacts), with Egan's accurate form and
 *      with Stewart-Trinkle (whose contact sets grow larger); the baseline is the same run's
 *      contact-free steps (size 0).
 *   8. Gradients (relaxsim grad): all gradients of the 1,200-step point2d run with respect to 4
 *      keys (mu, xd, z, m) by the LCP's forward mode and the NLP's KKT sensitivity, with and
 *      without the central differences that audit them, against a plain comparison of the same
 *      run (its NLP posed as grad poses it, the LCP's relaxation, and as compare poses it by
 *      default, the model's own NLP). Medians of 5 rounds.
 *   9. The friction cone in the plane (point3d_friction, the throw of point3d_friction.ini):
 *      time per step against the LCP's number of friction directions k, for Lemke, the NLP with
 *      the exact cone (its size does not depend on k) and the LCP's relaxation (2 (k + 2)
 *      variables); the baseline is k = 4.
 * Sections 2 and 5 repeat each comparison 5 and 3 times in pairs and report medians: the speed
 * of this shared machine drifts by 30% from one minute to the next.
 *
 *   sim_bench SOURCE_DIR [SECTION]     (sections 1-5, or one section; 6 is
 *                                       scripts/bench_nlp_step.sh; 7, 8 and 9 run only when asked:
 *                                       scripts/bench.sh runs them last)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/scenario.h"

#define MAX_LCP_SEEN 66 /* disc_polygons: its largest step LCP */
#include "io/sweep.h"
#include "batch/batch.h"
#include "core/timer.h"
#include "sim/compare.h"
#include "sim/gradient.h"
#include "sim/stack.h"
#include "bench_util.h"

static rs_scenario sc;

static int load(const char *src, const char *name, const char *const *sets, int nsets)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/problems/scenarios/%s.ini", src, name);
    rs_error_detail d;
    if (rs_scenario_load(path, sets, nsets, &sc, &d) != RS_OK) {
        fprintf(stderr, "sim_bench: %s\n", d.message);
        return 0;
    }
    return 1;
}

static void nlp_row(const char *label, const rs_compare_result *r)
{
    printf("| %-40s | %6d/%-5d | %10.1f | %10.2f | %10.1f | %9.2f | %6d | %-8s |\n", label,
           r->nlp.ipopt_steps, r->steps, r->nlp.us_per_ipopt_step_median,
           r->nlp.iterations_per_ipopt_step, r->nlp.us_per_step_median, r->nlp.iterations_mean,
           r->nlp.failed_steps, r->contract_passed ? "passed" : "FAILED");
}

static void nlp_step(const char *src)
{
    rs_compare_result r, c, b;
    const char *cold_start[] = {"nlp.check_start=no"};
    const char *blog_sets[] = {"run.steps=300"};
    if (!load(src, "point2d_friction", NULL, 0) || rs_compare_run(&sc, RS_RUN_NLP, NULL, NULL, &r) ||
        !load(src, "point2d_friction", cold_start, 1) ||
        rs_compare_run(&sc, RS_RUN_NLP, NULL, NULL, &c) ||
        !load(src, "point2d_friction_blog", blog_sets, 1) ||
        rs_compare_run(&sc, RS_RUN_NLP, NULL, NULL, &b))
        exit(1);
    printf("1. NLP step, point2d_friction (1200 steps), through the library\n\n");
    printf("| %-40s | %12s | %10s | %10s | %10s | %9s | %6s | %-8s |\n", "", "IPOPT steps",
           "us/IPOPT", "iter/IPOPT", "us/step", "iter/step", "failed", "contract");
    printf("| %-40s | %12s | %10s | %10s | %10s | %9s | %6s | %-8s |\n", "", "", "step med.",
           "step", "all, med.", "all, mean", "", "");
    printf("|------------------------------------------|--------------|------------|------------|"
           "------------|-----------|--------|----------|\n");
    nlp_row("relaxsim, start check off", &c);
    nlp_row("relaxsim default (start check on)", &r);
    nlp_row("the post's NLP, cold (300 steps)", &b);
    printf("\n   IPOPT steps: the steps that called IPOPT (start check on: the others passed the\n"
           "   KKT test of a generic start point, the previous solution or the contact-free\n"
           "   prediction); the NLP's speed is the \"us/IPOPT step\" column. The post's NLP is\n"
           "   another formulation (published as is, failing in flight): shown for what it costs,\n"
           "   with no ratio to the corrected one. Through the library, as a program that links\n"
           "   it sees it: IPOPT's and MUMPS's per-step overheads are in place; section 6\n"
           "   measures the command, whose removal of them is its own row there.\n\n");
    rs_compare_free(&r);
    rs_compare_free(&c);
    rs_compare_free(&b);
}

/* NLP time per run and step (s) of runs scs[0..count), solved alone or stacked; 0 on error. */
static double nlp_seconds_per_run_step(const rs_scenario *scs, int count, int stacked,
                                       int *split, int *contracts)
{
    const rs_scenario *group[64];
    rs_compare_result *out = calloc((size_t)count, sizeof *out);
    for (int i = 0; i < count; i++)
        group[i] = &scs[i];
    if (stacked) {
        if (rs_compare_run_stacked(group, count, RS_RUN_NLP, NULL, NULL, out) != RS_OK)
            exit(1);
    } else {
        for (int i = 0; i < count; i++)
            if (rs_compare_run(group[i], RS_RUN_NLP, NULL, NULL, &out[i]) != RS_OK)
                exit(1);
    }
    double t = 0.0;
    *split = *contracts = 0;
    for (int i = 0; i < count; i++) {
        for (int k = 0; k < out[i].steps; k++)
            t += out[i].step[k].nlp.time_s;
        *split += out[i].nlp.split_steps;
        *contracts += out[i].contract_passed;
        rs_compare_free(&out[i]);
    }
    free(out);
    return t / (count * scs[0].steps);
}

/* 5. Stacked solves: 64 point2d runs (mu x sideways speed, 8 x 8), 600 steps, NLP only. */
static void stacked(const char *src)
{
    enum { K = 64, STEPS = 600, REPEATS = 3 };
    static rs_scenario scs[K];
    printf("\n5. Stacked solves: %d point2d runs (mu 0.05..0.4 x xd 0.5..2, 8 x 8), %d steps, "
           "NLP only\n\n", K, STEPS);
    printf("| %-11s | %-22s | %14s | %11s | %13s |\n", "start check", "solves",
           "us/run-step", "split steps", "contracts met");
    printf("|-------------|------------------------|----------------|-------------|---------------|\n");
    for (int check = 1; check >= 0; check--) {
        for (int i = 0; i < K; i++) {
            char mu[64], xd[64];
            snprintf(mu, sizeof mu, "model.mu=%.17g", 0.05 + 0.05 * (i % 8));
            snprintf(xd, sizeof xd, "initial.xd=%.17g", 0.5 + (1.5 / 7) * (i / 8));
            const char *sets[] = {mu, xd, "run.steps=600",
                                  check ? "nlp.check_start=yes" : "nlp.check_start=no"};
            char path[1024];
            snprintf(path, sizeof path, "%s/problems/sweeps/point2d_friction_generic.ini", src);
            rs_error_detail d;
            if (rs_scenario_load(path, sets, 4, &scs[i], &d) != RS_OK) {
                fprintf(stderr, "sim_bench: %s\n", d.message);
                exit(1);
            }
        }
        /* the baseline: the same 64 runs, each alone. REPEATS paired measurements (alone, then stacked): this shared machine's speed drifts
         * by 30% from minute to minute, so each ratio is taken within a pair, and the medians
         * are reported (the split counts and contracts are the same every time) */
        double t_alone[REPEATS], t_stack[REPEATS], ratios[REPEATS];
        int split1, ok1, splitK, okK;
        for (int rep = 0; rep < REPEATS; rep++) {
            t_alone[rep] = nlp_seconds_per_run_step(scs, K, 0, &split1, &ok1);
            t_stack[rep] = nlp_seconds_per_run_step(scs, K, 1, &splitK, &okK);
            ratios[rep] = t_stack[rep] / t_alone[rep];
        }
        const double alone = bench_median(t_alone, REPEATS), stack = bench_median(t_stack, REPEATS);
        const double ratio = bench_median(ratios, REPEATS);
        const char *on = check ? "on" : "off";
        printf("| %-11s | %-22s | %14.1f | %11s | %6d/%-6d |\n", on, "alone (the same runs)",
               1e6 * alone, "-", ok1, K);
        printf("| %-11s | %-22s | %14.1f | %11d | %6d/%-6d |\n", on, "stacked, K = 64",
               1e6 * stack, splitK, okK, K);
        printf("| %-11s | %-22s | %14.3f | %11s | %13s |\n", on, "ratio stacked / alone",
               ratio, "", "");
        if (!check)
            printf("\n   medians of %d paired measurements; target: per-run cost of a "
                   "step with K = 64\n   <= 1/10 of the single-run cost (IPOPT on every step, "
                   "start check off): %s\n", REPEATS, ratio <= 0.1 ? "met" : "NOT met");
    }
}

static double batch_seconds(const char *sweep_path, int jobs, const char *dir, long *runs)
{
    static rs_sweep sw;
    rs_error_detail d;
    if (rs_sweep_load(sweep_path, &sw, &d) != RS_OK) {
        fprintf(stderr, "sim_bench: %s\n", d.message);
        exit(1);
    }
    rs_batch_options o = {.jobs = jobs, .out_dir = dir, .shard_count = 1, .stack = 1};
    rs_batch_counts c;
    if (rs_batch_run(&sw, &o, NULL, NULL, &c, &d) != RS_OK) {
        fprintf(stderr, "sim_bench: %s\n", d.message);
        exit(1);
    }
    *runs = c.done;
    rs_sweep_free(&sw);
    return c.wall_s;
}

/* Write a temporary sweep file /tmp/relaxsim_bench_TAG_PID.ini of the scenario (a path under
 * SRC/problems) with the given [vary] lines; its path goes to path. */
static void write_sweep(char *path, size_t size, const char *tag, const char *src,
                        const char *scenario, const char *vary)
{
    snprintf(path, size, "/tmp/relaxsim_bench_%s_%d.ini", tag, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fprintf(f, "[sweep]\nscenario = %s/problems/%s\n[vary]\n%s", src, scenario, vary);
    fclose(f);
}

static void workers(const char *src)
{
    char sweep[1024];
    write_sweep(sweep, sizeof sweep, "workers", src, "sweeps/point2d_friction_generic.ini",
                "model.mu = 0.05 .. 0.4 / 8\ninitial.xd = 0.5 .. 2 / 4\nrun.steps = 600\n");
    /* REPEATS paired measurements (-j 1, then -j 2), medians reported (see stacked()). 32 runs:
     * the last run of a batch keeps one worker busy alone, and the runs' costs differ by a factor
     * of 2 (sliding time), which with 16 runs costs about 6% of the -j 2 throughput. */
    enum { REPEATS = 5 };
    long n1, n2;
    double w1[REPEATS], w2[REPEATS], ratios[REPEATS];
    for (int rep = 0; rep < REPEATS; rep++) {
        w1[rep] = batch_seconds(sweep, 1, "/tmp/relaxsim_bench_j1", &n1);
        w2[rep] = batch_seconds(sweep, 2, "/tmp/relaxsim_bench_j2", &n2);
        ratios[rep] = (n2 / w2[rep]) / (n1 / w1[rep]);
    }
    const double t1 = bench_median(w1, REPEATS), t2 = bench_median(w2, REPEATS);
    const double ratio = bench_median(ratios, REPEATS);
    printf("2. Workers: 32 point2d runs of 600 steps (landing and sliding included)\n\n");
    printf("| %-10s | %10s | %12s |\n", "workers", "wall s", "runs/s");
    printf("|------------|------------|--------------|\n");
    printf("| %-10s | %10.2f | %12.2f |\n", "-j 1", t1, n1 / t1);
    printf("| %-10s | %10.2f | %12.2f |\n", "-j 2", t2, n2 / t2);
    printf("| %-10s | %10s | %12.2f |\n\n", "ratio", "", ratio);
    printf("   medians of %d paired measurements; target: -j 2 throughput >= 1.8 x -j 1 "
           "on 2 cores: %s\n\n", REPEATS, ratio >= 1.8 ? "met" : "NOT met");
    remove(sweep);
}

static void memory(const char *src)
{
    fflush(NULL); /* the child must not print the parent's buffered output again */
    const pid_t pid = fork();
    if (pid == 0) {
        rs_compare_result r;
        if (!load(src, "point2d_friction", NULL, 0) || rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r))
            _exit(1);
        rs_compare_free(&r);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    const double child_mb = ru.ru_maxrss / 1024.0;
    char sweep[1024];
    write_sweep(sweep, sizeof sweep, "mem", src, "scenarios/falling_block.ini",
                "model.m = 0.5 .. 2 / 1000\nrun.steps = 5\n");
    getrusage(RUSAGE_SELF, &ru);
    const double before = ru.ru_maxrss / 1024.0;
    long n;
    const double t = batch_seconds(sweep, 2, "/tmp/relaxsim_bench_mem", &n);
    getrusage(RUSAGE_SELF, &ru);
    const double after = ru.ru_maxrss / 1024.0;
    printf("3. Memory\n\n");
    printf("| %-52s | %10s |\n", "", "peak RSS MB");
    printf("|------------------------------------------------------|------------|\n");
    printf("| %-52s | %10.1f |\n", "one point2d_friction comparison (1200 steps)", child_mb);
    printf("| %-52s | %10.1f |\n", "batch parent before 1,000 runs", before);
    printf("| %-52s | %10.1f |\n", "batch parent after 1,000 runs (-j 2)", after);
    printf("\n   %ld runs in %.1f s; targets: one comparison under 30 MB: %s; "
           "the batch does not grow: %s\n", n, t, child_mb < 30.0 ? "met" : "NOT met",
           after - before < 2.0 ? "met" : "NOT met");
    remove(sweep);
}

static void lemke_warm(const char *src)
{
    static const char *names[] = {"point2d_friction", "sliding_block_direct_random"};
    printf("\n4. Lemke warm start from the previous step's basis (Lemke trajectory only)\n\n");
    printf("| %-28s | %-5s | %12s | %12s | %14s |\n", "scenario", "start", "pivots/step",
           "us/step mean", "steps by guess");
    printf("|------------------------------|-------|--------------|--------------|----------------|\n");
    for (int i = 0; i < 2; i++) {
        double piv[2], us[2];
        for (int warm = 1; warm >= 0; warm--) {
            const char *set[] = {warm ? "lemke.warm_start=yes" : "lemke.warm_start=no"};
            rs_compare_result r;
            if (!load(src, names[i], set, 1) || rs_compare_run(&sc, RS_RUN_LEMKE, NULL, NULL, &r))
                exit(1);
            piv[warm] = r.lemke.iterations_mean;
            us[warm] = r.lemke.us_per_step_mean;
            printf("| %-28s | %-5s | %12.3f | %12.3f | %9d/%-5d|\n", names[i], warm ? "warm" : "cold",
                   r.lemke.iterations_mean, r.lemke.us_per_step_mean, r.lemke.warm_started_steps,
                   r.steps);
            rs_compare_free(&r);
        }
        printf("| %-28s | %-5s | %12.3f | %12.3f | %14s |\n", "", "ratio", piv[1] / piv[0],
               us[1] / us[0], "");
    }
}

/* Median of the step times (us) of rows whose size is n; NAN if none. */
static double median_us(const rs_compare_result *r, int lemke, int n, int ipopt_only, int *count)
{
    double *t = malloc(sizeof(double) * (size_t)r->steps);
    int k = 0;
    for (int i = 0; t && i < r->steps; i++) {
        const rs_step_result *s = lemke ? &r->step[i].lemke : &r->step[i].nlp;
        if (s->lcp_size == n && (!ipopt_only || (!s->at_start && s->path != RS_PATH_NONE)))
            t[k++] = 1e6 * s->time_s;
    }
    *count = k;
    const double m = k ? bench_median(t, k) : NAN;
    free(t);
    return m;
}

static void pegboard(const char *src)
{
    static const struct {
        const char *label, *form, *reach, *nlp;
    } runs[] = {
        {"egan_acc., own", "model.formulation=egan_accurate", "model.reach=1e-3", "nlp.form=own"},
        {"egan_acc., relax", "model.formulation=egan_accurate", "model.reach=1e-3",
         "nlp.form=relaxation"},
        {"egan_acc. 0.1 own", "model.formulation=egan_accurate", "model.reach=0.1", "nlp.form=own"},
        {"stewart_tr., own", "model.formulation=stewart_trinkle", "model.reach=1e-3",
         "nlp.form=own"}};
    printf("\n7. Peg board (disc_polygons, 126 pegs, 5000 steps): time per step by LCP size\n\n");
    printf("| %-17s | %4s | %11s | %12s | %11s | %13s | %11s |\n", "formulation, NLP", "LCP n",
           "NLP steps", "NLP us/step", "IPOPT steps", "us/IPOPT step", "Lemke us");
    printf("|-------------------|-------|-------------|--------------|-------------|"
           "---------------|-------------|\n");
    for (int f = 0; f < 4; f++) {
        const char *sets[] = {runs[f].form, runs[f].reach, runs[f].nlp};
        rs_compare_result r;
        if (!load(src, "polygon_pegboard", sets, 3) ||
            rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r))
            exit(1);
        int seen[MAX_LCP_SEEN + 1] = {0};
        for (int i = 0; i < r.steps; i++)
            if (r.step[i].nlp.lcp_size >= 0 && r.step[i].nlp.lcp_size <= MAX_LCP_SEEN)
                seen[r.step[i].nlp.lcp_size] = 1;
        for (int n = 0; n <= MAX_LCP_SEEN; n++) {
            if (!seen[n])
                continue;
            int c_all, c_ipopt, c_lemke;
            const double all = median_us(&r, 0, n, 0, &c_all);
            const double ipopt = median_us(&r, 0, n, 1, &c_ipopt);
            const double lemke = median_us(&r, 1, n, 0, &c_lemke);
            printf("| %-17s | %5d | %11d | %12.1f | %11d | %13.1f | %11.2f |\n", runs[f].label, n,
                   c_all, all, c_ipopt, ipopt, lemke);
        }
        printf("| %-17s | %5s | failed NLP %d, Lemke %d; contract %-6s |%13s|%13s|\n", "", "all",
               r.nlp.failed_steps, r.lemke.failed_steps + r.shadow_failed_steps,
               r.contract_passed ? "passed" : "FAILED", "", "");
        rs_compare_free(&r);
        rs_scenario_release(&sc);
    }
    printf("   Medians. NLP us/step: every step of that size (start-point steps included); us/IPOPT\n"
           "   step: the steps of that size that called IPOPT; Lemke us: the independent Lemke\n"
           "   trajectory's steps of that size (its own contact sets). Size 0 is the contact-free step (nothing\n"
           "   solved): the baseline of the same run. own: the model's NLP (smoothed max, its size\n"
           "   grows with the contacts); relax: the relaxation of the step's LCP (dense, 2n\n"
           "   variables). \"0.1\": reach 0.1 m, more edges in each step (the same physics): the\n"
           "   growth with the number of active contacts.\n"
           "   The contract is the scenario's, written for egan_accurate: Stewart-Trinkle's NLP and\n"
           "   Lemke trajectories drift further apart than its 1e-8 m bounds.\n");
}

/* All gradients of one run against plain comparisons of it, medians of ROUNDS. */
static void gradients(const char *src)
{
    enum { ROUNDS = 5, WORKS = 4 };
    static const char *const labels[WORKS] = {
        "compare, NLP = relaxation (grad's)", "compare, NLP = own (default)",
        "grad, 4 keys, gradients only", "grad, 4 keys, with differences"};
    double t[WORKS][ROUNDS];
    int passed = 1;
    for (int round = 0; round < ROUNDS; round++)
        for (int w = 0; w < WORKS; w++) {
            const char *relax[] = {"nlp.form=relaxation"};
            if (!load(src, "point2d_friction", relax, w == 0 ? 1 : 0))
                exit(1);
            const double t0 = rs_wall_seconds();
            if (w < 2) {
                rs_compare_result r;
                if (rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r) != RS_OK)
                    exit(1);
                passed &= r.contract_passed;
                rs_compare_free(&r);
            } else {
                rs_grad_config cfg;
                rs_grad_config_default(&cfg);
                const char *keys[] = {"mu", "xd", "z", "m"};
                for (int j = 0; j < 4; j++)
                    rs_grad_parse_key(&sc, keys[j], &cfg.keys[cfg.nkeys++], NULL);
                rs_grad_parse_output(&sc, "x", &cfg.outputs[cfg.noutputs++], NULL);
                cfg.skip_fd = w == 2;
                rs_grad_result r;
                if (rs_grad_run(&sc, &cfg, NULL, NULL, &r) != RS_OK)
                    exit(1);
                passed &= r.contract_passed && r.lcp_failed_steps + r.nlp_failed_steps == 0;
                rs_grad_free(&r);
            }
            t[w][round] = rs_wall_seconds() - t0;
            rs_scenario_release(&sc);
        }
    printf("\n8. Gradients of the point2d run (1200 steps) with respect to 4 keys, against a plain "
           "comparison\n\n");
    printf("| %-36s | %10s | %17s | %17s |\n", "work", "median s", "/ compare (relax)",
           "/ compare (own)");
    printf("|--------------------------------------|------------|-------------------|"
           "-------------------|\n");
    double med[WORKS];
    for (int w = 0; w < WORKS; w++)
        med[w] = bench_median(t[w], ROUNDS);
    for (int w = 0; w < WORKS; w++)
        printf("| %-36s | %10.3f | %17.2f | %17.2f |\n", labels[w], med[w], med[w] / med[0],
               med[w] / med[1]);
    printf("   Target: the gradients (LCP forward mode and NLP sensitivities, all steps, 4 keys) at\n"
           "   most 3 x a comparison of the same run. grad poses the NLP as the relaxation of the\n"
           "   step LCP; compare's default is the model's own NLP: both shown. The differences add\n"
           "   8 Lemke trajectories. Every run: no failed step, contract %s.\n",
           passed ? "passed" : "FAILED");
}

/* Median time per step of the steps that solved something (IPOPT called, or Lemke), us. */
static double median_step_us(const rs_compare_result *r, int lemke)
{
    double *t = malloc(sizeof(double) * (size_t)r->steps);
    int k = 0;
    for (int i = 0; t && i < r->steps; i++) {
        const rs_step_result *s = lemke ? &r->step[i].lemke : &r->step[i].nlp;
        if (lemke || rs_nlp_path_is_ipopt(s->path))
            t[k++] = 1e6 * s->time_s;
    }
    const double m = k ? bench_median(t, k) : NAN;
    free(t);
    return m;
}

static void friction_cone(const char *src)
{
    static const int ks[] = {4, 8, 16, 32, 64};
    printf("\n9. point3d_friction (1200 steps): time per step against the friction directions k\n\n");
    printf("| %5s | %14s | %9s | %18s | %9s | %20s | %9s |\n", "k", "Lemke us/step", "/ k=4",
           "NLP exact us/IPOPT", "/ k=4", "NLP relax us/IPOPT", "/ k=4");
    printf("|-------|----------------|-----------|--------------------|-----------|"
           "----------------------|-----------|\n");
    double base[3] = {0, 0, 0};
    int failed = 0;
    for (int i = 0; i < 5; i++) {
        double us[3];
        for (int form = 0; form < 2; form++) {
            char dirs[64];
            snprintf(dirs, sizeof dirs, "model.directions=%d", ks[i]);
            const char *sets[] = {dirs, form ? "nlp.form=relaxation" : "nlp.form=own"};
            rs_compare_result r;
            if (!load(src, "point3d_friction", sets, 2) ||
                rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r) != RS_OK)
                exit(1);
            if (form == 0)
                us[0] = median_step_us(&r, 1);
            us[1 + form] = median_step_us(&r, 0);
            failed += r.nlp.failed_steps + r.lemke.failed_steps;
            rs_compare_free(&r);
            rs_scenario_release(&sc);
        }
        if (i == 0)
            for (int j = 0; j < 3; j++)
                base[j] = us[j];
        printf("| %5d | %14.2f | %9.2f | %18.1f | %9.2f | %20.1f | %9.2f |\n", ks[i], us[0],
               us[0] / base[0], us[1], us[1] / base[1], us[2], us[2] / base[2]);
    }
    printf("   Medians over the steps that solved something (Lemke: every step; NLP: the steps that\n"
           "   called IPOPT). The exact cone's NLP has 12 variables whatever k; the relaxation of\n"
           "   the LCP has 2 (k + 2). Failed steps in all runs: %d.\n", failed);
}

int main(int argc, char **argv)
{
    const int only = argc == 3 ? atoi(argv[2]) : 0;
    if (argc < 2 || argc > 3 || (argc == 3 && (only < 1 || only > 9 || only == 6))) {
        fprintf(stderr, "usage: sim_bench SOURCE_DIR [SECTION 1-5, 7, 8 or 9]\n");
        return 2;
    }
    if (!only || only == 1)
        nlp_step(argv[1]);
    if (!only || only == 2)
        workers(argv[1]);
    if (!only || only == 3)
        memory(argv[1]);
    if (!only || only == 4)
        lemke_warm(argv[1]);
    if (!only || only == 5)
        stacked(argv[1]);
    if (only == 7) /* scripts/bench.sh runs 7 and 8 after section 6 */
        pegboard(argv[1]);
    if (only == 8)
        gradients(argv[1]);
    if (only == 9)
        friction_cone(argv[1]);
    return 0;
}
