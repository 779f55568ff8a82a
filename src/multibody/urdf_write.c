/* URDF writer: a model back to the format it came from, with every number written so that reading it
 * back is exact (%.17g), so loading what was written gives the same model. See loam/urdf.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/vecd.h"
#include "loam/io.h"
#include "loam/urdf.h"

/* R = Rz(yaw) Ry(pitch) Rx(roll), URDF's convention. */
static void rpy_of(loam_quatd q, double* r, double* p, double* y) {
    mat3d R = qd_to_mat(q);
    double s = -R.m[2][0];
    *p = asin(s > 1.0 ? 1.0 : s < -1.0 ? -1.0 : s);
    if (fabs(s) < 1.0 - 1e-12) {
        *r = atan2(R.m[2][1], R.m[2][2]);
        *y = atan2(R.m[1][0], R.m[0][0]);
    } else { /* gimbal lock: put it all in yaw */
        *r = 0.0;
        *y = atan2(-R.m[0][1], R.m[1][1]);
    }
}

static void write_origin(FILE* f, const char* indent, loam_posed p) {
    double r, pi, y;
    rpy_of(p.q, &r, &pi, &y);
    fprintf(f, "%s<origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/>\n", indent, p.p.x, p.p.y, p.p.z, r, pi, y);
}

static void write_geom(FILE* f, const loam_mb_geom_def* g) {
    fprintf(f, "    <collision>\n");
    write_origin(f, "      ", loam_posed_from_pose(g->shape.local));
    fprintf(f, "      <geometry>");
    /* the float sizes in double: exact, so reading them back rounds to the same floats */
    loam_vec3d s = d3(g->shape.size.x, g->shape.size.y, g->shape.size.z);
    switch (g->shape.type) {
    case LOAM_SHAPE_BOX: fprintf(f, "<box size=\"%.17g %.17g %.17g\"/>", 2 * s.x, 2 * s.y, 2 * s.z); break;
    case LOAM_SHAPE_SPHERE: fprintf(f, "<sphere radius=\"%.17g\"/>", s.x); break;
    case LOAM_SHAPE_CYLINDER: fprintf(f, "<cylinder radius=\"%.17g\" length=\"%.17g\"/>", s.x, 2 * s.z); break;
    case LOAM_SHAPE_CAPSULE: fprintf(f, "<capsule radius=\"%.17g\" length=\"%.17g\"/>", s.x, 2 * s.z); break;
    default:
        fprintf(f, "<mesh filename=\"");
        for (const char* c = g->mesh; *c; ++c) {
            if (*c == '"') fputs("&quot;", f);
            else if (*c == '&') fputs("&amp;", f);
            else if (*c == '<') fputs("&lt;", f);
            else fputc(*c, f);
        }
        fprintf(f, "\" scale=\"%.17g %.17g %.17g\"/>", g->mesh_scale.x, g->mesh_scale.y, g->mesh_scale.z);
        break;
    }
    fprintf(f, "</geometry>\n    </collision>\n");
}

loam_status loam_urdf_write(const loam_mb_model* m, const char* path, loam_error* err) {
    if (!m || !path) return loam_error_set(err, LOAM_ERR_INPUT, "urdf: null model or path");
    loam_atomic_file af;
    loam_status st = loam_atomic_open(&af, path, err);
    if (st != LOAM_OK) return st;
    FILE* f = af.fp;
    /* Names come from a validated model or a URDF: no quotes to escape in practice, but '<', '&' and
     * '"' would break the XML, so such models are refused rather than written wrong. */
    for (int i = 0; i < m->nbody; ++i)
        if (strpbrk(m->body[i].name, "<&\"") || strpbrk(m->body[i].joint_name, "<&\"")) {
            loam_atomic_abort(&af);
            return loam_error_set(err, LOAM_ERR_INPUT, "urdf: body %d: name '%s' has a character that URDF names cannot hold", i, m->body[i].name);
        }
    fprintf(f, "<?xml version=\"1.0\"?>\n<!-- written by loam %s -->\n<robot name=\"%s\">\n", loam_version(), m->name[0] ? m->name : "robot");
    for (int i = 0; i < m->nbody; ++i) {
        const loam_mb_body_def* b = &m->body[i];
        fprintf(f, "  <link name=\"%s\">\n", b->name);
        if (b->mass > 0 || b->inertia[0] > 0 || b->inertia[1] > 0 || b->inertia[2] > 0) {
            fprintf(f, "    <inertial>\n      <origin xyz=\"%.17g %.17g %.17g\" rpy=\"0 0 0\"/>\n      <mass value=\"%.17g\"/>\n", b->com.x, b->com.y,
                    b->com.z, b->mass);
            fprintf(f, "      <inertia ixx=\"%.17g\" ixy=\"%.17g\" ixz=\"%.17g\" iyy=\"%.17g\" iyz=\"%.17g\" izz=\"%.17g\"/>\n    </inertial>\n",
                    b->inertia[0], b->inertia[3], b->inertia[4], b->inertia[1], b->inertia[5], b->inertia[2]);
        }
        for (int g = 0; g < m->ngeom; ++g)
            if (m->geom[g].body == i) write_geom(f, &m->geom[g]);
        fprintf(f, "  </link>\n");
    }
    for (int i = 1; i < m->nbody; ++i) {
        const loam_mb_body_def* b = &m->body[i];
        if (b->parent < 0) {
            loam_atomic_abort(&af);
            return loam_error_set(err, LOAM_ERR_INPUT, "urdf: body '%s' is a second root; a URDF holds one tree", b->name);
        }
        const char* type = b->joint == LOAM_JOINT_FIXED ? "fixed" : b->joint == LOAM_JOINT_FLOATING ? "floating"
                         : b->joint == LOAM_JOINT_PRISMATIC ? "prismatic" : b->limited ? "revolute" : "continuous";
        char jn[LOAM_NAME_MAX + 8];
        if (b->joint_name[0]) snprintf(jn, sizeof jn, "%s", b->joint_name);
        else snprintf(jn, sizeof jn, "%s_joint", b->name);
        fprintf(f, "  <joint name=\"%s\" type=\"%s\">\n", jn, type);
        write_origin(f, "    ", b->placement);
        fprintf(f, "    <parent link=\"%s\"/>\n    <child link=\"%s\"/>\n", m->body[b->parent].name, b->name);
        if (loam_joint_nv(b->joint) == 1) {
            fprintf(f, "    <axis xyz=\"%.17g %.17g %.17g\"/>\n", b->axis.x, b->axis.y, b->axis.z);
            if (b->limited)
                fprintf(f, "    <limit lower=\"%.17g\" upper=\"%.17g\" effort=\"%.17g\" velocity=\"%.17g\"/>\n", b->lower, b->upper,
                        b->max_effort, b->max_velocity);
            else
                fprintf(f, "    <limit effort=\"%.17g\" velocity=\"%.17g\"/>\n", b->max_effort, b->max_velocity);
            fprintf(f, "    <dynamics damping=\"%.17g\"/>\n", b->damping);
        }
        fprintf(f, "  </joint>\n");
    }
    fprintf(f, "</robot>\n");
    return loam_atomic_commit(&af, err);
}
