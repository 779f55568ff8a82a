/* `loam evolve`: evolutionary design of voxel robots (paper 002's main job). A genome is the voxel
 * grid's materials; a generation is one population stepped in one call; fitness is the horizontal
 * distance the centre of mass travelled per body length (Mercury: x only, clamped at 0). Elitist:
 * the best quarter is kept, the rest are mutated copies of tournament winners from the best half,
 * each reduced to its largest connected part. Writes OUT/fitness.csv, OUT/fitness.png (best red,
 * mean blue), OUT/best_robot.json; `loam evolve --replay OUT/best_robot.json` with the same options
 * steps that robot again and prints the same fitness (populations are bit-identical per robot), and
 * with --frames renders it (faces shaded, coloured by muscle activation). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/activation.h"
#include "app/cli_args.h"
#include "app/commands.h"
#include "app/plot.h"
#include "core/rng.h"
#include "loam/geom.h"
#include "loam/io.h"
#include "loam/render.h"
#include "loam/softbody.h"

#define PREFIX "loam evolve"

typedef struct evo_options {
    int generations, population, size, threads, quiet, frames;
    double sim_time, mutation, air, voxel_size;
    long seed;
    const char* out;
    const char* replay;
    loam_softbody_def def;
} evo_options;

static int parse(int argc, char** argv, evo_options* o) {
    for (int a = 0; a < argc; ++a) {
        char name[CLI_NAME_MAX];
        const char* val = cli_split_option(argv[a], name);
        if (!strcmp(name, "--quiet")) {
            if (val) return cli_bad_value(PREFIX, name, val, "no value");
            o->quiet = 1;
            continue;
        }
        int rc = cli_option_value(PREFIX, name, argc, argv, &a, &val);
        if (rc) return rc;
        loam_softbody_def* d = &o->def;
        if (!strcmp(name, "--generations")) rc = cli_parse_int(PREFIX, name, val, 1, 100000, &o->generations);
        else if (!strcmp(name, "--population")) rc = cli_parse_int(PREFIX, name, val, 4, 1 << 20, &o->population);
        else if (!strcmp(name, "--size")) rc = cli_parse_int(PREFIX, name, val, 1, 20, &o->size);
        else if (!strcmp(name, "--voxel-size")) rc = cli_parse_double(PREFIX, name, val, 0.0, 1, 100.0, &o->voxel_size);
        else if (!strcmp(name, "--sim-time")) rc = cli_parse_double(PREFIX, name, val, 0.0, 1, 1e5, &o->sim_time);
        else if (!strcmp(name, "--dt")) rc = cli_parse_double(PREFIX, name, val, 0.0, 1, 1.0, &d->dt);
        else if (!strcmp(name, "--zeta")) rc = cli_parse_float(PREFIX, name, val, 0.0, 1, 1.0, &d->zeta);
        else if (!strcmp(name, "--mutation")) rc = cli_parse_double(PREFIX, name, val, 0.0, 0, 1.0, &o->mutation);
        else if (!strcmp(name, "--air")) rc = cli_parse_double(PREFIX, name, val, 0.0, 0, 0.95, &o->air);
        else if (!strcmp(name, "--seed")) rc = cli_parse_long(PREFIX, name, val, 0, 1L << 62, &o->seed);
        else if (!strcmp(name, "--threads")) rc = cli_parse_int(PREFIX, name, val, 0, 4096, &o->threads);
        else if (!strcmp(name, "--frames")) rc = cli_parse_int(PREFIX, name, val, 0, 100000, &o->frames);
        else if (!strcmp(name, "--out")) o->out = val;
        else if (!strcmp(name, "--replay")) o->replay = val;
        else if (!strcmp(name, "--env")) {
            if (!strcmp(val, "water")) d->env = LOAM_SB_WATER;
            else if (!strcmp(val, "land")) d->env = LOAM_SB_LAND;
            else rc = cli_bad_value(PREFIX, name, val, "water or land");
        } else if (!strcmp(name, "--solver")) {
            if (!strcmp(val, "force")) d->solver = LOAM_SB_FORCE;
            else if (!strcmp(val, "xpbd_jacobi")) d->solver = LOAM_SB_XPBD_JACOBI;
            else if (!strcmp(val, "xpbd_gs")) d->solver = LOAM_SB_XPBD_GS;
            else rc = cli_bad_value(PREFIX, name, val, "force, xpbd_jacobi or xpbd_gs");
        }
        if (rc) return rc;
    }
    return 0;
}

static loam_softbody_voxel_def voxel_def(const evo_options* o) {
    loam_softbody_voxel_def vd = loam_softbody_voxel_default_def();
    vd.nx = vd.ny = vd.nz = o->size;
    vd.size = (float)o->voxel_size;
    vd.mass = (float)(1000.0 * o->voxel_size * o->voxel_size * o->voxel_size);
    return vd;
}

/* Distance per body length of each robot after sim_time. */
static loam_status evaluate(const evo_options* o, const loam_softbody_materials* mats, loam_softbody_robot* const* rs,
                            int count, double* fitness, loam_error* err) {
    loam_softbody_pop* p = loam_softbody_pop_create(&o->def, mats, (const loam_softbody_robot* const*)rs, count, err);
    if (!p) return err->status;
    loam_vec3* start = malloc(sizeof *start * (size_t)count);
    if (!start) {
        loam_softbody_pop_destroy(p);
        return loam_error_set(err, LOAM_ERR_NOMEM, PREFIX ": out of memory");
    }
    for (int b = 0; b < count; ++b) start[b] = loam_softbody_pop_com(p, b);
    int steps = (int)llround(o->sim_time / o->def.dt);
    loam_status st = loam_softbody_pop_step(p, steps, err);
    for (int b = 0; b < count && !st; ++b) {
        loam_vec3 c = loam_softbody_pop_com(p, b);
        double dx = c.x - start[b].x, dy = c.y - start[b].y;
        fitness[b] = sqrt(dx * dx + dy * dy) / loam_softbody_robot_length(rs[b]);
    }
    free(start);
    loam_softbody_pop_destroy(p);
    return st;
}

