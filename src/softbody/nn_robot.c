/* Network-generated robots (paper 002, III-B): Gaussian points through a small random MLP give mass
 * positions (normalised into a sphere) and materials (arg-max of the material logits); qhull's
 * Delaunay tetrahedralisation, thinned to an alpha shape (tetrahedra whose circumsphere is smaller
 * than alpha), gives the interior springs (tetrahedron edges) and the surface (faces of exactly one
 * kept tetrahedron). Springs shorter than min_spring are rejected and counted, as are masses and
 * faces left without springs: nothing disappears unreported. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "core/vec.h"
#include "loam/softbody.h"

loam_softbody_nn_def loam_softbody_nn_default_def(void) {
    loam_softbody_nn_def d;
    d.points = 200;
    d.hidden = 16;
    d.layers = 2;
    d.radius = 0.05f;
    d.alpha = 0.5f;
    d.min_spring = 1e-3f;
    d.mass = 1.0f;
    d.origin = v3(0.0f, 0.0f, 0.05f);
    return d;
}

#ifndef LOAM_HAVE_QHULL
loam_softbody_robot* loam_softbody_nn_robot(const loam_softbody_nn_def* def, uint64_t seed, loam_softbody_nn_info* info,
                                            loam_error* err) {
    (void)def, (void)seed, (void)info;
    loam_error_set(err, LOAM_ERR_INPUT, "network robots: loam was built without qhull (libqhull-dev)");
    return NULL;
}
#else
#include <libqhull_r/qhull_ra.h>

static double gauss(loam_rng* r) { /* Box-Muller */
    double u = loam_rng_uniform(r), v = loam_rng_uniform(r);
    return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

enum { NN_OUT = 3 + LOAM_SB_BASE_COUNT - 1, NN_MAX_WIDTH = 256 };

/* The random MLP: 3 -> hidden (ReLU) x layers -> 3 positions + 22 material logits. */
static void mlp(const double* w, int hidden, int layers, const double in[3], double out[NN_OUT]) {
    double a[NN_MAX_WIDTH], b[NN_MAX_WIDTH];
    int n_in = 3;
    for (int k = 0; k < 3; ++k) a[k] = in[k];
    for (int l = 0; l <= layers; ++l) {
        int n_out = l == layers ? NN_OUT : hidden;
        for (int o = 0; o < n_out; ++o) {
            double s = *w++; /* bias */
            for (int i = 0; i < n_in; ++i) s += a[i] * *w++;
            b[o] = l == layers ? s : (s > 0.0 ? s : 0.0);
        }
        memcpy(a, b, sizeof(double) * (size_t)n_out);
        n_in = n_out;
    }
    memcpy(out, a, sizeof(double) * NN_OUT);
}

static double circumradius(const double* p, const int v[4]) {
    const double* a = p + 3 * v[0];
    double m[3][3], r[3];
    for (int k = 0; k < 3; ++k) {
        const double* q = p + 3 * v[k + 1];
        double d2 = 0.0;
        for (int c = 0; c < 3; ++c) m[k][c] = q[c] - a[c], d2 += m[k][c] * m[k][c];
        r[k] = 0.5 * d2;
    }
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (!(fabs(det) > 1e-30)) return INFINITY;
    double x[3];
    for (int c = 0; c < 3; ++c) { /* Cramer */
        double t[3][3];
        memcpy(t, m, sizeof t);
        for (int k = 0; k < 3; ++k) t[k][c] = r[k];
        x[c] = (t[0][0] * (t[1][1] * t[2][2] - t[1][2] * t[2][1]) - t[0][1] * (t[1][0] * t[2][2] - t[1][2] * t[2][0]) +
                t[0][2] * (t[1][0] * t[2][1] - t[1][1] * t[2][0])) / det;
    }
    return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
}

static int cmp_u64(const void* a, const void* b) {
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return (x > y) - (x < y);
}

