/*
 * lcp_file.c: LCP problems in memory, and reading and writing them in the Siconos .dat format
 * (dense and sparse-block storage; see relaxsim/lcp_file.h for the grammar).
 *
 * Reading is strict: every token is checked, and a failure names the file, the token number
 * (1-based) and what was expected. Tokens are counted before anything large is allocated, so a
 * file that declares more numbers than it holds fails at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "relaxsim/lcp_file.h"
#include "core/c_locale.h"
#include "core/detail.h"
#include "lcp/lcp_internal.h"

/* Largest file read into memory: a dense n = RS_LCP_FILE_MAX_N problem in 26-character numbers. */
#define LCP_FILE_MAX_BYTES ((size_t)3 << 30)

rs_error rs_lcp_create(int n, rs_lcp **out, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!out)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "rs_lcp_create: out is NULL");
    *out = NULL;
    if (n < 1 || n > RS_LCP_FILE_MAX_N)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "rs_lcp_create: n = %d, outside [1, %d]", n,
                             RS_LCP_FILE_MAX_N);
    rs_lcp *lcp = calloc(1, sizeof *lcp);
    if (lcp) {
        lcp->n = n;
        lcp->M = calloc((size_t)n * (size_t)n, sizeof(double));
        lcp->q = calloc((size_t)n, sizeof(double));
    }
    if (!lcp || !lcp->M || !lcp->q) {
        rs_lcp_destroy(lcp);
        return rs_detail_set(detail, RS_ERR_NOMEM, "rs_lcp_create: no memory for n = %d (%.3g MB)",
                             n, 8e-6 * ((double)n * n + n));
    }
    *out = lcp;
    return RS_OK;
}

void rs_lcp_destroy(rs_lcp *lcp)
{
    if (!lcp)
        return;
    free(lcp->M);
    free(lcp->q);
    free(lcp);
}

/* ---------------------------------------------------------------------------------------------
 * Tokenizer
 * ------------------------------------------------------------------------------------------- */

typedef struct token_reader {
    const char *text;
    size_t len;
    size_t pos;
    long consumed;   /* tokens read so far; the current token's number is consumed */
    long total;      /* tokens in the whole text */
    const char *name;
    rs_error_detail *detail;
} token_reader;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static long count_tokens(const char *text, size_t len)
{
    long count = 0;
    int in_token = 0;
    for (size_t i = 0; i < len; i++) {
        const int sp = is_space(text[i]);
        if (!sp && !in_token)
            count++;
        in_token = !sp;
    }
    return count;
}

/* Next token as (start, length); returns 0 at end of text. */
static int next_token(token_reader *tr, const char **start, size_t *length)
{
    while (tr->pos < tr->len && is_space(tr->text[tr->pos]))
        tr->pos++;
    if (tr->pos >= tr->len)
        return 0;
    const size_t b = tr->pos;
    while (tr->pos < tr->len && !is_space(tr->text[tr->pos]))
        tr->pos++;
    *start = tr->text + b;
    *length = tr->pos - b;
    tr->consumed++;
    return 1;
}

static long tokens_left(const token_reader *tr)
{
    return tr->total - tr->consumed;
}

/* Report "NAME: token N: expected WHAT, got 'TOKEN'" (or "found end of file"). */
static rs_error token_error(token_reader *tr, rs_error err, const char *what, const char *tok,
                            size_t toklen)
{
    if (!tok)
        return rs_detail_set(tr->detail, err, "%s: token %ld: expected %s, found end of file",
                             tr->name, tr->consumed + 1, what);
    return rs_detail_set(tr->detail, err, "%s: token %ld: expected %s, got '%.*s'", tr->name,
                         tr->consumed, what, (int)(toklen > 40 ? 40 : toklen), tok);
}

