import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP reply as a raw client saw it: the status, the header fields (names lower-cased) and the body.
public struct HTTPReply: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Parses `bytes` (what the server sent); `nil` when they hold no status line and header end.
    public init?(_ bytes: [UInt8]) {
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        self.status = status
        headers = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        body = Array(bytes[(end + 4)...])
    }
}

/// A TCP connection to a test server on 127.0.0.1 (or another loopback address) that sends raw
/// bytes and reads with deadlines: well-formed requests, malformed ones, and a viewer that never reads.
public final class HTTPTestConnection: @unchecked Sendable {
    private let fd: Int32

    /// Connects to 127.0.0.1:`port` (or `to`:`port`, another IPv4 address); `receiveBuffer` shrinks the
    /// socket's receive buffer (SO_RCVBUF); `from` is the client's address (another loopback one,
    /// `127.0.0.2`: a second client machine).
    public init(port: Int, receiveBuffer: Int? = nil, from source: String? = nil, to destination: String = "127.0.0.1") throws {
        fd = try LoopbackTCP.connected(port: port, receiveBuffer: receiveBuffer, source: source, destination: destination,
                                       receiveTimeoutMicroseconds: 100_000)
    }

    deinit { close(fd) }

    /// Writes all of `bytes`; false when the server closed the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool { LoopbackTCP.sendAll(fd, bytes) }

    /// Whether the server has closed the connection (or reset it) with nothing more to read: a
    /// look that does not wait (`recv` with `MSG_PEEK | MSG_DONTWAIT`).
    public var isClosedByServer: Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    /// Ends the sending side (`shutdown(SHUT_WR)`): a truncated request ends here.
    public func finishSending() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads until the server closes, `limit` bytes arrived, `until(bytes)` holds, or `timeout` passes.
    public func receive(limit: Int = 1 << 24, timeout: Duration = hangTimeout, until: ([UInt8]) -> Bool = { _ in false }) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while received.count < limit && ContinuousClock.now < deadline && !until(received) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            if n < 0 { if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }; break }
            received += buffer[0..<n]
        }
        return received
    }

    /// One request (`METHOD PATH HTTP/1.1`, `Host`, `Connection: close`, then `headers`) and its whole
    /// reply, from 127.0.0.1 or `source`.
    public static func request(_ path: String, port: Int, method: String = "GET", headers: [String] = [],
                               timeout: Duration = hangTimeout, from source: String? = nil) throws -> HTTPReply {
        try request(path, port: port, method: method, host: "127.0.0.1:\(port)", headers: headers, timeout: timeout, from: source)
    }

    /// One request (`METHOD PATH VERSION`, `Host: host` unless `nil`, `Connection: close`, then
    /// `headers`) and its reply: whole, or up to its header's end when it has no length (a stream).
    public static func request(_ path: String, port: Int, method: String = "GET", host: String?, headers: [String] = [],
                               version: String = "HTTP/1.1", timeout: Duration = hangTimeout, from source: String? = nil) throws -> HTTPReply {
        let connection = try HTTPTestConnection(port: port, from: source)
        let head = (["\(method) \(path) \(version)"] + (host.map { ["Host: \($0)"] } ?? []) + ["Connection: close"] + headers)
            .joined(separator: "\r\n")
        connection.send(Array((head + "\r\n\r\n").utf8))
        let bytes = connection.receive(timeout: timeout) { received in
            guard let reply = HTTPReply(received) else { return false }
            if method == "HEAD" { return true }
            return reply.headers["content-length"].flatMap { Int($0) }.map { reply.body.count >= $0 } ?? (reply.headers["transfer-encoding"] != nil)
        }
        guard let reply = HTTPReply(bytes) else {
            throw FixtureError.toolFailed("\(method) \(path): no HTTP reply in \(bytes.count) bytes: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        return reply
    }
}
