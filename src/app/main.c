/* The `loam` command: finds the command in cli_table.c's table and runs it; `--help` anywhere after
 * a command prints that command's help from the same table. */
#include <stdio.h>
#include <string.h>

#include "app/cli_table.h"
#include "loam/core.h"

static int is_help(const char* a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

static void usage(FILE* f) {
    fprintf(f, "loam %s: granular and deformable-world physics for robotics\n", loam_version());
    cli_print_usage(f);
    fprintf(f, "Run `loam CMD --help` (e.g. `loam bench granular --help`) for a command's options.\n"
               "Exit status: 0 ok, 2 bad input, 3 simulation diverged, 4 I/O error, 5 out of memory.\n");
}

/* The commands whose name starts with `word` ("bench"): their count, and their usage lines on f
 * unless f is NULL. */
static int group_usage(const char* word, FILE* f) {
    int n = 0;
    size_t len = strlen(word);
    for (int k = 0; k < cli_command_count; ++k) {
        const char* name = cli_commands[k].name;
        if (!strncmp(name, word, len) && name[len] == ' ') {
            if (f && n == 0) fprintf(f, "usage:\n");
            if (f) cli_print_synopsis(&cli_commands[k], "  ", f);
            ++n;
        }
    }
    return n;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return LOAM_ERR_INPUT;
    }
    const char* cmd = argv[1];
    if (!strcmp(cmd, "help") || is_help(cmd)) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("loam %s\n", loam_version());
        return 0;
    }
    const cli_command* c = NULL;
    int words = 1;
    if (argc > 2) { /* two-word commands first: "bench env" */
        char name[128];
        snprintf(name, sizeof name, "%s %s", argv[1], argv[2]);
        if ((c = cli_command_find(name))) words = 2;
    }
    if (!c) c = cli_command_find(cmd);
    if (!c) {
        if (!group_usage(cmd, NULL)) {
            fprintf(stderr, "loam: unknown command '%s' (see loam --help)\n", cmd);
            return LOAM_ERR_INPUT;
        }
        if (argc > 2 && is_help(argv[2])) return group_usage(cmd, stdout), 0;
        if (argc > 2) {
            fprintf(stderr, "loam %s: unknown command '%s' (see loam %s --help)\n", cmd, argv[2], cmd);
            return LOAM_ERR_INPUT;
        }
        group_usage(cmd, stderr);
        return LOAM_ERR_INPUT;
    }
    for (int a = 1 + words; a < argc; ++a)
        if (is_help(argv[a])) {
            cli_print_help(c, stdout);
            return 0;
        }
    return c->run(argc - words, argv + words);
}
