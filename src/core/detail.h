/* detail.h (internal): filling an rs_error_detail. */
#ifndef RS_CORE_DETAIL_H
#define RS_CORE_DETAIL_H

#include <stddef.h>

#include "relaxsim/error.h"

/** Empty the message (no-op on NULL). */
void rs_detail_clear(rs_error_detail *detail);

/** Format the message (no-op on NULL detail) and return err, so callers can `return rs_detail_set(...)`. */
rs_error rs_detail_set(rs_error_detail *detail, rs_error err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A caller's struct whose size field reads `size` where this library's `type` is `known` bytes:
 * RS_OK, or RS_ERR_BAD_SETTING naming arg, both sizes and how to set it (fill). (A later layout
 * that grows a struct accepts the sizes of the earlier ones here and fills only what they
 * hold.) */
rs_error rs_detail_struct_size(size_t size, size_t known, const char *type, const char *arg,
                               const char *fill, rs_error_detail *detail);

/* The check of struct p (whose first field is its size) of `type`, passed as argument `arg`:
 * set by the caller (RS_SIZE_OK) or by TYPE's default function (RS_SETTINGS_SIZE_OK). */
#define RS_SIZE_OK(p, type, arg, detail)                                                          \
    rs_detail_struct_size((p)->size, sizeof(type), #type, arg,                                    \
                          "set " arg "->size = sizeof(" #type ")", detail)
#define RS_SETTINGS_SIZE_OK(p, type, arg, detail)                                                 \
    rs_detail_struct_size((p)->size, sizeof(type), #type, arg,                                    \
                          "fill " arg " with " #type "_default", detail)

#endif
