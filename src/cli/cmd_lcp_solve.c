/*
 * cmd_lcp_solve.c: `relaxsim lcp solve FILE [--json] [--max-pivots N] [--tol T]`.
 *
 * Reads a Siconos .dat LCP, solves it with Lemke's method and prints the status, pivots, z, w,
 * the index class of each component and the certificate recomputed from (M, q, z).
 * Exit 0 solved, 1 not solved, 2 bad usage or bad input.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relaxsim/relaxsim.h"
#include "cli/cli.h"
#include "core/timer.h"

typedef struct solve_options {
    const char *path;
    int json;
    int ipopt;                 /* --solver ipopt: the relaxed-complementarity NLP */
    int tol_given;
    rs_lemke_settings settings; /* cert_tol is the certificate tolerance of either solver */
} solve_options;

/* What either solver reports: a status name, a work count, a time and the certificate. */
typedef struct solve_report {
    const char *status;
    const char *work_name;     /* "pivots" or "iterations" */
    int work;
    double time_s;
    int solved;
    rs_lcp_certificate cert;
} solve_report;

/* Certificate tolerance of the interior-point route when --tol is not given: its accuracy on
 * floating pairs (z_i = w_i = 0) is about sqrt(mu), see docs/commands/lcp.md. */
#define IPOPT_CERT_TOL_DEFAULT 1e-6

static int parse_solve_options(int argc, char **argv, solve_options *opt)
{
    memset(opt, 0, sizeof *opt);
    rs_lemke_settings_default(&opt->settings);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--json") == 0) {
            opt->json = 1;
        } else if (strcmp(a, "--solver") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)))
                return 0;
            if (strcmp(v, "ipopt") == 0)
                opt->ipopt = 1;
            else if (strcmp(v, "lemke") != 0) {
                rs_cli_usage_error("--solver: expected lemke or ipopt, got '%s'", v);
                return 0;
            }
        } else if (strcmp(a, "--max-pivots") == 0) {
            long n;
            if (!(v = rs_cli_option_value(argc, argv, &i)) ||
                !rs_cli_parse_long("--max-pivots", v, 1, 1000000000L, &n))
                return 0;
            opt->settings.max_pivots = (int)n;
        } else if (strcmp(a, "--tol") == 0) {
            if (!(v = rs_cli_option_value(argc, argv, &i)) ||
                !rs_cli_parse_double("--tol", v, 1e-16, 0.5, &opt->settings.cert_tol))
                return 0;
            opt->tol_given = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            rs_cli_usage_error("lcp solve: unknown option '%s'", a);
            return 0;
        } else if (opt->path) {
            rs_cli_usage_error("lcp solve: one FILE expected, got '%s' and '%s'", opt->path, a);
            return 0;
        } else {
            opt->path = a;
        }
    }
    if (!opt->path) {
        rs_cli_usage_error("lcp solve: missing FILE (usage: relaxsim lcp solve FILE "
                           "[--solver lemke|ipopt] [--json] [--max-pivots N] [--tol T])");
        return 0;
    }
    if (opt->ipopt && !opt->tol_given)
        opt->settings.cert_tol = IPOPT_CERT_TOL_DEFAULT;
    return 1;
}

static cJSON *json_vector(const double *x, int n)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(x[i]));
    return arr;
}

static void print_json(const solve_options *opt, const rs_lcp *lcp, const double *z,
                       const double *w, const solve_report *rep)
{
    const rs_lcp_certificate *c = &rep->cert;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", opt->path);
    cJSON_AddNumberToObject(o, "n", lcp->n);
    cJSON_AddStringToObject(o, "solver", opt->ipopt ? "ipopt" : "lemke");
    cJSON_AddStringToObject(o, "status", rep->status);
    cJSON_AddNumberToObject(o, rep->work_name, rep->work);
    cJSON_AddNumberToObject(o, "solve_time_s", rep->time_s);
    cJSON_AddItemToObject(o, "z", json_vector(z, lcp->n));
    cJSON_AddItemToObject(o, "w", json_vector(w, lcp->n));
    cJSON_AddNumberToObject(o, "min_z", c->min_z);
    cJSON_AddNumberToObject(o, "min_w", c->min_w);
    cJSON_AddNumberToObject(o, "max_complementarity", c->max_complementarity);
    cJSON_AddNumberToObject(o, "natural_residual", c->natural_residual);
    cJSON *rel = cJSON_AddObjectToObject(o, "relative");
    cJSON_AddNumberToObject(rel, "min_z", c->rel_min_z);
    cJSON_AddNumberToObject(rel, "min_w", c->rel_min_w);
    cJSON_AddNumberToObject(rel, "max_complementarity", c->rel_max_complementarity);
    cJSON_AddNumberToObject(rel, "natural_residual", c->rel_natural_residual);
    cJSON_AddNumberToObject(o, "tolerance", opt->settings.cert_tol);
    cJSON_AddBoolToObject(o, "certificate_passed", c->passed);
    char *text = cJSON_PrintUnformatted(o);
    if (text)
        puts(text);
    free(text);
    cJSON_Delete(o);
}

