#ifndef CMODBUS_SHIM_H
#define CMODBUS_SHIM_H
#include <errno.h>
#include <stdint.h>
#include <modbus.h>

/* The libmodbus calls syncscan makes, under one prefix. syncscan reads the sockets itself (its own
   poll(2) thread, MBAP framing); libmodbus only answers a whole request from its register map, on
   the socket given for that one reply. */

/* A TCP context that never connects or listens: only replies go through it. */
static inline modbus_t *cmodbus_new_replier(void) { return modbus_new_tcp("127.0.0.1", 502); }

static inline void cmodbus_free(modbus_t *ctx) { modbus_free(ctx); }

/* A register map starting at address 0 of each table. */
static inline modbus_mapping_t *cmodbus_mapping_new(unsigned int coils, unsigned int discrete_inputs,
                                                    unsigned int holding_registers, unsigned int input_registers) {
    return modbus_mapping_new_start_address(0, coils, 0, discrete_inputs, 0, holding_registers, 0, input_registers);
}

static inline void cmodbus_mapping_free(modbus_mapping_t *map) { modbus_mapping_free(map); }

/* modbus_reply on `socket` (then no socket again): the response's length, or -1 with errno set. */
static inline int cmodbus_reply(modbus_t *ctx, int socket, const uint8_t *request, int length, modbus_mapping_t *map) {
    modbus_set_socket(ctx, socket);
    int rc = modbus_reply(ctx, request, length, map);
    int saved = errno;
    modbus_set_socket(ctx, -1);
    errno = saved;
    return rc;
}

/* modbus_reply_exception on `socket` (then no socket again): the response's length, or -1 with errno set. */
static inline int cmodbus_reply_exception(modbus_t *ctx, int socket, const uint8_t *request, unsigned int exception) {
    modbus_set_socket(ctx, socket);
    int rc = modbus_reply_exception(ctx, request, exception);
    int saved = errno;
    modbus_set_socket(ctx, -1);
    errno = saved;
    return rc;
}

static inline const char *cmodbus_strerror(int code) { return modbus_strerror(code); }
static inline int cmodbus_errno(void) { return errno; }
/* The running library's version (its libmodbus_version_* constants). */
static inline void cmodbus_version(unsigned int *major, unsigned int *minor, unsigned int *micro) {
    *major = libmodbus_version_major;
    *minor = libmodbus_version_minor;
    *micro = libmodbus_version_micro;
}

#endif
