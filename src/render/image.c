/* Images and PNG output. libpng reports errors by longjmp; everything the error path touches is
 * set before setjmp, and the half-written file is dropped through the atomic-file abort. */
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <string.h>

#include "loam/io.h"
#include "render/internal.h"

loam_status loam_image_alloc(loam_image* img, int width, int height, loam_error* err) {
    if (!img) return loam_error_set(err, LOAM_ERR_INPUT, "image: NULL image");
    memset(img, 0, sizeof *img);
    if (width < 1 || height < 1 || width > LOAM_IMAGE_MAX_SIDE || height > LOAM_IMAGE_MAX_SIDE)
        return loam_error_set(err, LOAM_ERR_INPUT, "image: size %dx%d outside 1..%d", width, height,
                              LOAM_IMAGE_MAX_SIDE);
    size_t pixels = (size_t)width * (size_t)height;
    img->rgb = loam_calloc(pixels, 3);
    img->depth = loam_malloc(pixels * sizeof *img->depth);
    if (!img->rgb || !img->depth) {
        loam_image_destroy(img);
        return loam_error_set(err, LOAM_ERR_NOMEM, "image: out of memory for %dx%d", width, height);
    }
    for (size_t i = 0; i < pixels; ++i) img->depth[i] = INFINITY;
    img->width = width;
    img->height = height;
    return LOAM_OK;
}

void loam_image_destroy(loam_image* img) {
    if (!img) return;
    loam_free(img->rgb);
    loam_free(img->depth);
    memset(img, 0, sizeof *img);
}

typedef struct png_failure { char message[256]; } png_failure;

static void on_png_error(png_structp png, png_const_charp msg) {
    png_failure* f = png_get_error_ptr(png);
    snprintf(f->message, sizeof f->message, "%s", msg);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg) {
    (void)png; /* warnings (e.g. about ancillary chunks) do not make a bad image */
    (void)msg;
}

loam_status loam_image_write_png(const loam_image* img, const char* path, loam_error* err) {
    if (!img || !img->rgb)
        return loam_error_set(err, LOAM_ERR_INPUT, "png: image is NULL or not allocated");
    if (img->width < 1 || img->height < 1 || img->width > LOAM_IMAGE_MAX_SIDE ||
        img->height > LOAM_IMAGE_MAX_SIDE)
        return loam_error_set(err, LOAM_ERR_INPUT, "png: image size %dx%d outside 1..%d", img->width,
                              img->height, LOAM_IMAGE_MAX_SIDE);
    if (!path || !*path) return loam_error_set(err, LOAM_ERR_INPUT, "png: output path is empty");
    loam_atomic_file file;
    loam_status st = loam_atomic_open(&file, path, err);
    if (st != LOAM_OK) return st;
    png_failure failure = {{0}};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &failure, on_png_error,
                                              on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        loam_atomic_abort(&file);
        return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory starting libpng", path);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        loam_atomic_abort(&file);
        return loam_error_set(err, LOAM_ERR_IO, "%s: PNG write failed: %s", path, failure.message);
    }
    png_init_io(png, file.fp);
    /* Level 3 is several times faster than the default and barely larger on rendered frames, which
     * matters when every step of a run becomes a video frame. */
    png_set_compression_level(png, 3);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < img->height; ++y)
        png_write_row(png, img->rgb + (size_t)y * (size_t)img->width * 3);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return loam_atomic_commit(&file, err);
}
