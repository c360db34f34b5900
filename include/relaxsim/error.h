/*
 * relaxsim/error.h: error codes returned by every relaxsim function.
 *
 * An error means the call could not be carried out (bad argument, bad file, no memory). It is
 * distinct from a solver *status* (solved, ray termination, ...), which is reported in an info
 * struct by a call that itself returned RS_OK.
 */
#ifndef RELAXSIM_ERROR_H
#define RELAXSIM_ERROR_H

#include <stddef.h>

#include "relaxsim/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Error codes. RS_OK is zero; every other value is a failure of the call. */
typedef enum rs_error {
    RS_OK = 0,            /**< success */
    RS_ERR_NULL_ARG,      /**< a required pointer argument was NULL */
    RS_ERR_DIMENSION,     /**< a size is out of range (n < 1, too large, inconsistent) */
    RS_ERR_NONFINITE,     /**< an input contains NaN or infinity */
    RS_ERR_BAD_SETTING,   /**< a settings field is out of its documented range */
    RS_ERR_NOMEM,         /**< memory allocation failed */
    RS_ERR_PARSE,         /**< malformed input text */
    RS_ERR_IO,            /**< a file could not be opened, read or written */
    RS_ERR_WORKSPACE,     /**< the caller's workspace is too small */
    RS_ERR_BAD_ARG,       /**< an argument value is invalid (e.g. a covering vector entry <= 0) */
    RS_ERR_STOPPED,       /**< the caller's callback asked to stop (rs_sim_compare) */
    RS_ERR_WRITE          /**< an output's data could not be written (a full disk, an I/O error,
                               a closed pipe) after its file was opened */
} rs_error;

/** A human-readable name for an error code. Never returns NULL (unknown codes give "unknown error"). */
RS_API const char *rs_error_string(rs_error err);

/** Size of the message buffer in rs_error_detail, including the terminating NUL. */
#define RS_ERROR_DETAIL_SIZE 512

/**
 * Detail of a failed call, for errors whose cause is in user data (files, strings): e.g.
 * "lcp.dat: token 8: expected a finite real for M(1,0), got 'nan'" (n = 2). Always NUL-terminated;
 * empty when the call succeeded.
 */
typedef struct rs_error_detail {
    char message[RS_ERROR_DETAIL_SIZE]; /**< what went wrong, naming the file and position */
} rs_error_detail;

#ifdef __cplusplus
}
#endif

#endif /* RELAXSIM_ERROR_H */
