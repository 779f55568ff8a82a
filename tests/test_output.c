/* Output files: .vtp frames parsed back byte for byte, .pvd series complete after every append, JSON
 * round trips, and failures that leave no file behind. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loam/io.h"
#include "loam/output.h"
#include "test_util.h"

static char g_dir[256];

static void path_in(char* out, size_t size, const char* name) {
    snprintf(out, size, "%s/%s", g_dir, name);
}

static int exists(const char* path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Whole file as a NUL-terminated buffer (binary safe through *size). */
static char* slurp(const char* path, size_t* size) {
    FILE* fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char* buf = malloc((size_t)len + 1);
    size_t got = fread(buf, 1, (size_t)len, fp);
    fclose(fp);
    buf[got] = '\0';
    if (size) *size = got;
    return buf;
}

/* Temporary files are "<name>.tmp.<pid>": none may survive any call. */
static int leftover_tmp_files(void) {
    DIR* d = opendir(g_dir);
    int found = 0;
    for (struct dirent* e; d && (e = readdir(d));)
        if (strstr(e->d_name, ".tmp.")) ++found;
    if (d) closedir(d);
    return found;
}

static size_t count_of(const char* text, const char* needle) {
    size_t n = 0;
    for (const char* p = text; (p = strstr(p, needle)); p += strlen(needle)) ++n;
    return n;
}

static int starts_with(const char* text, const char* head) {
    return strncmp(text, head, strlen(head)) == 0;
}

static int ends_with(const char* text, const char* tail) {
    size_t a = strlen(text), b = strlen(tail);
    return a >= b && strcmp(text + a - b, tail) == 0;
}

/* ---- .vtp parsing: the XML header gives each array's offset into the appended block ---------- */

typedef struct vtp_file {
    char* buf;
    size_t size;
    size_t header_end; /* where <AppendedData starts */
    size_t base;       /* first byte after the '_' */
    size_t data_end;   /* one past the last byte of the last block */
} vtp_file;

static int vtp_open(vtp_file* v, const char* path) {
    memset(v, 0, sizeof *v);
    v->buf = slurp(path, &v->size);
    if (!v->buf) return 0;
    char* app = strstr(v->buf, "<AppendedData encoding=\"raw\">");
    if (!app) return 0;
    char* underscore = strchr(app, '_');
    if (!underscore) return 0;
    v->header_end = (size_t)(app - v->buf);
    v->base = (size_t)(underscore - v->buf) + 1;
    return 1;
}

/* The attribute attr of the DataArray named name, copied into out; 0 when absent. */
static int vtp_attr(const vtp_file* v, const char* name, const char* attr, char* out, size_t size) {
    char key[128];
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    char saved = v->buf[v->header_end];
    v->buf[v->header_end] = '\0'; /* search the XML header only */
    char* at = strstr(v->buf, key);
    int ok = 0;
    if (at) {
        char* tag = at;
        while (tag > v->buf && *tag != '<') --tag;
        char* close = strstr(at, "/>");
        char want[64];
        snprintf(want, sizeof want, " %s=\"", attr);
        char* a = strstr(tag, want);
        if (a && close && a < close) {
            a += strlen(want);
            size_t len = (size_t)(strchr(a, '"') - a);
            if (len < size) {
                memcpy(out, a, len);
                out[len] = '\0';
                ok = 1;
            }
        }
    }
    v->buf[v->header_end] = saved;
    return ok;
}

