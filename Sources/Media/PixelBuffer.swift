/// Frame bytes lent by a source, returned to it when the last reference goes away.
///
/// A V4L2 source wraps an mmap'd kernel buffer and requeues it (VIDIOC_QBUF) in `release`;
/// a file source returns its storage to a pool. Either way no frame is copied to be scanned,
/// and a frame dropped by the late-frame policy goes back at once.
public final class PixelBuffer: @unchecked Sendable {
    /// The frame's bytes. Valid until this object is deinitialised.
    public let bytes: UnsafeRawBufferPointer
    private let release: () -> Void

    /// Wraps `bytes`; `release` runs exactly once, when the buffer is no longer referenced.
    public init(bytes: UnsafeRawBufferPointer, release: @escaping () -> Void) {
        self.bytes = bytes
        self.release = release
    }

    deinit { release() }
}
