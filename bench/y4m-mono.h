/* y4m-mono.h: the Y4M reading both floors share (zbar-floor.c, zxing-floor.c): a C mono stream's
 * header, then its frames, each read whole into the caller's buffer. */
#ifndef Y4M_MONO_H
#define Y4M_MONO_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Opens `path` and reads its header into *w, *h; NULL (with the reason on stderr) unless it is a
 * C mono Y4M stream with a frame size. */
static FILE *y4m_mono_open(const char *path, int *w, int *h) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return NULL; }
    char header[256];
    if (!fgets(header, sizeof header, f) || strncmp(header, "YUV4MPEG2 ", 10)) {
        fprintf(stderr, "not Y4M\n");
        fclose(f);
        return NULL;
    }
    *w = 0, *h = 0;
    for (char *t = strtok(header + 10, " \n"); t; t = strtok(NULL, " \n")) {
        if (t[0] == 'W') *w = atoi(t + 1);
        if (t[0] == 'H') *h = atoi(t + 1);
        if (t[0] == 'C' && strcmp(t, "Cmono")) { fprintf(stderr, "only C mono\n"); fclose(f); return NULL; }
    }
    if (*w <= 0 || *h <= 0) { fprintf(stderr, "no frame size in the Y4M header\n"); fclose(f); return NULL; }
    return f;
}

/* Reads the next frame's `size` bytes into `frame`: 1 when read, 0 at the end, -1 (said on stderr) for a bad frame. */
static int y4m_mono_next(FILE *f, unsigned char *frame, size_t size) {
    char marker[64];
    if (!fgets(marker, sizeof marker, f)) return 0;
    if (strncmp(marker, "FRAME", 5) || fread(frame, 1, size, f) != size) { fprintf(stderr, "bad frame\n"); return -1; }
    return 1;
}
#endif
