/* A body's surface at one instant as VTK XML PolyData (triangle polys), in the same appended raw
 * binary layout as the particle frames (vtp_writer.c), so one reader setting serves both. */
#include <math.h>
#include <string.h>

#include "loam/io.h"
#include "loam/output.h"

enum { CHUNK = 1024 };

static const char* byte_order(void) {
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first ? "LittleEndian" : "BigEndian";
}

static loam_status validate(const char* path, const loam_mesh* m, loam_pose pose, double time, loam_error* err) {
    if (!m) return loam_error_set(err, LOAM_ERR_INPUT, "%s: surface is NULL", path);
    if (m->vertex_count < 0 || m->triangle_count < 0 || (m->vertex_count > 0 && !m->vertices) ||
        (m->triangle_count > 0 && !m->triangles))
        return loam_error_set(err, LOAM_ERR_INPUT, "%s: %d vertices and %d triangles with missing arrays", path,
                              m->vertex_count, m->triangle_count);
    if (m->triangle_count > INT32_MAX / 3)
        return loam_error_set(err, LOAM_ERR_INPUT, "%s: %d triangles is too many", path, m->triangle_count);
    double q[7] = {pose.p.x, pose.p.y, pose.p.z, pose.q.w, pose.q.x, pose.q.y, pose.q.z};
    for (int k = 0; k < 7; ++k)
        if (!isfinite(q[k])) return loam_error_set(err, LOAM_ERR_INPUT, "%s: pose component %d is %g", path, k, q[k]);
    if (!isfinite(time)) return loam_error_set(err, LOAM_ERR_INPUT, "%s: time is %g, not finite", path, time);
    for (size_t i = 0; i < 3 * (size_t)m->vertex_count; ++i)
        if (!isfinite(m->vertices[i]))
            return loam_error_set(err, LOAM_ERR_INPUT, "%s: vertex %zu: coordinate is %g", path, i / 3, (double)m->vertices[i]);
    for (size_t i = 0; i < 3 * (size_t)m->triangle_count; ++i)
        if (m->triangles[i] < 0 || m->triangles[i] >= m->vertex_count)
            return loam_error_set(err, LOAM_ERR_INPUT, "%s: triangle %zu: vertex %d is not in 0..%d", path, i / 3,
                                  (int)m->triangles[i], m->vertex_count - 1);
    return LOAM_OK;
}

static void write_tag(FILE* fp, const char* type, const char* name, int comps, int tuples, uint64_t* offset,
                      uint64_t bytes) {
    fprintf(fp, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\"", type, name, comps);
    if (tuples) fprintf(fp, " NumberOfTuples=\"%d\"", tuples);
    fprintf(fp, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)*offset);
    *offset += 8 + bytes;
}

static void write_block(FILE* fp, const void* data, uint64_t bytes) {
    fwrite(&bytes, sizeof bytes, 1, fp);
    if (bytes) fwrite(data, 1, (size_t)bytes, fp);
}

loam_status loam_vtp_write_surface(const char* path, const loam_mesh* m, loam_pose pose, double time, loam_error* err) {
    if (!path) return loam_error_set(err, LOAM_ERR_INPUT, "vtp: path is NULL");
    loam_status st = validate(path, m, pose, time, err);
    if (st != LOAM_OK) return st;
    uint64_t nv = (uint64_t)m->vertex_count, nt = (uint64_t)m->triangle_count;
    double position[3] = {pose.p.x, pose.p.y, pose.p.z};
    double orientation[4] = {pose.q.w, pose.q.x, pose.q.y, pose.q.z};
    loam_atomic_file f;
    st = loam_atomic_open(&f, path, err);
    if (st != LOAM_OK) return st;
    FILE* fp = f.fp;
    uint64_t offset = 0;
    fprintf(fp, "<?xml version=\"1.0\"?>\n"
                "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
                "  <PolyData>\n    <FieldData>\n", byte_order());
    write_tag(fp, "Float64", "TimeValue", 1, 1, &offset, 8);
    write_tag(fp, "Float64", "position", 3, 1, &offset, sizeof position);
    write_tag(fp, "Float64", "orientation", 4, 1, &offset, sizeof orientation);
    fprintf(fp, "    </FieldData>\n"
                "    <Piece NumberOfPoints=\"%d\" NumberOfVerts=\"0\" NumberOfLines=\"0\" NumberOfStrips=\"0\""
                " NumberOfPolys=\"%d\">\n      <Points>\n", m->vertex_count, m->triangle_count);
    write_tag(fp, "Float32", "Points", 3, 0, &offset, 12 * nv);
    fprintf(fp, "      </Points>\n      <Polys>\n");
    write_tag(fp, "Int32", "connectivity", 1, 0, &offset, 12 * nt);
    write_tag(fp, "Int32", "offsets", 1, 0, &offset, 4 * nt);
    fprintf(fp, "      </Polys>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _");
    write_block(fp, &time, 8);
    write_block(fp, position, sizeof position);
    write_block(fp, orientation, sizeof orientation);
    /* Points move with the body: world = pose applied to the body-frame vertex, in chunks. */
    float buf[3 * CHUNK];
    int32_t ibuf[CHUNK];
    uint64_t bytes = 12 * nv;
    fwrite(&bytes, sizeof bytes, 1, fp);
    for (int start = 0; start < m->vertex_count; start += CHUNK) {
        int n = m->vertex_count - start < CHUNK ? m->vertex_count - start : CHUNK;
        for (int j = 0; j < n; ++j) {
            const float* v = &m->vertices[3 * (size_t)(start + j)];
            loam_vec3 w = loam_pose_apply(pose, (loam_vec3){v[0], v[1], v[2]});
            buf[3 * j] = w.x, buf[3 * j + 1] = w.y, buf[3 * j + 2] = w.z;
        }
        fwrite(buf, sizeof(float), 3 * (size_t)n, fp);
    }
    write_block(fp, m->triangles, 12 * nt);
    bytes = 4 * nt;
    fwrite(&bytes, sizeof bytes, 1, fp);
    for (int start = 0; start < m->triangle_count; start += CHUNK) {
        int n = m->triangle_count - start < CHUNK ? m->triangle_count - start : CHUNK;
        for (int j = 0; j < n; ++j) ibuf[j] = 3 * (start + j + 1); /* each triangle's end in connectivity */
        fwrite(ibuf, sizeof(int32_t), (size_t)n, fp);
    }
    fprintf(fp, "\n  </AppendedData>\n</VTKFile>\n");
    return loam_atomic_commit(&f, err);
}
