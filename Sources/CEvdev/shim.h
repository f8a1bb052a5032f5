#ifndef CEVDEV_SHIM_H
#define CEVDEV_SHIM_H
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/input.h>
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>

/* The libevdev calls syncscan makes, under one prefix. libevdev reports failures as a negative
   errno in its return value (not -1 and errno); the Swift side turns them into Errno. */

/* A device description with nothing enabled (libevdev_new); NULL when out of memory. */
static inline struct libevdev *cevdev_new(void) { return libevdev_new(); }
static inline void cevdev_free(struct libevdev *dev) { libevdev_free(dev); }
/* The description of the device open on `fd` (libevdev_new_from_fd): 0 or a negative errno. */
static inline int cevdev_new_from_fd(int fd, struct libevdev **dev) { return libevdev_new_from_fd(fd, dev); }
static inline void cevdev_set_name(struct libevdev *dev, const char *name) { libevdev_set_name(dev, name); }
static inline const char *cevdev_get_name(const struct libevdev *dev) { return libevdev_get_name(dev); }
static inline int cevdev_enable_event_type(struct libevdev *dev, unsigned int type) {
    return libevdev_enable_event_type(dev, type);
}
/* A code without extra data (keys; not EV_ABS, EV_REP). */
static inline int cevdev_enable_event_code(struct libevdev *dev, unsigned int type, unsigned int code) {
    return libevdev_enable_event_code(dev, type, code, NULL);
}
static inline int cevdev_has_event_code(const struct libevdev *dev, unsigned int type, unsigned int code) {
    return libevdev_has_event_code(dev, type, code);
}

/* The next event in normal mode, or -EAGAIN when none is waiting on a non-blocking fd
   (libevdev_next_event); 1 (LIBEVDEV_READ_STATUS_SYNC) after a SYN_DROPPED. */
static inline int cevdev_next_event(struct libevdev *dev, unsigned int *type, unsigned int *code, int *value) {
    struct input_event ev;
    int rc = libevdev_next_event(dev, LIBEVDEV_READ_FLAG_NORMAL, &ev);
    if (rc >= 0) { *type = ev.type; *code = ev.code; *value = ev.value; }
    return rc;
}
/* Drains the events of a sync after SYN_DROPPED (libevdev_next_event with LIBEVDEV_READ_FLAG_SYNC):
   1 while there are more, -EAGAIN when done. */
static inline int cevdev_next_sync_event(struct libevdev *dev) {
    struct input_event ev;
    return libevdev_next_event(dev, LIBEVDEV_READ_FLAG_SYNC, &ev);
}

/* The code of `name` (KEY_F12, BTN_0) for `type`, or -1 (libevdev_event_code_from_name). */
static inline int cevdev_event_code_from_name(unsigned int type, const char *name) {
    return libevdev_event_code_from_name(type, name);
}
static inline const char *cevdev_event_code_get_name(unsigned int type, unsigned int code) {
    return libevdev_event_code_get_name(type, code);
}

/* A uinput device like `dev` through `uinput_fd`, an open /dev/uinput the caller keeps and closes
   after libevdev_uinput_destroy (libevdev_uinput_create_from_device): 0 or a negative errno. */
static inline int cevdev_uinput_create(const struct libevdev *dev, int uinput_fd, struct libevdev_uinput **uinput) {
    return libevdev_uinput_create_from_device(dev, uinput_fd, uinput);
}
static inline void cevdev_uinput_destroy(struct libevdev_uinput *uinput) { libevdev_uinput_destroy(uinput); }
static inline int cevdev_uinput_write_event(const struct libevdev_uinput *uinput, unsigned int type, unsigned int code,
                                            int value) {
    return libevdev_uinput_write_event(uinput, type, code, value);
}
/* The /dev/input/eventN node of the created device, or NULL when it cannot be told. */
static inline const char *cevdev_uinput_devnode(struct libevdev_uinput *uinput) {
    return libevdev_uinput_get_devnode(uinput);
}
#endif
