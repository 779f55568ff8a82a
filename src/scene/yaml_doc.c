#include "scene/yaml_doc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

loam_status doc_load(scene_doc* d, const char* text, size_t length, const char* file, loam_error* err) {
    memset(d, 0, sizeof *d);
    d->file = file;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory", file);
    yaml_parser_set_input_string(&parser, (const unsigned char*)text, length);
    int ok = yaml_parser_load(&parser, &d->doc);
    loam_status st = LOAM_OK;
    if (!ok) {
        st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%zu:%zu: YAML syntax error: %s%s%s", file,
                            parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                            parser.problem ? parser.problem : "unknown", parser.context ? " " : "",
                            parser.context ? parser.context : "");
    } else {
        d->loaded = 1;
        yaml_node_t* root = yaml_document_get_root_node(&d->doc);
        if (!root) st = loam_error_set(err, LOAM_ERR_INPUT, "%s:1:1: the scene file is empty", file);
        else if (root->type != YAML_MAPPING_NODE)
            st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%zu:%zu: the scene must be a mapping of sections (name:, sim:, ...)",
                                file, root->start_mark.line + 1, root->start_mark.column + 1);
    }
    yaml_parser_delete(&parser);
    return st;
}

void doc_free(scene_doc* d) {
    if (d->loaded) yaml_document_delete(&d->doc);
    d->loaded = 0;
}

snode doc_root(scene_doc* d) {
    snode n = {d, yaml_document_get_root_node(&d->doc), ""};
    return n;
}

int doc_node_id(scene_doc* d, yaml_node_t* n) { return (int)(n - d->doc.nodes.start) + 1; }

loam_status snode_error(const snode* n, loam_error* err, const char* fmt, ...) {
    char msg[768];
    va_list args;
    va_start(args, fmt);
    vsnprintf(msg, sizeof msg, fmt, args);
    va_end(args);
    const char* key = n->path[0] ? n->path : "(top level)";
    for (int k = 0; k < n->doc->override_count; ++k)
        if (n->node && doc_node_id(n->doc, n->node) == n->doc->override_id[k])
            return loam_error_set(err, LOAM_ERR_INPUT, "--set '%s': %s: %s", n->doc->override_text[k], key, msg);
    size_t line = n->node ? n->node->start_mark.line + 1 : 0, col = n->node ? n->node->start_mark.column + 1 : 0;
    return loam_error_set(err, LOAM_ERR_INPUT, "%s:%zu:%zu: %s: %s", n->doc->file, line, col, key, msg);
}

const char* snode_scalar(const snode* n) {
    return n->node && n->node->type == YAML_SCALAR_NODE ? (const char*)n->node->data.scalar.value : NULL;
}
int snode_is_map(const snode* n) { return n->node && n->node->type == YAML_MAPPING_NODE; }
int snode_is_seq(const snode* n) { return n->node && n->node->type == YAML_SEQUENCE_NODE; }

int snode_seq_length(const snode* n) {
    return snode_is_seq(n) ? (int)(n->node->data.sequence.items.top - n->node->data.sequence.items.start) : 0;
}

snode snode_seq_item(const snode* n, int k) {
    snode out = {n->doc, yaml_document_get_node(&n->doc->doc, n->node->data.sequence.items.start[k]), ""};
    if (snprintf(out.path, sizeof out.path, "%s[%d]", n->path, k) >= (int)sizeof out.path)
        out.path[sizeof out.path - 1] = '\0'; /* a very deep key is shortened in messages only */
    return out;
}

static void child_path(char* out, size_t size, const char* parent, const char* key) {
    if (snprintf(out, size, "%s%s%s", parent, parent[0] ? "." : "", key) >= (int)size)
        out[size - 1] = '\0'; /* a very deep key is shortened in messages only */
}

int snode_get(const snode* map, const char* key, snode* out) {
    if (!snode_is_map(map)) return 0;
    for (yaml_node_pair_t* p = map->node->data.mapping.pairs.start; p < map->node->data.mapping.pairs.top; ++p) {
        yaml_node_t* k = yaml_document_get_node(&map->doc->doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char*)k->data.scalar.value, key) == 0) {
            out->doc = map->doc;
            out->node = yaml_document_get_node(&map->doc->doc, p->value);
            child_path(out->path, sizeof out->path, map->path, key);
            return 1;
        }
    }
    return 0;
}

