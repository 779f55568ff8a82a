/* See mesh_bvh.h. */
#include "geom/mesh_bvh.h"

#include <math.h>
#include <string.h>

enum { LEAF_SIZE = 4, STACK = 128 };

static const double FOUR_PI = 12.566370614359172;

static void corner(const loam_mesh* m, int t, int c, double out[3]) {
    const float* v = &m->vertices[3 * (size_t)m->triangles[3 * (size_t)t + c]];
    out[0] = v[0];
    out[1] = v[1];
    out[2] = v[2];
}

/* The corners of the q-th triangle in leaf order. */
static void leaf_triangle(const loam_bvh* b, int q, double a[3], double bb[3], double c[3]) {
    corner(b->mesh, b->order[q], 0, a);
    corner(b->mesh, b->order[q], 1, bb);
    corner(b->mesh, b->order[q], 2, c);
}

static double centroid_axis(const loam_mesh* m, int t, int axis) {
    double s = 0.0;
    for (int c = 0; c < 3; ++c) s += m->vertices[3 * (size_t)m->triangles[3 * (size_t)t + c] + axis];
    return s / 3.0;
}

/* Fill node k's bounds and dipole from its triangles. */
static void summarize(loam_bvh* b, int k) {
    loam_bvh_node* nd = &b->nodes[k];
    double area = 0.0;
    for (int a = 0; a < 3; ++a) {
        nd->lo[a] = INFINITY;
        nd->hi[a] = -INFINITY;
        nd->centre[a] = nd->normal[a] = 0.0;
    }
    double plain[3] = {0, 0, 0};
    for (int q = nd->first; q < nd->first + nd->count; ++q) {
        double p[3][3];
        for (int c = 0; c < 3; ++c) corner(b->mesh, b->order[q], c, p[c]);
        double e1[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
        double e2[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
        double n[3] = {0.5 * (e1[1] * e2[2] - e1[2] * e2[1]), 0.5 * (e1[2] * e2[0] - e1[0] * e2[2]),
                       0.5 * (e1[0] * e2[1] - e1[1] * e2[0])}; /* area times unit normal */
        double a = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        area += a;
        for (int ax = 0; ax < 3; ++ax) {
            nd->normal[ax] += n[ax];
            double c = (p[0][ax] + p[1][ax] + p[2][ax]) / 3.0;
            nd->centre[ax] += a * c;
            plain[ax] += c;
            for (int c3 = 0; c3 < 3; ++c3) {
                nd->lo[ax] = fmin(nd->lo[ax], p[c3][ax]);
                nd->hi[ax] = fmax(nd->hi[ax], p[c3][ax]);
            }
        }
    }
    for (int ax = 0; ax < 3; ++ax) nd->centre[ax] = area > 0.0 ? nd->centre[ax] / area : plain[ax] / nd->count;
    nd->radius = 0.0;
    for (int q = nd->first; q < nd->first + nd->count; ++q)
        for (int c = 0; c < 3; ++c) {
            double p[3];
            corner(b->mesh, b->order[q], c, p);
            double dx = p[0] - nd->centre[0], dy = p[1] - nd->centre[1], dz = p[2] - nd->centre[2];
            nd->radius = fmax(nd->radius, sqrt(dx * dx + dy * dy + dz * dz));
        }
}

/* Split node k at the median centroid along its longest axis (a partial selection sort would do;
 * nth-element by repeated partition keeps it O(n log n) overall). */
static void split(loam_bvh* b, int k) {
    loam_bvh_node* nd = &b->nodes[k];
    int axis = 0;
    for (int a = 1; a < 3; ++a)
        if (nd->hi[a] - nd->lo[a] > nd->hi[axis] - nd->lo[axis]) axis = a;
    int lo = nd->first, hi = nd->first + nd->count - 1, mid = nd->first + nd->count / 2;
    int32_t* o = b->order;
    while (lo < hi) { /* quickselect on the centroid coordinate */
        double pivot = centroid_axis(b->mesh, o[(lo + hi) / 2], axis);
        int i = lo, j = hi;
        while (i <= j) {
            while (centroid_axis(b->mesh, o[i], axis) < pivot) ++i;
            while (centroid_axis(b->mesh, o[j], axis) > pivot) --j;
            if (i <= j) {
                int32_t t = o[i];
                o[i++] = o[j];
                o[j--] = t;
            }
        }
        if (mid <= j) hi = j;
        else if (mid >= i) lo = i;
        else break;
    }
}

loam_status loam_bvh_build(const loam_mesh* mesh, loam_bvh* b, loam_error* err) {
    memset(b, 0, sizeof *b);
    int n = mesh->triangle_count;
    b->mesh = mesh;
    b->order = loam_malloc(sizeof(int32_t) * (size_t)n);
    b->nodes = loam_malloc(sizeof(loam_bvh_node) * (size_t)(2 * n));
    if (!b->order || !b->nodes) {
        loam_bvh_free(b);
        return loam_error_set(err, LOAM_ERR_NOMEM, "mesh: out of memory for the triangle hierarchy (%d triangles)", n);
    }
    for (int t = 0; t < n; ++t) b->order[t] = t;
    b->nodes[0].first = 0;
    b->nodes[0].count = n;
    b->node_count = 1;
    /* Breadth-first: children of node k are appended, so every node is visited once. */
    for (int k = 0; k < b->node_count; ++k) {
        summarize(b, k);
        loam_bvh_node* nd = &b->nodes[k];
        if (nd->count <= LEAF_SIZE) continue;
        split(b, k);
        int first = nd->first, count = nd->count, half = count / 2;
        loam_bvh_node* c = &b->nodes[b->node_count];
        c[0].first = first;
        c[0].count = half;
        c[1].first = first + half;
        c[1].count = count - half;
        nd->first = b->node_count;
        nd->count = 0;
        b->node_count += 2;
    }
    return LOAM_OK;
}

void loam_bvh_free(loam_bvh* b) {
    loam_free(b->order);
    loam_free(b->nodes);
    memset(b, 0, sizeof *b);
}

/* Squared distance from p to triangle (a, b, c): the closest point by Voronoi regions (Ericson,
 * Real-Time Collision Detection, 5.1.5). */
static double triangle_distance2(const double p[3], const double a[3], const double b[3], const double c[3]) {
    double ab[3], ac[3], ap[3], q[3];
    for (int k = 0; k < 3; ++k) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ap[k] = p[k] - a[k];
    }
#define DOT(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])
    double d1 = DOT(ab, ap), d2 = DOT(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        for (int k = 0; k < 3; ++k) q[k] = a[k];
    } else {
        double bp[3] = {p[0] - b[0], p[1] - b[1], p[2] - b[2]};
        double d3 = DOT(ab, bp), d4 = DOT(ac, bp);
        double cp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
        double d5 = DOT(ab, cp), d6 = DOT(ac, cp);
        double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
        if (d3 >= 0 && d4 <= d3) {
            for (int k = 0; k < 3; ++k) q[k] = b[k];
        } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
            double v = d1 - d3 != 0.0 ? d1 / (d1 - d3) : 0.0; /* degenerate triangles: any point of the edge */
            for (int k = 0; k < 3; ++k) q[k] = a[k] + v * ab[k];
        } else if (d6 >= 0 && d5 <= d6) {
            for (int k = 0; k < 3; ++k) q[k] = c[k];
        } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
            double w = d2 - d6 != 0.0 ? d2 / (d2 - d6) : 0.0;
            for (int k = 0; k < 3; ++k) q[k] = a[k] + w * ac[k];
        } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
            double den = (d4 - d3) + (d5 - d6);
            double w = den != 0.0 ? (d4 - d3) / den : 0.0;
            for (int k = 0; k < 3; ++k) q[k] = b[k] + w * (c[k] - b[k]);
        } else {
            double denom = va + vb + vc;
            double v = denom != 0.0 ? vb / denom : 0.0, w = denom != 0.0 ? vc / denom : 0.0; /* degenerate: a */
            for (int k = 0; k < 3; ++k) q[k] = a[k] + ab[k] * v + ac[k] * w;
        }
    }
    double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return DOT(d, d);
