#ifndef CZBAR_SHIM_H
#define CZBAR_SHIM_H
#include <zbar.h>

/* zbar_fourcc() is a macro; Swift cannot import it. */
static inline unsigned long czbar_fourcc(char a, char b, char c, char d) {
    return zbar_fourcc(a, b, c, d);
}
#endif
