/* urdf_sweep: load URDF files as a user would (loam_urdf_load with the default options: welded base,
 * mesh collision grids, adjacent links excluded from self-collision) and report each on one line:
 *   ok<TAB>path<TAB>bodies<TAB>geoms<TAB>mesh geoms without a grid
 *   fail<TAB>path<TAB>message
 * Paths come from the arguments, or one per line on stdin. `--steps N` also steps each loaded model
 * N times (a diverging step is a failure); `--floating` loads with a floating base; `--self
 * all|adjacent|off` sets the self-collision (adjacent by default); `--no-grids`
 * reads meshes without building their grids (loam_urdf_options.mesh_grids = 0). Exit status 0
 * always (the caller, scripts/urdf_sweep.py, judges the lines). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loam/urdf.h"

static int steps = 0, floating = 0, grids = 1;
static loam_mb_self_collision self = LOAM_SELF_COLLISION_ADJACENT;

static void one(const char* path) {
    loam_urdf_options o = loam_urdf_default_options();
    o.floating_base = floating;
    o.mesh_grids = grids;
    o.self_collision = self;
    o.warn = NULL; /* the lines below carry what matters; warnings would interleave */
    o.warn_user = NULL;
    loam_mb_model* m = NULL;
    loam_error err;
    if (!(m = loam_urdf_load(path, &o, &err))) {
        for (char* c = err.message; *c; ++c)
            if (*c == '\n' || *c == '\t') *c = ' ';
        printf("fail\t%s\t%s\n", path, err.message);
        return;
    }
    int nogrid = 0;
    for (int g = 0; g < m->ngeom; ++g) nogrid += m->geom[g].shape.type == LOAM_SHAPE_MESH && !m->geom[g].shape.grid;
    loam_mb_state* s = NULL;
    loam_status st = LOAM_OK;
    if (steps > 0 && !(s = loam_mb_state_create(m, &err))) st = err.status;
    for (int n = 0; n < steps && st == LOAM_OK; ++n) st = loam_mb_step(m, s, 1, &err);
    if (st != LOAM_OK)
        printf("fail\t%s\tstep: %s\n", path, err.message);
    else
        printf("ok\t%s\t%d\t%d\t%d\n", path, m->nbody, m->ngeom, nogrid);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

int main(int argc, char** argv) {
    int files = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--floating") == 0) floating = 1;
        else if (strcmp(argv[i], "--no-grids") == 0) grids = 0;
        else if (strcmp(argv[i], "--self") == 0 && i + 1 < argc) {
            ++i;
            self = strcmp(argv[i], "all") == 0 ? LOAM_SELF_COLLISION_ALL : strcmp(argv[i], "off") == 0 ? LOAM_SELF_COLLISION_OFF : LOAM_SELF_COLLISION_ADJACENT;
        }
        else one(argv[i]), ++files;
        fflush(stdout);
    }
    if (files == 0) {
        char line[4096];
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\r\n")] = 0;
            if (line[0]) one(line);
            fflush(stdout);
        }
    }
    return 0;
}
