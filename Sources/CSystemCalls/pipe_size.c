#define _GNU_SOURCE
#include <fcntl.h>
#include "csystemcalls.h"

int csystemcalls_set_pipe_size(int fd, int bytes) {
    return fcntl(fd, F_SETPIPE_SZ, bytes);
}
