/* Option values of the `loam` subcommands: each parser checks the whole string and the range, and
 * on failure prints "<who>: option <opt>: bad value '<val>' (expected ...)" and returns exit status 2
 * (0 on success). A NULL value (the option was last on the line) is reported as missing. */
#ifndef LOAM_APP_CLI_ARGS_H
#define LOAM_APP_CLI_ARGS_H

int cli_bad_value(const char* who, const char* opt, const char* val, const char* expect);
int cli_parse_long(const char* who, const char* opt, const char* val, long lo, long hi, long* out);
int cli_parse_int(const char* who, const char* opt, const char* val, int lo, int hi, int* out);
/* lo_open: the value must be > lo rather than >= lo. */
int cli_parse_double(const char* who, const char* opt, const char* val, double lo, int lo_open, double hi, double* out);
int cli_parse_float(const char* who, const char* opt, const char* val, double lo, int lo_open, double hi, float* out);

#endif
