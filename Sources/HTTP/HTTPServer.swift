import CMicroHTTPD
import Glibc
import Logging
import SystemCalls
import SystemPackage

/// An HTTP/1.1 server on libmicrohttpd: every request is answered by `handler` on the
/// connection's own thread (libmicrohttpd's thread per connection), never on Swift's concurrency
/// pool.
///
/// Owns the `MHD_Daemon`: `start()` issues `MHD_start_daemon` (which starts the library's
/// listening thread), `stop()` and `deinit` `MHD_stop_daemon`.
///
/// Requests and streams have slots of their own: beyond `maxConnections` requests in flight a
/// request gets 503 at once, and beyond `maxStreams` open streams a request whose answer is a
/// stream (`HTTPResponse.Body.stream`) gets 503 instead (its stream closed unread), so viewers
/// holding every stream slot leave every request slot to the others (`/metrics`, `/status`). A
/// request counts as one until its stream starts, then as a stream until its connection ends.
/// Malformed requests (oversized headers, a bad request line, a truncated request) are answered by
/// the library itself (400, 431) or closed. Slow clients cannot shut it: a connection that sends
/// nothing for `timeouts.requestSeconds` before its response starts (half a request, or an idle
/// kept-alive connection) is closed; a stream's connection that sends nothing for
/// `timeouts.streamSeconds` (a client that takes no bytes) is closed and logged with the client's
/// address; one client address holds at most `maxConnectionsPerAddress` connections (more are
/// closed at once); and the library accepts `maxConnections + maxStreams + maxConnectionsPerAddress`
/// in all, so streams in every slot and one address holding its whole quota still leave
/// `maxConnections` for the others. A stream is read through `MHD_create_response_from_callback`
/// while the client reads; `stop()` closes every open stream before it waits for the connections'
/// threads.
///
/// Before any handler runs, a request must name this server (`servedHosts`): a `Host` it does not
/// serve (or none, from an HTTP/1.1 client) gets 421 and an `Origin` of another site 403, on every
/// path. So a page of another site can neither reach it through a name rebound to its address
/// (DNS rebinding: the browser then sends the page's own name as `Host`) nor have a browser send it
/// requests of its own (cross-site requests: the browser names the page in `Origin`).
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The `MHD_Daemon` and the PEM copies it was given, handed between threads only under the
    /// state's lock; the copies are freed after `MHD_stop_daemon`.
    private struct Daemon: @unchecked Sendable {  // unchecked: C pointers (the MHD daemon, PEM copies), moved only under the state's lock
        let pointer: OpaquePointer
        let pem: [UnsafeMutablePointer<CChar>]
    }

    private struct State {
        var daemon: Daemon?
        /// Requests being answered, not counting those whose stream has started.
        var inFlight = 0
        /// The open streams: their count is the stream slots taken.
        var streams: [ObjectIdentifier: any HTTPStream] = [:]
        var stopped = false
    }

    /// Where it listens; ignored with `listenDescriptor`.
    public let address: HTTPListenAddress
    /// An inherited listening socket (systemd socket activation) served instead of `address`.
    public let listenDescriptor: FileDescriptor?
    /// Requests answered at once (a stream's request until its stream starts); more get 503.
    public let maxConnections: Int
    /// Streams open at once, besides `maxConnections`; a request whose answer would be one more gets 503.
    public let maxStreams: Int
    /// Connections one client address may hold at once, requests half-sent and idle included.
    public let maxConnectionsPerAddress: Int
    public let timeouts: HTTPTimeouts
    /// The key and certificate it serves HTTPS with; `nil`: plain HTTP.
    public let tls: TLSCredentials?
    /// The `Host` headers and `Origin`s it answers; any other gets 421 (`Host`) or 403 (`Origin`).
    public let servedHosts: HTTPServedHosts
    private let logger: Logger
    private let handler: Handler
    private let state = LockedValue(State())

    /// Bytes of a connection's request (line and headers) libmicrohttpd accepts; more gets 431.
    static let requestMemoryLimit = 32 * 1024

    public init(address: HTTPListenAddress, listenDescriptor: FileDescriptor? = nil, maxConnections: Int, maxStreams: Int = 8,
                maxConnectionsPerAddress: Int = 12, timeouts: HTTPTimeouts = HTTPTimeouts(), tls: TLSCredentials? = nil,
                allowedHosts: [HTTPAllowedHost] = [], logger: Logger, handler: @escaping Handler) {
        self.address = address
        self.listenDescriptor = listenDescriptor
        self.maxConnections = max(1, maxConnections)
        self.maxStreams = max(1, maxStreams)
        self.maxConnectionsPerAddress = max(1, maxConnectionsPerAddress)
        self.timeouts = timeouts
        self.tls = tls
        servedHosts = HTTPServedHosts(allowed: allowedHosts)
        self.logger = logger
        self.handler = handler
    }

    deinit { stop() }

    /// Starts listening (`MHD_start_daemon`, through the shim's fixed-argument `cmhd_start_daemon`),
    /// with TLS when `tls` is set.
    public func start() throws(HTTPError) {
        var error: Int32 = 0
        let context = Unmanaged.passUnretained(self).toOpaque()
        let pem = tls.map { [strdup($0.keyPEM), strdup($0.certificatePEM)].compactMap { $0 } } ?? []
        if tls != nil && pem.count != 2 {  // out of memory: never fall back to plain HTTP
            pem.forEach { free($0) }
            throw HTTPError(call: "strdup", errno: .noMemory, reason: "cannot copy the TLS key and certificate")
        }
        // The library's own cap sits above our two by one address's quota: past ours requests and
        // streams are still told 503, and with every stream slot taken and one address holding its
        // quota (half-sent requests) the request slots are left to the others.
        let daemon = cmhd_start_daemon(address.host, UInt16(clamping: address.port), listenDescriptor?.rawValue ?? -1,
                                       UInt32(maxConnections + maxStreams + maxConnectionsPerAddress), UInt32(maxConnectionsPerAddress),
                                       timeouts.requestSeconds, Self.requestMemoryLimit,
                                       pem.first, pem.last,
                                       accessHandler, context, requestCompleted, context, &error)
        guard let daemon else {
            pem.forEach { free($0) }
            let place = listenDescriptor.map { "inherited socket \($0.rawValue)" } ?? address.description
            if error == ENOTSUP {
                throw HTTPError(call: "MHD_start_daemon", errno: Errno(rawValue: error),
                                reason: "cannot serve HTTPS on \(place): this libmicrohttpd was built without TLS")
            }
            throw HTTPError(call: "MHD_start_daemon", errno: error == 0 ? nil : Errno(rawValue: error),
                            reason: tls == nil ? "cannot listen on \(place)"
                                : "cannot serve HTTPS on \(place) (is the address free, and are the key and certificate PEM files that match?)")
        }
        let started = Daemon(pointer: daemon, pem: pem)
        state.withLock { $0.daemon = started; $0.stopped = false }
    }

    /// The port it listens on (the one picked for port 0); `nil` before `start()`.
    public var port: Int? {
        guard let daemon = state.withLock({ $0.daemon }) else { return nil }
        return Int(cmhd_bound_port(daemon.pointer))
    }

    /// Closes every stream, then stops the daemon and waits for its threads (`MHD_stop_daemon`;
    /// first `MHD_quiesce_daemon` with an inherited socket, which stays open for a later server).
    /// Blocking: call it off the concurrency pool. Safe to call more than once.
    public func stop() {
        let (daemon, streams) = state.withLock { state in
            state.stopped = true
            defer { state.daemon = nil }
            return (state.daemon, Array(state.streams.values))
        }
        for stream in streams { stream.close() }
        guard let daemon else { return }
        if listenDescriptor != nil { _ = MHD_quiesce_daemon(daemon.pointer) }
        MHD_stop_daemon(daemon.pointer)
        daemon.pem.forEach { free($0) }
    }

    /// The first call for a request: counts it, refuses it when it does not name this server
    /// (`servedHosts`), else asks the handler, and queues the response. The request's `Admission`
    /// is its context (`con_cls`) until the library reports it completed.
    fileprivate func answer(_ connection: OpaquePointer, method: String, path: String, version: String,
                            context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard context.pointee == nil else { return .YES }  // the request's body: ignored (answered already)
        let admission = Admission()
        context.pointee = Unmanaged.passRetained(admission).toOpaque()
        let (admitted, stopped) = state.withLock { state in
            state.inFlight += 1
            return (state.inFlight <= maxConnections, state.stopped)
        }
        guard admitted, !stopped else {
            return queue(.text("503 too many connections (http.max_connections)", status: 503, headers: [("Retry-After", "5")]),
                         on: connection, admission: admission)
        }
        let (host, origin) = (Self.header("Host", of: connection), Self.header("Origin", of: connection))
        if let refusal = servedHosts.refusal(host: host, origin: origin, version: version, local: Self.localAddress(connection)) {
            return queue(refusal, on: connection, admission: admission)
        }
        let response = handler(HTTPRequest(method: method, path: path, basicCredentials: Self.credentials(connection),
                                           host: host, origin: origin))
        return queue(response, on: connection, admission: admission)
    }

    /// The library is done with a request (`MHD_OPTION_NOTIFY_COMPLETED`): its slot is freed (a
    /// stream's when the library releases the stream), and a stream closed at its timeout is logged.
    fileprivate func completed(_ connection: OpaquePointer?, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                               reason: MHD_RequestTerminationCode) {
        guard let context, let raw = context.pointee else { return }
        context.pointee = nil
        let admission = Unmanaged<Admission>.fromOpaque(raw).takeRetainedValue()
        guard admission.streaming else {
            state.withLock { $0.inFlight -= 1 }
            return
        }
        if reason == .REQUEST_TERMINATED_TIMEOUT_REACHED {
            logger.notice("stream closed: nothing sent for the stream timeout (the client took no bytes, or the stream had none)",
                          metadata: ["client": "\(LogText.untrusted(connection.flatMap(Self.clientAddress) ?? "unknown"))",
                                     "seconds": "\(timeouts.streamSeconds)"])
        }
    }

    /// A stream's response was released by the library (or could not be made): its slot is freed
    /// and the stream closed.
    func streamEnded(_ stream: any HTTPStream) {
        state.withLock { _ = $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
        stream.close()
    }

    /// The `Authorization: Basic` credentials (`MHD_basic_auth_get_username_password`).
    private static func credentials(_ connection: OpaquePointer) -> BasicCredentials? {
        var password: UnsafeMutablePointer<CChar>?
        guard let user = MHD_basic_auth_get_username_password(connection, &password) else { return nil }
        defer { MHD_free(user); if let password { MHD_free(password) } }
        return BasicCredentials(user: String(cString: user), password: password.map { String(cString: $0) } ?? "")
    }

    /// A request header's value (`MHD_lookup_connection_value` with `MHD_HEADER_KIND`), if it has one.
    private static func header(_ name: String, of connection: OpaquePointer) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    /// The client's numeric address (`cmhd_client_address`: `MHD_get_connection_info`).
    private static func clientAddress(_ connection: OpaquePointer) -> String? {
        var text = [CChar](repeating: 0, count: 64)
        guard cmhd_client_address(connection, &text, text.count) == 1 else { return nil }
        return String(cString: text)
    }

    /// The address and port the connection arrived on (`cmhd_local_address`: getsockname).
    private static func localAddress(_ connection: OpaquePointer) -> HTTPSocketAddress? {
        var text = [CChar](repeating: 0, count: 64)
        var port: UInt16 = 0
        guard cmhd_local_address(connection, &text, text.count, &port) == 1 else { return nil }
        return HTTPSocketAddress(host: String(cString: text), port: Int(port))
    }

    /// Makes the library's response and queues it (`MHD_queue_response`, or
    /// `MHD_queue_basic_auth_fail_response` for a 401 with a realm). A stream takes a stream slot
    /// and frees its request's (none free: 503, the stream closed), and its connection gets
    /// `timeouts.streamSeconds` (`MHD_set_connection_option`, through `cmhd_set_connection_timeout`).
    private func queue(_ response: HTTPResponse, on connection: OpaquePointer, admission: Admission) -> MHD_Result {
        let made: HTTPResponseHandle?
        switch response.body {
        case .bytes(let bytes): made = HTTPResponseHandle(bytes: bytes)
        case .stream(let stream):
            let slot: StreamSlot = state.withLock { state in
                if state.stopped { return .stopped }
                guard state.streams.count < maxStreams else { return .full }
                state.streams[ObjectIdentifier(stream)] = stream
                state.inFlight -= 1
                return .taken
            }
            switch slot {
            case .stopped:
                stream.close()
                return .NO
            case .full:
                stream.close()
                return queue(.text("503 too many streams (http.max_streams)", status: 503, headers: [("Retry-After", "5")]),
                             on: connection, admission: admission)
            case .taken:
                admission.streaming = true
            }
            // Not taken: the stream keeps the request's timeout, and a stalled source's viewer
            // reconnects; logged, for the server goes on.
            if cmhd_set_connection_timeout(connection, timeouts.streamSeconds) == 0 {
                logger.warning("MHD_set_connection_option(MHD_CONNECTION_OPTION_TIMEOUT) refused: this stream keeps the request timeout",
                               metadata: ["seconds": "\(timeouts.requestSeconds)"])
            }
            made = HTTPResponseHandle(stream: stream, server: self)
            if made == nil { streamEnded(stream) }
        }
        guard let made else { return .NO }
        for header in response.headers { made.add(header: header.name, value: header.value) }
        if response.status == 401, let realm = response.basicRealm {
            return MHD_queue_basic_auth_fail_response(connection, realm, made.response)
        }
        return MHD_queue_response(connection, UInt32(response.status), made.response)
    }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, _, uploadSize, context in
    guard let cls, let connection, let context else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    uploadSize?.pointee = 0
    let path = url.map { String(cString: $0) } ?? "/"
    return server.answer(connection, method: method.map { String(cString: $0) } ?? "", path: path.split(separator: "?", maxSplits: 1,
                         omittingEmptySubsequences: false).first.map(String.init) ?? path,
                         version: version.map { String(cString: $0) } ?? "", context: context)
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, context, reason in
    guard let cls else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().completed(connection, context: context, reason: reason)
}

/// A request's place, from its first call to its completion: a request slot, or a stream slot
/// once its stream started. Touched by the library's calls for that request, one at a time.
private final class Admission {
    var streaming = false
}

/// What a stream got when its request's answer was queued.
private enum StreamSlot { case taken, full, stopped }
