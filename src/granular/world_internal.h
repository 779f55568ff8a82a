/* The granular world's layout. Model: parameters, per-particle radius and inverse mass, bodies.
 * State: positions, velocities, time, body poses. Scratch: the hash and the contact lists, sized
 * once and reused, so a steady-state step allocates nothing. */
#ifndef LOAM_GRANULAR_WORLD_INTERNAL_H
#define LOAM_GRANULAR_WORLD_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "collide/color.h"
#include "collide/spatial_hash.h"
#include "contact/endpoint.h"
#include "core/threads.h"
#include "core/vec.h"
#include "loam/granular.h"

/* Work is cut into fixed blocks of particles, independent of the thread count, and per-block
 * results are combined in block order: every thread count gives the same bytes. */
enum { LOAM_BLOCK = 1024 };

/* Largest speculative margin, in radii of the largest particle (see choose_margins in step.c). */
#define LOAM_MAX_MARGIN 2.0f

/* Colours of the contact graph for the sweeps; colour LOAM_MAX_COLORS is the serial rest,
 * LOAM_UNCOLORED marks a contact still to colour. A bed of equal spheres at rest uses 13 to 14
 * colours; 32 (a 32-bit mask a particle, 4 bytes less than 64) leave room for polydisperse beds. */
#define LOAM_MAX_COLORS 32
typedef loam_color_word loam_color_mask; /* one bit per colour (collide/color.h) */
#define LOAM_UNCOLORED 255
/* Until the next detection, the colour of a pair that a renumbering moved to its partner's list
 * (reorder.c): detection then tests it like a new pair, keeping its impulse (contacts_of). */
#define LOAM_REOWNED 254

/* Contacts of one step, one set updated in place: detection reads a block's contacts of last step
 * (the warm start) from the block's own region and replaces them there (detect.c). Particle-particle
 * pairs are owned by the lower index i; each owner keeps its pairs sorted by partner j, in a range of
 * its block's reserved region (so blocks fill in parallel without counting first; each region is
 * sized to its own block's need). A block's particles' ranges follow one another from its region's
 * start, so one end a particle, counted from there, gives both ends (loam_pairs_begin/_end): 8
 * bytes a particle less than a start and a count for each kind, and a region moves without them. */
typedef struct loam_contacts {
    int32_t* pair_end;        /* n: one past i's last owned slot, less its block's pair_region */
    int32_t* pair_j;          /* slots: partner j > i */
    int32_t* pair_ref;        /* slots: the row that holds the pair's impulse (a loam_ref) once
                                 coloring.lambda_in_rows; the rows are the only store of pair
                                 impulses, 12 bytes a contact less */
    int32_t* body_end;        /* n: likewise for body slots, less the block's body_region */
    int32_t* body_shape;      /* body slots: global shape index */
    float* body_lambda;       /* 3 * body slots */
    uint8_t* pair_color;      /* slots: colour for the sweeps (color.c); carried over from
                                 last step for contacts that persist */
    uint8_t* body_color;      /* body slots */
    int32_t* pair_region;     /* blocks + 1: block b fills pair slots [pair_region[b], [b + 1]) */
    int32_t* body_region;     /* blocks + 1: and body slots [body_region[b], [b + 1]) */
    int layout;               /* counts the changes of the regions */
    /* Body contacts' geometry, written by detection (the rows copy it; body wrenches read it; the
     * sweeps take the surface point and its velocity from it, loam_body_contact_velocity): */
    int32_t* body_owner;      /* body slots: the particle */
    float* body_n;            /* 4 * body slots: normal out of the shape, and the signed distance of
                                 the particle's centre from the surface (the gap plus its radius), m */
    /* Per thread, one block's new contacts while detection finds them, before they replace the
     * block's old ones (loam_contact_scratch); sized to the largest region. */
    struct loam_contact_scratch* scratch;
    int scratch_count, scratch_pairs, scratch_bodies;
} loam_contacts;

