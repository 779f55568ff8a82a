/* Whole-file reads for the readers of scenes and meshes: one place that bounds the size and turns
 * every failure into a message naming the file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "loam/io.h"

loam_status loam_read_file(const char* path, size_t max_bytes, const char* what, unsigned char** data, size_t* length,
                           loam_error* err) {
    *data = NULL;
    *length = 0;
    FILE* f = fopen(path, "rb");
    if (!f) return loam_error_set(err, LOAM_ERR_INPUT, "%s: cannot open %s: %s", path, what, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    unsigned char* buf = loam_malloc(cap + 1);
    loam_status st = LOAM_OK;
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        if (cap >= max_bytes) {
            st = loam_error_set(err, LOAM_ERR_INPUT, "%s: %s file larger than %zu MiB", path, what, max_bytes >> 20);
            break;
        }
        unsigned char* bigger = loam_malloc(2 * cap + 1);
        if (bigger) memcpy(bigger, buf, len);
        loam_free(buf);
        buf = bigger;
        cap *= 2;
    }
    int read_error = ferror(f);
    fclose(f);
    if (!buf) return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory reading the %s", path, what);
    if (st == LOAM_OK && read_error) st = loam_error_set(err, LOAM_ERR_IO, "%s: read error", path);
    if (st != LOAM_OK) {
        loam_free(buf);
        return st;
    }
    buf[len] = 0; /* text readers may treat it as a string */
    *data = buf;
    *length = len;
    return LOAM_OK;
}
