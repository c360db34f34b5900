/*
 * picture_whole.c: a PNG or GIF file read through its structure (see picture_whole.h). PNG
 * (ISO/IEC 15948): an 8-byte signature, then chunks of a 4-byte big-endian length, a 4-byte
 * type, the data and a CRC-32 over type and data, the last one IEND. GIF (89a specification):
 * "GIF87a" or "GIF89a", a 7-byte screen descriptor and its optional colour table, then blocks
 * (0x21 an extension, 0x2C an image with its descriptor, optional colour table and LZW code
 * size), each followed by data sub-blocks (a length byte, that many bytes, up to a length 0),
 * and the trailer 0x3B.
 */
#define _GNU_SOURCE /* O_NOFOLLOW */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "io/picture_whole.h"

static int ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int say(char *why, size_t len, const char *text)
{
    snprintf(why, len, "%s", text);
    return 0;
}

/* CRC-32 (the polynomial 0xEDB88320, reflected) over n bytes, continuing from crc */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc;
}

/* A 4-byte big-endian number (PNG's lengths and CRCs). */
static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int read_all(FILE *f, unsigned char *buf, size_t n)
{
    return fread(buf, 1, n, f) == n;
}

static int png_whole(FILE *f, char *why, size_t len)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8], buf[4096];
    if (!read_all(f, head, 8) || memcmp(head, sig, 8) != 0)
        return say(why, len, "no PNG signature");
    for (;;) {
        if (!read_all(f, head, 8))
            return say(why, len, "ends between chunks, before IEND");
        const uint32_t n = be32(head);
        char type[5] = {(char)head[4], (char)head[5], (char)head[6], (char)head[7], 0};
        uint32_t crc = crc32_update(0xFFFFFFFFu, head + 4, 4);
        for (uint32_t left = n; left > 0;) {
            const size_t k = left < sizeof buf ? left : sizeof buf;
            if (!read_all(f, buf, k)) {
                snprintf(why, len, "ends inside chunk %s", type);
                return 0;
            }
            crc = crc32_update(crc, buf, k);
            left -= (uint32_t)k;
        }
        if (!read_all(f, buf, 4)) {
            snprintf(why, len, "ends inside chunk %s", type);
            return 0;
        }
        if ((crc ^ 0xFFFFFFFFu) != be32(buf)) {
            snprintf(why, len, "chunk %s fails its CRC", type);
            return 0;
        }
        if (strcmp(type, "IEND") == 0)
            return fgetc(f) == EOF ? 1 : say(why, len, "bytes after IEND");
    }
}

/* the data sub-blocks up to their terminator (a length 0) */
static int gif_sub_blocks(FILE *f)
{
    unsigned char buf[256];
    for (;;) {
        const int n = fgetc(f);
        if (n == EOF)
            return 0;
        if (n == 0)
            return 1;
        if (!read_all(f, buf, (size_t)n))
            return 0;
    }
}

static int gif_colour_table(FILE *f, int packed)
{
    unsigned char buf[3 * 256];
    return !(packed & 0x80) || read_all(f, buf, 3u << ((packed & 7) + 1));
}

static int gif_whole(FILE *f, char *why, size_t len)
{
    unsigned char head[13];
    if (!read_all(f, head, 13) ||
        (memcmp(head, "GIF87a", 6) != 0 && memcmp(head, "GIF89a", 6) != 0))
        return say(why, len, "no GIF header");
    if (!gif_colour_table(f, head[10]))
        return say(why, len, "ends inside its colour table");
    for (int images = 0;;) {
        const int block = fgetc(f);
        unsigned char d[10];
        if (block == 0x3B)
            return images == 0  ? say(why, len, "no image")
                   : fgetc(f) == EOF ? 1
                                     : say(why, len, "bytes after the trailer");
        if (block == 0x21) { /* an extension: its label, then sub-blocks */
            if (fgetc(f) == EOF || !gif_sub_blocks(f))
                return say(why, len, "ends inside an extension, before the trailer");
        } else if (block == 0x2C) { /* an image: descriptor, colour table, code size, data */
            if (!read_all(f, d, 9) || !gif_colour_table(f, d[8]) || fgetc(f) == EOF ||
                !gif_sub_blocks(f)) {
                snprintf(why, len, "ends inside image %d, before the trailer", images + 1);
                return 0;
            }
            images++;
        } else {
            return say(why, len, block == EOF ? "the trailer is missing"
                                              : "a block of unknown kind, before the trailer");
        }
    }
}

int rs_picture_whole(int dirfd, const char *name, char *why, size_t len)
{
    const int png = ends_with(name, ".png"), gif = ends_with(name, ".gif");
    if (!png && !gif)
        return -1;
    const int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return say(why, len, "cannot be read");
    }
    const int whole = png ? png_whole(f, why, len) : gif_whole(f, why, len);
    fclose(f);
    return whole;
}
