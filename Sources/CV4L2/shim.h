#ifndef CV4L2_SHIM_H
#define CV4L2_SHIM_H
/* Header-only shim over libv4l2: Swift cannot call variadic functions (v4l2_open,
 * v4l2_ioctl) nor expand function-like macros (VIDIOC_*, MAP_FAILED),
 * so each request gets a prefixed static inline wrapper. Errors: -1 (NULL for mmap)
 * with errno set, exactly as libv4l2 reports them. */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <libv4l2.h>
#include <linux/videodev2.h>

static inline int cv4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
static inline int cv4l2_close(int fd) { return v4l2_close(fd); }

/* Maps buffer `offset` of `fd` read/write shared; NULL (not MAP_FAILED) on failure. */
static inline void *cv4l2_mmap(size_t length, int fd, int64_t offset) {
    void *p = v4l2_mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
    return p == MAP_FAILED ? NULL : p;
}
static inline int cv4l2_munmap(void *address, size_t length) { return v4l2_munmap(address, length); }

static inline int cv4l2_querycap(int fd, struct v4l2_capability *c) { return v4l2_ioctl(fd, VIDIOC_QUERYCAP, c); }
static inline int cv4l2_enum_fmt(int fd, struct v4l2_fmtdesc *f) { return v4l2_ioctl(fd, VIDIOC_ENUM_FMT, f); }
static inline int cv4l2_s_fmt(int fd, struct v4l2_format *f) { return v4l2_ioctl(fd, VIDIOC_S_FMT, f); }
static inline int cv4l2_reqbufs(int fd, struct v4l2_requestbuffers *r) { return v4l2_ioctl(fd, VIDIOC_REQBUFS, r); }
static inline int cv4l2_querybuf(int fd, struct v4l2_buffer *b) { return v4l2_ioctl(fd, VIDIOC_QUERYBUF, b); }
static inline int cv4l2_qbuf(int fd, struct v4l2_buffer *b) { return v4l2_ioctl(fd, VIDIOC_QBUF, b); }
static inline int cv4l2_dqbuf(int fd, struct v4l2_buffer *b) { return v4l2_ioctl(fd, VIDIOC_DQBUF, b); }
static inline int cv4l2_streamon(int fd, int type) { return v4l2_ioctl(fd, VIDIOC_STREAMON, &type); }
static inline int cv4l2_streamoff(int fd, int type) { return v4l2_ioctl(fd, VIDIOC_STREAMOFF, &type); }
static inline int cv4l2_enum_framesizes(int fd, struct v4l2_frmsizeenum *s) { return v4l2_ioctl(fd, VIDIOC_ENUM_FRAMESIZES, s); }
static inline int cv4l2_enum_frameintervals(int fd, struct v4l2_frmivalenum *i) { return v4l2_ioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, i); }
static inline int cv4l2_g_parm(int fd, struct v4l2_streamparm *p) { return v4l2_ioctl(fd, VIDIOC_G_PARM, p); }
static inline int cv4l2_s_parm(int fd, struct v4l2_streamparm *p) { return v4l2_ioctl(fd, VIDIOC_S_PARM, p); }

/* Controls. VIDIOC_QUERY_EXT_CTRL is passed as is; the packed structures with unions of
 * VIDIOC_QUERYMENU and VIDIOC_G/S_EXT_CTRLS (one control, the current value) are filled here,
 * so Swift sees plain integers. `is64`: the control is V4L2_CTRL_TYPE_INTEGER64 (value64). */
static inline int cv4l2_query_ext_ctrl(int fd, struct v4l2_query_ext_ctrl *q) { return v4l2_ioctl(fd, VIDIOC_QUERY_EXT_CTRL, q); }
static inline int cv4l2_querymenu_item(int fd, uint32_t id, uint32_t index, char name[32], int64_t *value) {
    struct v4l2_querymenu m = { .id = id, .index = index };
    int r = v4l2_ioctl(fd, VIDIOC_QUERYMENU, &m);
    if (r == 0) { memcpy(name, m.name, 32); *value = m.value; }
    return r;
}
static inline int cv4l2_g_ext_ctrl(int fd, uint32_t id, int is64, int64_t *value) {
    struct v4l2_ext_control c = { .id = id };
    struct v4l2_ext_controls cs = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 1, .controls = &c };
    int r = v4l2_ioctl(fd, VIDIOC_G_EXT_CTRLS, &cs);
    if (r == 0) *value = is64 ? c.value64 : c.value;
    return r;
}
static inline int cv4l2_s_ext_ctrl(int fd, uint32_t id, int is64, int64_t value) {
    struct v4l2_ext_control c = { .id = id };
    if (is64) c.value64 = value; else c.value = (int32_t)value;
    struct v4l2_ext_controls cs = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 1, .controls = &c };
    return v4l2_ioctl(fd, VIDIOC_S_EXT_CTRLS, &cs);
}

#endif
