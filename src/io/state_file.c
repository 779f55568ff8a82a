/* State-file framing (state_file.h, docs/state-files.md). */
#include "io/state_file.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "loam/io.h"

/* The payload is written with memcpy from native values: the format is little-endian, so a
 * big-endian host would write another format. No supported host is. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "loam state files are little-endian; this host is not"
#endif

/* The largest state file read: far above any real state (a 10M-particle world is ~1 GB), it only
 * keeps a corrupt length field from asking for absurd memory. */
static const size_t STATE_MAX_BYTES = (size_t)1 << 36;

uint32_t loam_crc32(const void* data, size_t n) {
    /* CRC-32 (IEEE 802.3, reflected, zlib's): bitwise; a state file is read once. */
    const unsigned char* p = data;
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

void loam_state_writer_free(loam_state_writer* w) {
    loam_free(w->data);
    memset(w, 0, sizeof *w);
}

void loam_state_put(loam_state_writer* w, const void* bytes, size_t n) {
    if (w->failed || n == 0) return;
    if (w->length + n > w->capacity) {
        size_t cap = w->capacity ? w->capacity : 4096;
        while (cap < w->length + n) cap *= 2;
        void* grown = loam_realloc(w->data, cap);
        if (!grown) {
            w->failed = 1;
            return;
        }
        w->data = grown;
        w->capacity = cap;
    }
    memcpy(w->data + w->length, bytes, n);
    w->length += n;
}

void loam_state_put_u32(loam_state_writer* w, uint32_t v) { loam_state_put(w, &v, sizeof v); }
void loam_state_put_i64(loam_state_writer* w, int64_t v) { loam_state_put(w, &v, sizeof v); }
void loam_state_put_f64(loam_state_writer* w, double v) { loam_state_put(w, &v, sizeof v); }

void loam_state_put_array(loam_state_writer* w, const void* data, size_t count, size_t size) {
    uint64_t c = count;
    loam_state_put(w, &c, sizeof c);
    loam_state_put(w, data, count * size);
}

loam_status loam_state_file_write(const char* path, uint32_t kind, const loam_state_writer* w, loam_error* err) {
    if (!path) return loam_error_set(err, LOAM_ERR_INPUT, "state file: null path");
    if (w->failed) return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory gathering the state", path);
    unsigned char head[LOAM_STATE_HEADER_BYTES] = {0};
    uint32_t version = LOAM_STATE_VERSION, crc = loam_crc32(w->data, w->length);
    uint64_t length = w->length;
    memcpy(head, LOAM_STATE_MAGIC, 8);
    memcpy(head + 8, &version, 4);
    memcpy(head + 12, &kind, 4);
    memcpy(head + 16, &length, 8);
    memcpy(head + 24, &crc, 4); /* bytes 28..31 reserved, 0 */
    loam_atomic_file f;
    loam_status st = loam_atomic_open(&f, path, err);
    if (st != LOAM_OK) return st;
    if (fwrite(head, 1, sizeof head, f.fp) != sizeof head || (w->length && fwrite(w->data, 1, w->length, f.fp) != w->length)) {
        loam_atomic_abort(&f);
        return loam_error_set(err, LOAM_ERR_IO, "%s: write failed", path);
    }
    return loam_atomic_commit(&f, err);
}

static void kind_name(uint32_t kind, char out[5]) {
    for (int k = 0; k < 4; ++k) {
        char c = (char)(kind >> (8 * k) & 0xff);
        out[k] = c >= 32 && c < 127 ? c : '?';
    }
    out[4] = '\0';
}

/* Header checks on r->file (length bytes). */
static loam_status check_header(loam_state_reader* r, size_t length, uint32_t kind) {
    const char* path = r->path;
    if (length < LOAM_STATE_HEADER_BYTES)
        return loam_error_set(r->err, LOAM_ERR_INPUT, "%s: state file of %zu bytes is shorter than its %d-byte header (truncated?)", path,
                              length, LOAM_STATE_HEADER_BYTES);
    if (memcmp(r->file, LOAM_STATE_MAGIC, 8) != 0)
        return loam_error_set(r->err, LOAM_ERR_INPUT, "%s: magic: not a loam state file (no \"%s\" at its start)", path, LOAM_STATE_MAGIC);
    uint32_t version, got_kind, crc;
    uint64_t payload;
    memcpy(&version, r->file + 8, 4);
    memcpy(&got_kind, r->file + 12, 4);
    memcpy(&payload, r->file + 16, 8);
    memcpy(&crc, r->file + 24, 4);
    if (version != LOAM_STATE_VERSION)
        return loam_error_set(r->err, LOAM_ERR_INPUT, "%s: version = %u: this loam reads state files of version %d", path, version,
                              LOAM_STATE_VERSION);
    if (got_kind != kind) {
        char want[5], got[5];
        kind_name(kind, want);
        kind_name(got_kind, got);
        return loam_error_set(r->err, LOAM_ERR_INPUT, "%s: kind = \"%s\": expected a \"%s\" state", path, got, want);
    }
    if (payload != length - LOAM_STATE_HEADER_BYTES)
        return loam_error_set(r->err, LOAM_ERR_INPUT, "%s: payload length = %llu, but the file holds %zu bytes after its header (truncated?)",
                              path, (unsigned long long)payload, length - LOAM_STATE_HEADER_BYTES);
    uint32_t have = loam_crc32(r->file + LOAM_STATE_HEADER_BYTES, (size_t)payload);
    if (have != crc)
        return loam_error_set(r->err, LOAM_ERR_INPUT, "%s: checksum = 0x%08x, but the payload's CRC-32 is 0x%08x (corrupted)", path, crc,
                              have);
    r->at = r->file + LOAM_STATE_HEADER_BYTES;
    r->end = r->at + payload;
    return LOAM_OK;
}

loam_status loam_state_file_open(loam_state_reader* r, const char* path, uint32_t kind, loam_error* err) {
    memset(r, 0, sizeof *r);
    r->err = err;
    if (!path) return loam_error_set(err, LOAM_ERR_INPUT, "state file: null path");
    r->path = path;
    size_t length = 0;
    loam_status st = loam_read_file(path, STATE_MAX_BYTES, "state", &r->file, &length, err);
    if (st != LOAM_OK) return st;
    st = check_header(r, length, kind);
    if (st != LOAM_OK) loam_state_reader_close(r);
    return st;
}

loam_status loam_state_file_open_memory(loam_state_reader* r, const char* name, const void* data, size_t length, uint32_t kind,
                                        loam_error* err) {
    memset(r, 0, sizeof *r);
    r->err = err;
    r->path = name ? name : "(memory)";
    if (!data && length) return loam_error_set(err, LOAM_ERR_INPUT, "%s: null data", r->path);
    r->file = loam_malloc(length ? length : 1);
    if (!r->file) return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory", r->path);
    if (length) memcpy(r->file, data, length);
    loam_status st = check_header(r, length, kind);
    if (st != LOAM_OK) loam_state_reader_close(r);
    return st;
}

void loam_state_reader_close(loam_state_reader* r) {
    loam_free(r->file);
    r->file = NULL;
    r->at = r->end = NULL;
}

int loam_state_fail(loam_state_reader* r, const char* fmt, ...) {
    if (r->failed) return 0; /* the first failure is the one to report */
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    loam_error_set(r->err, LOAM_ERR_INPUT, "%s: %s", r->path, what);
    r->failed = 1;
    return 0;
}

int loam_state_get(loam_state_reader* r, const char* field, void* out, size_t n) {
    if (r->failed) return 0;
    if (!r->at || (size_t)(r->end - r->at) < n)
        return loam_state_fail(r, "field %s: the payload ends %zu bytes short (truncated or another format)", field,
                               r->at ? n - (size_t)(r->end - r->at) : n);
    if (n) memcpy(out, r->at, n);
    r->at += n;
    return 1;
}

int loam_state_get_u32(loam_state_reader* r, const char* field, uint32_t* v) { return loam_state_get(r, field, v, sizeof *v); }
int loam_state_get_i64(loam_state_reader* r, const char* field, int64_t* v) { return loam_state_get(r, field, v, sizeof *v); }
int loam_state_get_f64(loam_state_reader* r, const char* field, double* v) { return loam_state_get(r, field, v, sizeof *v); }

int loam_state_expect_u32(loam_state_reader* r, const char* field, uint32_t expect) {
    uint32_t v = 0;
    if (!loam_state_get_u32(r, field, &v)) return 0;
    if (v != expect) return loam_state_fail(r, "field %s = %u, but this model has %u (saved from another model)", field, v, expect);
    return 1;
}

int loam_state_get_array_upto(loam_state_reader* r, const char* field, void* out, size_t max_count, size_t size, size_t* count) {
    uint64_t c = 0;
    if (!loam_state_get(r, field, &c, sizeof c)) return 0;
    if (c > max_count) return loam_state_fail(r, "field %s: %llu elements, at most %zu fit", field, (unsigned long long)c, max_count);
    *count = (size_t)c;
    return loam_state_get(r, field, out, (size_t)c * size);
}

int loam_state_get_array(loam_state_reader* r, const char* field, void* out, size_t count, size_t size) {
    uint64_t c = 0;
    if (!loam_state_get(r, field, &c, sizeof c)) return 0;
    if (c != count)
        return loam_state_fail(r, "field %s: %llu elements, but this model has %zu (saved from another model)", field, (unsigned long long)c,
                               count);
    return loam_state_get(r, field, out, count * size);
}

int loam_state_check_finite_f(loam_state_reader* r, const char* field, const float* v, size_t n) {
    if (r->failed) return 0;
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(v[i])) return loam_state_fail(r, "field %s[%zu] = %g is not finite", field, i, (double)v[i]);
    return 1;
}

int loam_state_check_finite_d(loam_state_reader* r, const char* field, const double* v, size_t n) {
    if (r->failed) return 0;
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(v[i])) return loam_state_fail(r, "field %s[%zu] = %g is not finite", field, i, v[i]);
    return 1;
}

int loam_state_finish(loam_state_reader* r) {
    if (r->failed) return 0;
    if (r->at != r->end) return loam_state_fail(r, "%zu bytes left after the last field (another format)", (size_t)(r->end - r->at));
    return 1;
}