static uint8_t random_material(loam_rng* r, double air) {
    if (loam_rng_uniform(r) < air) return 0;
    int m = 1 + (int)(loam_rng_uniform(r) * (LOAM_SB_BASE_COUNT - 1));
    return (uint8_t)(m < LOAM_SB_BASE_COUNT ? m : LOAM_SB_BASE_COUNT - 1);
}

static int by_fitness_desc(const void* a, const void* b, const double* f) {
    int i = *(const int*)a, j = *(const int*)b;
    if (f[i] != f[j]) return f[i] > f[j] ? -1 : 1;
    return i - j;
}
static const double* g_sort_fitness; /* qsort has no context argument in C11 */
static int cmp_rank(const void* a, const void* b) { return by_fitness_desc(a, b, g_sort_fitness); }

static int replay(const evo_options* o, const loam_softbody_materials* mats);

int loam_cmd_evolve(int argc, char** argv) {
    evo_options o;
    memset(&o, 0, sizeof o);
    o.generations = 20, o.population = 32, o.size = 4, o.voxel_size = 0.01, o.sim_time = 2.0, o.mutation = 0.05;
    o.air = 0.3, o.seed = 1, o.out = "evolve_out";
    o.def = loam_softbody_default_def();
    o.def.dt = 5e-4;
    o.def.env = LOAM_SB_WATER;
    o.def.zeta = 0.999f; /* 0.99 per step (Mercury's, at dt 1e-3..5e-3) damps 20 /s at 5e-4: no swimming */
    int rc = parse(argc - 1, argv + 1, &o);
    if (rc) return rc < 0 ? 0 : rc;
    loam_set_threads(o.threads);
    loam_softbody_materials mats = loam_softbody_default_materials(1.0f);
    if (o.replay) return replay(&o, &mats);
    loam_error err;
    if (loam_make_dirs(o.out, &err)) {
        fprintf(stderr, PREFIX ": %s\n", err.message);
        return err.status;
    }
    loam_softbody_voxel_def vd = voxel_def(&o);
    int P = o.population, G = o.generations, nv = o.size * o.size * o.size;
    uint8_t* genomes = malloc((size_t)P * nv * 2);
    loam_softbody_robot** robots = calloc((size_t)P, sizeof *robots);
    double* fit = malloc(sizeof(double) * (size_t)P);
    double* best = malloc(sizeof(double) * (size_t)G);
    double* mean = malloc(sizeof(double) * (size_t)G);
    int* rank = malloc(sizeof(int) * (size_t)P);
    if (!genomes || !robots || !fit || !best || !mean || !rank) {
        fprintf(stderr, PREFIX ": out of memory\n");
        return LOAM_ERR_NOMEM;
    }
    uint8_t* next = genomes + (size_t)P * nv;
    loam_rng rng = {(uint64_t)o.seed * 0x9E3779B97F4A7C15ull + 1};
    for (int b = 0; b < P; ++b) loam_softbody_random_voxels(&vd, (uint64_t)o.seed * 1000003u + (uint64_t)b, (float)o.air,
                                                              genomes + (size_t)b * nv, NULL);
    int status = 0, best_index = 0;
    for (int g = 0; g < G && !status; ++g) {
        for (int b = 0; b < P; ++b) {
            loam_softbody_robot_destroy(robots[b]);
            robots[b] = loam_softbody_voxel_robot(&vd, genomes + (size_t)b * nv, &err);
            if (!robots[b]) break;
        }
        if ((status = robots[P - 1] ? evaluate(&o, &mats, robots, P, fit, &err) : err.status)) break;
        for (int b = 0; b < P; ++b) rank[b] = b;
        g_sort_fitness = fit;
        qsort(rank, (size_t)P, sizeof *rank, cmp_rank);
        best_index = rank[0];
        double sum = 0.0;
        for (int b = 0; b < P; ++b) sum += fit[b];
        best[g] = fit[rank[0]], mean[g] = sum / P;
        if (!o.quiet) printf("generation %3d: best %.4f, mean %.4f body lengths in %g s\n", g, best[g], mean[g], o.sim_time);
        if (g + 1 == G) break;
        /* next generation: elites, then mutated tournament winners from the better half */
        int elites = P / 4;
        for (int k = 0; k < P; ++k) {
            int parent = rank[k];
            if (k >= elites) {
                int a = rank[(int)(loam_rng_uniform(&rng) * (P / 2))], c = rank[(int)(loam_rng_uniform(&rng) * (P / 2))];
                parent = fit[a] > fit[c] || (fit[a] == fit[c] && a < c) ? a : c;
            }
            uint8_t* child = next + (size_t)k * nv;
            memcpy(child, genomes + (size_t)parent * nv, (size_t)nv);
            if (k >= elites) {
                for (int v = 0; v < nv; ++v)
                    if (loam_rng_uniform(&rng) < o.mutation) child[v] = random_material(&rng, o.air);
                loam_softbody_voxels_keep_largest(&vd, child, NULL);
            }
        }
        memcpy(genomes, next, (size_t)P * nv);
    }
    if (status) {
        fprintf(stderr, PREFIX ": %s\n", err.message);
    } else {
        char path[4096];
        int G_done = G;
        snprintf(path, sizeof path, "%s/best_robot.json", o.out);
        status = loam_softbody_robot_save(robots[best_index], path, &err);
        loam_atomic_file f;
        char csv[4096];
        snprintf(csv, sizeof csv, "%s/fitness.csv", o.out);
        if (!status && !(status = loam_atomic_open(&f, csv, &err))) {
            fprintf(f.fp, "generation,best,mean\n");
            for (int g = 0; g < G_done; ++g) fprintf(f.fp, "%d,%.9g,%.9g\n", g, best[g], mean[g]);
            status = loam_atomic_commit(&f, &err);
        }
        double top = 0.0;
        for (int g = 0; g < G_done; ++g) top = fmax(top, best[g]);
        double grid = pow(10.0, floor(log10(top > 0 ? top : 1.0)));
        while (top / grid < 4.0) grid /= 2.0; /* at least four grey lines */
        plot_series s[2] = {{mean, {40, 90, 220}}, {best, {220, 40, 40}}};
        char png[4096];
        snprintf(png, sizeof png, "%s/fitness.png", o.out);
        if (!status) status = plot_lines_png(png, 640, 400, G_done, s, 2, top * 1.1, grid, &err);
        if (status) fprintf(stderr, PREFIX ": %s\n", err.message);
        else
            printf("best: %.6f body lengths (robot %d of the last generation); wrote %s, %s (y from 0 to %.4g, grey "
                   "lines every %g), %s\nreplay: loam evolve --replay %s --env %s --sim-time %g --dt %g --zeta %g\n",
                   best[G - 1], best_index, path, png, top * 1.1, grid, csv, path,
                   o.def.env == LOAM_SB_LAND ? "land" : "water", o.sim_time, o.def.dt, (double)o.def.zeta);
    }
    for (int b = 0; b < P; ++b) loam_softbody_robot_destroy(robots[b]);
    free(genomes), free(robots), free(fit), free(best), free(mean), free(rank);
    return status;
}

