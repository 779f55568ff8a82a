/* ParaView Data collections (.pvd): one <DataSet timestep file/> per frame. The file is rewritten whole
 * after every frame, so a run killed at any moment leaves a .pvd that ParaView opens and that lists
 * every frame written so far. The rewrite costs little next to the frames themselves. */
#include "loam/io.h"
#include "loam/output.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct loam_pvd_series {
    char path[4096];
    int count;
    double last_time;
    char* body;       /* the <DataSet/> lines, ready to write */
    size_t length;    /* bytes used in body, without the terminating NUL */
    size_t capacity;
};

static loam_status rewrite(const loam_pvd_series* s, loam_error* err) {
    loam_atomic_file f;
    loam_status status = loam_atomic_open(&f, s->path, err);
    if (status != LOAM_OK) return status;
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"0.1\">\n"
          "  <Collection>\n", f.fp);
    fwrite(s->body, 1, s->length, f.fp);
    fputs("  </Collection>\n</VTKFile>\n", f.fp);
    return loam_atomic_commit(&f, err);
}

/* Room for `more` bytes plus a NUL; doubling keeps appends amortized O(1). */
static int reserve(loam_pvd_series* s, size_t more) {
    if (s->length + more + 1 <= s->capacity) return 1;
    size_t cap = s->capacity ? s->capacity : 1024;
    while (cap < s->length + more + 1) cap *= 2;
    char* body = loam_malloc(cap);
    if (!body) return 0;
    if (s->body) memcpy(body, s->body, s->length + 1);
    loam_free(s->body);
    s->body = body;
    s->capacity = cap;
    return 1;
}

/* File names are user data (scene names), so escape what would break the XML attribute. */
static size_t escaped_length(const char* text) {
    size_t len = 0;
    for (const char* c = text; *c; ++c)
        len += *c == '&' ? 5 : *c == '<' || *c == '>' ? 4 : *c == '"' || *c == '\'' ? 6 : 1;
    return len;
}

static char* append_escaped(char* out, const char* text) {
    for (const char* c = text; *c; ++c) {
        const char* rep = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;"
                        : *c == '"' ? "&quot;" : *c == '\'' ? "&apos;" : NULL;
        if (rep) {
            size_t len = strlen(rep);
            memcpy(out, rep, len);
            out += len;
        } else {
            *out++ = *c;
        }
    }
    return out;
}

loam_pvd_series* loam_pvd_create(const char* path, loam_error* err) {
    if (!path) {
        loam_error_set(err, LOAM_ERR_INPUT, "pvd: path is NULL");
        return NULL;
    }
    size_t len = strlen(path);
    loam_pvd_series* s = loam_calloc(1, sizeof *s);
    if (!s) {
        loam_error_set(err, LOAM_ERR_NOMEM, "pvd: out of memory");
        return NULL;
    }
    if (len == 0 || len >= sizeof s->path) {
        loam_free(s);
        loam_error_set(err, LOAM_ERR_IO, "%.200s: output path is empty or too long", path);
        return NULL;
    }
    memcpy(s->path, path, len + 1);
    if (!reserve(s, 0)) {
        loam_free(s);
        loam_error_set(err, LOAM_ERR_NOMEM, "pvd: out of memory");
        return NULL;
    }
    s->body[0] = '\0';
    if (rewrite(s, err) != LOAM_OK) {
        loam_pvd_destroy(s);
        return NULL;
    }
    return s;
}

loam_status loam_pvd_append(loam_pvd_series* s, double time, const char* file, loam_error* err) {
    if (!s || !file || !*file)
        return loam_error_set(err, LOAM_ERR_INPUT, "pvd: %s is NULL or empty", s ? "file" : "series");
    if (!isfinite(time))
        return loam_error_set(err, LOAM_ERR_INPUT, "%s: frame %s: time %g is not finite", s->path,
                              file, time);
    /* ParaView keys frames by time: a repeated or earlier time would hide a frame. */
    if (s->count > 0 && !(time > s->last_time))
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "%s: frame %s: time %.17g is not after the previous frame's %.17g",
                              s->path, file, time, s->last_time);
    char stamp[64];
    int stamp_len = snprintf(stamp, sizeof stamp, "%.17g", time);
    /* A host that set LC_NUMERIC may get a decimal comma, which no XML reader takes as a number. */
    for (char* c = stamp; *c; ++c)
        if (*c == ',') *c = '.';
    const char* pre = "    <DataSet timestep=\"";
    const char* mid = "\" group=\"\" part=\"0\" file=\"";
    const char* post = "\"/>\n";
    size_t more = strlen(pre) + (size_t)stamp_len + strlen(mid) + escaped_length(file) + strlen(post);
    if (!reserve(s, more)) return loam_error_set(err, LOAM_ERR_NOMEM, "pvd: out of memory");
    size_t old_length = s->length;
    char* out = s->body + s->length;
    out += sprintf(out, "%s%s%s", pre, stamp, mid);
    out = append_escaped(out, file);
    out += sprintf(out, "%s", post);
    s->length = (size_t)(out - s->body);
    loam_status status = rewrite(s, err);
    if (status != LOAM_OK) {
        /* Keep memory in step with the disk, which still holds the previous complete list. */
        s->length = old_length;
        s->body[old_length] = '\0';
        return status;
    }
    s->count += 1;
    s->last_time = time;
    return LOAM_OK;
}

int loam_pvd_count(const loam_pvd_series* s) { return s ? s->count : 0; }

void loam_pvd_destroy(loam_pvd_series* s) {
    if (!s) return;
    loam_free(s->body);
    loam_free(s);
}
