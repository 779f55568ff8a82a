/* For tests that compile a documented example (README.md, the pages under docs/) and run it: the example sits
 * between two marker comments in the test's own source, must appear verbatim in the document, and its
 * printed output is captured for checking. Include after test_util.h. */
#ifndef LOAM_TESTS_DOC_EXAMPLE_H
#define LOAM_TESTS_DOC_EXAMPLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The whole of a file, NUL-terminated, or NULL. */
static inline char* doc_slurp(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (text) text[fread(text, 1, (size_t)size, f)] = '\0';
    fclose(f);
    return text;
}

/* The text of `source` between begin_mark (a whole line) and end_mark must appear in `doc`. */
static inline void doc_check_verbatim(const char* source, const char* doc, const char* begin_mark, const char* end_mark) {
    char* self = doc_slurp(source);
    char* text = doc_slurp(doc);
    CHECK(self != NULL && text != NULL, "cannot read %s or %s", source, doc);
    if (self && text) {
        char* begin = strstr(self, begin_mark);
        char* end = begin ? strstr(begin, end_mark) : NULL;
        CHECK(begin && end, "%s: markers not found", source);
        if (begin && end) {
            begin += strlen(begin_mark);
            *end = '\0';
            CHECK(strstr(text, begin) != NULL, "%s does not hold the example of %s verbatim", doc, source);
        }
    }
    free(self);
    free(text);
}

/* Run example() with its stdout going into buf (NUL-terminated); returns what it returned. */
static inline int doc_run_captured(int (*example)(void), char* buf, size_t size) {
    fflush(stdout);
    FILE* tmp = tmpfile();
    CHECK(tmp != NULL, "tmpfile failed");
    if (!tmp) return -1;
    int saved = dup(fileno(stdout));
    dup2(fileno(tmp), fileno(stdout));
    int rc = example();
    fflush(stdout);
    dup2(saved, fileno(stdout));
    close(saved);
    rewind(tmp);
    buf[fread(buf, 1, size - 1, tmp)] = '\0';
    fclose(tmp);
    return rc;
}

#endif
