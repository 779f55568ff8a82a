/* Subcommands of the `loam` command, run from cli_table.c's table. Each returns the process exit status
 * (0 ok, 2 bad input, 3 diverged, 4 I/O, 5 out of memory). argv[0] is the subcommand name. */
#ifndef LOAM_APP_COMMANDS_H
#define LOAM_APP_COMMANDS_H

#include "loam/scene.h"

int loam_cmd_run(int argc, char** argv);
/* `loam bench granular ...` (cmd_bench.c); argv[0] is its first option. */
int loam_bench_granular(int argc, char** argv);
/* `loam bench env ...` (cmd_bench_env.c); argv[0] is its first option. */
int loam_bench_env(int argc, char** argv);
/* `loam bench softbody ...` (cmd_bench_softbody.c). */
int loam_bench_softbody(int argc, char** argv);
/* `loam evolve ...` (cmd_evolve.c): evolve voxel robots, or replay a saved one. */
int loam_cmd_evolve(int argc, char** argv);
/* `loam robot KIND ... --out FILE` (cmd_robot.c): write a soft robot file. */
int loam_cmd_robot(int argc, char** argv);
/* `loam view SCENE ...` (cmd_view.c): a scene in a window as it runs; --headless is `loam run`. */
int loam_cmd_view(int argc, char** argv);
/* Loads a scene for `loam run` and `loam view` (cmd_run.c): 0, or the exit status after printing the
 * error (the status codes are the exit statuses). */
int app_load_scene(const char* path, const char* const* overrides, int count, loam_scene* scene);
/* `loam bench multibody ...` (cmd_bench_multibody.c); argv[0] is its first option. */
int loam_bench_multibody(int argc, char** argv);

#endif
