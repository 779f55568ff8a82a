/* MP4 assembly by running ffmpeg. argv goes straight to posix_spawn, never through a shell, and
 * paths are passed with ffmpeg's "file:" prefix so no name can be read as an option or a protocol.
 * ffmpeg writes the atomic file's temporary name; only a clean exit renames it into place. */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loam/io.h"
#include "render/internal.h"

extern char** environ;

#define PATH_BUF 4200

int loam_ffmpeg_find(char* buf, size_t size) {
    if (!buf || size == 0) return 0;
    const char* path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    while (1) {
        const char* end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        char cand[PATH_BUF];
        /* An empty PATH entry means the current directory (POSIX). */
        int n = len ? snprintf(cand, sizeof cand, "%.*s/ffmpeg", (int)len, path)
                    : snprintf(cand, sizeof cand, "./ffmpeg");
        struct stat st;
        if (n > 0 && (size_t)n < sizeof cand && (size_t)n < size && stat(cand, &st) == 0 &&
            S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
            memcpy(buf, cand, (size_t)n + 1);
            return 1;
        }
        if (!end) return 0;
        path = end + 1;
    }
}

/* Expand the one %d / %0Nd of pattern with index; 0 when the pattern is not exactly that. The
 * parse is ours rather than snprintf's so a caller's string is never used as a format. */
static int expand_pattern(const char* pattern, int index, char* out, size_t size) {
    size_t o = 0;
    int conversions = 0;
    for (const char* p = pattern; *p; ++p) {
        char piece[32];
        const char* text = piece;
        if (*p != '%') {
            piece[0] = *p;
            piece[1] = '\0';
        } else if (p[1] == '%') {
            ++p;
            piece[0] = '%';
            piece[1] = '\0';
        } else {
            int width = 0, digits = 0;
            const char* q = p + 1;
            while (*q >= '0' && *q <= '9' && digits < 3) width = width * 10 + (*q++ - '0'), ++digits;
            if (*q != 'd' || (digits > 0 && p[1] != '0') || width > 20 || ++conversions > 1) return 0;
            snprintf(piece, sizeof piece, "%0*d", width, index);
            p = q;
        }
        size_t len = strlen(text);
        if (o + len >= size) return 0;
        memcpy(out + o, text, len);
        o += len;
    }
    out[o] = '\0';
    return conversions == 1;
}

/* Run argv; returns the exit status, or -1 (with err set) when it could not be run. */
static int run_child(const char* exe, char* const argv[], loam_error* err) {
    pid_t pid;
    int rc = posix_spawn(&pid, exe, NULL, NULL, argv, environ);
    if (rc != 0) {
        loam_error_set(err, LOAM_ERR_IO, "video: cannot run %s: %s", exe, strerror(rc));
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            loam_error_set(err, LOAM_ERR_IO, "video: waiting for %s: %s", exe, strerror(errno));
            return -1;
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static loam_status check_params(const loam_video_params* p, char* first, size_t size, loam_error* err) {
    if (!p) return loam_error_set(err, LOAM_ERR_INPUT, "video: params is NULL");
    if (!p->pattern || !p->output || !*p->output)
        return loam_error_set(err, LOAM_ERR_INPUT, "video: pattern or output path is empty");
    if (p->first_index < 0 || !(p->fps > 0.0 && p->fps <= 1000.0))
        return loam_error_set(err, LOAM_ERR_INPUT, "video: first_index %d or fps %g out of range",
                              p->first_index, p->fps);
    if (!expand_pattern(p->pattern, p->first_index, first, size))
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "video: pattern \"%s\" needs exactly one %%d or %%0Nd", p->pattern);
    struct stat st;
    if (stat(first, &st) != 0 || !S_ISREG(st.st_mode))
        return loam_error_set(err, LOAM_ERR_IO, "video: first frame %s is missing", first);
    return LOAM_OK;
}

loam_status loam_video_encode(const loam_video_params* p, int* ffmpeg_missing, loam_error* err) {
    if (ffmpeg_missing) *ffmpeg_missing = 0;
    char first[PATH_BUF], exe[PATH_BUF];
    loam_status st = check_params(p, first, sizeof first, err);
    if (st != LOAM_OK) return st;
    if (!loam_ffmpeg_find(exe, sizeof exe)) {
        if (ffmpeg_missing) *ffmpeg_missing = 1;
        return loam_error_set(err, LOAM_ERR_IO, "ffmpeg not found on PATH; %s not written", p->output);
    }
    loam_atomic_file file;
    if ((st = loam_atomic_open(&file, p->output, err)) != LOAM_OK) return st;
    char input[PATH_BUF], output[PATH_BUF], fps[32], start[32];
    snprintf(fps, sizeof fps, "%.9g", p->fps);
    snprintf(start, sizeof start, "%d", p->first_index);
    if (snprintf(input, sizeof input, "file:%s", p->pattern) >= (int)sizeof input ||
        snprintf(output, sizeof output, "file:%s", file.tmp_path) >= (int)sizeof output) {
        loam_atomic_abort(&file);
        return loam_error_set(err, LOAM_ERR_INPUT, "video: path too long");
    }
    /* H.264 when this ffmpeg has libx264; otherwise MPEG-4 part 2, which every build has. */
    static const char* const codecs[2][3] = {{"libx264", "-crf", "18"}, {"mpeg4", "-q:v", "3"}};
    int rc = -1;
    for (int c = 0; c < 2 && rc != 0; ++c) {
        const char* argv[32];
        int a = 0;
        const char* fixed[] = {exe, "-nostdin", "-y", "-hide_banner", "-loglevel", "error",
                               "-f", "image2", "-framerate", fps, "-start_number", start, "-i", input,
                               "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p",
                               "-c:v", codecs[c][0], codecs[c][1], codecs[c][2]};
        for (size_t k = 0; k < sizeof fixed / sizeof *fixed; ++k) argv[a++] = fixed[k];
        const char* tail[] = {"-movflags", "+faststart", "-f", "mp4", output, NULL};
        for (size_t k = 0; k < sizeof tail / sizeof *tail; ++k) argv[a++] = tail[k];
        rc = run_child(exe, (char* const*)argv, err);
        if (rc < 0) break;
    }
    if (rc != 0) {
        loam_atomic_abort(&file);
        if (rc > 0)
            loam_error_set(err, LOAM_ERR_IO, "video: ffmpeg failed (exit %d) making %s from %s", rc,
                           p->output, p->pattern);
        return LOAM_ERR_IO;
    }
    return loam_atomic_commit(&file, err);
}
