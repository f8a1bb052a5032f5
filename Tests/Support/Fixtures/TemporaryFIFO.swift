import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A FIFO (`mkfifo(3)`) in the temporary directory; removed when this is deinitialised.
public final class TemporaryFIFO: @unchecked Sendable {
    public let path: String

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-\(UUID().uuidString).fifo").path
        guard mkfifo(path, 0o600) == 0 else { throw FixtureError.toolFailed("mkfifo \(path) failed: errno \(errno)") }
    }

    deinit { unlink(path) }
}
