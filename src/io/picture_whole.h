/*
 * picture_whole.h: whether a PNG or a GIF another program wrote (gnuplot's pictures and
 * animations) is whole, read from its signature to its end marker. A program writing onto a full
 * disk may stop mid-file and still exit 0: gnuplot's animated GIF terminal does. A size
 * above zero says nothing; the structure does.
 */
#ifndef RS_IO_PICTURE_WHOLE_H
#define RS_IO_PICTURE_WHOLE_H

#include <stddef.h>

/* The file name relative to the directory descriptor dirfd: 1 if it is a whole PNG (every
 * chunk's length and CRC, through IEND) or a whole GIF (every block and sub-block through the
 * trailer) with nothing after its end; 0 if not, with why (a phrase: "ends inside chunk IDAT",
 * "the trailer is missing") in why[len]; -1 if the name is neither .png nor .gif (not judged). */
int rs_picture_whole(int dirfd, const char *name, char *why, size_t len);

#endif
