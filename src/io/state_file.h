/* The framing every state file shares (docs/state-files.md): a 32-byte header (magic, format
 * version, kind, payload length, CRC-32 of the payload), then the payload, a sequence of fields
 * that each module writes and reads in a fixed order. Little-endian throughout.
 *
 * The writer gathers the payload in memory (a failed allocation is remembered and reported once at
 * the end), and loam_state_file_write puts header and payload in place atomically. The reader
 * checks the header and checksum before a module reads a field, and every read is bounds-checked:
 * a truncated or corrupted file gives LOAM_ERR_INPUT naming the file and the field, never a crash. */
#ifndef LOAM_IO_STATE_FILE_H
#define LOAM_IO_STATE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "loam/core.h"

#define LOAM_STATE_MAGIC "LOAMSTAT"
enum { LOAM_STATE_VERSION = 1, LOAM_STATE_HEADER_BYTES = 32 };
/* Kinds: four ASCII letters, read as a little-endian u32. */
#define LOAM_STATE_KIND(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define LOAM_STATE_MULTIBODY LOAM_STATE_KIND('M', 'B', 'D', 'Y')
#define LOAM_STATE_SOFTBODY LOAM_STATE_KIND('S', 'O', 'F', 'T')
#define LOAM_STATE_GRANULAR LOAM_STATE_KIND('G', 'R', 'A', 'N')
#define LOAM_STATE_ENV LOAM_STATE_KIND('E', 'N', 'V', ' ')

typedef struct loam_state_writer {
    unsigned char* data;
    size_t length, capacity;
    int failed; /* out of memory at some put: the write reports it */
} loam_state_writer;

void loam_state_writer_free(loam_state_writer* w);
void loam_state_put(loam_state_writer* w, const void* bytes, size_t n);
void loam_state_put_u32(loam_state_writer* w, uint32_t v);
void loam_state_put_i64(loam_state_writer* w, int64_t v);
void loam_state_put_f64(loam_state_writer* w, double v);
/* An array field: its element count (u64), then count * size bytes. */
void loam_state_put_array(loam_state_writer* w, const void* data, size_t count, size_t size);

/* Header and payload to `path`, through a temporary name renamed into place when complete. */
loam_status loam_state_file_write(const char* path, uint32_t kind, const loam_state_writer* w, loam_error* err);

typedef struct loam_state_reader {
    const char* path;        /* for messages */
    unsigned char* file;     /* the whole file (owned) */
    const unsigned char* at; /* next unread payload byte */
    const unsigned char* end;
    loam_error* err;
    int failed;              /* a read failed; err says which */
} loam_state_reader;

/* Read `path`, check magic, version, kind, length and checksum; then the payload is ready to read. */
loam_status loam_state_file_open(loam_state_reader* r, const char* path, uint32_t kind, loam_error* err);
/* Read from memory already in hand (fuzzing, tests): same checks; data is copied. */
loam_status loam_state_file_open_memory(loam_state_reader* r, const char* name, const void* data, size_t length, uint32_t kind,
                                        loam_error* err);
void loam_state_reader_close(loam_state_reader* r);

/* Each returns 0 (with r->err set, naming the file and `field`) when the payload ends too soon, or
 * the value is not what the caller expects. */
int loam_state_get(loam_state_reader* r, const char* field, void* out, size_t n);
int loam_state_get_u32(loam_state_reader* r, const char* field, uint32_t* v);
int loam_state_get_i64(loam_state_reader* r, const char* field, int64_t* v);
int loam_state_get_f64(loam_state_reader* r, const char* field, double* v);
/* A u32 that must equal `expect` (a model size: the file was saved from another model otherwise). */
int loam_state_expect_u32(loam_state_reader* r, const char* field, uint32_t expect);
/* An array field of exactly `count` elements of `size` bytes into out. */
int loam_state_get_array(loam_state_reader* r, const char* field, void* out, size_t count, size_t size);
/* An array field of at most max_count elements; its count into *count. */
int loam_state_get_array_upto(loam_state_reader* r, const char* field, void* out, size_t max_count, size_t size, size_t* count);
/* 0 with the error set when some value of a float/double array is not finite. */
int loam_state_check_finite_f(loam_state_reader* r, const char* field, const float* v, size_t n);
int loam_state_check_finite_d(loam_state_reader* r, const char* field, const double* v, size_t n);
/* Fail with a message naming the file; always returns 0. */
int loam_state_fail(loam_state_reader* r, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The whole payload was read (trailing bytes mean a mismatched writer). */
int loam_state_finish(loam_state_reader* r);

uint32_t loam_crc32(const void* data, size_t n);

#endif
