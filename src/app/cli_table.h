/* The `loam` command's one table of commands, their options and descriptions (cli_table.c): dispatch
 * in main.c, `loam --help`, `loam CMD --help` and which options a command knows (cli_option_value)
 * all come from it, and tests/cli_help.sh checks the README's command block against `loam --help`.
 * A new command is one row of cli_commands (and its options array). */
#ifndef LOAM_APP_CLI_TABLE_H
#define LOAM_APP_CLI_TABLE_H

#include <stdio.h>

typedef struct cli_option {
    const char* flag; /* "--particles N": a flag followed by a metavar takes a value; "--json" does not */
    const char* help; /* '\n' starts an indented continuation line */
} cli_option;

typedef struct cli_command {
    const char* name;     /* "run", "bench granular": the words after `loam` */
    const char* synopsis; /* what follows "loam NAME" on its usage line(s); '\n' starts another usage line */
    const char* about;    /* what the command does, for `loam NAME --help` */
    /* Runs the command: argv[0] is the last word of name, its arguments follow. Returns the exit status. */
    int (*run)(int argc, char** argv);
    const cli_option* options; /* ends with {NULL, NULL} */
} cli_command;

extern const cli_command cli_commands[];
extern const int cli_command_count;

/* The row whose name is `name` ("bench env"), or NULL. */
const cli_command* cli_command_find(const char* name);
/* c's usage line(s): indent, "loam NAME ", its synopsis. */
void cli_print_synopsis(const cli_command* c, const char* indent, FILE* f);
/* `loam --help`: the usage lines of every command. */
void cli_print_usage(FILE* f);
/* `loam NAME --help`: usage line(s), description, options. */
void cli_print_help(const cli_command* c, FILE* f);
/* The option row of `flag` ("--steps") in command `c`, or NULL when c does not know it. */
const cli_option* cli_command_option(const cli_command* c, const char* flag);
/* 1 when the option row takes a value (its flag carries a metavar). */
int cli_option_takes_value(const cli_option* o);

#endif
