/* Colouring of the contact graph, so contacts of one colour share no particle and can be solved in
 * parallel with immediate velocity updates (Gauss-Seidel by colour, race-free without atomics; Jacobi
 * adds its changes in the same order), and the rows' layout in that order (see loam_coloring).
 *
 * Greedy, in particle order: each contact takes the lowest colour unused by its particles (collide/color.h,
 * a 32-bit mask per particle). Contacts that persist from last step keep their colour (detect.c carries it
 * over) and the masks are kept, so when a few contacts appear in a bed at rest only those are
 * coloured, and the colour classes stay stable; a full colouring runs after a renumbering. The result depends only on the
 * contact lists, never on threads. Contacts that find all 32 colours taken go to a last colour that
 * one thread solves in order. The choice is serial; listing the rows in solve order runs in parallel
 * by block, and only for the blocks whose contacts changed. */
#include <string.h>

#include "collide/color.h"
#include "granular/rows.h"
#include "granular/world_internal.h"

enum { SLOTS_OF_COLORS = LOAM_COLOR_SLOTS };

/* Colour the uncoloured contacts, in particle order. The masks hold every colour a particle's
 * contacts used since the last full colouring: those of contacts that broke since only make the
 * choice more careful, never wrong. This loop is serial, so it visits only the blocks that hold an
 * uncoloured contact (all of them after a full reset): a bed where a few contacts change per step
 * pays for those, not for the bed. */
/* Particle i's uncoloured contacts, each the lowest colour its particles leave free. */
static void color_particle(loam_contacts* c, loam_color_mask* mask, int i) {
    for (int s = loam_pairs_begin(c, i), s_end = loam_pairs_end(c, i); s < s_end; ++s) {
        if (c->pair_color[s] != LOAM_UNCOLORED) continue;
        int col = loam_color_take(&mask[i], &mask[c->pair_j[s]], 1);
        c->pair_color[s] = (uint8_t)(col < 0 ? LOAM_MAX_COLORS : col);
    }
    for (int s = loam_bodies_begin(c, i), s_end = loam_bodies_end(c, i); s < s_end; ++s) {
        if (c->body_color[s] != LOAM_UNCOLORED) continue;
        int col = loam_color_take(&mask[i], NULL, 1);
        c->body_color[s] = (uint8_t)(col < 0 ? LOAM_MAX_COLORS : col);
    }
}

static void choose_colors(loam_world* w, int all) {
    for (int b = 0; b < loam_block_count(w->count); ++b) {
        if (!all && !w->block_info[b].fresh) continue; /* nothing to colour in this block */
        for (int i = b * LOAM_BLOCK; i < loam_block_end(w, b); ++i) color_particle(&w->contacts, w->coloring.mask, i);
    }
}

enum { INNER_PAIRS, INNER_BODIES, CROSSING, KINDS };

/* Block b's rows of each kind and colour. */
static void count_block(const loam_world* w, int b, int32_t counts[KINDS][SLOTS_OF_COLORS]) {
    const loam_contacts* c = &w->contacts;
    memset(counts, 0, sizeof(int32_t) * KINDS * SLOTS_OF_COLORS);
    if (w->block_info[b].quiet) return; /* no contacts (detect.c) */
    for (int i = b * LOAM_BLOCK; i < loam_block_end(w, b); ++i) {
        for (int s = loam_pairs_begin(c, i), s_end = loam_pairs_end(c, i); s < s_end; ++s)
            counts[c->pair_j[s] / LOAM_BLOCK == b ? INNER_PAIRS : CROSSING][c->pair_color[s]]++;
        for (int s = loam_bodies_begin(c, i), s_end = loam_bodies_end(c, i); s < s_end; ++s) counts[INNER_BODIES][c->body_color[s]]++;
    }
}

static int32_t rows_of(const int32_t counts[KINDS][SLOTS_OF_COLORS]) {
    int32_t sum = 0;
    for (int kind = 0; kind < KINDS; ++kind)
        for (int col = 0; col < SLOTS_OF_COLORS; ++col) sum += counts[kind][col];
    return sum;
}

/* Block b's marks for its counts, its rows from region[b]; the counts become each group's first row. */
static void mark_block(loam_coloring* k, int b, int32_t counts[KINDS][SLOTS_OF_COLORS]) {
    int32_t* marks = &k->marks[(size_t)b * LOAM_BLOCK_MARKS];
    int32_t at = k->region[b];
    for (int col = 0; col < SLOTS_OF_COLORS; ++col)
        for (int kind = INNER_PAIRS; kind <= INNER_BODIES; ++kind) {
            marks[2 * col + kind] = at;
            int32_t cnt = counts[kind][col];
            counts[kind][col] = at;
            at += cnt;
        }
    for (int col = 0; col < SLOTS_OF_COLORS; ++col) {
        marks[2 * SLOTS_OF_COLORS + col] = at;
        int32_t cnt = counts[CROSSING][col];
        counts[CROSSING][col] = at;
        at += cnt;
    }
    marks[3 * SLOTS_OF_COLORS] = at;
}

