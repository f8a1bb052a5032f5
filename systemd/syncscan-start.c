// syncscan-start PROGRAM [ARGUMENT...]: runs PROGRAM (the syncscan daemon) with SIGTERM, SIGINT,
// SIGHUP and SIGUSR1 blocked. Linked statically, it blocks them within microseconds of its own
// exec; the block and any signal pending survive the exec of PROGRAM, whose dynamic loader then
// takes milliseconds before any of its code runs. syncscan's first code (its .preinit_array
// entry, CEarlySignals) installs its counting handlers and unblocks them: a signal sent at any
// moment of the start is counted and acted on, never the default action. The systemd units start
// syncscan through it.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    sigset_t held;
    sigemptyset(&held);
    sigaddset(&held, SIGTERM);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGHUP);
    sigaddset(&held, SIGUSR1);
    sigprocmask(SIG_BLOCK, &held, NULL);
    if (argc < 2 || argv[1][0] != '/') {
        fputs("usage: syncscan-start /PATH/TO/syncscan [ARGUMENT...] (an absolute path: nothing is looked up in PATH)\n", stderr);
        return 2;
    }
    execv(argv[1], argv + 1);
    fprintf(stderr, "syncscan-start: cannot run %s: %s (execv)\n", argv[1], strerror(errno));
    return 127;
}
