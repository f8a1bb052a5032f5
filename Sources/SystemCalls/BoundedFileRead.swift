import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file read whole, but never past a limit: the one way syncscan reads a file its
/// configuration names (the configuration file, `match.list`, password, token and TLS files).
///
/// Opened non-blocking (`O_NONBLOCK | O_CLOEXEC | O_NOCTTY`), so neither a FIFO without a writer
/// nor a device holds the open; then `fstat(2)`: anything but a regular file (a FIFO, a socket,
/// a device, a directory) is refused before a byte is read, as is one larger than the limit;
/// then `read(2)` in chunks to at most `limit + 1` bytes (a file that grew past the limit since
/// `fstat` is refused too).
public enum BoundedFileRead {
    /// Why the file was not read.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// `call` (`open`, `fstat`, `read`) failed.
        case system(call: String, errno: Errno)
        /// It is not a regular file: `kind` names what it is (`a FIFO`, `a directory`).
        case notRegular(kind: String)
        /// It holds more than `limit` bytes: `size` by `fstat`, `nil` when it grew past the limit while read.
        case tooLarge(size: Int64?, limit: Int)

        /// What went wrong, and what to do, for a message that names the file before it.
        public var message: String {
            switch self {
            case .system(let call, let errno):
                // A failed open is the common case (a wrong path), and says enough by its errno.
                errno.description + (call == "open" ? "" : " (\(call))")
            case .notRegular(let kind):
                "it is \(kind), not a regular file: name a regular file"
            case .tooLarge(let seen, let limit):
                "the file is \(seen.map { "\($0) bytes" } ?? "more than \(limit) bytes"), over the limit of \(limit) bytes "
                    + "(\(Self.shown(limit))): is it the right file?"
            }
        }

        public var description: String { message }

        /// `limit` as a message names it: `4 MiB`, `64 KiB`.
        private static func shown(_ limit: Int) -> String {
            limit >= 1_048_576 ? "\(limit / 1_048_576) MiB" : "\(limit / 1024) KiB"
        }
    }

    /// The bytes of the regular file at `path`, at most `limit` of them.
    /// - Throws: `Failure.notRegular` for anything but a regular file, `Failure.tooLarge` past the
    ///   limit, `Failure.system` when a call fails (`open`'s ENXIO, a socket's, is named as one).
    public static func bytes(of path: String, limit: Int) throws(Failure) -> [UInt8] {
        let file = try OpenedFile(path)
        let stat: Stat
        do { stat = try file.descriptor.stat() } catch { throw .system(call: "fstat", errno: error) }
        guard stat.type == .regular else { throw .notRegular(kind: kindName(stat.type)) }
        guard stat.size <= Int64(limit) else { throw .tooLarge(size: stat.size, limit: limit) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(stat.size))
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let read = Result(catchingErrno: {
                try chunk.withUnsafeMutableBytes { try file.descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted])) }
            })
            switch read {
            case .success(0): return bytes
            case .success(let n): bytes += chunk[..<n]
            case .failure(let errno): throw .system(call: "read", errno: errno)
            }
        }
        throw .tooLarge(size: nil, limit: limit)
    }

    /// What the file at `path` is when it is there and not a regular file (`a FIFO`), so a
    /// configuration check can refuse a file read later; `nil` for a regular file and for one that
    /// cannot be opened (a missing file is for its reader to report).
    public static func nonRegularKind(at path: String) -> String? {
        let file: OpenedFile
        do { file = try OpenedFile(path) } catch {
            if case .notRegular(let kind) = error { return kind }
            return nil
        }
        guard let type = try? file.descriptor.stat().type, type != .regular else { return nil }
        return kindName(type)
    }

    /// A file type as a message names it: `a character device`.
    static func kindName(_ type: FileType) -> String {
        switch type {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .fifo: "a FIFO"
        case .socket: "a socket"
        case .characterSpecial: "a character device"
        case .blockSpecial: "a block device"
        case .symbolicLink: "a symbolic link"
        default: "an unknown kind of file"
        }
    }
}

/// A descriptor opened read-only and non-blocking, owned here and closed in `deinit`.
private final class OpenedFile {
    let descriptor: FileDescriptor

    /// `open(2)` with `O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY` (swift-system retries EINTR).
    /// A socket cannot be opened (ENXIO): `stat(2)` of the path then names it as one.
    init(_ path: String) throws(BoundedFileRead.Failure) {
        let options: FileDescriptor.OpenOptions = [.nonBlocking, .closeOnExec, .init(rawValue: O_NOCTTY)]
        switch Result(catchingErrno: { try FileDescriptor.open(FilePath(path), .readOnly, options: options) }) {
        case .success(let fd): descriptor = fd
        case .failure(.noSuchAddressOrDevice) where (try? FilePath(path).stat())?.type == .socket:
            throw .notRegular(kind: BoundedFileRead.kindName(.socket))
        case .failure(let errno): throw .system(call: "open", errno: errno)
        }
    }

    deinit { try? descriptor.close() }
}
