#ifndef CMICROHTTPD_H
#define CMICROHTTPD_H
// A C face over libmicrohttpd for Swift: the library's variadic calls (MHD_start_daemon,
// MHD_get_daemon_info, MHD_get_connection_info, MHD_set_connection_option) behind fixed-argument functions;
// everything else is the library's own.
#include <stddef.h>
#include <stdint.h>
#include <microhttpd.h>

/// Starts a daemon with its own polling thread and a thread per connection, at most
/// `connection_limit` connections (MHD_OPTION_CONNECTION_LIMIT), `per_ip_connection_limit` of them
/// from one client address (MHD_OPTION_PER_IP_CONNECTION_LIMIT; 0: no limit), each closed after
/// `connection_timeout_seconds` without a byte received or sent (MHD_OPTION_CONNECTION_TIMEOUT), serving on
/// `listen_fd` when it is >= 0 (an inherited socket; with MHD_USE_ITC, so MHD_quiesce_daemon can
/// take it back before MHD_stop_daemon, which would close it), else on
/// the numeric address `host` (IPv4 or IPv6, no names) and `port`. With `tls_key_pem` and
/// `tls_cert_pem` (PEM text, both or neither) it serves HTTPS (MHD_USE_TLS, MHD_OPTION_HTTPS_MEM_KEY
/// and MHD_OPTION_HTTPS_MEM_CERT; the library parses them before it returns). Returns NULL with
/// `*error` set: EINVAL for an address that is not numeric, ENOTSUP for TLS from a library built
/// without it, else the errno MHD_start_daemon left (EADDRINUSE, EACCES, …) or 0 when the library
/// gave none (a key or certificate it could not use, among others).
struct MHD_Daemon *cmhd_start_daemon(const char *host, uint16_t port, int listen_fd, unsigned connection_limit,
                                     unsigned per_ip_connection_limit, unsigned connection_timeout_seconds, size_t connection_memory_limit,
                                     const char *tls_key_pem, const char *tls_cert_pem,
                                     MHD_AccessHandlerCallback handler, void *handler_cls,
                                     MHD_RequestCompletedCallback completed, void *completed_cls, int *error);

/// Gives `connection` its own inactivity timeout in seconds, 0 for none (MHD_set_connection_option
/// with MHD_CONNECTION_OPTION_TIMEOUT, which restarts its timer); 1 when the library took it, else 0.
int cmhd_set_connection_timeout(struct MHD_Connection *connection, unsigned seconds);

/// Writes `connection`'s client address, numeric (`127.0.0.2`, `::1`), NUL-terminated, into `out`
/// (`size` bytes; 46 hold any) (MHD_get_connection_info with MHD_CONNECTION_INFO_CLIENT_ADDRESS,
/// then inet_ntop); 1 when written, else 0 (no address, not IPv4 or IPv6, or `out` too small).
int cmhd_client_address(struct MHD_Connection *connection, char *out, size_t size);

/// Writes the address `connection` arrived on, numeric and NUL-terminated, into `out` (`size`
/// bytes; 46 hold any), and its port into `*port` (MHD_get_connection_info with
/// MHD_CONNECTION_INFO_CONNECTION_FD, then getsockname and inet_ntop): the bound address, an
/// inherited socket's, or with a wildcard one (0.0.0.0, ::) the machine's address the client
/// connected to; an IPv4 address mapped into IPv6 (a dual-stack socket) is written as IPv4.
/// 1 when written, else 0.
int cmhd_local_address(struct MHD_Connection *connection, char *out, size_t size, uint16_t *port);

/// The port the daemon listens on (MHD_get_daemon_info with MHD_DAEMON_INFO_BIND_PORT); 0 if unknown.
uint16_t cmhd_bound_port(struct MHD_Daemon *daemon);

#endif
