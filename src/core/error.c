/* error.c: names of error codes, the error-detail formatter, and the library version. */
#include <stdarg.h>
#include <stdio.h>

#include "relaxsim/relaxsim.h"
#include "core/c_locale.h"
#include "core/detail.h"

const char *rs_error_string(rs_error err)
{
    switch (err) {
    case RS_OK: return "ok";
    case RS_ERR_NULL_ARG: return "a required argument is NULL";
    case RS_ERR_DIMENSION: return "dimension out of range";
    case RS_ERR_NONFINITE: return "non-finite value (NaN or infinity)";
    case RS_ERR_BAD_SETTING: return "setting out of range";
    case RS_ERR_NOMEM: return "out of memory";
    case RS_ERR_PARSE: return "malformed input";
    case RS_ERR_IO: return "input/output error";
    case RS_ERR_WORKSPACE: return "workspace too small";
    case RS_ERR_BAD_ARG: return "invalid argument";
    case RS_ERR_STOPPED: return "stopped by the caller";
    case RS_ERR_WRITE: return "an output could not be written";
    }
    return "unknown error";
}

const char *rs_version(void)
{
    return RS_VERSION_STRING;
}

void rs_detail_clear(rs_error_detail *detail)
{
    if (detail)
        detail->message[0] = '\0';
}

rs_error rs_detail_set(rs_error_detail *detail, rs_error err, const char *fmt, ...)
{
    if (detail) { /* its numbers in the C locale, as every number relaxsim writes */
        const locale_t caller = rs_c_locale_enter();
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail->message, sizeof detail->message, fmt, ap);
        va_end(ap);
        rs_c_locale_leave(caller);
    }
    return err;
}

rs_error rs_detail_struct_size(size_t size, size_t known, const char *type, const char *arg,
                               const char *fill, rs_error_detail *detail)
{
    if (size == known)
        return RS_OK;
    return rs_detail_set(detail, RS_ERR_BAD_SETTING,
                         "%s->size = %zu: this library's %s is %zu bytes (%s; a caller built "
                         "against another relaxsim's header needs to be rebuilt)",
                         arg, size, type, known, fill);
}
