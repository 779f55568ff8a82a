/* Colouring of the contact graph, so contacts of one colour share no particle and can be solved in
 * parallel with immediate velocity updates (Gauss-Seidel by colour, race-free without atomics).
 *
 * Greedy, in particle order: each contact takes the lowest colour unused by its particles (a 64-bit
 * mask per particle). Contacts that persist from last step keep their colour (detect.c carries it
 * over) and the masks are kept, so when a few contacts appear in a bed at rest only those are
 * coloured, and the colour classes stay stable; a full colouring runs after a renumbering. The result depends only on the
 * contact lists, never on threads. Contacts that find all 64 colours taken go to a last colour that
 * one thread solves in order. The choice is serial; listing the rows in solve order (see
 * loam_coloring) runs in parallel by block. */
#include <string.h>

#include "granular/world_internal.h"

static inline int lowest_free(uint64_t used) {
    return used == ~0ull ? LOAM_MAX_COLORS : __builtin_ctzll(~used);
}

enum { SLOTS_OF_COLORS = LOAM_COLOR_SLOTS };

/* Colour the uncoloured contacts, in particle order. The masks hold every colour a particle's
 * contacts used since the last full colouring: those of contacts that broke since only make the
 * choice more careful, never wrong. This loop is serial, so it visits only the particles that own an
 * uncoloured contact (all of them after a full reset): a bed where a few contacts change per step
 * pays for those, not for the bed. */
static void choose_colors(loam_world* w, int all) {
    loam_contacts* c = &w->contacts;
    uint64_t* mask = w->coloring.mask;
    const uint8_t* fresh = w->coloring.fresh;
    for (int i = 0; i < w->count; ++i) {
        if (!all && !fresh[i]) continue;
        for (int s = c->pair_start[i]; s < c->pair_start[i] + c->pair_count[i]; ++s) {
            if (c->pair_color[s] != LOAM_UNCOLORED) continue;
            int j = c->pair_j[s], col = lowest_free(mask[i] | mask[j]);
            if (col < LOAM_MAX_COLORS) {
                mask[i] |= 1ull << col;
                mask[j] |= 1ull << col;
            }
            c->pair_color[s] = (uint8_t)col;
        }
        for (int s = c->body_start[i]; s < c->body_start[i] + c->body_count[i]; ++s) {
            if (c->body_color[s] != LOAM_UNCOLORED) continue;
            int col = lowest_free(mask[i]);
            if (col < LOAM_MAX_COLORS) mask[i] |= 1ull << col;
            c->body_color[s] = (uint8_t)col;
        }
    }
}

/* Count every colour's inner pairs, body contacts and crossing pairs of each block. Blocks are
 * taken one at a time, not in static shares: where a tool stirs a bed, a few neighbouring blocks
 * hold most contacts, and static shares gave them all to one thread. */
static void count_colors(loam_world* w, int32_t* pairs_of, int32_t* bodies_of, int32_t* crossing_of) {
    const loam_contacts* c = &w->contacts;
    int n = w->count, blocks = loam_block_count(n);
#pragma omp parallel for schedule(dynamic, 1)
    for (int b = 0; b < blocks; ++b) {
        int32_t* pc = &pairs_of[(size_t)b * SLOTS_OF_COLORS];
        int32_t* bc = &bodies_of[(size_t)b * SLOTS_OF_COLORS];
        int32_t* xc = &crossing_of[(size_t)b * SLOTS_OF_COLORS];
        if (w->block_info[b].quiet) continue; /* no contacts (detect.c) */
        int end = loam_block_end(w, b);
        for (int i = b * LOAM_BLOCK; i < end; ++i) {
            for (int s = c->pair_start[i]; s < c->pair_start[i] + c->pair_count[i]; ++s) {
                if (c->pair_j[s] / LOAM_BLOCK == b) pc[c->pair_color[s]]++;
                else xc[c->pair_color[s]]++;
            }
            for (int s = c->body_start[i]; s < c->body_start[i] + c->body_count[i]; ++s) bc[c->body_color[s]]++;
        }
    }
}

