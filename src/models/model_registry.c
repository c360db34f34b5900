/* model_registry.c: the list of models (problems/models.txt, one line per model: the build
 * generates models.inc, one RS_MODEL(name) per line, in that order) and lookups by name. The
 * layer above the models it lists (problems/, the notes' hand-derived models; src/models/, the
 * bodies engine's), which nothing below it calls. */
#include <string.h>

#include "models/registry.h"

#define RS_MODEL(name) extern const rs_model rs_model_##name;
#include "models.inc"
#undef RS_MODEL

static const rs_model *const models[] = {
#define RS_MODEL(name) &rs_model_##name,
#include "models.inc"
#undef RS_MODEL
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
