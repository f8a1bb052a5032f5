#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H
#include <errno.h>
#include <stdbool.h>
#include <mosquitto.h>

/* The libmosquitto calls syncscan makes, under one prefix. Callbacks get the `obj` pointer given
   to cmosq_new (the owning Swift client, unretained); they run inside cmosq_loop, on the thread
   that calls it. */

typedef void (*cmosq_status_callback)(struct mosquitto *, void *, int);

static inline int cmosq_lib_init(void) { return mosquitto_lib_init(); }

static inline struct mosquitto *cmosq_new(const char *id, bool clean_session, void *obj) {
    return mosquitto_new(id, clean_session, obj);
}

static inline void cmosq_destroy(struct mosquitto *mosq) { mosquitto_destroy(mosq); }

static inline int cmosq_will_set(struct mosquitto *mosq, const char *topic, int length, const void *payload, int qos,
                                 bool retain) {
    return mosquitto_will_set(mosq, topic, length, payload, qos, retain);
}

static inline int cmosq_username_pw_set(struct mosquitto *mosq, const char *username, const char *password) {
    return mosquitto_username_pw_set(mosq, username, password);
}

/* Server verification against the CA certificates in `cafile` (no client certificate). */
static inline int cmosq_tls_set(struct mosquitto *mosq, const char *cafile) {
    return mosquitto_tls_set(mosq, cafile, NULL, NULL, NULL, NULL);
}

static inline int cmosq_connect_async(struct mosquitto *mosq, const char *host, int port, int keepalive) {
    return mosquitto_connect_async(mosq, host, port, keepalive);
}

static inline int cmosq_disconnect(struct mosquitto *mosq) { return mosquitto_disconnect(mosq); }

static inline int cmosq_publish(struct mosquitto *mosq, int *mid, const char *topic, int length, const void *payload,
                                int qos, bool retain) {
    return mosquitto_publish(mosq, mid, topic, length, payload, qos, retain);
}

/* SUBSCRIBE to one topic filter; its SUBACK comes to the subscribe callback with the same mid. */
static inline int cmosq_subscribe(struct mosquitto *mosq, int *mid, const char *topic, int qos) {
    return mosquitto_subscribe(mosq, mid, topic, qos);
}

static inline int cmosq_loop(struct mosquitto *mosq, int timeout_ms) { return mosquitto_loop(mosq, timeout_ms, 1); }

/* The connection's socket (-1 when there is none), and whether libmosquitto has bytes to send on it:
   what mosquitto_loop's own select() waits for, so a caller can wait in its own poll(). */
static inline int cmosq_socket(struct mosquitto *mosq) { return mosquitto_socket(mosq); }
static inline bool cmosq_want_write(struct mosquitto *mosq) { return mosquitto_want_write(mosq); }

static inline void cmosq_set_callbacks(struct mosquitto *mosq, cmosq_status_callback on_connect,
                                       cmosq_status_callback on_disconnect, cmosq_status_callback on_publish) {
    mosquitto_connect_callback_set(mosq, on_connect);
    mosquitto_disconnect_callback_set(mosq, on_disconnect);
    mosquitto_publish_callback_set(mosq, on_publish);
}

typedef void (*cmosq_message_callback)(struct mosquitto *, void *, const struct mosquitto_message *);
typedef void (*cmosq_subscribe_callback)(struct mosquitto *, void *, int, int, const int *);

/* A message from a subscription (after its QoS flow completed), and a SUBACK. */
static inline void cmosq_set_subscription_callbacks(struct mosquitto *mosq, cmosq_message_callback on_message,
                                                    cmosq_subscribe_callback on_subscribe) {
    mosquitto_message_callback_set(mosq, on_message);
    mosquitto_subscribe_callback_set(mosq, on_subscribe);
}

static inline const char *cmosq_strerror(int code) { return mosquitto_strerror(code); }
static inline const char *cmosq_connack_string(int code) { return mosquitto_connack_string(code); }
static inline int cmosq_errno(void) { return errno; }

#endif
