import SystemPackage

/// A file read whole, but never past a limit: the configuration file, a secret file.
///
/// `open(2)`, `fstat(2)`, then `read(2)` in chunks: a regular file larger than the limit is
/// refused before a byte is read; anything else (a device such as `/dev/zero`, a pipe) is read
/// to at most `limit + 1` bytes, and refused when it has more.
enum BoundedFileRead {
    /// Why the file was not read.
    enum Failure: Error, Sendable, Equatable {
        /// `call` (`open`, `fstat`, `read`) failed.
        case system(call: String, errno: Errno)
        /// It holds more than `limit` bytes: `seen` bytes (a regular file's size), or more than
        /// `limit` read from a device or a pipe (`seen` is then `limit + 1`).
        case tooLarge(seen: Int64, limit: Int, kind: String)

        /// What went wrong, and what to do, for a message that names the file before it.
        var message: String {
            switch self {
            case .system(let call, let errno):
                // A failed open is the common case (a wrong path), and says enough by its errno.
                errno.description + (call == "open" ? "" : " (\(call))")
            case .tooLarge(let seen, let limit, let kind) where kind == "a regular file":
                "the file is \(seen) bytes, over the limit of \(limit) bytes (\(limit / 1_048_576) MiB): is it the right file?"
            case .tooLarge(_, let limit, let kind):
                "it is \(kind), and more than its limit of \(limit) bytes (\(limit / 1_048_576) MiB) came from it: "
                    + "give a regular file"
            }
        }
    }

    /// The bytes of the file at `path`, at most `limit` of them.
    /// - Throws: `Failure.tooLarge` past the limit; `Failure.system` when a call fails.
    static func bytes(of path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec]) } catch {
            throw .system(call: "open", errno: error as? Errno ?? .ioError)
        }
        defer { try? fd.close() }
        let stat: Stat
        do { stat = try fd.stat() } catch { throw .system(call: "fstat", errno: error) }
        let kind = kindName(stat.type)
        if stat.type == .regular, stat.size > Int64(limit) { throw .tooLarge(seen: stat.size, limit: limit, kind: kind) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let n: Int
            do { n = try chunk.withUnsafeMutableBytes { try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted])) } } catch {
                throw .system(call: "read", errno: error as? Errno ?? .ioError)
            }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
        }
        throw .tooLarge(seen: Int64(bytes.count), limit: limit, kind: kind)
    }

    /// A file type as a message names it: `a character device`.
    private static func kindName(_ type: FileType) -> String {
        switch type {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .fifo: "a FIFO or pipe"
        case .socket: "a socket"
        case .characterSpecial: "a character device"
        case .blockSpecial: "a block device"
        default: "an unknown kind of file"
        }
    }
}
