/* URDF reader (libxml2). The document tree keeps each element's line, so every error names file,
 * line, element and attribute. Links become bodies in breadth-first order from the root (parents
 * before children, as the model requires); each link's body frame is its parent joint's frame. See
 * loam/urdf.h. */
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/vecd.h"
#include "loam/io.h"
#include "loam/urdf.h"
#include "multibody/urdf_internal.h"

typedef struct link_rec {
    xmlNode* node;
    const char* name; /* points into the document */
    int parent_joint; /* index into joints, -1 for the root */
    int body;         /* index in the model, -1 until placed */
} link_rec;

typedef struct joint_rec {
    xmlNode* node;
    const char* name;
    int parent, child; /* link indices */
} joint_rec;

typedef struct ctx {
    const char* file;
    loam_error* err;
    const loam_urdf_options* opt;
    urdf_meshes meshes; /* the grids of this load's collision meshes */
} ctx;

static const char* attr(xmlNode* n, const char* name) {
    /* Attribute values live as the text child of the attribute node: no copy, no free. */
    for (xmlAttr* a = n->properties; a; a = a->next)
        if (a->ns == NULL && strcmp((const char*)a->name, name) == 0)
            return a->children && a->children->type == XML_TEXT_NODE ? (const char*)a->children->content : "";
    return NULL;
}

static const char* label(xmlNode* n) {
    const char* nm = attr(n, "name");
    return nm ? nm : "";
}

/* "file:line: <joint name="j2">: <limit>: message": the element, under its nearest named ancestor. */
static void describe(ctx* c, xmlNode* n, const char* fmt, const char* a, const char* b, char* out, size_t cap) {
    char what[200];
    xmlNode* named = n;
    while (named && named->type == XML_ELEMENT_NODE && !attr(named, "name")) named = named->parent;
    if (named && named->type == XML_ELEMENT_NODE && named != n)
        snprintf(what, sizeof what, "<%s name=\"%.60s\">: <%s>", (const char*)named->name, label(named), (const char*)n->name);
    else if (named == n)
        snprintf(what, sizeof what, "<%s name=\"%.60s\">", (const char*)n->name, label(n));
    else
        snprintf(what, sizeof what, "<%s>", (const char*)n->name);
    char msg[600];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    snprintf(out, cap, "%s:%ld: %s: %s", c->file, xmlGetLineNo(n), what, msg);
}

static loam_status fail(ctx* c, xmlNode* n, const char* fmt, const char* a, const char* b) {
    char msg[1000];
    describe(c, n, fmt, a, b, msg, sizeof msg);
    return loam_error_set(c->err, LOAM_ERR_INPUT, "%s", msg);
}

void loam_urdf_warn_stderr(void* user, const char* message) {
    (void)user;
    fprintf(stderr, "loam: warning: %s\n", message);
}

static void warn(ctx* c, xmlNode* n, const char* fmt, const char* a, const char* b) {
    if (!c->opt->warn) return;
    char msg[1100];
    describe(c, n, fmt, a, b, msg, sizeof msg);
    c->opt->warn(c->opt->warn_user, msg);
}

/* Collision geometry loam cannot use (a mesh not found, not OBJ or STL, unreadable; a shape it does
 * not know): an error under `strict`, otherwise a warning, as urdfdom logs the element and drops
 * it. A mesh stays in the model without a grid (written back by loam_urdf_write); *skip drops the
 * rest. */
static loam_status unusable(ctx* c, xmlNode* n, const char* why, const char* what) {
    if (c->opt->strict) return fail(c, n, "%s%s", why, NULL);
    warn(c, n, "%s; %s (strict = 1 makes this an error)", why, what);
    return LOAM_OK;
}

static xmlNode* child(xmlNode* n, const char* name) {
    for (xmlNode* k = n->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE && strcmp((const char*)k->name, name) == 0) return k;
    return NULL;
}

static int count_children(xmlNode* n, const char* name) {
    int c = 0;
    for (xmlNode* k = n->children; k; k = k->next) c += k->type == XML_ELEMENT_NODE && strcmp((const char*)k->name, name) == 0;
    return c;
}

