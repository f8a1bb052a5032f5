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
public final class MetricsTextfileWriter: Sendable {
    /// Failed writes, and the errnos already logged since the last successful write.
    private struct Failures {
        var count = 0
        var logged: Set<Errno> = []
        /// Whether a content was ever submitted (the thread runs from then on).
        var used = false
    }

    private let worker: BoundedWorker<(bytes: [UInt8], path: FilePath)>
    private let state = LockedValue(Failures())

    public init(logger: Logger) {
        let state = self.state
        // One waiting content at most: a newer one replaces it (`.dropOldest`).
        worker = BoundedWorker(name: "syncscan-metric", capacity: 1, overflow: .dropOldest) { content, _ in
            switch Self.replace(content.path, with: content.bytes) {
            case .success:
                let recovered = state.withLock { failures in
                    defer { failures.logged = [] }
                    return !failures.logged.isEmpty
                }
                if recovered { logger.notice("metrics textfile written again", metadata: ["path": "\(LogText.untrusted(content.path))"]) }
            case .failure(let error):
                let first = state.withLock { failures in
                    failures.count += 1
                    return failures.logged.insert(error.cause ?? .ioError).inserted
                }
                if first { logger.error("\(LogText.error(error))", metadata: ["path": "\(LogText.untrusted(content.path))"]) }
            }
        }
    }

    /// Writes that failed so far.
    public var failures: Int { state.withLock { $0.count } }

    /// Whether a content was ever submitted: until then no thread runs and `finish()` has nothing to do.
    public var used: Bool { state.withLock { $0.used } }

    /// Queues `bytes` to replace the file at `path`, dropping content queued and not yet written.
    public func submit(_ bytes: [UInt8], to path: FilePath) {
        state.withLock { $0.used = true }
        worker.submit((bytes, path))
    }

    /// Writes what is queued and stops the thread (blocking: call it off the concurrency pool).
    public func finish() {
        worker.finish()
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
            "\(directory) is not writable here (read-only file system, or permissions): under systemd add it to ReadWritePaths= (docs/outputs.md, Prometheus metrics)"
        case .noSpace, Errno(rawValue: EDQUOT): "the file system of \(directory) is full: free space there"
        default: "check \(directory)"
        }
        return IOError(call: call, message: "writing the metrics textfile \(path) failed: \(advice); scanning goes on and the next interval tries again",
                       errno: errno)
    }
}
