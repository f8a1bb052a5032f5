import Logging
import SystemCalls
import SystemPackage

/// Writes lines to a file descriptor from its own thread, through a bounded queue (a
/// `BoundedWorker`).
///
/// A slow reader never stalls the pipeline: with `.drop` a full queue drops the new line and
/// counts it; with `.wait` the producer waits (a file source, where every line matters and
/// nothing is live). Each line is one `write(2)` (retried on EINTR and on a short write); a
/// failed write (EPIPE when the reader is gone, EBADF when stdout was closed) ends the writer
/// and every later `write` throws the `IOError` (code `closed` for EPIPE/EBADF), so the daemon
/// can exit non-zero.
/// SIGPIPE must be ignored by the process (`main` does it) or the first EPIPE kills it instead.
public final class LineWriter: Sendable {
    public typealias OverflowPolicy = SystemCalls.OverflowPolicy

    private let worker: BoundedWorker<[UInt8]>
    /// The failed write's error, once one failed; lines dropped by the worker after it are lost.
    private let failure: LockedValue<IOError?>

    /// - Parameters:
    ///   - name: what the descriptor is, for messages ("stdout").
    ///   - capacity: lines that may wait to be written.
    public init(fileDescriptor: FileDescriptor, name: String, capacity: Int, overflow: OverflowPolicy) {
        let failure = LockedValue<IOError?>(nil)
        self.failure = failure
        worker = BoundedWorker(name: "syncscan-output", capacity: capacity, overflow: overflow) { line, worker in
            let result = Result(catchingErrno: { try line.withUnsafeBytes { _ = try fileDescriptor.writeAll($0) } })
            if case .failure(let errno) = result {
                let lost = worker.discardPending() + 1
                failure.withLock { $0 = .writeFailed(name: name, errno: errno, linesLost: lost) }
            }
        }
    }

    /// Queues one line (which must end with a newline).
    /// - Throws: the `IOError` of the failed write, once one has failed.
    public func write(_ line: [UInt8]) throws(IOError) {
        if let error = failure.withLock({ $0 }) { throw error }
        worker.submit(line)
    }

    /// Changes what a full queue does from now on (the daemon sets it once it knows whether the
    /// source is live).
    public func setOverflowPolicy(_ policy: OverflowPolicy) { worker.setOverflow(policy) }

    /// Lines that may wait to be written.
    public var capacity: Int { worker.capacity }

    /// Changes how many lines may wait from now on (a reloaded `output.queue_lines`); lines
    /// already queued beyond a smaller capacity are still written.
    public func setCapacity(_ capacity: Int) { worker.setCapacity(capacity) }

    /// Lines dropped because the queue was full (not those lost to a failed write).
    public var droppedLines: Int { worker.dropped }
    /// Lines queued and not yet written.
    public var pendingLines: Int { worker.pending }

    /// Writes what is queued, stops the writer thread and reports a failure, if any (blocking:
    /// call it off the concurrency pool).
    public func finish() throws(IOError) {
        worker.finish()
        if let error = failure.withLock({ $0 }) { throw error }
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