static rs_error read_int(token_reader *tr, const char *what, long lo, long hi, long *out)
{
    const char *tok;
    size_t len;
    if (!next_token(tr, &tok, &len))
        return token_error(tr, RS_ERR_PARSE, what, NULL, 0);
    char buf[32];
    if (len >= sizeof buf)
        return token_error(tr, RS_ERR_PARSE, what, tok, len);
    memcpy(buf, tok, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    const long v = strtol(buf, &end, 10);
    if (*end != '\0' || errno == ERANGE)
        return token_error(tr, RS_ERR_PARSE, what, tok, len);
    if (v < lo || v > hi) {
        char range[160];
        snprintf(range, sizeof range, "%s in [%ld, %ld]", what, lo, hi);
        return token_error(tr, RS_ERR_DIMENSION, range, tok, len);
    }
    *out = v;
    return RS_OK;
}

static rs_error read_real(token_reader *tr, const char *what, double *out)
{
    const char *tok;
    size_t len;
    if (!next_token(tr, &tok, &len))
        return token_error(tr, RS_ERR_PARSE, what, NULL, 0);
    char buf[64];
    if (len >= sizeof buf)
        return token_error(tr, RS_ERR_PARSE, what, tok, len);
    memcpy(buf, tok, len);
    buf[len] = '\0';
    char *end;
    const double v = strtod(buf, &end);
    if (*end != '\0' || end == buf)
        return token_error(tr, RS_ERR_PARSE, what, tok, len);
    if (!isfinite(v))
        return token_error(tr, RS_ERR_NONFINITE, what, tok, len);
    *out = v;
    return RS_OK;
}

/* Fail before allocating when the file cannot hold `needed` more tokens. */
static rs_error require_tokens(token_reader *tr, long needed, const char *what)
{
    if (tokens_left(tr) >= needed)
        return RS_OK;
    return rs_detail_set(tr->detail, RS_ERR_PARSE,
                         "%s: token %ld: expected %ld more numbers for %s, the file has only %ld",
                         tr->name, tr->consumed + 1, needed, what, tokens_left(tr));
}

/* ---------------------------------------------------------------------------------------------
 * Reading
 * ------------------------------------------------------------------------------------------- */

#define TRY(expr)                                                                                 \
    do {                                                                                          \
        const rs_error try_err_ = (expr);                                                         \
        if (try_err_ != RS_OK)                                                                    \
            return try_err_;                                                                      \
    } while (0)

/* Read "rows cols" and check both equal n. */
static rs_error read_shape(token_reader *tr, long n)
{
    char what[64];
    long rows = 0, cols = 0;
    snprintf(what, sizeof what, "the number of rows (n = %ld)", n);
    TRY(read_int(tr, what, n, n, &rows));
    snprintf(what, sizeof what, "the number of columns (n = %ld)", n);
    TRY(read_int(tr, what, n, n, &cols));
    return RS_OK;
}

static rs_error read_values(token_reader *tr, double *M, long n, long row0, long rows, long col0,
                            long cols)
{
    char what[96];
    for (long j = 0; j < cols; j++)
        for (long i = 0; i < rows; i++) {
            snprintf(what, sizeof what, "a finite real for M(%ld,%ld)", row0 + i, col0 + j);
            TRY(read_real(tr, what, &M[(size_t)(row0 + i) + (size_t)(col0 + j) * (size_t)n]));
        }
    return RS_OK;
}

/* Cumulative block ends: strictly increasing, the last equal to n. */
static rs_error read_block_ends(token_reader *tr, long count, long n, const char *axis, long *ends)
{
    char what[96];
    for (long b = 0; b < count; b++) {
        const long lo = b == 0 ? 1 : ends[b - 1] + 1;
        const long hi = b == count - 1 ? n : n - (count - 1 - b);
        snprintf(what, sizeof what, "the cumulative end of block %s %ld", axis, b);
        TRY(read_int(tr, what, lo, hi, &ends[b]));
    }
    return RS_OK;
}

static rs_error read_sparse_block_body(token_reader *tr, rs_lcp *lcp, long *row_ends,
                                       long *col_ends, long *row_ptr, long *col_idx, long nbr,
                                       long nbc, long nb)
{
    const long n = lcp->n;
    long v = 0;
    TRY(read_block_ends(tr, nbr, n, "row", row_ends));
    TRY(read_block_ends(tr, nbc, n, "column", col_ends));
    TRY(read_int(tr, "the number of block-row pointers (block rows + 1)", nbr + 1, nbr + 1, &v));
    TRY(read_int(tr, "the number of blocks (as declared above)", nb, nb, &v));
    char what[96];
    for (long r = 0; r <= nbr; r++) {
        /* Pointers start at 0, never decrease, and the last one counts all nb blocks. */
        const long lo = r == 0 ? 0 : (r == nbr ? nb : row_ptr[r - 1]);
        const long hi = r == 0 ? 0 : nb;
        snprintf(what, sizeof what, "block-row pointer %ld", r);
        TRY(read_int(tr, what, lo, hi, &row_ptr[r]));
    }
    for (long b = 0; b < nb; b++) {
        snprintf(what, sizeof what, "the block-column index of block %ld", b);
        TRY(read_int(tr, what, 0, nbc - 1, &col_idx[b]));
    }
    for (long r = 0; r < nbr; r++) {
        for (long b = row_ptr[r]; b < row_ptr[r + 1]; b++) {
            for (long b2 = row_ptr[r]; b2 < b; b2++)
                if (col_idx[b2] == col_idx[b])
                    return rs_detail_set(tr->detail, RS_ERR_PARSE,
                                         "%s: blocks %ld and %ld are both at block (%ld,%ld)",
                                         tr->name, b2, b, r, col_idx[b]);
            snprintf(what, sizeof what, "the block number %ld", b);
            TRY(read_int(tr, what, b, b, &v));
            const long c = col_idx[b];
            const long row0 = r == 0 ? 0 : row_ends[r - 1];
            const long col0 = c == 0 ? 0 : col_ends[c - 1];
            TRY(read_values(tr, lcp->M, n, row0, row_ends[r] - row0, col0, col_ends[c] - col0));
        }
    }
    return RS_OK;
}

static rs_error read_sparse_block(token_reader *tr, rs_lcp *lcp)
{
    const long n = lcp->n;
    long nb = 0, nbr = 0, nbc = 0;
    TRY(read_int(tr, "the number of blocks", 0, n * n, &nb));
    TRY(read_int(tr, "the number of block rows", 1, n, &nbr));
    TRY(read_int(tr, "the number of block columns", 1, n, &nbc));
    if (nb > nbr * nbc)
        return rs_detail_set(tr->detail, RS_ERR_PARSE,
                             "%s: %ld blocks declared, more than %ld x %ld block positions",
                             tr->name, nb, nbr, nbc);
    TRY(require_tokens(tr, nbr + nbc + 2 + nbr + 1 + nb + n, "the block structure and q"));
    long *ints = malloc(sizeof(long) * (size_t)(nbr + nbc + nbr + 1 + (nb > 0 ? nb : 1)));
    if (!ints)
        return RS_ERR_NOMEM;
    const rs_error err = read_sparse_block_body(tr, lcp, ints, ints + nbr, ints + nbr + nbc,
                                                ints + 2 * nbr + nbc + 1, nbr, nbc, nb);
    free(ints);
    return err;
}

static rs_error parse_lcp(token_reader *tr, rs_lcp **out)
{
    long n = 0, storage = 0;
    TRY(read_int(tr, "the problem size n", 1, RS_LCP_FILE_MAX_N, &n));
    TRY(read_int(tr, "the storage (0 = dense, 1 = sparse-block)", 0, 1, &storage));
    TRY(read_shape(tr, n));
    if (storage == 0) { /* dense storage repeats "rows cols" before the values */
        TRY(read_shape(tr, n));
        TRY(require_tokens(tr, n * n + n, "a dense M and q"));
    }
    /* relaxsim solves LCPs densely: a sparse-block file may not make it build a dense matrix far
     * larger than its own data (a 30 KB file declaring n = 10000 would ask for 800 MB) */
    if (storage == 1 && n * n > 1000000 && n * n > 64 * tr->total)
        return rs_detail_set(tr->detail, RS_ERR_PARSE,
                             "%s: sparse-block storage with n = %ld would need a dense %ld x %ld "
                             "matrix (%.0f MB) for a file of %ld numbers; relaxsim solves LCPs "
                             "densely and accepts at most 64 matrix entries per number in the "
                             "file beyond n^2 = 10^6",
                             tr->name, n, n, n, 8.0 * (double)n * (double)n / 1e6,
                             tr->total);
    rs_lcp *lcp;
    TRY(rs_lcp_create((int)n, &lcp, NULL));
    rs_error err = storage == 0 ? read_values(tr, lcp->M, n, 0, n, 0, n) : read_sparse_block(tr, lcp);
    char what[64];
    for (long i = 0; i < n && err == RS_OK; i++) {
        snprintf(what, sizeof what, "a finite real for q(%ld)", i);
        err = read_real(tr, what, &lcp->q[i]);
    }
    if (err != RS_OK) {
        rs_lcp_destroy(lcp);
        return err;
    }
    *out = lcp;
    return RS_OK;
}

rs_error rs_lcp_read_text(const char *text, size_t len, const char *name, rs_lcp **out,
                          rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!out)
        return RS_ERR_NULL_ARG;
    *out = NULL;
    if (!text)
        return RS_ERR_NULL_ARG;
    const char *nul = memchr(text, '\0', len);
    if (nul) { /* a binary file, or text cut short: never parsed up to the NUL and solved */
        int line = 1;
        for (const char *c = text; c < nul; c++)
            line += *c == '\n';
        return rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: a NUL byte (not a text file?)",
                             name ? name : "<string>", line);
    }
    token_reader tr = {text, len, 0, 0, count_tokens(text, len), name ? name : "<string>",
                       detail};
    const locale_t caller = rs_c_locale_enter(); /* "1.5", whatever the caller's locale */
    const rs_error err = parse_lcp(&tr, out);
    rs_c_locale_leave(caller);
    return err;
}

