/* A thin, strict layer over libyaml's document tree: typed reads that fail with the file, line,
 * column, dotted key and value, and `--set` overrides applied to the tree before it is read. */
#ifndef LOAM_SCENE_YAML_DOC_H
#define LOAM_SCENE_YAML_DOC_H

#include <yaml.h>

#include "loam/core.h"

enum { SCENE_MAX_OVERRIDES = 64 };

typedef struct scene_doc {
    yaml_document_t doc;
    int loaded;
    const char* file;
    int override_count;
    int override_id[SCENE_MAX_OVERRIDES];   /* node ids of the scalars written by --set */
    const char* override_text[SCENE_MAX_OVERRIDES];
} scene_doc;

/* A node and the dotted key that leads to it, for messages. */
typedef struct snode {
    scene_doc* doc;
    yaml_node_t* node;
    char path[256];
} snode;

loam_status doc_load(scene_doc* d, const char* text, size_t length, const char* file, loam_error* err);
loam_status doc_apply_override(scene_doc* d, const char* assignment, loam_error* err);
void doc_free(scene_doc* d);
snode doc_root(scene_doc* d);
int doc_node_id(scene_doc* d, yaml_node_t* n);

/* "file:line:col: key: message" (or "--set 'k=v': key: message" for overridden values). */
loam_status snode_error(const snode* n, loam_error* err, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

const char* snode_scalar(const snode* n); /* NULL unless a scalar */
int snode_is_map(const snode* n);
int snode_is_seq(const snode* n);
int snode_seq_length(const snode* n);
snode snode_seq_item(const snode* n, int k);

/* The value under key in mapping `map`; returns 0 when absent. */
int snode_get(const snode* map, const char* key, snode* out);
/* map must be a mapping whose keys are all in `allowed` (NULL-terminated). */
loam_status snode_check_map(const snode* map, const char* const* allowed, loam_error* err);

/* Typed reads of a scalar node, with inclusive bounds. */
loam_status snode_double(const snode* n, double lo, double hi, double* out, loam_error* err);
loam_status snode_int(const snode* n, long lo, long hi, int* out, loam_error* err);
loam_status snode_bool(const snode* n, int* out, loam_error* err);
loam_status snode_vec3(const snode* n, double lo, double hi, loam_vec3* out, loam_error* err);
/* One of `choices` (NULL-terminated); *out is its index. */
loam_status snode_enum(const snode* n, const char* const* choices, int* out, loam_error* err);

/* Optional members: leave *out unchanged when the key is absent. */
loam_status opt_double(const snode* map, const char* key, double lo, double hi, double* out, loam_error* err);
loam_status opt_float(const snode* map, const char* key, double lo, double hi, float* out, loam_error* err);
loam_status opt_int(const snode* map, const char* key, long lo, long hi, int* out, loam_error* err);
loam_status opt_bool(const snode* map, const char* key, int* out, loam_error* err);
loam_status opt_vec3(const snode* map, const char* key, double lo, double hi, loam_vec3* out, loam_error* err);
loam_status opt_enum(const snode* map, const char* key, const char* const* choices, int* out, loam_error* err);

#endif
