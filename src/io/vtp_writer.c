/* VTK XML PolyData frames (file format "VTK XML Formats", version 1.0, header_type UInt64) with every
 * array in one appended raw block: binary keeps frames of millions of particles small and quick to
 * write, and raw (not base64) lets each array stream straight from the caller's memory. */
#include "loam/io.h"
#include "loam/output.h"

#include <math.h>
#include <string.h>

enum { CHUNK = 1024, NAME_MAX_LEN = 63 };

/* What feeds one appended block; the XML header and the data pass walk the same list. */
typedef enum block_kind {
    BLK_XYZ,     /* three float arrays interleaved */
    BLK_SPEED,   /* |(a, b, c)| per particle */
    BLK_FLOAT,   /* one float array as is */
    BLK_INT,     /* one int32 array as is */
    BLK_IOTA,    /* first, first + 1, ... */
    BLK_ZERO,    /* int32 zeros */
    BLK_TIME     /* the single Float64 TimeValue */
} block_kind;

typedef struct block {
    const char* name;
    const char* type; /* VTK type name */
    int comps;
    block_kind kind;
    const float *a, *b, *c;
    const int32_t* ints;
    int first;
} block;

static const char* const builtin_names[] = {"velocity", "speed", "radius", "id", "contacts"};

/* Block order: field data, point data (built-in, then extras), points, verts. */
static int block_count(const loam_vtp_particles* p) { return 9 + p->extra_count; }

static block block_at(const loam_vtp_particles* p, int i) {
    block b = {0};
    b.comps = 1;
    b.type = "Float32";
    int extra = i - 6;
    if (i == 0) {
        b.name = "TimeValue", b.type = "Float64", b.kind = BLK_TIME;
    } else if (i == 1) {
        b.name = "velocity", b.comps = 3, b.kind = BLK_XYZ, b.a = p->vx, b.b = p->vy, b.c = p->vz;
    } else if (i == 2) {
        b.name = "speed", b.kind = BLK_SPEED, b.a = p->vx, b.b = p->vy, b.c = p->vz;
    } else if (i == 3) {
        b.name = "radius", b.kind = BLK_FLOAT, b.a = p->radius;
    } else if (i == 4) {
        b.name = "id", b.type = "Int32", b.kind = p->id ? BLK_INT : BLK_IOTA, b.ints = p->id;
    } else if (i == 5) {
        b.name = "contacts", b.type = "Int32", b.kind = p->contacts ? BLK_INT : BLK_ZERO;
        b.ints = p->contacts;
    } else if (extra < p->extra_count) {
        b.name = p->extra[extra].name, b.kind = BLK_FLOAT, b.a = p->extra[extra].values;
    } else if (extra == p->extra_count) {
        b.name = "Points", b.comps = 3, b.kind = BLK_XYZ, b.a = p->x, b.b = p->y, b.c = p->z;
    } else if (extra == p->extra_count + 1) {
        b.name = "connectivity", b.type = "Int32", b.kind = BLK_IOTA;
    } else {
        /* Verts offsets are the end of each cell's connectivity: 1, 2, ..., n. */
        b.name = "offsets", b.type = "Int32", b.kind = BLK_IOTA, b.first = 1;
    }
    return b;
}

static uint64_t block_bytes(const block* b, int n) {
    return b->kind == BLK_TIME ? 8u : (uint64_t)n * (uint64_t)b->comps * 4u;
}

static loam_status check_finite(const char* path, const float* v, int n, const char* field,
                                loam_error* err) {
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i]))
            return loam_error_set(err, LOAM_ERR_INPUT, "%s: particle %d: %s is %g, not finite", path,
                                  i, field, (double)v[i]);
    return LOAM_OK;
}

static loam_status check_name(const char* path, const loam_vtp_particles* p, int k,
                              loam_error* err) {
    const char* name = p->extra[k].name;
    if (!name || !p->extra[k].values)
        return loam_error_set(err, LOAM_ERR_INPUT, "%s: extra field %d has a NULL name or values",
                              path, k);
    size_t len = strlen(name);
    /* The name goes into an XML attribute unescaped, so only characters that need no escaping. */
    if (len == 0 || len > NAME_MAX_LEN || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                                                       "QRSTUVWXYZ0123456789_.-") != len)
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "%s: extra field %d name \"%.80s\" must be 1..%d of [A-Za-z0-9_.-]",
                              path, k, name, NAME_MAX_LEN);
    for (size_t j = 0; j < sizeof builtin_names / sizeof builtin_names[0]; ++j)
        if (strcmp(name, builtin_names[j]) == 0)
            return loam_error_set(err, LOAM_ERR_INPUT, "%s: extra field \"%s\" is a built-in array",
                                  path, name);
    for (int j = 0; j < k; ++j)
        if (strcmp(name, p->extra[j].name) == 0)
            return loam_error_set(err, LOAM_ERR_INPUT, "%s: extra field \"%s\" appears twice", path,
                                  name);
    return LOAM_OK;
}