/* `count` finite numbers separated by white space, nothing else. */
static loam_status numbers(ctx* c, xmlNode* n, const char* key, int required, int count, double* out) {
    const char* s = attr(n, key);
    if (!s) return required ? fail(c, n, "missing attribute '%s'", key, NULL) : LOAM_OK;
    const char* p = s;
    for (int i = 0; i < count; ++i) {
        char* end;
        errno = 0;
        double v = strtod(p, &end);
        if ((end == p || errno == ERANGE || !isfinite(v)) && (strstr(s, "$(") || strstr(s, "${")))
            return fail(c, n, "attribute '%s' = '%.80s' is a xacro expression: expand the file first with `xacro FILE > robot.urdf` "
                        "(ROS's xacro package, or `pip install xacro`)", key, s);
        if (end == p || errno == ERANGE || !isfinite(v))
            return fail(c, n, count == 1 ? "attribute '%s' = '%.80s' is not a finite number" : "attribute '%s' = '%.80s' is not a list of "
                        "finite numbers of the expected length", key, s);
        out[i] = v;
        p = end;
    }
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
    if (*p) return fail(c, n, "attribute '%s' = '%.80s' has extra text", key, s);
    return LOAM_OK;
}

static loam_status origin(ctx* c, xmlNode* parent, loam_posed* out) {
    *out = pd_identity();
    xmlNode* o = child(parent, "origin");
    if (!o) return LOAM_OK;
    double xyz[3] = {0, 0, 0}, rpy[3] = {0, 0, 0};
    loam_status st = numbers(c, o, "xyz", 0, 3, xyz);
    if (st == LOAM_OK) st = numbers(c, o, "rpy", 0, 3, rpy);
    out->p = d3(xyz[0], xyz[1], xyz[2]);
    out->q = qd_from_rpy(rpy[0], rpy[1], rpy[2]);
    return st;
}

static loam_status inertial(ctx* c, xmlNode* link, loam_mb_body_def* b) {
    xmlNode* in = child(link, "inertial");
    if (!in) return LOAM_OK; /* a massless link (URDF allows it, e.g. frames and flanges) */
    loam_posed o;
    loam_status st = origin(c, in, &o);
    if (st != LOAM_OK) return st;
    xmlNode* mass = child(in, "mass");
    if (!mass) return fail(c, in, "missing <mass>%s%s", NULL, NULL);
    st = numbers(c, mass, "value", 1, 1, &b->mass);
    if (st != LOAM_OK) return st;
    if (b->mass < 0) return fail(c, mass, "attribute 'value' = '%s' is negative", attr(mass, "value"), NULL);
    xmlNode* ie = child(in, "inertia");
    if (!ie) return fail(c, in, "missing <inertia>%s%s", NULL, NULL);
    static const char* keys[6] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};
    double I[6];
    for (int k = 0; k < 6; ++k)
        if ((st = numbers(c, ie, keys[k], 1, 1, &I[k])) != LOAM_OK) return st;
    /* The tensor is given in the inertial frame: turn it into the link's axes, R I R^T. */
    mat3d In = {{{I[0], I[3], I[4]}, {I[3], I[1], I[5]}, {I[4], I[5], I[2]}}}, R = qd_to_mat(o.q);
    mat3d Ib = m3_rotate_tensor(&R, &In);
    b->inertia[0] = Ib.m[0][0], b->inertia[1] = Ib.m[1][1], b->inertia[2] = Ib.m[2][2];
    b->inertia[3] = Ib.m[0][1], b->inertia[4] = Ib.m[0][2], b->inertia[5] = Ib.m[1][2];
    b->com = o.p;
    return LOAM_OK;
}

