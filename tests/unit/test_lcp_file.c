/* test_lcp_file.c: reading and writing Siconos .dat files, and every malformed-input path. */
#include "test_helpers.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "relaxsim/relaxsim.h"

/* Parse text that must fail with err, and whose message must contain `needle`. */
static void expect_parse_error(const char *text, rs_error err, const char *needle)
{
    rs_lcp *lcp = (rs_lcp *)&lcp; /* must be reset to NULL */
    rs_error_detail detail;
    const rs_error got = rs_lcp_read_text(text, strlen(text), "bad.dat", &lcp, &detail);
    if (got != err || !strstr(detail.message, needle))
        print_error("text '%s': got %s, message '%s'; expected %s with '%s'\n", text,
                    rs_error_string(got), detail.message, rs_error_string(err), needle);
    assert_int_equal(got, err);
    assert_null(lcp);
    assert_non_null(strstr(detail.message, "bad.dat: "));
    assert_non_null(strstr(detail.message, needle));
}

static void test_dense_is_column_major(void **state)
{
    (void)state;
    /* Each text line is a column: M = [[1, 3], [2, 4]]. */
    const char *text = "2\n0\n2 2\n2 2\n1 2\n3 4\n-1 -2\nremarks are ignored: nan inf\n";
    rs_lcp *lcp;
    rs_error_detail detail;
    assert_int_equal(rs_lcp_read_text(text, strlen(text), "t.dat", &lcp, &detail), RS_OK);
    assert_string_equal(detail.message, "");
    assert_int_equal(lcp->n, 2);
    assert_close(lcp->M[0 + 0 * 2], 1.0, 0.0, 0.0); /* M(0,0) */
    assert_close(lcp->M[1 + 0 * 2], 2.0, 0.0, 0.0); /* M(1,0) */
    assert_close(lcp->M[0 + 1 * 2], 3.0, 0.0, 0.0); /* M(0,1) */
    assert_close(lcp->M[1 + 1 * 2], 4.0, 0.0, 0.0);
    assert_close(lcp->q[1], -2.0, 0.0, 0.0);
    rs_lcp_destroy(lcp);
}

static void test_sparse_block_places_blocks(void **state)
{
    (void)state;
    /* 3x3, block rows/cols {0,1} and {2}; blocks (0,0) and (1,0) only; (0,1), (1,1) are zero. */
    const char *text = "3 1 3 3\n"
                       "2\n2 2\n2 3\n2 3\n"
                       "3 2\n0 1 2\n0 0\n"
                       "0\n1 2 3 4\n"
                       "1\n5 6\n"
                       "-1 -2 -3\n";
    rs_lcp *lcp;
    rs_error_detail detail;
    assert_int_equal(rs_lcp_read_text(text, strlen(text), "s.dat", &lcp, &detail), RS_OK);
    const double expect[9] = {1, 2, 5, 3, 4, 6, 0, 0, 0}; /* column-major */
    for (int k = 0; k < 9; k++)
        assert_close(lcp->M[k], expect[k], 0.0, 0.0);
    rs_lcp_destroy(lcp);
}

static void round_trip(rs_lcp_storage storage, int block_size)
{
    rs_lcp *lcp, *back;
    rs_error_detail detail;
    assert_int_equal(rs_lcp_generate(RS_LCP_CLASS_FRICTION, 17, 5, 0, &lcp, NULL, NULL, NULL), RS_OK);
    const char *path = RS_TEST_TMPDIR "/round_trip.dat";
    assert_int_equal(rs_lcp_write_file(path, lcp, storage, block_size, "# remark", &detail), RS_OK);
    assert_int_equal(rs_lcp_read_file(path, &back, &detail), RS_OK);
    assert_int_equal(back->n, lcp->n);
    /* %.17g is lossless: bitwise equal. */
    assert_memory_equal(back->M, lcp->M, sizeof(double) * 17 * 17);
    assert_memory_equal(back->q, lcp->q, sizeof(double) * 17);
    rs_lcp_destroy(lcp);
    rs_lcp_destroy(back);
}

