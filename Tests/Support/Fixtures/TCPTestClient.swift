import Foundation
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client of 127.0.0.1, as a PLC's: it sends lines and collects what comes back,
/// reading only when the test asks (`pump`, `waitUntil`), so a client the test never pumps is
/// one that stops reading.
public final class TCPTestClient: @unchecked Sendable {
    public let fd: Int32
    private let state = LockedValue((bytes: [UInt8](), closed: false))

    /// Connects to `port`; `receiveBuffer` sets SO_RCVBUF first (a small one: a reader that stalls soon).
    public init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = try LoopbackTCP.connected(port: port, receiveBuffer: receiveBuffer.map(Int.init))
    }

    deinit { close(fd) }

    /// Writes all of `bytes` (blocking); false once the peer is gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool { LoopbackTCP.sendAll(fd, bytes) }

    @discardableResult
    public func send(line: String) -> Bool { send(Array((line + "\r\n").utf8)) }

    /// Reads what has arrived, without waiting.
    public func pump() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { state.withLock { $0.bytes += buffer[0..<n] }; continue }
            if n == 0 || (errno != EAGAIN && errno != EINTR) { state.withLock { $0.closed = true } }
            return
        }
    }

    /// Everything received so far.
    public var bytes: [UInt8] { state.withLock { $0.bytes } }
    /// Whether the peer closed (or reset) the connection, as far as read.
    public var closedByPeer: Bool { state.withLock { $0.closed } }

    /// The messages received so far, each ended by `suffix` (which is left out).
    public func messages(endingWith suffix: [UInt8] = [0x0D, 0x0A]) -> [[UInt8]] {
        var messages: [[UInt8]] = [], current: [UInt8] = []
        for byte in bytes {
            current.append(byte)
            if current.count >= suffix.count && Array(current.suffix(suffix.count)) == suffix {
                messages.append(Array(current.dropLast(suffix.count)))
                current = []
            }
        }
        return messages
    }

    /// The CR LF lines received so far, as text.
    public var lines: [String] { messages().map { String(decoding: $0, as: UTF8.self) } }

    /// Reads until `condition` holds or the peer closed without it holding; whether it held before `hangTimeout`.
    @discardableResult
    public func waitUntil(_ condition: (TCPTestClient) -> Bool) -> Bool {
        TestSupport.waitUntil(every: .milliseconds(5)) { [self] in
            pump()
            return condition(self) || closedByPeer
        }
        return condition(self)
    }
}
