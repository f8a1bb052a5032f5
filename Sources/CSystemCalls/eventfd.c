#include <sys/eventfd.h>
#include "csystemcalls.h"

int csystemcalls_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}