/* Compare array name's block with expected bytes, checking its type and component count. */
static void check_array(vtp_file* v, const char* name, const char* type, int comps,
                        const void* expected, size_t bytes) {
    char text[64];
    CHECK(vtp_attr(v, name, "type", text, sizeof text) && strcmp(text, type) == 0,
          "%s: type %s, want %s", name, text, type);
    int got_comps = vtp_attr(v, name, "NumberOfComponents", text, sizeof text) ? atoi(text) : 1;
    CHECK(got_comps == comps, "%s: %d components, want %d", name, got_comps, comps);
    CHECK(vtp_attr(v, name, "format", text, sizeof text) && strcmp(text, "appended") == 0,
          "%s: format is not appended", name);
    if (!vtp_attr(v, name, "offset", text, sizeof text)) {
        CHECK(0, "%s: no offset attribute", name);
        return;
    }
    size_t at = v->base + (size_t)strtoull(text, NULL, 10);
    uint64_t count = 0;
    if (at + 8 > v->size) {
        CHECK(0, "%s: offset %s beyond the file", name, text);
        return;
    }
    memcpy(&count, v->buf + at, 8);
    CHECK(count == bytes, "%s: block holds %llu bytes, want %zu", name, (unsigned long long)count,
          bytes);
    if (count != bytes || at + 8 + bytes > v->size) return;
    CHECK(memcmp(v->buf + at + 8, expected, bytes) == 0, "%s: values differ", name);
    if (at + 8 + bytes > v->data_end) v->data_end = at + 8 + bytes;
}

static void interleave(const float* a, const float* b, const float* c, int n, float* out) {
    for (int i = 0; i < n; ++i) out[3 * i] = a[i], out[3 * i + 1] = b[i], out[3 * i + 2] = c[i];
}

/* Write p, parse it back and compare every array. */
static void roundtrip_vtp(const loam_vtp_particles* p, const char* file) {
    char path[512];
    path_in(path, sizeof path, file);
    loam_error err = {0};
    loam_status s = loam_vtp_write(path, p, &err);
    CHECK(s == LOAM_OK, "vtp write: %d %s", s, err.message);
    vtp_file v;
    if (!vtp_open(&v, path)) {
        CHECK(0, "%s: missing or without an appended block", path);
        free(v.buf);
        return;
    }
    int n = p->count;
    size_t nn = (size_t)(n > 0 ? n : 1);
    uint16_t probe = 1;
    const char* order = *(const unsigned char*)&probe ? "byte_order=\"LittleEndian\""
                                                       : "byte_order=\"BigEndian\"";
    CHECK(starts_with(v.buf, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\""), "bad prolog");
    CHECK(strstr(v.buf, order) != NULL, "byte order is not the host's");
    CHECK(strstr(v.buf, "header_type=\"UInt64\"") != NULL, "header_type is not UInt64");
    char piece[128];
    snprintf(piece, sizeof piece, "NumberOfPoints=\"%d\" NumberOfVerts=\"%d\"", n, n);
    CHECK(strstr(v.buf, piece) != NULL, "piece sizes: want %s", piece);

    float* f3 = calloc(3 * nn, sizeof(float));
    float* f1 = calloc(nn, sizeof(float)); /* calloc: gcc cannot see that n == 0 skips the reads */
    int32_t* i1 = calloc(nn, sizeof(int32_t));
    check_array(&v, "TimeValue", "Float64", 1, &p->time, 8);
    interleave(p->x, p->y, p->z, n, f3);
    check_array(&v, "Points", "Float32", 3, f3, 12 * (size_t)n);
    interleave(p->vx, p->vy, p->vz, n, f3);
    check_array(&v, "velocity", "Float32", 3, f3, 12 * (size_t)n);
    for (int i = 0; i < n; ++i) {
        double a = p->vx[i], b = p->vy[i], c = p->vz[i];
        f1[i] = (float)sqrt(a * a + b * b + c * c);
    }
    check_array(&v, "speed", "Float32", 1, f1, 4 * (size_t)n);
    check_array(&v, "radius", "Float32", 1, p->radius, 4 * (size_t)n);
    for (int i = 0; i < n; ++i) i1[i] = p->id ? p->id[i] : i;
    check_array(&v, "id", "Int32", 1, i1, 4 * (size_t)n);
    for (int i = 0; i < n; ++i) i1[i] = p->contacts ? p->contacts[i] : 0;
    check_array(&v, "contacts", "Int32", 1, i1, 4 * (size_t)n);
    for (int i = 0; i < n; ++i) i1[i] = i;
    check_array(&v, "connectivity", "Int32", 1, i1, 4 * (size_t)n);
    for (int i = 0; i < n; ++i) i1[i] = i + 1;
    check_array(&v, "offsets", "Int32", 1, i1, 4 * (size_t)n);
    for (int k = 0; k < p->extra_count; ++k)
        check_array(&v, p->extra[k].name, "Float32", 1, p->extra[k].values, 4 * (size_t)n);

    /* Blocks are back to back: all arrays' bytes account for the block, then the closing tags. */
    size_t per_particle = 12 + 12 + 4 * (6 + (size_t)p->extra_count); /* 2 vectors, 6 scalars */
    size_t blocks = 8 * (size_t)(9 + p->extra_count) + 8 + (size_t)n * per_particle;
    CHECK(v.data_end == v.base + blocks, "appended block is %zu bytes, arrays need %zu",
          v.data_end - v.base, blocks);
    const char* tail = "\n  </AppendedData>\n</VTKFile>\n";
    CHECK(v.size == v.data_end + strlen(tail) && memcmp(v.buf + v.data_end, tail, strlen(tail)) == 0,
          "file does not end with the closing tags right after the data");
    CHECK(count_of(v.buf, "<DataArray") == (size_t)(9 + p->extra_count), "array count");
    free(f3);
    free(f1);
    free(i1);
    free(v.buf);
}

