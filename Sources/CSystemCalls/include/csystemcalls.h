#ifndef CSYSTEMCALLS_H
#define CSYSTEMCALLS_H

/// The number of processors in this process's affinity mask (sched_getaffinity(2) and
/// CPU_COUNT, which need _GNU_SOURCE and a macro Swift cannot import), or -1 with errno set.
int csystemcalls_affinity_processor_count(void);

#endif
