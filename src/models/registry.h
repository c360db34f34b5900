/*
 * registry.h (internal): every model relaxsim has (problems/models.txt), and lookup by name.
 * Above the models and the engine: the scenario reader, the command and the API ask it, the
 * stepper and the models never do.
 */
#ifndef RS_MODELS_REGISTRY_H
#define RS_MODELS_REGISTRY_H

#include "sim/model.h"

/* The number of models, the i-th (NULL out of range), and the one named name (NULL if unknown). */
int rs_model_count(void);
const rs_model *rs_model_at(int i);
const rs_model *rs_model_find(const char *name);

#endif
