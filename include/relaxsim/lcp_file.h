/*
 * relaxsim/lcp_file.h: LCP problems in memory and in the Siconos .dat file format.
 *
 * File format (whitespace-separated tokens, line breaks carry no meaning, anything after q is
 * ignored):
 *     n
 *     storage                 0 = dense, 1 = sparse-block
 *     rows cols
 *     dense:        rows cols, then rows*cols reals of M in column-major order
 *     sparse-block: nbblocks; nblockrows nblockcols; cumulative row ends; cumulative column ends;
 *                   nblockrows+1 nbblocks; block-row pointers; block-column indices; then for each
 *                   block, its index followed by its values in column-major order
 *     q                       n reals
 */
#ifndef RELAXSIM_LCP_FILE_H
#define RELAXSIM_LCP_FILE_H

#include "relaxsim/error.h"
#include "relaxsim/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest n accepted from a file: M is held dense, 8 n^2 bytes (800 MB at this limit). */
#define RS_LCP_FILE_MAX_N 10000

/** An LCP(M, q) in memory. Created by rs_lcp_create or rs_lcp_read_file; owns M and q. */
typedef struct rs_lcp {
    int n;       /**< size, 1 <= n */
    double *M;   /**< n*n, column-major, owned */
    double *q;   /**< n, owned */
} rs_lcp;

/** Allocate an LCP of size n with M and q zeroed. Returns RS_ERR_NULL_ARG, RS_ERR_DIMENSION or
 *  RS_ERR_NOMEM on failure, and why in detail (optional). */
RS_API rs_error rs_lcp_create(int n, rs_lcp **out, rs_error_detail *detail);

/** Free an LCP; accepts NULL. */
RS_API void rs_lcp_destroy(rs_lcp *lcp);

/** Storage of M in a .dat file. */
typedef enum rs_lcp_storage {
    RS_LCP_STORAGE_DENSE = 0,        /**< n*n values, column-major */
    RS_LCP_STORAGE_SPARSE_BLOCK = 1  /**< square blocks on a regular grid; all-zero blocks omitted */
} rs_lcp_storage;

/**
 * Read an LCP from a Siconos .dat file (dense or sparse-block).
 * On failure, detail (if not NULL) names the file and the token number and what was expected,
 * e.g. "a.dat: token 12: expected a finite real for M(2,1), got 'nan'", and *out is NULL.
 * n above RS_LCP_FILE_MAX_N, or more values declared than the file holds, fail before any
 * large allocation.
 * @return RS_OK, RS_ERR_NULL_ARG, RS_ERR_IO, RS_ERR_PARSE, RS_ERR_DIMENSION, RS_ERR_NONFINITE or
 *         RS_ERR_NOMEM.
 */
RS_API rs_error rs_lcp_read_file(const char *path, rs_lcp **out, rs_error_detail *detail);

/**
 * Parse an LCP from text in memory (same format). name is used in messages in place of a file
 * name (may be NULL: "<string>"). len is the number of bytes of text.
 */
RS_API rs_error rs_lcp_read_text(const char *text, size_t len, const char *name, rs_lcp **out,
                                 rs_error_detail *detail);

/**
 * Write an LCP to a .dat file, values printed with 17 significant digits (lossless), in the C
 * locale. A regular file (or a new name) is written whole or not at all: into a new file beside
 * it (path.tmp-PID-N), renamed into place, so that it is a new file (an old one's mode, owner and
 * hard links are not kept) and its directory must exist and be writable. A character device or a
 * FIFO is written into as it is (a FIFO waits for its reader); a symbolic link or a directory at
 * path is refused (RS_ERR_BAD_ARG). Safe to call from several threads at once.
 * @param block_size for RS_LCP_STORAGE_SPARSE_BLOCK: the size of the square blocks (the last
 *        block row/column may be smaller); ignored for dense. Range 1..n.
 * @param remark optional text written after q (ignored by readers), may be NULL.
 * @return RS_OK, RS_ERR_NULL_ARG, RS_ERR_BAD_ARG, RS_ERR_NONFINITE or RS_ERR_IO.
 */
RS_API rs_error rs_lcp_write_file(const char *path, const rs_lcp *lcp, rs_lcp_storage storage,
                                  int block_size, const char *remark, rs_error_detail *detail);

#ifdef __cplusplus
}
#endif

#endif /* RELAXSIM_LCP_FILE_H */
