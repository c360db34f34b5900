/*
 * cmd_grad.c: `relaxsim grad SCENARIO --wrt KEY[,KEY...] [--of COLUMN[@STEP],...] [--fd-step REL]
 * [--rtol R] [--no-fd] [--fd-nlp] [--fd-nlp-step REL] [--sweep KEY=LO:HI:N]
 * [--set section.key=value ...] [-o DIR] [-q]`.
 *
 * The gradients of the outputs (default: every state column after the last step) with respect to
 * the keys, by the LCP's forward mode, the NLP's KKT sensitivity and central differences, side by
 * side with a verdict each (sim/gradient.h). Writes gradients.csv, tangents.csv and grad.json to
 * DIR (default out/<scenario name>_grad); with --sweep, the gradients at N values of a key from
 * LO to HI into sweep.csv instead (relaxsim plot DIR draws it). Exit 0 when the [expect]
 * contract's gradient checks passed, 1 when one failed, 2 for bad usage or input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_progress.h"
#include "cli/cli.h"
#include "cli/cli_report.h"
#include "io/grad_output.h"
#include "io/outset.h"
#include "io/output.h"
#include "sim/gradient.h"

static const char usage[] =
    "relaxsim grad SCENARIO --wrt KEY[,KEY...] [--of COLUMN[@STEP],...] [--fd-step REL] "
    "[--rtol R] [--no-fd] [--fd-nlp] [--fd-nlp-step REL] [--sweep KEY=LO:HI:N] "
    "[--set section.key=value ...] [-o DIR] [-q]";

typedef struct grad_args {
    const char *wrt, *of, *sweep;
    rs_grad_config cfg;
} grad_args;

/* grad's own options (rs_cli_load_scenario_with). */
static int grad_option(void *ctx, int argc, char **argv, int *i)
{
    grad_args *g = ctx;
    const char *arg = argv[*i];
    if (strcmp(arg, "--wrt") == 0)
        return (g->wrt = rs_cli_option_value(argc, argv, i)) ? 1 : -1;
    if (strcmp(arg, "--of") == 0)
        return (g->of = rs_cli_option_value(argc, argv, i)) ? 1 : -1;
    if (strcmp(arg, "--sweep") == 0)
        return (g->sweep = rs_cli_option_value(argc, argv, i)) ? 1 : -1;
    if (strcmp(arg, "--fd-step") == 0 || strcmp(arg, "--rtol") == 0 ||
        strcmp(arg, "--fd-nlp-step") == 0) {
        const char *v = rs_cli_option_value(argc, argv, i);
        double *field = strcmp(arg, "--rtol") == 0      ? &g->cfg.rtol
                        : strcmp(arg, "--fd-step") == 0 ? &g->cfg.fd_rel
                                                        : &g->cfg.fd_nlp_rel;
        return v && rs_cli_parse_double(arg, v, 1e-15, 0.1, field) ? 1 : -1;
    }
    if (strcmp(arg, "--no-fd") == 0)
        g->cfg.skip_fd = 1;
    else if (strcmp(arg, "--fd-nlp") == 0)
        g->cfg.fd_nlp = 1;
    else
        return 0;
    return 1;
}

static int grad_ready(void *ctx)
{
    const grad_args *g = ctx;
    if (!g->wrt)
        return rs_cli_usage_error("grad: --wrt KEY[,KEY...] is required (usage: %s)", usage), 0;
    return 1;
}

/* Split a comma-separated list into at most max items (in place in buf). */
static int split_list(char *buf, char **items, int max)
{
    int n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (n == max)
            return -1;
        items[n++] = tok;
    }
    return n;
}

