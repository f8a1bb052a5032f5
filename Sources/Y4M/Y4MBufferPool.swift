import Media
import SystemCalls

/// Frame storage for a Y4M input: a small free list of equal-sized buffers.
///
/// `take()` reuses a free buffer or allocates one; a `PixelBuffer` made by `pixelBuffer(_:)`
/// gives its storage back when the pipeline lets go of the frame. At most `retainedLimit` free
/// buffers are kept; any beyond that are freed, so the pool never grows past what was in flight
/// at once plus that limit. Outstanding buffers keep the pool alive, so they may outlive the source.
final class Y4MBufferPool: Sendable {
    /// Bytes in each buffer.
    let byteCount: Int
    /// Free buffers kept for reuse.
    let retainedLimit: Int
    /// A buffer owned by the pool while free: no frame refers to it.
    private struct FreeBuffer: @unchecked Sendable {  // unchecked: a raw buffer the pool alone owns while it is free
        let storage: UnsafeMutableRawBufferPointer
    }
    private struct State {
        var free: [FreeBuffer] = []
        var allocations = 0
    }
    private let state = LockedValue(State())

    init(byteCount: Int, retainedLimit: Int = 4) {
        self.byteCount = byteCount
        self.retainedLimit = retainedLimit
        state.withLock { $0.free.reserveCapacity(retainedLimit) }
    }

    deinit {
        state.withLock { state in
            for buffer in state.free { buffer.storage.deallocate() }
        }
    }

    /// How many buffers were ever allocated (tests assert reuse with it).
    var allocationCount: Int { state.withLock { $0.allocations } }

    /// How many free buffers are waiting for reuse.
    var freeCount: Int { state.withLock { $0.free.count } }

    /// A buffer of `byteCount` bytes, reused when one is free.
    func take() -> UnsafeMutableRawBufferPointer {
        let reused: FreeBuffer? = state.withLock { state in
            if let buffer = state.free.popLast() { return buffer }
            state.allocations += 1
            return nil
        }
        return reused?.storage ?? .allocate(byteCount: max(byteCount, 1), alignment: 64)
    }

    /// Returns `storage` (from `take()`) for reuse, or frees it when enough are kept.
    func recycle(_ storage: UnsafeMutableRawBufferPointer) {
        let buffer = FreeBuffer(storage: storage)
        let kept = state.withLock { state in
            guard state.free.count < retainedLimit else { return false }
            state.free.append(buffer)
            return true
        }
        if !kept { storage.deallocate() }
    }

    /// Lends `storage` to the pipeline as the first `byteCount` bytes; recycled on release.
    func pixelBuffer(_ storage: UnsafeMutableRawBufferPointer) -> PixelBuffer {
        let bytes = UnsafeRawBufferPointer(rebasing: storage[..<byteCount])
        return PixelBuffer(bytes: bytes) { [self] in recycle(storage) }
    }
}
