/* Robot files (JSON): masses, springs, faces. Every element is checked and a bad one is named by its
 * array and index; nothing is dropped or repaired. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "loam/io.h"
#include "loam/softbody.h"

#define ROBOT_FILE_MAX (256u << 20)

/* Element `index` of `arr` as numbers: count must be one of [lo, hi]; NaN/inf and non-numbers refused. */
static int read_row(const cJSON* row, double* v, int lo, int hi, const char* name, const char* arr, int index,
                    loam_error* err) {
    int n = cJSON_IsArray(row) ? cJSON_GetArraySize(row) : -1;
    if (n < lo || n > hi) {
        if (hi == lo) loam_error_set(err, LOAM_ERR_INPUT, "%s: %s[%d]: expected an array of %d numbers", name, arr, index, lo);
        else loam_error_set(err, LOAM_ERR_INPUT, "%s: %s[%d]: expected an array of %d or %d numbers", name, arr, index, lo, hi);
        return -1;
    }
    int k = 0;
    const cJSON* e;
    cJSON_ArrayForEach(e, row) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            loam_error_set(err, LOAM_ERR_INPUT, "%s: %s[%d][%d]: not a finite number", name, arr, index, k);
            return -1;
        }
        v[k++] = e->valuedouble;
    }
    return n;
}

static int as_index(double v, int32_t* out) {
    if (v != floor(v) || v < 0 || v > 2e9) return 0;
    *out = (int32_t)v;
    return 1;
}

static const cJSON* array_of(const cJSON* root, const char* key, int required, const char* name, loam_error* err,
                             int* ok) {
    const cJSON* a = cJSON_GetObjectItemCaseSensitive(root, key);
    *ok = 1;
    if (!a && !required) return NULL;
    if (!cJSON_IsArray(a)) {
        loam_error_set(err, LOAM_ERR_INPUT, "%s: \"%s\" must be %san array", name, key, required ? "present and " : "");
        *ok = 0;
    }
    return a;
}

loam_softbody_robot* loam_softbody_robot_parse(const char* text, const char* name, loam_error* err) {
    if (!name) name = "robot";
    if (!text) {
        loam_error_set(err, LOAM_ERR_INPUT, "%s: NULL text", name);
        return NULL;
    }
    cJSON* root = cJSON_Parse(text);
    if (!root || !cJSON_IsObject(root)) {
        const char* at = cJSON_GetErrorPtr();
        int line = 1;
        if (!root && at)
            for (const char* c = text; c < at && *c; ++c) line += *c == '\n';
        loam_error_set(err, LOAM_ERR_INPUT, "%s: line %d: not a JSON object", name, root ? 1 : line);
        cJSON_Delete(root);
        return NULL;
    }
    int ok1, ok2, ok3;
    const cJSON* jm = array_of(root, "masses", 1, name, err, &ok1);
    const cJSON* js = ok1 ? array_of(root, "springs", 1, name, err, &ok2) : NULL;
    const cJSON* jf = ok1 && ok2 ? array_of(root, "faces", 0, name, err, &ok3) : NULL;
    loam_softbody_robot* r = NULL;
    if (!ok1 || !ok2 || !ok3) goto fail;
    int nm = cJSON_GetArraySize(jm), ns = cJSON_GetArraySize(js), nf = jf ? cJSON_GetArraySize(jf) : 0;
    if (nm > LOAM_SB_MAX_MASSES) {
        loam_error_set(err, LOAM_ERR_INPUT, "%s: %d masses; a robot holds at most %d", name, nm, LOAM_SB_MAX_MASSES);
        goto fail;
    }
    r = loam_softbody_robot_alloc(nm, ns, nf, err);
    if (!r) goto fail;
    double v[4];
    int i = 0;
    const cJSON* e;
    cJSON_ArrayForEach(e, jm) {
        int n = read_row(e, v, 3, 4, name, "masses", i, err);
        if (n < 0) goto fail;
        if (n == 4 && !(v[3] >= 0.0)) {
            loam_error_set(err, LOAM_ERR_INPUT, "%s: masses[%d]: mass %g kg must be >= 0 (0 = fixed)", name, i, v[3]);
            goto fail;
        }
        r->x[i] = (float)v[0], r->y[i] = (float)v[1], r->z[i] = (float)v[2];
        r->inv_mass[i] = n == 4 ? (v[3] > 0.0 ? (float)(1.0 / v[3]) : 0.0f) : 1.0f;
        ++i;
    }
    i = 0;
    cJSON_ArrayForEach(e, js) {
        int n = read_row(e, v, 3, 4, name, "springs", i, err);
        if (n < 0) goto fail;
        int32_t mat;
        if (!as_index(v[0], &r->s0[i]) || !as_index(v[1], &r->s1[i]) || r->s0[i] >= nm || r->s1[i] >= nm) {
            loam_error_set(err, LOAM_ERR_INPUT, "%s: springs[%d]: masses %g and %g; the file has masses 0..%d", name, i,
                           v[0], v[1], nm - 1);
            goto fail;
        }
        if (!as_index(v[2], &mat) || mat < 1 || mat >= LOAM_SB_MATERIAL_COUNT) {
            loam_error_set(err, LOAM_ERR_INPUT, "%s: springs[%d]: material %g must be an integer 1..%d (0 is air: leave "
                           "the spring out)", name, i, v[2], LOAM_SB_MATERIAL_COUNT - 1);
            goto fail;
        }
        r->material[i] = (uint8_t)mat;
        int a = r->s0[i], b = r->s1[i];
        double dx = r->x[b] - r->x[a], dy = r->y[b] - r->y[a], dz = r->z[b] - r->z[a];
        r->rest[i] = n == 4 ? (float)v[3] : (float)sqrt(dx * dx + dy * dy + dz * dz);
        ++i;
    }
    i = 0;
    if (jf) cJSON_ArrayForEach(e, jf) {
        int n = read_row(e, v, 3, 3, name, "faces", i, err);
        if (n < 0) goto fail;
        for (int k = 0; k < 3; ++k)
            if (!as_index(v[k], &r->face[3 * i + k]) || r->face[3 * i + k] >= nm) {
                loam_error_set(err, LOAM_ERR_INPUT, "%s: faces[%d]: mass %g; the file has masses 0..%d", name, i, v[k],
                               nm - 1);
                goto fail;
            }
        ++i;
    }
    loam_error local;
    if (loam_softbody_robot_validate(r, LOAM_SB_MAX_MASSES, &local)) {
        /* Messages name elements by index, which are the file's array indices. */
        loam_error_set(err, local.status, "%s: %s", name, local.message + strlen("softbody robot: "));
        goto fail;
    }
    cJSON_Delete(root);
    return r;
fail:
    cJSON_Delete(root);
    loam_softbody_robot_destroy(r);
    return NULL;
}

