/* nlp_settings.c: defaults, validation and status names of the NLP solves. */
#include <math.h>
#include <stddef.h>

#include "relaxsim/nlp.h"

const char *rs_nlp_status_name(rs_nlp_status status)
{
    switch (status) {
    case RS_NLP_SOLVED: return "solved";
    case RS_NLP_ACCEPTABLE: return "acceptable";
    case RS_NLP_INFEASIBLE: return "infeasible";
    case RS_NLP_MAX_ITER: return "max_iter";
    case RS_NLP_RESTORATION_FAILED: return "restoration_failed";
    case RS_NLP_EVAL_ERROR: return "eval_error";
    case RS_NLP_OTHER_FAILURE: return "other_failure";
    case RS_NLP_NOT_CERTIFIED: return "not_certified";
    case RS_NLP_TOO_LARGE: return "too_large";
    case RS_NLP_TINY_STEP: return "tiny_step";
    }
    return "unknown";
}

int rs_nlp_status_ok(rs_nlp_status status)
{
    return status == RS_NLP_SOLVED || status == RS_NLP_ACCEPTABLE || status == RS_NLP_TINY_STEP;
}

void rs_nlp_settings_default(rs_nlp_settings *s)
{
    if (!s)
        return;
    s->size = sizeof *s;
    s->tol = 1e-10;
    s->max_iter = 200;
    s->eps = 1e-10;
    s->penalty = RS_NLP_PENALTY_L1;
    s->penalty_weight = 1.0;
    s->warm_start = 1;
    s->mu_init = 1e-11;
    s->retries = 2;
    s->cert_tol = 1e-6;
    s->check_start = 1;
    s->relax_lcp = 0;
    s->polish = 1;
    s->print_level = 0;
}

rs_error rs_nlp_settings_validate(const rs_nlp_settings *s, const char **field_out)
{
    const char *bad = NULL;
    if (!s)
        return RS_ERR_NULL_ARG;
    if (s->size != sizeof *s)
        bad = "size";
    else if (!(s->tol > 0.0 && s->tol < 1.0))
        bad = "tol";
    else if (s->max_iter < 1 || s->max_iter > 100000)
        bad = "max_iter";
    else if (!(s->eps > 0.0 && s->eps <= 1.0))
        bad = "eps";
    else if (s->penalty != RS_NLP_PENALTY_L1 && s->penalty != RS_NLP_PENALTY_L2)
        bad = "penalty";
    else if (!(s->penalty_weight > 0.0 && s->penalty_weight <= 1e12))
        bad = "penalty_weight";
    else if (s->warm_start != 0 && s->warm_start != 1)
        bad = "warm_start";
    else if (!(s->mu_init > 0.0 && s->mu_init <= 1.0))
        bad = "mu_init";
    else if (s->retries < 0 || s->retries > 5)
        bad = "retries";
    else if (!(s->cert_tol > 0.0 && s->cert_tol < 1.0))
        bad = "cert_tol";
    else if (s->check_start != 0 && s->check_start != 1)
        bad = "check_start";
    else if (s->relax_lcp != 0 && s->relax_lcp != 1)
        bad = "relax_lcp";
    else if (s->polish != 0 && s->polish != 1)
        bad = "polish";
    else if (s->print_level < 0 || s->print_level > 12)
        bad = "print_level";
    if (field_out)
        *field_out = bad;
    return bad ? RS_ERR_BAD_SETTING : RS_OK;
}
