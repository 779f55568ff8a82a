/* A `heightfield` shape: heights inline (`heights`, a list of rows) or from a `file` (CSV, or a
 * grayscale PNG of 8 or 16 bits through libpng), sample spacings `dx`, `dy` (m). Rows run along +y
 * (row 0 at the lowest y) in the inline list and in CSV; a PNG is read as a map seen from above:
 * its top row is the highest y. PNG heights are height_offset + height_scale * value / max value
 * (m). The scene owns the fields (see keep_field). */
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loam/sdf_grid.h"
#include "scene/scene_internal.h"

enum { HF_MAX_SIDE = 16384 };

/* The scene's struct, which bindings mirror, has one list of owned blocks (grids) and no room for
 * another, so a field is kept as a grid record whose `values` are the heights: loam_scene_destroy
 * frees values with loam_free (the heights came from loam_malloc) and then the record. Its nx, ny,
 * nz stay 0, so nothing mistakes it for a distance grid; shapes point at `hf`. */
typedef struct scene_field {
    loam_sdf_grid storage;
    loam_heightfield hf;
} scene_field;

/* Growable list of heights with the row shape checked as it comes. */
typedef struct rows {
    float* v;
    size_t n, cap;
    int nx, ny;
} rows;

static int push(rows* r, float v) {
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        float* more = realloc(r->v, cap * sizeof *more);
        if (!more) return 0;
        r->v = more, r->cap = cap;
    }
    r->v[r->n++] = v;
    return 1;
}

static loam_status inline_rows(const snode* list, rows* r, loam_error* err) {
    if (!snode_is_seq(list)) return snode_error(list, err, "'heights' must be a list of rows, each a list of heights (m)");
    r->ny = snode_seq_length(list);
    for (int j = 0; j < r->ny; ++j) {
        snode row = snode_seq_item(list, j);
        if (!snode_is_seq(&row)) return snode_error(&row, err, "row %d of 'heights' is not a list", j);
        int nx = snode_seq_length(&row);
        if (j == 0) r->nx = nx;
        if (nx != r->nx) return snode_error(&row, err, "row %d of 'heights' has %d values, row 0 has %d", j, nx, r->nx);
        for (int i = 0; i < nx; ++i) {
            snode item = snode_seq_item(&row, i);
            double v;
            loam_status st = snode_double(&item, -1e7, 1e7, &v, err);
            if (st != LOAM_OK) return st;
            if (!push(r, (float)v)) return loam_error_set(err, LOAM_ERR_NOMEM, "out of memory for heights");
        }
    }
    return LOAM_OK;
}

static loam_status csv_rows(const char* path, rows* r, loam_error* err) {
    FILE* f = fopen(path, "r");
    if (!f) return loam_error_set(err, LOAM_ERR_IO, "%s: %s", path, strerror(errno));
    char line[65536];
    loam_status st = LOAM_OK;
    int lineno = 0;
    while (st == LOAM_OK && fgets(line, sizeof line, f)) {
        ++lineno;
        if (!strchr(line, '\n') && !feof(f)) {
            st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%d: line longer than %zu characters", path, lineno, sizeof line - 1);
            break;
        }
        char* at = line;
        while (*at == ' ' || *at == '\t') ++at;
        if (*at == '\n' || *at == '\r' || *at == '\0' || *at == '#') continue; /* blank or comment */
        int nx = 0;
        for (;;) {
            char* end;
            double v = strtod(at, &end);
            if (end == at || !(v >= -1e7 && v <= 1e7)) {
                st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%d: value %d is not a height within +-1e7 m", path, lineno, nx + 1);
                break;
            }
            if (!push(r, (float)v)) {
                st = loam_error_set(err, LOAM_ERR_NOMEM, "out of memory for heights");
                break;
            }
            ++nx;
            at = end;
            while (*at == ' ' || *at == '\t') ++at;
            if (*at == ',') {
                ++at;
                continue;
            }
            if (*at == '\n' || *at == '\r' || *at == '\0') break;
            st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%d: unexpected '%c' after value %d", path, lineno, *at, nx);
            break;
        }
        if (st != LOAM_OK) break;
        if (r->ny == 0) r->nx = nx;
        if (nx != r->nx)
            st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%d: %d values, the first row has %d", path, lineno, nx, r->nx);
        ++r->ny;
    }
    fclose(f);
    return st;
}

