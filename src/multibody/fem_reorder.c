/* Node numbering of tet meshes for FEM pieces (loam/multibody.h): the half bandwidth the numbering
 * gives a piece's system, and reverse Cuthill-McKee to narrow it. A piece's matrix is band-stored
 * (n (2 bw + 1) doubles) and factorized in O(n bw^2) every step, so a mesh read from a file in an
 * arbitrary order can cost as much as a dense one; Cuthill-McKee (1969) numbers nodes level by level
 * from a peripheral node, neighbours of lower degree first, which keeps every element's nodes close
 * in number, and reversing the order (George 1971) keeps the band and fills less. The start is a
 * pseudo-peripheral node (George and Liu 1979): from a node of least degree, breadth-first levels,
 * then again from a least-degree node of the last level while the number of levels grows. */
#include <stdlib.h>
#include <string.h>

#include "loam/core.h"
#include "loam/multibody.h"

static loam_status check_mesh(int nnode, int ntet, const int* tet, int nfixed, const int* fixed, loam_error* err) {
    if (nnode < 1 || nnode > 10000000 || ntet < 0 || (ntet > 0 && !tet) || nfixed < 0 || (nfixed > 0 && !fixed))
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM mesh: nnode = %d (1 to 1e7), ntet = %d (>= 0, with tets), nfixed = %d (>= 0, with a list)",
                              nnode, ntet, nfixed);
    for (int t = 0; t < ntet; ++t)
        for (int k = 0; k < 4; ++k)
            if (tet[4 * t + k] < 0 || tet[4 * t + k] >= nnode)
                return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM mesh: tet %d: node %d = %d, expected 0 to %d", t, k, tet[4 * t + k], nnode - 1);
    for (int i = 0; i < nfixed; ++i)
        if (fixed[i] < 0 || fixed[i] >= nnode)
            return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM mesh: fixed[%d] = %d, expected 0 to %d", i, fixed[i], nnode - 1);
    return LOAM_OK;
}

int loam_mb_fem_bandwidth(int nnode, int ntet, const int* tet) {
    if (nnode < 1 || ntet < 0 || (ntet > 0 && !tet)) return -1;
    int span = 0;
    for (int t = 0; t < ntet; ++t)
        for (int k = 0; k < 4; ++k)
            for (int j = 0; j < k; ++j) {
                int d = abs(tet[4 * t + k] - tet[4 * t + j]);
                span = d > span ? d : span;
            }
    int bw = 3 * span + 2; /* node a's rows 3a..3a+2 meet node b's columns 3b..3b+2 */
    return bw < 3 * nnode - 1 ? bw : 3 * nnode - 1;
}

/* The node graph in compressed rows: adj[start[i] .. start[i + 1]) are node i's neighbours,
 * ascending, each once. 0: out of memory. */
typedef struct graph {
    int *start, *adj;
} graph;

static int cmp_int(const void* a, const void* b) { return (*(const int*)a > *(const int*)b) - (*(const int*)a < *(const int*)b); }

static int build_graph(int nnode, int ntet, const int* tet, graph* g) {
    g->start = loam_calloc((size_t)nnode + 1, sizeof(int));
    g->adj = loam_malloc(sizeof(int) * (12 * (size_t)ntet + 1));
    int* fill = loam_malloc(sizeof(int) * ((size_t)nnode + 1));
    if (!g->start || !g->adj || !fill) return loam_free(fill), 0;
    for (int t = 0; t < ntet; ++t)
        for (int k = 0; k < 4; ++k) g->start[tet[4 * t + k] + 1] += 3;
    for (int i = 0; i < nnode; ++i) g->start[i + 1] += g->start[i];
    memcpy(fill, g->start, sizeof(int) * (size_t)nnode);
    for (int t = 0; t < ntet; ++t)
        for (int k = 0; k < 4; ++k)
            for (int j = 0; j < 4; ++j)
                if (j != k) g->adj[fill[tet[4 * t + k]]++] = tet[4 * t + j];
    int out = 0; /* sort each list and drop repeats, compacting in place */
    for (int i = 0; i < nnode; ++i) {
        int a = g->start[i], b = g->start[i + 1];
        qsort(g->adj + a, (size_t)(b - a), sizeof(int), cmp_int);
        g->start[i] = out;
        for (int e = a; e < b; ++e)
            if (e == a || g->adj[e] != g->adj[e - 1]) g->adj[out++] = g->adj[e];
    }
    g->start[nnode] = out;
    loam_free(fill);
    return 1;
}