static void test_vtp_small(void) {
    float x[] = {0.f, 1.5f, -2.25f, 1e-7f, 3e4f}, y[] = {1.f, -1.f, 0.125f, 7.f, -0.f};
    float z[] = {0.5f, 0.25f, 1e-30f, -3.f, 2.f};
    float vx[] = {1.f, 0.f, -3.f, 0.1f, 2.f}, vy[] = {2.f, 0.f, 4.f, 0.2f, 2.f};
    float vz[] = {2.f, 0.f, 0.f, 0.3f, 1.f};
    float r[] = {0.01f, 0.02f, 0.015f, 0.01f, 0.03f};
    int32_t id[] = {40, 41, 7, -1, 2147483647}, contacts[] = {0, 3, 12, 1, 6};
    float pressure[] = {1.f, 2.f, 3.f, 4.f, 5.f}, temp[] = {-1.f, 1e10f, 0.f, 2.5f, 3.f};
    loam_vtp_field extra[] = {{"pressure", pressure}, {"T_surface.2-b", temp}};
    loam_vtp_particles p = {5, x, y, z, vx, vy, vz, r, contacts, id, extra, 2, 1.25};
    roundtrip_vtp(&p, "small.vtp");
    p.id = NULL, p.contacts = NULL, p.extra = NULL, p.extra_count = 0, p.time = 0.0;
    roundtrip_vtp(&p, "implicit.vtp");
    p.count = 0;
    roundtrip_vtp(&p, "empty.vtp");
}

/* More particles than the writer's chunk, so interleaving across chunk borders is covered. */
static void test_vtp_large(void) {
    enum { N = 5000 };
    float* a = malloc(7 * N * sizeof(float));
    for (int i = 0; i < 7 * N; ++i) a[i] = (float)(i % 97) * 0.37f - (float)(i % 13);
    float pad[N];
    for (int i = 0; i < N; ++i) pad[i] = (float)i;
    loam_vtp_field extra = {"index", pad};
    loam_vtp_particles p = {N, a, a + N, a + 2 * N, a + 3 * N, a + 4 * N, a + 5 * N, a + 6 * N,
                            NULL, NULL, &extra, 1, 3.5};
    roundtrip_vtp(&p, "large.vtp");
    free(a);
}

static void expect_input_error(const loam_vtp_particles* p, const char* want1, const char* want2) {
    char path[512];
    path_in(path, sizeof path, "bad.vtp");
    loam_error err = {0};
    loam_status s = loam_vtp_write(path, p, &err);
    CHECK(s == LOAM_ERR_INPUT && err.status == LOAM_ERR_INPUT, "status %d, want input error", s);
    CHECK(strstr(err.message, want1) && strstr(err.message, want2), "message \"%s\" lacks %s / %s",
          err.message, want1, want2);
    CHECK(!exists(path), "a rejected frame left %s", path);
}

