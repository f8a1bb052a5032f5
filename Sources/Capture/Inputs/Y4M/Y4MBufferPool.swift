import Foundation
import Media

/// Frame storage for a Y4M input: a small free list of equal-sized buffers.
///
/// `take()` reuses a free buffer or allocates one; a `PixelBuffer` made by `pixelBuffer(_:)`
/// gives its storage back when the pipeline lets go of the frame. At most `retainedLimit` free
/// buffers are kept; any beyond that are freed, so the pool never grows past what was in flight
/// at once plus that limit. Outstanding buffers keep the pool alive, so they may outlive the source.
final class Y4MBufferPool: @unchecked Sendable {
    /// Bytes in each buffer.
    let byteCount: Int
    /// Free buffers kept for reuse.
    let retainedLimit: Int
    private let lock = NSLock()
    private var free: [UnsafeMutableRawBufferPointer] = []
    private var allocations = 0

    init(byteCount: Int, retainedLimit: Int = 4) {
        self.byteCount = byteCount
        self.retainedLimit = retainedLimit
        free.reserveCapacity(retainedLimit)
    }

    deinit {
        for storage in free { storage.deallocate() }
    }

    /// How many buffers were ever allocated (tests assert reuse with it).
    var allocationCount: Int { lock.withLock { allocations } }

    /// How many free buffers are waiting for reuse.
    var freeCount: Int { lock.withLock { free.count } }

    /// A buffer of `byteCount` bytes, reused when one is free.
    func take() -> UnsafeMutableRawBufferPointer {
        let reused: UnsafeMutableRawBufferPointer? = lock.withLock {
            if let storage = free.popLast() { return storage }
            allocations += 1
            return nil
        }
        return reused ?? .allocate(byteCount: max(byteCount, 1), alignment: 64)
    }

    /// Returns `storage` (from `take()`) for reuse, or frees it when enough are kept.
    func recycle(_ storage: UnsafeMutableRawBufferPointer) {
        let kept = lock.withLock {
            guard free.count < retainedLimit else { return false }
            free.append(storage)
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
