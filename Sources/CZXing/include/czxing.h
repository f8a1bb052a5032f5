#ifndef CZXING_H
#define CZXING_H
/* A C face for zxing-cpp 1.4 (Debian's libzxing-dev), which is C++ only: Swift imports this
 * header, czxing.cpp calls ZXing::ReadBarcodes behind it. No C++ type crosses it, and no C++
 * exception either: every failure comes back as a return code plus a message. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Barcode formats, one bit each; the values are ZXing::BarcodeFormat's (checked at compile time). */
enum {
    CZXING_FORMAT_AZTEC = 1u << 0,
    CZXING_FORMAT_CODABAR = 1u << 1,
    CZXING_FORMAT_CODE39 = 1u << 2,
    CZXING_FORMAT_CODE93 = 1u << 3,
    CZXING_FORMAT_CODE128 = 1u << 4,
    CZXING_FORMAT_DATABAR = 1u << 5,
    CZXING_FORMAT_DATABAR_EXPANDED = 1u << 6,
    CZXING_FORMAT_DATAMATRIX = 1u << 7,
    CZXING_FORMAT_EAN8 = 1u << 8,
    CZXING_FORMAT_EAN13 = 1u << 9,
    CZXING_FORMAT_ITF = 1u << 10,
    CZXING_FORMAT_MAXICODE = 1u << 11,
    CZXING_FORMAT_PDF417 = 1u << 12,
    CZXING_FORMAT_QRCODE = 1u << 13,
    CZXING_FORMAT_UPCA = 1u << 14,
    CZXING_FORMAT_UPCE = 1u << 15,
    CZXING_FORMAT_MICROQRCODE = 1u << 16,
};

/* Return codes of czxing_read. */
enum {
    CZXING_OK = 0,
    /* zxing-cpp threw; the message is in `error`. */
    CZXING_ERROR_LIBRARY = 1,
    /* A NULL pointer or an impossible geometry; nothing was read. */
    CZXING_ERROR_ARGUMENT = 2,
};

/* Immutable decode hints (ZXing::DecodeHints); safe to share between threads once made. */
typedef struct czxing_hints czxing_hints;
/* The codes one czxing_read found (a ZXing::Results), owned by the caller. */
typedef struct czxing_results czxing_results;

/* New hints reading `formats` (CZXING_FORMAT_* bits; 0 means none, not zxing's "any").
 * Returns NULL only when out of memory. */
czxing_hints *czxing_hints_create(uint32_t formats, bool try_harder, bool try_rotate, bool try_downscale);
void czxing_hints_destroy(czxing_hints *hints);

/* Reads every code in an 8-bit luma plane in place (ZXing::ImageView, ImageFormat::Lum, no copy),
 * restricted to the crop rectangle (crop_width or crop_height <= 0: the whole frame; a crop
 * reaching past the frame is clamped). Sample (x, y) is data[y*row_stride + x*pixel_stride].
 * On CZXING_OK, *out holds the results (free with czxing_results_destroy) and corners are in
 * full-frame pixels; otherwise *out is NULL and `error` (if not NULL) holds a NUL-terminated
 * message truncated to error_capacity bytes. Catches every C++ exception. */
int czxing_read(const czxing_hints *hints, const void *data, int width, int height,
                int row_stride, int pixel_stride,
                int crop_x, int crop_y, int crop_width, int crop_height,
                czxing_results **out, char *error, size_t error_capacity);

int czxing_results_count(const czxing_results *results);
/* One CZXING_FORMAT_* bit. */
uint32_t czxing_result_format(const czxing_results *results, int index);
/* Result::isValid(): a format and no error. */
bool czxing_result_is_valid(const czxing_results *results, int index);
/* Result::bytes(): the payload as encoded, no character-set conversion; valid until the results
 * are destroyed. *length receives the byte count; the pointer may be NULL when it is 0. */
const uint8_t *czxing_result_bytes(const czxing_results *results, int index, size_t *length);
/* Result::position() in full-frame pixels: x, y of top-left, top-right, bottom-right,
 * bottom-left of the code itself, into xy[0..7]. */
void czxing_result_corners(const czxing_results *results, int index, int xy[8]);
/* false when zxing-cpp gave no position (all four corners at the origin: MaxiCode in 1.4). */
bool czxing_result_has_position(const czxing_results *results, int index);
/* Result::orientation(): degrees, clockwise on screen, in (-180, 180]. */
int czxing_result_orientation(const czxing_results *results, int index);
void czxing_results_destroy(czxing_results *results);

#ifdef __cplusplus
}
#endif
#endif
