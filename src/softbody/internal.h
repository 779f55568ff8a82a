/* Population slots: one robot's model and state in one contiguous block, sized to fit a core's L2
 * while the robot is stepped (paper 002 II-C, with the CPU's cache in place of shared memory). */
#ifndef LOAM_SOFTBODY_INTERNAL_H
#define LOAM_SOFTBODY_INTERNAL_H

#include "collide/spatial_hash.h"
#include "contact/endpoint.h"
#include "loam/softbody.h"

enum { SB_MAX_COLORS = 256, SB_MAX_CONTACTS = 64, SB_MAX_OFFSET_ROWS = 32 };

typedef struct sb_slot {
    int nm, ns, nf, ncolor, nused;
    void* block;                      /* everything below points into it, except land's contacts */
    size_t bytes;                     /* of block */
    float *x, *y, *z, *vx, *vy, *vz;  /* state */
    float *fx, *fy, *fz;              /* force (force solver), position correction sums (XPBD Jacobi) */
    float *px, *py, *pz;              /* positions at the start of the step */
    float *w, *cnt;                   /* inverse mass; w x springs at the mass (XPBD Jacobi split) */
    uint16_t *s0, *s1;                /* springs, in colour order for XPBD Gauss-Seidel */
    float *rest, *lambda;             /* L0, m; XPBD multiplier */
    uint8_t* mat;
    int32_t *fa, *fb, *fc;            /* face corners, counter-clockwise from outside */
    int32_t* color_start;             /* ncolor + 1 */
    uint8_t* used;                    /* material ids the robot uses */
    float *act, *stiff, *alpha;       /* per material id: 1 + dL0 sin(.), k, 1/(k dt^2) */
    /* Per-mass tables for the force solver (kernels.c): slot j of mass i at [j * nm + i]. */
    int deg;                          /* most springs at one mass */
    int active;                       /* some spring's material has dL0 != 0 */
    /* Offset rows: when the springs join masses at few distinct index differences (a voxel box
     * numbered on its lattice has 26), row j holds the spring from i to i + off[j] at [j * nm + i]
     * (k 0 where there is none), and the other mass is read with contiguous loads, not gathers. */
    int offset_rows;                  /* 0 = gather table (nbr), else the number of rows */
    int32_t off[SB_MAX_OFFSET_ROWS];
    int32_t *nbr, *mslot;             /* the other mass and the material; padding: the mass itself */
    float *kslot, *lslot;             /* k (0 = padding) and rest length L0 per slot */
    float *aslot, *lamslot;           /* XPBD Jacobi: alpha~ = 1/(k dt^2) (0 = padding) and lambda per
                                         slot; both ends of a spring keep the same lambda */
    /* Faces per surface mass: fof[j * nsurf + q] (padding: nf, a zero entry). */
    int nsurf, fdeg;
    int32_t *surf, *fof;
    float *gx, *gy, *gz;              /* nf + 1 face shares */
    float *sx, *sy, *sz;              /* per surface mass sums */
    float contact_r;                  /* mass radius for mass-mass contact, m */
    loam_spatial_hash hash;
    int has_hash;
    /* Verlet pair list for mass-mass contact: pairs i < j within 2 contact_r + skin at the last
     * build, rebuilt when a mass has moved skin / 2 since; npairs < 0: rebuild (or overflowed). */
    float skin;
    float *bx, *by, *bz;              /* positions at the last build */
    int32_t* pairs;                   /* 2 per pair, sorted by (i, j) */
    int npairs, pair_cap;
} sb_slot;

struct loam_softbody_pop {
    loam_softbody_def def;              /* def.ground points at ground below */
    loam_shape ground[LOAM_SB_MAX_GROUND];
    loam_softbody_materials mats;
    int count;
    sb_slot* slots;
    double time;
    int64_t steps_done;
    int64_t springs;
    loam_context* ctx;                  /* every block of the population is in it */
};

/* Soft-body masses as contact endpoints (endpoint.c; contact/endpoint.h): owner = the population. */
extern const loam_endpoint_ops loam_soft_mass_endpoint_ops;

/* slot.c: copy robot b into slot s (errors name the robot); free a slot (safe on a zeroed one). */
loam_status sb_build_slot(const loam_softbody_pop* p, const loam_softbody_robot* r, int b, sb_slot* s, loam_error* err);
void sb_free_slot(sb_slot* s);

/* One step of one robot at time t (start of the step). Returns -1, or the first mass index found
 * non-finite or out of bounds. */
int sb_step_slot(const loam_softbody_pop* p, sb_slot* s, double t);

/* kernels.c */
/* act NULL: every material passive (L = L0, no gather) */
void sb_gather_springs(int n, int deg, const int32_t* nbr, const float* kslot, const float* lslot, const int32_t* mslot,
                       const float* act, const float* x, const float* y, const float* z, float* fx, float* fy,
                       float* fz);
void sb_offset_springs(int n, int rows, const int32_t* off, const float* kslot, const float* lslot, const int32_t* mslot,
                       const float* act, const float* x, const float* y, const float* z, float* fx, float* fy,
                       float* fz);
/* XPBD Jacobi sweep on the per-mass tables (off != NULL: offset rows, else nbr); corrections
 * summed into c*, split inverse masses in wsplit. */
void sb_xpbd_rows(int n, int rows, const int32_t* off, const int32_t* nbr, const float* kslot, const float* aslot,
                  const float* lslot, const int32_t* mslot, const float* act, const float* wsplit, const float* w,
                  float* lam, const float* x, const float* y, const float* z, float* cx, float* cy, float* cz);
void sb_xpbd_color(int k0, int k1, const uint16_t* s0, const uint16_t* s1, const float* rest, const uint8_t* mat,
                   const float* act, const float* alpha, const float* w, float* lambda, float* x, float* y, float* z);
void sb_face_forces(int nf, const int32_t* fa, const int32_t* fb, const int32_t* fc, const float* x, const float* y, const float* z, const float* vx,
                    const float* vy, const float* vz, float h, float cdl, float cl, float* gx, float* gy, float* gz);
void sb_gather_faces(int nsurf, int deg, const int32_t* fof, const float* gx, const float* gy, const float* gz,
                     float* sx, float* sy, float* sz);

void sb_predict(int n, float dt, float gx, float gy, float gz, const float* w, float* x, float* y, float* z, float* vx,
                float* vy, float* vz, const float* fx, const float* fy, const float* fz, float* px, float* py, float* pz);
int sb_finish_force(int n, float dt, float zeta, float bound, const float* x, const float* y, const float* z,
                    const float* px, const float* py, const float* pz, float* vx, float* vy, float* vz);

/* Environment stages (env.c). */
void sb_env_forces(const loam_softbody_def* d, sb_slot* s);
void sb_land_constraints(const loam_softbody_def* d, sb_slot* s);

#endif
