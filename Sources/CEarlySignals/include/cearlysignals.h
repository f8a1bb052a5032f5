#ifndef CEARLYSIGNALS_H
#define CEARLYSIGNALS_H

// Linked into the executable only: its .preinit_array entry (early_signals.c) traps SIGTERM,
// SIGINT, SIGHUP and SIGUSR1 (`csystemcalls_signals_trap`) before anything else of the program
// runs. Nothing to call.

#endif