static loam_status geometry(ctx* c, xmlNode* col, int body, loam_mb_geom_def* g, int* skip) {
    *skip = 0;
    *g = loam_mb_geom_default_def();
    g->body = body;
    loam_posed pose;
    loam_status st = origin(c, col, &pose);
    if (st != LOAM_OK) return st;
    g->shape.local = loam_pose_from_posed(pose); /* shapes are float (docs/architecture.md) */
    xmlNode* geo = child(col, "geometry");
    if (!geo) return fail(c, col, "missing <geometry>%s%s", NULL, NULL);
    xmlNode* s = NULL;
    for (xmlNode* k = geo->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE) {
            if (s) return fail(c, geo, "more than one shape (<%s> and <%s>)", (const char*)s->name, (const char*)k->name);
            s = k;
        }
    if (!s) return fail(c, geo, "no shape (box, sphere, cylinder, capsule or mesh)%s%s", NULL, NULL);
    const char* kind = (const char*)s->name;
    double v[3];
    loam_shape* sh = &g->shape;
    if (strcmp(kind, "box") == 0) {
        if ((st = numbers(c, s, "size", 1, 3, v)) != LOAM_OK) return st;
        sh->type = LOAM_SHAPE_BOX;
        sh->size = (loam_vec3){(float)(0.5 * v[0]), (float)(0.5 * v[1]), (float)(0.5 * v[2])};
    } else if (strcmp(kind, "sphere") == 0) {
        if ((st = numbers(c, s, "radius", 1, 1, v)) != LOAM_OK) return st;
        sh->type = LOAM_SHAPE_SPHERE;
        sh->size = (loam_vec3){(float)v[0], 0.0f, 0.0f};
    } else if (strcmp(kind, "cylinder") == 0 || strcmp(kind, "capsule") == 0) {
        /* capsule is not in the URDF standard but common (Drake, PyBullet): radius and the length of
         * its axis segment. */
        if ((st = numbers(c, s, "radius", 1, 1, v)) != LOAM_OK) return st;
        if ((st = numbers(c, s, "length", 1, 1, v + 1)) != LOAM_OK) return st;
        sh->type = kind[1] == 'y' ? LOAM_SHAPE_CYLINDER : LOAM_SHAPE_CAPSULE;
        sh->size = (loam_vec3){(float)v[0], 0.0f, (float)(0.5 * v[1])};
    } else if (strcmp(kind, "mesh") == 0) {
        const char* f = attr(s, "filename");
        if (!f || !*f) return fail(c, s, "missing attribute 'filename'%s%s", NULL, NULL);
        if (strlen(f) >= sizeof g->mesh) return fail(c, s, "attribute 'filename' is longer than 255 bytes%s%s", NULL, NULL);
        sh->type = LOAM_SHAPE_MESH;
        strcpy(g->mesh, f);
        double sc[3] = {1, 1, 1};
        char path[1024], tried[600], why[900];
        if ((st = numbers(c, s, "scale", 0, 3, sc)) != LOAM_OK) {
            if (c->opt->strict) return st;
            *skip = 1; /* urdfdom drops a collision whose mesh scale it cannot parse */
            snprintf(why, sizeof why, "%.800s", c->err ? c->err->message : "bad scale");
            const char* tail = strstr(why, ">: attribute");
            return unusable(c, s, tail ? tail + 3 : "attribute 'scale' is not 3 numbers", "this collision element is skipped");
        }
        g->mesh_scale = d3(sc[0], sc[1], sc[2]);
        if (!urdf_mesh_resolve(c->file, f, c->opt->package_path, path, sizeof path, tried, sizeof tried)) {
            snprintf(why, sizeof why, "filename '%.200s' not found (looked for %.500s%s)", f, tried,
                     strncmp(f, "package://", 10) == 0 ? "; add the package's parent folder to ROS_PACKAGE_PATH or to package_path" : "");
            return unusable(c, s, why, "it collides with nothing");
        }
        loam_error inner;
        st = urdf_mesh_build(&c->meshes, path, g->mesh_scale, c->opt->mesh_cell, c->opt->mesh_grids, g, &inner);
        if (st == LOAM_ERR_NOMEM) return loam_error_set(c->err, st, "%s: %s", c->file, inner.message);
        if (st != LOAM_OK) {
            snprintf(why, sizeof why, "filename '%.200s': %.600s", f, inner.message);
            return unusable(c, s, why, "it collides with nothing");
        }
    } else {
        char why[200];
        snprintf(why, sizeof why, "unknown shape '%.60s' (loam reads box, sphere, cylinder, capsule and mesh)", kind);
        *skip = 1;
        return unusable(c, s, why, "this collision element is skipped");
    }
    if (sh->size.x < 0 || sh->size.y < 0 || sh->size.z < 0) return fail(c, s, "negative size%s%s", NULL, NULL);
    return LOAM_OK;
}

