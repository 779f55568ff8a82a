/* Builds the column-at-rest bed: a lattice of spheres inside a cylinder or an open box. */
#include "app/column_scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

column_spec column_default_spec(void) {
    column_spec s;
    memset(&s, 0, sizeof s);
    s.particles = 10000;
    s.container = COLUMN_CYLINDER;
    s.radius = 0.005f;
    s.density = 2500.0f;
    s.wall_friction = 0.5f;
    s.speed = 0.05f;     /* in.column: random(-0.05, 0.05) m/s */
    s.jitter = -1.0f;    /* < 0: 0.1 r, resolved in column_build once r is known */
    s.seed = 15485863u;  /* in.column's first seed, for no reason but to have one */
    return s;
}

void column_default_footprint(int particles, int* nx, int* ny) {
    static const int known[][3] = {{10000, 25, 20}, {50000, 50, 50}, {100000, 100, 50}};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k)
        if (particles == known[k][0]) {
            *nx = known[k][1];
            *ny = known[k][2];
            return;
        }
    int layer = (particles + 19) / 20;
    int a = (int)ceil(sqrt((double)layer));
    *nx = a > 0 ? a : 1;
    *ny = (layer + *nx - 1) / *nx > 0 ? (layer + *nx - 1) / *nx : 1;
}

float column_default_radius(int particles, float radius) {
    /* Settled volume N V / 0.6 = pi R^2 H with H = 4 R. At least 3 diameters wide so the lattice has
     * room for a few particles per layer. */
    double v = (double)particles * 4.0 / 3.0 * M_PI * pow(radius, 3.0) / 0.6;
    double rc = cbrt(v / (4.0 * M_PI));
    return (float)fmax(rc, 6.0 * radius);
}

/* splitmix64: a tiny, well-mixed generator; the bed must not depend on the C library's rand(). */
static uint64_t next_u64(uint64_t* state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-a, a]. */
static float uniform_sym(uint64_t* state, float a) {
    double u = (double)(next_u64(state) >> 11) * (1.0 / 9007199254740992.0);
    return (float)((2.0 * u - 1.0) * a);
}

loam_status column_build(loam_world* world, const column_spec* spec, column_info* info, loam_error* err) {
    column_spec s = *spec;
    float r = s.radius;
    if (s.spacing <= 0.0f) s.spacing = 2.4f * r;
    if (s.jitter < 0.0f) s.jitter = 0.1f * r;
    float sp = s.spacing;
    if (!(s.particles > 0 && r > 0.0f && sp >= 2.0f * r + 2.0f * s.jitter))
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "column: %d particles of radius %g m at spacing %g m with jitter %g m do not fit",
                              s.particles, r, sp, s.jitter);
    memset(info, 0, sizeof *info);
    float wall = 4.0f * r; /* thick enough that no particle can cross it in one step */

    /* Candidate lattice columns (x, y) of one layer, in row-major order so particle indices stay
     * spatially coherent (neighbours in memory are neighbours in space). */
    int grid_x, grid_y;
    float x0, y0;
    if (s.container == COLUMN_BOX) {
        if (s.nx <= 0 || s.ny <= 0) column_default_footprint(s.particles, &s.nx, &s.ny);
        grid_x = s.nx;
        grid_y = s.ny;
        /* in.column's points sit at (i + 0.5) s in [0, nx s]; loam's box frame is centred. */
        x0 = -0.5f * (float)s.nx * sp + 0.5f * sp;
        y0 = -0.5f * (float)s.ny * sp + 0.5f * sp;
        info->inner_x = (float)s.nx * sp;
        info->inner_y = (float)s.ny * sp;
    } else {
        if (s.column_radius <= 0.0f) s.column_radius = column_default_radius(s.particles, r);
        int half = (int)floorf(s.column_radius / sp);
        grid_x = grid_y = 2 * half + 1;
        x0 = y0 = -(float)half * sp;
        info->column_radius = s.column_radius;
    }
    float* cx = loam_malloc(sizeof(float) * (size_t)grid_x * (size_t)grid_y);
    float* cy = loam_malloc(sizeof(float) * (size_t)grid_x * (size_t)grid_y);
    float* xyz = loam_malloc(sizeof(float) * 3 * (size_t)s.particles);
    float* vel = loam_malloc(sizeof(float) * 3 * (size_t)s.particles);
    float* rad = loam_malloc(sizeof(float) * (size_t)s.particles);
    loam_status st = LOAM_OK;
    if (!cx || !cy || !xyz || !vel || !rad) {
        st = loam_error_set(err, LOAM_ERR_NOMEM, "column: out of memory for %d particles", s.particles);
        goto done;
    }
    int per_layer = 0;
    for (int j = 0; j < grid_y; ++j)
        for (int i = 0; i < grid_x; ++i) {
            float x = x0 + (float)i * sp, y = y0 + (float)j * sp;
            /* In the cylinder keep a clearance of jitter + r/10 from the wall, so no particle starts
             * touching it. */
            if (s.container == COLUMN_CYLINDER && sqrtf(x * x + y * y) + r + s.jitter + 0.1f * r > s.column_radius)
                continue;
            cx[per_layer] = x;
            cy[per_layer] = y;
            ++per_layer;
        }
    if (per_layer == 0) {
        st = loam_error_set(err, LOAM_ERR_INPUT, "column: a cylinder of radius %g m holds no particle of radius %g m",
                            s.column_radius, r);
        goto done;
    }
    uint64_t rng = s.seed;
    for (int p = 0; p < s.particles; ++p) {
        int layer = p / per_layer, k = p % per_layer;
        xyz[3 * p] = cx[k] + uniform_sym(&rng, s.jitter);
        xyz[3 * p + 1] = cy[k] + uniform_sym(&rng, s.jitter);
        xyz[3 * p + 2] = ((float)layer + 0.5f) * sp; /* in.column: z = (k + 0.5) s above the floor */
        vel[3 * p] = uniform_sym(&rng, s.speed);
        vel[3 * p + 1] = uniform_sym(&rng, s.speed);
        vel[3 * p + 2] = 0.0f;
        rad[p] = r;
    }
    info->per_layer = per_layer;
    info->layers = (s.particles + per_layer - 1) / per_layer;
    info->nx = grid_x;
    info->ny = grid_y;
    info->lattice_top = ((float)(info->layers - 1) + 0.5f) * sp;
    /* in.column: walls reach 2 cm above the lattice. */
    info->wall_height = (float)info->layers * sp + 0.02f;

    st = loam_world_add_particles(world, s.particles, xyz, vel, rad, s.density, err);
    if (st != LOAM_OK) goto done;
    loam_body_def def = loam_body_default_def();
    def.motion = LOAM_MOTION_FIXED;
    if (s.container == COLUMN_BOX) {
        snprintf(def.name, sizeof def.name, "box");
        loam_vec3 half = {0.5f * info->inner_x, 0.5f * info->inner_y, 0.5f * info->wall_height};
        def.shape_count = loam_open_box_pieces(half, wall, s.wall_friction, def.shapes);
    } else {
        snprintf(def.name, sizeof def.name, "cylinder");
        def.shape_count = loam_tube_pieces(s.column_radius, 0.5f * info->wall_height, wall, 1, s.wall_friction,
                                           def.shapes);
    }
    if (loam_world_add_body(world, &def, err) < 0) st = err ? err->status : LOAM_ERR_INPUT;
done:
    loam_free(cx);
    loam_free(cy);
    loam_free(xyz);
    loam_free(vel);
    loam_free(rad);
    return st;
}