/* Particle i's pair slots [loam_pairs_begin, loam_pairs_end), and its body slots likewise. */
static inline int32_t loam_slots_begin(const int32_t* region, const int32_t* end, int i) {
    return region[i / LOAM_BLOCK] + (i % LOAM_BLOCK ? end[i - 1] : 0);
}
static inline int32_t loam_slots_end(const int32_t* region, const int32_t* end, int i) {
    return region[i / LOAM_BLOCK] + end[i];
}
static inline int32_t loam_pairs_begin(const loam_contacts* c, int i) { return loam_slots_begin(c->pair_region, c->pair_end, i); }
static inline int32_t loam_pairs_end(const loam_contacts* c, int i) { return loam_slots_end(c->pair_region, c->pair_end, i); }
static inline int32_t loam_bodies_begin(const loam_contacts* c, int i) { return loam_slots_begin(c->body_region, c->body_end, i); }
static inline int32_t loam_bodies_end(const loam_contacts* c, int i) { return loam_slots_end(c->body_region, c->body_end, i); }
static inline int32_t loam_slots_count(const int32_t* end, int i) { return end[i] - (i % LOAM_BLOCK ? end[i - 1] : 0); }
static inline int32_t loam_pairs_count(const loam_contacts* c, int i) { return loam_slots_count(c->pair_end, i); }
static inline int32_t loam_bodies_count(const loam_contacts* c, int i) { return loam_slots_count(c->body_end, i); }

/* One block's new contacts (detect.c): counts per particle of the block, then per slot the partner
 * or shape, the old slot the contact continues (-1: a new contact), and the impulse and colour taken
 * from there. */
typedef struct loam_contact_scratch {
    int32_t pair_count[LOAM_BLOCK], body_count[LOAM_BLOCK];
    int32_t *pair_j, *pair_from, *pair_ref, *body_shape, *body_from;
    float* body_lambda;
    uint8_t *pair_color, *body_color;
} loam_contact_scratch;

/* Contacts as the sweeps read them: everything a contact update touches apart from the two
 * velocities, in solve order (loam_coloring), one array per field so a sweep streams through
 * memory and 8 rows load as vectors. Listed from the slot arrays by the colouring (color.c);
 * normals and gaps refreshed every step (rows.c). */
typedef struct loam_rows {
    uint16_t* i;              /* particle that receives +lambda, as its offset in the block whose
                                 region holds the row (a row lies in its owner's block's region:
                                 2 bytes a row, not 4) */
    int32_t* j;               /* partner particle (receives -lambda), or ~s for body slot s */
    int16_t *nx, *ny, *nz;    /* unit normal from j (or out of the shape) to i, in 16-bit fixed point
                                 (loam_normal_pack: 1.5e-5 resolution; 6 bytes a row, not 12, and
                                 the rows are the largest store of a bed) */
    float* gap;               /* m, < 0 = overlap */
    float *lx, *ly, *lz;      /* accumulated impulse on i, N s */
    float* push;              /* overlap-removal pseudo-impulse, N s */
    void* fields;             /* one allocation holds every field above but i and j */
    float omega;              /* params.relaxation: a row's effective mass is omega / (w_i + w_j), from
                                 the inverse masses the sweeps load anyway (kept per row, it cost 4
                                 bytes a row and a load per row per sweep) */
} loam_rows;

/* Solve order of the rows (color.c). Each block of particles has a region of rows (sized to its
 * need and a little more), where its particles' rows lie: first its inner rows (both particles in
 * the block, or a body contact), colour by colour with pairs before body contacts, then its
 * crossing rows (the partner in a later block), colour by colour. A thread sweeps a whole block's
 * inner rows with no barrier, its 1024 velocities in L1 cache; then the crossing rows of each
 * colour, over all blocks, with a barrier between colours. A block whose contacts are last step's
 * keeps its rows where they are when the colouring is redone: in a bed at rest a few blocks of a
 * hundred change a step, and only those are listed again. */
enum { LOAM_COLOR_SLOTS = LOAM_MAX_COLORS + 1, LOAM_BLOCK_MARKS = 3 * LOAM_COLOR_SLOTS + 1 };