static void print_text(const solve_options *opt, const rs_lcp *lcp, const double *z,
                       const double *w, const solve_report *rep)
{
    const rs_lcp_certificate *c = &rep->cert;
    printf("file                 %s\n", opt->path);
    printf("n                    %d\n", lcp->n);
    printf("solver               %s\n", opt->ipopt ? "ipopt (relaxed-complementarity NLP, MUMPS)"
                                                     : "lemke (lexicographic, covering vector e)");
    printf("status               %s\n", rep->status);
    printf("%-20s %d\n", rep->work_name, rep->work);
    printf("time                 %.3f ms\n", 1e3 * rep->time_s);
    printf("certificate          %s (tolerance %.3g on the relative measures)\n",
           c->passed ? "passed" : "FAILED", opt->settings.cert_tol);
    printf("  min z              % .6e\n", c->min_z);
    printf("  min w              % .6e\n", c->min_w);
    printf("  max |z_i w_i|      % .6e\n", c->max_complementarity);
    printf("  ||min(z, w)||_inf  % .6e\n", c->natural_residual);
    printf("\n%6s  %24s  %24s  %s\n", "i", "z", "w", "class");
    for (int i = 0; i < lcp->n; i++) {
        rs_lcp_index_class cls;
        const double tol = opt->settings.cert_tol * 100.0;
        rs_lcp_classify(1, &z[i], &w[i], tol, &cls, NULL);
        printf("%6d  %24.17g  %24.17g  %s\n", i, z[i], w[i], rs_lcp_index_class_name(cls));
    }
}

static rs_error solve(const solve_options *opt, const rs_lcp *lcp, double *z, double *w,
                      solve_report *rep, rs_error_detail *detail)
{
    if (opt->ipopt) {
        /* One isolated solve: drive IPOPT's barrier parameter as low as it goes, since the
         * accuracy on floating pairs is about sqrt(mu) (tol 1e-10 leaves 1e-6 on lcp_mmc). */
        rs_nlp_settings s;
        rs_nlp_settings_default(&s);
        s.tol = 1e-14;
        rs_nlp_info info = {.size = sizeof info};
        rep->cert.size = sizeof rep->cert;
        const rs_error err = rs_lcp_solve_relaxed(lcp->n, lcp->M, lcp->q, &s,
                                                  opt->settings.cert_tol, z, w, &rep->cert, &info,
                                                  detail);
        rep->status = rs_nlp_status_name(info.status);
        rep->work_name = "iterations";
        rep->work = info.iterations;
        rep->time_s = info.solve_time_s;
        rep->solved = rs_nlp_status_ok(info.status);
        return err;
    }
    rs_lemke_info info = {.size = sizeof info};
    const double t0 = rs_wall_seconds();
    const rs_error err = rs_lemke_solve_alloc(lcp->n, lcp->M, lcp->q, NULL, &opt->settings, z, w,
                                              &info, detail);
    rep->time_s = rs_wall_seconds() - t0;
    rep->status = rs_lemke_status_name(info.status);
    rep->work_name = "pivots";
    rep->work = info.pivots;
    rep->solved = info.status == RS_LEMKE_SOLVED;
    rep->cert = info.cert;
    return err;
}

int rs_cmd_lcp_solve(int argc, char **argv)
{
    solve_options opt;
    if (!parse_solve_options(argc, argv, &opt))
        return RS_EXIT_USAGE;
    rs_lcp *lcp = NULL;
    rs_error_detail detail;
    rs_error err = rs_lcp_read_file(opt.path, &lcp, &detail);
    if (err != RS_OK)
        return rs_cli_usage_error("%s", detail.message[0] ? detail.message : rs_error_string(err));
    double *z = malloc(sizeof(double) * (size_t)lcp->n);
    double *w = malloc(sizeof(double) * (size_t)lcp->n);
    solve_report rep;
    err = (z && w) ? solve(&opt, lcp, z, w, &rep, &detail) : RS_ERR_NOMEM;
    int code;
    if (err != RS_OK) {
        code = rs_cli_usage_error("%s: %s", opt.path,
                                  detail.message[0] ? detail.message : rs_error_string(err));
    } else {
        if (opt.json)
            print_json(&opt, lcp, z, w, &rep);
        else
            print_text(&opt, lcp, z, w, &rep);
        code = rep.solved ? RS_EXIT_OK : RS_EXIT_FAILED;
    }
    free(z);
    free(w);
    rs_lcp_destroy(lcp);
    return code;
}
