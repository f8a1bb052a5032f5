#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import SystemCalls
import SystemPackage

/// Replaces a node_exporter textfile atomically, from a thread of its own.
///
/// Each write goes to a hidden temporary file in the same directory (`.NAME.PID.tmp`, which the
/// collector ignores: it reads `*.prom` only), is fsynced, made 0644 (the unit's `UMask=0077`
/// would hide it from node_exporter) and renamed over the file, so a reader sees the old
/// content or the new, never part of one. `submit` never waits: the latest content replaces one
/// not yet written. A failed write is counted and logged once per errno until a write succeeds
/// again; it never reaches the caller, so scanning goes on.
public final class MetricsTextfileWriter: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: (bytes: [UInt8], path: FilePath)?
    private var writing = false
    private var closed = false
    private var finished = false
    private var _failures = 0
    /// Errnos already logged since the last successful write.
    private var logged: Set<Errno> = []
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
        let thread = Thread { [self] in self.drain() }
        thread.name = "syncscan-metrics"
        thread.start()
    }

    /// Writes that failed so far.
    public var failures: Int { condition.withLock { _failures } }

    /// Queues `bytes` to replace the file at `path`, dropping content queued and not yet written.
    public func submit(_ bytes: [UInt8], to path: FilePath) {
        condition.withLock {
            pending = (bytes, path)
            condition.broadcast()
        }
    }

    /// Writes what is queued and stops the thread (blocking: call it off the concurrency pool).
    public func finish() {
        condition.lock(); defer { condition.unlock() }
        closed = true
        condition.broadcast()
        while !finished { condition.wait() }
    }

    private func drain() {
        condition.lock()
        while true {
            while pending == nil && !closed { condition.wait() }
            guard let (bytes, path) = pending else { break }
            pending = nil
            condition.unlock()
            let result = Self.replace(path, with: bytes)
            condition.lock()
            switch result {
            case .success:
                if !logged.isEmpty {
                    logged = []
                    condition.unlock()
                    logger.notice("metrics textfile written again", metadata: ["path": "\(path)"])
                    condition.lock()
                }
            case .failure(let error):
                _failures += 1
                let first = logged.insert(error.cause ?? .ioError).inserted
                condition.unlock()
                if first { logger.error("\(error)", metadata: ["path": "\(path)"]) }
                condition.lock()
            }
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Writes `bytes` to a temporary file beside `path`, fsyncs it and renames it over `path`.
    static func replace(_ path: FilePath, with bytes: [UInt8]) -> Result<Void, IOError> {
        let directory = path.removingLastComponent()
        let temporary = directory.appending(".\(path.lastComponent?.string ?? "metrics").\(getpid()).tmp")
        func fail(_ call: String, _ errno: Errno) -> Result<Void, IOError> {
            if call != "open" { _ = temporary.withPlatformString { unlink($0) } }
            return .failure(.metricsTextfileFailed(path: path, call: call, errno: errno))
        }
        let opened = Result(catchingErrno: {
            try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        })
        guard case .success(let fd) = opened else { return fail("open", opened.failure ?? .ioError) }
        let written = Result(catchingErrno: { try bytes.withUnsafeBytes { _ = try fd.writeAll($0) } })
            .flatMap { valueOrErrno { fchmod(fd.rawValue, 0o644) }.map { _ in () } }
        if case .failure(let errno) = written { _ = try? fd.close(); return fail("write", errno) }
        if case .failure(let errno) = valueOrErrno({ fsync(fd.rawValue) }) { _ = try? fd.close(); return fail("fsync", errno) }
        if case .failure(let errno) = Result(catchingErrno: { try fd.close() }) { return fail("close", errno) }
        let renamed = temporary.withPlatformString { from in path.withPlatformString { to in valueOrErrno { rename(from, to) } } }
        if case .failure(let errno) = renamed { return fail("rename", errno) }
        return .success(())
    }
}

extension Result {
    fileprivate var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}

extension IOError {
    /// Replacing the metrics textfile at `path` failed in `call` with `errno`, and what to do.
    static func metricsTextfileFailed(path: FilePath, call: String, errno: Errno) -> IOError {
        let directory = path.removingLastComponent()
        let advice = switch errno {
        case .noSuchFileOrDirectory: "the directory \(directory) does not exist: create it, or point metrics.textfile at one that does"
        case .permissionDenied, .notPermitted, Errno(rawValue: EROFS):
            "\(directory) is not writable here (read-only file system, or permissions): under systemd add it to ReadWritePaths= (see the README)"
        case .noSpace, Errno(rawValue: EDQUOT): "the file system of \(directory) is full: free space there"
        default: "check \(directory)"
        }
        return IOError(call: call, message: "writing the metrics textfile \(path) failed: \(advice); scanning goes on and the next interval tries again",
                       errno: errno)
    }
}
