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
/// listening thread), `stop()` and `deinit` `MHD_stop_daemon`. Requests in flight beyond
/// `maxConnections` get 503 at once. Malformed requests (oversized headers, a bad request line,
/// a truncated request) are answered by the library itself (400, 431) or closed. Slow clients
/// cannot shut it: a connection that sends nothing for `timeouts.requestSeconds` before its
/// response starts (half a request, or an idle kept-alive connection) is closed, one client
/// address holds at most `maxConnectionsPerAddress` connections (more are closed at once), and the
/// library accepts `maxConnections + maxConnectionsPerAddress` in all, so one address holding its
/// whole quota leaves `maxConnections` for the others. A streamed body
/// (`HTTPResponse.Body.stream`) is read through `MHD_create_response_from_callback` while the
/// client reads; `stop()` closes every open stream before it waits for the connections' threads.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The `MHD_Daemon` and the PEM copies it was given, handed between threads only under the
    /// state's lock; the copies are freed after `MHD_stop_daemon`.
    private struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
        let pem: [UnsafeMutablePointer<CChar>]
    }

    private struct State {
        var daemon: Daemon?
        var inFlight = 0
        var streams: [ObjectIdentifier: any HTTPStream] = [:]
        var stopped = false
    }

    /// Where it listens; ignored with `listenDescriptor`.
    public let address: HTTPListenAddress
    /// An inherited listening socket (systemd socket activation) served instead of `address`.
    public let listenDescriptor: FileDescriptor?
    public let maxConnections: Int
    /// Connections one client address may hold at once, requests half-sent and idle included.
    public let maxConnectionsPerAddress: Int
    public let timeouts: HTTPTimeouts
    /// The key and certificate it serves HTTPS with; `nil`: plain HTTP.
    public let tls: TLSCredentials?
    private let logger: Logger
    private let handler: Handler
    private let state = LockedValue(State())

    /// Bytes of a connection's request (line and headers) libmicrohttpd accepts; more gets 431.
    static let requestMemoryLimit = 32 * 1024

    public init(address: HTTPListenAddress, listenDescriptor: FileDescriptor? = nil, maxConnections: Int,
                maxConnectionsPerAddress: Int = 12, timeouts: HTTPTimeouts = HTTPTimeouts(), tls: TLSCredentials? = nil,
                logger: Logger, handler: @escaping Handler) {
        self.address = address
        self.listenDescriptor = listenDescriptor
        self.maxConnections = max(1, maxConnections)
        self.maxConnectionsPerAddress = max(1, maxConnectionsPerAddress)
        self.timeouts = timeouts
        self.tls = tls
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
        // The library's own cap sits above ours by one address's quota: past ours requests are still
        // told 503, and one address that holds its quota (half-sent requests) leaves ours to the others.
        let daemon = cmhd_start_daemon(address.host, UInt16(clamping: address.port), listenDescriptor?.rawValue ?? -1,
                                       UInt32(maxConnections + maxConnectionsPerAddress), UInt32(maxConnectionsPerAddress),
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

    /// The first call for a request: counts it, asks the handler and queues its response.
    fileprivate func answer(_ connection: OpaquePointer, method: String, path: String,
                            context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        let marker = Unmanaged.passUnretained(self).toOpaque()
        guard context.pointee == nil else { return .YES }  // the request's body: ignored (answered already)
        context.pointee = marker
        let (admitted, stopped) = state.withLock { state in
            state.inFlight += 1
            return (state.inFlight <= maxConnections, state.stopped)
        }
        guard admitted, !stopped else {
            return queue(.text("503 too many connections (http.max_connections)", status: 503, headers: [("Retry-After", "5")]), on: connection)
        }
        let response = handler(HTTPRequest(method: method, path: path, basicCredentials: Self.credentials(connection)))
        return queue(response, on: connection)
    }

    fileprivate func completed(_ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let context, context.pointee != nil else { return }
        context.pointee = nil
        state.withLock { $0.inFlight -= 1 }
    }

    fileprivate func streamEnded(_ stream: any HTTPStream) {
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

    /// Makes the library's response and queues it (`MHD_queue_response`, or
    /// `MHD_queue_basic_auth_fail_response` for a 401 with a realm); a stream's connection gets
    /// `timeouts.streamSeconds` (`MHD_set_connection_option`, through `cmhd_set_connection_timeout`).
    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let made: HTTPResponseHandle?
        switch response.body {
        case .bytes(let bytes): made = HTTPResponseHandle(bytes: bytes)
        case .stream(let stream):
            // Not taken: the stream keeps the request's timeout, and a stalled source's viewer
            // reconnects; logged, for the server goes on.
            if cmhd_set_connection_timeout(connection, timeouts.streamSeconds) == 0 {
                logger.warning("MHD_set_connection_option(MHD_CONNECTION_OPTION_TIMEOUT) refused: this stream keeps the request timeout",
                               metadata: ["seconds": "\(timeouts.requestSeconds)"])
            }
            let registered = state.withLock { state in
                if state.stopped { return false }
                state.streams[ObjectIdentifier(stream)] = stream
                return true
            }
            made = registered ? HTTPResponseHandle(stream: stream, server: self) : nil
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

/// How long a connection may go without a byte received or sent (libmicrohttpd's connection
/// timeout), before and after its response starts streaming.
public struct HTTPTimeouts: Sendable, Hashable {
    /// Before the response: a request sent slowly, half or not at all, and a kept-alive connection
    /// between requests (`MHD_OPTION_CONNECTION_TIMEOUT`). 0: none.
    public var requestSeconds: UInt32
    /// A streamed response's connection, from its start (`MHD_CONNECTION_OPTION_TIMEOUT`): reached
    /// only by a client that stopped reading, or a stream that sent nothing for that long. 0: none.
    public var streamSeconds: UInt32

    public init(requestSeconds: UInt32 = 5, streamSeconds: UInt32 = 30) {
        (self.requestSeconds, self.streamSeconds) = (requestSeconds, streamSeconds)
    }
}

/// A private key and its certificate chain, PEM text, for HTTPS.
public struct TLSCredentials: Sendable, Hashable {
    public var keyPEM: String
    public var certificatePEM: String
    public init(keyPEM: String, certificatePEM: String) { (self.keyPEM, self.certificatePEM) = (keyPEM, certificatePEM) }
}

/// One `MHD_Response`, destroyed (`MHD_destroy_response`) with its handle: the library keeps its
/// own reference while the response is queued.
final class HTTPResponseHandle {
    let response: OpaquePointer

    /// A response holding a copy of `bytes` (`MHD_create_response_from_buffer`, `MHD_RESPMEM_MUST_COPY`).
    init?(bytes: [UInt8]) {
        // MHD_RESPMEM_MUST_COPY (2): the library copies the bytes before the call returns.
        guard let mustCopy = MHD_ResponseMemoryMode(rawValue: 2) else { return nil }
        let made = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), mustCopy)
        }
        guard let made else { return nil }
        response = made
    }

    /// A response of unknown length read from `stream` (`MHD_create_response_from_callback`); the
    /// library releases the stream when the response is done with.
    init?(stream: any HTTPStream, server: HTTPServer) {
        let box = Unmanaged.passRetained(StreamBox(stream: stream, server: server)).toOpaque()
        guard let made = MHD_create_response_from_callback(UInt64.max, 16 * 1024, readStream, box, releaseStream) else {
            Unmanaged<StreamBox>.fromOpaque(box).release()
            return nil
        }
        response = made
    }

    deinit { MHD_destroy_response(response) }

    /// `MHD_add_response_header`.
    func add(header name: String, value: String) { _ = MHD_add_response_header(response, name, value) }
}

/// What the library's stream callbacks get: the stream and the server that counts it.
private final class StreamBox {
    let stream: any HTTPStream
    let server: HTTPServer
    init(stream: any HTTPStream, server: HTTPServer) { (self.stream, self.server) = (stream, server) }
}

/// libmicrohttpd's `MHD_CONTENT_READER_END_OF_STREAM`.
private let contentReaderEndOfStream = -1

private let readStream: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return contentReaderEndOfStream }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
    switch box.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max)) {
    case .bytes(let count): return count
    case .end: return contentReaderEndOfStream
    }
}

private let releaseStream: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeRetainedValue()
    box.server.streamEnded(box.stream)
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, uploadSize, context in
    guard let cls, let connection, let context else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    uploadSize?.pointee = 0
    let path = url.map { String(cString: $0) } ?? "/"
    return server.answer(connection, method: method.map { String(cString: $0) } ?? "", path: path.split(separator: "?", maxSplits: 1,
                         omittingEmptySubsequences: false).first.map(String.init) ?? path, context: context)
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, _, context, _ in
    guard let cls else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().completed(context)
}
