/* Contacts among boxes, capsules and cylinders (loam/multibody.h, the contacts table in
 * docs/multibody.md). Resting contact needs a manifold, not one deepest point: a body held by one
 * point rocks or spins about it, so every pair that can rest face on face reports the corners of the
 * touching patch:
 * - box-box: separating axes (3 + 3 face normals, 9 edge pairs). If a face normal separates least,
 *   the incident face (the other box's face most opposed to it) is clipped against the reference
 *   face's side planes (Sutherland-Hodgman) and its points below the reference face, at most 4 (the
 *   deepest, then farthest-point picks), are the contacts; if an edge pair does (by a clear margin,
 *   so that face contact wins ties), the closest points of the two edges give one contact.
 * - capsule-box: the two end spheres against the box, plus the point of the axis segment deepest in
 *   the box when it lies strictly inside the segment (a capsule across an edge); the box's signed
 *   distance is convex along a line, so a golden-section search finds it. When that point lies over a
 *   face (the capsule across it, both ends overhanging), the two points where the axis leaves the face
 *   instead.
 * - capsule-capsule: the closest points of the axis segments; nearly parallel segments report both
 *   ends of their overlap (two points, so that a capsule lying on another does not spin).
 * - cylinder-plane: per cap, four points of the rim a quarter turn apart starting at the deepest
 *   one (standing, all four touch; lying, the deepest of each cap); cylinder-sphere: the exact
 *   closest point of the solid cylinder. */
#include <math.h>

#include "geom/box_sdf.h"
#include "multibody/collide_internal.h"

static double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

void mb_segment_closest(loam_vec3d p1, loam_vec3d d1, double e1, loam_vec3d p2, loam_vec3d d2, double e2, double* s, double* t) {
    loam_vec3d r = d3_sub(p1, p2);
    double b = d3_dot(d1, d2), c = d3_dot(d1, r), f = d3_dot(d2, r), den = 1.0 - b * b;
    /* the unconstrained minimum of |p1 + s d1 - p2 - t d2|^2 in s (t eliminated), clamped; then the best
     * t for it, clamped, and s again for that t (parallel lines: any s, take the middle) */
    double ss = den > 1e-12 ? clampd((b * f - c) / den, -e1, e1) : 0.0;
    double tt = b * ss + f;
    if (tt < -e2 || tt > e2) {
        tt = clampd(tt, -e2, e2);
        ss = clampd(b * tt - c, -e1, e1);
    }
    *s = ss, *t = tt;
}

void mb_capsule_capsule(mb_sink* k, int ga, loam_posed A, double ra, double ha, int gb, loam_posed B, double rb, double hb) {
    loam_vec3d da = qd_rotate(A.q, d3(0, 0, 1)), db = qd_rotate(B.q, d3(0, 0, 1));
    double cross = d3_norm(d3_cross(da, db));
    if (cross < 1e-3) { /* nearly parallel: both ends of the overlap of b's segment projected onto a's */
        double t0 = d3_dot(d3_sub(d3_sub(B.p, d3_scale(db, hb)), A.p), da);
        double t1 = d3_dot(d3_sub(d3_add(B.p, d3_scale(db, hb)), A.p), da);
        double lo = fmax(-ha, fmin(t0, t1)), hi = fmin(ha, fmax(t0, t1));
        if (hi - lo > 1e-9 * (ha + hb + ra + rb)) {
            for (int end = 0; end < 2; ++end) {
                loam_vec3d pa = d3_add(A.p, d3_scale(da, end ? hi : lo));
                double t = clampd(d3_dot(d3_sub(pa, B.p), db), -hb, hb);
                mb_sphere_sphere(k, ga, gb, pa, ra, d3_add(B.p, d3_scale(db, t)), rb);
            }
            return;
        }
    }
    double s, t;
    mb_segment_closest(A.p, da, ha, B.p, db, hb, &s, &t);
    mb_sphere_sphere(k, ga, gb, d3_add(A.p, d3_scale(da, s)), ra, d3_add(B.p, d3_scale(db, t)), rb);
}

