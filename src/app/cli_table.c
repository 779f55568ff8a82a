/* The `loam` command's table of commands and options (cli_table.h): the one place a command's usage,
 * description and options are written. README.md's command block is `loam --help`'s usage lines
 * (tests/cli_help.sh compares them). */
#include "app/cli_table.h"

#include <string.h>

#include "app/commands.h"

static const cli_option run_options[] = {
    {"--steps N", "steps to run (default: the scene's sim.duration / sim.dt)"},
    {"--duration T", "simulated seconds to run (instead of --steps)"},
    {"--out DIR", "output folder (default out/<scene name>)"},
    {"--frames K", "frames to write over the run (default: the scene's output.frames)"},
    {"--threads T", "threads, 0 = all cores (default: the scene's sim.threads)"},
    {"--set key=value", "override a scene value by its dotted key, e.g. --set solver.sweeps=5\n(repeatable; lists by index or name: --set bodies.blade.motion.linear=[0.2,0,0])"},
    {"--quiet", "no progress output"},
    {NULL, NULL}};

static const cli_option view_options[] = {
    {"--max-steps N", "stop stepping after N steps (default: the scene's sim.duration / sim.dt;\na robot: never)"},
    {"--seconds S", "close the window after S seconds of wall time (default: when you close it)"},
    {"--screenshot FILE", "write the last frame shown to FILE (PNG) when the window closes"},
    {"--size WxH", "window size in pixels (default 1024x640)"},
    {"--realtime", "no faster than real time (default: as fast as it steps)"},
    {"--threads T", "threads, 0 = all cores (default: the scene's sim.threads)"},
    {"--set key=value", "override a scene value by its dotted key (repeatable; as loam run)"},
    {"--robot FILE", "a soft robot file instead of a scene; --env water (default) or land"},
    {"--env E", "with --robot: water (default) or land"},
    {"--headless", "no window: run as `loam run` with the other options (PNG frames, MP4)"},
    {NULL, NULL}};

static const cli_option bench_granular_options[] = {
    {"--particles N", "particles (default 10000)"},
    {"--steps M", "timed steps at rest (default 200)"},
    {"--settle S", "settling steps before timing (default 1500)"},
    {"--settle-friction MU", "particle friction while settling (default: --friction); loam's\nparticles do not spin, so a frictional pour locks into a looser bed\nthan rotating spheres: a lower value here packs it like LIGGGHTS' bed"},
    {"--threads T", "threads, 0 = all cores (default 0)"},
    {"--container C", "cylinder (default) or box (in.column's open box)"},
    {"--json", "also print one JSON object as the last line"},
    {"--quiet", "no progress on stderr"},
    {"--dt DT", "time step, s (default 1e-3)"},
    {"--solver S", "gs (coloured projected Gauss-Seidel, default) or jacobi (mass-split\nprojected Jacobi, paper 000)"},
    {"--sweeps K", "contact sweeps per step (default 3)"},
    {"--push-sweeps P", "sweeps of the overlap-removal (split impulse) solve; 0 = Baumgarte inside\nthe velocity solve (default: 2 for gs, 1 for jacobi)"},
    {"--baumgarte A", "overlap fraction removed per step (default 0.2)"},
    {"--relaxation W", "over-relaxation of each contact's effective mass in (0, 2] (default: 1 for\ngs, 1.8 for jacobi)"},
    {"--friction MU", "particle-particle Coulomb coefficient (default 0.5); also the walls'\nunless --wall-friction is given"},
    {"--wall-friction MU", "container wall Coulomb coefficient"},
    {"--margin F", "speculative contact margin, fraction of r (default 0.1)"},
    {"--warm-start 0|1", "warm start (default 1)"},
    {"--skin F", "neighbour-list skin, fraction of r; 0 = query the hash every step (default 0.3)"},
    {"--reorder-interval I", "renumber particles for locality every I steps, 0 = never (default 10)"},
    {"--hash-table-size H", "hash buckets, 0 = 2 N (default 0)"},
    {"--damping G", "velocity decay rate, 1/s (default 0)"},
    {"--tolerance TOL", "early sweep stop, m/s (default 0 = always all sweeps)"},
    {"--radius R", "particle radius, m (default 0.005)"},
    {"--density RHO", "kg/m^3 (default 2500)"},
    {"--nx NX", "box lattice footprint along x (default in.column's: 10k 25x20, 50k 50x50,\n100k 100x50, else near-square with 20 layers)"},
    {"--ny NY", "box lattice footprint along y (default: as --nx)"},
    {"--column-radius RC", "cylinder inner radius, m (default: settled column ~2 diameters tall)"},
    {"--seed S", "lattice jitter and initial velocity seed"},
    {NULL, NULL}};

