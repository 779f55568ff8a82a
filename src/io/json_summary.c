/* JSON output of cJSON documents with our own printer, because cJSON_Print is not good enough for
 * results files: it accepts a 15-digit number when it reads back within an epsilon (0.1 + 0.2 prints
 * as 0.3), and how it prints non-finite numbers has changed between releases. Here every number reads
 * back to the same double and NaN or infinity becomes null, so the output is always valid JSON. */
#include "loam/io.h"
#include "loam/output.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 1000 };

/* Checked before anything is written, so bad input leaves a stream untouched. */
static loam_status validate(const cJSON* item, int depth, loam_error* err) {
    if (depth > MAX_DEPTH)
        return loam_error_set(err, LOAM_ERR_INPUT, "json: nesting deeper than %d", MAX_DEPTH);
    int type = item->type & 0xFF;
    if (type == cJSON_Raw && !item->valuestring)
        return loam_error_set(err, LOAM_ERR_INPUT, "json: raw item without text");
    if (type != cJSON_False && type != cJSON_True && type != cJSON_NULL && type != cJSON_Number &&
        type != cJSON_String && type != cJSON_Array && type != cJSON_Object && type != cJSON_Raw)
        return loam_error_set(err, LOAM_ERR_INPUT, "json: item of invalid type %d", item->type);
    if (type != cJSON_Array && type != cJSON_Object) return LOAM_OK;
    for (const cJSON* child = item->child; child; child = child->next) {
        if (type == cJSON_Object && !child->string)
            return loam_error_set(err, LOAM_ERR_INPUT, "json: object member without a name");
        loam_status s = validate(child, depth + 1, err);
        if (s != LOAM_OK) return s;
    }
    return LOAM_OK;
}

static void write_number(FILE* fp, double d) {
    if (!isfinite(d)) {
        fputs("null", fp);
        return;
    }
    char text[40];
    /* 17 significant digits always round-trip; fewer keep common values like 0.1 readable. */
    for (int digits = 15; digits <= 17; ++digits) {
        snprintf(text, sizeof text, "%.*g", digits, d);
        if (strtod(text, NULL) == d) break;
    }
    /* A host that set LC_NUMERIC may get a decimal comma; JSON needs a point. */
    for (char* c = text; *c; ++c)
        if (*c == ',') *c = '.';
    fputs(text, fp);
}

static void write_string(FILE* fp, const char* s) {
    fputc('"', fp);
    for (const unsigned char* c = (const unsigned char*)(s ? s : ""); *c; ++c) {
        switch (*c) {
        case '"': fputs("\\\"", fp); break;
        case '\\': fputs("\\\\", fp); break;
        case '\b': fputs("\\b", fp); break;
        case '\f': fputs("\\f", fp); break;
        case '\n': fputs("\\n", fp); break;
        case '\r': fputs("\\r", fp); break;
        case '\t': fputs("\\t", fp); break;
        default:
            if (*c < 0x20) fprintf(fp, "\\u%04x", *c);
            else fputc(*c, fp);
        }
    }
    fputc('"', fp);
}

static void indent(FILE* fp, int depth) {
    for (int i = 0; i < depth; ++i) fputs("  ", fp);
}

static void write_item(FILE* fp, const cJSON* item, int depth) {
    int type = item->type & 0xFF;
    switch (type) {
    case cJSON_False: fputs("false", fp); return;
    case cJSON_True: fputs("true", fp); return;
    case cJSON_NULL: fputs("null", fp); return;
    case cJSON_Number: write_number(fp, item->valuedouble); return;
    case cJSON_String: write_string(fp, item->valuestring); return;
    case cJSON_Raw: fputs(item->valuestring, fp); return;
    default: break;
    }
    int object = type == cJSON_Object;
    fputc(object ? '{' : '[', fp);
    for (const cJSON* child = item->child; child; child = child->next) {
        fputc('\n', fp);
        indent(fp, depth + 1);
        if (object) {
            write_string(fp, child->string);
            fputs(": ", fp);
        }
        write_item(fp, child, depth + 1);
        if (child->next) fputc(',', fp);
    }
    if (item->child) {
        fputc('\n', fp);
        indent(fp, depth);
    }
    fputc(object ? '}' : ']', fp);
}

loam_status loam_json_write(const struct cJSON* root, FILE* fp, loam_error* err) {
    if (!root || !fp)
        return loam_error_set(err, LOAM_ERR_INPUT, "json: %s is NULL", root ? "stream" : "root");
    loam_status s = validate(root, 0, err);
    if (s != LOAM_OK) return s;
    write_item(fp, root, 0);
    fputc('\n', fp);
    if (ferror(fp)) return loam_error_set(err, LOAM_ERR_IO, "json: write failed");
    return LOAM_OK;
}

loam_status loam_json_write_file(const struct cJSON* root, const char* path, loam_error* err) {
    if (!path) return loam_error_set(err, LOAM_ERR_INPUT, "json: path is NULL");
    if (!root) return loam_error_set(err, LOAM_ERR_INPUT, "%s: json root is NULL", path);
    loam_status s = validate(root, 0, err);
    if (s != LOAM_OK) return s;
    loam_atomic_file f;
    s = loam_atomic_open(&f, path, err);
    if (s != LOAM_OK) return s;
    write_item(f.fp, root, 0);
    fputc('\n', f.fp);
    return loam_atomic_commit(&f, err);
}
