/* zxing-floor: the baseline for syncscan's benchmark with engine: zxing — the bare zxing-cpp loop
 * on the same frames. Reads a mono (C mono) Y4M stream, reads each frame in place with
 * ZXing::ReadBarcodes (QR only unless --formats says otherwise, as syncscan's default) and
 * prints "frames=N symbols=M" like zbar-floor.
 *   usage: zxing-floor [--formats=QRCode,EAN13,...] [--no-try-harder] [--no-try-rotate]
 *                      [--no-try-downscale] FILE.y4m
 *   The --no-* flags match syncscan's zxing.try-harder/try-rotate/try-downscale keys set to false.
 *   Like syncscan, downscaling is forced off when a 1-D format is on (zxing-cpp 1.4.0 aborts on
 *   an assertion otherwise); --allow-1d-downscale keeps it, to reproduce that.
 *   build: g++ -O2 -std=c++17 -o zxing-floor zxing-floor.cpp -lZXing */
#define ZX_USE_UTF8 1
#include <ZXing/ReadBarcode.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

int main(int argc, char **argv) {
    bool tryHarder = true, tryRotate = true, tryDownscale = true, allow1DDownscale = false;
    ZXing::BarcodeFormats formats = ZXing::BarcodeFormat::QRCode;
    const char *path = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-try-harder")) tryHarder = false;
        else if (!strcmp(argv[i], "--no-try-rotate")) tryRotate = false;
        else if (!strcmp(argv[i], "--no-try-downscale")) tryDownscale = false;
        else if (!strcmp(argv[i], "--allow-1d-downscale")) allow1DDownscale = true;
        else if (!strncmp(argv[i], "--formats=", 10)) {
            try { formats = ZXing::BarcodeFormatsFromString(argv[i] + 10); }
            catch (const std::exception &e) { fprintf(stderr, "bad --formats: %s\n", e.what()); return 2; }
        } else if (argv[i][0] == '-' || path) { path = nullptr; break; }
        else path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: %s [--formats=QRCode,EAN13,...] [--no-try-harder] [--no-try-rotate] "
                        "[--no-try-downscale] [--allow-1d-downscale] FILE.y4m\n", argv[0]);
        return 2;
    }
    if (formats.testFlags(ZXing::BarcodeFormat::LinearCodes) && !allow1DDownscale) tryDownscale = false;

    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return 2; }
    char header[256];
    if (!fgets(header, sizeof header, f) || strncmp(header, "YUV4MPEG2 ", 10)) { fprintf(stderr, "not Y4M\n"); return 2; }
    int w = 0, h = 0;
    for (char *t = strtok(header + 10, " \n"); t; t = strtok(NULL, " \n")) {
        if (t[0] == 'W') w = atoi(t + 1);
        if (t[0] == 'H') h = atoi(t + 1);
        if (t[0] == 'C' && strcmp(t, "Cmono")) { fprintf(stderr, "only C mono\n"); return 2; }
    }
    if (w <= 0 || h <= 0) { fprintf(stderr, "no frame size in the Y4M header\n"); return 2; }
    std::vector<uint8_t> frame(static_cast<size_t>(w) * h);

    ZXing::DecodeHints hints;
    hints.setFormats(formats).setTryHarder(tryHarder).setTryRotate(tryRotate).setTryDownscale(tryDownscale);

    long frames = 0, symbols = 0, failures = 0;
    char marker[64];
    while (fgets(marker, sizeof marker, f)) {
        if (strncmp(marker, "FRAME", 5) || fread(frame.data(), 1, frame.size(), f) != frame.size()) {
            fprintf(stderr, "bad frame\n");
            return 2;
        }
        try {
            ZXing::ImageView view(frame.data(), w, h, ZXing::ImageFormat::Lum);
            for (const auto &result : ZXing::ReadBarcodes(view, hints))
                if (result.isValid()) symbols++;
        } catch (const std::exception &e) {
            failures++;
            fprintf(stderr, "frame %ld: ZXing::ReadBarcodes threw: %s\n", frames, e.what());
        }
        frames++;
    }
    printf("frames=%ld symbols=%ld\n", frames, symbols);
    return failures ? 1 : 0;
}
