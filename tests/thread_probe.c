/* Preloaded (LD_PRELOAD) by thread_labels.py: creating a thread creates the file named by
 * $LOAM_THREAD_PROBE, then the thread starts as usual. OpenMP's teams and host threads both come
 * through pthread_create, so the file's existence says whether the program ever ran a second thread. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
    int (*real)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*) =
        (int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*))dlsym(RTLD_NEXT, "pthread_create");
    const char* path = getenv("LOAM_THREAD_PROBE");
    if (path) {
        int fd = open(path, O_CREAT | O_WRONLY, 0644);
        if (fd >= 0) close(fd);
    }
    return real ? real(thread, attr, start, arg) : -1;
}
