#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>
#include "csystemcalls.h"

int csystemcalls_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
