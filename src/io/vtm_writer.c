/* VTK XML multiblock frames (.vtm): a list of named datasets in other files, so one .pvd over them
 * shows particles and every body together in ParaView, each block coloured and hidden separately. */
#include "loam/io.h"
#include "loam/output.h"

/* Names and files come from scene files, so escape what would end or break an XML attribute. */
static void put_escaped(FILE* fp, const char* text) {
    for (const char* c = text; *c; ++c) {
        switch (*c) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&apos;", fp); break;
        default: fputc(*c, fp);
        }
    }
}

loam_status loam_vtm_write(const char* path, const loam_vtm_block* blocks, int count, loam_error* err) {
    if (!path) return loam_error_set(err, LOAM_ERR_INPUT, "vtm: path is NULL");
    if (count < 0 || (count > 0 && !blocks))
        return loam_error_set(err, LOAM_ERR_INPUT, "%s: %d blocks with blocks %s", path, count, blocks ? "set" : "NULL");
    for (int k = 0; k < count; ++k)
        if (!blocks[k].name || !blocks[k].name[0] || !blocks[k].file || !blocks[k].file[0])
            return loam_error_set(err, LOAM_ERR_INPUT, "%s: block %d has a NULL or empty %s", path, k,
                                  !blocks[k].name || !blocks[k].name[0] ? "name" : "file");
    loam_atomic_file f;
    loam_status st = loam_atomic_open(&f, path, err);
    if (st != LOAM_OK) return st;
    fputs("<?xml version=\"1.0\"?>\n<VTKFile type=\"vtkMultiBlockDataSet\" version=\"1.0\">\n"
          "  <vtkMultiBlockDataSet>\n", f.fp);
    for (int k = 0; k < count; ++k) {
        fprintf(f.fp, "    <DataSet index=\"%d\" name=\"", k);
        put_escaped(f.fp, blocks[k].name);
        fputs("\" file=\"", f.fp);
        put_escaped(f.fp, blocks[k].file);
        fputs("\"/>\n", f.fp);
    }
    fputs("  </vtkMultiBlockDataSet>\n</VTKFile>\n", f.fp);
    return loam_atomic_commit(&f, err);
}
