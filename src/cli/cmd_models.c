/* cmd_models.c: `relaxsim models`: every model with its parameters, state, inputs and variants,
 * through the library's public API (relaxsim/sim.h). */
#include <stdio.h>

#include "cli/cli.h"
#include "relaxsim/sim.h"

static void print_columns(int i, rs_sim_column_kind kind, int n, const double *values)
{
    for (int j = 0; j < n; j++) {
        printf(" %s", rs_sim_model_column(i, kind, j));
        if (values)
            printf(" = %g", values[j]);
    }
}

int rs_cmd_models(int argc, char **argv)
{
    if (argc != 1)
        return rs_cli_usage_error("models: no arguments expected, got '%s'", argv[1]);
    for (int i = 0; i < rs_sim_model_count(); i++) {
        rs_sim_model_info m = {.size = sizeof m};
        if (rs_sim_model_get_info(i, &m, NULL) != RS_OK)
            continue;
        printf("%s: %s (%s)\n", m.name, m.summary, m.source);
        printf("  %ss:", m.variant_key);
        for (int v = 0; v < m.nvariants; v++)
            printf(" %s%s", rs_sim_model_variant(i, v), v == 0 ? " (default)" : "");
        double initial[64];
        const int shown = m.nstate <= 64 && rs_sim_model_initial(i, initial, NULL) == RS_OK;
        printf("\n  state:   ");
        print_columns(i, RS_SIM_STATE, m.nstate, shown ? initial : NULL);
        printf("\n  inputs:  ");
        print_columns(i, RS_SIM_INPUT, m.ninput, NULL);
        printf("\n  forces:  ");
        print_columns(i, RS_SIM_FORCE, m.nforce, NULL);
        const char *nlp = m.own_nlp ? "of its own" : "= relaxation of its LCP";
        if (m.lcp_per_step && m.lcp_n == 0)
            printf("\n  LCP and NLP sized per step by the contacts found; NLP %s\n", nlp);
        else
            printf(m.lcp_per_step ? "\n  LCP size set per step, up to %d; NLP %s\n"
                                  : "\n  LCP size %d; NLP %s\n", m.lcp_n, nlp);
        for (int p = 0; p < m.nparams; p++) {
            rs_sim_param q = {.size = sizeof q};
            if (rs_sim_model_param(i, p, &q, NULL) == RS_OK)
                printf("  %-4s = %-8g in [%g, %g]  %s\n", q.name, q.value, q.lo, q.hi, q.doc);
        }
        printf("\n");
    }
    return RS_EXIT_OK;
}
