/* zbar-floor: the baseline for syncscan's benchmark — the bare zbar loop on the same frames.
 * Reads a mono (C mono) Y4M stream, scans each frame with one zbar image scanner (QR only,
 * binary mode, as syncscan does) and prints "frames=N symbols=M".
 *   usage: zbar-floor FILE.y4m
 *   build: cc -O2 -o zbar-floor zbar-floor.c -lzbar */
#include <zbar.h>

#include "y4m-mono.h"

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s FILE.y4m\n", argv[0]); return 2; }
    int w, h;
    FILE *f = y4m_mono_open(argv[1], &w, &h);
    if (!f) return 2;
    size_t size = (size_t)w * h;
    unsigned char *frame = malloc(size);
    zbar_image_scanner_t *sc = zbar_image_scanner_create();
    zbar_image_scanner_set_config(sc, 0, ZBAR_CFG_ENABLE, 0);
    zbar_image_scanner_set_config(sc, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1);
    zbar_image_scanner_set_config(sc, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1);
    long frames = 0, symbols = 0;
    int read;
    while ((read = y4m_mono_next(f, frame, size)) > 0) {
        zbar_image_t *im = zbar_image_create();
        zbar_image_set_format(im, zbar_fourcc('Y', '8', '0', '0'));
        zbar_image_set_size(im, w, h);
        zbar_image_set_data(im, frame, size, NULL);
        int n = zbar_scan_image(sc, im);
        if (n > 0) symbols += n;
        zbar_image_destroy(im);
        frames++;
    }
    if (read < 0) return 2;
    printf("frames=%ld symbols=%ld\n", frames, symbols);
    return 0;
}
