/* Wavefront OBJ, the geometry part: `v` and `f` statements. Written here rather than taken from a
 * library because loam needs only vertices and faces, wants every error to name the line, and must
 * survive any input (fuzz/fuzz_mesh.c); Debian's candidates (assimp) bring a whole scene graph. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/mesh_build.h"

enum { LOAM_OBJ_MAX_CORNERS = 256 }; /* corners of one polygon */

typedef struct obj_line {
    const char* at;  /* next character */
    const char* end; /* end of the line */
} obj_line;

static void skip_space(obj_line* l) {
    while (l->at < l->end && (*l->at == ' ' || *l->at == '\t' || *l->at == '\r')) ++l->at;
}

/* The next whitespace-separated token; its length in *n, 0 at the end of the line. */
static const char* next_token(obj_line* l, size_t* n) {
    skip_space(l);
    const char* t = l->at;
    while (l->at < l->end && *l->at != ' ' && *l->at != '\t' && *l->at != '\r') ++l->at;
    *n = (size_t)(l->at - t);
    return t;
}

static int token_is(const char* t, size_t n, const char* word) { return n == strlen(word) && memcmp(t, word, n) == 0; }

/* A face corner `i`, `i/t`, `i//n` or `i/t/n`: the vertex index i (1-based, or negative counting
 * back from the last vertex read), checked against the vertices read so far. */
static int parse_corner(const char* t, size_t n, int vertices, int32_t* out) {
    char buf[64];
    if (n == 0 || n >= sizeof buf) return 0;
    memcpy(buf, t, n);
    buf[n] = 0;
    char* stop;
    errno = 0;
    long v = strtol(buf, &stop, 10);
    if (stop == buf || errno) return 0;
    for (const char* c = stop; *c; ++c) /* texture and normal indices: digits, signs, slashes */
        if (!(*c == '/' || *c == '-' || (*c >= '0' && *c <= '9'))) return 0;
    if (*stop && *stop != '/') return 0;
    long idx = v > 0 ? v - 1 : vertices + v;
    if (v == 0 || idx < 0 || idx >= vertices) return -1;
    *out = (int32_t)idx;
    return 1;
}

static loam_status fail(loam_mesh_builder* b, loam_error* err, loam_status st, const char* fmt, const char* name,
                        int line, const char* t, size_t n) {
    loam_mesh_builder_free(b);
    return loam_error_set(err, st, fmt, name, line, (int)(n > 60 ? 60 : n), t);
}

loam_status loam_mesh_read_obj(const char* text, size_t length, const char* name, loam_mesh* mesh, loam_error* err) {
    if (!mesh) return loam_error_set(err, LOAM_ERR_INPUT, "mesh: null output");
    memset(mesh, 0, sizeof *mesh);
    if (!text || !name) return loam_error_set(err, LOAM_ERR_INPUT, "mesh: null text or name");
    loam_mesh_builder b;
    loam_mesh_builder_init(&b);
    const char* end = text + length;
    int line_no = 0;
    for (const char* at = text; at < end;) {
        const char* eol = memchr(at, '\n', (size_t)(end - at));
        if (!eol) eol = end;
        obj_line l = {at, eol};
        at = eol + 1;
        ++line_no;
        size_t n;
        const char* t = next_token(&l, &n);
        if (n == 0 || t[0] == '#') continue;
        if (memchr(t, 0, (size_t)(eol - t)))
            return fail(&b, err, LOAM_ERR_INPUT, "%s:%d: a NUL byte in '%.*s' (not a text OBJ file?)", name, line_no, t, n);
        if (token_is(t, n, "v")) {
            float xyz[7];
            int k = 0;
            for (size_t m; k < 7; ++k) {
                const char* c = next_token(&l, &m);
                if (m == 0) break;
                if (!loam_mesh_parse_float(c, m, &xyz[k]))
                    return fail(&b, err, LOAM_ERR_INPUT, "%s:%d: vertex coordinate '%.*s' is not a finite number", name,
                                line_no, c, m);
            }
            size_t m;
            const char* extra = next_token(&l, &m);
            (void)extra;
            if (m || !(k == 3 || k == 4 || k == 6 || k == 7))
                return fail(&b, err, LOAM_ERR_INPUT, "%s:%d: a vertex takes x y z [w] or x y z r g b, got '%.*s'", name,
                            line_no, t, (size_t)(eol - t));
            if (loam_mesh_add_vertex(&b, xyz[0], xyz[1], xyz[2]) < 0) {
                loam_mesh_builder_free(&b);
                return loam_error_set(err, LOAM_ERR_NOMEM, "%s:%d: out of memory or too many vertices", name, line_no);
            }
        } else if (token_is(t, n, "f")) {
            int32_t corner[LOAM_OBJ_MAX_CORNERS];
            int k = 0;
            for (size_t m;; ++k) {
                const char* c = next_token(&l, &m);
                if (m == 0) break;
                if (k == LOAM_OBJ_MAX_CORNERS)
                    return fail(&b, err, LOAM_ERR_INPUT, "%s:%d: a face with more than 256 corners at '%.*s'", name,
                                line_no, c, m);
                int ok = parse_corner(c, m, b.mesh.vertex_count, &corner[k]);
                if (ok < 0)
                    return fail(&b, err, LOAM_ERR_INPUT, "%s:%d: face corner '%.*s' names no vertex read so far", name,
                                line_no, c, m);
                if (!ok)
                    return fail(&b, err, LOAM_ERR_INPUT, "%s:%d: face corner '%.*s' is not i, i/t, i//n or i/t/n", name,
                                line_no, c, m);
            }
            if (k < 3)
                return fail(&b, err, LOAM_ERR_INPUT, "%s:%d: a face needs 3 or more corners: '%.*s'", name, line_no, t,
                            (size_t)(eol - t));
            for (int c = 1; c + 1 < k; ++c) /* a fan: the polygon is taken as convex and planar */
                if (!loam_mesh_add_triangle(&b, corner[0], corner[c], corner[c + 1])) {
                    loam_mesh_builder_free(&b);
                    return loam_error_set(err, LOAM_ERR_NOMEM, "%s:%d: out of memory or too many triangles", name,
                                          line_no);
                }
        } else if (!(token_is(t, n, "vt") || token_is(t, n, "vn") || token_is(t, n, "vp") || token_is(t, n, "o") ||
                     token_is(t, n, "g") || token_is(t, n, "s") || token_is(t, n, "usemtl") || token_is(t, n, "mtllib") ||
                     token_is(t, n, "l") || token_is(t, n, "p"))) {
            return fail(&b, err, LOAM_ERR_INPUT,
                        "%s:%d: unknown OBJ statement '%.*s' (loam reads v and f; vt vn vp o g s usemtl mtllib l p are "
                        "skipped)",
                        name, line_no, t, n);
        }
    }
    return loam_mesh_builder_finish(&b, name, mesh, err);
}