/* List block b's rows at the places mark_block gave: a pair slot s, or ~s for body slot s, in
 * particle order within each group, and their particles in the rows. */
static void list_block(loam_world* w, int b, int32_t fill[KINDS][SLOTS_OF_COLORS]) {
    const loam_contacts* c = &w->contacts;
    loam_coloring* k = &w->coloring;
    if (w->block_info[b].quiet) return;
    for (int i = b * LOAM_BLOCK; i < loam_block_end(w, b); ++i) {
        for (int s = loam_pairs_begin(c, i), s_end = loam_pairs_end(c, i); s < s_end; ++s) {
            int j = c->pair_j[s];
            int q = fill[j / LOAM_BLOCK == b ? INNER_PAIRS : CROSSING][c->pair_color[s]]++;
            k->list[q] = s;
            k->rows.i[q] = (uint16_t)(i - b * LOAM_BLOCK);
            k->rows.j[q] = j;
        }
        for (int s = loam_bodies_begin(c, i), s_end = loam_bodies_end(c, i); s < s_end; ++s) {
            int q = fill[INNER_BODIES][c->body_color[s]]++;
            k->list[q] = ~s;
            k->rows.i[q] = (uint16_t)(i - b * LOAM_BLOCK);
            k->rows.j[q] = ~s;
        }
    }
}

static int inner_rows(const loam_coloring* k, int b) {
    const int32_t* marks = loam_block_marks(k, b);
    return marks[2 * SLOTS_OF_COLORS] - marks[0];
}

/* Blocks by inner rows, most first; ties by index, so the order is a function of the counts. */
static void order_blocks(loam_coloring* k, int blocks) {
    int32_t* order = k->block_order;
    for (int b = 0; b < blocks; ++b) {
        int rows = inner_rows(k, b), at = b;
        /* Insertion: blocks are few (one per 1024 particles) and mostly in order already. */
        while (at > 0 && inner_rows(k, order[at - 1]) < rows) {
            order[at] = order[at - 1];
            --at;
        }
        order[at] = b;
    }
}

/* Relist only the blocks whose contacts changed, in their regions; 0 when one no longer fits (the
 * caller then lays every region out anew and lists every block). A block whose
 * contacts are last step's, slot for slot, has the same rows: the same particles, and its pairs'
 * impulses in place (its slots' refs name them). */
static int relist_changed(loam_world* w, int blocks) {
    loam_coloring* k = &w->coloring;
    int fits = 1;
#pragma omp parallel for schedule(dynamic, 1) reduction(&& : fits) num_threads(w->team)
    for (int b = 0; b < blocks; ++b) {
        k->listed_from[b] = -1;
        if (w->block_info[b].same) continue;
        int32_t counts[KINDS][SLOTS_OF_COLORS];
        count_block(w, b, counts);
        if (rows_of(counts) > k->region[b + 1] - k->region[b]) {
            fits = 0;
            continue;
        }
        k->listed_from[b] = loam_block_marks(k, b)[3 * SLOTS_OF_COLORS];
        mark_block(k, b, counts);
        list_block(w, b, counts);
    }
    return fits;
}

/* Every block's region anew, each its need and a little more (a block whose contact count creeps
 * up then stays in place for a while), and every block listed. 0 when out of memory. */
static int relay_all(loam_world* w, int blocks) {
    loam_coloring* k = &w->coloring;
    int32_t* need = k->listed_from; /* the need, until each block is listed */
#pragma omp parallel for schedule(dynamic, 1) num_threads(w->team)
    for (int b = 0; b < blocks; ++b) {
        int32_t counts[KINDS][SLOTS_OF_COLORS];
        count_block(w, b, counts);
        need[b] = rows_of(counts);
    }
    long long at = 0;
    for (int b = 0; b < blocks; ++b) {
        k->region[b] = (int32_t)at;
        at += need[b] + need[b] / 256 + (need[b] > 0 ? 8 : 0);
    }
    /* Room for the spare memory too (loam_granular_spare): rows that a layout does not use are never
     * touched, and the spare in them saves a block of its own beside them (its peak was the
     * column's). */
    size_t spare_rows = w->spare_asked / (loam_rows_field_bytes(1) - 3 * sizeof(float)) + 1;
    long long room = at > (long long)spare_rows ? at : (long long)spare_rows;
    if (room > INT32_MAX / 2 || !loam_coloring_reserve(k, (int)room)) return 0;
    k->region[blocks] = (int32_t)at;
#pragma omp parallel for schedule(dynamic, 1) num_threads(w->team)
    for (int b = 0; b < blocks; ++b) {
        int32_t counts[KINDS][SLOTS_OF_COLORS];
        count_block(w, b, counts);
        mark_block(k, b, counts);
        list_block(w, b, counts);
        k->listed_from[b] = 0; /* every block listed; the refs may name any old row (relaid) */
    }
    k->relaid = 1;
    return 1;
}

