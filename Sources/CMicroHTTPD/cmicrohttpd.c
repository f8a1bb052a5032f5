#include "cmicrohttpd.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

struct MHD_Daemon *cmhd_start_daemon(const char *host, uint16_t port, int listen_fd, unsigned connection_limit,
                                     unsigned per_ip_connection_limit, unsigned connection_timeout_seconds, size_t connection_memory_limit,
                                     const char *tls_key_pem, const char *tls_cert_pem,
                                     MHD_AccessHandlerCallback handler, void *handler_cls,
                                     MHD_RequestCompletedCallback completed, void *completed_cls, int *error) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct MHD_OptionItem options[9];
    int count = 0;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (listen_fd >= 0) {
        flags |= MHD_USE_ITC;  /* MHD_quiesce_daemon hands the inherited socket back before a stop */
        options[count++] = (struct MHD_OptionItem){MHD_OPTION_LISTEN_SOCKET, (intptr_t)listen_fd, NULL};
    } else if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        options[count++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, &v4};
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        options[count++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, &v6};
        flags |= MHD_USE_IPv6;
    } else {
        *error = EINVAL;
        return NULL;
    }
    if (tls_key_pem != NULL && tls_cert_pem != NULL) {
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
            *error = ENOTSUP;
            return NULL;
        }
        flags |= MHD_USE_TLS;
        options[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls_key_pem};
        options[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_cert_pem};
    }
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, (intptr_t)connection_limit, NULL};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)per_ip_connection_limit, NULL};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)connection_timeout_seconds, NULL};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)connection_memory_limit, NULL};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls};
    options[count] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    errno = 0;
    struct MHD_Daemon *daemon = MHD_start_daemon(flags, listen_fd >= 0 ? 0 : port, NULL, NULL, handler, handler_cls,
                                                 MHD_OPTION_ARRAY, options, MHD_OPTION_END);
    if (daemon == NULL) *error = errno;
    return daemon;
}

uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

int cmhd_set_connection_timeout(struct MHD_Connection *connection, unsigned seconds) {
    return MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds) == MHD_YES;
}

int cmhd_client_address(struct MHD_Connection *connection, char *out, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, out, (socklen_t)size) != NULL;
    }
    if (address->sa_family == AF_INET6) {
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, out, (socklen_t)size) != NULL;
    }
    return 0;
}

int cmhd_local_address(struct MHD_Connection *connection, char *out, size_t size, uint16_t *port) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info == NULL) return 0;
    struct sockaddr_storage local;
    socklen_t length = sizeof local;
    memset(&local, 0, sizeof local);
    if (getsockname(info->connect_fd, (struct sockaddr *)&local, &length) != 0) return 0;
    if (local.ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)&local;
        *port = ntohs(v4->sin_port);
        return inet_ntop(AF_INET, &v4->sin_addr, out, (socklen_t)size) != NULL;
    }
    if (local.ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&local;
        *port = ntohs(v6->sin6_port);
        if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {  /* an IPv4 client on a dual-stack socket */
            return inet_ntop(AF_INET, &v6->sin6_addr.s6_addr[12], out, (socklen_t)size) != NULL;
        }
        return inet_ntop(AF_INET6, &v6->sin6_addr, out, (socklen_t)size) != NULL;
    }
    return 0;
}
