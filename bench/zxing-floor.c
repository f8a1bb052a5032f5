/* zxing-floor: the baseline for syncscan's benchmark with engine: zxing — the bare zxing-cpp 3.1.1
 * loop on the same frames, through zxing-cpp's C API as syncscan calls it. Reads a mono (C mono)
 * Y4M stream, reads each frame in place with ZXing_ReadBarcodes (QR models 1 and 2, as syncscan's
 * default, unless --formats says otherwise; plain text mode, as syncscan) and prints
 * "frames=N symbols=M" like zbar-floor.
 *   usage: zxing-floor [--formats=QRCode,EAN13,...] [--no-try-harder] [--no-try-rotate]
 *                      [--no-try-downscale] [--no-try-invert] FILE.y4m
 *   The --no-* flags match syncscan's zxing.try-harder/try-rotate/try-downscale keys set to false;
 *   all four together are syncscan's zxing-fast pass (--effort fast).
 *   build: cc -O2 -o zxing-floor zxing-floor.c $(pkg-config --cflags --libs zxing) */
#include <ZXing/ZXingC.h>

#include "y4m-mono.h"

int main(int argc, char **argv) {
    bool tryHarder = true, tryRotate = true, tryDownscale = true, tryInvert = true;
    ZXing_BarcodeFormat qr[] = {ZXing_BarcodeFormat_QRCodeModel1, ZXing_BarcodeFormat_QRCodeModel2};
    ZXing_BarcodeFormat *formats = qr;
    int formatCount = 2;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-try-harder")) tryHarder = false;
        else if (!strcmp(argv[i], "--no-try-rotate")) tryRotate = false;
        else if (!strcmp(argv[i], "--no-try-downscale")) tryDownscale = false;
        else if (!strcmp(argv[i], "--no-try-invert")) tryInvert = false;
        else if (!strncmp(argv[i], "--formats=", 10)) {
            formats = ZXing_BarcodeFormatsFromString(argv[i] + 10, &formatCount);
            if (!formats) {
                char *message = ZXing_LastErrorMsg();
                fprintf(stderr, "bad --formats: %s\n", message ? message : "?");
                return 2;
            }
        } else if (argv[i][0] == '-' || path) { path = NULL; break; }
        else path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: %s [--formats=QRCode,EAN13,...] [--no-try-harder] [--no-try-rotate] "
                        "[--no-try-downscale] [--no-try-invert] FILE.y4m\n", argv[0]);
        return 2;
    }

    int w, h;
    FILE *f = y4m_mono_open(path, &w, &h);
    if (!f) return 2;
    uint8_t *frame = malloc((size_t)w * h);
    if (!frame) { fprintf(stderr, "out of memory\n"); return 2; }

    ZXing_ReaderOptions *options = ZXing_ReaderOptions_new();
    ZXing_ReaderOptions_setFormats(options, formats, formatCount);
    ZXing_ReaderOptions_setTryHarder(options, tryHarder);
    ZXing_ReaderOptions_setTryRotate(options, tryRotate);
    ZXing_ReaderOptions_setTryInvert(options, tryInvert);
    ZXing_ReaderOptions_setTryDownscale(options, tryDownscale);
    ZXing_ReaderOptions_setTextMode(options, ZXing_TextMode_Plain);

    long frames = 0, symbols = 0, failures = 0;
    int read;
    while ((read = y4m_mono_next(f, frame, (size_t)w * h)) > 0) {
        ZXing_ImageView *view = ZXing_ImageView_new(frame, w, h, ZXing_ImageFormat_Lum, w, 1);
        ZXing_Barcodes *barcodes = view ? ZXing_ReadBarcodes(view, options) : NULL;
        if (!barcodes) {
            char *message = ZXing_LastErrorMsg();
            failures++;
            fprintf(stderr, "frame %ld: ZXing_ReadBarcodes failed: %s\n", frames, message ? message : "?");
            ZXing_free(message);
        } else {
            for (int i = 0; i < ZXing_Barcodes_size(barcodes); i++)
                if (ZXing_Barcode_isValid(ZXing_Barcodes_at(barcodes, i))) symbols++;
            ZXing_Barcodes_delete(barcodes);
        }
        ZXing_ImageView_delete(view);
        frames++;
    }
    if (read < 0) return 2;
    printf("frames=%ld symbols=%ld\n", frames, symbols);
    ZXing_ReaderOptions_delete(options);
    if (formats != qr) ZXing_free(formats);
    free(frame);
    fclose(f);
    return failures ? 1 : 0;
}
