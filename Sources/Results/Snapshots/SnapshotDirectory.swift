import Foundation
import SystemCalls
import SystemPackage

/// A snapshot file in the directory: its name and size.
public struct StoredSnapshot: Sendable, Hashable {
    public var name: String
    public var bytes: Int
    public init(name: String, bytes: Int) { self.name = name; self.bytes = bytes }
}

/// A file operation on the snapshot directory failed: which call, on which path, and its errno.
public struct SnapshotFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var call: String
    public var path: String
    public var errno: Errno
    /// The key that names the directory, for the advice (`snapshots.directory`, `trigger.no_read_directory`).
    public var setting: String

    public init(call: String, path: String, errno: Errno, setting: String = "snapshots.directory") {
        self.call = call
        self.path = path
        self.errno = errno
        self.setting = setting
    }

    public var description: String {
        let advice = switch errno {
        case .noSpace, .diskQuotaExceeded:
            setting == "snapshots.directory" ? "the filesystem is full: free space or lower snapshots.max_bytes" : "the filesystem is full: free space"
        case .permissionDenied, .notPermitted: "no permission: let the service's user write there (systemd: StateDirectory=)"
        case .readOnlyFileSystem: "the filesystem is read-only: point \(setting) at a writable one"
        case .notDirectory: "a path component is not a directory: point \(setting) at a directory"
        default: "check \(setting)"
        }
        return "\(path): \(call) failed: \(errno.description) (\(errno.symbol)); \(advice)"
    }
}

/// The file system under the snapshot handler: one directory of JPEG files. A seam for tests
/// (a full or read-only disk); `FileSystemSnapshotDirectory` is the real one.
public protocol SnapshotDirectory: Sendable {
    /// The directory's path, for messages.
    var path: String { get }
    /// Creates the directory (and missing parents), removes the temporary files a previous run left
    /// of names `isListed` accepts, and lists the files in it whose names it accepts (`prepare()`:
    /// the snapshots, `isSnapshotName`). Another writer's files in the same directory (the no-read
    /// images beside the snapshots), its temporary ones being written included, are left alone.
    func prepare(listing isListed: (String) -> Bool) -> Result<[StoredSnapshot], SnapshotFileError>
    /// Writes `jpeg` to a temporary name, then renames it to `name`: a reader never sees half a file.
    func write(_ jpeg: [UInt8], named name: String) -> Result<Void, SnapshotFileError>
    /// Deletes the snapshot `name`.
    func remove(named name: String) -> Result<Void, SnapshotFileError>
}

extension SnapshotDirectory {
    /// Creates the directory and lists the snapshots in it (`prepare(listing: isSnapshotName)`).
    public func prepare() -> Result<[StoredSnapshot], SnapshotFileError> { prepare(listing: Self.isSnapshotName) }

    /// Whether `name` is one the snapshot handler writes: `20261122T101500.123Z-seq000123.jpg`.
    public static func isSnapshotName(_ name: String) -> Bool {
        let digits = { (s: Substring) in !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
        guard name.hasSuffix(".jpg"), name.count > 30 else { return false }
        let parts = name.dropLast(4).split(separator: "-seq", maxSplits: 1)
        guard parts.count == 2, digits(parts[1]) else { return false }
        let time = parts[0]
        return time.count == 20 && digits(time.prefix(8)) && time.dropFirst(8).first == "T" && digits(time.dropFirst(9).prefix(6))
            && time.dropFirst(15).first == "." && digits(time.dropFirst(16).prefix(3)) && time.last == "Z"
    }

    /// The temporary name `name` is written under before the rename (hidden, never a snapshot name).
    public static func temporaryName(for name: String) -> String { ".\(name).tmp" }
}

/// The snapshot directory on disk, through open/write/rename/unlink (swift-system and libc).
/// Its calls block: the snapshot handler makes them on its own thread.
public struct FileSystemSnapshotDirectory: SnapshotDirectory {
    public let path: String
    /// The key that names it, for the advice of its errors.
    public let setting: String

    public init(path: String, setting: String = "snapshots.directory") { (self.path, self.setting) = (path, setting) }

    private func file(_ name: String) -> String { path.hasSuffix("/") ? path + name : path + "/" + name }

    public func prepare(listing isListed: (String) -> Bool) -> Result<[StoredSnapshot], SnapshotFileError> {
        if case .failure(let failed) = makeDirectories(path, mode: 0o755) {
            return .failure(SnapshotFileError(call: "mkdir", path: failed.component, errno: failed.errno, setting: setting))
        }
        guard let stream = opendir(path) else {
            return .failure(SnapshotFileError(call: "opendir", path: path, errno: Errno(rawValue: Glibc.errno), setting: setting))
        }
        defer { closedir(stream) }
        var found: [StoredSnapshot] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("."), name.hasSuffix(".jpg.tmp"), isListed(String(name.dropFirst().dropLast(4))) {
                _ = unlink(file(name))
            } else if isListed(name) {
                var info = stat()
                if stat(file(name), &info) == 0 { found.append(StoredSnapshot(name: name, bytes: Int(info.st_size))) }
            }
        }
        return .success(found.sorted { $0.name < $1.name })
    }

    public func write(_ jpeg: [UInt8], named name: String) -> Result<Void, SnapshotFileError> {
        let temporary = file(Self.temporaryName(for: name))
        let opened = Result(catchingErrno: {
            try FileDescriptor.open(FilePath(temporary), .writeOnly, options: [.create, .truncate],
                                    permissions: [.ownerReadWrite, .groupRead, .otherRead])
        })
        let fd: FileDescriptor
        switch opened {
        case .success(let descriptor): fd = descriptor
        case .failure(let errno): return .failure(SnapshotFileError(call: "open", path: temporary, errno: errno, setting: setting))
        }
        let written = Result(catchingErrno: { try fd.closeAfter { _ = try jpeg.withUnsafeBytes { try fd.writeAll($0) } } })
        if case .failure(let errno) = written {
            _ = unlink(temporary)
            return .failure(SnapshotFileError(call: "write", path: temporary, errno: errno, setting: setting))
        }
        if case .failure(let errno) = valueOrErrno({ rename(temporary, file(name)) }) {
            _ = unlink(temporary)
            return .failure(SnapshotFileError(call: "rename", path: file(name), errno: errno, setting: setting))
        }
        return .success(())
    }

    public func remove(named name: String) -> Result<Void, SnapshotFileError> {
        valueOrErrno { unlink(file(name)) }.map { _ in () }.mapError { SnapshotFileError(call: "unlink", path: file(name), errno: $0, setting: setting) }
    }
}
