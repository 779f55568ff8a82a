/* `--set dotted.key=value`: rewrite one scalar of the parsed tree before it is read, creating the
 * mappings on the way when the file leaves a section out. Lists are indexed by position or, for
 * lists of named items (bodies), by name: `bodies.blade.motion.waypoints.1.t=2.5`. A value written
 * as [a, b, c] becomes a list, for vectors such as gravity. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "scene/yaml_doc.h"

/* Node ids move when libyaml grows its node stack, so this works with ids, not pointers. */
static yaml_node_t* node_at(scene_doc* d, int id) { return yaml_document_get_node(&d->doc, id); }

static int add_scalar(scene_doc* d, const char* s, size_t len) {
    return yaml_document_add_scalar(&d->doc, NULL, (yaml_char_t*)s, (int)len, YAML_PLAIN_SCALAR_STYLE);
}

/* The value node: a scalar, or a list for "[a, b, c]". */
static int add_value(scene_doc* d, const char* value) {
    size_t len = strlen(value);
    if (len < 2 || value[0] != '[' || value[len - 1] != ']') return add_scalar(d, value, len);
    int seq = yaml_document_add_sequence(&d->doc, NULL, YAML_FLOW_SEQUENCE_STYLE);
    if (!seq) return 0;
    const char* p = value + 1;
    const char* end = value + len - 1;
    while (p < end) {
        while (p < end && isspace((unsigned char)*p)) ++p;
        const char* q = p;
        while (q < end && *q != ',') ++q;
        const char* r = q;
        while (r > p && isspace((unsigned char)r[-1])) --r;
        int item = add_scalar(d, p, (size_t)(r - p));
        if (!item || !yaml_document_append_sequence_item(&d->doc, seq, item)) return 0;
        p = q < end ? q + 1 : q;
    }
    return seq;
}

/* The pair index of `key` in mapping `map_id`, or -1. */
static int find_pair(scene_doc* d, int map_id, const char* key) {
    yaml_node_t* m = node_at(d, map_id);
    for (yaml_node_pair_t* p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; ++p) {
        yaml_node_t* k = node_at(d, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char*)k->data.scalar.value, key) == 0)
            return (int)(p - m->data.mapping.pairs.start);
    }
    return -1;
}

/* Item of sequence `seq_id` chosen by index or by its `name:` value; 0 when none. */
static int find_item(scene_doc* d, int seq_id, const char* key) {
    yaml_node_t* s = node_at(d, seq_id);
    int count = (int)(s->data.sequence.items.top - s->data.sequence.items.start);
    char* end;
    long index = strtol(key, &end, 10);
    if (*key && *end == '\0') return index >= 0 && index < count ? s->data.sequence.items.start[index] : 0;
    for (int k = 0; k < count; ++k) {
        int item = s->data.sequence.items.start[k];
        if (node_at(d, item)->type != YAML_MAPPING_NODE) continue;
        int pair = find_pair(d, item, "name");
        if (pair < 0) continue;
        yaml_node_t* v = node_at(d, node_at(d, item)->data.mapping.pairs.start[pair].value);
        if (v->type == YAML_SCALAR_NODE && strcmp((const char*)v->data.scalar.value, key) == 0) return item;
    }
    return 0;
}

loam_status doc_apply_override(scene_doc* d, const char* assignment, loam_error* err) {
    const char* eq = strchr(assignment, '=');
    char path[256];
    size_t plen = eq ? (size_t)(eq - assignment) : 0;
    if (!eq || plen == 0 || plen >= sizeof path || eq[1] == '\0')
        return loam_error_set(err, LOAM_ERR_INPUT, "--set '%s': expected key=value, e.g. solver.sweeps=5", assignment);
    if (d->override_count >= SCENE_MAX_OVERRIDES)
        return loam_error_set(err, LOAM_ERR_INPUT, "--set '%s': at most %d overrides", assignment, SCENE_MAX_OVERRIDES);
    memcpy(path, assignment, plen);
    path[plen] = '\0';
    int cur = doc_node_id(d, yaml_document_get_root_node(&d->doc));
    char* save = NULL;
    for (char* key = strtok_r(path, ".", &save); key; key = strtok_r(NULL, ".", &save)) {
        int last = save == NULL || *save == '\0';
        yaml_node_t* node = node_at(d, cur);
        if (node->type == YAML_SEQUENCE_NODE) {
            int item = find_item(d, cur, key);
            if (!item)
                return loam_error_set(err, LOAM_ERR_INPUT, "--set '%s': no list item '%s' (use an index or a name)",
                                      assignment, key);
            if (last) return loam_error_set(err, LOAM_ERR_INPUT, "--set '%s': '%s' is a list item, not a value", assignment, key);
            cur = item;
            continue;
        }
        if (node->type != YAML_MAPPING_NODE)
            return loam_error_set(err, LOAM_ERR_INPUT, "--set '%s': '%s' is below a plain value", assignment, key);
        int pair = find_pair(d, cur, key);
        int value = 0;
        if (last) {
            value = add_value(d, eq + 1);
            if (!value) return loam_error_set(err, LOAM_ERR_NOMEM, "--set '%s': out of memory", assignment);
        }
        if (pair >= 0) {
            yaml_node_pair_t* p = &node_at(d, cur)->data.mapping.pairs.start[pair];
            if (!last) {
                cur = p->value;
                continue;
            }
            if (node_at(d, p->value)->type == YAML_MAPPING_NODE)
                return loam_error_set(err, LOAM_ERR_INPUT, "--set '%s': '%s' is a section, not a value", assignment, key);
            p->value = value;
        } else {
            /* A key the file leaves out: add it; the reader rejects it if the format has no such key. */
            int k = add_scalar(d, key, strlen(key));
            if (!last) value = yaml_document_add_mapping(&d->doc, NULL, YAML_BLOCK_MAPPING_STYLE);
            if (!k || !value || !yaml_document_append_mapping_pair(&d->doc, cur, k, value))
                return loam_error_set(err, LOAM_ERR_NOMEM, "--set '%s': out of memory", assignment);
            /* The new key is the override's too: an unknown key is reported against the --set. */
            if (d->override_count < SCENE_MAX_OVERRIDES) {
                d->override_id[d->override_count] = k;
                d->override_text[d->override_count++] = assignment;
            }
            if (!last) {
                cur = value;
                continue;
            }
        }
        if (d->override_count < SCENE_MAX_OVERRIDES) {
            d->override_id[d->override_count] = value;
            d->override_text[d->override_count++] = assignment;
        }
        /* Items of a list value count as overridden too, for messages. */
        yaml_node_t* v = node_at(d, value);
        if (v->type == YAML_SEQUENCE_NODE)
            for (yaml_node_item_t* it = v->data.sequence.items.start; it < v->data.sequence.items.top; ++it)
                if (d->override_count < SCENE_MAX_OVERRIDES) {
                    d->override_id[d->override_count] = *it;
                    d->override_text[d->override_count++] = assignment;
                }
    }
    return LOAM_OK;
}