/* Signed distance of a box of half extents h at a local point (geom/box_sdf.h). */
static double box_sdf(loam_vec3d p, loam_vec3d h) {
    double pa[3] = {p.x, p.y, p.z}, ha[3] = {h.x, h.y, h.z};
    return loam_box_sdf_d(pa, ha, NULL);
}

void mb_box_capsule(mb_sink* k, int gb, loam_posed B, loam_vec3d h, int gc, loam_posed C, double r, double hc) {
    loam_vec3d d = qd_rotate(C.q, d3(0, 0, 1));
    loam_vec3d e0 = d3_sub(C.p, d3_scale(d, hc)), e1 = d3_add(C.p, d3_scale(d, hc));
    mb_sphere_box(k, gc, gb, e0, r, B, h);
    mb_sphere_box(k, gc, gb, e1, r, B, h);
    /* the deepest point of the segment, in the box's frame */
    loam_quatd inv = qd_conj(B.q);
    loam_vec3d l0 = qd_rotate(inv, d3_sub(e0, B.p)), ld = qd_rotate(inv, d);
    double f0 = box_sdf(l0, h), f1 = box_sdf(d3_add(l0, d3_scale(ld, 2.0 * hc)), h);
    if (fmin(f0, f1) - r > k->m->opt.contact_margin + 2.0 * hc) return; /* no point of the segment can reach */
    const double g = 0.6180339887498949;
    double a = 0.0, b = 2.0 * hc, x1 = b - g * (b - a), x2 = a + g * (b - a);
    double y1 = box_sdf(d3_add(l0, d3_scale(ld, x1)), h), y2 = box_sdf(d3_add(l0, d3_scale(ld, x2)), h);
    for (int it = 0; it < 60 && b - a > 1e-9 * (hc + r); ++it) {
        if (y1 < y2) b = x2, x2 = x1, y2 = y1, x1 = b - g * (b - a), y1 = box_sdf(d3_add(l0, d3_scale(ld, x1)), h);
        else a = x1, x1 = x2, y1 = y2, x2 = a + g * (b - a), y2 = box_sdf(d3_add(l0, d3_scale(ld, x2)), h);
    }
    double t = 0.5 * (a + b), ft = box_sdf(d3_add(l0, d3_scale(ld, t)), h);
    /* only a strict interior minimum: at an end the end spheres already cover it */
    double tol = 1e-6 * (hc + r) + 1e-9, len = 2.0 * hc;
    if (!(t > tol && t < len - tol && ft < fmin(f0, f1) - tol)) return;
    /* Over a face (the deepest point's nearest feature is a face, not an edge), the capsule lies across
     * it with both ends overhanging: the contacts are where the axis leaves the face's rectangle, so it
     * rests on two points (the higher one speculative while the capsule tilts) instead of seesawing
     * between single points at alternate edges. Over an edge: the deepest point alone. A capsule
     * tilted by a small angle a across a face has its deepest point just past the lower edge (by about
     * a times its height: the distance grows only quadratically past a rounded edge), so "over the
     * face" allows a lateral offset up to 0.05 of the height, that is up to about 3 degrees. */
    loam_vec3d lt = d3_add(l0, d3_scale(ld, t));
    double q[3] = {fabs(lt.x) - h.x, fabs(lt.y) - h.y, fabs(lt.z) - h.z};
    int face = q[0] >= q[1] && q[0] >= q[2] ? 0 : q[1] >= q[2] ? 1 : 2;
    double lo = 0.0, hi = len, la[3] = {l0.x, l0.y, l0.z}, da[3] = {ld.x, ld.y, ld.z}, ha[3] = {h.x, h.y, h.z};
    double lateral = 0.0;
    for (int ax = 0; ax < 3; ++ax) {
        if (ax == face) continue;
        lateral += q[ax] > 0.0 ? q[ax] * q[ax] : 0.0;
        if (fabs(da[ax]) < 1e-12) continue;
        double t0 = (-ha[ax] - la[ax]) / da[ax], t1 = (ha[ax] - la[ax]) / da[ax];
        lo = fmax(lo, fmin(t0, t1)), hi = fmin(hi, fmax(t0, t1));
    }
    int over_face = sqrt(lateral) <= 0.05 * fmax(q[face], 0.0) + tol;
    if (!over_face || hi - lo <= 1e-3 * (hc + r)) {
        mb_sphere_box(k, gc, gb, d3_add(e0, d3_scale(d, t)), r, B, h);
        return;
    }
    if (lo > tol) mb_sphere_box(k, gc, gb, d3_add(e0, d3_scale(d, lo)), r, B, h);
    if (hi < len - tol) mb_sphere_box(k, gc, gb, d3_add(e0, d3_scale(d, hi)), r, B, h);
}

