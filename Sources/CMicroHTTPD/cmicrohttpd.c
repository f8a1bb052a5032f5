#include "cmicrohttpd.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

struct MHD_Daemon *cmhd_start_daemon(const char *host, uint16_t port, int listen_fd, unsigned connection_limit,
                                     unsigned connection_timeout_seconds, size_t connection_memory_limit,
                                     MHD_AccessHandlerCallback handler, void *handler_cls,
                                     MHD_RequestCompletedCallback completed, void *completed_cls, int *error) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address = NULL;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (listen_fd >= 0) flags |= MHD_USE_ITC;  /* MHD_quiesce_daemon hands the inherited socket back before a stop */
    if (listen_fd < 0) {
        if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
            v4.sin_family = AF_INET;
            v4.sin_port = htons(port);
            address = (const struct sockaddr *)&v4;
        } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
            v6.sin6_family = AF_INET6;
            v6.sin6_port = htons(port);
            address = (const struct sockaddr *)&v6;
            flags |= MHD_USE_IPv6;
        } else {
            *error = EINVAL;
            return NULL;
        }
    }
    errno = 0;
    struct MHD_Daemon *daemon;
    if (listen_fd >= 0) {
        daemon = MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                                  MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                                  MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                  MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                                  MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                                  MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                                  MHD_OPTION_END);
    } else {
        daemon = MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                                  MHD_OPTION_SOCK_ADDR, address,
                                  MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                  MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                                  MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                                  MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                                  MHD_OPTION_END);
    }
    if (daemon == NULL) *error = errno;
    return daemon;
}

uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
