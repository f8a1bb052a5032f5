import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tmpfs of a few KiB mounted on a fresh directory, which a test fills and frees to play a
/// full disk (`mount -t tmpfs -o size=…`; needs root, as CI runs); unmounted when released.
public final class SmallFileSystem: @unchecked Sendable {
    /// Where it is mounted.
    public let path: String
    private var filler: String { path + "/.filler" }

    /// Whether this process may mount one (root).
    public static var canMount: Bool { geteuid() == 0 }

    public init(kibibytes: Int) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-small-fs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let mounted = try ExternalTool.run("mount", ["-t", "tmpfs", "-o", "size=\(kibibytes)k,mode=0777", "tmpfs", path])
        guard mounted.status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw FixtureError.toolFailed("a small tmpfs cannot be mounted: \(mounted.describe())")
        }
    }

    deinit {
        _ = try? ExternalTool.run("umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Takes every free block but `leaving` bytes with a file of its own (written until `write`
    /// fails with ENOSPC, then cut back by `leaving`); the bytes it took.
    @discardableResult
    public func fill(leaving: Int = 0) throws -> Int {
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FixtureError.toolFailed("open \(filler): errno \(errno)") }
        defer { close(fd) }
        let block = [UInt8](repeating: 0x55, count: 4096)
        var taken = 0
        while true {
            let n = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 { taken += n; continue }
            if n < 0 && errno == EINTR { continue }
            guard n < 0 && errno == ENOSPC else { throw FixtureError.toolFailed("write \(filler): errno \(errno)") }
            let kept = max(0, taken - leaving)
            guard ftruncate(fd, off_t(kept)) == 0 else { throw FixtureError.toolFailed("ftruncate \(filler): errno \(errno)") }
            return kept
        }
    }

    /// Gives back what `fill` took: the file is cut to nothing (`truncate`) before it is removed,
    /// since a child process another test started while `fill` held the file open keeps it (and
    /// its blocks, the disk still full) until that child's `exec`.
    public func free() {
        truncate(filler, 0)
        unlink(filler)
    }
}
