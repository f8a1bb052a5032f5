#if canImport(Glibc)
import Glibc
#endif
import Logging
import SystemCalls
import SystemPackage

/// Codes waiting on disk, oldest first, within a byte bound: a `DurableOutbox`'s spool (MQTT's
/// for the broker, `mqtt.spool_directory` and `mqtt.spool_max_bytes`; the webhook's for a
/// receiver, `webhook.*`).
///
/// One file, `<directory>/<name>.mqtt-spool` (`.webhook-spool`: the file, its header line and the
/// messages name the handler that owns it, `Owner`; mode 0600), holds a header line and records added
/// at its end and taken from its front. A record is its length (4 bytes, little-endian), an
/// FNV-1a checksum of what follows (4 bytes), a flags byte (QoS, retain), the key's length
/// (2 bytes), the key and the payload. Opening keeps every whole record; a record cut short by
/// a crash, or one whose checksum fails, ends the file there (logged). Records taken are skipped
/// by an offset; the file is rewritten without them once they are most of it, and cut back to
/// its header when none is left. Writes are not synced one by one (a killed process loses
/// nothing the kernel has); `sync()` flushes them to the disk at exit.
///
/// Not thread-safe: one thread (the MQTT handler's, a webhook URL's) owns it. The descriptor is closed in `deinit`.
public final class SpoolFile {
    /// The handler a spool belongs to: what its file name, its header line and its messages say.
    /// The owners' names are those of the files on disk, kept so that earlier runs' spools are read.
    public struct Owner: Sendable {
        /// In messages: `MQTT`, `webhook`.
        public let name: String
        /// Its keys' group: `mqtt` (`mqtt.spool_directory`, `mqtt.spool_max_bytes`).
        public let keys: String
        /// An earlier name of its files (their header MQTT's), taken over when found: the webhook's first spools.
        let formerExtension: String?

        /// MQTT's: `.mqtt-spool`, `syncscan MQTT spool 1` (unchanged, so earlier runs' files are read).
        public static let mqtt = Owner(name: "MQTT", keys: "mqtt", formerExtension: nil)
        /// The webhook's: `.webhook-spool`, `syncscan webhook spool 1`; it took over `.mqtt-spool` files.
        public static let webhook = Owner(name: "webhook", keys: "webhook", formerExtension: ".mqtt-spool")

        /// `.mqtt-spool`, `.webhook-spool`.
        var fileExtension: String { ".\(keys)-spool" }
        /// The file's first line.
        public var header: [UInt8] { Array("syncscan \(name) spool 1\n".utf8) }
        /// The first lines a file of this owner may start with: its own, and MQTT's for a file it took over.
        var readableHeaders: [[UInt8]] { formerExtension == nil ? [header] : [header, Owner.mqtt.header] }
    }

    /// Bytes of a record before its flags: length and checksum.
    private static let recordPrefix = 8

    public let path: FilePath
    public let owner: Owner
    public let maxBytes: Int
    private var fd: FileDescriptor
    /// The length of the file's header line (one taken over keeps its first line until rewritten).
    private var headerLength: Int64
    /// Offset of the oldest record still spooled; `end` is the file's size.
    private var front: Int64
    private var end: Int64
    /// Records spooled.
    public private(set) var count: Int

    /// Bytes of the records spooled (what `maxBytes` bounds).
    public var bytes: Int { Int(end - front) }
    public var isEmpty: Bool { count == 0 }

