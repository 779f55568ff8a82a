/* ABI introspection for language bindings: the size and field offsets of every public struct that a
 * binding mirrors (the Python package's ctypes structures), so a test catches a layout that drifted
 * from the headers instead of a binding that silently reads the wrong bytes. */
#ifndef LOAM_ABI_H
#define LOAM_ABI_H

#include <stddef.h>

#include "loam/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* sizeof(type_name), e.g. "loam_env_config"; 0 for a name loam does not list (or NULL). */
LOAM_API size_t loam_abi_sizeof(const char* type_name);
/* offsetof(type_name, field_name) for a top-level field; (size_t)-1 for an unknown type or field. */
LOAM_API size_t loam_abi_offsetof(const char* type_name, const char* field_name);
/* The listed type names one by one: index 0, 1, ... until NULL. */
LOAM_API const char* loam_abi_type_name(int index);

#ifdef __cplusplus
}
#endif
#endif