rs_error rs_lcp_read_file(const char *path, rs_lcp **out, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!out)
        return RS_ERR_NULL_ARG;
    *out = NULL;
    if (!path)
        return RS_ERR_NULL_ARG;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return rs_detail_set(detail, RS_ERR_IO, "%s: is a directory, not an LCP file", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return rs_detail_set(detail, RS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    rs_error err = RS_OK;
    for (;;) {
        if (cap - len < 65536) {
            const size_t ncap = cap ? 2 * cap : 65536;
            if (ncap > LCP_FILE_MAX_BYTES) {
                err = rs_detail_set(detail, RS_ERR_IO, "%s: file larger than %zu bytes", path,
                                    LCP_FILE_MAX_BYTES);
                break;
            }
            char *p = realloc(text, ncap);
            if (!p) {
                err = RS_ERR_NOMEM;
                break;
            }
            text = p;
            cap = ncap;
        }
        const size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                err = rs_detail_set(detail, RS_ERR_IO, "%s: read error", path);
            break;
        }
    }
    fclose(f);
    if (err == RS_OK)
        err = rs_lcp_read_text(text, len, path, out, detail);
    free(text);
    return err;
}

/* ---------------------------------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------------------------------- */

/* End (exclusive) of block b of size bs in a dimension of size n. */
static int block_end(int b, int bs, int n)
{
    return (b + 1) * bs < n ? (b + 1) * bs : n;
}

