/* cmd_models.c: `relaxsim models`: every model with its parameters, state, inputs and variants. */
#include <stdio.h>

#include "cli/cli.h"
#include "sim/model.h"

int rs_cmd_models(int argc, char **argv)
{
    if (argc != 1)
        return rs_cli_usage_error("models: no arguments expected, got '%s'", argv[1]);
    for (int i = 0; i < rs_model_count(); i++) {
        const rs_model *m = rs_model_at(i);
        printf("%s: %s (%s)\n", m->name, m->summary, m->source);
        printf("  %ss:", m->variant_key ? m->variant_key : "variant");
        for (int v = 0; v < m->nvariants; v++)
            printf(" %s%s", m->variants[v], v == 0 ? " (default)" : "");
        printf("\n  state:   ");
        for (int s = 0; s < m->nstate; s++)
            printf(" %s = %g", m->state_names[s], m->state_default[s]);
        printf("\n  inputs:  ");
        for (int s = 0; s < m->ninput; s++)
            printf(" %s", m->input_names[s]);
        printf("\n  forces:  ");
        for (int s = 0; s < m->nforce; s++)
            printf(" %s", m->force_names[s]);
        const char *nlp = m->nlp_n || m->nlp_size ? "of its own" : "= relaxation of its LCP";
        if (m->sizes_grow)
            printf("\n  LCP and NLP sized per step by the contacts found; NLP %s\n", nlp);
        else
            printf(m->lcp_size ? "\n  LCP size set per step, up to %d; NLP %s\n"
                               : "\n  LCP size %d; NLP %s\n", m->lcp_n, nlp);
        for (int p = 0; p < m->nparams; p++)
            printf("  %-4s = %-8g in [%g, %g]  %s\n", m->params[p].name, m->params[p].value,
                   m->params[p].lo, m->params[p].hi, m->params[p].doc);
        printf("\n");
    }
    return RS_EXIT_OK;
}