    /// The file name for a client or URL: `name` with anything but letters, digits, `.`, `_` and
    /// `-` as `_`, then the owner's extension.
    public static func fileName(for name: String, owner: Owner) -> String {
        String(name.unicodeScalars.map { s in
            s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || "._-".unicodeScalars.contains(s)) ? Character(s) : "_"
        }) + owner.fileExtension
    }

    /// Opens (or creates) the spool `fileName` in `directory` and reads what an earlier run left
    /// there; a file of the owner's former name is renamed to `fileName` first (logged).
    /// The directory is created first when missing (with its parents, mode 0700), as the
    /// snapshot directory is.
    public static func open(directory: FilePath, fileName: String, owner: Owner, maxBytes: Int, logger: Logger) -> Result<SpoolFile, IOError> {
        let path = directory.appending(fileName)
        if case .failure(let failed) = makeDirectories(directory.string, mode: 0o700) {
            return .failure(.spoolFailed(path: FilePath(failed.component).appending(fileName), call: "mkdir", errno: failed.errno, owner: owner))
        }
        if let former = owner.formerExtension, fileName.hasSuffix(owner.fileExtension) {
            let formerPath = directory.appending(String(fileName.dropLast(owner.fileExtension.count)) + former)
            let taken = formerPath.withPlatformString { from in path.withPlatformString { to in
                access(to, F_OK) != 0 && access(from, F_OK) == 0 ? valueOrErrno { rename(from, to) }.map { _ in true } : .success(false)
            } }
            switch taken {
            case .success(true):
                logger.notice("the \(owner.name) spool of an earlier version is taken over under its new name", metadata: [
                    "from": "\(LogText.untrusted(formerPath))", "file": "\(LogText.untrusted(path))"])
            case .success(false): break
            case .failure(let errno): return .failure(.spoolFailed(path: formerPath, call: "rename", errno: errno, owner: owner))
            }
        }
        let opened = Result(catchingErrno: {
            try FileDescriptor.open(path, .readWrite, options: [.create, .closeOnExec], permissions: [.ownerReadWrite])
        })
        guard case .success(let fd) = opened else {
            if case .failure(let errno) = opened { return .failure(.spoolFailed(path: path, call: "open", errno: errno, owner: owner)) }
            fatalError("unreachable")
        }
        let spool = SpoolFile(path: path, owner: owner, maxBytes: maxBytes, fd: fd)
        return spool.load(logger: logger).map { spool }
    }

    private init(path: FilePath, owner: Owner, maxBytes: Int, fd: FileDescriptor) {
        (self.path, self.owner, self.maxBytes, self.fd) = (path, owner, maxBytes, fd)
        (front, end, count) = (0, 0, 0)
        headerLength = Int64(owner.header.count)
    }

    deinit { try? fd.close() }

    /// Reads the file: checks the header, counts the whole records, cuts off a damaged tail.
    private func load(logger: Logger) -> Result<Void, IOError> {
        let size: Int64
        switch Result(catchingErrno: { try fd.seek(offset: 0, from: .end) }) {
        case .success(let s): size = s
        case .failure(let errno): return .failure(.spoolFailed(path: path, call: "lseek", errno: errno, owner: owner))
        }
        if size == 0 {
            end = 0
            return write(owner.header, at: 0).map { end = headerLength; front = end }
        }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        if case .failure(let error) = read(into: &bytes, at: 0) { return .failure(error) }
        guard let header = owner.readableHeaders.first(where: { bytes.starts(with: $0) }) else {
            return .failure(IOError(code: .malformedInput, call: "read",
                                    message: "\(path) is not a syncscan \(owner.name) spool (its first line differs): move it away, "
                                        + "or point \(owner.keys).spool_directory elsewhere"))
        }
        headerLength = Int64(header.count)
        var offset = header.count
        var records = 0
        while offset < bytes.count {
            guard let length = Self.recordLength(bytes, at: offset), offset + Self.recordPrefix + length <= bytes.count,
                  Self.checksum(bytes[(offset + Self.recordPrefix)..<(offset + Self.recordPrefix + length)]) == Self.uint32(bytes, at: offset + 4)
            else {
                logger.warning("the \(owner.name) spool ends in a damaged record (cut short by a crash or a full disk); the records before it are kept",
                               metadata: ["file": "\(LogText.untrusted(path))", "kept": "\(records)", "cut_bytes": "\(bytes.count - offset)"])
                if case .failure(let errno) = Result(catchingErrno: { try fd.resize(to: Int64(offset)) }) {
                    return .failure(.spoolFailed(path: path, call: "ftruncate", errno: errno, owner: owner))
                }
                break
            }
            offset += Self.recordPrefix + length
            records += 1
        }
        (front, end, count) = (headerLength, Int64(offset), records)
        return .success(())
    }

    /// Adds `message` after the others; `false` (nothing written) when it would take the spool past `maxBytes`.
    /// A write that fails (a full disk, EIO) leaves the spool as it was: what it wrote of the
    /// record is cut off again (`ftruncate`), so a later append or a restart finds whole records only.
    public func append(_ message: OutboxMessage) -> Result<Bool, IOError> {
        let record = Self.record(message)
        guard bytes + record.count <= maxBytes else { return .success(false) }
        let written = write(record, at: end)
        if case .failure = written { _ = try? fd.resize(to: end) }
        return written.map {
            end += Int64(record.count)
            count += 1
            return true
        }
    }

    /// Takes the oldest message off the spool; `nil` when it is empty.
    public func removeFirst() -> Result<OutboxMessage?, IOError> {
        guard count > 0 else { return .success(nil) }
        var prefix = [UInt8](repeating: 0, count: Self.recordPrefix)
        if case .failure(let error) = read(into: &prefix, at: front) { return .failure(error) }
        guard let length = Self.recordLength(prefix, at: 0) else {
            return .failure(IOError(code: .malformedInput, call: "read", message: "\(path) changed under syncscan: a record's length is wrong"))
        }
        var body = [UInt8](repeating: 0, count: length)
        if case .failure(let error) = read(into: &body, at: front + Int64(Self.recordPrefix)) { return .failure(error) }
        guard let message = Self.message(body) else {
            return .failure(IOError(code: .malformedInput, call: "read", message: "\(path) changed under syncscan: a record does not parse"))
        }
        front += Int64(Self.recordPrefix + length)
        count -= 1
        // Cutting the file back is housekeeping: when it fails (a full disk has no room for the
        // compacted copy), the message is still taken, and it is tried again on a later take.
        // The taken records left in the file come back only after a crash (at least once).
        if count == 0 {
            if (try? fd.resize(to: headerLength)) != nil { (front, end) = (headerLength, headerLength) }
        } else if front > 1 << 20 && front - headerLength > end - front {
            _ = rewrite(before: [])
        }
        return .success(message)
    }

    /// Puts `messages` (older than those spooled) before the others, keeping the newest that fit
    /// in `maxBytes`; how many of `messages` did not fit. Rewrites the file (a temporary file
    /// renamed over it) and syncs it.
    public func prepend(_ messages: [OutboxMessage]) -> Result<Int, IOError> {
        var records = messages.map(Self.record)
        var total = bytes + records.reduce(0) { $0 + $1.count }
        var left = 0
        while total > maxBytes && left < records.count {
            total -= records[left].count
            left += 1
        }
        records.removeFirst(left)
        return rewrite(before: records).map { left }
    }

    /// Flushes the spool to the disk (`fsync`).
    public func sync() -> Result<Void, IOError> {
        valueOrErrno { fsync(fd.rawValue) }.map { _ in () }.mapError { .spoolFailed(path: path, call: "fsync", errno: $0, owner: owner) }
    }

    /// Writes the header, `records`, then the records still spooled to a temporary file beside the
    /// spool, syncs it and renames it over the spool.
    private func rewrite(before records: [[UInt8]]) -> Result<Void, IOError> {
        let temporary = path.removingLastComponent().appending(".\(path.lastComponent?.string ?? "spool").tmp")
        let opened = Result(catchingErrno: {
            try FileDescriptor.open(temporary, .readWrite, options: [.create, .truncate, .closeOnExec], permissions: [.ownerReadWrite])
        })
        guard case .success(let new) = opened else {
            if case .failure(let errno) = opened { return .failure(.spoolFailed(path: temporary, call: "open", errno: errno, owner: owner)) }
            fatalError("unreachable")
        }
        var offset: Int64 = 0
        var added = 0
        func put(_ bytes: [UInt8]) -> Result<Void, IOError> {
            let written = Result(catchingErrno: { try bytes.withUnsafeBytes { _ = try new.writeAll(toAbsoluteOffset: offset, $0) } })
            offset += Int64(bytes.count)
            return written.mapError { [owner] in .spoolFailed(path: temporary, call: "write", errno: $0, owner: owner) }
        }
        var result = put(owner.header)
        for record in records where result.isSuccess {
            result = put(record)
            added += 1
        }
        var position = front
        while result.isSuccess && position < end {
            var chunk = [UInt8](repeating: 0, count: Int(min(1 << 20, end - position)))
            result = read(into: &chunk, at: position).flatMap { put(chunk) }
            position += Int64(chunk.count)
        }
        if result.isSuccess {
            result = valueOrErrno { fsync(new.rawValue) }.map { _ in () }.mapError { [owner] in .spoolFailed(path: temporary, call: "fsync", errno: $0, owner: owner) }
        }
        if result.isSuccess {
            result = temporary.withPlatformString { from in path.withPlatformString { to in valueOrErrno { rename(from, to) } } }
                .map { _ in () }.mapError { [path, owner] in .spoolFailed(path: path, call: "rename", errno: $0, owner: owner) }
        }
        guard result.isSuccess else {
            _ = try? new.close()
            _ = temporary.withPlatformString { unlink($0) }
            return result
        }
        try? fd.close()
        fd = new
        headerLength = Int64(owner.header.count)
        (front, end, count) = (headerLength, offset, count + added)
        return .success(())
    }

    // MARK: - Records

    /// A record: length, checksum, flags (QoS, retain), the key's length, the key, the payload.
    static func record(_ message: OutboxMessage) -> [UInt8] {
        let key = Array(message.key.utf8)
        var body: [UInt8] = [UInt8(message.qos & 3) | (message.retain ? 4 : 0), UInt8(key.count & 0xff), UInt8(key.count >> 8)]
        body += key
        body += message.payload
        var record = littleEndian(UInt32(body.count)) + littleEndian(checksum(body[...]))
        record += body
        return record
    }

    /// The code a record's body (what follows its checksum) holds; `nil` when it does not parse.
    static func message(_ body: [UInt8]) -> OutboxMessage? {
        guard body.count >= 3 else { return nil }
        let keyLength = Int(body[1]) | Int(body[2]) << 8
        guard 3 + keyLength <= body.count, let key = String(validating: body[3..<(3 + keyLength)], as: UTF8.self) else { return nil }
        return OutboxMessage(key: key, payload: Array(body[(3 + keyLength)...]), kind: .code, qos: Int(body[0] & 3), retain: body[0] & 4 != 0)
    }

    /// The body length of the record at `offset`, if its length field is there and plausible.
    private static func recordLength(_ bytes: [UInt8], at offset: Int) -> Int? {
        guard offset + recordPrefix <= bytes.count else { return nil }
        let length = Int(uint32(bytes, at: offset))
        return length >= 3 ? length : nil
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// FNV-1a, 32 bits.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(2_166_136_261 as UInt32) { ($0 ^ UInt32($1)) &* 16_777_619 }
    }

    // MARK: - I/O

    private func write(_ bytes: [UInt8], at offset: Int64) -> Result<Void, IOError> {
        Result(catchingErrno: { try bytes.withUnsafeBytes { _ = try fd.writeAll(toAbsoluteOffset: offset, $0) } })
            .mapError { [path, owner] in .spoolFailed(path: path, call: "write", errno: $0, owner: owner) }
    }

    private func read(into buffer: inout [UInt8], at offset: Int64) -> Result<Void, IOError> {
        let (fd, path, owner) = (self.fd, self.path, self.owner)
        return buffer.withUnsafeMutableBytes { raw -> Result<Void, IOError> in
            var done = 0
            while done < raw.count {
                let n = Result(catchingErrno: {
                    try fd.read(fromAbsoluteOffset: offset + Int64(done), into: UnsafeMutableRawBufferPointer(rebasing: raw[done...]))
                })
                switch n {
                case .success(0):
                    return .failure(IOError(code: .malformedInput, call: "pread", message: "\(path) is shorter than syncscan wrote it"))
                case .success(let count): done += count
                case .failure(let errno): return .failure(.spoolFailed(path: path, call: "pread", errno: errno, owner: owner))
                }
            }
            return .success(())
        }
    }
}

