import SystemPackage

/// A libmicrohttpd call failed: which call, the errno or the library's reason, and what to do.
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The libmicrohttpd function that failed (`MHD_start_daemon`).
    public var call: String
    /// The errno the call left, when it left one.
    public var errno: Errno?
    public var reason: String

    public init(call: String, errno: Errno? = nil, reason: String) {
        (self.call, self.errno, self.reason) = (call, errno, reason)
    }

    /// What to do about it.
    public var advice: String {
        switch errno {
        case .addressInUse?: "another program listens on that port: choose another port in http.listen (--http)"
        case .permissionDenied?: "ports below 1024 need privileges: choose a port from 1024 up in http.listen (--http)"
        case .invalidArgument?: "http.listen (--http) must be a numeric address and port: 127.0.0.1:8080 or [::1]:8080"
        case .addressNotAvailable?: "that address is not one of this machine's: check http.listen (--http)"
        case .notSupported?: "install a libmicrohttpd built with GnuTLS (Debian's is), or leave http.tls_cert_file and http.tls_key_file out"
        default: "check http.listen (--http) and the log above"
        }
    }

    public var description: String {
        "\(call) failed: \(reason)\(errno.map { " (\($0))" } ?? ""); \(advice)"
    }
}
