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
 * Read the entries of the file at path into entries[0..max-1]. Syntax errors and files with
 * more than max entries fail with "PATH:LINE: ..." in detail; a missing file with RS_ERR_IO.
 */
rs_error rs_ini_read_entries(const char *path, rs_ini_entry *entries, int max, int *count,
                             rs_error_detail *detail);

#endif