#undef DOT
}

static double box_distance2(const loam_bvh_node* nd, const double p[3]) {
    double s = 0.0;
    for (int a = 0; a < 3; ++a) {
        double d = p[a] < nd->lo[a] ? nd->lo[a] - p[a] : p[a] > nd->hi[a] ? p[a] - nd->hi[a] : 0.0;
        s += d * d;
    }
    return s;
}

double loam_bvh_distance(const loam_bvh* b, const double p[3]) {
    double best = INFINITY;
    int stack[STACK], top = 0;
    stack[top++] = 0;
    while (top) {
        const loam_bvh_node* nd = &b->nodes[stack[--top]];
        if (box_distance2(nd, p) >= best) continue;
        if (nd->count) {
            for (int q = nd->first; q < nd->first + nd->count; ++q) {
                double a[3], bb[3], c[3];
                leaf_triangle(b, q, a, bb, c);
                best = fmin(best, triangle_distance2(p, a, bb, c));
            }
            continue;
        }
        /* Nearer child last, so it is taken first. */
        int l = nd->first, r = nd->first + 1;
        double dl = box_distance2(&b->nodes[l], p), dr = box_distance2(&b->nodes[r], p);
        if (top + 2 > STACK) continue; /* depth beyond a balanced tree of 2^127 leaves: cannot happen */
        if (dl < dr) {
            stack[top++] = r;
            stack[top++] = l;
        } else {
            stack[top++] = l;
            stack[top++] = r;
        }
    }
    return sqrt(best);
}

/* Solid angle of triangle (a, b, c) seen from p (Van Oosterom & Strackee 1983), signed by winding. */
static double solid_angle(const double p[3], const double a0[3], const double b0[3], const double c0[3]) {
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; ++k) {
        a[k] = a0[k] - p[k];
        b[k] = b0[k] - p[k];
        c[k] = c0[k] - p[k];
    }
    double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    double lc = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
    double den = la * lb * lc + (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * lc + (b[0] * c[0] + b[1] * c[1] + b[2] * c[2]) * la +
                 (c[0] * a[0] + c[1] * a[1] + c[2] * a[2]) * lb;
    return 2.0 * atan2(det, den);
}

double loam_bvh_winding(const loam_bvh* b, const double p[3]) {
    const double beta = 2.0; /* a cluster this many radii away enters as a dipole */
    double w = 0.0;
    int stack[STACK], top = 0;
    stack[top++] = 0;
    while (top) {
        const loam_bvh_node* nd = &b->nodes[stack[--top]];
        double d[3] = {nd->centre[0] - p[0], nd->centre[1] - p[1], nd->centre[2] - p[2]};
        double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (r2 > beta * beta * nd->radius * nd->radius) {
            double r = sqrt(r2);
            w += (nd->normal[0] * d[0] + nd->normal[1] * d[1] + nd->normal[2] * d[2]) / (r2 * r);
            continue;
        }
        if (nd->count) {
            for (int q = nd->first; q < nd->first + nd->count; ++q) {
                double a[3], bb[3], c[3];
                leaf_triangle(b, q, a, bb, c);
                w += solid_angle(p, a, bb, c);
            }
            continue;
        }
        if (top + 2 > STACK) continue;
        stack[top++] = nd->first;
        stack[top++] = nd->first + 1;
    }
    return w / FOUR_PI;
}
