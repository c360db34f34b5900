/* model_registry.c: the list of models (problems/<model>.c) and lookups by name. */
#include <string.h>

#include "sim/model.h"

extern const rs_model rs_model_falling_block;
extern const rs_model rs_model_sliding_block_forward;
extern const rs_model rs_model_sliding_block_direct;
extern const rs_model rs_model_sliding_block_traditional;
extern const rs_model rs_model_point2d_friction;
extern const rs_model rs_model_disc_polygons;
extern const rs_model rs_model_point3d_friction;

static const rs_model *const models[] = {
    &rs_model_falling_block,
    &rs_model_sliding_block_forward,
    &rs_model_sliding_block_direct,
    &rs_model_sliding_block_traditional,
    &rs_model_point2d_friction,
    &rs_model_disc_polygons,
    &rs_model_point3d_friction,
};

int rs_model_count(void)
{
    return (int)(sizeof models / sizeof models[0]);
}

const rs_model *rs_model_at(int i)
{
    return i >= 0 && i < rs_model_count() ? models[i] : NULL;
}

const rs_model *rs_model_find(const char *name)
{
    for (int i = 0; name && i < rs_model_count(); i++)
        if (strcmp(models[i]->name, name) == 0)
            return models[i];
    return NULL;
}

const char *rs_model_check(const rs_model *m)
{
    if (!m || !m->name || !m->params || !m->state_names || !m->state_default ||
        !m->velocity_index || !m->force_scale || !m->step_scales || !m->lcp_build ||
        !m->lcp_recover || !m->residuals || !m->modes)
        return "a name, an array or a callback is missing";
    if (m->nparams < 0 || m->nparams > RS_MODEL_MAX_PARAMS)
        return "nparams out of range [0, RS_MODEL_MAX_PARAMS]";
    if (m->nstate < 1 || m->nstate > RS_MODEL_MAX_STATE)
        return "nstate out of range [1, RS_MODEL_MAX_STATE]";
    if (m->nvelocity < 0 || m->nvelocity > m->nstate)
        return "nvelocity out of range [0, nstate]";
    for (int v = 0; v < m->nvelocity; v++)
        if (m->velocity_index[v] < 0 || m->velocity_index[v] >= m->nstate)
            return "a velocity index is not a state component";
    if (m->ninput < 0 || m->ninput > RS_MODEL_MAX_INPUT || (m->ninput > 0 && !m->input_names))
        return "ninput out of range [0, RS_MODEL_MAX_INPUT]";
    if (m->nforce < 0 || m->nforce > RS_MODEL_MAX_FORCE || (m->nforce > 0 && !m->force_names))
        return "nforce out of range [0, RS_MODEL_MAX_FORCE]";
    if (m->ncontacts < 0 || m->ncontacts > RS_MODEL_MAX_CONTACTS)
        return "ncontacts out of range [0, RS_MODEL_MAX_CONTACTS]";
    if (m->nvariants < 1 || !m->variants)
        return "no variant";
    if (m->lcp_n < 1 || m->lcp_n > RS_MODEL_MAX_LCP)
        return "lcp_n out of range [1, RS_MODEL_MAX_LCP]";
    if (!m->lcp_tangent != !m->lcp_recover_tangent)
        return "lcp_tangent and lcp_recover_tangent come together";
    if (!m->lcp_z_names != !m->lcp_w_names || (m->lcp_z_names && m->lcp_size))
        return "lcp_z_names and lcp_w_names come together, for a fixed LCP size only";
    if (m->lcp_size && m->nlp_n != 0 && !m->nlp_size)
        return "a model with per-step sizes (lcp_size) and its own NLP needs nlp_size";
    if (m->nlp_n == 0) /* the relaxation of the LCP: 2 lcp_n variables, posed in its units */
        return m->lcp_units ? NULL : "an LCP relaxation needs lcp_units";
    if (m->nlp_n < 1 || m->nlp_n > RS_MODEL_MAX_NLP || m->nlp_m < 0 ||
        m->nlp_m > RS_MODEL_MAX_NLP)
        return "nlp_n or nlp_m out of range [1, RS_MODEL_MAX_NLP]";
    if (!m->nlp_describe || !m->nlp_start || !m->nlp_recover)
        return "an NLP callback is missing";
    return NULL;
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