/* Sutherland-Hodgman: keep the part of polygon `in` (n points) where dot(a, p) <= lim. */
static int clip(const loam_vec3d* in, int n, loam_vec3d a, double lim, loam_vec3d* out) {
    int m = 0;
    for (int i = 0; i < n; ++i) {
        loam_vec3d p = in[i], q = in[(i + 1) % n];
        double dp = d3_dot(a, p) - lim, dq = d3_dot(a, q) - lim;
        if (dp <= 0.0) out[m++] = p;
        if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0)) out[m++] = d3_add(p, d3_scale(d3_sub(q, p), dp / (dp - dq)));
    }
    return m;
}

typedef struct obox {
    loam_posed P;
    loam_vec3d ax[3];
    double h[3];
} obox;

static obox make_obox(loam_posed P, loam_vec3d h) {
    obox b = {P, {qd_rotate(P.q, d3(1, 0, 0)), qd_rotate(P.q, d3(0, 1, 0)), qd_rotate(P.q, d3(0, 0, 1))}, {h.x, h.y, h.z}};
    return b;
}

static double radius_along(const obox* b, loam_vec3d L) {
    return b->h[0] * fabs(d3_dot(b->ax[0], L)) + b->h[1] * fabs(d3_dot(b->ax[1], L)) + b->h[2] * fabs(d3_dot(b->ax[2], L));
}

/* Face contact: reference box R's face with outward normal nr (its axis i), incident box I. Contacts
 * are reported for geom gi against geom gr (normal nr, from R towards I). */
