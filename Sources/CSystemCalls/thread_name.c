#define _GNU_SOURCE
#include <pthread.h>
#include "csystemcalls.h"

int csystemcalls_set_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