extension Result {
    fileprivate var isSuccess: Bool { if case .success = self { true } else { false } }
}

extension IOError {
    /// A call on `owner`'s spool at `path` failed with `errno`, and what to do (naming the owner's keys).
    static func spoolFailed(path: FilePath, call: String, errno: Errno, owner: SpoolFile.Owner) -> IOError {
        let directory = path.removingLastComponent()
        let advice = switch errno {
        case .noSuchFileOrDirectory: "the directory \(directory) cannot be made: point \(owner.keys).spool_directory at a path whose parents exist"
        case .permissionDenied, .notPermitted:
            "\(directory) is not writable for this user: under systemd the unit's StateDirectory= is (the default), or add the directory to ReadWritePaths="
        case .readOnlyFileSystem:
            "\(directory) is on a read-only file system (under systemd, ProtectSystem= makes it so unless it is in ReadWritePaths=): point \(owner.keys).spool_directory at a writable one"
        case .noSpace, .diskQuotaExceeded: "the file system of \(directory) is full: free space there (the spool is tried again by itself), or lower \(owner.keys).spool_max_bytes"
        case .notDirectory: "\(directory) is a file, not a directory: point \(owner.keys).spool_directory at a directory"
        case .ioError: "the disk under \(directory) reported an I/O error: check it (the spool is tried again by itself)"
        default: "check \(directory)"
        }
        return IOError(call: call, message: "the \(owner.name) spool \(path) failed: \(advice)", errno: errno)
    }
}