static int parse_keys_outputs(const rs_scenario *sc, const grad_args *g, rs_grad_config *cfg)
{
    char buf[1024], *items[RS_GRAD_MAX_OUTPUTS + 1];
    snprintf(buf, sizeof buf, "%s", g->wrt);
    const int nk = split_list(buf, items, RS_GRAD_MAX_KEYS);
    if (nk < 1)
        return rs_cli_usage_error("--wrt: 1 to %d keys, comma-separated", RS_GRAD_MAX_KEYS), 0;
    cfg->nkeys = nk;
    for (int j = 0; j < nk; j++) {
        rs_error_detail why;
        if (rs_grad_parse_key(sc, items[j], &cfg->keys[j], &why) != RS_OK)
            return rs_cli_usage_error("--wrt %s: %s", items[j], why.message), 0;
        for (int i = 0; i < j; i++) /* "mu" and "model.mu" are one key: each row once */
            if (strcmp(cfg->keys[i].name, cfg->keys[j].name) == 0)
                return rs_cli_usage_error("--wrt %s: %s is named twice", items[j],
                                          cfg->keys[j].name),
                       0;
    }
    if (!g->of) { /* every state column after the last step */
        if (sc->model->nstate > RS_GRAD_MAX_OUTPUTS)
            return rs_cli_usage_error("grad: without --of the outputs are every state column, "
                                      "%d here; a run takes up to %d: name them with --of "
                                      "COLUMN[@STEP],...",
                                      sc->model->nstate, RS_GRAD_MAX_OUTPUTS),
                   0;
        cfg->noutputs = 0;
        for (int c = 0; c < sc->model->nstate; c++)
            rs_grad_parse_output(sc, sc->model->state_names[c], &cfg->outputs[cfg->noutputs++],
                                 NULL);
        return 1;
    }
    snprintf(buf, sizeof buf, "%s", g->of);
    const int no = split_list(buf, items, RS_GRAD_MAX_OUTPUTS);
    if (no < 1)
        return rs_cli_usage_error("--of: 1 to %d outputs, comma-separated", RS_GRAD_MAX_OUTPUTS), 0;
    cfg->noutputs = no;
    for (int o = 0; o < no; o++) {
        rs_error_detail why;
        if (rs_grad_parse_output(sc, items[o], &cfg->outputs[o], &why) != RS_OK)
            return rs_cli_usage_error("--of %s: %s", items[o], why.message), 0;
        for (int i = 0; i < o; i++)
            if (strcmp(cfg->outputs[i].name, cfg->outputs[o].name) == 0)
                return rs_cli_usage_error("--of %s: %s is named twice", items[o],
                                          cfg->outputs[o].name),
                       0;
    }
    return 1;
}