static void test_vtp_invalid(void) {
    float x[] = {0.f, 1.f, 2.f, 3.f}, r[] = {1.f, 1.f, 1.f, 1.f}, bad[] = {0.f, 1.f, 2.f, 3.f};
    loam_vtp_field extra = {"good", x};
    loam_vtp_particles ok = {4, x, x, x, x, x, x, r, NULL, NULL, NULL, 0, 0.0};
    loam_vtp_particles p = ok;
    bad[3] = NAN;
    p.y = bad;
    expect_input_error(&p, "particle 3", "y");
    p = ok, bad[3] = 1.f, bad[2] = -INFINITY, p.vz = bad;
    expect_input_error(&p, "particle 2", "vz");
    p = ok, p.radius = bad;
    expect_input_error(&p, "particle 2", "radius");
    p = ok, extra.values = bad, p.extra = &extra, p.extra_count = 1;
    expect_input_error(&p, "particle 2", "good");
    p = ok, p.count = -1;
    expect_input_error(&p, "count", "-1");
    p = ok, p.vx = NULL;
    expect_input_error(&p, "vx", "NULL");
    p = ok, p.extra_count = 1;
    expect_input_error(&p, "extra", "NULL");
    p = ok, p.time = NAN;
    expect_input_error(&p, "time", "finite");
    loam_vtp_field names[][2] = {{{"a b", x}, {"c", x}}, {{"radius", x}, {"c", x}},
                                 {{"dup", x}, {"dup", x}}, {{"", x}, {"c", x}},
                                 {{"e<", x}, {"c", x}}, {{NULL, x}, {"c", x}}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
        p = ok, p.extra = names[k], p.extra_count = 2;
        expect_input_error(&p, "extra field", "");
    }
    char path[512];
    path_in(path, sizeof path, "bad.vtp");
    loam_error err = {0};
    CHECK(loam_vtp_write(path, NULL, &err) == LOAM_ERR_INPUT, "NULL particles accepted");
    CHECK(loam_vtp_write(NULL, &ok, &err) == LOAM_ERR_INPUT, "NULL path accepted");
    CHECK(loam_vtp_write(path, NULL, NULL) == LOAM_ERR_INPUT, "NULL err must still report");

    /* A rejected frame leaves an earlier file of the same name as it was. */
    CHECK(loam_vtp_write(path, &ok, &err) == LOAM_OK, "write: %s", err.message);
    size_t before_size, after_size;
    char* before = slurp(path, &before_size);
    p = ok, p.x = bad;
    CHECK(loam_vtp_write(path, &p, &err) == LOAM_ERR_INPUT, "non-finite x accepted");
    char* after = slurp(path, &after_size);
    CHECK(before && after && before_size == after_size && memcmp(before, after, before_size) == 0,
          "a rejected frame changed the existing file");
    free(before);
    free(after);
    remove(path);
}

/* ---- .pvd ------------------------------------------------------------------------------------ */

static void check_pvd(const char* path, int frames, const char* context) {
    char* text = slurp(path, NULL);
    CHECK(text != NULL, "%s: %s missing", context, path);
    if (!text) return;
    CHECK(starts_with(text, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\""),
          "%s: bad prolog", context);
    CHECK(ends_with(text, "  </Collection>\n</VTKFile>\n"), "%s: not closed: %s", context, text);
    CHECK(count_of(text, "<DataSet ") == (size_t)frames, "%s: %zu frames listed, want %d", context,
          count_of(text, "<DataSet "), frames);
    for (int k = 0; k < frames; ++k) {
        char entry[160];
        snprintf(entry, sizeof entry,
                 "<DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"frames/f_%04d.vtp\"/>",
                 0.5 * k + 0.1, k);
        CHECK(strstr(text, entry) != NULL, "%s: lacks %s", context, entry);
    }
    free(text);
}

