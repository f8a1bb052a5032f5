#define _GNU_SOURCE
#include <sched.h>
#include "csystemcalls.h"

int csystemcalls_affinity_processor_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
    return CPU_COUNT(&set);
}
