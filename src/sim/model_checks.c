/* model_checks.c: domain checks several models share (declared in model.h). */
#include "core/detail.h"
#include "sim/model.h"

rs_error rs_check_reached_height(double height, const char *name, const char *surface,
                                 const rs_step_scales *sc, rs_error_detail *detail)
{
    if (height < -sc->length)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "%s = %.6g m: below the %s by more than one step's length (%.3g m), "
                             "which no step leaves (contact is at position level)",
                             name, height, surface, sc->length);
    return RS_OK;
}