static void test_pvd(void) {
    char path[512], sub[512];
    path_in(path, sizeof path, "series.pvd");
    path_in(sub, sizeof sub, "sub");
    loam_error err = {0};
    CHECK(loam_make_dirs(sub, &err) == LOAM_OK, "mkdir: %s", err.message);
    char sub_pvd[600];
    snprintf(sub_pvd, sizeof sub_pvd, "%s/series.pvd", sub);

    loam_pvd_series* s = loam_pvd_create(path, &err);
    CHECK(s != NULL, "create: %s", err.message);
    if (!s) return;
    check_pvd(path, 0, "after create");
    for (int k = 0; k < 4; ++k) {
        char file[64];
        snprintf(file, sizeof file, "frames/f_%04d.vtp", k);
        loam_status st = loam_pvd_append(s, 0.5 * k + 0.1, file, &err);
        CHECK(st == LOAM_OK, "append %d: %s", k, err.message);
        CHECK(loam_pvd_count(s) == k + 1, "count %d after %d appends", loam_pvd_count(s), k + 1);
        check_pvd(path, k + 1, "after append");
    }
    CHECK(loam_pvd_append(s, 0.5 * 3 + 0.1, "frames/late.vtp", &err) == LOAM_ERR_INPUT,
          "repeated time accepted");
    CHECK(loam_pvd_append(s, 0.0, "frames/late.vtp", &err) == LOAM_ERR_INPUT,
          "earlier time accepted");
    CHECK(loam_pvd_append(s, NAN, "frames/late.vtp", &err) == LOAM_ERR_INPUT, "NaN time accepted");
    CHECK(loam_pvd_append(s, 9.0, NULL, &err) == LOAM_ERR_INPUT, "NULL file accepted");
    CHECK(loam_pvd_append(NULL, 9.0, "x.vtp", &err) == LOAM_ERR_INPUT, "NULL series accepted");
    CHECK(loam_pvd_count(s) == 4, "rejected appends changed the count to %d", loam_pvd_count(s));
    check_pvd(path, 4, "after rejected appends");
    CHECK(loam_pvd_append(s, 10.0, "a&b<\"c\">.vtp", &err) == LOAM_OK, "append: %s", err.message);
    char* text = slurp(path, NULL);
    CHECK(text && strstr(text, "file=\"a&amp;b&lt;&quot;c&quot;&gt;.vtp\""), "name not escaped: %s",
          text ? text : "");
    free(text);
    loam_pvd_destroy(s);
    remove(path);

    /* A frame whose rewrite fails is not kept: the next successful rewrite must not list it. */
    s = loam_pvd_create(sub_pvd, &err);
    CHECK(s != NULL, "create: %s", err.message);
    if (!s) return;
    CHECK(loam_pvd_append(s, 0.1, "frames/f_0000.vtp", &err) == LOAM_OK, "append: %s", err.message);
    remove(sub_pvd);
    rmdir(sub);
    CHECK(loam_pvd_append(s, 0.6, "frames/lost.vtp", &err) == LOAM_ERR_IO,
          "append into a removed directory");
    CHECK(loam_pvd_count(s) == 1, "failed append counted");
    CHECK(loam_make_dirs(sub, &err) == LOAM_OK, "mkdir: %s", err.message);
    CHECK(loam_pvd_append(s, 0.6, "frames/f_0001.vtp", &err) == LOAM_OK, "append: %s", err.message);
    check_pvd(sub_pvd, 2, "after a failed append");
    text = slurp(sub_pvd, NULL);
    CHECK(text && !strstr(text, "lost"), "failed frame listed");
    free(text);
    loam_pvd_destroy(s);
    loam_pvd_destroy(NULL);
    remove(sub_pvd);
    rmdir(sub);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void test_json(void) {
    char path[512];
    path_in(path, sizeof path, "summary.json");
    volatile double tenth = 0.1, fifth = 0.2;
    double values[] = {tenth + fifth, 1e300, -2.5e-310, 3.0, -0.0, 123456789012345678.0, 1.0 / 3.0,
                       0.1f, 4294967296.0};
    size_t nv = sizeof values / sizeof values[0];
    cJSON* root = cJSON_CreateObject();
    cJSON* nums = cJSON_AddArrayToObject(root, "numbers");
    for (size_t i = 0; i < nv; ++i) cJSON_AddItemToArray(nums, cJSON_CreateNumber(values[i]));
    cJSON_AddNumberToObject(root, "nan", NAN);
    cJSON_AddNumberToObject(root, "inf", -INFINITY);
    cJSON_AddStringToObject(root, "text",
                            "quote \" backslash \\ newline \n tab \t bell \a utf8 \xc3\xa9");
    cJSON_AddTrueToObject(root, "yes");
    cJSON_AddNullToObject(root, "nothing");
    cJSON_AddObjectToObject(root, "empty object");
    cJSON_AddArrayToObject(root, "empty array");
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(root, "nested"), "dt", 1e-3);

    loam_error err = {0};
    CHECK(loam_json_write_file(root, path, &err) == LOAM_OK, "json write: %s", err.message);
    char* text = slurp(path, NULL);
    cJSON* back = text ? cJSON_Parse(text) : NULL;
    CHECK(back != NULL, "output is not JSON: %s", text ? text : "(missing)");
    CHECK(text && strstr(text, "0.30000000000000004") && strstr(text, "\n  \"numbers\": [\n"),
          "not full precision or not pretty: %s", text ? text : "");
    CHECK(text && ends_with(text, "}\n"), "no final newline");
    if (back) {
        const cJSON* bn = cJSON_GetObjectItemCaseSensitive(back, "numbers");
        CHECK(cJSON_GetArraySize(bn) == (int)nv, "numbers: %d", cJSON_GetArraySize(bn));
        for (size_t i = 0; i < nv && i < (size_t)cJSON_GetArraySize(bn); ++i) {
            double got = cJSON_GetArrayItem(bn, (int)i)->valuedouble;
            CHECK(same_double(got, values[i]), "number %zu: %.17g read back as %.17g", i,
                  values[i], got);
        }
        CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(back, "nan")), "NaN is not null");
        CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(back, "inf")), "-inf is not null");
        const cJSON* t = cJSON_GetObjectItemCaseSensitive(back, "text");
        const char* sent = cJSON_GetObjectItem(root, "text")->valuestring;
        CHECK(cJSON_IsString(t) && strcmp(t->valuestring, sent) == 0, "string changed");
        CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(back, "yes")), "true");
        CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(back, "nothing")), "null");
        CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(back, "empty object")), "empty object");
        const cJSON* empty = cJSON_GetObjectItemCaseSensitive(back, "empty array");
        CHECK(cJSON_IsArray(empty) && cJSON_GetArraySize(empty) == 0, "empty array");
        const cJSON* nested = cJSON_GetObjectItemCaseSensitive(back, "nested");
        const cJSON* dt = cJSON_GetObjectItemCaseSensitive(nested, "dt");
        CHECK(dt && same_double(dt->valuedouble, 1e-3), "nested dt");
    }
    cJSON_Delete(back);
    free(text);

    /* The stream variant writes the same bytes. */
    FILE* fp = tmpfile();
    CHECK(fp && loam_json_write(root, fp, &err) == LOAM_OK, "stream write: %s", err.message);
    if (fp) {
        size_t size;
        char* file_text = slurp(path, &size);
        char* stream_text = calloc(size + 2, 1);
        rewind(fp);
        size_t got = fread(stream_text, 1, size + 1, fp);
        CHECK(file_text && got == size && memcmp(file_text, stream_text, size) == 0,
              "stream output differs from the file");
        free(file_text);
        free(stream_text);
        fclose(fp);
    }
    remove(path);

    /* Invalid documents: nothing is written. */
    cJSON* nameless = cJSON_CreateObject();
    cJSON_AddItemToArray(nameless, cJSON_CreateNumber(1)); /* an object member without a key */
    CHECK(loam_json_write_file(nameless, path, &err) == LOAM_ERR_INPUT, "nameless member accepted");
    CHECK(!exists(path), "rejected JSON left a file");
    cJSON_Delete(nameless);
    cJSON* deep = cJSON_CreateArray();
    cJSON* cur = deep;
    for (int i = 0; i < 1100; ++i) {
        cJSON* next = cJSON_CreateArray();
        cJSON_AddItemToArray(cur, next);
        cur = next;
    }
    CHECK(loam_json_write_file(deep, path, &err) == LOAM_ERR_INPUT, "deep nesting accepted");
    CHECK(!exists(path), "rejected JSON left a file");
    cJSON_Delete(deep);
    CHECK(loam_json_write_file(NULL, path, &err) == LOAM_ERR_INPUT, "NULL root accepted");
    CHECK(loam_json_write(root, NULL, &err) == LOAM_ERR_INPUT, "NULL stream accepted");
    cJSON_Delete(root);
}

