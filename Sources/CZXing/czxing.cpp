// The C face of zxing-cpp 1.4 declared in include/czxing.h. Everything C++ stays in this file:
// exceptions are caught at each entry point and turned into a return code and a message.

// text() is not used, but Result.h warns on every include unless the UTF-8 API is chosen.
#define ZX_USE_UTF8 1
#include <ZXing/ReadBarcode.h>

#include "czxing.h"

#include <algorithm>
#include <memory>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

using ZXing::BarcodeFormat;

static_assert(CZXING_FORMAT_AZTEC == static_cast<uint32_t>(BarcodeFormat::Aztec), "format bits drifted");
static_assert(CZXING_FORMAT_CODABAR == static_cast<uint32_t>(BarcodeFormat::Codabar), "format bits drifted");
static_assert(CZXING_FORMAT_CODE39 == static_cast<uint32_t>(BarcodeFormat::Code39), "format bits drifted");
static_assert(CZXING_FORMAT_CODE93 == static_cast<uint32_t>(BarcodeFormat::Code93), "format bits drifted");
static_assert(CZXING_FORMAT_CODE128 == static_cast<uint32_t>(BarcodeFormat::Code128), "format bits drifted");
static_assert(CZXING_FORMAT_DATABAR == static_cast<uint32_t>(BarcodeFormat::DataBar), "format bits drifted");
static_assert(CZXING_FORMAT_DATABAR_EXPANDED == static_cast<uint32_t>(BarcodeFormat::DataBarExpanded), "format bits drifted");
static_assert(CZXING_FORMAT_DATAMATRIX == static_cast<uint32_t>(BarcodeFormat::DataMatrix), "format bits drifted");
static_assert(CZXING_FORMAT_EAN8 == static_cast<uint32_t>(BarcodeFormat::EAN8), "format bits drifted");
static_assert(CZXING_FORMAT_EAN13 == static_cast<uint32_t>(BarcodeFormat::EAN13), "format bits drifted");
static_assert(CZXING_FORMAT_ITF == static_cast<uint32_t>(BarcodeFormat::ITF), "format bits drifted");
static_assert(CZXING_FORMAT_MAXICODE == static_cast<uint32_t>(BarcodeFormat::MaxiCode), "format bits drifted");
static_assert(CZXING_FORMAT_PDF417 == static_cast<uint32_t>(BarcodeFormat::PDF417), "format bits drifted");
static_assert(CZXING_FORMAT_QRCODE == static_cast<uint32_t>(BarcodeFormat::QRCode), "format bits drifted");
static_assert(CZXING_FORMAT_UPCA == static_cast<uint32_t>(BarcodeFormat::UPCA), "format bits drifted");
static_assert(CZXING_FORMAT_UPCE == static_cast<uint32_t>(BarcodeFormat::UPCE), "format bits drifted");
static_assert(CZXING_FORMAT_MICROQRCODE == static_cast<uint32_t>(BarcodeFormat::MicroQRCode), "format bits drifted");

struct czxing_hints {
    ZXing::DecodeHints hints;
    // DecodeHints treats an empty format set as "any"; czxing means none.
    bool none;
};

struct czxing_results {
    ZXing::Results results;
    int originX, originY;
};

namespace {

void copyMessage(const char *message, char *error, size_t capacity) {
    if (!error || capacity == 0) return;
    std::strncpy(error, message, capacity - 1);
    error[capacity - 1] = '\0';
}

bool inRange(const czxing_results *r, int index) {
    return r && index >= 0 && static_cast<size_t>(index) < r->results.size();
}

} // namespace

extern "C" {

czxing_hints *czxing_hints_create(uint32_t formats, bool try_harder, bool try_rotate, bool try_downscale) {
    try {
        auto *h = new czxing_hints{};
        h->none = (formats & static_cast<uint32_t>(BarcodeFormat::Any)) == 0;
        h->hints.setFormats(ZXing::BarcodeFormats(static_cast<BarcodeFormat>(formats & static_cast<uint32_t>(BarcodeFormat::Any))))
            .setTryHarder(try_harder)
            .setTryRotate(try_rotate)
            .setTryDownscale(try_downscale);
        return h;
    } catch (...) {
        return nullptr;
    }
}

void czxing_hints_destroy(czxing_hints *hints) { delete hints; }

int czxing_read(const czxing_hints *hints, const void *data, int width, int height,
                int row_stride, int pixel_stride,
                int crop_x, int crop_y, int crop_width, int crop_height,
                czxing_results **out, char *error, size_t error_capacity) {
    if (out) *out = nullptr;
    if (!hints || !data || !out || width <= 0 || height <= 0 || pixel_stride <= 0 ||
        row_stride < (width - 1) * pixel_stride + 1) {
        copyMessage("czxing_read: NULL pointer or impossible geometry", error, error_capacity);
        return CZXING_ERROR_ARGUMENT;
    }
    int x0 = 0, y0 = 0, w = width, h = height;
    if (crop_width > 0 && crop_height > 0) {
        x0 = std::clamp(crop_x, 0, width);
        y0 = std::clamp(crop_y, 0, height);
        w = std::min(width - x0, crop_width - (x0 - crop_x));
        h = std::min(height - y0, crop_height - (y0 - crop_y));
    }
    try {
        auto results = std::make_unique<czxing_results>(czxing_results{{}, x0, y0});
        if (!hints->none && w > 0 && h > 0) {
            ZXing::ImageView view(static_cast<const uint8_t *>(data), width, height, ZXing::ImageFormat::Lum,
                                  row_stride, pixel_stride);
            results->results = ZXing::ReadBarcodes(view.cropped(x0, y0, w, h), hints->hints);
        }
        *out = results.release();
        return CZXING_OK;
    } catch (const std::exception &e) {
        copyMessage(e.what(), error, error_capacity);
    } catch (...) {
        copyMessage("unknown C++ exception", error, error_capacity);
    }
    return CZXING_ERROR_LIBRARY;
}

int czxing_results_count(const czxing_results *results) {
    return results ? static_cast<int>(results->results.size()) : 0;
}

uint32_t czxing_result_format(const czxing_results *results, int index) {
    return inRange(results, index) ? static_cast<uint32_t>(results->results[index].format()) : 0;
}

bool czxing_result_is_valid(const czxing_results *results, int index) {
    return inRange(results, index) && results->results[index].isValid();
}

const uint8_t *czxing_result_bytes(const czxing_results *results, int index, size_t *length) {
    if (!inRange(results, index)) {
        if (length) *length = 0;
        return nullptr;
    }
    const ZXing::ByteArray &bytes = results->results[index].bytes();
    if (length) *length = bytes.size();
    return bytes.empty() ? nullptr : bytes.data();
}

void czxing_result_corners(const czxing_results *results, int index, int xy[8]) {
    if (!xy) return;
    if (!inRange(results, index)) {
        std::fill(xy, xy + 8, 0);
        return;
    }
    const ZXing::Position &p = results->results[index].position();
    for (int i = 0; i < 4; i++) {
        xy[2 * i] = p[i].x + results->originX;
        xy[2 * i + 1] = p[i].y + results->originY;
    }
}

bool czxing_result_has_position(const czxing_results *results, int index) {
    if (!inRange(results, index)) return false;
    const ZXing::Position &p = results->results[index].position();
    return std::any_of(p.begin(), p.end(), [](const ZXing::PointI &q) { return q.x != 0 || q.y != 0; });
}

int czxing_result_orientation(const czxing_results *results, int index) {
    return inRange(results, index) ? results->results[index].orientation() : 0;
}

void czxing_results_destroy(czxing_results *results) { delete results; }

} // extern "C"