static loam_status joint_def(ctx* c, xmlNode* j, loam_mb_body_def* b) {
    const char* type = attr(j, "type");
    if (!type) return fail(c, j, "missing attribute 'type'%s%s", NULL, NULL);
    int limit_required = 0;
    if (strcmp(type, "revolute") == 0) b->joint = LOAM_JOINT_REVOLUTE, limit_required = 1;
    else if (strcmp(type, "continuous") == 0) b->joint = LOAM_JOINT_REVOLUTE;
    else if (strcmp(type, "prismatic") == 0) b->joint = LOAM_JOINT_PRISMATIC, limit_required = 1;
    else if (strcmp(type, "fixed") == 0) b->joint = LOAM_JOINT_FIXED;
    else if (strcmp(type, "floating") == 0) b->joint = LOAM_JOINT_FLOATING;
    else return fail(c, j, "attribute 'type' = '%.40s' is not revolute, continuous, prismatic, fixed or floating", type, NULL);
    snprintf(b->joint_name, sizeof b->joint_name, "%s", label(j));
    loam_status st = origin(c, j, &b->placement);
    if (st != LOAM_OK) return st;
    b->axis = d3(1, 0, 0); /* the URDF default */
    /* urdfdom reads an axis only for joints that move along one: on a fixed or floating joint it is
     * ignored (franka_ros's panda_joint8 is fixed with axis "0 0 0"). */
    xmlNode* ax = loam_joint_nv(b->joint) == 1 ? child(j, "axis") : NULL;
    if (ax) {
        double v[3];
        if ((st = numbers(c, ax, "xyz", 1, 3, v)) != LOAM_OK) return st;
        if (!(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) > 1e-9)) return fail(c, ax, "attribute 'xyz' is a zero vector%s%s", NULL, NULL);
        b->axis = d3(v[0], v[1], v[2]);
    }
    xmlNode* lim = child(j, "limit");
    if (!lim && limit_required) return fail(c, j, "a %s joint needs a <limit>%s", type, NULL);
    if (lim && loam_joint_nv(b->joint) == 1) {
        double v;
        if ((st = numbers(c, lim, "effort", 1, 1, &v)) != LOAM_OK) return st;
        if (v < 0) return fail(c, lim, "attribute 'effort' = '%s' is negative", attr(lim, "effort"), NULL);
        b->max_effort = v;
        if ((st = numbers(c, lim, "velocity", 1, 1, &v)) != LOAM_OK) return st;
        if (v < 0) return fail(c, lim, "attribute 'velocity' = '%s' is negative", attr(lim, "velocity"), NULL);
        b->max_velocity = v;
        /* The URDF spec defaults a missing lower or upper to 0; a limit with neither is read as no
         * position limit (the writer's form for an unlimited prismatic joint) rather than a lock. */
        if (limit_required && (attr(lim, "lower") || attr(lim, "upper"))) {
            b->limited = 1;
            if ((st = numbers(c, lim, "lower", 0, 1, &b->lower)) != LOAM_OK) return st;
            if ((st = numbers(c, lim, "upper", 0, 1, &b->upper)) != LOAM_OK) return st;
            if (b->lower > b->upper) {
                /* urdfdom takes it; Bullet (and so pybullet_data's cube_no_rotation.urdf) reads
                 * lower > upper as "no limit". Under strict it stays an error. */
                if (c->opt->strict) return fail(c, lim, "lower = %s is above upper = %s", attr(lim, "lower"), attr(lim, "upper"));
                warn(c, lim, "lower = %s is above upper = %s: read as no position limit, as Bullet does", attr(lim, "lower"), attr(lim, "upper"));
                b->limited = 0;
            }
        }
    }
    xmlNode* dyn = child(j, "dynamics");
    if (dyn) {
        if ((st = numbers(c, dyn, "damping", 0, 1, &b->damping)) != LOAM_OK) return st;
        if (b->damping < 0) return fail(c, dyn, "attribute 'damping' = '%s' is negative", attr(dyn, "damping"), NULL);
    }
    return LOAM_OK;
}