/* ---- unwritable locations -------------------------------------------------------------------- */

static void test_missing_directory(void) {
    char dir[512], path[600];
    path_in(dir, sizeof dir, "no/such/dir");
    float v[] = {1.f};
    loam_vtp_particles p = {1, v, v, v, v, v, v, v, NULL, NULL, NULL, 0, 0.0};
    loam_error err = {0};

    snprintf(path, sizeof path, "%s/f.vtp", dir);
    CHECK(loam_vtp_write(path, &p, &err) == LOAM_ERR_IO, "vtp: status %d", err.status);
    CHECK(strstr(err.message, "f.vtp") != NULL, "vtp: message does not name the file: %s",
          err.message);
    CHECK(!exists(path), "vtp file left");

    snprintf(path, sizeof path, "%s/s.pvd", dir);
    err.status = LOAM_OK;
    CHECK(loam_pvd_create(path, &err) == NULL && err.status == LOAM_ERR_IO, "pvd: status %d",
          err.status);
    CHECK(!exists(path), "pvd file left");

    snprintf(path, sizeof path, "%s/s.json", dir);
    cJSON* root = cJSON_CreateObject();
    CHECK(loam_json_write_file(root, path, &err) == LOAM_ERR_IO, "json: status %d", err.status);
    CHECK(!exists(path), "json file left");
    cJSON_Delete(root);
    CHECK(!exists(dir), "a directory was created");
}

