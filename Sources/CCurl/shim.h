#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#include <stddef.h>
#include <curl/curl.h>

/* The libcurl calls syncscan makes, under one prefix. curl_easy_setopt and curl_easy_getinfo are
   variadic (Swift cannot call them): each option syncscan sets has its own fixed-argument
   function here. One easy handle is used by one thread at a time. */

static inline CURLcode ccurl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
static inline const char *ccurl_version(void) { return curl_version(); }
static inline const char *ccurl_strerror(CURLcode code) { return curl_easy_strerror(code); }

static inline CURL *ccurl_easy_init(void) { return curl_easy_init(); }
static inline void ccurl_easy_cleanup(CURL *handle) { curl_easy_cleanup(handle); }
static inline CURLcode ccurl_easy_perform(CURL *handle) { return curl_easy_perform(handle); }

/* The response body is read and thrown away (libcurl's default writes it to stdout). */
static inline size_t ccurl_discard_body(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
}

/* What every request of a handle shares: no signals (a thread of a daemon), only http and https,
   the body discarded, `error_buffer` (CURL_ERROR_SIZE bytes) filled with the details of a failure. */
static inline CURLcode ccurl_setup(CURL *handle, char *error_buffer) {
    CURLcode code;
    if ((code = curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L)) != CURLE_OK) return code;
    if ((code = curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https")) != CURLE_OK) return code;
    if ((code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, ccurl_discard_body)) != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_buffer);
}

static inline CURLcode ccurl_set_url(CURL *handle, const char *url) { return curl_easy_setopt(handle, CURLOPT_URL, url); }

/* A POST of `length` bytes at `body` (copied by libcurl). */
static inline CURLcode ccurl_set_post_body(CURL *handle, const void *body, long length) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, length);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, body);
}

static inline CURLcode ccurl_set_headers(CURL *handle, struct curl_slist *headers) {
    return curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
}

/* The whole request's limit and the connection's (milliseconds). */
static inline CURLcode ccurl_set_timeouts(CURL *handle, long total_ms, long connect_ms) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, total_ms);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
}

/* CA certificates (PEM) verifying an https server instead of the system's store; NULL: the store. */
static inline CURLcode ccurl_set_ca_file(CURL *handle, const char *path) { return curl_easy_setopt(handle, CURLOPT_CAINFO, path); }

static inline CURLcode ccurl_response_code(CURL *handle, long *status) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, status);
}

/* The server's Retry-After in seconds (a date is turned into seconds from now); 0 when absent. */
static inline CURLcode ccurl_retry_after(CURL *handle, curl_off_t *seconds) {
    return curl_easy_getinfo(handle, CURLINFO_RETRY_AFTER, seconds);
}

static inline struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *text) { return curl_slist_append(list, text); }
static inline void ccurl_slist_free_all(struct curl_slist *list) { curl_slist_free_all(list); }

#endif
