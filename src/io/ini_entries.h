/*
 * ini_entries.h (internal): every "key = value" of an INI file (libinih), with its section and
 * line number, so that a later interpretation can name file:line in its messages.
 */
#ifndef RS_IO_INI_ENTRIES_H
#define RS_IO_INI_ENTRIES_H

#include "relaxsim/error.h"

typedef struct rs_ini_entry {
    char section[32];
    char key[96];
    char value[512];
    int line; /* 1-based line in the file; 0 for an entry that did not come from the file */
} rs_ini_entry;

/*
 * Read the entries of the file at path into entries[0..max-1]. Syntax errors, lines longer
 * than libinih reads at once (INI_MAX_LINE, 200 bytes in Debian's build) and files with more
 * than max entries fail with "PATH:LINE: ..." in detail; a missing file or a directory with
 * RS_ERR_IO. Comments: a line starting with ';' or '#', and from ';' or '#' after a blank to
 * the end of the line.
 */
rs_error rs_ini_read_entries(const char *path, rs_ini_entry *entries, int max, int *count,
                             rs_error_detail *detail);

/* The same from text in memory (NUL-terminated); name stands for the file in messages. */
rs_error rs_ini_read_entries_text(const char *name, const char *text, rs_ini_entry *entries,
                                  int max, int *count, rs_error_detail *detail);

/* A decimal real (no hexadecimal), the whole text but blanks: 1 and *out if it is a finite one,
 * -1 if it is infinite or not a number (inf, nan, 1e999), -2 if it is nonzero but below the
 * normal range (1e-400 would read as 0), 0 if it is no number. */
int rs_parse_real(const char *text, double *out);

/* The shortest of %.15g, %.16g, %.17g that reads back as exactly v (0.05, not
 * 0.050000000000000003); "nan", "inf", "-inf" for non-finite values. Returns buf. */
char *rs_format_real(double v, char *buf, size_t len);

/* A decimal integer in [lo, hi], the whole text but blanks (no overflow); 1 if it is one. */
int rs_parse_count(const char *text, long lo, long hi, long *out);

/* The most items a list in one value (512 characters) can hold. */
#define RS_MAX_LIST_ITEMS 256

/* Split text at its commas, in place, into items[0..count) (each trimmed of blanks). Returns the
 * count, or -1 if an item is empty ("1,,2", "1, 2,": a list is never padded with nothing), -2 if
 * there are more than max_items. */
int rs_split_list(char *text, char **items, int max_items);

#endif