/* 1 if block (r, c) of the bs-grid over M has a non-zero entry. */
static int block_nonzero(const rs_lcp *lcp, int bs, int r, int c)
{
    const int n = lcp->n;
    for (int j = c * bs; j < block_end(c, bs, n); j++)
        for (int i = r * bs; i < block_end(r, bs, n); i++)
            if (lcp->M[(size_t)i + (size_t)j * (size_t)n] != 0.0)
                return 1;
    return 0;
}

/* The block [r0, r1) x [c0, c1) of M, one column per line. */
static void write_block(FILE *f, const rs_lcp *lcp, int r0, int r1, int c0, int c1)
{
    for (int j = c0; j < c1; j++) {
        for (int i = r0; i < r1; i++)
            fprintf(f, "%s%.17g", i == r0 ? "" : " ", lcp->M[(size_t)i + (size_t)j * (size_t)lcp->n]);
        fputc('\n', f);
    }
}

/* Sparse-block storage on a regular bs-grid; all-zero blocks are left out. */
static void write_sparse_block(FILE *f, const rs_lcp *lcp, int bs)
{
    const int n = lcp->n, nbr = (n + bs - 1) / bs;
    int nb = 0;
    for (int r = 0; r < nbr; r++)
        for (int c = 0; c < nbr; c++)
            nb += block_nonzero(lcp, bs, r, c);
    fprintf(f, "%d\n%d %d\n", nb, nbr, nbr);
    for (int axis = 0; axis < 2; axis++) { /* cumulative row ends, then column ends */
        for (int r = 0; r < nbr; r++)
            fprintf(f, "%s%d", r ? " " : "", block_end(r, bs, n));
        fputc('\n', f);
    }
    fprintf(f, "%d %d\n0", nbr + 1, nb);
    for (int r = 0, count = 0; r < nbr; r++) { /* block-row pointers */
        for (int c = 0; c < nbr; c++)
            count += block_nonzero(lcp, bs, r, c);
        fprintf(f, " %d", count);
    }
    fputc('\n', f);
    for (int r = 0; r < nbr; r++) /* block-column indices */
        for (int c = 0; c < nbr; c++)
            if (block_nonzero(lcp, bs, r, c))
                fprintf(f, "%d ", c);
    fputc('\n', f);
    for (int r = 0, b = 0; r < nbr; r++) /* the blocks, numbered */
        for (int c = 0; c < nbr; c++)
            if (block_nonzero(lcp, bs, r, c)) {
                fprintf(f, "%d\n", b++);
                write_block(f, lcp, r * bs, block_end(r, bs, n), c * bs, block_end(c, bs, n));
            }
}

