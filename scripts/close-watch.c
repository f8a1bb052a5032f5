/*
 * close-watch.c - a close(2) that reports every close of a descriptor that is not open (EBADF),
 * preloaded into the unit-test run by scripts/unit-tests.sh (UNIT_TEST_WATCH_CLOSES=1).
 *
 * A descriptor closed twice is a race in a process that opens descriptors on other threads: the
 * second close closes whatever number another thread was given meanwhile (an eventfd, a pipe, a
 * spool file), and that thread then fails far from the cause. The test processes run many tests
 * at once, so such a race shows up as a rare failure of an unrelated test. Most double closes
 * meet no reuse on a given run and get EBADF: this reports each with its stack, so they are
 * found on every run, not by chance. Reports are appended to $CLOSE_WATCH_LOG.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int (*real_close)(int);

__attribute__((constructor)) static void close_watch_init(void) {
    real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    void *frames[2];
    backtrace(frames, 2);  /* loads the unwinder now, not in a forked child */
}

int close(int fd) {
    if (!real_close) real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    int result = real_close(fd);
    if (result == -1 && errno == EBADF && fd >= 0) {
        int saved = errno;
        const char *path = getenv("CLOSE_WATCH_LOG");
        int log = path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
        if (log >= 0) {
            void *frames[48];
            int count = backtrace(frames, 48);
            dprintf(log, "close(%d) of a descriptor that is not open, in process %d:\n", fd, getpid());
            backtrace_symbols_fd(frames, count, log);
            dprintf(log, "end of report\n");
            real_close(log);
        }
        errno = saved;
    }
    return result;
}