typedef struct loam_coloring {
    loam_color_mask* mask;    /* n: colours used by each particle */
    int32_t* list;            /* per row of a block listed anew: pair slot s, or ~s for body slot s;
                                 from the colouring to the rows' refresh only, in the rows' gap field */
    loam_rows rows;        /* the rows, in solve order */
    int list_capacity;        /* entries of list and of each rows array */
    int32_t* region;          /* blocks + 1: block b's rows lie in [region[b], region[b + 1]) */
    int32_t* marks;           /* blocks * LOAM_BLOCK_MARKS: block b's first inner pair row of colour c
                                 at [b * LOAM_BLOCK_MARKS + 2c], first inner body row at [.. + 2c + 1],
                                 first crossing row of colour c at [.. + 2 LOAM_COLOR_SLOTS + c], and
                                 the end of its rows at [.. + 3 LOAM_COLOR_SLOTS] */
    int32_t* listed_from;     /* blocks: for a block listed anew by the last colouring, where its rows
                                 ended before (its old rows, which its refs name, lay in its region);
                                 -1 for a block whose rows were kept */
    int relaid;               /* the last colouring laid every region out anew: the refs may name
                                 any old row */
    int colors;               /* crossing colours in use (the last may be the serial one) */
    int crossing;             /* crossing rows in all */
    int32_t* tasks;           /* (first, end, block) row ranges of at most LOAM_ROWS_CHUNK rows, cut from
                                 each block's range from its start (so where a range ends does not
                                 depend on threads): the rows in use, block after block, at
                                 [task_mark[0], task_mark[1]); the crossing rows of colour c at
                                 [task_mark[c + 1], task_mark[c + 2]). Threads share them in static
                                 shares: even work, where blocks differ */
    int task_mark[LOAM_COLOR_SLOTS + 2];
    int task_capacity;        /* ranges the tasks array holds */
    int32_t* block_order;     /* blocks: heaviest inner-row count first, the order threads take
                                 blocks in (the longest first, so no thread is left with a big
                                 one at the end) */
    int64_t colored_step;     /* the step the colouring was made for; -1 = none */
    int colored_layout;       /* contacts.layout at that colouring (body rows name body slots) */
    int rows_total;           /* extent of the regions of that colouring (the pair refs index them) */
    int lambda_in_rows;       /* the pair impulses of the last step live in the rows, where the
                                 slots' pair_ref point (0 before the first solve: no warm start) */
} loam_coloring;

/* Block b's marks (loam_coloring.marks). */
static inline const int32_t* loam_block_marks(const loam_coloring* k, int b) {
    return &k->marks[(size_t)b * LOAM_BLOCK_MARKS];
}

typedef struct loam_neighbor_list {
    int block_capacity;       /* entries reserved per block in j */
    uint16_t* count;          /* n: entries of each particle's list (loam_list_partners) */
    uint16_t* j;              /* partners j > i of each particle i, ascending, coded in 16-bit
                                 entries (loam_list_partners: 2 bytes a partner, not 4); block b's
                                 particles' lists follow one another from j[b * block_capacity] */
    float* ref[3];            /* x, y, z of each particle at the last build or rebase (neighbors.c) */
    uint8_t* slack;           /* n: i's listed non-contacts' smallest gap at its last scan less
                                 twice the movement bound then, coded in a byte (detect.c,
                                 scan_rule); 0 = scan it */
    float* bucket_pos;        /* 4 * n: (x, y, z, r) in the hash's compact bucket order (a build's
                                 candidates are then contiguous reads); only during a build, in the
                                 push buffer's memory (build_neighbor_list, detect.c) */
    float reach;              /* margin + skin the list was built with, less what rebases used, m */
    float built_reach;        /* reach at the build, m */
    float built_life;         /* reach - pair margin at the build, m */
    int calm_steps;           /* steps in a row in which moved_spread hardly changed (a rebase waits
                                 for a few, neighbors.c) */
    float moved_spread;       /* loam_spread of the displacements since ref (as of this step's
                                 validity check), m: a pair's distance has changed by at most twice
                                 it since then */
    void* caches;             /* per thread: a build's gathered candidates (detect.c) */
    int cache_count;
    int valid;
    long long builds;
} loam_neighbor_list;

/* A neighbour-list entry e of particle i: partner i + e for e < LOAM_LIST_FAR (after the Z-order
 * renumbering nearly every partner is that near in number), else the partner's number in the two
 * entries that follow, high half first. Writes the n entries' partners to out; returns how many. */