/* Check what a writer is given: a valid LCP and storage (name: for messages). */
static rs_error check_writable(const char *name, const rs_lcp *lcp, rs_lcp_storage storage,
                               int block_size, rs_error_detail *detail)
{
    if (!lcp || !lcp->M || !lcp->q)
        return RS_ERR_NULL_ARG;
    const int n = lcp->n;
    if (n < 1 || n > RS_LCP_FILE_MAX_N)
        return RS_ERR_DIMENSION;
    if (storage != RS_LCP_STORAGE_DENSE && storage != RS_LCP_STORAGE_SPARSE_BLOCK)
        return RS_ERR_BAD_ARG;
    if (storage == RS_LCP_STORAGE_SPARSE_BLOCK && (block_size < 1 || block_size > n))
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "%s: block size %d not in [1, %d]", name,
                             block_size, n);
    if (!rs_all_finite(lcp->M, (size_t)n * (size_t)n) || !rs_all_finite(lcp->q, (size_t)n))
        return rs_detail_set(detail, RS_ERR_NONFINITE, "%s: M or q has a non-finite entry", name);
    return RS_OK;
}

rs_error rs_lcp_write_stream(FILE *f, const char *name, const rs_lcp *lcp,
                             rs_lcp_storage storage, int block_size, const char *remark,
                             rs_error_detail *detail)
{
    rs_detail_clear(detail);
    const rs_error err = check_writable(name, lcp, storage, block_size, detail);
    if (err != RS_OK)
        return err;
    const int n = lcp->n;
    const locale_t caller = rs_c_locale_enter(); /* "1.5", whatever the caller's locale */
    fprintf(f, "%d\n%d\n%d %d\n", n, (int)storage, n, n);
    if (storage == RS_LCP_STORAGE_DENSE) {
        fprintf(f, "%d %d\n", n, n);
        write_block(f, lcp, 0, n, 0, n);
    } else {
        write_sparse_block(f, lcp, block_size);
    }
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%.17g", i ? " " : "", lcp->q[i]);
    fputc('\n', f);
    if (remark)
        fprintf(f, "\n%s\n", remark);
    rs_c_locale_leave(caller);
    return RS_OK;
}

/* A name for path's temporary: beside it, unique in this process (pid and a counter). */
static void temporary_name(const char *path, char *buf, size_t len)
{
    static atomic_uint counter;
    snprintf(buf, len, "%s.tmp-%ld-%u", path, (long)getpid(), atomic_fetch_add(&counter, 1u));
}

rs_error rs_lcp_write_file(const char *path, const rs_lcp *lcp, rs_lcp_storage storage,
                           int block_size, const char *remark, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!path)
        return RS_ERR_NULL_ARG;
    rs_error err = check_writable(path, lcp, storage, block_size, detail);
    if (err != RS_OK)
        return err;
    /* Whole or not at all, never through a link: a regular file or a new name is written into a
     * new file beside it (O_EXCL | O_NOFOLLOW: not a file or a link planted at that name) and
     * renamed into place; a character device or a FIFO is written into as it is. No shared
     * state: threads may write files at once. */
    struct stat st;
    const int exists = lstat(path, &st) == 0;
    if (exists && S_ISLNK(st.st_mode))
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "%s: is a symbolic link; not written "
                             "through (give the file it points to)", path);
    const int stream = exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
    if (exists && !stream && !S_ISREG(st.st_mode))
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "%s: is %s, not a file", path,
                             S_ISDIR(st.st_mode) ? "a directory" : "neither a file nor a device");
    char temp[4200];
    if (strlen(path) > sizeof temp - 64)
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "%.80s...: the name is too long", path);
    int fd = -1;
    if (stream) {
        fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    } else {
        for (int tries = 0; fd < 0 && tries < 16; tries++) {
            temporary_name(path, temp, sizeof temp);
            fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
            if (fd < 0 && errno != EEXIST)
                break;
        }
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        const int e = errno;
        if (fd >= 0) {
            close(fd);
            if (!stream)
                unlink(temp);
        }
        return rs_detail_set(detail, RS_ERR_IO, "%s: cannot open for writing: %s", path,
                             strerror(e));
    }
    err = rs_lcp_write_stream(f, path, lcp, storage, block_size, remark, detail);
    const int bad = ferror(f);
    if ((fclose(f) != 0 || bad) && err == RS_OK)
        err = rs_detail_set(detail, RS_ERR_IO, "%s: write error", path);
    if (!stream && err == RS_OK && rename(temp, path) != 0)
        err = rs_detail_set(detail, RS_ERR_IO, "%s: cannot put in place: %s", path,
                            strerror(errno));
    if (!stream && err != RS_OK)
        unlink(temp);
    return err;
}
