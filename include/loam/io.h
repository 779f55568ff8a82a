/* loam output files. Every file is written to a temporary name beside its target and renamed into
 * place only when complete, so a crash or a full disk never leaves a half file under the real name. */
#ifndef LOAM_IO_H
#define LOAM_IO_H

#include <stdio.h>

#include "loam/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct loam_atomic_file {
    FILE* fp;                 /* write through this */
    char path[4096];          /* final name */
    char tmp_path[4096 + 32]; /* where the bytes go until commit */
} loam_atomic_file;

LOAM_API loam_status loam_atomic_open(loam_atomic_file* f, const char* path, loam_error* err);
/* Flush, check for write errors, close and rename into place. On failure the temporary file is
 * removed and the final name is untouched. */
LOAM_API loam_status loam_atomic_commit(loam_atomic_file* f, loam_error* err);
/* Drop everything written so far. */
LOAM_API void loam_atomic_abort(loam_atomic_file* f);

/* Read a whole file into a new loam_malloc block (free with loam_free), with a 0 byte after the
 * last one. `what` names the file's role in messages ("scene", "mesh"); files over max_bytes are
 * refused. LOAM_ERR_INPUT when it cannot be opened or is too large, LOAM_ERR_IO on a read error. */
LOAM_API loam_status loam_read_file(const char* path, size_t max_bytes, const char* what, unsigned char** data, size_t* length,
                           loam_error* err);

/* mkdir -p. */
LOAM_API loam_status loam_make_dirs(const char* path, loam_error* err);

#ifdef __cplusplus
}
#endif
#endif