enum { LOAM_LIST_FAR = 0xffff };
/* The entries of partner j > i, into e; returns how many (1 or 3). */
static inline int loam_list_code(int i, int32_t j, uint16_t e[3]) {
    uint32_t d = (uint32_t)(j - i);
    if (d < LOAM_LIST_FAR) {
        e[0] = (uint16_t)d;
        return 1;
    }
    e[0] = LOAM_LIST_FAR;
    e[1] = (uint16_t)((uint32_t)j >> 16);
    e[2] = (uint16_t)((uint32_t)j & 0xffff);
    return 3;
}
/* The partner of particle i that entry *k of e codes; *k moves past it. */
static inline int32_t loam_list_next(int i, const uint16_t* e, int* k) {
    uint16_t d = e[(*k)++];
    if (d < LOAM_LIST_FAR) return i + d;
    int32_t j = (int32_t)((uint32_t)e[*k] << 16 | e[*k + 1]);
    *k += 2;
    return j;
}
static inline int loam_list_partners(int i, const uint16_t* e, int n, int32_t* out) {
    int m = 0;
    for (int k = 0; k < n;) out[m++] = loam_list_next(i, e, &k);
    return m;
}

/* What detection knows about each block of particles this step (detect.c). A quiet block is all
 * asleep, with nothing awake and no moving shape within reach: none of its particles can have a
 * contact (two sleepers need none), so detection and the neighbour-list build pass it by. */
typedef struct loam_block_info {
    float lo[3], hi[3];             /* bounds of the block's particle centres, m */
    float awake_lo[3], awake_hi[3]; /* and of its awake particles' (only when awake > 0) */
    int awake;                      /* awake particles in the block */
    uint8_t quiet;
    uint8_t list_stale;             /* quiet at the last list build, which skipped it: it needs a
                                       build before it can detect again */
    /* This step's detection (loam_granular_detect): */
    uint8_t done;                   /* the block's contacts of this step are in its region */
    uint8_t same;                   /* they are last step's, slot for slot */
    uint8_t fresh;                  /* some contact of the block is still to colour (the serial
                                       colouring visits only such blocks: a few a step at rest) */
    float moved;                    /* largest displacement of its particles since the neighbour
                                       list's reference, m (neighbors.c) */
    float near_moved;               /* largest `moved` of the blocks that can hold a listed partner
                                       of its particles (itself included), m (detect.c) */
    int scanned;                    /* particles whose list this step's detection scanned */
} loam_block_info;

typedef struct loam_shape_ref {
    int body;
    loam_shape shape;
} loam_shape_ref;

/* Particles as contact endpoints (endpoint.c; contact/endpoint.h): owner = the world. */
extern const loam_endpoint_ops loam_particle_endpoint_ops;

/* What does not change while stepping (loam_granular_model_create): particles by id, bodies,
 * default parameters. Worlds made from it hold a reference; it is freed with the last. A world
 * made by loam_world_create owns a private model that holds its bodies only: that world's
 * particles (radius and mass by id) are its slots', so it costs no more than before the split. */
struct loam_granular_model {
    loam_granular_params params;
    int count, capacity;      /* particles (a private model: 0) */
    float* radius;            /* by id, m */
    float* inv_mass;          /* by id, 1/kg */
    float* xyz;               /* 3 * capacity by id: the default initial positions, m */
    float* vel;               /* 3 * capacity by id: initial velocities; NULL while all at rest */
    float max_radius;
    int body_count, body_capacity;
    loam_body_def* body_defs; /* the bodies' definitions, their initial poses included */
    int shape_count;          /* all bodies' shapes, flattened */
    loam_shape_ref* shapes;
    int refs;                 /* the creator's and one per world (atomic) */
    int frozen;               /* a world was made from it: nothing more may be added (atomic) */
    int is_private;           /* a world's own (loam_world_create) */
};

struct loam_world {
    /* model: what the world steps with but does not change. body_defs and shapes are the model's
     * arrays (not owned); radius, inv_mass and id are the world's per-slot copies, since slots
     * are renumbered every reorder_interval steps and the hot loops read them by slot. */
    loam_granular_model* model;
    loam_granular_params params;
    int team;                 /* threads of this step's regions: loam_team(params.threads), set as
                                 each step begins (1 between steps) */
    int count, capacity;
    float* radius;
    float* inv_mass;
    int32_t* id;              /* identity of the particle in each slot (slots are reordered) */
    float max_radius;
    int body_count;
    const loam_body_def* body_defs; /* = model->body_defs */
    int shape_count;          /* all bodies' shapes, flattened */
    const loam_shape_ref* shapes;   /* = model->shapes */