static int find_link(const link_rec* links, int n, const char* name) {
    for (int i = 0; i < n; ++i)
        if (strcmp(links[i].name, name) == 0) return i;
    return -1;
}

/* Name lookups of the tree: joint endpoints exist, each link has at most one parent joint, one root. */
static loam_status build_tree(ctx* c, xmlNode* robot, link_rec* links, int nl, joint_rec* joints, int nj, int* root) {
    for (int j = 0; j < nj; ++j) {
        xmlNode* n = joints[j].node;
        for (int side = 0; side < 2; ++side) {
            const char* tag = side ? "child" : "parent";
            xmlNode* e = child(n, tag);
            if (!e) return fail(c, n, "missing <%s>%s", tag, NULL);
            const char* l = attr(e, "link");
            if (!l) return fail(c, e, "missing attribute 'link'%s%s", NULL, NULL);
            int k = find_link(links, nl, l);
            if (k < 0) return fail(c, e, "link '%.80s' is not defined", l, NULL);
            if (side) joints[j].child = k;
            else joints[j].parent = k;
        }
        if (links[joints[j].child].parent_joint >= 0)
            return fail(c, n, "link '%.80s' already has parent joint '%.80s'", links[joints[j].child].name,
                        joints[links[joints[j].child].parent_joint].name);
        links[joints[j].child].parent_joint = j;
        for (int k = 0; k < j; ++k)
            if (strcmp(joints[k].name, joints[j].name) == 0) return fail(c, n, "joint name '%.80s' is used twice", joints[j].name, NULL);
    }
    *root = -1;
    for (int i = 0; i < nl; ++i)
        if (links[i].parent_joint < 0) {
            if (*root >= 0) return fail(c, links[i].node, "a second root link (the first is '%.80s'): links must form one tree", links[*root].name, NULL);
            *root = i;
        }
    if (*root < 0) return fail(c, robot, "no root link: the joints form a cycle%s%s", NULL, NULL);
    return LOAM_OK;
}

/* MoveIt's setup assistant disables, besides adjacent links, the pairs that are in collision in the
 * robot's default pose (reason "Default"): a description whose links overlap at rest was drawn that
 * way (pybullet_data's vision60 has its toes inside its hips at q = 0; spirit40 and minitaur
 * rainbow_dash similar), and pushing them apart fights the joints until the step diverges. So the
 * ADJACENT mode also excludes the pairs of the robot's own bodies that overlap in the state
 * loam_mb_state_create gives (q = 0 clamped into the limits). */
static loam_status exclude_default_overlaps(ctx* c, loam_mb_model* m) {
    loam_error inner;
    /* room for the overlaps whatever the model's own cap (even 0); more than that are left as they
     * are (collide reports the overflow, the contacts it kept are still overlaps) */
    int cap = m->opt.max_contacts;
    m->opt.max_contacts = cap > 4096 ? cap : 4096;
    loam_mb_state* s = loam_mb_state_create(m, &inner);
    loam_status st = s ? LOAM_OK : inner.status;
    if (st == LOAM_OK) (void)loam_mb_collide(m, s, &inner);
    m->opt.max_contacts = cap;
    int n = 0;
    int* pairs = st == LOAM_OK ? loam_malloc(sizeof(int) * 2 * (size_t)(s->ncontact > 0 ? s->ncontact : 1)) : NULL;
    if (st == LOAM_OK && !pairs) st = loam_error_set(&inner, LOAM_ERR_NOMEM, "out of memory");
    for (int k = 0; st == LOAM_OK && k < s->ncontact; ++k) {
        const loam_mb_contact* ct = &s->contact[k];
        if (ct->body[0] >= 0 && ct->body[1] >= 0 && ct->depth > 0.0) pairs[2 * n] = ct->body[0], pairs[2 * n + 1] = ct->body[1], ++n;
    }
    if (st == LOAM_OK) st = loam_mb_model_exclude_pairs(m, pairs, n, &inner);
    loam_free(pairs);
    loam_mb_state_destroy(s);
    if (st != LOAM_OK) return loam_error_set(c->err, st, "%s: self-collision at the starting pose: %s", c->file, inner.message);
    return LOAM_OK;
}