loam_status snode_check_map(const snode* map, const char* const* allowed, loam_error* err) {
    if (!snode_is_map(map)) return snode_error(map, err, "expected a mapping of keys");
    for (yaml_node_pair_t* p = map->node->data.mapping.pairs.start; p < map->node->data.mapping.pairs.top; ++p) {
        snode key = {map->doc, yaml_document_get_node(&map->doc->doc, p->key), ""};
        snprintf(key.path, sizeof key.path, "%s", map->path);
        const char* name = snode_scalar(&key);
        if (!name) return snode_error(&key, err, "keys must be plain names");
        int known = 0;
        for (const char* const* a = allowed; *a && !known; ++a) known = strcmp(*a, name) == 0;
        if (!known) {
            char list[512] = "";
            for (const char* const* a = allowed; *a; ++a) {
                strncat(list, *a, sizeof list - strlen(list) - 1);
                if (a[1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return snode_error(&key, err, "unknown key '%s' (expected one of: %s)", name, list);
        }
        /* Duplicate keys would make one of the two silently win. */
        for (yaml_node_pair_t* q = map->node->data.mapping.pairs.start; q < p; ++q) {
            yaml_node_t* k2 = yaml_document_get_node(&map->doc->doc, q->key);
            if (k2 && k2->type == YAML_SCALAR_NODE && strcmp((const char*)k2->data.scalar.value, name) == 0)
                return snode_error(&key, err, "key '%s' appears twice", name);
        }
    }
    return LOAM_OK;
}

loam_status snode_double(const snode* n, double lo, double hi, double* out, loam_error* err) {
    const char* s = snode_scalar(n);
    if (!s) return snode_error(n, err, "expected a number in [%g, %g], got a %s", lo, hi,
                               snode_is_map(n) ? "mapping" : snode_is_seq(n) ? "list" : "missing value");
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return snode_error(n, err, "expected a number in [%g, %g], got '%s'", lo, hi, s);
    if (v < lo || v > hi) return snode_error(n, err, "value %s is out of range: expected a number in [%g, %g]", s, lo, hi);
    *out = v;
    return LOAM_OK;
}

loam_status snode_int(const snode* n, long lo, long hi, int* out, loam_error* err) {
    const char* s = snode_scalar(n);
    if (!s) return snode_error(n, err, "expected an integer in [%ld, %ld]", lo, hi);
    char* end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        return snode_error(n, err, "expected an integer in [%ld, %ld], got '%s'", lo, hi, s);
    if (v < lo || v > hi) return snode_error(n, err, "value %s is out of range: expected an integer in [%ld, %ld]", s, lo, hi);
    *out = (int)v;
    return LOAM_OK;
}

loam_status snode_bool(const snode* n, int* out, loam_error* err) {
    static const char* const yes[] = {"true", "yes", "on", "1", NULL};
    static const char* const no[] = {"false", "no", "off", "0", NULL};
    const char* s = snode_scalar(n);
    if (s) {
        for (int k = 0; yes[k]; ++k)
            if (strcmp(s, yes[k]) == 0) return (*out = 1, LOAM_OK);
        for (int k = 0; no[k]; ++k)
            if (strcmp(s, no[k]) == 0) return (*out = 0, LOAM_OK);
    }
    return snode_error(n, err, "expected true or false, got '%s'", s ? s : "(not a scalar)");
}

loam_status snode_vec3(const snode* n, double lo, double hi, loam_vec3* out, loam_error* err) {
    if (snode_seq_length(n) != 3) return snode_error(n, err, "expected a list of 3 numbers like [0, 0, 1]");
    double v[3];
    for (int k = 0; k < 3; ++k) {
        snode item = snode_seq_item(n, k);
        loam_status st = snode_double(&item, lo, hi, &v[k], err);
        if (st) return st;
    }
    out->x = (float)v[0];
    out->y = (float)v[1];
    out->z = (float)v[2];
    return LOAM_OK;
}

loam_status snode_enum(const snode* n, const char* const* choices, int* out, loam_error* err) {
    const char* s = snode_scalar(n);
    char list[256] = "";
    for (int k = 0; choices[k]; ++k) {
        if (s && strcmp(s, choices[k]) == 0) return (*out = k, LOAM_OK);
        strncat(list, choices[k], sizeof list - strlen(list) - 1);
        if (choices[k + 1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
    }
    return snode_error(n, err, "expected one of: %s; got '%s'", list, s ? s : "(not a scalar)");
}

loam_status opt_double(const snode* map, const char* key, double lo, double hi, double* out, loam_error* err) {
    snode n;
    return snode_get(map, key, &n) ? snode_double(&n, lo, hi, out, err) : LOAM_OK;
}

loam_status opt_float(const snode* map, const char* key, double lo, double hi, float* out, loam_error* err) {
    double v = *out;
    loam_status st = opt_double(map, key, lo, hi, &v, err);
    *out = (float)v;
    return st;
}

loam_status opt_int(const snode* map, const char* key, long lo, long hi, int* out, loam_error* err) {
    snode n;
    return snode_get(map, key, &n) ? snode_int(&n, lo, hi, out, err) : LOAM_OK;
}

loam_status opt_bool(const snode* map, const char* key, int* out, loam_error* err) {
    snode n;
    return snode_get(map, key, &n) ? snode_bool(&n, out, err) : LOAM_OK;
}

loam_status opt_vec3(const snode* map, const char* key, double lo, double hi, loam_vec3* out, loam_error* err) {
    snode n;
    return snode_get(map, key, &n) ? snode_vec3(&n, lo, hi, out, err) : LOAM_OK;
}

loam_status opt_enum(const snode* map, const char* key, const char* const* choices, int* out, loam_error* err) {
    snode n;
    return snode_get(map, key, &n) ? snode_enum(&n, choices, out, err) : LOAM_OK;
}
