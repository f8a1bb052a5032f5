#include "csystemcalls.h"
#include "cearlysignals.h"

// The executable's first code: .preinit_array runs before any shared library's initializer and
// before main, so a SIGHUP, SIGUSR1, SIGTERM or SIGINT from then on is counted, never fatal.
static void trap_signals_first(int argc, char **argv, char **envp) {
    (void)argc; (void)argv; (void)envp;
    csystemcalls_signals_trap();
}

__attribute__((section(".preinit_array"), used))
static void (*const cearlysignals_preinit)(int, char **, char **) = trap_signals_first;