static loam_status convert(ctx* c, xmlNode* robot, const loam_urdf_options* opt, loam_mb_model** out) {
    int nl = count_children(robot, "link"), nj = count_children(robot, "joint"), ng = 0;
    if (nl == 0) return fail(c, robot, "no <link>%s%s", NULL, NULL);
    link_rec* links = loam_calloc((size_t)nl, sizeof *links);
    joint_rec* joints = loam_calloc((size_t)(nj > 0 ? nj : 1), sizeof *joints);
    loam_mb_body_def* bodies = loam_calloc((size_t)nl, sizeof *bodies);
    int* order = loam_calloc((size_t)nl, sizeof *order);
    loam_mb_geom_def* geoms = NULL;
    loam_status st = LOAM_OK;
    if (!links || !joints || !bodies || !order) {
        st = loam_error_set(c->err, LOAM_ERR_NOMEM, "%s: out of memory", c->file);
        goto done;
    }
    int il = 0, ij = 0;
    for (xmlNode* k = robot->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE) continue;
        int is_link = strcmp((const char*)k->name, "link") == 0, is_joint = strcmp((const char*)k->name, "joint") == 0;
        if (!is_link && !is_joint) continue;
        const char* name = attr(k, "name");
        if (!name || !*name) {
            st = fail(c, k, "missing attribute 'name'%s%s", NULL, NULL);
            goto done;
        }
        if (strlen(name) >= LOAM_NAME_MAX) {
            st = fail(c, k, "name '%.80s...' is longer than 63 bytes%s", name, NULL);
            goto done;
        }
        if (is_link) {
            if (find_link(links, il, name) >= 0) {
                st = fail(c, k, "link name '%s' is used twice%s", name, NULL);
                goto done;
            }
            links[il++] = (link_rec){k, name, -1, -1};
            ng += count_children(k, "collision");
        } else {
            joints[ij++] = (joint_rec){k, name, -1, -1};
        }
    }
    int root = 0;
    if ((st = build_tree(c, robot, links, nl, joints, nj, &root)) != LOAM_OK) goto done;
    /* Breadth-first from the root, children in document order of their joints. */
    int head = 0, tail = 0;
    order[tail++] = root;
    links[root].body = 0;
    while (head < tail) {
        int p = order[head++];
        for (int j = 0; j < nj; ++j)
            if (joints[j].parent == p) {
                links[joints[j].child].body = tail;
                order[tail++] = joints[j].child;
            }
    }
    if (tail < nl) {
        for (int i = 0; i < nl; ++i)
            if (links[i].body < 0) {
                st = fail(c, links[i].node, "link '%.80s' is not connected to the root (a cycle of joints?)%s", links[i].name, NULL);
                goto done;
            }
    }
    geoms = loam_calloc((size_t)(ng > 0 ? ng : 1), sizeof *geoms);
    if (!geoms) {
        st = loam_error_set(c->err, LOAM_ERR_NOMEM, "%s: out of memory", c->file);
        goto done;
    }
    int ig = 0;
    for (int bi = 0; bi < nl; ++bi) {
        link_rec* l = &links[order[bi]];
        loam_mb_body_def* b = &bodies[bi];
        *b = loam_mb_body_default_def();
        snprintf(b->name, sizeof b->name, "%s", l->name);
        if (l->parent_joint < 0) {
            b->joint = opt->floating_base ? LOAM_JOINT_FLOATING : LOAM_JOINT_FIXED;
            b->placement = opt->base_pose;
        } else {
            b->parent = links[joints[l->parent_joint].parent].body;
            if ((st = joint_def(c, joints[l->parent_joint].node, b)) != LOAM_OK) goto done;
        }
        if ((st = inertial(c, l->node, b)) != LOAM_OK) goto done;
        loam_error inner;
        if (loam_mb_body_def_validate(b, bi, &inner) != LOAM_OK) {
            xmlNode* at = l->parent_joint >= 0 && strstr(inner.message, "inertia") == NULL && strstr(inner.message, "mass") == NULL
                              ? joints[l->parent_joint].node : l->node;
            st = fail(c, at, "%s%s", inner.message, NULL);
            goto done;
        }
        for (xmlNode* k = l->node->children; k; k = k->next)
            if (k->type == XML_ELEMENT_NODE && strcmp((const char*)k->name, "collision") == 0)
            {
                int skip = 0;
                if ((st = geometry(c, k, bi, &geoms[ig], &skip)) != LOAM_OK) goto done;
                ig += !skip;
            }
    }
    {
        loam_error inner;
        *out = loam_mb_model_create(bodies, nl, geoms, ig, &opt->mb, &inner);
        if (!*out) {
            st = loam_error_set(c->err, inner.status, "%s: %s", c->file, inner.message);
            goto done;
        }
        const char* rn = attr(robot, "name");
        snprintf((*out)->name, sizeof (*out)->name, "%s", rn ? rn : "");
        st = urdf_meshes_give(&c->meshes, *out, c->err);
        if (st == LOAM_OK && (st = loam_mb_model_set_self_collision(*out, 0, opt->self_collision, &inner)) != LOAM_OK)
            loam_error_set(c->err, st, "%s: options: self_collision: %s", c->file, inner.message);
        if (st == LOAM_OK && opt->srdf) st = urdf_srdf_apply(opt->srdf, *out, c->err);
        if (st == LOAM_OK && opt->self_collision == LOAM_SELF_COLLISION_ADJACENT) st = exclude_default_overlaps(c, *out);
        if (st != LOAM_OK) {
            loam_mb_model_destroy(*out);
            *out = NULL;
        }
    }
