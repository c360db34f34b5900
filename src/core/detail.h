/* detail.h (internal): filling an rs_error_detail. */
#ifndef RS_CORE_DETAIL_H
#define RS_CORE_DETAIL_H

#include "relaxsim/error.h"

/** Empty the message (no-op on NULL). */
void rs_detail_clear(rs_error_detail *detail);

/** Format the message (no-op on NULL detail) and return err, so callers can `return rs_detail_set(...)`. */
rs_error rs_detail_set(rs_error_detail *detail, rs_error err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
