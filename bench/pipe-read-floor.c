/* pipe-read-floor: what reading a live 1280x720 GREY Y4M stream from a pipe costs at least, for
 * bench/idle.py's pipe table — one read(2) per frame into one reused buffer, the pipe made to hold
 * a frame (F_SETPIPE_SZ 1 MiB, as syncscan sets it), nothing else done with the bytes; with `p`, a
 * poll(2) before each read. Prints frames, reads and the process's CPU per frame (getrusage).
 *   usage: FEEDER | pipe-read-floor [p]
 *   feeder: the idle scene at 30 fps, as bench/idle.py writes it, e.g.
 *     python3 -c 'import sys,time; sys.path.insert(0,"bench"); import idle
 *     h,f=idle.load_frames(idle.scene_path("idle")); o=sys.stdout.buffer; o.write(h); o.flush(); s=time.monotonic()+0.5
 *     [(time.sleep(max(0,s+n/30-time.monotonic())),o.write(x),o.flush()) for n,x in enumerate(f)]' | ./pipe-read-floor
 *   build: cc -O2 -o pipe-read-floor pipe-read-floor.c */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv) {
    const size_t frame = 6 + 1280 * 720;  /* FRAME\n and the pixels */
    size_t total = 0;
    long reads = 0;
    int polls = argc > 1 && argv[1][0] == 'p';
    fcntl(0, F_SETPIPE_SZ, 1 << 20);
    char *buffer = aligned_alloc(64, 1 << 20);
    char c = 0;  /* the header line, a byte at a time so that no frame byte is taken with it */
    while (c != '\n') if (read(0, &c, 1) != 1) return 2;
    for (;;) {
        if (polls) { struct pollfd p = {0, POLLIN, 0}; poll(&p, 1, -1); }
        ssize_t n = read(0, buffer, frame - total % frame);
        if (n <= 0) break;
        total += n;
        reads++;
    }
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    double cpu = u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
    fprintf(stderr, "frames %zu reads %ld cpu %.3f ms/frame\n", total / frame, reads, cpu * 1000 / (total / frame));
    return 0;
}
