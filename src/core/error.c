/* Error reports: a status plus a message that names the file, line, key and value at fault. */
#include "loam/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

loam_status loam_error_set(loam_error* err, loam_status status, const char* fmt, ...) {
    if (err) {
        err->status = status;
        va_list args;
        va_start(args, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, args);
        va_end(args);
    }
    return status;
}

void loam_error_clear(loam_error* err) {
    if (err) {
        err->status = LOAM_OK;
        err->message[0] = '\0';
    }
}

const char* loam_version(void) { return "0.1.0"; }
