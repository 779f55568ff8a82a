/* Option values of the `loam` subcommands: each parser checks the whole string and the range, and
 * on failure prints "<who>: option <opt>: bad value '<val>' (expected ...)" and returns exit status 2
 * (0 on success). A NULL value (the option was last on the line) is reported as missing. */
#ifndef LOAM_APP_CLI_ARGS_H
#define LOAM_APP_CLI_ARGS_H

#include <stddef.h>

enum { CLI_NAME_MAX = 64 };
/* Split "--name=value": copies the option's name into name and returns its value, or NULL when the
 * argument has no "=value" (then name is the whole argument, truncated to fit). */
const char* cli_split_option(const char* arg, char name[CLI_NAME_MAX]);
/* For an option that takes a value: `name` must be an option of command `who` ("loam bench env") in
 * cli_table.c's table that takes a value (else "unknown option", pointing at `who --help`); the value
 * is *val when the argument carried "=value", else the next argument (*a advances). Returns 0, or
 * exit status 2 after printing the problem (one line). */
int cli_option_value(const char* who, const char* name, int argc, char** argv, int* a, const char** val);
/* For an option without a value (a flag): 0 when `name` is one of who's flags and carried no
 * "=value", else exit status 2 after printing the problem. */
int cli_flag(const char* who, const char* name, const char* val);
int cli_bad_value(const char* who, const char* opt, const char* val, const char* expect);
int cli_parse_long(const char* who, const char* opt, const char* val, long lo, long hi, long* out);
int cli_parse_int(const char* who, const char* opt, const char* val, int lo, int hi, int* out);
/* lo_open: the value must be > lo rather than >= lo. */
int cli_parse_double(const char* who, const char* opt, const char* val, double lo, int lo_open, double hi, double* out);
int cli_parse_float(const char* who, const char* opt, const char* val, double lo, int lo_open, double hi, float* out);

#endif