static void test_round_trip_dense(void **state) { (void)state; round_trip(RS_LCP_STORAGE_DENSE, 0); }
static void test_round_trip_blocks_of_6(void **state) { (void)state; round_trip(RS_LCP_STORAGE_SPARSE_BLOCK, 6); }
static void test_round_trip_blocks_of_1(void **state) { (void)state; round_trip(RS_LCP_STORAGE_SPARSE_BLOCK, 1); }
static void test_round_trip_one_block(void **state) { (void)state; round_trip(RS_LCP_STORAGE_SPARSE_BLOCK, 17); }

static void test_truncated_file(void **state)
{
    (void)state;
    expect_parse_error("", RS_ERR_PARSE, "token 1: expected the problem size n, found end of file");
    expect_parse_error("2\n0\n2 2\n2 2\n1 2\n3", RS_ERR_PARSE, "expected 6 more numbers");
    expect_parse_error("2 0 2 2 2 2 1 2 3 4 -1", RS_ERR_PARSE, "expected 6 more numbers");
    /* sparse-block cut inside a block */
    expect_parse_error("2 1 2 2 1 1 1 2 2 2 1 0 1 0 0 2 1 1", RS_ERR_PARSE, "found end of file");
}

/* A NUL byte is refused with its line: the file was read up to it and what followed skipped (a
 * 2 x 2 problem cut at its first entries was solved). */
