/* URDF text as written in the wild, before and after libxml2 parses it: XML declarations libxml2
 * refuses and urdfdom takes, and xacro files recognized (see docs/urdf-compat.md). */
#include <string.h>

#include "multibody/urdf_internal.h"

/* What urdfdom (TinyXML2) and pybullet take in an XML declaration and libxml2 refuses: any version
 * (libxml2 wants 1.x; 26 of pybullet_data's URDFs say "0.0") and white space before it
 * (differential/diff_ring.urdf). A copy with version "1.0" and the declaration first, the white space
 * after it, so every later line keeps its number (its new length in *out_len); NULL when the text
 * needs neither. */
char* urdf_declaration_patched(const char* text, size_t length, size_t* out_len) {
    size_t i = 0;
    if (length >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF) i = 3;
    size_t j = i;
    while (j < length && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' || text[j] == '\n')) ++j;
    if (length - j < 6 || strncmp(text + j, "<?xml", 5) != 0) return NULL;
    const char* end = memchr(text + j, '>', length - j);
    if (!end) return NULL;
    const char *v = NULL, *ve = NULL;
    for (const char* p = text + j + 5; p + 7 < end; ++p)
        if (strncmp(p, "version", 7) == 0) {
            v = p + 7;
            break;
        }
    while (v && v < end && (*v == ' ' || *v == '=' || *v == '\t')) ++v;
    if (v && v < end && (*v == '"' || *v == '\'')) {
        char q = *v++;
        ve = memchr(v, q, (size_t)(end - v));
    }
    int version_ok = !ve || (ve - v >= 2 && v[0] == '1' && v[1] == '.');
    if (version_ok && j == i) return NULL;
    char* copy = loam_malloc(length + 4);
    if (!copy) return NULL;
    size_t k = 0, decl_end = (size_t)(end - text) + 1;
    memcpy(copy, text, i), k = i; /* the byte-order mark */
    if (version_ok) {
        memcpy(copy + k, text + j, decl_end - j), k += decl_end - j;
    } else {
        memcpy(copy + k, text + j, (size_t)(v - text) - j), k += (size_t)(v - text) - j;
        memcpy(copy + k, "1.0", 3), k += 3;
        memcpy(copy + k, ve, decl_end - (size_t)(ve - text)), k += decl_end - (size_t)(ve - text);
    }
    memcpy(copy + k, text + i, j - i), k += j - i; /* the white space that stood before it */
    memcpy(copy + k, text + decl_end, length - decl_end), k += length - decl_end;
    copy[k] = 0;
    *out_len = k;
    return copy;
}

/* The first element of the xacro namespace (or written xacro:NAME without one), or NULL. */
xmlNode* urdf_xacro_element(xmlNode* n) {
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        if ((n->ns && ((n->ns->prefix && strcmp((const char*)n->ns->prefix, "xacro") == 0) ||
                       (n->ns->href && strstr((const char*)n->ns->href, "xacro")))) ||
            strncmp((const char*)n->name, "xacro:", 6) == 0)
            return n;
        xmlNode* k = urdf_xacro_element(n->children);
        if (k) return k;
    }
    return NULL;
}

/* Text that could not be parsed but holds xacro elements. (Expanded files often keep xmlns:xacro
 * on <robot>: the declaration alone proves nothing.) */
int urdf_xacro_text(const char* text, size_t length) {
    static const char* keys[1] = {"<xacro:"};
    for (int k = 0; k < 1; ++k) {
        size_t kl = strlen(keys[k]);
        for (size_t i = 0; i + kl <= length; ++i)
            if (text[i] == keys[k][0] && memcmp(text + i, keys[k], kl) == 0) return 1;
    }
    return 0;
}
