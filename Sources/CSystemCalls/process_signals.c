#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>
#include "csystemcalls.h"

// Arrivals of each trapped signal, counted by the handler; the pipe's write end wakes the reader.
static atomic_ulong arrivals[NSIG];
static atomic_int wake_read = -1, wake_write = -1;
static atomic_flag trapped = ATOMIC_FLAG_INIT;
static const int trapped_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1};

// Async-signal-safe: an atomic add and a write(2) to a non-blocking pipe (a full pipe already wakes).
static void count_arrival(int signal) {
    int saved = errno;
    if (signal > 0 && signal < NSIG) atomic_fetch_add(&arrivals[signal], 1);
    int fd = atomic_load(&wake_write);
    if (fd >= 0) {
        char byte = (char)signal;
        ssize_t ignored = write(fd, &byte, 1);
        (void)ignored;
    }
    errno = saved;
}

int csystemcalls_signals_trap(void) {
    if (atomic_flag_test_and_set(&trapped)) return 0;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
        // Never 0, 1 or 2: at the executable's first code a closed stdin, stdout or stderr would
        // hand its number to the pipe (the program opens those on /dev/null later).
        for (int i = 0; i < 2; i++) {
            if (fds[i] < 3) {
                int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
                close(fds[i]);
                fds[i] = moved;
            }
        }
        atomic_store(&wake_read, fds[0]);
        atomic_store(&wake_write, fds[1]);
    }
    struct sigaction action = {0};
    action.sa_handler = count_arrival;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigset_t held;
    sigemptyset(&held);
    for (unsigned i = 0; i < sizeof trapped_signals / sizeof trapped_signals[0]; i++) {
        if (sigaction(trapped_signals[i], &action, NULL) != 0) return -1;
        sigaddset(&held, trapped_signals[i]);
    }
    // Blocked by syncscan-start across the exec: those pending arrive now, counted.
    return sigprocmask(SIG_UNBLOCK, &held, NULL);
}

unsigned long csystemcalls_signals_arrivals(int signal) {
    return signal > 0 && signal < NSIG ? atomic_load(&arrivals[signal]) : 0;
}

int csystemcalls_signals_wake_descriptor(void) { return atomic_load(&wake_read); }

int csystemcalls_signals_restore_defaults(void) {
    struct sigaction action = {0};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    for (unsigned i = 0; i < sizeof trapped_signals / sizeof trapped_signals[0]; i++) {
        if (sigaction(trapped_signals[i], &action, NULL) != 0) return -1;
    }
    // What arrived while trapped takes its default action now (SIGTERM during `check-config` still ends it).
    for (unsigned i = 0; i < sizeof trapped_signals / sizeof trapped_signals[0]; i++) {
        if (atomic_load(&arrivals[trapped_signals[i]]) > 0) raise(trapped_signals[i]);
    }
    return 0;
}
