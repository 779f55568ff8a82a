/* `loam robot KIND ... --out FILE`: write a soft robot file (docs/softbody.md) from the shell: a
 * voxel box, random voxels, or the paper's network-generated robot. The file can then be stepped with
 * `loam evolve --replay FILE` (and rendered with --frames). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli_args.h"
#include "app/commands.h"
#include "loam/softbody.h"

#define PREFIX "loam robot"

int loam_cmd_robot(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, PREFIX ": which robot? voxel, random or nn (see loam robot --help)\n");
        return LOAM_ERR_INPUT;
    }
    const char* kind = argv[1];
    if (strcmp(kind, "voxel") && strcmp(kind, "random") && strcmp(kind, "nn")) {
        fprintf(stderr, PREFIX ": unknown kind '%s' (voxel, random or nn)\n", kind);
        return LOAM_ERR_INPUT;
    }
    loam_softbody_voxel_def vd = loam_softbody_voxel_default_def();
    loam_softbody_nn_def nd = loam_softbody_nn_default_def();
    int size = 4, material = LOAM_SB_BONE;
    long seed = 1;
    double air = 0.3, voxel = 0.01, mass = 1.0;
    const char* out = NULL;
    for (int a = 2; a < argc; ++a) {
        char name[CLI_NAME_MAX];
        const char* val = cli_split_option(argv[a], name);
        int rc = cli_option_value(PREFIX, name, argc, argv, &a, &val);
        if (rc) return rc;
        if (!strcmp(name, "--size")) rc = cli_parse_int(PREFIX, name, val, 1, 39, &size);
        else if (!strcmp(name, "--material")) rc = cli_parse_int(PREFIX, name, val, 1, LOAM_SB_BASE_COUNT - 1, &material);
        else if (!strcmp(name, "--air")) rc = cli_parse_double(PREFIX, name, val, 0.0, 0, 0.95, &air);
        else if (!strcmp(name, "--seed")) rc = cli_parse_long(PREFIX, name, val, 0, 1L << 62, &seed);
        else if (!strcmp(name, "--points")) rc = cli_parse_int(PREFIX, name, val, 5, LOAM_SB_MAX_MASSES, &nd.points);
        else if (!strcmp(name, "--alpha")) rc = cli_parse_float(PREFIX, name, val, 0.0, 1, 1e3, &nd.alpha);
        else if (!strcmp(name, "--radius")) rc = cli_parse_float(PREFIX, name, val, 0.0, 1, 1e3, &nd.radius);
        else if (!strcmp(name, "--voxel-size")) rc = cli_parse_double(PREFIX, name, val, 0.0, 1, 1e3, &voxel);
        else if (!strcmp(name, "--mass")) rc = cli_parse_double(PREFIX, name, val, 0.0, 1, 1e6, &mass);
        else if (!strcmp(name, "--out")) out = val;
        if (rc) return rc;
    }
    if (!out) {
        fprintf(stderr, PREFIX ": --out FILE is required\n");
        return LOAM_ERR_INPUT;
    }
    loam_error err;
    loam_softbody_robot* r = NULL;
    loam_softbody_nn_info info = {0, 0, 0, 0, 0};
    if (!strcmp(kind, "nn")) {
        nd.mass = (float)mass;
        nd.origin.z = nd.radius;
        r = loam_softbody_nn_robot(&nd, (uint64_t)seed, &info, &err);
    } else {
        vd.nx = vd.ny = vd.nz = size;
        vd.size = (float)voxel;
        vd.mass = (float)mass;
        uint8_t* v = malloc((size_t)size * size * size);
        if (!v) return LOAM_ERR_NOMEM;
        loam_status st = LOAM_OK;
        if (!strcmp(kind, "voxel")) memset(v, material, (size_t)size * size * size);
        else st = loam_softbody_random_voxels(&vd, (uint64_t)seed, (float)air, v, &err);
        if (!st) r = loam_softbody_voxel_robot(&vd, v, &err);
        free(v);
    }
    if (!r || loam_softbody_robot_save(r, out, &err)) {
        fprintf(stderr, PREFIX ": %s\n", err.message);
        loam_softbody_robot_destroy(r);
        return err.status ? err.status : LOAM_ERR_INTERNAL;
    }
    printf("%s: %d masses, %d springs, %d faces", out, r->mass_count, r->spring_count, r->face_count);
    if (!strcmp(kind, "nn"))
        printf(" (%d tetrahedra; %d springs shorter than %g m rejected, %d points and %d faces left out)",
               info.tetrahedra, info.rejected_springs, (double)nd.min_spring, info.dropped_points, info.dropped_faces);
    printf("\n");
    loam_softbody_robot_destroy(r);
    return 0;
}
