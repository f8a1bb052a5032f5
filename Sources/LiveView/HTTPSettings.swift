import Foundation
import ConfigurationKeys
import HTTP

/// The live view's HTTP server: where it listens, who may connect, what the preview costs (`http.*`).
public struct HTTPSettings: Sendable, Hashable, ConfigurationSection {
    /// `http.listen`: a loopback address unless `allowRemote` with a `passwordFile`.
    public var listen: HTTPListenAddress
    /// `http.allow_remote`: a non-loopback `listen` is allowed (with a password).
    public var allowRemote = false
    /// `http.password_file`: HTTP Basic is required, with this file's first line as the password
    /// (any user name).
    public var passwordFile: String?
    /// `http.tls_cert_file` and `http.tls_key_file` (both or neither): HTTPS with this PEM
    /// certificate chain and private key, read at start and at each reload.
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    /// `http.max_connections`: requests served at once (streams not included); more get 503.
    public var maxConnections = 16
    /// `http.max_streams`: `/stream.mjpeg` and `/events` viewers at once, in slots of their own
    /// beside `maxConnections`; more get 503 while requests are still answered.
    public var maxStreams = 8
    /// `http.stream_idle_timeout_seconds`: a stream whose client takes no bytes for this long is
    /// closed (logged with the client's address). Above the 10 s in which a stalled source's
    /// `/stream.mjpeg` repeats its last picture.
    public var streamIdleTimeoutSeconds = 30
    /// `http.max_connections_per_address`: connections one client address may hold at once (half-sent
    /// requests and idle ones included); more are closed at once.
    public var maxConnectionsPerAddress = 12
    /// `http.allowed_hosts`: names the server is reached by besides its address and `localhost`
    /// (a reverse proxy's, a DNS name of this machine); a request naming any other in `Host` or
    /// `Origin` is refused.
    public var allowedHosts: [HTTPAllowedHost] = []
    /// `http.preview_fps`, `http.preview_width`.
    public var liveView = LiveViewSettings()

    public init(listen: HTTPListenAddress) { self.listen = listen }

    /// Reads `http.*` (given `keys.scoped(to: "http")`); every key is read (so each is known)
    /// whether or not `http.listen` is set. `nil`: no `http.listen`, no server.
    public init?(reading keys: ConfigurationKeyReader) {
        let form = "ADDRESS:PORT with a numeric address (127.0.0.1:8080, [::1]:8080, localhost:8080)"
        var listen: HTTPListenAddress?
        if let text = keys.string("listen", form) {
            listen = HTTPListenAddress(parsing: text)
            if listen == nil { keys.problem("listen", "\"\(text)\" is not \(form)") }
        }
        self.init(listen: listen ?? HTTPListenAddress(host: "127.0.0.1", port: 0))
        if let v = keys.bool("allow_remote") { allowRemote = v }
        passwordFile = keys.filePath("password_file")
        tlsCertificateFile = keys.filePath("tls_cert_file", "a file path (PEM certificate chain)")
        tlsKeyFile = keys.filePath("tls_key_file", "a file path (PEM private key)")
        if (tlsCertificateFile == nil) != (tlsKeyFile == nil) {
            let (set, unset) = tlsKeyFile == nil ? ("tls_cert_file", "tls_key_file") : ("tls_key_file", "tls_cert_file")
            keys.problem(set, "\(keys.fullKey(set)) is set but \(keys.fullKey(unset)) is not: HTTPS needs both the certificate and its private key")
        }
        for entry in keys.list("allowed_hosts", of: "a list of host names, each optionally with :PORT") ?? [] {
            if let host = HTTPAllowedHost(parsing: entry) { allowedHosts.append(host); continue }
            keys.problem("allowed_hosts", "\"\(entry)\" is not a host name with an optional port: give NAME or NAME:PORT, "
                         + "without a scheme or a path (camera.example.com, camera.example.com:8443, 192.0.2.7, [2001:db8::7]:8080)")
        }
        liveView = LiveViewSettings(reading: keys)
        if let v = keys.int("max_connections", in: 1...1024, " (requests served at once, streams not included; more get 503)") {
            maxConnections = v
        }
        if let v = keys.int("max_streams", in: 1...1024, " (/stream.mjpeg and /events viewers at once; more get 503)") { maxStreams = v }
        if let v = keys.int("stream_idle_timeout_seconds", in: 15...3600,
                            " (a stream whose client takes nothing for this long is closed; a stalled source repeats its picture every 10 s)") {
            streamIdleTimeoutSeconds = v
        }
        if let v = keys.int("max_connections_per_address", in: 1...1024, " (connections one client address may hold; more are closed)") {
            maxConnectionsPerAddress = v
        }
        guard let listen else { return nil }
        // Read again when the server starts (a reload serves a renewed certificate); checked here
        // too, so `check-config` names them and a run that ends before the server starts still does.
        for (key, path) in [("password_file", passwordFile), ("tls_cert_file", tlsCertificateFile), ("tls_key_file", tlsKeyFile)] {
            guard let path, !FileManager.default.isReadableFile(atPath: path) else { continue }
            let why = FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
            keys.problem(key, "\(keys.fullKey(key)) \(path) cannot be read (\(why)): make the file readable by the service")
        }
        if !listen.isLoopback {
            let (remote, password) = (keys.fullKey("allow_remote"), keys.fullKey("password_file"))
            if !allowRemote {
                keys.problem("listen", "\(listen) is not a loopback address: listen on 127.0.0.1, or set \(remote): true "
                             + "and \(password) (HTTP Basic) to serve other machines")
            } else if passwordFile == nil {
                keys.problem("listen", "\(listen) is not a loopback address and \(password) is not set: other machines "
                             + "would see the camera without a password; set \(password)")
            }
        }
    }
}