    /* state */
    float *x, *y, *z, *vx, *vy, *vz;
    double time;
    int64_t step;
    loam_body_state* bodies;

    /* scratch */
    int ready;                /* scratch sized for the current particle count */
    loam_spatial_hash hash;
    loam_contacts contacts;   /* last step's until detection replaces them, block by block */
    loam_coloring coloring;
    loam_neighbor_list neighbors;
    float* sv;                /* 4 * n: solver velocity (AoS so a neighbour is one cache line) and
                                 inverse mass; before the solve, positions and radii packed by
                                 detection; after it, the push velocities (push.c) */
    float* sv_prev;           /* 4 * n: Jacobi only (NULL until it runs): the sweep before's sv,
                                 with mass-split inverse masses (loam_granular_jacobi_snapshot_for) */
    float* vel_pack;          /* 4 * n: (vx, vy, vz, 0) packed by detection, during detection only
                                 (in loam_granular_spare) */
    void* spare;              /* loam_granular_spare's own memory when the rows' is too small */
    size_t spare_bytes;
    size_t spare_asked;       /* the most loam_granular_spare was asked for: the rows are laid out with
                                 room for it (color.c), so it stays in their spare fields */
    int32_t* contact_total;   /* n: contacts of each particle (Jacobi: counted every step by the
                                 solve's warm start, its mass splitting needs them; Gauss-Seidel:
                                 by loam_contacts_count, only when loam_world_particles asks) */
    int contact_total_stale;  /* contact_total does not count this step's contacts yet */
    int32_t* calm;            /* n: steps each particle has stayed slower than params.sleep_speed, or
                                 LOAM_ASLEEP (sleep.c) */
    uint8_t* wake;            /* n: set during detection when something moving touches a sleeper */
    uint8_t* asleep;          /* n: this step's sleepers as bytes (detection tests every candidate:
                                 n bytes stay in L1 where calm's or the velocities' lines do not) */
    int sleep_changed;        /* some particle fell asleep or woke at the end of the last step */
    int32_t* radix_counts;    /* 65536: digit counts of the reorder's radix sort */
    float* block_scratch;     /* per-block partial sums for deterministic reductions */
    loam_pose* shape_pose;    /* world pose of each shape this step */
    loam_vec3* shape_lo;      /* world bounds of each shape, for culling */
    loam_vec3* shape_hi;
    int64_t last_reorder;     /* step of the last renumbering */
    int contacts_unchanged;   /* this step's contacts are last step's, slot for slot */
    int layout_at_last_step;  /* contacts.layout of last step */
    loam_block_info* block_info; /* blocks */
    int quiet_off;            /* no block is quiet: the reference that tests/test_sleep.c compares with */
    int32_t* block_need;      /* 2 * blocks: pair and body slots each block needed (detect.c) */
    float reach_cap;          /* largest margin + skin a periodic axis allows, m */
    float pair_margin;        /* this step's speculative distance for particle pairs, m */
    float body_margin;        /* and for particle-body pairs, m */
    loam_step_stats stats;
};

/* Velocity of the surface point of body slot s (owner i), and the shape's friction in *mu: from the
 * body's twist at the point detection found, with the same operations, so the bits are
 * detection's. Body contacts are few: recomputing this each sweep saves 16 bytes a slot. */
static inline loam_vec3 loam_body_contact_velocity(const loam_world* w, int s, int i, float* mu) {
    const loam_contacts* c = &w->contacts;
    const float* nd = &c->body_n[4 * (size_t)s];
    const loam_shape_ref* sr = &w->shapes[c->body_shape[s]];
    const loam_body_state* bs = &w->bodies[sr->body];
    loam_vec3 surface = v3_sub(v3(w->x[i], w->y[i], w->z[i]), v3_scale(v3(nd[0], nd[1], nd[2]), nd[3]));
    *mu = sr->shape.friction;
    return v3_add(bs->twist.v, v3_cross(bs->twist.w, v3_sub(surface, bs->pose.p))); /* loam_twist_point_velocity */
}

