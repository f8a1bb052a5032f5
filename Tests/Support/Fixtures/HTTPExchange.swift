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
        fd = try Self.connected(port: port, receiveBuffer: receiveBuffer, source: source, destination: destination)
    }

    /// A socket connected to `destination`:`port`, closed here if the connect fails. Only a connected
    /// descriptor becomes `fd`: `deinit` runs even when an initializer throws after `fd` is set, so
    /// a close here and another there would close a number that another test may have been given
    /// meanwhile (a spool's file, a pipe).
    private static func connected(port: Int, receiveBuffer: Int?, source: String?, destination: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FixtureError.toolFailed("socket failed: errno \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            let bound = inet_pton(AF_INET, source, &local.sin_addr) == 1 && withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
            guard bound else {
                let error = errno
                close(fd)
                throw FixtureError.toolFailed("bind \(source) failed: errno \(error)")
            }
        }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, destination, &address.sin_addr) == 1 else {
            close(fd)
            throw FixtureError.toolFailed("\(destination) is not an IPv4 address")
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            throw FixtureError.toolFailed("connect \(destination):\(port) failed: errno \(error)")
        }
        return fd
    }

    deinit { close(fd) }

    /// Writes all of `bytes`; false when the server closed the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
    }

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
