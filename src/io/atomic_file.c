/* Complete-or-absent output files: write to "<name>.tmp.<pid>", then rename(2), which is atomic
 * within a directory on POSIX file systems. */
#include "loam/io.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

loam_status loam_atomic_open(loam_atomic_file* f, const char* path, loam_error* err) {
    memset(f, 0, sizeof *f);
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof f->path)
        return loam_error_set(err, LOAM_ERR_IO, "%s: output path is empty or too long", path);
    memcpy(f->path, path, len + 1);
    snprintf(f->tmp_path, sizeof f->tmp_path, "%s.tmp.%ld", path, (long)getpid());
    f->fp = fopen(f->tmp_path, "wb");
    if (!f->fp)
        return loam_error_set(err, LOAM_ERR_IO, "%s: cannot create: %s", f->tmp_path, strerror(errno));
    return LOAM_OK;
}

loam_status loam_atomic_commit(loam_atomic_file* f, loam_error* err) {
    if (!f->fp) return loam_error_set(err, LOAM_ERR_IO, "%s: file was not open", f->path);
    int failed = fflush(f->fp) != 0 || ferror(f->fp);
    int saved = errno;
    if (fclose(f->fp) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    f->fp = NULL;
    if (failed) {
        remove(f->tmp_path);
        return loam_error_set(err, LOAM_ERR_IO, "%s: write failed: %s", f->path, strerror(saved));
    }
    if (rename(f->tmp_path, f->path) != 0) {
        saved = errno;
        remove(f->tmp_path);
        return loam_error_set(err, LOAM_ERR_IO, "%s: cannot rename into place: %s", f->path,
                              strerror(saved));
    }
    return LOAM_OK;
}

void loam_atomic_abort(loam_atomic_file* f) {
    if (f->fp) {
        fclose(f->fp);
        f->fp = NULL;
        remove(f->tmp_path);
    }
}

loam_status loam_make_dirs(const char* path, loam_error* err) {
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf)
        return loam_error_set(err, LOAM_ERR_IO, "%s: directory path is empty or too long", path);
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; ++i) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char saved = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return loam_error_set(err, LOAM_ERR_IO, "%s: cannot create directory: %s", buf,
                                      strerror(errno));
            buf[i] = saved;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return loam_error_set(err, LOAM_ERR_IO, "%s: not a directory", path);
    return LOAM_OK;
}
