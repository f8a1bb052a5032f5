/// Frame bytes lent by a source, returned to it when the last reference goes away.
///
/// A V4L2 source wraps an mmap'd kernel buffer and requeues it (VIDIOC_QBUF) in `release`;
/// a file source returns its storage to a pool. Either way no frame is copied to be scanned,
/// and a frame dropped by the late-frame policy goes back at once. The bytes are lent only for
/// the duration of `withUnsafeBytes`, so no pointer to them outlives the buffer.
public final class PixelBuffer: @unchecked Sendable {  // unchecked: lent raw bytes, read-only, and a release closure that runs once, in deinit
    private let bytes: UnsafeRawBufferPointer
    private let release: () -> Void

    /// Wraps `bytes`, which stay valid until `release` runs: exactly once, when the buffer is no
    /// longer referenced.
    public init(bytes: UnsafeRawBufferPointer, release: @escaping () -> Void) {
        self.bytes = bytes
        self.release = release
    }

    deinit { release() }

    /// How many bytes the buffer holds.
    public var count: Int { bytes.count }

    /// Calls `body` with the frame's bytes; they must not be used after it returns.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(bytes) }
    }
}
