/* mjpeg-zxing-floor: the baseline for bench/pipeline.py — the bare library loop on the same camera
 * JPEGs: each frame decoded to grey by TurboJPEG (tjDecompress2 to TJPF_GRAY) and read by zxing-cpp
 * 3.1.1 (ZXing_ReadBarcodes with the options of syncscan's zxing-fast pass, the one pass
 * `effort: auto` runs on every frame of a live source: QR models 1 and 2, try-harder, try-rotate,
 * try-downscale and try-invert off, errors returned, plain text), one thread, no pacing.
 * Cycles through the files for FRAMES frames; prints frames, symbols and the process's CPU per frame
 * (getrusage user + system over the loop), as pipeline-bench does.
 *   usage: mjpeg-zxing-floor FRAMES FILE.jpg...
 *   build: cc -O2 -o mjpeg-zxing-floor mjpeg-zxing-floor.c $(pkg-config --cflags --libs zxing libturbojpeg) */
#include <ZXing/ZXingC.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <turbojpeg.h>

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static unsigned char *read_file(const char *path, unsigned long *size) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(n > 0 ? n : 1);
    if (!bytes || fread(bytes, 1, n, f) != (size_t)n) { fprintf(stderr, "%s: read failed\n", path); exit(2); }
    fclose(f);
    *size = n;
    return bytes;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s FRAMES FILE.jpg...\n", argv[0]); return 2; }
    long frames = atol(argv[1]);
    int files = argc - 2;
    unsigned char **jpegs = malloc(sizeof *jpegs * files);
    unsigned long *sizes = malloc(sizeof *sizes * files);
    for (int i = 0; i < files; i++) jpegs[i] = read_file(argv[i + 2], &sizes[i]);
    tjhandle tj = tjInitDecompress();
    int w, h, subsampling, colorspace;
    if (!tj || tjDecompressHeader3(tj, jpegs[0], sizes[0], &w, &h, &subsampling, &colorspace)) {
        fprintf(stderr, "tjDecompressHeader3: %s\n", tjGetErrorStr2(tj)); return 2;
    }
    unsigned char *grey = malloc((size_t)w * h);

    ZXing_BarcodeFormat qr[] = {ZXing_BarcodeFormat_QRCodeModel1, ZXing_BarcodeFormat_QRCodeModel2};
    ZXing_ReaderOptions *options = ZXing_ReaderOptions_new();
    ZXing_ReaderOptions_setFormats(options, qr, 2);
    ZXing_ReaderOptions_setTryHarder(options, false);
    ZXing_ReaderOptions_setTryRotate(options, false);
    ZXing_ReaderOptions_setTryDownscale(options, false);
    ZXing_ReaderOptions_setTryInvert(options, false);
    ZXing_ReaderOptions_setBinarizer(options, ZXing_Binarizer_LocalAverage);
    ZXing_ReaderOptions_setReturnErrors(options, true);
    ZXing_ReaderOptions_setTextMode(options, ZXing_TextMode_Plain);

    long symbols = 0, failures = 0;
    double start = cpu_seconds();
    for (long n = 0; n < frames; n++) {
        int i = n % files;
        if (tjDecompress2(tj, jpegs[i], sizes[i], grey, w, w, h, TJPF_GRAY, 0)) {
            fprintf(stderr, "%s: tjDecompress2: %s\n", argv[i + 2], tjGetErrorStr2(tj)); return 1;
        }
        ZXing_ImageView *view = ZXing_ImageView_new(grey, w, h, ZXing_ImageFormat_Lum, w, 1);
        ZXing_Barcodes *barcodes = view ? ZXing_ReadBarcodes(view, options) : NULL;
        if (!barcodes) {
            char *message = ZXing_LastErrorMsg();
            failures++;
            fprintf(stderr, "frame %ld: ZXing_ReadBarcodes failed: %s\n", n, message ? message : "?");
            ZXing_free(message);
        } else {
            for (int b = 0; b < ZXing_Barcodes_size(barcodes); b++)
                if (ZXing_Barcode_isValid(ZXing_Barcodes_at(barcodes, b))) symbols++;
            ZXing_Barcodes_delete(barcodes);
        }
        ZXing_ImageView_delete(view);
    }
    double cpu = cpu_seconds() - start;
    printf("frames=%ld symbols=%ld size=%dx%d cpu_ms_per_frame=%f\n", frames, symbols, w, h, cpu * 1000 / (frames ? frames : 1));
    ZXing_ReaderOptions_delete(options);
    tjDestroy(tj);
    return failures ? 1 : 0;
}