done:
    loam_free(links);
    loam_free(joints);
    loam_free(bodies);
    loam_free(order);
    loam_free(geoms);
    urdf_meshes_free(&c->meshes);
    return st;
}

loam_urdf_options loam_urdf_default_options(void) {
    loam_urdf_options o;
    o.floating_base = 0;
    o.base_pose = pd_identity();
    o.mb = loam_mb_default_options();
    o.self_collision = LOAM_SELF_COLLISION_ADJACENT;
    o.srdf = NULL;
    o.package_path = NULL;
    o.mesh_cell = 0.0;
    o.mesh_grids = 1;
    o.strict = 0;
    o.warn = loam_urdf_warn_stderr;
    o.warn_user = NULL;
    return o;
}

/* libxml2 reports every error after the first; the first is the one that names the cause. */
typedef struct first_error {
    int line;
    char message[300];
} first_error;

static void keep_first(void* data, xmlErrorPtr e) {
    first_error* f = data;
    if (f->line >= 0 || !e) return;
    f->line = e->line;
    snprintf(f->message, sizeof f->message, "%s", e->message ? e->message : "not well-formed XML");
    size_t n = strlen(f->message);
    while (n > 0 && (f->message[n - 1] == '\n' || f->message[n - 1] == ' ')) f->message[--n] = 0;
}