static void print_table(FILE *f, const rs_scenario *sc, const rs_grad_config *cfg,
                        const rs_grad_result *r)
{
    fprintf(f, "\n  %-16s %-14s %14s %16s %16s %16s %9s %9s", "output", "wrt", "value", "LCP",
            "NLP", "FD", "rel LCP", "rel NLP");
    if (cfg->fd_nlp)
        fprintf(f, " %16s %9s", "FD(NLP)", "rel FDN");
    fprintf(f, "  verdict\n");
    for (int o = 0; o < r->noutputs; o++)
        for (int j = 0; j < r->nkeys; j++) {
            const rs_grad_entry *e = &r->entries[o * r->nkeys + j];
            fprintf(f, "  %-16s %-14s %14.7g %16.9e %16.9e %16.9e %9.2e %9.2e",
                    cfg->outputs[o].name, cfg->keys[j].name, e->value, e->lcp, e->nlp, e->fd,
                    e->rel_lcp, e->rel_nlp);
            if (cfg->fd_nlp)
                fprintf(f, " %16.9e %9.2e", e->fd_nlp, e->rel_nlp_fdnlp);
            fprintf(f, "  %s", rs_grad_verdict_name(e->verdict));
            if (e->verdict == RS_GRAD_NON_SMOOTH)
                fprintf(f, " (switch at step %d)", e->switch_step);
            if (e->fd_sided == 2)
                fprintf(f, " (no FD: both sides outside the model's domain)");
            else if (e->fd_sided)
                fprintf(f, " (FD %s: the key is at the edge of the model's domain)",
                        e->fd_sided > 0 ? "forward" : "backward");
            fputc('\n', f);
        }
    fprintf(f, "\n  LCP  forward mode through the Lemke trajectory (right derivative at a floating "
               "index)\n");
    fprintf(f,
            "  NLP  the relaxation of the step LCP (IPOPT, tol %g): KKT sensitivity at IPOPT's "
            "final iterate\n",
            sc->nlp.tol);
    if (cfg->skip_fd)
        fprintf(f, "  FD   not run (--no-fd)\n");
    else
        fprintf(f,
                "  FD   central differences of the Lemke trajectory, h = %g |key value| (%g at "
                "0); rel A: |A - FD| relative (docs/commands/grad.md)\n",
                cfg->fd_rel, cfg->fd_rel);
    if (cfg->fd_nlp)
        fprintf(f,
                "  FD(NLP) central differences of the NLP trajectory, h = %g |key value|; rel FDN: "
                "|NLP - FD(NLP)| relative\n",
                cfg->fd_nlp_rel);
    fprintf(f, "\n  verdicts:");
    for (int v = 0; v < RS_GRAD_VERDICT_COUNT; v++)
        if (r->verdicts[v])
            fprintf(f, " %s %d", rs_grad_verdict_name((rs_grad_verdict)v), r->verdicts[v]);
    fprintf(f,
            "\n  steps: LCP failed %d, singular %d (minimum-norm), floating %d (one-sided; %d by "
            "the tie-break, the exact rule's block singular); NLP failed %d; largest KKT "
            "backward error %.2g\n",
            r->lcp_failed_steps, r->lcp_singular_steps, r->floating_steps, r->tiebreak_steps,
            r->nlp_failed_steps, r->max_sens_residual);
    fprintf(f, "  time: LCP %.3f s, NLP %.3f s, FD %.3f s\n", r->lcp_time_s, r->nlp_time_s,
            r->fd_time_s);
    rs_cli_print_checks(f, r->checks, r->nchecks);
}

static void default_out_dir(const char *scenario, char *buf, size_t n)
{
    const char *base = strrchr(scenario, '/');
    base = base ? base + 1 : scenario;
    const char *dot = strrchr(base, '.');
    const int len = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    snprintf(buf, n, "out/%.*s_grad", len, base);
}

/* The error of the last file write_file could not write (RS_ERR_WRITE: its data). */
static rs_error write_failure = RS_OK;

/* One file of the set (0: gradients.csv, 1: tangents.csv, 2: grad.json) into the staging
 * directory; 0 (message printed, its error in write_failure) on failure. */
static int write_file(rs_outset *set, const char *name, int which, const rs_scenario *sc,
                      const rs_grad_config *cfg, const rs_grad_result *r)
{
    rs_error_detail detail;
    FILE *f = rs_outset_create(set, name, &detail);
    write_failure = RS_ERR_IO;
    if (!f)
        return rs_cli_usage_error("%s", detail.message), 0;
    rs_error err = RS_OK;
    if (which == 0)
        rs_write_gradients_csv(f, cfg, r);
    else if (which == 1)
        rs_write_tangents_csv(f, sc, cfg, r);
    else
        err = rs_write_grad_json(f, sc, cfg, r);
    const rs_error closed = rs_outset_close(set, f, name, &detail);
    if (err != RS_OK)
        return rs_cli_usage_error("%s/%s: %s", rs_outset_dir(set), name, rs_error_string(err)), 0;
    if (closed != RS_OK) {
        write_failure = closed;
        return rs_cli_usage_error("%s", detail.message), 0;
    }
    write_failure = RS_OK;
    return 1;
}

/* --sweep KEY=LO:HI:N: the gradients at N evenly spaced values of KEY into DIR/sweep.csv. */
/* Returns an exit code; on 0 or 1, sweep.csv is staged in set and wrote holds the line to print
 * once the set is committed (the caller commits or aborts the set). */