/* Ranges of at most LOAM_ROWS_CHUNK rows cut from block b's rows [lo, hi), appended at *at (when
 * out is not NULL). */
static int cut(int32_t lo, int32_t hi, int b, int32_t* out, int at) {
    for (int32_t q = lo; q < hi; q += LOAM_ROWS_CHUNK, ++at)
        if (out) {
            out[3 * at] = q;
            out[3 * at + 1] = q + LOAM_ROWS_CHUNK < hi ? q + LOAM_ROWS_CHUNK : hi;
            out[3 * at + 2] = b;
        }
    return at;
}

/* The task ranges of loam_coloring (tasks == NULL: only count them). */
static int cut_tasks(loam_coloring* k, int blocks, int32_t* tasks) {
    int at = 0;
    k->task_mark[0] = 0;
    for (int b = 0; b < blocks; ++b) at = cut(k->region[b], loam_block_marks(k, b)[3 * SLOTS_OF_COLORS], b, tasks, at);
    for (int col = 0; col < SLOTS_OF_COLORS; ++col) {
        k->task_mark[col + 1] = at;
        for (int b = 0; b < blocks; ++b) {
            const int32_t* marks = loam_block_marks(k, b);
            at = cut(marks[2 * SLOTS_OF_COLORS + col], marks[2 * SLOTS_OF_COLORS + col + 1], b, tasks, at);
        }
    }
    k->task_mark[SLOTS_OF_COLORS + 1] = at;
    return at;
}

/* Room for the tasks (grown rarely, by a quarter more than needed), then the tasks. */
static int make_tasks(loam_coloring* k, int blocks) {
    int need = cut_tasks(k, blocks, NULL);
    if (need > k->task_capacity) {
        int cap = need + need / 4 + 64;
        int32_t* tasks = loam_malloc(sizeof(int32_t) * 3 * (size_t)cap);
        if (!tasks) return 0;
        loam_free(k->tasks);
        k->tasks = tasks;
        k->task_capacity = cap;
    }
    cut_tasks(k, blocks, k->tasks);
    return 1;
}

int loam_granular_color(loam_world* w, int keep) {
    loam_contacts* c = &w->contacts;
    loam_coloring* k = &w->coloring;
    int n = w->count, blocks = loam_block_count(n);
    if (!keep) {
        memset(k->mask, 0, sizeof(loam_color_mask) * (size_t)n);
#pragma omp parallel for schedule(static) num_threads(w->team)
        for (int i = 0; i < n; ++i) {
            memset(&c->pair_color[loam_pairs_begin(c, i)], LOAM_UNCOLORED, (size_t)loam_pairs_count(c, i));
            memset(&c->body_color[loam_bodies_begin(c, i)], LOAM_UNCOLORED, (size_t)loam_bodies_count(c, i));
        }
    }
    choose_colors(w, !keep);
    /* Body rows name body slots, which move when the contact regions grow. */
    k->relaid = 0;
    int partial = keep && k->colored_layout == c->layout && k->rows_total > 0;
    if (!(partial && relist_changed(w, blocks)) && !relay_all(w, blocks)) return 0;
    k->colored_layout = c->layout;
    w->stats.blocks_relisted = 0;
    for (int b = 0; b < blocks; ++b) w->stats.blocks_relisted += k->listed_from[b] >= 0;
    order_blocks(k, blocks);
    k->colors = k->crossing = 0;
    for (int b = 0; b < blocks; ++b) {
        const int32_t* marks = loam_block_marks(k, b);
        for (int col = 0; col < SLOTS_OF_COLORS; ++col)
            if (marks[2 * SLOTS_OF_COLORS + col + 1] > marks[2 * SLOTS_OF_COLORS + col] && col + 1 > k->colors) k->colors = col + 1;
        k->crossing += marks[3 * SLOTS_OF_COLORS] - marks[2 * SLOTS_OF_COLORS];
    }
    return make_tasks(k, blocks);
}