/* Everything is checked before the file is opened, so bad input never creates a file. */
static loam_status validate(const char* path, const loam_vtp_particles* p, loam_error* err) {
    if (!p) return loam_error_set(err, LOAM_ERR_INPUT, "%s: particles is NULL", path);
    if (p->count < 0) return loam_error_set(err, LOAM_ERR_INPUT, "%s: count is %d", path, p->count);
    int extras = p->extra_count;
    if (extras < 0 || extras > LOAM_VTP_MAX_EXTRA || (extras > 0 && !p->extra))
        return loam_error_set(err, LOAM_ERR_INPUT, "%s: extra_count is %d (0..%d) with extra %s",
                              path, p->extra_count, LOAM_VTP_MAX_EXTRA, p->extra ? "set" : "NULL");
    if (!isfinite(p->time))
        return loam_error_set(err, LOAM_ERR_INPUT, "%s: time is %g, not finite", path, p->time);
    const float* arrays[] = {p->x, p->y, p->z, p->vx, p->vy, p->vz, p->radius};
    const char* names[] = {"x", "y", "z", "vx", "vy", "vz", "radius"};
    for (int k = 0; k < 7; ++k) {
        if (!arrays[k] && p->count > 0)
            return loam_error_set(err, LOAM_ERR_INPUT, "%s: array %s is NULL", path, names[k]);
        loam_status s = check_finite(path, arrays[k], p->count, names[k], err);
        if (s != LOAM_OK) return s;
    }
    for (int k = 0; k < p->extra_count; ++k) {
        loam_status s = check_name(path, p, k, err);
        if (s == LOAM_OK) s = check_finite(path, p->extra[k].values, p->count, p->extra[k].name, err);
        if (s != LOAM_OK) return s;
    }
    return LOAM_OK;
}

static const char* host_byte_order(void) {
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first ? "LittleEndian" : "BigEndian";
}

static void write_array_tag(FILE* fp, const block* b, uint64_t offset, const char* indent) {
    fprintf(fp, "%s<DataArray type=\"%s\" Name=\"%s\"", indent, b->type, b->name);
    if (b->comps != 1) fprintf(fp, " NumberOfComponents=\"%d\"", b->comps);
    if (b->kind == BLK_TIME) fprintf(fp, " NumberOfTuples=\"1\"");
    fprintf(fp, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)offset);
}

static void write_header(FILE* fp, const loam_vtp_particles* p) {
    int n = p->count, count = block_count(p);
    uint64_t offset = 0;
    fprintf(fp, "<?xml version=\"1.0\"?>\n"
                "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
                "  <PolyData>\n    <FieldData>\n", host_byte_order());
    for (int i = 0; i < count; ++i) {
        block b = block_at(p, i);
        if (i == 1)
            fprintf(fp, "    </FieldData>\n"
                        "    <Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" NumberOfLines=\"0\""
                        " NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
                        "      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n", n, n);
        if (i == count - 3) fprintf(fp, "      </PointData>\n      <Points>\n");
        if (i == count - 2) fprintf(fp, "      </Points>\n      <Verts>\n");
        write_array_tag(fp, &b, offset, i == 0 ? "      " : "        ");
        offset += 8 + block_bytes(&b, n);
    }
    fprintf(fp, "      </Verts>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _");
}

static void write_block(FILE* fp, const block* b, const loam_vtp_particles* p) {
    float fbuf[3 * CHUNK];
    int32_t ibuf[CHUNK];
    int n = p->count;
    uint64_t bytes = block_bytes(b, n);
    fwrite(&bytes, sizeof bytes, 1, fp);
    if (b->kind == BLK_TIME) {
        fwrite(&p->time, sizeof p->time, 1, fp);
        return;
    }
    if (b->kind == BLK_FLOAT || b->kind == BLK_INT) {
        const void* data = b->kind == BLK_FLOAT ? (const void*)b->a : (const void*)b->ints;
        if (n > 0) fwrite(data, 4, (size_t)n, fp);
        return;
    }
    for (int start = 0; start < n; start += CHUNK) {
        int m = n - start < CHUNK ? n - start : CHUNK;
        for (int j = 0; j < m; ++j) {
            int i = start + j;
            if (b->kind == BLK_XYZ) {
                fbuf[3 * j] = b->a[i], fbuf[3 * j + 1] = b->b[i], fbuf[3 * j + 2] = b->c[i];
            } else if (b->kind == BLK_SPEED) {
                double vx = b->a[i], vy = b->b[i], vz = b->c[i];
                fbuf[j] = (float)sqrt(vx * vx + vy * vy + vz * vz);
            } else {
                ibuf[j] = b->kind == BLK_ZERO ? 0 : (int32_t)(b->first + i);
            }
        }
        if (b->kind == BLK_XYZ) fwrite(fbuf, sizeof(float), 3 * (size_t)m, fp);
        else if (b->kind == BLK_SPEED) fwrite(fbuf, sizeof(float), (size_t)m, fp);
        else fwrite(ibuf, sizeof(int32_t), (size_t)m, fp);
    }
}

loam_status loam_vtp_write(const char* path, const loam_vtp_particles* particles, loam_error* err) {
    if (!path) return loam_error_set(err, LOAM_ERR_INPUT, "vtp: path is NULL");
    loam_status s = validate(path, particles, err);
    if (s != LOAM_OK) return s;
    loam_atomic_file f;
    s = loam_atomic_open(&f, path, err);
    if (s != LOAM_OK) return s;
    write_header(f.fp, particles);
    int count = block_count(particles);
    for (int i = 0; i < count; ++i) {
        block b = block_at(particles, i);
        write_block(f.fp, &b, particles);
    }
    fputs("\n  </AppendedData>\n</VTKFile>\n", f.fp);
    /* fwrite errors are sticky in ferror(), which commit checks before renaming. */
    return loam_atomic_commit(&f, err);
}