static int replay(const evo_options* o, const loam_softbody_materials* mats) {
    loam_error err;
    loam_softbody_robot* r = loam_softbody_robot_load(o->replay, &err);
    if (!r) {
        fprintf(stderr, PREFIX ": %s\n", err.message);
        return err.status;
    }
    if (!o->frames) {
        double fitness = 0.0;
        loam_status st = evaluate(o, mats, &r, 1, &fitness, &err);
        if (st) fprintf(stderr, PREFIX ": %s\n", err.message);
        else printf("%s: %.6f body lengths in %g s\n", o->replay, fitness, o->sim_time);
        loam_softbody_robot_destroy(r);
        return st;
    }
    /* Frames: the surface coloured by its muscles' activation, the camera following the robot. */
    loam_status st = loam_make_dirs(o->out, &err);
    loam_softbody_pop* p = st ? NULL : loam_softbody_pop_create(&o->def, mats, (const loam_softbody_robot* const*)&r, 1, &err);
    float* act = malloc(sizeof(float) * (size_t)r->mass_count);
    float* rad = malloc(sizeof(float) * (size_t)r->mass_count);
    int* cnt = malloc(sizeof(int) * (size_t)r->mass_count);
    float len = loam_softbody_robot_length(r), shortest = INFINITY;
    for (int s = 0; s < r->spring_count; ++s) shortest = fminf(shortest, r->rest[s]);
    if (!isfinite(shortest)) shortest = 0.1f * len;
    for (int i = 0; i < r->mass_count && rad; ++i) rad[i] = 0.3f * shortest;
    int steps = (int)llround(o->sim_time / o->def.dt), per = steps / o->frames > 0 ? steps / o->frames : 1;
    loam_image img = {0};
    loam_camera cam = loam_camera_default();
    cam.width = 640, cam.height = 360;
    if (!st && p && act && rad && cnt) st = loam_image_alloc(&img, cam.width, cam.height, &err);
    else if (!st) st = p ? loam_error_set(&err, LOAM_ERR_NOMEM, "out of memory") : err.status;
    for (int k = 0; k < o->frames && !st; ++k) {
        st = loam_softbody_pop_step(p, k ? per : 0, &err);
        if (st) break;
        loam_softbody_state s;
        loam_softbody_pop_state(p, 0, &s, NULL);
        loam_vec3 c = loam_softbody_pop_com(p, 0);
        cam.target = c;
        cam.eye = (loam_vec3){c.x + 1.5f * len, c.y - 2.5f * len, c.z + 1.2f * len};
        app_muscle_activation(r, mats, loam_softbody_pop_time(p), act, cnt);
        /* Surface faces shaded and coloured by activation; a robot without faces as spheres. */
        loam_render_particles rp = loam_render_particles_default();
        rp.count = r->face_count ? 0 : s.mass_count, rp.x = s.x, rp.y = s.y, rp.z = s.z, rp.radius = rad;
        rp.scalar = act, rp.scalar_min = -1.0f, rp.scalar_max = 1.0f;
        /* land: the floor as a plane shape (a box would do as well) */
        loam_shape floor_shape;
        memset(&floor_shape, 0, sizeof floor_shape);
        floor_shape.type = LOAM_SHAPE_PLANE;
        floor_shape.local.q.w = 1.0f;
        loam_pose floor_pose = {{0.0f, 0.0f, o->def.floor_z}, {1.0f, 0.0f, 0.0f, 0.0f}};
        const uint8_t floor_rgb[3] = {190, 180, 160};
        loam_render_shapes rs = loam_render_shapes_default();
        rs.count = 1, rs.shapes = &floor_shape, rs.world_poses = &floor_pose, rs.rgb = floor_rgb;
        if ((st = loam_render(&cam, &rp, o->def.env == LOAM_SB_LAND ? &rs : NULL, &img, &err))) break;
        loam_render_triangles tr = loam_render_triangles_default();
        tr.count = r->face_count, tr.index = r->face, tr.vertex_count = s.mass_count;
        tr.x = s.x, tr.y = s.y, tr.z = s.z, tr.scalar = act, tr.scalar_min = -1.0f, tr.scalar_max = 1.0f;
        if ((st = loam_render_triangles_draw(&cam, &tr, &img, &err))) break;
        char path[4096];
        snprintf(path, sizeof path, "%s/frame_%05d.png", o->out, k);
        st = loam_image_write_png(&img, path, &err);
    }
    if (!st && o->frames > 0) {
        char pattern[4096], mp4[4096];
        snprintf(pattern, sizeof pattern, "%s/frame_%%05d.png", o->out);
        snprintf(mp4, sizeof mp4, "%s/replay.mp4", o->out);
        loam_video_params vp = {pattern, 0, 30.0, mp4};
        int missing = 0;
        loam_error verr;
        if (loam_video_encode(&vp, &missing, &verr)) fprintf(stderr, PREFIX ": no video: %s\n", verr.message);
        printf("%s: %d frames in %s (colour: muscle activation, -1 to 1)\n", o->replay, o->frames, o->out);
    }
    if (st) fprintf(stderr, PREFIX ": %s\n", err.message);
    loam_image_destroy(&img);
    free(act), free(rad), free(cnt);
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
    return st;
}