static void face_contact(mb_sink* k, int gr, const obox* R, int i, loam_vec3d nr, int gi, const obox* I) {
    int u = (i + 1) % 3, v = (i + 2) % 3;
    loam_vec3d cf = d3_add(R->P.p, d3_scale(nr, R->h[i]));
    /* incident face: I's face whose outward normal is most opposed to nr */
    int j = 0;
    double best = -1.0;
    for (int q = 0; q < 3; ++q) {
        double c = fabs(d3_dot(I->ax[q], nr));
        if (c > best) best = c, j = q;
    }
    loam_vec3d nj = d3_dot(I->ax[j], nr) > 0.0 ? d3_neg(I->ax[j]) : I->ax[j];
    int ju = (j + 1) % 3, jv = (j + 2) % 3;
    loam_vec3d ci = d3_add(I->P.p, d3_scale(nj, I->h[j])), eu = d3_scale(I->ax[ju], I->h[ju]), ev = d3_scale(I->ax[jv], I->h[jv]);
    loam_vec3d poly[16], tmp[16];
    poly[0] = d3_add(d3_add(ci, eu), ev), poly[1] = d3_add(d3_sub(ci, eu), ev);
    poly[2] = d3_sub(d3_sub(ci, eu), ev), poly[3] = d3_sub(d3_add(ci, eu), ev);
    int n = 4;
    /* the reference face's four side planes: |dot(ax, p - R.p)| <= h */
    loam_vec3d side[4] = {R->ax[u], d3_neg(R->ax[u]), R->ax[v], d3_neg(R->ax[v])};
    double lim[4] = {R->h[u], R->h[u], R->h[v], R->h[v]};
    for (int q = 0; q < 4 && n > 0; ++q) {
        n = clip(poly, n, side[q], lim[q] + d3_dot(side[q], R->P.p), tmp);
        for (int c = 0; c < n; ++c) poly[c] = tmp[c];
    }
    double depth[16];
    int keep[16], nk = 0;
    for (int c = 0; c < n; ++c) {
        depth[c] = -d3_dot(nr, d3_sub(poly[c], cf));
        if (-depth[c] <= k->m->opt.contact_margin) keep[nk++] = c;
    }
    int chosen[4], nc = 0;
    if (nk <= 4) {
        for (int c = 0; c < nk; ++c) chosen[nc++] = keep[c];
    } else { /* the deepest, then each time the point farthest from those chosen */
        int first = keep[0];
        for (int c = 1; c < nk; ++c)
            if (depth[keep[c]] > depth[first]) first = keep[c];
        chosen[nc++] = first;
        while (nc < 4) {
            int pick = -1;
            double far = -1.0;
            for (int c = 0; c < nk; ++c) {
                double dmin = INFINITY;
                for (int q = 0; q < nc; ++q) dmin = fmin(dmin, d3_norm(d3_sub(poly[keep[c]], poly[chosen[q]])));
                if (dmin > far) far = dmin, pick = keep[c];
            }
            chosen[nc++] = pick;
        }
    }
    for (int c = 0; c < nc; ++c) {
        int q = chosen[c];
        mb_emit(k, gi, gr, d3_add(poly[q], d3_scale(nr, 0.5 * depth[q])), nr, depth[q]);
    }
}

void mb_box_box(mb_sink* k, int ga, loam_posed PA, loam_vec3d ha, int gb, loam_posed PB, loam_vec3d hb) {
    obox A = make_obox(PA, ha), B = make_obox(PB, hb);
    loam_vec3d d = d3_sub(B.P.p, A.P.p);
    double margin = k->m->opt.contact_margin;
    /* separation along each axis (> 0 apart); the least negative one is the contact's */
    double face_sep = -INFINITY, edge_sep = -INFINITY;
    int face = -1, ea = -1, eb = -1;
    loam_vec3d face_n = d3(0, 0, 1), edge_n = d3(0, 0, 1);
    for (int q = 0; q < 6; ++q) {
        loam_vec3d L = q < 3 ? A.ax[q] : B.ax[q - 3];
        double sep = fabs(d3_dot(d, L)) - radius_along(&A, L) - radius_along(&B, L);
        if (sep > margin) return;
        if (sep > face_sep) face_sep = sep, face = q, face_n = d3_dot(d, L) >= 0.0 ? L : d3_neg(L);
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            loam_vec3d L = d3_cross(A.ax[i], B.ax[j]);
            double len = d3_norm(L);
            if (len < 1e-6) continue; /* parallel edges: a face axis covers it */
            L = d3_scale(L, 1.0 / len);
            double sep = fabs(d3_dot(d, L)) - radius_along(&A, L) - radius_along(&B, L);
            if (sep > margin) return;
            if (sep > edge_sep) edge_sep = sep, ea = i, eb = j, edge_n = d3_dot(d, L) >= 0.0 ? L : d3_neg(L);
        }
    /* face contact unless an edge pair separates clearly less (ties go to the face: more points) */
    double scale = fmin(fmin(ha.x, fmin(ha.y, ha.z)), fmin(hb.x, fmin(hb.y, hb.z)));
    if (ea < 0 || edge_sep <= face_sep + 1e-3 * scale) {
        if (face < 3) face_contact(k, ga, &A, face, face_n, gb, &B);      /* face_n points from A to B */
        else face_contact(k, gb, &B, face - 3, d3_neg(face_n), ga, &A); /* from B to A */
        return;
    }
    /* edge-edge: the edge of A along ax[ea] farthest along n, the edge of B along ax[eb] farthest against it */
    loam_vec3d n = edge_n, ca = A.P.p, cb = B.P.p;
    for (int q = 0; q < 3; ++q) {
        if (q != ea) ca = d3_add(ca, d3_scale(A.ax[q], d3_dot(A.ax[q], n) > 0.0 ? A.h[q] : -A.h[q]));
        if (q != eb) cb = d3_add(cb, d3_scale(B.ax[q], d3_dot(B.ax[q], n) > 0.0 ? -B.h[q] : B.h[q]));
    }
    double s, t;
    mb_segment_closest(ca, A.ax[ea], A.h[ea], cb, B.ax[eb], B.h[eb], &s, &t);
    loam_vec3d pa = d3_add(ca, d3_scale(A.ax[ea], s)), pb = d3_add(cb, d3_scale(B.ax[eb], t));
    mb_emit(k, gb, ga, d3_scale(d3_add(pa, pb), 0.5), n, -edge_sep); /* n from A towards B */
}