/* Blocks by inner rows, most first; ties by index, so the order is a function of the counts. */
static void order_blocks(loam_coloring* k, int blocks) {
    int32_t* order = k->block_order;
    for (int b = 0; b < blocks; ++b) {
        int rows = k->inner[(size_t)b * LOAM_BLOCK_MARKS + 2 * SLOTS_OF_COLORS] - k->inner[(size_t)b * LOAM_BLOCK_MARKS];
        int at = b;
        /* Insertion: blocks are few (one per 1024 particles) and mostly in order already. */
        while (at > 0) {
            int o = order[at - 1];
            int orows = k->inner[(size_t)o * LOAM_BLOCK_MARKS + 2 * SLOTS_OF_COLORS] - k->inner[(size_t)o * LOAM_BLOCK_MARKS];
            if (orows >= rows) break;
            order[at] = o;
            --at;
        }
        order[at] = b;
    }
}

void loam_granular_color(loam_world* w, int keep) {
    loam_contacts* c = &w->contacts;
    loam_coloring* k = &w->coloring;
    int n = w->count, blocks = loam_block_count(n);
    size_t per_kind = (size_t)blocks * SLOTS_OF_COLORS;
    int32_t* pairs_of = k->block_counts; /* [block][colour]: inner pairs, inner bodies, crossing pairs */
    int32_t* bodies_of = k->block_counts + per_kind;
    int32_t* crossing_of = k->block_counts + 2 * per_kind;
    memset(k->block_counts, 0, sizeof(int32_t) * 3 * per_kind);
    if (!keep) {
        memset(k->mask, 0, sizeof(uint64_t) * (size_t)n);
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; ++i) {
            memset(&c->pair_color[c->pair_start[i]], LOAM_UNCOLORED, (size_t)c->pair_count[i]);
            memset(&c->body_color[c->body_start[i]], LOAM_UNCOLORED, (size_t)c->body_count[i]);
        }
    }
    choose_colors(w, !keep);
    count_colors(w, pairs_of, bodies_of, crossing_of);
    /* Turn the counts into each block's and colour's first row (the order of loam_coloring). */
    int at = 0;
    for (int b = 0; b < blocks; ++b) {
        int32_t* marks = &k->inner[(size_t)b * LOAM_BLOCK_MARKS];
        for (int col = 0; col < SLOTS_OF_COLORS; ++col) {
            int32_t* pc = &pairs_of[(size_t)b * SLOTS_OF_COLORS + col];
            int32_t* bc = &bodies_of[(size_t)b * SLOTS_OF_COLORS + col];
            marks[2 * col] = at;
            int cnt = *pc;
            *pc = at;
            at += cnt;
            marks[2 * col + 1] = at;
            cnt = *bc;
            *bc = at;
            at += cnt;
        }
        marks[2 * SLOTS_OF_COLORS] = at;
    }
    order_blocks(k, blocks);
    k->colors = 0;
    for (int col = 0; col < SLOTS_OF_COLORS; ++col) {
        k->color_start[col] = at;
        for (int b = 0; b < blocks; ++b) {
            int32_t* xc = &crossing_of[(size_t)b * SLOTS_OF_COLORS + col];
            int cnt = *xc;
            *xc = at;
            at += cnt;
        }
        if (at > k->color_start[col]) k->colors = col + 1;
    }
    k->color_start[SLOTS_OF_COLORS] = at;
    /* List the rows in that order, in particle order within each group: a pair slot s, or ~s for
     * body slot s; and their particles in the rows. */
#pragma omp parallel for schedule(dynamic, 1)
    for (int b = 0; b < blocks; ++b) {
        int32_t* pfill = &pairs_of[(size_t)b * SLOTS_OF_COLORS];
        int32_t* bfill = &bodies_of[(size_t)b * SLOTS_OF_COLORS];
        int32_t* xfill = &crossing_of[(size_t)b * SLOTS_OF_COLORS];
        if (w->block_info[b].quiet) continue;
        int end = loam_block_end(w, b);
        for (int i = b * LOAM_BLOCK; i < end; ++i) {
            for (int s = c->pair_start[i]; s < c->pair_start[i] + c->pair_count[i]; ++s) {
                int j = c->pair_j[s];
                int q = j / LOAM_BLOCK == b ? pfill[c->pair_color[s]]++ : xfill[c->pair_color[s]]++;
                k->list[q] = s;
                k->rows.i[q] = i;
                k->rows.j[q] = j;
            }
            for (int s = c->body_start[i]; s < c->body_start[i] + c->body_count[i]; ++s) {
                int q = bfill[c->body_color[s]]++;
                k->list[q] = ~s;
                k->rows.i[q] = i;
                k->rows.j[q] = ~s;
            }
        }
    }
}