loam_softbody_robot* loam_softbody_robot_load(const char* path, loam_error* err) {
    if (!path) {
        loam_error_set(err, LOAM_ERR_INPUT, "robot file: NULL path");
        return NULL;
    }
    unsigned char* data = NULL;
    size_t len = 0;
    if (loam_read_file(path, ROBOT_FILE_MAX, "robot", &data, &len, err)) return NULL;
    loam_softbody_robot* r = loam_softbody_robot_parse((const char*)data, path, err);
    loam_free(data);
    return r;
}

loam_status loam_softbody_robot_save(const loam_softbody_robot* r, const char* path, loam_error* err) {
    loam_status st = loam_softbody_robot_validate(r, LOAM_SB_MAX_MASSES, err);
    if (st) return st;
    if (!path) return loam_error_set(err, LOAM_ERR_INPUT, "robot file: NULL path");
    loam_atomic_file f;
    if ((st = loam_atomic_open(&f, path, err))) return st;
    /* %.9g round-trips a float exactly, so a saved robot replays bit for bit. */
    fprintf(f.fp, "{\"masses\": [");
    for (int i = 0; i < r->mass_count; ++i) {
        fprintf(f.fp, "%s\n  [%.9g, %.9g, %.9g", i ? "," : "", (double)r->x[i], (double)r->y[i], (double)r->z[i]);
        if (r->inv_mass[i] != 1.0f) fprintf(f.fp, ", %.9g", r->inv_mass[i] > 0.0f ? 1.0 / (double)r->inv_mass[i] : 0.0);
        fputc(']', f.fp);
    }
    fprintf(f.fp, "],\n\"springs\": [");
    for (int s = 0; s < r->spring_count; ++s)
        fprintf(f.fp, "%s\n  [%d, %d, %d, %.9g]", s ? "," : "", (int)r->s0[s], (int)r->s1[s], (int)r->material[s],
                (double)r->rest[s]);
    fprintf(f.fp, "],\n\"faces\": [");
    for (int k = 0; k < r->face_count; ++k)
        fprintf(f.fp, "%s\n  [%d, %d, %d]", k ? "," : "", (int)r->face[3 * k], (int)r->face[3 * k + 1],
                (int)r->face[3 * k + 2]);
    fprintf(f.fp, "]}\n");
    return loam_atomic_commit(&f, err);
}