static int degree(const graph* g, int i) { return g->start[i + 1] - g->start[i]; }

/* Breadth-first levels from `root` (marking each node reached with seen[] = tag): returns the number
 * of levels and, in *last, the least-degree node of the last level. queue: nnode ints. */
static int bfs(const graph* g, int root, int* seen, int tag, int* queue, int* last) {
    int head = 0, tail = 0, level_start = 0, nlev = 0;
    queue[tail++] = root, seen[root] = tag;
    while (head < tail) {
        int level_end = tail;
        ++nlev, level_start = head;
        for (; head < level_end; ++head)
            for (int e = g->start[queue[head]]; e < g->start[queue[head] + 1]; ++e)
                if (seen[g->adj[e]] != tag) seen[g->adj[e]] = tag, queue[tail++] = g->adj[e];
    }
    *last = queue[level_start];
    for (int q = level_start; q < tail; ++q)
        if (degree(g, queue[q]) < degree(g, *last)) *last = queue[q];
    return nlev;
}

static int cmp_key(const void* a, const void* b) {
    long long x = *(const long long*)a, y = *(const long long*)b;
    return (x > y) - (x < y);
}

loam_status loam_mb_fem_reorder(int nnode, int ntet, double* node, int* tet, int nfixed, int* fixed, int* new_of_old, loam_error* err) {
    if (!node) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM mesh: null node array");
    loam_status st = check_mesh(nnode, ntet, tet, nfixed, fixed, err);
    if (st != LOAM_OK) return st;
    size_t n = (size_t)nnode;
    graph g = {NULL, NULL};
    int *order = loam_malloc(sizeof(int) * n), *seen = loam_calloc(n, sizeof(int)), *rank = loam_malloc(sizeof(int) * n), *queue = loam_malloc(sizeof(int) * n);
    char* placed = loam_calloc(n, 1);
    long long* keys = loam_malloc(sizeof(long long) * n);
    double* moved = loam_malloc(sizeof(double) * 3 * n);
    int ok = order && seen && rank && queue && placed && keys && moved && build_graph(nnode, ntet, tet, &g);
    for (int done = 0, tag = 0; ok && done < nnode;) {
        int root = -1;
        for (int i = 0; i < nnode; ++i) /* the next component: its node of least degree */
            if (!placed[i] && (root < 0 || degree(&g, i) < degree(&g, root))) root = i;
        int far, levels = bfs(&g, root, seen, ++tag, queue, &far);
        for (int round = 0; round < 8; ++round) { /* a pseudo-peripheral start: go on while the levels grow */
            int next, nlev = bfs(&g, far, seen, ++tag, queue, &next);
            if (nlev <= levels) break;
            root = far, levels = nlev, far = next;
        }
        /* Cuthill-McKee from root: each node's unplaced neighbours, least degree first (ties by number) */
        int head = done;
        order[done++] = root, placed[root] = 1;
        while (head < done) {
            int v = order[head++], first = done;
            for (int e = g.start[v]; e < g.start[v + 1]; ++e)
                if (!placed[g.adj[e]]) placed[g.adj[e]] = 1, keys[done++ - first] = (long long)degree(&g, g.adj[e]) << 32 | g.adj[e];
            qsort(keys, (size_t)(done - first), sizeof(long long), cmp_key);
            for (int q = first; q < done; ++q) order[q] = (int)(keys[q - first] & 0xffffffff);
        }
    }
    if (ok) {
        for (int k = 0; k < nnode; ++k) rank[order[nnode - 1 - k]] = k; /* reversed */
        for (int i = 0; i < nnode; ++i) memcpy(moved + 3 * (size_t)rank[i], node + 3 * (size_t)i, sizeof(double) * 3);
        memcpy(node, moved, sizeof(double) * 3 * n);
        for (int t = 0; t < 4 * ntet; ++t) tet[t] = rank[tet[t]];
        for (int i = 0; i < nfixed; ++i) fixed[i] = rank[fixed[i]];
        if (new_of_old) memcpy(new_of_old, rank, sizeof(int) * n);
    }
    loam_free(order), loam_free(seen), loam_free(rank), loam_free(queue), loam_free(placed), loam_free(keys), loam_free(moved);
    loam_free(g.start), loam_free(g.adj);
    return ok ? LOAM_OK : loam_error_set(err, LOAM_ERR_NOMEM, "multibody: FEM mesh: out of memory to reorder %d nodes", nnode);
}