static const cli_option bench_env_options[] = {
    {"--kind K", "bulldozing (default), gear_tower or excavation"},
    {"--particles N", "particles (default: the kind's, 10000 / 20000 / 10000)"},
    {"--batch B", "environments stepped together (default 1)"},
    {"--actions A", "timed actions (default 10)"},
    {"--warmup W", "untimed actions first (default 2)"},
    {"--steps-per-action S", "physics steps per action (default: the kind's, 100)"},
    {"--gears G", "gear tower: gears (default 4)"},
    {"--hash-table-size H", "spatial hash buckets, 0 = 2 N (default 0)"},
    {"--sweeps K", "contact sweeps per step (default 3)"},
    {"--dt DT", "physics step, s (default: the kind's)"},
    {"--observe 0|1", "compute observations (default 1)"},
    {"--sleep-speed V", "particles slower than V m/s for 0.05 s sleep; 0 = never (default: 0.01)"},
    {"--threads T", "threads, 0 = all cores (default 0)"},
    {"--seed S", "reset seed (default 0)"},
    {"--json", "also print one JSON object as the last line"},
    {NULL, NULL}};

static const cli_option bench_softbody_options[] = {
    {"--size N", "voxels per side of the robot (default 10: 1331 masses, 14230 springs)"},
    {"--robot FILE", "a robot file (loam robot ... --out FILE) instead of the voxel box"},
    {"--solver S", "force (default), xpbd_jacobi or xpbd_gs"},
    {"--iterations K", "XPBD sweeps per step (default 4)"},
    {"--env E", "water (default), linear_drag, land or vacuum"},
    {"--dt DT", "time step, s (default 1e-4, Mercury's benchmark)"},
    {"--sim-time T", "simulated seconds per population (default 0.1, Mercury's)"},
    {"--target X", "stop once springs x steps >= X (default 1e10)"},
    {"--time-limit S", "stop before a doubling predicted to take longer than S wall s (default 120)"},
    {"--max-robots B", "largest population (default 1048576)"},
    {"--threads T", "threads, 0 = all cores (default 0)"},
    {"--json", "also print one JSON object as the last line"},
    {"--quiet", "no progress on stderr"},
    {NULL, NULL}};

static const cli_option bench_multibody_options[] = {
    {"--scenario S", "stirring, spheres, cable, insertion, cable_manip, a comma list, or all\n(default all)"},
    {"--sizes N,N,...", "spheres per scene, cable segments, or FEM beam pieces (1 to 8) for\ninsertion (default 100,200,400; insertion alone: 4; cable_manip: >= 60)"},
    {"--solvers L", "comma list of subadmm, pgs, pj, fadmm, nnewton, pgs_cg (PGS with nonsmooth\nconjugate gradients, the paper's PGS baseline) (default all)"},
    {"--steps S", "measured steps per run (default 10)"},
    {"--repeat R", "fixed budgets: time each step's solve R times from the same state and\nkeep the least, against a shared machine's noise (default 1)"},
    {"--settle S", "settling steps before measuring (default 250)"},
    {"--max-dense N", "largest size for the dense baselines fadmm and nnewton (default 200)"},
    {"--beta-scale X", "SubADMM/full ADMM penalty multiplier (default 10, the library's)"},
    {"--adapt 0|1", "SubADMM/full ADMM residual balancing of the penalty (default 1, the library's)"},
    {"--relaxation A", "SubADMM/full ADMM over-relaxation in (0, 2) (default 1, the library's)"},
    {"--relaxation-rigid A", "the same for contacts among rigid bodies and short arms (subsystems of\nat most 12 unknowns; default 1.5, the library's)"},
    {"--penalty-rigid K", "SubADMM/full ADMM: such a subsystem's penalty per constraint, K / (J A^-1 J^T);\n0: the subsystem's, the paper's rule (default 5, the library's)"},
    {"--accel K", "SubADMM/full ADMM acceleration: 0 none, 1 Nesterov restart, 2 Anderson, -1 Anderson\nwith FEM pieces, else none (default the library's: -1)"},
    {"--target-error E[,E...]", "instead: per step, the fewest iterations each solver needs to\nbring the constraint error to E m/s, and the solve time at that budget;\nup to 8 targets (with --png: the work-precision plot, time against E)"},
    {"--max-iterations K", "--target-error: give up above K iterations (default 4096)"},
    {"--urdf PATH", "the Panda of the stirring, insertion and cable_manip scenes\n(default " LOAM_SOURCE_DIR "/urdf/panda.urdf)"},
    {"--base-urdf PATH", "the mobile base for cable_manip (default " LOAM_SOURCE_DIR "/urdf/mobile_base.urdf)"},
    {"--threads T", "threads, 0 = all cores (default 1); with more than one on a small scene,\nOMP_WAIT_POLICY=active in the environment spares the team's wake-ups"},
    {"--csv FILE", "also write the rows as CSV"},
    {"--png FILE", "also draw time against size at the first budget (one panel per scenario\nmeasured, each solver's points and linear fit, R^2 in the legend)"},
    {"--step-stats", "instead: whole steps of the stirring scene with one solver (--solver,\n--iterations), their wall time and contact depths, as a peer (MuJoCo,\nbench/peers/mujoco_stirring.py) measures them"},
    {"--solver S", "--step-stats: the solver (default pgs)"},
    {"--iterations K", "--step-stats: its iterations per step (default 30)"},
    {"--tolerance TOL", "--step-stats: stop a step's iterations when no impulse changes a velocity\nby more than TOL m/s (default 1e-10)"},
    {"--json", "also print one JSON object per row and per fit"},
    {NULL, NULL}};

