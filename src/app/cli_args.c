/* Shared option-value parsers of the `loam` subcommands (cli_args.h). */
#include "app/cli_args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli_table.h"
#include "loam/core.h"

const char* cli_split_option(const char* arg, char name[CLI_NAME_MAX]) {
    const char* eq = strchr(arg, '=');
    if (strncmp(arg, "--", 2) == 0 && eq && (size_t)(eq - arg) < CLI_NAME_MAX) {
        memcpy(name, arg, (size_t)(eq - arg));
        name[eq - arg] = '\0';
        return eq + 1;
    }
    snprintf(name, CLI_NAME_MAX, "%s", arg);
    return NULL;
}

/* who's row in the table: who is "loam " followed by the command's name. */
static const cli_option* table_option(const char* who, const char* name) {
    const cli_command* c = strncmp(who, "loam ", 5) == 0 ? cli_command_find(who + 5) : NULL;
    return c ? cli_command_option(c, name) : NULL;
}

int cli_option_value(const char* who, const char* name, int argc, char** argv, int* a, const char** val) {
    const cli_option* o = table_option(who, name);
    if (!o) {
        fprintf(stderr, "%s: unknown option '%s' (see %s --help)\n", who, argv[*a], who);
        return LOAM_ERR_INPUT;
    }
    if (!cli_option_takes_value(o)) {
        fprintf(stderr, "%s: option %s takes no value\n", who, name);
        return LOAM_ERR_INPUT;
    }
    if (*val) return 0;
    if (*a + 1 >= argc) {
        fprintf(stderr, "%s: option %s needs a value\n", who, name);
        return LOAM_ERR_INPUT;
    }
    *val = argv[++*a];
    return 0;
}

int cli_flag(const char* who, const char* name, const char* val) {
    const cli_option* o = table_option(who, name);
    if (!o || cli_option_takes_value(o)) {
        fprintf(stderr, "%s: unknown option '%s' (see %s --help)\n", who, name, who);
        return LOAM_ERR_INPUT;
    }
    if (val) return cli_bad_value(who, name, val, "no value");
    return 0;
}

int cli_bad_value(const char* who, const char* opt, const char* val, const char* expect) {
    if (val) fprintf(stderr, "%s: option %s: bad value '%s' (expected %s)\n", who, opt, val, expect);
    else fprintf(stderr, "%s: option %s: missing value (expected %s)\n", who, opt, expect);
    return LOAM_ERR_INPUT;
}

int cli_parse_long(const char* who, const char* opt, const char* val, long lo, long hi, long* out) {
    char* end = NULL;
    errno = 0;
    long v = val ? strtol(val, &end, 10) : 0;
    if (!val || errno || end == val || *end != '\0' || v < lo || v > hi) {
        char expect[96];
        snprintf(expect, sizeof expect, "an integer in [%ld, %ld]", lo, hi);
        return cli_bad_value(who, opt, val, expect);
    }
    *out = v;
    return 0;
}

int cli_parse_int(const char* who, const char* opt, const char* val, int lo, int hi, int* out) {
    long v;
    int rc = cli_parse_long(who, opt, val, lo, hi, &v);
    if (rc == 0) *out = (int)v;
    return rc;
}

int cli_parse_double(const char* who, const char* opt, const char* val, double lo, int lo_open, double hi, double* out) {
    char* end = NULL;
    errno = 0;
    double v = val ? strtod(val, &end) : 0.0;
    if (!val || errno || end == val || *end != '\0' || !isfinite(v) || (lo_open ? v <= lo : v < lo) || v > hi) {
        char expect[96];
        snprintf(expect, sizeof expect, "a number in %c%g, %g]", lo_open ? '(' : '[', lo, hi);
        return cli_bad_value(who, opt, val, expect);
    }
    *out = v;
    return 0;
}

int cli_parse_float(const char* who, const char* opt, const char* val, double lo, int lo_open, double hi, float* out) {
    double v;
    int rc = cli_parse_double(who, opt, val, lo, lo_open, hi, &v);
    if (rc == 0) *out = (float)v;
    return rc;
}