static int run_sweep(const rs_scenario *sc, const grad_args *g, rs_outset *set, char *wrote,
                     size_t wrote_len)
{
    char spec[256];
    snprintf(spec, sizeof spec, "%s", g->sweep);
    char *eq = strchr(spec, '=');
    double lo, hi;
    long npts;
    char *parts[3];
    if (!eq)
        return rs_cli_usage_error("--sweep: expected KEY=LO:HI:N, got '%s'", g->sweep);
    *eq = '\0';
    int np = 0; /* LO:HI:N, no part empty, no fourth */
    for (char *part = eq + 1; part && np <= 3;) {
        char *colon = strchr(part, ':');
        if (colon)
            *colon = '\0';
        if (np < 3)
            parts[np] = part;
        np++;
        part = colon ? colon + 1 : NULL;
    }
    if (np != 3 || !*parts[0] || !*parts[1] || !*parts[2])
        return rs_cli_usage_error("--sweep: expected KEY=LO:HI:N (three parts), got '%s'",
                                  g->sweep);
    rs_grad_key key;
    rs_error_detail why;
    if (rs_grad_parse_key(sc, spec, &key, &why) != RS_OK)
        return rs_cli_usage_error("--sweep %s: %s", spec, why.message);
    rs_grad_config swept = g->cfg; /* the swept key must be one the scenario can vary */
    swept.keys[0] = key;
    swept.nkeys = 1;
    if (rs_grad_check_scenario(sc, &swept, &why) != RS_OK)
        return rs_cli_usage_error("--sweep %s: %s", spec, why.message);
    if (!rs_cli_parse_double("--sweep LO", parts[0], -1e300, 1e300, &lo) ||
        !rs_cli_parse_double("--sweep HI", parts[1], -1e300, 1e300, &hi) ||
        !rs_cli_parse_long("--sweep N", parts[2], 2, 1000, &npts))
        return RS_EXIT_USAGE;
    rs_error_detail detail;
    FILE *f = rs_outset_create(set, "sweep.csv", &detail);
    if (!f)
        return rs_cli_usage_error("%s", detail.message);
    rs_sweep_csv_header(f, key.name);
    int all_passed = 1;
    rs_scenario point; /* sc with the swept key set: its own values */
    if (rs_scenario_copy(&point, sc) != RS_OK) {
        fclose(f);
        return rs_cli_usage_error("--sweep: out of memory");
    }
    rs_cli_meter meter; /* on a terminal: the points done, and the one running */
    rs_cli_meter_start(&meter, "grad --sweep");
    for (long i = 0; i < npts; i++) {
        const double v = lo + (hi - lo) * (double)i / (double)(npts - 1);
        char now[160];
        snprintf(now, sizeof now, "%s = %g", key.name, v);
        rs_cli_meter_show(&meter, i, npts, "points", now);
        rs_grad_key_set(&point, &key, v);
        const int invalid = rs_grad_scenario_valid(&point, &why) != RS_OK;
        rs_grad_result r;
        const rs_error err = invalid ? RS_OK : rs_grad_run(&point, &g->cfg, NULL, NULL, &r);
        if (invalid || err != RS_OK) {
            rs_cli_meter_clear(&meter);
            rs_scenario_release(&point);
            fclose(f);
            return invalid ? rs_cli_usage_error("--sweep: %s = %g: %s", key.name, v,
                                                why.message)
                           : rs_cli_usage_error("%s at %s = %g: %s", sc->path, key.name, v,
                                                rs_error_string(err));
        }
        rs_sweep_csv_rows(f, v, &g->cfg, &r);
        all_passed &= r.contract_passed;
        rs_grad_free(&r);
    }
    rs_scenario_release(&point);
    rs_cli_meter_clear(&meter);
    if (rs_outset_close(set, f, "sweep.csv", &detail) != RS_OK)
        return rs_cli_usage_error("%s", detail.message);
    snprintf(wrote, wrote_len, "  %ld gradients of %s: wrote %s/sweep.csv (contract %s at every "
             "point: %s)\n", npts, key.name, rs_outset_dir(set),
             all_passed ? "passed" : "FAILED", all_passed ? "yes" : "no");
    return all_passed ? RS_EXIT_OK : RS_EXIT_FAILED;
}