/* The model (model.c). */
loam_granular_model* loam_granular_model_alloc(const loam_granular_params* params, int is_private, loam_error* err);
void loam_granular_model_retain(loam_granular_model* m);
/* A private model with src's parameters and bodies (a world's clone gets its own). NULL: no memory. */
loam_granular_model* loam_granular_model_copy_private(const loam_granular_model* src);
/* Append a body, with no check of the model's kind or worlds; its index or -1 with err set. */
int loam_granular_model_append_body(loam_granular_model* m, const loam_body_def* def, loam_error* err);
/* add_particles' checks, for `count` particles already there. */
loam_status loam_granular_check_particles(const loam_granular_params* p, int count, int n, const float* xyz, const float* vel,
                                          const float* radius, float density, loam_error* err);
/* A particle's inverse mass, the same bits for a model's and a world's particles. */
static inline float loam_particle_inv_mass(float density, float r) {
    return 1.0f / (density * (float)(4.0 / 3.0 * M_PI) * r * r * r);
}
/* Point the world at its model's body arrays (after the model's grew). */
static inline void loam_world_see_model(loam_world* w) {
    w->body_defs = w->model->body_defs;
    w->shapes = w->model->shapes;
    w->body_count = w->model->body_count;
    w->shape_count = w->model->shape_count;
}

/* Stages of a step (src/granular/). */
loam_status loam_granular_prepare(loam_world* w, loam_error* err);
loam_status loam_granular_detect(loam_world* w, loam_error* err);
/* The velocity sweeps over this step's rows (solve.c). */
void loam_granular_solve(loam_world* w);
/* The Verlet neighbour list (neighbors.c). */
int loam_neighbors_alloc(loam_neighbor_list* nl, int n);
void loam_neighbors_free(loam_neighbor_list* nl);
int loam_neighbors_reserve(loam_neighbor_list* nl, int blocks, int cap);
void loam_neighbors_mark_built(loam_world* w, float reach);
int loam_neighbors_valid(loam_world* w); /* also sets moved_spread, and may rebase the list */

/* Colour this step's contacts and lay out their rows (color.c). keep: contacts that persist from
 * last step carry a valid colour (no renumbering since), and last step's colouring was made: blocks
 * whose contacts are last step's keep their rows. Returns 0 when out of memory. */
int loam_granular_color(loam_world* w, int keep);
/* Pseudo-velocities that remove overlaps without adding kinetic energy (push.c). */
void loam_granular_push(loam_world* w);
/* Scratch of `bytes` for a stage that runs between two solves (detection, a renumbering): the
 * rows' spare fields when they are large enough (a dense bed's always are), else memory
 * of its own, kept until the rows suffice. A stage asks once, for all it needs: the next call may
 * move it. NULL when out of memory (step.c). */
void* loam_granular_spare(loam_world* w, size_t bytes);
/* Renumber particles so bucket-mates are neighbours in memory (see reorder.c); 0 when out of
 * memory. */
int loam_granular_reorder(loam_world* w);
/* Contact storage (contacts.c): per-particle arrays for n particles and per-block reserved slot
 * regions (grown, never shrunk). All return 0 when out of memory. */
int loam_contacts_alloc(loam_world* w, int n);
/* Grow the regions of the blocks whose need (pair_need[b], body_need[b] slots) exceeds them; every
 * block's slots move with its region (its particles' start indices follow). */
int loam_contacts_reserve(loam_world* w, const int32_t* pair_need, const int32_t* body_need);
/* A detection scratch for each thread, as large as the largest region. */
int loam_contacts_scratch(loam_world* w);
void loam_contacts_free(loam_world* w);
/* contact_total: each particle's pairs (as owner or partner) and body contacts, allocated on first
 * use; 0 when out of memory. */
int loam_contacts_count(loam_world* w);

/* Offset from particle hi to particle lo (pos holds x, y, z, r per particle), always taken as
 * (lower index) - (higher index) so both ends of a pair compute bitwise the same distance; along a
 * periodic axis the minimum image. */
