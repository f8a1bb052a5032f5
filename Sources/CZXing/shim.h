#ifndef CZXING_SHIM_H
#define CZXING_SHIM_H
/* zxing-cpp 3.1.1's own C API (built with ZXING_C_API=ON by scripts/setup.sh, linked statically):
 * Swift imports it as C; the ZXing module is the only one that imports this module. */
#include <ZXing/ZXingC.h>
#endif