void mb_plane_cylinder(mb_sink* k, int gc, int gp, loam_posed P, loam_posed C, double radius, double half) {
    loam_vec3d n = qd_rotate(P.q, d3(0, 0, 1)), axis = qd_rotate(C.q, d3(0, 0, 1));
    /* the rim direction that goes deepest: -n without its axial part (any radial one if n is the axis) */
    loam_vec3d radial = d3_sub(d3_neg(n), d3_scale(axis, d3_dot(d3_neg(n), axis)));
    double len = d3_norm(radial);
    if (len < 1e-9) radial = qd_rotate(C.q, d3(1, 0, 0));
    else radial = d3_scale(radial, 1.0 / len);
    loam_vec3d other = d3_cross(axis, radial);
    for (int cap = 0; cap < 2; ++cap) {
        loam_vec3d cc = d3_add(C.p, d3_scale(axis, cap ? half : -half));
        for (int q = 0; q < 4; ++q) {
            loam_vec3d dir = q == 0 ? radial : q == 1 ? other : q == 2 ? d3_neg(radial) : d3_neg(other);
            loam_vec3d pt = d3_add(cc, d3_scale(dir, radius));
            double dist = d3_dot(n, d3_sub(pt, P.p));
            mb_emit(k, gc, gp, d3_sub(pt, d3_scale(n, 0.5 * dist)), n, -dist);
        }
    }
}

void mb_sphere_cylinder(mb_sink* k, int gs, int gc, loam_vec3d c, double r, loam_posed C, double radius, double half) {
    loam_vec3d p = qd_rotate(qd_conj(C.q), d3_sub(c, C.p));
    double rho = sqrt(p.x * p.x + p.y * p.y);
    loam_vec3d radial = rho > 1e-12 ? d3(p.x / rho, p.y / rho, 0) : d3(1, 0, 0);
    double out_r = rho - radius, out_z = fabs(p.z) - half, sz = p.z >= 0.0 ? 1.0 : -1.0;
    loam_vec3d nl, q;
    double dist;
    if (out_r <= 0.0 && out_z <= 0.0) { /* centre inside: leave through the side or the cap, whichever is nearer */
        if (out_r > out_z) nl = radial, q = d3(radial.x * radius, radial.y * radius, p.z), dist = out_r;
        else nl = d3(0, 0, sz), q = d3(p.x, p.y, sz * half), dist = out_z;
    } else {
        double qr = fmin(rho, radius), qz = clampd(p.z, -half, half);
        q = d3(radial.x * qr, radial.y * qr, qz);
        loam_vec3d dv = d3_sub(p, q);
        dist = d3_norm(dv);
        nl = dist > 1e-12 ? d3_scale(dv, 1.0 / dist) : d3(0, 0, sz);
    }
    loam_vec3d n = qd_rotate(C.q, nl), surface = pd_apply(C, q);
    double gap = dist - r;
    mb_emit(k, gs, gc, d3_add(surface, d3_scale(n, 0.5 * gap)), n, -gap);
}