static inline void loam_pair_offset(const loam_world* w, const float* pos, int lo, int hi, float d[3]) {
    const float* a = &pos[4 * lo];
    const float* b = &pos[4 * hi];
    d[0] = a[0] - b[0];
    d[1] = a[1] - b[1];
    d[2] = a[2] - b[2];
    int axis = w->params.periodic_axis;
    if (axis >= 0) {
        float len = w->params.periodic_hi - w->params.periodic_lo;
        if (d[axis] > 0.5f * len) d[axis] -= len;
        else if (d[axis] < -0.5f * len) d[axis] += len;
    }
}

/* Unit normal of a pair from its offset o (loam_pair_offset) and length; coincident centres have
 * no normal, and any fixed axis keeps the pair deterministic. One division: this runs every step. */
static inline void loam_pair_normal(const float o[3], float dist, float n[3]) {
    float inv = 1.0f / dist;
    if (dist > 0.0f) {
        n[0] = o[0] * inv;
        n[1] = o[1] * inv;
        n[2] = o[2] * inv;
    } else {
        n[0] = n[1] = 0.0f;
        n[2] = 1.0f;
    }
}

/* Where a pair's impulse is (contacts.pair_ref): row q of the rows (ref q), minus row
 * q's (ref -2 - q: a renumbering made the old partner the owner, reorder.c), or nowhere (a new
 * contact, impulse 0). */
enum { LOAM_REF_NONE = -1 };
static inline int32_t loam_ref_flip(int32_t ref) { return ref == LOAM_REF_NONE ? ref : -2 - ref; }
/* The impulse that ref names in rows whose impulse fields are lx, ly, lz. */
static inline void loam_ref_impulse(const float* lx, const float* ly, const float* lz, int32_t ref, float out[3]) {
    if (ref >= 0) {
        out[0] = lx[ref];
        out[1] = ly[ref];
        out[2] = lz[ref];
    } else if (ref == LOAM_REF_NONE) {
        out[0] = out[1] = out[2] = 0.0f;
    } else {
        int32_t q = -2 - ref;
        out[0] = -lx[q];
        out[1] = -ly[q];
        out[2] = -lz[q];
    }
}

/* Contact normals in 16-bit fixed point (the rows): component * LOAM_NORMAL_ONE, rounded to
 * nearest. The AVX2 kernels convert with the same operations, so both give the same bits. */
#define LOAM_NORMAL_ONE 32767.0f
static inline int16_t loam_normal_pack(float v) { return (int16_t)lrintf(v * LOAM_NORMAL_ONE); }
static inline float loam_normal_unpack(int16_t v) { return (float)v * (1.0f / LOAM_NORMAL_ONE); }

/* How far a set of vectors u_k (velocities, displacements) spreads around a common centre c, given
 * the largest |u_k|^2 and the box [lo, hi] that holds them: the smaller of two bounds on every
 * |u_k - c|, the largest length (c = 0; tight for jitter in all directions) and the box's half-
 * diagonal (c its centre; tight for a bed that moves as a whole). Two members differ by at most twice
 * it, as |u_i - u_j| <= |u_i - c| + |u_j - c|. An empty set (lo > hi) spreads 0. */
static inline float loam_spread(float max2, const float lo[3], const float hi[3]) {
    if (!(lo[0] <= hi[0])) return 0.0f;
    float d[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    float diag = 0.5f * sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), most = sqrtf(max2);
    return most < diag ? most : diag;
}

static inline int loam_block_count(int n) { return (n + LOAM_BLOCK - 1) / LOAM_BLOCK; }
/* One past the last particle of block b. */
static inline int loam_block_end(const loam_world* w, int b) {
    return (b + 1) * LOAM_BLOCK < w->count ? (b + 1) * LOAM_BLOCK : w->count;
}

/* Sleeping (sleep.c): a sleeping particle does not move, so in the solve it weighs infinitely much
 * (inverse mass 0) and has no velocity; pairs of two sleepers and a sleeper's body contacts are not
 * contacts at all. */
enum { LOAM_ASLEEP = -1 };
static inline int loam_is_asleep(const loam_world* w, int i) { return w->calm[i] == LOAM_ASLEEP; }
/* After the step's velocities are stored: count calm steps, put calm particles to sleep, wake the
 * marked ones. */
void loam_granular_update_sleep(loam_world* w);

#endif
