/*
 * relaxsim/relaxsim.h: the whole public API of relaxsim.
 *
 * relaxsim simulates rigid bodies with contact and Coulomb friction by time stepping; each step is
 * solved as a relaxed-complementarity NLP (IPOPT) and, for comparison, as an LCP (Lemke).
 * Every exported symbol starts with rs_ (functions, types) or RS_ (macros, enum values).
 */
#ifndef RELAXSIM_RELAXSIM_H
#define RELAXSIM_RELAXSIM_H

#include "relaxsim/export.h"
#include "relaxsim/error.h"
#include "relaxsim/lcp.h"
#include "relaxsim/lcp_file.h"
#include "relaxsim/lcp_generate.h"
#include "relaxsim/lcp_derivative.h"
#include "relaxsim/nlp.h"
#include "relaxsim/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RS_VERSION_MAJOR 0
#define RS_VERSION_MINOR 2
#define RS_VERSION_PATCH 0
#define RS_VERSION_STRING "0.2.0"

/** The version of the library that is linked, e.g. "0.2.0". Never NULL. */
RS_API const char *rs_version(void);

#ifdef __cplusplus
}
#endif

#endif /* RELAXSIM_RELAXSIM_H */
