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

typedef struct solve_options {
    const char *path;
    int json;
    rs_lemke_settings settings;
} solve_options;

static int parse_solve_options(int argc, char **argv, solve_options *opt)
{
    memset(opt, 0, sizeof *opt);
    rs_lemke_settings_default(&opt->settings);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--json") == 0) {
            opt->json = 1;
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
        rs_cli_usage_error("lcp solve: missing FILE (usage: relaxsim lcp solve FILE [--json] "
                           "[--max-pivots N] [--tol T])");
        return 0;
    }
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
                       const double *w, const rs_lemke_info *info)
{
    const rs_lcp_certificate *c = &info->cert;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", opt->path);
    cJSON_AddNumberToObject(o, "n", lcp->n);
    cJSON_AddStringToObject(o, "solver", "lemke");
    cJSON_AddStringToObject(o, "status", rs_lemke_status_name(info->status));
    cJSON_AddNumberToObject(o, "pivots", info->pivots);
    cJSON_AddNumberToObject(o, "solve_time_s", info->solve_time_s);
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
                       const double *w, const rs_lemke_info *info)
{
    const rs_lcp_certificate *c = &info->cert;
    printf("file                 %s\n", opt->path);
    printf("n                    %d\n", lcp->n);
    printf("solver               lemke (lexicographic, covering vector e)\n");
    printf("status               %s\n", rs_lemke_status_name(info->status));
    printf("pivots               %d\n", info->pivots);
    printf("time                 %.3f ms\n", 1e3 * info->solve_time_s);
    printf("certificate          %s (tolerance %.3g, relative to max(1, ||q||_inf))\n",
           c->passed ? "passed" : "FAILED", opt->settings.cert_tol);
    printf("  min z              % .6e\n", c->min_z);
    printf("  min w              % .6e\n", c->min_w);
    printf("  max |z_i w_i|      % .6e\n", c->max_complementarity);
    printf("  ||min(z, w)||_inf  % .6e\n", c->natural_residual);
    printf("\n%6s  %24s  %24s  %s\n", "i", "z", "w", "class");
    for (int i = 0; i < lcp->n; i++) {
        rs_lcp_index_class cls;
        const double tol = opt->settings.cert_tol * 100.0;
        rs_lcp_classify(1, &z[i], &w[i], tol, &cls);
        printf("%6d  %24.17g  %24.17g  %s\n", i, z[i], w[i], rs_lcp_index_class_name(cls));
    }
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
    rs_lemke_info info;
    err = (z && w) ? rs_lemke_solve_alloc(lcp->n, lcp->M, lcp->q, NULL, &opt.settings, z, w, &info)
                   : RS_ERR_NOMEM;
    int code;
    if (err != RS_OK) {
        code = rs_cli_usage_error("%s: %s", opt.path, rs_error_string(err));
    } else {
        if (opt.json)
            print_json(&opt, lcp, z, w, &info);
        else
            print_text(&opt, lcp, z, w, &info);
        code = info.status == RS_LEMKE_SOLVED ? RS_EXIT_OK : RS_EXIT_FAILED;
    }
    free(z);
    free(w);
    rs_lcp_destroy(lcp);
    return code;
}
