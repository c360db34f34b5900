/* model.c: the model interface's checks and lookups (sim/model.h): whether a model is
 * consistent, the names of contact modes, and columns found by name. */
#include <stdio.h>
#include <string.h>

#include "core/detail.h"
#include "sim/model.h"

/* What is wrong with m, or NULL. */
static const char *model_problem(const rs_model *m)
{
    if (!m || !m->name || !m->params || !m->state_names || !m->state_default ||
        !m->velocity_index || !m->force_scale || !m->step_scales || !m->lcp_build ||
        !m->lcp_recover || !m->residuals || !m->modes)
        return "a name, an array or a callback is missing";
    if (m->nparams < 0)
        return "nparams < 0";
    if (m->nstate < 1)
        return "nstate < 1";
    if (m->nvelocity < 0 || m->nvelocity > m->nstate)
        return "nvelocity out of range [0, nstate]";
    for (int v = 0; v < m->nvelocity; v++)
        if (m->velocity_index[v] < 0 || m->velocity_index[v] >= m->nstate)
            return "a velocity index is not a state component";
    if (m->ninput < 0 || (m->ninput > 0 && !m->input_names))
        return "ninput < 0, or inputs without names";
    if (m->nforce < 0 || (m->nforce > 0 && !m->force_names))
        return "nforce < 0, or forces without names";
    if (m->ncontacts < 0)
        return "ncontacts < 0";
    if (m->nvariants < 1 || !m->variants)
        return "no variant";
    if (m->sizes_grow ? (m->lcp_n < 0 || !m->lcp_size) : m->lcp_n < 1)
        return m->sizes_grow ? "a model whose sizes grow needs lcp_size" : "lcp_n < 1";
    if (!m->lcp_tangent != !m->lcp_recover_tangent)
        return "lcp_tangent and lcp_recover_tangent come together";
    if (!m->lcp_z_names != !m->lcp_w_names || (m->lcp_z_names && m->lcp_size))
        return "lcp_z_names and lcp_w_names come together, for a fixed LCP size only";
    if (!m->cache_create != !m->cache_free)
        return "cache_create and cache_free come together";
    if (m->instantiate && !m->release)
        return "instantiate needs release (an instance has release alone)";
    if (!rs_model_own_nlp(m)) /* the relaxation of the LCP, posed in its units */
        return m->lcp_units ? NULL : "an LCP relaxation needs lcp_units";
    if (m->lcp_size && !m->nlp_size)
        return "a model with per-step sizes (lcp_size) and its own NLP needs nlp_size";
    if (!m->sizes_grow && (m->nlp_n < 1 || m->nlp_m < 0))
        return "nlp_n < 1 or nlp_m < 0";
    if (!m->nlp_start || !m->nlp_recover)
        return "an NLP callback is missing";
    return NULL;
}

rs_error rs_model_check(const rs_model *m, rs_error_detail *detail)
{
    const char *why = model_problem(m);
    if (why)
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "model %s: %s",
                             m && m->name ? m->name : "(unnamed)", why);
    rs_detail_clear(detail);
    return RS_OK;
}

const char *rs_contact_mode_name(rs_contact_mode mode)
{
    switch (mode) {
    case RS_MODE_SEPARATING: return "separating";
    case RS_MODE_CONTACT: return "contact";
    case RS_MODE_STICKING: return "sticking";
    case RS_MODE_SLIDING_POS: return "sliding+";
    case RS_MODE_SLIDING_NEG: return "sliding-";
    case RS_MODE_SLIDING: return "sliding";
    }
    return "unknown";
}

int rs_speed_columns(const rs_model *m, const char *body, int *xd, int *zd)
{
    char a[128], b[128];
    if (snprintf(a, sizeof a, "%s.xd_mps", body) >= (int)sizeof a ||
        snprintf(b, sizeof b, "%s.zd_mps", body) >= (int)sizeof b)
        return -1;
    int ia = -1, ib = -1;
    for (int i = 0; i < m->nstate; i++) {
        if (strcmp(m->state_names[i], a) == 0)
            ia = i;
        if (strcmp(m->state_names[i], b) == 0)
            ib = i;
    }
    if (ia < 0 || ib < 0)
        return -1;
    if (xd)
        *xd = ia;
    if (zd)
        *zd = ib;
    return 0;
}

int rs_column_index(const char *const *names, int count, const char *key)
{
    const size_t len = strlen(key);
    for (int i = 0; i < count; i++) {
        const char *unit = strrchr(names[i], '_');
        const size_t base = unit ? (size_t)(unit - names[i]) : strlen(names[i]);
        if (base == len && strncmp(names[i], key, len) == 0)
            return i;
    }
    return -1;
}