static loam_status png_rows(const char* path, float offset, float scale, rows* r, loam_error* err) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path))
        return loam_error_set(err, LOAM_ERR_IO, "%s: cannot read as PNG (%s)", path, img.message);
    if (img.width > HF_MAX_SIDE || img.height > HF_MAX_SIDE) {
        png_image_free(&img);
        return loam_error_set(err, LOAM_ERR_INPUT, "%s: %u x %u pixels, at most %d a side", path, img.width, img.height, HF_MAX_SIDE);
    }
    if (img.format & PNG_FORMAT_FLAG_COLOR) {
        png_image_free(&img);
        return loam_error_set(err, LOAM_ERR_INPUT, "%s: a height map must be a grayscale PNG", path);
    }
    /* Read at the file's own depth so the levels come back as stored (asking libpng for the other
     * depth would pass them through its sRGB curve). */
    int deep = (img.format & PNG_FORMAT_FLAG_LINEAR) != 0;
    img.format = deep ? PNG_FORMAT_LINEAR_Y : PNG_FORMAT_GRAY;
    size_t count = (size_t)img.width * img.height;
    void* px = malloc(count * (deep ? 2 : 1));
    if (!px) {
        png_image_free(&img);
        return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory", path);
    }
    if (!png_image_finish_read(&img, NULL, px, 0, NULL)) {
        free(px);
        return loam_error_set(err, LOAM_ERR_IO, "%s: %s", path, img.message);
    }
    float top = deep ? 65535.0f : 255.0f;
    r->nx = (int)img.width, r->ny = (int)img.height;
    for (int j = 0; j < r->ny; ++j) /* bottom image row first: row 0 is the lowest y */
        for (int i = 0; i < r->nx; ++i) {
            size_t at = (size_t)(r->ny - 1 - j) * (size_t)r->nx + (size_t)i;
            float v = deep ? (float)((const uint16_t*)px)[at] : (float)((const uint8_t*)px)[at];
            if (!push(r, offset + scale * v / top)) {
                free(px);
                return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory", path);
            }
        }
    free(px);
    return LOAM_OK;
}

static int ends_with(const char* s, const char* tail) {
    size_t a = strlen(s), b = strlen(tail);
    if (a < b) return 0;
    for (size_t k = 0; k < b; ++k)
        if ((s[a - b + k] | 0x20) != tail[k]) return 0;
    return 1;
}

loam_status scene_read_heightfield(const snode* m, loam_scene* s, const loam_heightfield** out, loam_error* err) {
    snode heights, file;
    int has_h = snode_get(m, "heights", &heights), has_f = snode_get(m, "file", &file);
    if (has_h == has_f)
        return snode_error(m, err, "a heightfield needs exactly one of 'heights' (a list of rows) or 'file' (CSV or PNG)");
    float dx = 0.0f, dy = 0.0f, scale = 1.0f, offset = 0.0f;
    loam_status st = LOAM_OK;
    snode n;
    if (!snode_get(m, "dx", &n)) return snode_error(m, err, "a heightfield needs 'dx', the sample spacing along x (m)");
    st = opt_float(m, "dx", 1e-9, 1e6, &dx, err);
    if (st == LOAM_OK) {
        dy = dx; /* dy defaults to dx */
        st = opt_float(m, "dy", 1e-9, 1e6, &dy, err);
    }
    if (st == LOAM_OK) st = opt_float(m, "height_scale", -1e6, 1e6, &scale, err);
    if (st == LOAM_OK) st = opt_float(m, "height_offset", -1e6, 1e6, &offset, err);
    if (st != LOAM_OK) return st;
    rows r;
    memset(&r, 0, sizeof r);
    char path[2048];
    loam_error inner;
    if (has_h) {
        st = inline_rows(&heights, &r, err);
    } else {
        const char* name = snode_scalar(&file);
        if (!name || !*name) {
            st = snode_error(&file, err, "'file' must name a CSV or PNG file, relative to the scene file");
        } else {
            scene_resolve_path(s->path, name, path, sizeof path);
            st = ends_with(path, ".png") ? png_rows(path, offset, scale, &r, &inner) : csv_rows(path, &r, &inner);
            if (st != LOAM_OK) st = snode_error(&file, err, "%s", inner.message);
        }
        if (st == LOAM_OK && !ends_with(path, ".png") && (scale != 1.0f || offset != 0.0f))
            for (size_t k = 0; k < r.n; ++k) r.v[k] = offset + scale * r.v[k];
    }
    scene_field* sf = NULL;
    if (st == LOAM_OK && !(sf = calloc(1, sizeof *sf))) st = loam_error_set(err, LOAM_ERR_NOMEM, "out of memory");
    if (st == LOAM_OK && loam_heightfield_create(r.nx, r.ny, dx, dy, r.v, &sf->hf, &inner) != LOAM_OK)
        st = snode_error(m, err, "%s", inner.message);
    free(r.v);
    if (st == LOAM_OK) {
        loam_sdf_grid** more = realloc(s->grids, sizeof *more * (size_t)(s->grid_count + 1));
        if (!more) st = loam_error_set(err, LOAM_ERR_NOMEM, "out of memory for height fields");
        else s->grids = more;
    }
    if (st != LOAM_OK) {
        if (sf) loam_heightfield_destroy(&sf->hf);
        free(sf);
        return st;
    }
    sf->storage.values = sf->hf.heights; /* freed with the record by loam_scene_destroy */
    s->grids[s->grid_count++] = &sf->storage;
    *out = &sf->hf;
    return LOAM_OK;
}
