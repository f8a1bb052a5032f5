#ifndef CTURBOJPEG_SHIM_H
#define CTURBOJPEG_SHIM_H
#include <stddef.h>
#include <turbojpeg.h>

/* The TurboJPEG calls syncscan makes, under one prefix, with the output buffer preallocated
   (TJFLAG_NOREALLOC): libturbojpeg never reallocates what the caller owns. Plus the two plane
   splits TurboJPEG has no input format for (packed 4:2:2, interleaved 4:2:0 chroma), in C so
   they run at C speed in debug builds too. */

/* 8-bit greyscale rows (pitch bytes apart) to a one-component JPEG. */
static inline int cturbojpeg_compress_grey(tjhandle handle, const unsigned char *rows, int width, int pitch,
                                           int height, int quality, unsigned char *out, unsigned long *size) {
    unsigned char *buffer = out;
    return tjCompress2(handle, rows, width, pitch, height, TJPF_GRAY, &buffer, size, TJSAMP_GRAY, quality,
                       TJFLAG_NOREALLOC);
}

/* Three planes Y, Cb, Cr (subsampled as `subsampling`, a TJSAMP) to a JPEG, no RGB in between. */
static inline int cturbojpeg_compress_planes(tjhandle handle, const unsigned char *y, const unsigned char *cb,
                                             const unsigned char *cr, int width, int yStride, int cStride,
                                             int height, int subsampling, int quality, unsigned char *out,
                                             unsigned long *size) {
    const unsigned char *planes[3] = { y, cb, cr };
    int strides[3] = { yStride, cStride, cStride };
    unsigned char *buffer = out;
    return tjCompressFromYUVPlanes(handle, planes, width, strides, height, subsampling, &buffer, size, quality,
                                   TJFLAG_NOREALLOC);
}

/* Packed 4:2:2 rows `pitch` bytes apart split into a Y plane (`width` per row) and Cb, Cr planes
   ((width + 1) / 2 per row): YUYV has luma at 0, Cb at 1, Cr at 3 of each 4 bytes; UYVY 1, 0, 2.
   An odd width's last pixel has no Cr byte in the row: it gets neutral chroma. */
static inline void cturbojpeg_split_packed422(const unsigned char *src, int width, int height, int pitch,
                                              int lumaOffset, int cbOffset, int crOffset,
                                              unsigned char *y, unsigned char *cb, unsigned char *cr) {
    int columns = (width + 1) / 2;
    for (int row = 0; row < height; row++) {
        const unsigned char *s = src + (size_t)row * (size_t)pitch;
        unsigned char *yRow = y + (size_t)row * (size_t)width;
        unsigned char *cbRow = cb + (size_t)row * (size_t)columns, *crRow = cr + (size_t)row * (size_t)columns;
        for (int x = 0; x < width; x++) yRow[x] = s[2 * x + lumaOffset];
        for (int p = 0; p < columns; p++) {
            cbRow[p] = s[4 * p + cbOffset];
            crRow[p] = 4 * p + crOffset < 2 * width ? s[4 * p + crOffset] : 128;
        }
    }
}

/* Interleaved chroma rows `pitch` bytes apart (NV12 CbCr: cbFirst 1; NV21 CrCb: 0) split into Cb
   and Cr planes of `columns` samples per row. */
static inline void cturbojpeg_split_interleaved_chroma(const unsigned char *src, int columns, int rows, int pitch,
                                                       int cbFirst, unsigned char *cb, unsigned char *cr) {
    unsigned char *first = cbFirst ? cb : cr, *second = cbFirst ? cr : cb;
    for (int row = 0; row < rows; row++) {
        const unsigned char *s = src + (size_t)row * (size_t)pitch;
        for (int x = 0; x < columns; x++) {
            first[(size_t)row * (size_t)columns + (size_t)x] = s[2 * x];
            second[(size_t)row * (size_t)columns + (size_t)x] = s[2 * x + 1];
        }
    }
}

/* A JPEG's size and sampling from its header (tjDecompressHeader3). */
static inline int cturbojpeg_decompress_header(tjhandle handle, const unsigned char *jpeg, unsigned long size,
                                               int *width, int *height, int *subsampling) {
    int colorspace = 0;
    return tjDecompressHeader3(handle, jpeg, size, width, height, subsampling, &colorspace);
}

/* A JPEG decoded straight to 8-bit grey rows (`pitch` bytes apart): only the luma component is
   decoded, no colour conversion (tjDecompress2 to TJPF_GRAY, default flags). A warning (data that
   decodes with damage) returns -1 with tjGetErrorCode TJERR_WARNING and the picture filled. */
static inline int cturbojpeg_decompress_grey(tjhandle handle, const unsigned char *jpeg, unsigned long size,
                                             unsigned char *out, int width, int pitch, int height) {
    return tjDecompress2(handle, jpeg, size, out, width, pitch, height, TJPF_GRAY, 0);
}

/* TJERR_WARNING (0) or TJERR_FATAL (1) for the last error on `handle`. */
static inline int cturbojpeg_error_code(tjhandle handle) { return tjGetErrorCode(handle); }

static inline tjhandle cturbojpeg_init_decompress(void) { return tjInitDecompress(); }
static inline tjhandle cturbojpeg_init_compress(void) { return tjInitCompress(); }
static inline int cturbojpeg_destroy(tjhandle handle) { return tjDestroy(handle); }
/* The last error on `handle` (NULL: the last tjInitCompress failure). */
static inline const char *cturbojpeg_error(tjhandle handle) { return tjGetErrorStr2(handle); }
/* The largest JPEG a width x height image with `subsampling` can become. */
static inline unsigned long cturbojpeg_buffer_size(int width, int height, int subsampling) {
    return tjBufSize(width, height, subsampling);
}
#endif
