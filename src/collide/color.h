/* Greedy graph colouring, the one rule shared by the granular contact graph (granular/color.c) and
 * the soft-body spring graph (softbody/slot.c): an edge takes the lowest colour that neither of its
 * endpoints uses yet. Edges of one colour share no vertex, so a colour's rows can be solved in
 * parallel with Gauss-Seidel's result. Each vertex keeps a mask of the colours its edges hold, in
 * `words` 32-bit words (32 colours a word). */
#ifndef LOAM_COLLIDE_COLOR_H
#define LOAM_COLLIDE_COLOR_H

#include <stdint.h>

typedef uint32_t loam_color_word;

/* The lowest colour free in both masks (b NULL: an edge with one endpoint, such as a particle
 * against a body), now marked used in both; -1 when all 32 x words colours are taken. */
static inline int loam_color_take(loam_color_word* a, loam_color_word* b, int words) {
    for (int w = 0; w < words; ++w) {
        loam_color_word free_bits = ~(a[w] | (b ? b[w] : 0u));
        if (!free_bits) continue;
        int c = __builtin_ctz(free_bits);
        a[w] |= (loam_color_word)1 << c;
        if (b) b[w] |= (loam_color_word)1 << c;
        return 32 * w + c;
    }
    return -1;
}

#endif
