/* Colouring of the contact graph, so contacts of one colour share no particle and can be solved in
 * parallel with immediate velocity updates (Gauss-Seidel by colour, race-free without atomics).
 *
 * Greedy and serial, in particle order: each contact takes the lowest colour unused by its particles
 * (a 64-bit mask per particle). The result depends only on the contact lists, never on threads.
 * Contacts that find all 64 colours taken go to a last colour that one thread solves in order. */
#include <string.h>

#include "granular/world_internal.h"

static inline int lowest_free(uint64_t used) {
    return used == ~0ull ? LOAM_MAX_COLORS : __builtin_ctzll(~used);
}

void loam_granular_color(loam_world* w) {
    loam_contacts* c = &w->cur;
    loam_coloring* k = &w->coloring;
    int n = w->count;
    uint64_t* mask = k->mask;
    memset(mask, 0, sizeof(uint64_t) * (size_t)n);
    memset(w->contact_total, 0, sizeof(int32_t) * (size_t)n);
    memset(k->color_start, 0, sizeof k->color_start);
    int body_in[LOAM_MAX_COLORS + 1] = {0}; /* body contacts of each colour */
    /* Pass 1: choose colours, count them. Constraint refs: a pair slot s, or ~s for body slot s. */
    for (int i = 0; i < n; ++i) {
        for (int s = c->pair_start[i]; s < c->pair_start[i] + c->pair_count[i]; ++s) {
            int j = c->pair_j[s];
            int col = lowest_free(mask[i] | mask[j]);
            if (col < LOAM_MAX_COLORS) {
                mask[i] |= 1ull << col;
                mask[j] |= 1ull << col;
            }
            c->pair_color[s] = (uint8_t)col;
            k->color_start[col + 1]++;
            w->contact_total[i]++;
            w->contact_total[j]++;
        }
        for (int s = c->body_start[i]; s < c->body_start[i] + c->body_count[i]; ++s) {
            int col = lowest_free(mask[i]);
            if (col < LOAM_MAX_COLORS) mask[i] |= 1ull << col;
            c->body_color[s] = (uint8_t)col;
            k->color_start[col + 1]++;
            body_in[col]++;
            w->contact_total[i]++;
        }
    }
    /* Colour c holds its pairs, then its body contacts: the sweeps run each kind without a branch. */
    for (int col = 0; col <= LOAM_MAX_COLORS; ++col) {
        k->color_start[col + 1] += k->color_start[col];
        k->pair_end[col] = k->color_start[col + 1] - body_in[col];
    }
    /* Pass 2: list each colour's constraints, in particle order. */
    int fill[LOAM_MAX_COLORS + 1], body_fill[LOAM_MAX_COLORS + 1];
    memcpy(fill, k->color_start, sizeof fill);
    memcpy(body_fill, k->pair_end, sizeof body_fill);
    for (int i = 0; i < n; ++i) {
        for (int s = c->pair_start[i]; s < c->pair_start[i] + c->pair_count[i]; ++s)
            k->list[fill[c->pair_color[s]]++] = s;
        for (int s = c->body_start[i]; s < c->body_start[i] + c->body_count[i]; ++s)
            k->list[body_fill[c->body_color[s]]++] = ~s;
    }
    k->colors = 0;
    for (int col = 0; col <= LOAM_MAX_COLORS; ++col)
        if (k->color_start[col + 1] > k->color_start[col]) k->colors = col + 1;
}
