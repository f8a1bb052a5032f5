import SystemCalls

/// One client of the TCP result server, the server thread's alone: its connection, the bytes
/// waiting for it (at most the server's `queueBytes`), the line it is sending, and whether it
/// gave the token.
final class TCPClient {
    let connection: TCPConnection
    /// Its number in the log, from 1 in a run.
    let number: Int
    private var outgoing: [UInt8] = []
    private var head = 0
    var reader: TCPLineReader
    var authorized: Bool
    /// After its last reply: sending ends once what waits is sent, and its input is read and
    /// dropped until it closes or `drainUntil` (so the reply is not lost to a reset).
    var closeAfterFlush = false
    var drainUntil: ContinuousClock.Instant?
    /// Gone: removed at the end of the thread's turn.
    var dead = false

    init(_ connection: TCPConnection, number: Int, authorized: Bool) {
        (self.connection, self.number, self.authorized) = (connection, number, authorized)
        reader = TCPLineReader(limit: TCPSettings.maxCommandBytes)
    }

    var queued: Int { outgoing.count - head }

    /// Adds `bytes` to what waits for it; false when that would pass `bound` (nothing added).
    func enqueue(_ bytes: [UInt8], bound: Int) -> Bool {
        guard queued + bytes.count <= bound else { return false }
        if head > 0 && head >= outgoing.count / 2 {
            outgoing.removeFirst(head)
            head = 0
        }
        outgoing += bytes
        return true
    }

    /// Sends what the kernel takes now; false when the connection failed.
    func flush() -> Bool {
        while queued > 0 {
            let result = outgoing.withUnsafeBytes { connection.send(UnsafeRawBufferPointer(rebasing: $0[head...])) }
            switch result {
            case .success(0): return true
            case .success(let sent): head += sent
            case .failure: return false
            }
        }
        outgoing.removeAll(keepingCapacity: outgoing.capacity <= 1 << 16)
        head = 0
        if closeAfterFlush && drainUntil == nil {
            connection.shutdownSending()
            drainUntil = .now + .seconds(10)
        }
        return true
    }
}