/* When python3 has VTK, let VTK's own reader open a frame; the C checks above stand without it. */
static void test_with_vtk_if_available(void) {
    if (system("python3 -c 'import vtk' >/dev/null 2>&1") != 0) {
        fprintf(stderr, "python3 vtk module not available: VTK reader check skipped\n");
        return;
    }
    float x[] = {0.f, 1.f, 2.f}, y[] = {3.f, 4.f, 5.f}, z[] = {6.f, 7.f, 8.f}, r[] = {.1f, .2f, .3f};
    float v[] = {3.f, 0.f, 1.f}, w[] = {4.f, 0.f, 1.f}, zero[] = {0.f, 0.f, 0.f};
    int32_t c[] = {1, 2, 3};
    loam_vtp_field extra = {"extra", r};
    loam_vtp_particles p = {3, x, y, z, v, w, zero, r, c, NULL, &extra, 1, 2.5};
    char path[512], cmd[2048];
    path_in(path, sizeof path, "vtk.vtp");
    loam_error err = {0};
    CHECK(loam_vtp_write(path, &p, &err) == LOAM_OK, "%s", err.message);
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import vtk,sys\n"
             "r=vtk.vtkXMLPolyDataReader(); r.SetFileName(sys.argv[1]); r.Update(); d=r.GetOutput()\n"
             "pd=d.GetPointData()\n"
             "ok=(d.GetNumberOfPoints()==3 and d.GetNumberOfVerts()==3 and d.GetPoint(2)==(2,5,8)\n"
             " and pd.GetArray('speed').GetValue(0)==5 and pd.GetArray('contacts').GetValue(2)==3\n"
             " and pd.GetArray('id').GetValue(1)==1 and abs(pd.GetArray('extra').GetValue(1)-0.2)<1e-7\n"
             " and d.GetFieldData().GetArray('TimeValue').GetValue(0)==2.5)\n"
             "sys.exit(0 if ok else 1)\" '%s'",
             path);
    CHECK(system(cmd) == 0, "VTK's reader disagrees with %s", path);
    remove(path);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/loam_test_output_XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_vtp_small();
    test_vtp_large();
    test_vtp_invalid();
    test_pvd();
    test_json();
    test_missing_directory();
    test_with_vtk_if_available();
    CHECK(leftover_tmp_files() == 0, "temporary files left in %s", g_dir);

    const char* names[] = {"small.vtp", "implicit.vtp", "empty.vtp", "large.vtp"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        char path[512];
        path_in(path, sizeof path, names[i]);
        remove(path);
    }
    CHECK(rmdir(g_dir) == 0, "%s not empty after the test", g_dir);
    TEST_MAIN_END();
}
