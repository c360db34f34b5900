/* model_registry.c: the list of models (problems/<model>.c) and lookups by name. */
#include <string.h>

#include "sim/model.h"

extern const rs_model rs_model_falling_block;
extern const rs_model rs_model_sliding_block_forward;
extern const rs_model rs_model_sliding_block_direct;
extern const rs_model rs_model_sliding_block_traditional;
extern const rs_model rs_model_point2d_friction;

static const rs_model *const models[] = {
    &rs_model_falling_block,
    &rs_model_sliding_block_forward,
    &rs_model_sliding_block_direct,
    &rs_model_sliding_block_traditional,
    &rs_model_point2d_friction,
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

const char *rs_contact_mode_name(rs_contact_mode mode)
{
    switch (mode) {
    case RS_MODE_SEPARATING: return "separating";
    case RS_MODE_CONTACT: return "contact";
    case RS_MODE_STICKING: return "sticking";
    case RS_MODE_SLIDING_POS: return "sliding+";
    case RS_MODE_SLIDING_NEG: return "sliding-";
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
