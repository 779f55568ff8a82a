/* LOAM_API marks the functions libloam exports. The library is compiled with hidden visibility
 * (-fvisibility=hidden), so only what carries LOAM_API reaches libloam.so's dynamic symbol table;
 * everything else stays internal to the library (docs/api.md, "Visibility"). Harmless for users of
 * the static library. */
#ifndef LOAM_EXPORT_H
#define LOAM_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define LOAM_API __attribute__((visibility("default")))
#else
#define LOAM_API
#endif

#endif