loam_softbody_robot* loam_softbody_nn_robot(const loam_softbody_nn_def* d, uint64_t seed, loam_softbody_nn_info* info,
                                            loam_error* err) {
    if (!d) {
        loam_error_set(err, LOAM_ERR_INPUT, "network robot: NULL definition");
        return NULL;
    }
    if (d->points < 5 || d->points > LOAM_SB_MAX_MASSES || d->hidden < 1 || d->hidden > NN_MAX_WIDTH || d->layers < 0 ||
        d->layers > 16 || !(d->radius > 0.0f) || !isfinite(d->radius) || !(d->alpha > 0.0f) || !(d->min_spring >= 0.0f) ||
        !isfinite(d->min_spring) || !(d->mass > 0.0f) || !isfinite(d->mass) || !v3_is_finite(d->origin)) {
        loam_error_set(err, LOAM_ERR_INPUT, "network robot: points %d (5..%d), hidden %d (1..%d), layers %d (0..16), "
                       "radius %g, alpha %g, mass %g (> 0), min_spring %g (>= 0) or origin out of range", d->points,
                       LOAM_SB_MAX_MASSES, d->hidden, NN_MAX_WIDTH, d->layers, (double)d->radius, (double)d->alpha,
                       (double)d->mass, (double)d->min_spring);
        return NULL;
    }
    loam_softbody_nn_info local = {0, 0, 0, 0, 0};
    int n = d->points;
    size_t nw = (size_t)(d->hidden * 4) + (size_t)d->layers * (size_t)(d->hidden * (d->hidden + 1)) + NN_OUT * (size_t)(d->hidden + 1);
    double* w = loam_malloc(sizeof(double) * nw);
    double* pts = loam_malloc(sizeof(double) * 3 * (size_t)n);
    uint8_t* mat = loam_malloc((size_t)n);
    if (!w || !pts || !mat) goto nomem;
    loam_rng rng = {seed};
    for (size_t k = 0; k < nw; ++k) w[k] = gauss(&rng);
    double centre[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i) {
        double in[3] = {gauss(&rng), gauss(&rng), gauss(&rng)}, out[NN_OUT];
        mlp(w, d->hidden, d->layers, in, out);
        int best = 3;
        for (int k = 4; k < NN_OUT; ++k) best = out[k] > out[best] ? k : best; /* softmax's arg-max */
        mat[i] = (uint8_t)(best - 3 + 1);
        for (int c = 0; c < 3; ++c) pts[3 * i + c] = out[c], centre[c] += out[c] / n;
    }
    double far = 0.0;
    for (int i = 0; i < n; ++i) {
        double r2 = 0.0;
        for (int c = 0; c < 3; ++c) pts[3 * i + c] -= centre[c], r2 += pts[3 * i + c] * pts[3 * i + c];
        far = fmax(far, sqrt(r2));
    }
    double scale = far > 0.0 ? d->radius / far : 0.0; /* into the sphere of the given radius */
    for (int k = 0; k < 3 * n; ++k) pts[k] *= scale;

    /* Delaunay tetrahedra from qhull; messages go to a scratch file we read back on failure. */
    qhT qh_qh;
    qhT* qh = &qh_qh;
    FILE* errf = tmpfile();
    qh_zero(qh, errf);
    char flags[] = "qhull d Qt Qbb Qc Qz";
    int code = qh_new_qhull(qh, 3, n, pts, False, flags, NULL, errf);
    int ntet = 0, *tets = NULL;
    if (!code && !(tets = loam_malloc(sizeof(int) * 4 * (size_t)(qh->num_facets + 1)))) code = -1;
    if (!code) {
        facetT* facet;
        vertexT *vertex, **vertexp;
        FORALLfacets {
            if (facet->upperdelaunay) continue;
            int v[4], k = 0;
            FOREACHvertex_(facet->vertices) if (k < 4) v[k++] = qh_pointid(qh, vertex->point);
            if (k != 4 || circumradius(pts, v) > d->alpha * d->radius) continue;
            memcpy(tets + 4 * ntet++, v, sizeof v);
        }
    }
    int curlong, totlong;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &curlong, &totlong);
    if (code) {
        char msg[200] = "";
        if (errf) {
            rewind(errf);
            if (!fgets(msg, sizeof msg, errf)) msg[0] = '\0';
            msg[strcspn(msg, "\n")] = '\0';
        }
        if (errf) fclose(errf);
        loam_free(w), loam_free(pts), loam_free(mat), loam_free(tets);
        loam_error_set(err, LOAM_ERR_INPUT, "network robot (seed %llu): qhull failed (%d): %s", (unsigned long long)seed,
                       code, msg);
        return NULL;
    }
    if (errf) fclose(errf);
    if (!ntet) {
        loam_free(w), loam_free(pts), loam_free(mat), loam_free(tets);
        loam_error_set(err, LOAM_ERR_INPUT, "network robot (seed %llu): no tetrahedron has a circumradius below alpha "
                       "%g x radius; raise alpha", (unsigned long long)seed, (double)d->alpha);
        return NULL;
    }
    local.tetrahedra = ntet;
    /* Edges (6 per tetrahedron) and faces (4) as sorted keys; a face held by one tetrahedron is surface. */
    uint64_t* edges = loam_malloc(sizeof(uint64_t) * 6 * (size_t)ntet);
    uint64_t* faces = loam_malloc(sizeof(uint64_t) * 4 * (size_t)ntet * 2); /* key, then tet*4+opposite */
    int32_t* newid = loam_malloc(sizeof(int32_t) * (size_t)n);
    if (!edges || !faces || !newid) {
        loam_free(edges), loam_free(faces), loam_free(newid), loam_free(tets);
        goto nomem;
    }
    int ne = 0;
    for (int t = 0; t < ntet; ++t)
        for (int a = 0; a < 4; ++a)
            for (int b = a + 1; b < 4; ++b) {
                uint64_t i = (uint64_t)tets[4 * t + a], j = (uint64_t)tets[4 * t + b];
                edges[ne++] = i < j ? (i << 32 | j) : (j << 32 | i);
            }
    qsort(edges, (size_t)ne, sizeof *edges, cmp_u64);
    int ns = 0;
    for (int e = 0; e < ne; ++e) {
        if (e && edges[e] == edges[e - 1]) continue;
        int i = (int)(edges[e] >> 32), j = (int)(edges[e] & 0xffffffffu);
        double dx = pts[3 * j] - pts[3 * i], dy = pts[3 * j + 1] - pts[3 * i + 1], dz = pts[3 * j + 2] - pts[3 * i + 2];
        if (sqrt(dx * dx + dy * dy + dz * dz) < d->min_spring || !(sqrt(dx * dx + dy * dy + dz * dz) > 0.0)) {
            ++local.rejected_springs;
            continue;
        }
        edges[ns++] = edges[e];
    }
    /* masses with springs, renumbered in point order */
    for (int i = 0; i < n; ++i) newid[i] = -1;
    for (int s = 0; s < ns; ++s) newid[edges[s] >> 32] = 0, newid[edges[s] & 0xffffffffu] = 0;
    int nm = 0;
    for (int i = 0; i < n; ++i)
        if (newid[i] == 0) newid[i] = nm++;
        else ++local.dropped_points;
    /* surface faces: sort (sorted-triple key, tet) pairs; unique keys are boundary */
    int nfk = 0;
    for (int t = 0; t < ntet; ++t)
        for (int o = 0; o < 4; ++o) {
            int v[3], k = 0;
            for (int c = 0; c < 4; ++c)
                if (c != o) v[k++] = tets[4 * t + c];
            for (int x = 0; x < 2; ++x) /* sort three */
                for (int y = 0; y < 2 - x; ++y)
                    if (v[y] > v[y + 1]) {
                        int tmp = v[y];
                        v[y] = v[y + 1], v[y + 1] = tmp;
                    }
            faces[2 * nfk] = (uint64_t)v[0] << 42 | (uint64_t)v[1] << 21 | (uint64_t)v[2];
            faces[2 * nfk + 1] = (uint64_t)(4 * t + o);
            ++nfk;
        }
    qsort(faces, (size_t)nfk, 2 * sizeof *faces, cmp_u64);
    int nf = 0;
    for (int f = 0; f < nfk; ++f) {
        int dup = (f > 0 && faces[2 * f] == faces[2 * (f - 1)]) || (f + 1 < nfk && faces[2 * f] == faces[2 * (f + 1)]);
        if (dup) continue;
        int t = (int)(faces[2 * f + 1] / 4), o = (int)(faces[2 * f + 1] % 4), v[3], k = 0;
        for (int c = 0; c < 4; ++c)
            if (c != o) v[k++] = tets[4 * t + c];
        if (newid[v[0]] < 0 || newid[v[1]] < 0 || newid[v[2]] < 0) {
            ++local.dropped_faces;
            continue;
        }
        faces[2 * nf] = faces[2 * f], faces[2 * nf + 1] = faces[2 * f + 1];
        ++nf;
    }
    loam_softbody_robot* r = nm > 0 ? loam_softbody_robot_alloc(nm, ns, nf, err) : NULL;
    if (!nm) loam_error_set(err, LOAM_ERR_INPUT, "network robot (seed %llu): every spring was shorter than %g m",
                            (unsigned long long)seed, (double)d->min_spring);
    if (r) {
        for (int i = 0; i < n; ++i) {
            if (newid[i] < 0) continue;
            int q = newid[i];
            r->x[q] = (float)pts[3 * i] + d->origin.x;
            r->y[q] = (float)pts[3 * i + 1] + d->origin.y;
            r->z[q] = (float)pts[3 * i + 2] + d->origin.z;
            r->inv_mass[q] = 1.0f / d->mass;
        }
        for (int s = 0; s < ns; ++s) {
            int i = (int)(edges[s] >> 32), j = (int)(edges[s] & 0xffffffffu);
            r->s0[s] = newid[i], r->s1[s] = newid[j];
            float dx = r->x[newid[j]] - r->x[newid[i]], dy = r->y[newid[j]] - r->y[newid[i]];
            float dz = r->z[newid[j]] - r->z[newid[i]];
            r->rest[s] = sqrtf(dx * dx + dy * dy + dz * dz);
            r->material[s] = (uint8_t)loam_softbody_composite_id(mat[i], mat[j]);
        }
        for (int f = 0; f < nf; ++f) {
            int t = (int)(faces[2 * f + 1] / 4), o = (int)(faces[2 * f + 1] % 4), v[3], k = 0;
            for (int c = 0; c < 4; ++c)
                if (c != o) v[k++] = tets[4 * t + c];
            /* outward: the normal points away from the tetrahedron's fourth vertex */
            const double *a = pts + 3 * v[0], *b = pts + 3 * v[1], *c = pts + 3 * v[2], *q = pts + 3 * tets[4 * t + o];
            double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, wv[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            double nrm[3] = {u[1] * wv[2] - u[2] * wv[1], u[2] * wv[0] - u[0] * wv[2], u[0] * wv[1] - u[1] * wv[0]};
            double side = nrm[0] * (q[0] - a[0]) + nrm[1] * (q[1] - a[1]) + nrm[2] * (q[2] - a[2]);
            if (side > 0.0) {
                int tmp = v[1];
                v[1] = v[2], v[2] = tmp;
            }
            for (int e = 0; e < 3; ++e) r->face[3 * f + e] = newid[v[e]];
        }
        /* a rest length rounded to zero in float or a repeated pair would be caught here */
        if (loam_softbody_robot_validate(r, LOAM_SB_MAX_MASSES, err)) {
            loam_softbody_robot_destroy(r);
            r = NULL;
        }
    }
    if (info) *info = local;
    loam_free(w), loam_free(pts), loam_free(mat), loam_free(tets), loam_free(edges), loam_free(faces), loam_free(newid);
    return r;
nomem:
    loam_free(w), loam_free(pts), loam_free(mat);
    loam_error_set(err, LOAM_ERR_NOMEM, "network robot: out of memory");
    return NULL;
}
#endif
