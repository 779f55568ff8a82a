/* The `loam` command: `loam run SCENE ...`, `loam bench granular ...`. */
#include <stdio.h>
#include <string.h>

#include "app/commands.h"
#include "loam/core.h"

static void usage(FILE* f) {
    fprintf(f,
            "loam %s: granular and deformable-world physics for robotics\n"
            "usage:\n"
            "  loam run SCENE [--steps N | --duration T] [--out DIR] [--frames K] [--threads T]\n"
            "                 [--set key=value ...] [--quiet]\n"
            "  loam bench granular --particles N [--steps M] [--threads T] [--json]\n"
            "  loam bench env --kind bulldozing|gear_tower|excavation [--particles N] [--batch B] [--json]\n"
            "  loam bench softbody [--solver force|xpbd_jacobi|xpbd_gs] [--threads T] [--json]\n"
            "  loam bench multibody [--scenario stirring|spheres|all] [--sizes N,N,...] [--json] [--csv FILE]\n"
            "  loam evolve [--env water|land] [--generations G] [--population P] [--out DIR]\n"
            "  loam evolve --replay ROBOT.json [--frames K] [--out DIR]\n"
            "  loam robot voxel|random|nn [--size N | --points N] [--seed S] --out ROBOT.json\n"
            "  loam help | --help | --version\n"
            "Run `loam run --help` or `loam bench granular --help` for details.\n"
            "Exit status: 0 ok, 2 bad input, 3 simulation diverged, 4 I/O error, 5 out of memory.\n",
            loam_version());
}

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char* cmd = argv[1];
    if (strcmp(cmd, "run") == 0) return loam_cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) return loam_cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "evolve") == 0) return loam_cmd_evolve(argc - 1, argv + 1);
    if (strcmp(cmd, "robot") == 0) return loam_cmd_robot(argc - 1, argv + 1);
    if (strcmp(cmd, "view") == 0) return loam_cmd_view(argc - 1, argv + 1);
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("loam %s\n", loam_version());
        return 0;
    }
    fprintf(stderr, "loam: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
