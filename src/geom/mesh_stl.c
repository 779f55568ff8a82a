/* STL, binary and ASCII. Binary: an 80-byte header, a little-endian triangle count, then 50 bytes
 * per triangle (normal, three corners, an attribute word); a file is binary exactly when its size
 * is 84 + 50 * count, since ASCII files may begin with "solid" and binary headers often do too.
 * ASCII: solid / facet normal / outer loop / vertex x3 / endloop / endfacet / endsolid, possibly
 * several solids. The stored normals are ignored (the corner order defines the outside); corners
 * are welded into shared vertices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/mesh_build.h"

static float little_float(const unsigned char* p) {
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static loam_status read_binary(const unsigned char* data, uint32_t count, const char* name, loam_mesh* mesh,
                               loam_error* err) {
    loam_mesh_builder b;
    loam_mesh_builder_init(&b);
    for (uint32_t t = 0; t < count; ++t) {
        const unsigned char* rec = data + 84 + 50 * (size_t)t;
        int32_t v[3];
        for (int c = 0; c < 3; ++c) {
            float x = little_float(rec + 12 + 12 * c), y = little_float(rec + 16 + 12 * c), z = little_float(rec + 20 + 12 * c);
            if (!isfinite(x) || !isfinite(y) || !isfinite(z)) {
                loam_mesh_builder_free(&b);
                return loam_error_set(err, LOAM_ERR_INPUT, "%s: triangle %u corner %d is not finite (%g, %g, %g)", name,
                                      t + 1, c + 1, x, y, z);
            }
            v[c] = loam_mesh_weld_vertex(&b, x, y, z);
            if (v[c] < 0) {
                loam_mesh_builder_free(&b);
                return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory at triangle %u", name, t + 1);
            }
        }
        if (!loam_mesh_add_triangle(&b, v[0], v[1], v[2])) {
            loam_mesh_builder_free(&b);
            return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory at triangle %u", name, t + 1);
        }
    }
    return loam_mesh_builder_finish(&b, name, mesh, err);
}

/* ASCII tokens with their line numbers. */
typedef struct stl_text {
    const char *at, *end;
    int line;
    const char* tok;
    size_t len;
} stl_text;

static int next(stl_text* s) {
    while (s->at < s->end && (*s->at == ' ' || *s->at == '\t' || *s->at == '\r' || *s->at == '\n')) {
        if (*s->at == '\n') ++s->line;
        ++s->at;
    }
    s->tok = s->at;
    while (s->at < s->end && !(*s->at == ' ' || *s->at == '\t' || *s->at == '\r' || *s->at == '\n')) ++s->at;
    s->len = (size_t)(s->at - s->tok);
    return s->len > 0;
}

static int is(const stl_text* s, const char* word) { return s->len == strlen(word) && memcmp(s->tok, word, s->len) == 0; }

static void skip_line(stl_text* s) {
    while (s->at < s->end && *s->at != '\n') ++s->at;
}

static int number(stl_text* s, float* out) { return next(s) && loam_mesh_parse_float(s->tok, s->len, out); }

static loam_status expected(loam_mesh_builder* b, const stl_text* s, const char* name, const char* what, loam_error* err) {
    loam_mesh_builder_free(b);
    if (s->len == 0) return loam_error_set(err, LOAM_ERR_INPUT, "%s:%d: expected %s, found the end of the file", name, s->line, what);
    return loam_error_set(err, LOAM_ERR_INPUT, "%s:%d: expected %s, found '%.*s'", name, s->line, what,
                          (int)(s->len > 60 ? 60 : s->len), s->tok);
}

static loam_status read_ascii(const char* text, size_t length, const char* name, loam_mesh* mesh, loam_error* err) {
    loam_mesh_builder b;
    loam_mesh_builder_init(&b);
    stl_text s = {text, text + length, 1, text, 0};
    if (memchr(text, 0, length))
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "%s: neither binary STL (size %zu is not 84 + 50 x its triangle count) nor text", name, length);
    if (!next(&s) || !is(&s, "solid")) return expected(&b, &s, name, "'solid' (ASCII STL)", err);
    skip_line(&s); /* the solid's name */
    for (;;) {
        if (!next(&s)) return expected(&b, &s, name, "'facet' or 'endsolid'", err);
        if (is(&s, "endsolid")) {
            skip_line(&s);
            if (!next(&s)) break;         /* the end of the file */
            if (!is(&s, "solid")) return expected(&b, &s, name, "'solid' or the end of the file", err);
            skip_line(&s);
            continue;
        }
        if (!is(&s, "facet")) return expected(&b, &s, name, "'facet' or 'endsolid'", err);
        float unused;
        if (!next(&s) || !is(&s, "normal")) return expected(&b, &s, name, "'normal'", err);
        for (int k = 0; k < 3; ++k)
            if (!number(&s, &unused)) return expected(&b, &s, name, "a normal component (a finite number)", err);
        if (!next(&s) || !is(&s, "outer")) return expected(&b, &s, name, "'outer loop'", err);
        if (!next(&s) || !is(&s, "loop")) return expected(&b, &s, name, "'loop'", err);
        int32_t v[3];
        for (int c = 0; c < 3; ++c) {
            float p[3];
            if (!next(&s) || !is(&s, "vertex")) return expected(&b, &s, name, "'vertex' (a facet has 3)", err);
            for (int k = 0; k < 3; ++k)
                if (!number(&s, &p[k])) return expected(&b, &s, name, "a vertex coordinate (a finite number)", err);
            v[c] = loam_mesh_weld_vertex(&b, p[0], p[1], p[2]);
            if (v[c] < 0) {
                loam_mesh_builder_free(&b);
                return loam_error_set(err, LOAM_ERR_NOMEM, "%s:%d: out of memory or too many vertices", name, s.line);
            }
        }
        if (!next(&s) || !is(&s, "endloop")) return expected(&b, &s, name, "'endloop' (a facet has 3 vertices)", err);
        if (!next(&s) || !is(&s, "endfacet")) return expected(&b, &s, name, "'endfacet'", err);
        if (!loam_mesh_add_triangle(&b, v[0], v[1], v[2])) {
            loam_mesh_builder_free(&b);
            return loam_error_set(err, LOAM_ERR_NOMEM, "%s:%d: out of memory or too many triangles", name, s.line);
        }
    }
    return loam_mesh_builder_finish(&b, name, mesh, err);
}

loam_status loam_mesh_read_stl(const unsigned char* data, size_t length, const char* name, loam_mesh* mesh,
                               loam_error* err) {
    if (!mesh) return loam_error_set(err, LOAM_ERR_INPUT, "mesh: null output");
    memset(mesh, 0, sizeof *mesh);
    if (!data || !name) return loam_error_set(err, LOAM_ERR_INPUT, "mesh: null data or name");
    if (length >= 84) {
        uint32_t count = (uint32_t)data[80] | (uint32_t)data[81] << 8 | (uint32_t)data[82] << 16 | (uint32_t)data[83] << 24;
        if ((uint64_t)length == 84 + 50 * (uint64_t)count) {
            if (count > LOAM_MESH_MAX_TRIANGLES)
                return loam_error_set(err, LOAM_ERR_INPUT, "%s: %u triangles, more than loam reads (%d)", name, count,
                                      LOAM_MESH_MAX_TRIANGLES);
            return read_binary(data, count, name, mesh, err);
        }
    }
    return read_ascii((const char*)data, length, name, mesh, err);
}
