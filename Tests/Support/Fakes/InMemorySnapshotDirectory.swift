import Foundation
import Results
import SystemCalls
import SystemPackage

/// A snapshot directory in memory that can be made to fail like a full or read-only disk.
public final class InMemorySnapshotDirectory: SnapshotDirectory, @unchecked Sendable {
    public let path: String
    private let lock = NSLock()
    private var files: [String: [UInt8]]
    private var _writeFailure: Errno?
    private var _prepareFailure: Errno?
    private var _writes = 0
    private var _removals = 0
    /// Writes wait while this is true (`holdWrites`/`releaseWrites`).
    private let held = LockedValue(false)

    /// - Parameter files: snapshots a previous run left, by name.
    public init(path: String = "/fake/snapshots", files: [String: [UInt8]] = [:]) {
        self.path = path
        self.files = files
    }

    /// Every later write fails with this errno (`nil`: writes succeed).
    public var writeFailure: Errno? {
        get { lock.withLock { _writeFailure } }
        set { lock.withLock { _writeFailure = newValue } }
    }
    /// `prepare` fails with this errno.
    public var prepareFailure: Errno? {
        get { lock.withLock { _prepareFailure } }
        set { lock.withLock { _prepareFailure = newValue } }
    }
    /// A disk that does not answer: every write from now on waits until `releaseWrites()`
    /// (or `hangTimeout`, a guard against a hung test: a shorter one is reached on a starved
    /// machine while the test is still handling its codes, and the held write goes through).
    public func holdWrites() { held.withLock { $0 = true } }

    /// Lets held writes, and later ones, go through.
    public func releaseWrites() {
        held.withLock { $0 = false }
        held.broadcast()
    }
    /// The files now, by name.
    public var contents: [String: [UInt8]] { lock.withLock { files } }
    /// Writes attempted.
    public var writes: Int { lock.withLock { _writes } }
    /// Files removed (`remove(named:)` that found its file).
    public var removals: Int { lock.withLock { _removals } }

    public func prepare(listing isListed: (String) -> Bool) -> Result<[StoredSnapshot], SnapshotFileError> {
        lock.withLock {
            if let errno = _prepareFailure { return .failure(SnapshotFileError(call: "mkdir", path: path, errno: errno)) }
            return .success(files.filter { isListed($0.key) }.map { StoredSnapshot(name: $0.key, bytes: $0.value.count) }
                .sorted { $0.name < $1.name })
        }
    }

    public func write(_ jpeg: [UInt8], named name: String) -> Result<Void, SnapshotFileError> {
        held.withLock(when: { !$0 }, deadline: .now + hangTimeout) { _, _ in }
        return lock.withLock {
            _writes += 1
            if let errno = _writeFailure {
                return .failure(SnapshotFileError(call: "write", path: path + "/" + Self.temporaryName(for: name), errno: errno))
            }
            files[name] = jpeg
            return .success(())
        }
    }

    public func remove(named name: String) -> Result<Void, SnapshotFileError> {
        lock.withLock {
            guard files.removeValue(forKey: name) != nil else {
                return .failure(SnapshotFileError(call: "unlink", path: path + "/" + name, errno: .noSuchFileOrDirectory))
            }
            _removals += 1
            return .success(())
        }
    }
}
