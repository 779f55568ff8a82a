/* URDF collision meshes: where a filename points (package:// URIs resolved as ROS tools do, through
 * a search path), and the mesh turned into what multibody contacts use: a signed distance grid
 * (loam_sdf_grid_build_cached, so a robot loads fast the second time) and a few surface points. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/vecd.h"
#include "multibody/urdf_internal.h"

static int is_file(const char* p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static void add_tried(char* tried, size_t cap, const char* p) {
    size_t n = strlen(tried);
    if (n + 4 < cap) snprintf(tried + n, cap - n, "%s%s", n ? ", " : "", p);
}

/* Try root/rel; 1 and the path in out when it is a file. */
static int try_path(const char* root, size_t root_len, const char* rel, char* out, size_t cap, char* tried, size_t tcap) {
    if (root_len == 0) return 0;
    int n = snprintf(out, cap, "%.*s/%s", (int)root_len, root, rel);
    if (n < 0 || (size_t)n >= cap) return 0;
    if (is_file(out)) return 1;
    add_tried(tried, tcap, out);
    return 0;
}

/* package://NAME/REST in the folders of a ':'-separated list: each folder is a package's parent
 * (folder/NAME/REST) or the package itself (its last component is NAME: folder/REST). */
static int in_list(const char* list, const char* name, size_t nlen, const char* rest, char* out, size_t cap, char* tried, size_t tcap) {
    char rel[1024];
    snprintf(rel, sizeof rel, "%.*s/%s", (int)nlen, name, rest);
    for (const char* p = list; list && *p;) {
        const char* e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len > 1 && p[len - 1] == '/') --len;
        if (try_path(p, len, rel, out, cap, tried, tcap)) return 1;
        if (len >= nlen && strncmp(p + len - nlen, name, nlen) == 0 && (len == nlen || p[len - nlen - 1] == '/') &&
            try_path(p, len, rest, out, cap, tried, tcap))
            return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

int urdf_mesh_resolve(const char* urdf_file, const char* uri, const char* package_path, char* out, size_t cap, char* tried, size_t tcap) {
    tried[0] = 0;
    /* The URDF's folder: its path up to the last '/', or "." */
    const char* slash = urdf_file ? strrchr(urdf_file, '/') : NULL;
    size_t dir_len = slash ? (size_t)(slash - urdf_file) : 1;
    const char* dir = slash ? urdf_file : ".";
    if (slash && dir_len == 0) dir = "/", dir_len = 1;
    if (strncmp(uri, "file://", 7) == 0) uri += 7;
    if (strncmp(uri, "package://", 10) != 0) {
        if (uri[0] == '/') {
            snprintf(out, cap, "%s", uri);
            if (is_file(out)) return 1;
            add_tried(tried, tcap, out);
            return 0;
        }
        return try_path(dir, dir_len, uri, out, cap, tried, tcap);
    }
    const char* name = uri + 10;
    const char* rest = strchr(name, '/');
    if (!rest || rest == name) {
        add_tried(tried, tcap, "(no package name)");
        return 0;
    }
    size_t nlen = (size_t)(rest - name);
    ++rest;
    /* 1. the caller's folders, 2. ROS_PACKAGE_PATH (ROS 1) and AMENT_PREFIX_PATH's share/ (ROS 2),
     * 3. the URDF's own folder and its ancestors (a description shipped with its meshes beside it). */
    if (package_path && in_list(package_path, name, nlen, rest, out, cap, tried, tcap)) return 1;
    if (in_list(getenv("ROS_PACKAGE_PATH"), name, nlen, rest, out, cap, tried, tcap)) return 1;
    const char* ament = getenv("AMENT_PREFIX_PATH");
    if (ament) {
        char share[4096] = "";
        size_t k = 0;
        for (const char* p = ament; *p && k + 8 < sizeof share;) {
            const char* e = strchr(p, ':');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            int w = snprintf(share + k, sizeof share - k, "%s%.*s/share", k ? ":" : "", (int)len, p);
            if (w < 0 || (size_t)w >= sizeof share - k) break;
            k += (size_t)w;
            if (!e) break;
            p = e + 1;
        }
        if (in_list(share, name, nlen, rest, out, cap, tried, tcap)) return 1;
    }
    char anc[4096];
    snprintf(anc, sizeof anc, "%.*s", (int)dir_len, dir);
    for (int depth = 0; depth < 64; ++depth) {
        if (in_list(anc, name, nlen, rest, out, cap, tried, tcap)) return 1;
        char* s = strrchr(anc, '/');
        if (!s) {
            /* a relative folder: go on from its parent's view, then stop */
            if (strcmp(anc, ".") == 0 || strcmp(anc, "..") == 0) break;
            snprintf(anc, sizeof anc, ".");
            continue;
        }
        if (s == anc) {
            if (anc[1] == 0) break;
            anc[1] = 0;
        } else {
            *s = 0;
        }
    }
    return 0;
}

static int has_ext(const char* path, const char* ext) {
    size_t n = strlen(path), e = strlen(ext);
    if (n < e) return 0;
    for (size_t k = 0; k < e; ++k)
        if (tolower((unsigned char)path[n - e + k]) != ext[k]) return 0;
    return 1;
}

/* Up to URDF_MESH_POINTS of the vertices: the six extremes along the axes (a mesh resting on a
 * face must not sink to the next kept vertex), then every k-th. */
static int thin_points(const loam_mesh* m, float* out) {
    int n = m->vertex_count;
    if (n <= URDF_MESH_POINTS) {
        memcpy(out, m->vertices, sizeof(float) * 3 * (size_t)n);
        return n;
    }
    int np = 0;
    for (int a = 0; a < 3; ++a) {
        int lo = 0, hi = 0;
        for (int v = 1; v < n; ++v) {
            if (m->vertices[3 * v + a] < m->vertices[3 * lo + a]) lo = v;
            if (m->vertices[3 * v + a] > m->vertices[3 * hi + a]) hi = v;
        }
        memcpy(out + 3 * np++, m->vertices + 3 * lo, sizeof(float) * 3);
        memcpy(out + 3 * np++, m->vertices + 3 * hi, sizeof(float) * 3);
    }
    int room = URDF_MESH_POINTS - np;
    for (int k = 0; k < room; ++k) {
        int v = (int)((long long)k * n / room);
        memcpy(out + 3 * np++, m->vertices + 3 * v, sizeof(float) * 3);
    }
    return np;
}

loam_status urdf_mesh_build(urdf_meshes* set, const char* path, loam_vec3d scale, double cell, int grids, loam_mb_geom_def* g, loam_error* err) {
    for (int i = 0; i < set->n; ++i)
        if (strcmp(set->path[i], path) == 0 && set->scale[i].x == scale.x && set->scale[i].y == scale.y && set->scale[i].z == scale.z) {
            g->shape.grid = set->block[i]->values ? set->block[i] : NULL;
            g->points = (const float*)(set->block[i] + 1);
            g->npoints = set->npoints[i];
            return LOAM_OK;
        }
    if (!has_ext(path, ".obj") && !has_ext(path, ".stl")) {
        const char* dot = strrchr(path, '.');
        return loam_error_set(err, LOAM_ERR_INPUT, "'%s' is a %s file: loam reads OBJ and STL meshes (convert it, e.g. with "
                              "`assimp export IN.dae OUT.stl` or `meshlab`)", path, dot && !strchr(dot, '/') ? dot : "extension-less");
    }
    if (!(scale.x != 0.0 && scale.y != 0.0 && scale.z != 0.0 && d3_is_finite(scale)))
        return loam_error_set(err, LOAM_ERR_INPUT, "scale (%g, %g, %g) has a zero or non-finite factor", scale.x, scale.y, scale.z);
    loam_mesh mesh;
    loam_error inner;
    loam_status st = loam_mesh_load(path, &mesh, &inner);
    if (st != LOAM_OK) return loam_error_set(err, st, "%s", inner.message);
    for (int v = 0; v < mesh.vertex_count; ++v) {
        mesh.vertices[3 * v] = (float)(mesh.vertices[3 * v] * scale.x);
        mesh.vertices[3 * v + 1] = (float)(mesh.vertices[3 * v + 1] * scale.y);
        mesh.vertices[3 * v + 2] = (float)(mesh.vertices[3 * v + 2] * scale.z);
    }
    if (scale.x * scale.y * scale.z < 0.0) /* a mirror turns the triangles inside out: turn them back */
        for (int t = 0; t < mesh.triangle_count; ++t) {
            int32_t a = mesh.triangles[3 * t + 1];
            mesh.triangles[3 * t + 1] = mesh.triangles[3 * t + 2];
            mesh.triangles[3 * t + 2] = a;
        }
    loam_vec3 lo, hi;
    loam_mesh_bounds(&mesh, &lo, &hi);
    float side = fmaxf(hi.x - lo.x, fmaxf(hi.y - lo.y, hi.z - lo.z));
    float c = cell > 0.0 ? (float)cell : side / 24.0f;
    if (!(c > 0.0f) || !isfinite(c)) {
        loam_mesh_destroy(&mesh);
        return loam_error_set(err, LOAM_ERR_INPUT, "'%s': the mesh has no extent (all its vertices coincide)", path);
    }
    if (c < side / 256.0f) c = side / 256.0f; /* at most about 260^3 samples, whatever the option */
    size_t bytes = sizeof(loam_sdf_grid) + sizeof(float) * 3 * URDF_MESH_POINTS;
    loam_sdf_grid* block = loam_calloc(1, bytes);
    if (set->n == set->cap) {
        int cap = set->cap ? 2 * set->cap : 8;
        loam_sdf_grid** b = loam_realloc(set->block, sizeof *b * (size_t)cap);
        if (b) set->block = b;
        char** p = loam_realloc(set->path, sizeof *p * (size_t)cap);
        if (p) set->path = p;
        loam_vec3d* s = loam_realloc(set->scale, sizeof *s * (size_t)cap);
        if (s) set->scale = s;
        int* np = loam_realloc(set->npoints, sizeof *np * (size_t)cap);
        if (np) set->npoints = np;
        if (b && p && s && np) set->cap = cap;
    }
    char* pcopy = loam_malloc(strlen(path) + 1);
    if (!block || set->n == set->cap || !pcopy) {
        loam_free(block);
        loam_free(pcopy);
        loam_mesh_destroy(&mesh);
        return loam_error_set(err, LOAM_ERR_NOMEM, "'%s': out of memory", path);
    }
    strcpy(pcopy, path);
    char cache[1024];
    loam_sdf_cache_dir(cache, sizeof cache);
    int from_cache = 0;
    st = grids ? loam_sdf_grid_build_cached(&mesh, c, 3.0f * c, cache[0] ? cache : NULL, block, &from_cache, &inner) : LOAM_OK;
    int np = st == LOAM_OK ? thin_points(&mesh, (float*)(block + 1)) : 0;
    loam_mesh_destroy(&mesh);
    if (st != LOAM_OK) {
        loam_free(block);
        loam_free(pcopy);
        return loam_error_set(err, st, "%s", inner.message);
    }
    set->block[set->n] = block;
    set->path[set->n] = pcopy;
    set->scale[set->n] = scale;
    set->npoints[set->n] = np;
    set->n++;
    g->shape.grid = grids ? block : NULL;
    g->points = (const float*)(block + 1);
    g->npoints = np;
    return LOAM_OK;
}

static void free_names(urdf_meshes* set) {
    for (int i = 0; i < set->n; ++i) loam_free(set->path[i]);
    loam_free(set->path);
    loam_free(set->scale);
    loam_free(set->npoints);
    set->path = NULL, set->scale = NULL, set->npoints = NULL;
}

loam_status urdf_meshes_give(urdf_meshes* set, loam_mb_model* m, loam_error* err) {
    if (set->n > 0) {
        m->owned_sdf = loam_malloc(sizeof *m->owned_sdf * (size_t)set->n);
        if (!m->owned_sdf) return loam_error_set(err, LOAM_ERR_NOMEM, "urdf: out of memory");
        memcpy(m->owned_sdf, set->block, sizeof *m->owned_sdf * (size_t)set->n);
        m->nowned_sdf = set->n;
    }
    free_names(set);
    loam_free(set->block);
    memset(set, 0, sizeof *set);
    return LOAM_OK;
}

void urdf_meshes_free(urdf_meshes* set) {
    for (int i = 0; i < set->n; ++i) {
        loam_sdf_grid_destroy(set->block[i]);
        loam_free(set->block[i]);
    }
    free_names(set);
    loam_free(set->block);
    memset(set, 0, sizeof *set);
}