static const cli_option evolve_options[] = {
    {"--replay ROBOT.json", "step a saved robot again (its best_robot.json) instead of evolving"},
    {"--env E", "water (default) or land"},
    {"--generations G", "default 20"},
    {"--population P", "robots per generation, >= 4 (default 32)"},
    {"--size N", "voxels per side (default 4)"},
    {"--voxel-size H", "m (default 0.01; masses 1000 H^3 kg: as dense as water)"},
    {"--sim-time T", "simulated seconds per evaluation (default 2)"},
    {"--dt DT", "s (default 5e-4)"},
    {"--solver S", "force (default), xpbd_jacobi or xpbd_gs"},
    {"--zeta Z", "velocity kept per step (default 0.999: a decay of 2 /s at dt 5e-4)"},
    {"--mutation M", "probability that a voxel changes material (default 0.05)"},
    {"--air A", "air fraction of the first generation and of mutations (default 0.3)"},
    {"--seed S", "default 1"},
    {"--threads T", "0 = all cores (default 0)"},
    {"--out DIR", "default evolve_out"},
    {"--frames K", "--replay only: render K PNG frames (and an MP4 when ffmpeg is there) to --out"},
    {"--quiet", "no per-generation lines"},
    {NULL, NULL}};

static const cli_option robot_options[] = {
    {"--out FILE", "the robot file to write (required)"},
    {"--size N", "voxel, random: voxels per side (default 4)"},
    {"--material ID", "voxel: the material, 1..22 (default 22, bone)"},
    {"--air A", "random: air fraction (default 0.3)"},
    {"--points N", "nn: points of the network's cloud (default 200)"},
    {"--alpha A", "nn: alpha-shape parameter (default 0.5)"},
    {"--radius R", "nn: cloud radius, m (default 0.05)"},
    {"--seed S", "random, nn: seed (default 1)"},
    {"--voxel-size H", "voxel spacing, m (default 0.01)"},
    {"--mass M", "kg per mass (default 1)"},
    {NULL, NULL}};

/* The bench handlers take their options from argv[0]. */
static int bench_granular(int argc, char** argv) { return loam_bench_granular(argc - 1, argv + 1); }
static int bench_env(int argc, char** argv) { return loam_bench_env(argc - 1, argv + 1); }
static int bench_softbody(int argc, char** argv) { return loam_bench_softbody(argc - 1, argv + 1); }
static int bench_multibody(int argc, char** argv) { return loam_bench_multibody(argc - 1, argv + 1); }

