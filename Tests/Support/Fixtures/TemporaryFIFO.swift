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

/// A FIFO's write end held open by the test and never written to (`open(2)` with `O_RDWR`, which
/// on Linux neither blocks nor needs a reader): a reader's `open` returns, its `read` waits.
public final class SilentFIFOWriter: @unchecked Sendable {
    private let descriptor: Int32

    public init(_ fifo: TemporaryFIFO) throws {
        descriptor = open(fifo.path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw FixtureError.toolFailed("open \(fifo.path) O_RDWR failed: errno \(errno)") }
    }

    deinit { close(descriptor) }
}