/* grad on a loaded scenario: an exit code (the caller releases the scenario). */
static int grad_loaded(grad_args *g, const rs_cli_scenario_args *a, rs_scenario *sc)
{
    if (!rs_cli_steps_kept_fit("grad", sc))
        return RS_EXIT_USAGE;
    if (!parse_keys_outputs(sc, g, &g->cfg))
        return RS_EXIT_USAGE;
    rs_error_detail detail;
    if (rs_grad_check_scenario(sc, &g->cfg, &detail) != RS_OK)
        return rs_cli_usage_error("%s: model %s: %s", a->scenario, sc->model->name,
                                  detail.message);
    char dir[1024];
    if (a->out)
        snprintf(dir, sizeof dir, "%s", a->out);
    else
        default_out_dir(a->scenario, dir, sizeof dir);
    rs_outset *set;
    if (rs_outset_begin(dir, g->sweep ? NULL : "grad.json", &set, &detail) != RS_OK)
        return rs_cli_usage_error("-o: %s", detail.message);
    char kept[1200];
    snprintf(kept, sizeof kept, "the previous outputs in %s are unchanged", dir);
    rs_cli_on_interrupt(kept);
    if (g->sweep) {
        char wrote[1400] = "";
        static const char *const owned_sweep[] = {"sweep.csv"};
        const int code = run_sweep(sc, g, set, wrote, sizeof wrote);
        if (code == RS_EXIT_USAGE) {
            rs_outset_abort(set);
            return code;
        }
        const rs_error werr = rs_outset_commit(set, owned_sweep, 1, &detail);
        if (werr != RS_OK)
            return rs_cli_output_error(werr, "%s", detail.message);
        if (!a->quiet)
            fputs(wrote, stdout);
        return code;
    }
    rs_grad_result r;
    rs_error err = rs_grad_run(sc, &g->cfg, rs_cli_progress, NULL, &r);
    if (err != RS_OK) {
        rs_outset_abort(set);
        return rs_cli_usage_error("%s: %s", a->scenario, rs_error_string(err));
    }
    static const char *const owned[] = {"gradients.csv", "tangents.csv", "grad.json"};
    int written = write_file(set, "gradients.csv", 0, sc, &g->cfg, &r) &&
                  write_file(set, "tangents.csv", 1, sc, &g->cfg, &r) &&
                  write_file(set, "grad.json", 2, sc, &g->cfg, &r);
    if (!written)
        rs_outset_abort(set);
    else if ((err = rs_outset_commit(set, owned, 3, &detail)) != RS_OK) {
        write_failure = err;
        written = rs_cli_output_error(err, "%s", detail.message) && 0;
    }
    if (written && !a->quiet) {
        printf("  gradients of %s (%s, %d steps)\n", a->scenario, sc->model->name, sc->steps);
        print_table(stdout, sc, &g->cfg, &r);
        printf("\n  wrote %s/{gradients.csv, tangents.csv, grad.json}\n", dir);
    }
    if (written && a->quiet) /* quiet: no table, but a failed check is still named */
        rs_cli_name_failed_checks(stderr, "grad", a->scenario, r.checks, r.nchecks);
    const int code = !written ? (write_failure == RS_ERR_WRITE ? RS_EXIT_FAILED : RS_EXIT_USAGE)
                     : r.contract_passed ? RS_EXIT_OK
                                         : RS_EXIT_FAILED;
    rs_grad_free(&r);
    return code;
}

int rs_cmd_grad(int argc, char **argv)
{
    grad_args g = {0};
    rs_grad_config_default(&g.cfg);
    rs_cli_scenario_args a;
    static rs_scenario sc;
    if (!rs_cli_load_scenario_with(argc, argv, usage, grad_option, grad_ready, &g, &a, &sc))
        return RS_EXIT_USAGE;
    const int code = grad_loaded(&g, &a, &sc);
    rs_scenario_release(&sc);
    return code;
}