const cli_command cli_commands[] = {
    {"run", "SCENE [--steps N | --duration T] [--out DIR] [--frames K] [--threads T] [--set key=value ...] [--quiet]",
     "Runs a scene file (docs/scene-format.md) and writes frames, particle files, body forces and a summary.",
     loam_cmd_run, run_options},
    {"view", "SCENE [--max-steps N] [--seconds S] [--screenshot FILE] [--size WxH] [--realtime] [--threads T] [--set key=value ...]\n"
             "--robot ROBOT.json [--env water|land] [the same options]\n"
             "--headless SCENE [loam run's options]",
     "Runs a scene file in a window, drawing particles and bodies as they move; or a soft robot\n"
     "(loam robot, loam evolve) swimming or walking, coloured by muscle activation. Mouse: left drag\n"
     "orbits, right or middle drag pans, the wheel zooms; R frames everything again. Keys: space pauses\n"
     "and resumes, N or Right steps once (pausing), Esc or Q closes. The title bar shows steps per\n"
     "second and the simulated time. Built without GLFW and OpenGL, only --headless works.",
     loam_cmd_view, view_options},
    {"bench granular", "[--particles N] [--steps M] [--threads T] [--container cylinder|box] [--json]",
     "Column at rest (paper 000 Figs. 3/6): N spheres (R 5 mm, rho 2500, mu 0.5) settle from a lattice\n"
     "into a container, then M steps at rest are timed.",
     bench_granular, bench_granular_options},
    {"bench env", "[--kind bulldozing|gear_tower|excavation] [--particles N] [--batch B] [--json]",
     "Builds an environment (settling its bed once), resets it, then times A actions (after W\n"
     "warm-up actions) with the scripted policy. With --batch B, B copies step together in one\n"
     "call, the copies in parallel (each world on one thread).",
     bench_env, bench_env_options},
    {"bench softbody", "[--solver force|xpbd_jacobi|xpbd_gs] [--env water|linear_drag|land|vacuum] [--threads T] [--json]",
     "Mercury's benchmark (paper 002 Fig. 4): populations of the default voxel robot, doubled from 1\n"
     "until springs x steps >= --target or the time limit; springs updated per second vs total springs.",
     bench_softbody, bench_softbody_options},
    {"bench multibody",
     "[--scenario stirring|spheres|cable|insertion|cable_manip|all] [--sizes N,N,...] [--solvers L] [--json] "
     "[--csv FILE] [--png FILE] [--target-error E,E,...] [--step-stats]",
     "Paper 004, Table I and the scaling plot: each scenario settles with PGS, then every solver\n"
     "steps the same state at 30/60/90 iterations (nonsmooth Newton: 3/6/9).",
     bench_multibody, bench_multibody_options},
    {"evolve", "[--env water|land] [--generations G] [--population P] [--size N] [--out DIR]\n"
               "--replay DIR/best_robot.json [--env water|land] [--frames K] [--out DIR]",
     "Evolves voxel robots for distance per body length (OUT/fitness.csv, OUT/fitness.png,\n"
     "OUT/best_robot.json); with --replay, steps a saved robot again (same fitness, bit for bit) and\n"
     "renders it with --frames.",
     loam_cmd_evolve, evolve_options},
    {"robot", "voxel|random|nn [--size N | --points N] [--seed S] --out ROBOT.json",
     "Writes a soft robot file: voxel (a box of one material), random (random voxels, one body) or nn\n"
     "(network-generated point cloud, alpha shape over qhull's Delaunay tetrahedra).",
     loam_cmd_robot, robot_options},
};
const int cli_command_count = (int)(sizeof cli_commands / sizeof cli_commands[0]);

const cli_command* cli_command_find(const char* name) {
    for (int k = 0; k < cli_command_count; ++k)
        if (!strcmp(cli_commands[k].name, name)) return &cli_commands[k];
    return NULL;
}

/* Each line of text (split at '\n') with `first` before the first and `rest` before the others. */
static void print_lines(FILE* f, const char* first, const char* rest, const char* text) {
    const char* lead = first;
    for (const char* s = text;; lead = rest) {
        const char* e = strchr(s, '\n');
        int n = e ? (int)(e - s) : (int)strlen(s);
        fprintf(f, "%s%.*s\n", lead, n, s);
        if (!e) break;
        s = e + 1;
    }
}

void cli_print_synopsis(const cli_command* c, const char* indent, FILE* f) {
    char lead[96];
    snprintf(lead, sizeof lead, "%sloam %s ", indent, c->name);
    print_lines(f, lead, lead, c->synopsis);
}

void cli_print_usage(FILE* f) {
    fprintf(f, "usage:\n");
    for (int k = 0; k < cli_command_count; ++k) cli_print_synopsis(&cli_commands[k], "  ", f);
    fprintf(f, "  loam help | --help | --version\n");
}

void cli_print_help(const cli_command* c, FILE* f) {
    fprintf(f, "usage:\n");
    cli_print_synopsis(c, "  ", f);
    print_lines(f, "", "", c->about);
    fprintf(f, "options (--opt=value also works):\n");
    size_t width = 0;
    for (const cli_option* o = c->options; o->flag; ++o)
        if (strlen(o->flag) > width) width = strlen(o->flag);
    if (width > 22) width = 22; /* longer flags put their help on the next line */
    char pad[40];
    snprintf(pad, sizeof pad, "%*s", (int)width + 4, "");
    for (const cli_option* o = c->options; o->flag; ++o) {
        if (strlen(o->flag) > width) {
            fprintf(f, "  %s\n", o->flag);
            print_lines(f, pad, pad, o->help);
        } else {
            char lead[40];
            snprintf(lead, sizeof lead, "  %-*s  ", (int)width, o->flag);
            print_lines(f, lead, pad, o->help);
        }
    }
    fprintf(f, "  --help, -h%*s  this text\n", (int)width - 10 > 0 ? (int)width - 10 : 0, "");
}

const cli_option* cli_command_option(const cli_command* c, const char* flag) {
    size_t n = strlen(flag);
    for (const cli_option* o = c->options; o->flag; ++o)
        if (!strncmp(o->flag, flag, n) && (o->flag[n] == '\0' || o->flag[n] == ' ')) return o;
    return NULL;
}

int cli_option_takes_value(const cli_option* o) { return strchr(o->flag, ' ') != NULL; }
