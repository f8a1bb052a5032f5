#ifndef CSYSTEMCALLS_H
#define CSYSTEMCALLS_H

/// The number of processors in this process's affinity mask (sched_getaffinity(2) and
/// CPU_COUNT, which need _GNU_SOURCE and a macro Swift cannot import), or -1 with errno set.
int csystemcalls_affinity_processor_count(void);

/// Names the calling thread for the kernel (pthread_setname_np on pthread_self(), which needs
/// _GNU_SOURCE): at most 15 bytes; returns 0 or an errno (ERANGE for a longer name).
int csystemcalls_set_thread_name(const char *name);

/// A new eventfd, counter 0, close-on-exec and non-blocking (eventfd(2) with EFD_CLOEXEC |
/// EFD_NONBLOCK), or -1 with errno set.
int csystemcalls_eventfd(void);

/// The next connection waiting on the listening socket `fd`, non-blocking and close-on-exec
/// (accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC, which needs _GNU_SOURCE), or -1 with errno set.
int csystemcalls_accept(int fd);

/// Asks for a pipe's buffer to hold at least `bytes` (fcntl(2) F_SETPIPE_SZ, which needs
/// _GNU_SOURCE): the capacity the kernel set (a power of two pages), or -1 with errno set (EPERM
/// above /proc/sys/fs/pipe-max-size without CAP_SYS_RESOURCE, EBUSY below what the pipe holds).
int csystemcalls_set_pipe_size(int fd, int bytes);

/// Traps SIGTERM, SIGINT, SIGHUP and SIGUSR1 (sigaction(2), SA_RESTART): each arrival is counted
/// (`csystemcalls_signals_arrivals`) and wakes the read end of a pipe
/// (`csystemcalls_signals_wake_descriptor`), nothing else. Async-signal-safe handler; idempotent.
/// Then unblocks them (sigprocmask(2)): those `syncscan-start` held across the exec arrive.
/// Returns 0, or -1 with errno set.
int csystemcalls_signals_trap(void);

/// How many times `signal` arrived since it was trapped (0 for a signal never trapped).
unsigned long csystemcalls_signals_arrivals(int signal);

/// The non-blocking, close-on-exec read end of the pipe each arrival writes one byte to; -1 before the trap.
int csystemcalls_signals_wake_descriptor(void);

/// Gives the four signals their default action again (sigaction(2), SIG_DFL), then raises each
/// that arrived while trapped, so that it takes that action now. Returns 0, or -1 with errno set.
int csystemcalls_signals_restore_defaults(void);

#endif
