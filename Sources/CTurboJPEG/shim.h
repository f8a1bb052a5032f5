#ifndef CTURBOJPEG_SHIM_H
#define CTURBOJPEG_SHIM_H
#include <turbojpeg.h>

/* The TurboJPEG calls syncscan makes, under one prefix, with the output buffer preallocated
   (TJFLAG_NOREALLOC): libturbojpeg never reallocates what the caller owns. */

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

static inline tjhandle cturbojpeg_init_compress(void) { return tjInitCompress(); }
static inline int cturbojpeg_destroy(tjhandle handle) { return tjDestroy(handle); }
/* The last error on `handle` (NULL: the last tjInitCompress failure). */
static inline const char *cturbojpeg_error(tjhandle handle) { return tjGetErrorStr2(handle); }
/* The largest JPEG a width x height image with `subsampling` can become. */
static inline unsigned long cturbojpeg_buffer_size(int width, int height, int subsampling) {
    return tjBufSize(width, height, subsampling);
}
#endif
