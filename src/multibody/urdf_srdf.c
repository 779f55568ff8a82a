/* SRDF (MoveIt's Semantic Robot Description Format) as far as contacts go: its
 * <disable_collisions link1="a" link2="b" reason="..."/> pairs never collide. Groups, poses, end
 * effectors and virtual joints are MoveIt's planning vocabulary and are ignored. */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>

#include "loam/io.h"
#include "multibody/urdf_internal.h"

static const char* attr(xmlNode* n, const char* name) {
    for (xmlAttr* a = n->properties; a; a = a->next)
        if (a->ns == NULL && strcmp((const char*)a->name, name) == 0)
            return a->children && a->children->type == XML_TEXT_NODE ? (const char*)a->children->content : "";
    return NULL;
}

static void quiet(void* ctx, xmlErrorPtr e) {
    int* line = ctx;
    if (*line < 0 && e) *line = e->line;
}

loam_status urdf_srdf_apply(const char* path, loam_mb_model* m, loam_error* err) {
    unsigned char* data;
    size_t len;
    loam_status st = loam_read_file(path, (size_t)64 << 20, "SRDF", &data, &len, err);
    if (st != LOAM_OK) return st;
    int bad_line = -1;
    xmlStructuredErrorFunc saved = xmlStructuredError;
    void* saved_ctx = xmlStructuredErrorContext;
    xmlSetStructuredErrorFunc(&bad_line, quiet);
    xmlDocPtr doc = xmlReadMemory((const char*)data, (int)len, path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlSetStructuredErrorFunc(saved_ctx, saved);
    loam_free(data);
    if (!doc) return loam_error_set(err, LOAM_ERR_INPUT, "%s:%d: SRDF: not well-formed XML", path, bad_line > 0 ? bad_line : 0);
    xmlNode* root = xmlDocGetRootElement(doc);
    int n = 0, cap = 0, *pairs = NULL;
    st = LOAM_OK;
    if (!root || strcmp((const char*)root->name, "robot") != 0)
        st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%ld: SRDF: the top element is <%s>, expected <robot>", path, root ? xmlGetLineNo(root) : 0L,
                            root ? (const char*)root->name : "");
    for (xmlNode* k = root && st == LOAM_OK ? root->children : NULL; k && st == LOAM_OK; k = k->next) {
        if (k->type != XML_ELEMENT_NODE || strcmp((const char*)k->name, "disable_collisions") != 0) continue;
        int body[2];
        for (int side = 0; side < 2 && st == LOAM_OK; ++side) {
            const char* key = side ? "link2" : "link1";
            const char* l = attr(k, key);
            body[side] = l ? loam_mb_body_index(m, l) : -1;
            if (!l)
                st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%ld: <disable_collisions>: missing attribute '%s'", path, xmlGetLineNo(k), key);
            else if (body[side] < 0)
                st = loam_error_set(err, LOAM_ERR_INPUT, "%s:%ld: <disable_collisions>: attribute '%s' = '%.80s' is not a link of robot '%s'",
                                    path, xmlGetLineNo(k), key, l, m->name);
        }
        if (st != LOAM_OK || body[0] == body[1]) continue; /* a link with itself never collides anyway */
        if (n == cap) {
            int c2 = cap ? 2 * cap : 64;
            int* p = loam_realloc(pairs, sizeof *p * 2 * (size_t)c2);
            if (!p) {
                st = loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
            pairs = p, cap = c2;
        }
        pairs[2 * n] = body[0], pairs[2 * n + 1] = body[1];
        ++n;
    }
    xmlFreeDoc(doc);
    if (st == LOAM_OK) {
        loam_error inner;
        st = loam_mb_model_exclude_pairs(m, pairs, n, &inner);
        if (st != LOAM_OK) loam_error_set(err, st, "%s: %s", path, inner.message);
    }
    loam_free(pairs);
    return st;
}