/* The parse, with the status returned (loam_urdf_parse's err may be NULL). */
static loam_status urdf_parse(const char* text, size_t length, const char* name, const loam_urdf_options* opt, loam_mb_model** out,
                              loam_error* err) {
    *out = NULL;
    if (!name) name = "(urdf)";
    if (!text) return loam_error_set(err, LOAM_ERR_INPUT, "%s: no text", name);
    if (length > (size_t)1 << 30) return loam_error_set(err, LOAM_ERR_INPUT, "%s: larger than 1 GiB", name);
    loam_urdf_options o = opt ? *opt : loam_urdf_default_options();
    xmlParserCtxtPtr pc = xmlNewParserCtxt();
    if (!pc) return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory", name);
    /* No network, no entity substitution, no messages on stderr: errors come back to the caller.
     * The structured handler is per thread in libxml2; the host's is put back afterwards. */
    first_error fe = {-1, ""};
    xmlStructuredErrorFunc saved = xmlStructuredError;
    void* saved_ctx = xmlStructuredErrorContext;
    xmlSetStructuredErrorFunc(&fe, keep_first);
    size_t plen = length;
    char* patched = urdf_declaration_patched(text, length, &plen);
    xmlDocPtr doc = xmlCtxtReadMemory(pc, patched ? patched : text, (int)plen, name, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    loam_free(patched);
    xmlSetStructuredErrorFunc(saved_ctx, saved);
    loam_status st = LOAM_OK;
    xmlNode* xacro = doc ? urdf_xacro_element(xmlDocGetRootElement(doc)) : NULL;
    if (!doc && urdf_xacro_text(text, length)) {
        st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%d: XML: %s; this is a xacro file (it has <xacro:...> elements), not URDF: expand it first "
                            "with `xacro %s > robot.urdf` (ROS's xacro package, or `pip install xacro`)",
                            name, fe.line > 0 ? fe.line : 0, fe.line >= 0 ? fe.message : "not well-formed", name);
    } else if (!doc) {
        st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%d: XML: %s", name, fe.line > 0 ? fe.line : 0, fe.line >= 0 ? fe.message : "not well-formed");
    } else if (xacro) {
        st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%ld: <%s%s>: this is a xacro file, not URDF: expand it first with `xacro %s > robot.urdf` "
                            "(ROS's xacro package, or `pip install xacro`)", name, xmlGetLineNo(xacro),
                            xacro->ns && xacro->ns->prefix ? "xacro:" : "", (const char*)xacro->name, name);
    } else {
        xmlNode* robot = xmlDocGetRootElement(doc);
        ctx c = {name, err, &o, {0}};
        if (!robot || strcmp((const char*)robot->name, "robot") != 0)
            st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%ld: the top element is <%s>, expected <robot>", name, robot ? xmlGetLineNo(robot) : 0L,
                                robot ? (const char*)robot->name : "");
        else if (!(o.mesh_cell >= 0.0 && o.mesh_cell < 1e3))
            st = loam_error_set(err, LOAM_ERR_INPUT, "%s: options: mesh_cell = %g m, expected 0 (automatic) or a size in (0, 1000)", name,
                                o.mesh_cell);
        else
            st = convert(&c, robot, &o, out);
        /* A file named *.xacro that fails for another reason still gets the hint. */
        size_t nl = strlen(name);
        if (st == LOAM_ERR_INPUT && nl > 6 && strcmp(name + nl - 6, ".xacro") == 0 && err) {
            size_t ml = strlen(err->message);
            snprintf(err->message + ml, sizeof err->message - ml, " (a .xacro file: if it uses xacro, expand it first with `xacro %s > robot.urdf`)",
                     name);
        }
    }
    if (doc) xmlFreeDoc(doc);
    xmlFreeParserCtxt(pc);
    return st;
}

/* The loaders work in the context of the options' model (opt->mb.context): the model, its mesh
 * grids and the loader's scratch all go there. */
loam_mb_model* loam_urdf_parse(const char* text, size_t length, const char* name, const loam_urdf_options* opt, loam_error* err) {
    loam_context* outer = loam_ctx_scope_enter(opt ? opt->mb.context : NULL);
    loam_mb_model* m;
    urdf_parse(text, length, name, opt, &m, err);
    loam_ctx_scope_leave(outer);
    return m;
}

static loam_mb_model* urdf_load(const char* path, const loam_urdf_options* opt, loam_error* err) {
    if (!path) {
        loam_error_set(err, LOAM_ERR_INPUT, "urdf: null path");
        return NULL;
    }
    unsigned char* data;
    size_t len;
    if (loam_read_file(path, (size_t)64 << 20, "URDF", &data, &len, err) != LOAM_OK) return NULL;
    loam_mb_model* m;
    urdf_parse((const char*)data, len, path, opt, &m, err);
    loam_free(data);
    return m;
}

loam_mb_model* loam_urdf_load(const char* path, const loam_urdf_options* opt, loam_error* err) {
    loam_mb_model* m;
    LOAM_IN_CONTEXT(opt ? opt->mb.context : NULL, m = urdf_load(path, opt, err));
    return m;
}
