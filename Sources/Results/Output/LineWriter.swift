import Foundation
import Logging
import SystemCalls
import SystemPackage

/// Writes lines to a file descriptor from its own thread, through a bounded queue.
///
/// A slow reader never stalls the pipeline: with `.drop` a full queue drops the new line and
/// counts it; with `.wait` the producer waits (a file source, where every line matters and
/// nothing is live). Each line is one `write(2)` (retried on EINTR and on a short write); a
/// failed write (EPIPE when the reader is gone, EBADF when stdout was closed) ends the writer
/// and every later `write` throws the `IOError` (code `closed` for EPIPE/EBADF), so the daemon
/// can exit non-zero.
/// SIGPIPE must be ignored by the process (`main` does it) or the first EPIPE kills it instead.
public final class LineWriter: @unchecked Sendable {
    public enum OverflowPolicy: Sendable { case wait, drop }

    private let condition = NSCondition()
    private var queue: [[UInt8]] = []
    private var queueHead = 0
    private var closed = false
    private var finished = false
    private var failure: IOError?
    private var _dropped = 0
    private let fd: FileDescriptor
    private var _capacity: Int
    private var overflow: OverflowPolicy
    private let name: String

    /// - Parameters:
    ///   - name: what the descriptor is, for messages ("stdout").
    ///   - capacity: lines that may wait to be written.
    public init(fileDescriptor: FileDescriptor, name: String, capacity: Int, overflow: OverflowPolicy) {
        self.fd = fileDescriptor
        self.name = name
        self._capacity = max(1, capacity)
        self.overflow = overflow
        let thread = Thread { [self] in self.drain() }
        thread.name = "syncscan-output"
        thread.start()
    }

    /// Queues one line (which must end with a newline).
    /// - Throws: the `IOError` of the failed write, once one has failed.
    public func write(_ line: [UInt8]) throws(IOError) {
        condition.lock(); defer { condition.unlock() }
        while true {
            if let failure { throw failure }
            if pendingLocked < _capacity { break }
            if overflow == .drop { _dropped += 1; return }
            // Waiting: `setOverflowPolicy` or the writer thread wakes us.
            condition.wait()
        }
        queue.append(line)
        condition.broadcast()
    }

    /// Changes what a full queue does from now on (the daemon sets it once it knows whether the
    /// source is live).
    public func setOverflowPolicy(_ policy: OverflowPolicy) {
        condition.withLock {
            overflow = policy
            condition.broadcast()
        }
    }

    /// Lines that may wait to be written.
    public var capacity: Int { condition.withLock { _capacity } }

    /// Changes how many lines may wait from now on (a reloaded `output.queue_lines`); lines
    /// already queued beyond a smaller capacity are still written.
    public func setCapacity(_ capacity: Int) {
        condition.withLock {
            _capacity = max(1, capacity)
            condition.broadcast()
        }
    }

    /// Lines dropped because the queue was full.
    public var droppedLines: Int { condition.withLock { _dropped } }
    /// Lines queued and not yet written.
    public var pendingLines: Int { condition.withLock { pendingLocked } }

    /// Writes what is queued, stops the writer thread and reports a failure, if any.
    public func finish() throws(IOError) {
        condition.lock(); defer { condition.unlock() }
        closed = true
        condition.broadcast()
        while !finished { condition.wait() }
        if let failure { throw failure }
    }

    private var pendingLocked: Int { queue.count - queueHead }

    private func drain() {
        condition.lock()
        while true {
            while pendingLocked == 0 && !closed && failure == nil { condition.wait() }
            if pendingLocked == 0 || failure != nil { break }
            let line = queue[queueHead]
            queue[queueHead] = []
            queueHead += 1
            if queueHead > 64 && queueHead * 2 > queue.count { queue.removeFirst(queueHead); queueHead = 0 }
            condition.broadcast()
            condition.unlock()
            let result = Result(catchingErrno: { try line.withUnsafeBytes { _ = try fd.writeAll($0) } })
            condition.lock()
            if case .failure(let errno) = result {
                failure = .writeFailed(name: name, errno: errno, linesLost: pendingLocked + 1)
                queue.removeAll(); queueHead = 0
            }
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }
}

extension IOError {
    /// `write(2)` of results to `name` failed with `errno`; `linesLost` lines were queued and not written.
    static func writeFailed(name: String, errno: Errno, linesLost: Int) -> IOError {
        let why = errno == .brokenPipe ? ": the reader closed the pipe" : ""
        return IOError(call: "write", message: "writing results to \(name) failed\(why); \(linesLost) queued line(s) not written. "
                           + "Keep a reader attached to \(name); under systemd the service restarts.", errno: errno)
    }
}