static void test_nul_byte(void **state)
{
    (void)state;
    static const char text[] = "2 0 2 2\n2 2\0 1 1 1 1 -1 -1\n";
    rs_lcp *lcp = NULL;
    rs_error_detail detail;
    assert_int_equal(rs_lcp_read_text(text, sizeof text - 1, "bad.dat", &lcp, &detail),
                     RS_ERR_PARSE);
    assert_null(lcp);
    assert_non_null(strstr(detail.message, "bad.dat:2: a NUL byte"));
    FILE *f = fopen(RS_TEST_TMPDIR "/nul.dat", "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, sizeof text - 1, f), sizeof text - 1);
    fclose(f);
    assert_int_equal(rs_lcp_read_file(RS_TEST_TMPDIR "/nul.dat", &lcp, &detail), RS_ERR_PARSE);
    assert_non_null(strstr(detail.message, "nul.dat:2: a NUL byte"));
}

static void test_counts_that_do_not_match(void **state)
{
    (void)state;
    expect_parse_error("2 0 3 2 2 2 1 2 3 4 -1 -2", RS_ERR_DIMENSION, "number of rows (n = 2) in [2, 2]");
    expect_parse_error("2 0 2 2 2 5 1 2 3 4 -1 -2", RS_ERR_DIMENSION, "token 6: expected the number of columns");
    expect_parse_error("2 2 2 2 2 2 1 2 3 4 -1 -2", RS_ERR_DIMENSION, "storage");
    /* sparse: cumulative row end past n, block count mismatch, wrong block number */
    expect_parse_error("2 1 2 2 1 1 1 3 2 2 1 0 1 0 0 2 1 1 2 -5 -6", RS_ERR_DIMENSION, "cumulative end of block row 0");
    expect_parse_error("2 1 2 2 1 1 1 2 2 2 2 0 1 0 0 2 1 1 2 -5 -6", RS_ERR_DIMENSION, "number of blocks (as declared above)");
    expect_parse_error("2 1 2 2 1 1 1 2 2 2 1 0 1 0 7 2 1 1 2 -5 -6", RS_ERR_DIMENSION, "block number 0");
    expect_parse_error("2 1 2 2 5 1 1 2 2", RS_ERR_DIMENSION, "number of blocks in [0, 4], got '5'");
    expect_parse_error("2 1 2 2 3 1 2 2 1 2", RS_ERR_PARSE, "3 blocks declared, more than 1 x 2");
    expect_parse_error("4 1 4 4 2 2 2 2 4 2 4 3 2 0 2 2 0 0 0 1 2 3 4 1 1 2 3 4 -1 -1 -1 -1", RS_ERR_PARSE, "both at block (0,0)");
}

static void test_nan_and_inf_entries(void **state)
{
    (void)state;
    expect_parse_error("2 0 2 2 2 2 1 nan 3 4 -1 -2", RS_ERR_NONFINITE, "token 8: expected a finite real for M(1,0), got 'nan'");
    expect_parse_error("2 0 2 2 2 2 1 2 3 4 -1 inf", RS_ERR_NONFINITE, "q(1), got 'inf'");
    expect_parse_error("2 0 2 2 2 2 1 2 3 1e999 -1 -2", RS_ERR_NONFINITE, "M(1,1)");
    expect_parse_error("2 0 2 2 2 2 1 2 3 4x -1 -2", RS_ERR_PARSE, "got '4x'");
    expect_parse_error("2 0 2 2 2 2 1 2 3 -- -1 -2", RS_ERR_PARSE, "got '--'");
}

static void test_negative_and_absurd_n(void **state)
{
    (void)state;
    expect_parse_error("-3 0", RS_ERR_DIMENSION, "problem size n in [1, 10000]");
    expect_parse_error("0 0", RS_ERR_DIMENSION, "got '0'");
    expect_parse_error("two 0", RS_ERR_PARSE, "got 'two'");
    expect_parse_error("1000000000 0 1000000000 1000000000 1 2 3", RS_ERR_DIMENSION, "got '1000000000'");
    expect_parse_error("99999999999999999999999 0", RS_ERR_PARSE, "problem size");
    /* Largest allowed n with a short file: fails on the token count, before allocating 800 MB. */
    expect_parse_error("10000 0 10000 10000 10000 10000 1 2 3", RS_ERR_PARSE,
                       "token 7: expected 100010000 more numbers for a dense M and q, the file has only 3");
}

static void test_file_errors(void **state)
{
    (void)state;
    rs_lcp *lcp = NULL;
    rs_error_detail detail;
    assert_int_equal(rs_lcp_read_file(RS_TEST_TMPDIR "/does/not/exist.dat", &lcp, &detail), RS_ERR_IO);
    assert_non_null(strstr(detail.message, "exist.dat: cannot open"));
    assert_null(lcp);
    assert_int_equal(rs_lcp_read_file(NULL, &lcp, &detail), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lcp_read_file("x", NULL, &detail), RS_ERR_NULL_ARG);
    assert_int_equal(rs_lcp_read_text(NULL, 0, "x", &lcp, NULL), RS_ERR_NULL_ARG);
    /* A directory cannot be read as a file, and says so. */
    assert_int_equal(rs_lcp_read_file(RS_TEST_TMPDIR, &lcp, &detail), RS_ERR_IO);
    assert_non_null(strstr(detail.message, "is a directory, not an LCP file"));
    assert_null(lcp);
    /* A small sparse-block file may not ask for a huge dense matrix: n = 10000, no blocks. */
    size_t cap = 200000, len = 0;
    char *big = malloc(cap);
    assert_non_null(big);
    len += (size_t)snprintf(big + len, cap - len, "10000 1 10000 10000 0 1 1 10000 10000 2 0 0 0");
    for (int i = 0; i < 10000; i++)
        len += (size_t)snprintf(big + len, cap - len, " 1");
    assert_int_equal(rs_lcp_read_text(big, len, "big.dat", &lcp, &detail), RS_ERR_PARSE);
    assert_non_null(strstr(detail.message, "big.dat: sparse-block storage with n = 10000 would "
                                           "need a dense 10000 x 10000 matrix (800 MB)"));
    assert_null(lcp);
    free(big);

    rs_lcp *ok;
    assert_int_equal(rs_lcp_create(2, &ok, NULL), RS_OK);
    /* Written whole, beside itself, never through a link: a missing directory or a path below a
     * regular file cannot be written, a link is refused and what it names kept, no temporary is
     * left, /dev/null is written into (not replaced). */
    assert_int_equal(rs_lcp_write_file(RS_TEST_TMPDIR "/no/such/dir/x.dat", ok,
                                       RS_LCP_STORAGE_DENSE, 0, NULL, &detail),
                     RS_ERR_IO);
    mkdir(RS_TEST_TMPDIR "/wf", 0777);
    mkdir(RS_TEST_TMPDIR "/wf/new", 0777);
    assert_int_equal(rs_lcp_write_file(RS_TEST_TMPDIR "/wf/new/x.dat", ok, RS_LCP_STORAGE_DENSE,
                                       0, NULL, &detail),
                     RS_OK);
    assert_int_equal(rs_lcp_write_file(RS_TEST_TMPDIR "/wf/new/x.dat/y.dat", ok,
                                       RS_LCP_STORAGE_DENSE, 0, NULL, &detail),
                     RS_ERR_IO);
    assert_int_equal(rs_lcp_write_file("/dev/null", ok, RS_LCP_STORAGE_DENSE, 0, NULL, &detail),
                     RS_OK);
    struct stat null_st;
    assert_int_equal(stat("/dev/null", &null_st), 0);
    assert_true(S_ISCHR(null_st.st_mode));
    unlink(RS_TEST_TMPDIR "/wf/link.dat");
    assert_int_equal(symlink("new/x.dat", RS_TEST_TMPDIR "/wf/link.dat"), 0);
    ok->q[0] = 7.0;
    assert_int_equal(rs_lcp_write_file(RS_TEST_TMPDIR "/wf/link.dat", ok, RS_LCP_STORAGE_DENSE,
                                       0, NULL, &detail),
                     RS_ERR_BAD_ARG);
    assert_non_null(strstr(detail.message, "link.dat: is a symbolic link"));
    rs_lcp *back;
    assert_int_equal(rs_lcp_read_file(RS_TEST_TMPDIR "/wf/link.dat", &back, &detail), RS_OK);
    assert_true(back->q[0] == 0.0); /* the file it names is as it was */
    rs_lcp_destroy(back);
    ok->q[0] = 0.0;
    DIR *dir = opendir(RS_TEST_TMPDIR "/wf/new");
    assert_non_null(dir);
    for (struct dirent *e; (e = readdir(dir));)
        assert_null(strstr(e->d_name, ".tmp-"));
    closedir(dir);
    assert_int_equal(rs_lcp_write_file(RS_TEST_TMPDIR "/x.dat", ok, RS_LCP_STORAGE_SPARSE_BLOCK, 3, NULL, &detail), RS_ERR_BAD_ARG);
    assert_int_equal(rs_lcp_write_file(RS_TEST_TMPDIR "/x.dat", ok, (rs_lcp_storage)7, 1, NULL, &detail), RS_ERR_BAD_ARG);
    ok->q[1] = NAN;
    assert_int_equal(rs_lcp_write_file(RS_TEST_TMPDIR "/x.dat", ok, RS_LCP_STORAGE_DENSE, 0, NULL, &detail), RS_ERR_NONFINITE);
    assert_int_equal(rs_lcp_write_file(NULL, ok, RS_LCP_STORAGE_DENSE, 0, NULL, &detail), RS_ERR_NULL_ARG);
    rs_lcp_destroy(ok);
    rs_lcp_destroy(NULL);
    assert_int_equal(rs_lcp_create(0, &ok, NULL), RS_ERR_DIMENSION);
    assert_null(ok);
    assert_int_equal(rs_lcp_create(RS_LCP_FILE_MAX_N + 1, &ok, NULL), RS_ERR_DIMENSION);
    assert_int_equal(rs_lcp_create(1, NULL, NULL), RS_ERR_NULL_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_is_column_major),
        cmocka_unit_test(test_sparse_block_places_blocks),
        cmocka_unit_test(test_round_trip_dense),
        cmocka_unit_test(test_round_trip_blocks_of_6),
        cmocka_unit_test(test_round_trip_blocks_of_1),
        cmocka_unit_test(test_round_trip_one_block),
        cmocka_unit_test(test_truncated_file),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_counts_that_do_not_match),
        cmocka_unit_test(test_nan_and_inf_entries),
        cmocka_unit_test(test_negative_and_absurd_n),
        cmocka_unit_test(test_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
