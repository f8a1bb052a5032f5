import Foundation
import SystemCalls

/// Stream viewers that hold their connections and barely read: each connects from one of
/// `addresses` in turn (other loopback addresses: other client machines), sends one `GET` of the
/// stream and reads its reply's head (with what little came along), and then either takes about
/// 1 KB every `interval` or never reads again.
///
/// The reading is done by one thread of the set's own (a timed wait on its stop flag between
/// rounds), never by the test's. Each connection's receive buffer is the kernel's least
/// (`SO_RCVBUF` 1024), so one read takes what little it holds, and a viewer that never reads
/// stops the server's sends at once.
public final class SlowStreamViewers: @unchecked Sendable {
    /// Every viewer's connection, in the order opened.
    public let connections: [HTTPTestConnection]
    /// Each viewer's reply status (0: no reply head within `hangTimeout`).
    public let statuses: [Int]
    /// The viewers that take about 1 KB every interval.
    public let readers: [HTTPTestConnection]
    /// The viewers that never read after the head.
    public let stalled: [HTTPTestConnection]
    private let stop = LockedValue(false)
    private let reading = LockedValue(false)  // true while the reading thread runs

    /// Opens `count` viewers of `path` on 127.0.0.1:`port`, connecting from `addresses` in turn;
    /// a round of them (one from each address) reads, the next never does, and so on; with
    /// `neverReading` none reads.
    public init(_ count: Int, path: String, port: Int, from addresses: [String], interval: Duration = .seconds(10),
                neverReading: Bool = false) throws {
        let connections = try (0..<count).map { index in
            let connection = try HTTPTestConnection(port: port, receiveBuffer: 1024, from: addresses[index % addresses.count])
            connection.send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
            return connection
        }
        let reads = connections.indices.map { !neverReading && ($0 / addresses.count) % 2 == 0 }
        self.connections = connections
        statuses = connections.map { HTTPReply($0.receive(until: { HTTPReply($0) != nil }))?.status ?? 0 }
        readers = connections.indices.filter { reads[$0] }.map { connections[$0] }
        stalled = connections.indices.filter { !reads[$0] }.map { connections[$0] }
        let (readers, stop, reading) = (readers, stop, reading)
        reading.withLock { $0 = true }
        Thread {
            while !stop.withLock({ $0 }) {
                for connection in readers { _ = connection.receive(limit: 1024, timeout: .milliseconds(20)) }
                stop.withLock(when: { $0 }, deadline: .now + interval) { _, _ in }
            }
            reading.withLock { $0 = false }
            reading.broadcast()
        }.start()
    }

    /// Stops the reading thread and waits for it to let go of the connections (`hangTimeout` at most).
    public func finish() {
        stop.withLock { $0 = true }
        stop.broadcast()
        reading.withLock(when: { !$0 }, deadline: .now + hangTimeout) { _, _ in }
    }

    deinit { finish() }
}
