import Foundation
import Media
import Synchronization
import SystemCalls

/// A copy of a frame's pixels (the whole frame or a crop), held after the source got its
/// buffer back, in storage lent by a `FramePixelPool`.
///
/// The bytes are laid out as a single-planar frame of `format` at `width`×`height` with luma
/// rows of `bytesPerLine` (`PixelFormat.planes(height:bytesPerLine:)`). The storage goes back to
/// the pool when the last reference goes away. Equal only to itself.
///
/// A compressed frame (MJPEG) is copied as the grey plane it was decoded to (`format` is `grey`,
/// `frame.format` `MJPG`); a copy of the whole of it also keeps the camera's own bytes
/// (`cameraJPEG`), so a snapshot can be the camera's JPEG as it came.
public final class FramePixels: @unchecked Sendable, Hashable {  // unchecked: owns a raw buffer, written once before it is shared and read-only after
    /// The frame the pixels were copied from.
    public let frame: FrameInfo
    /// The part of the frame copied, in frame pixels.
    public let region: PixelRect
    public let format: PixelFormat
    public var width: Int { region.width }
    public var height: Int { region.height }
    /// Bytes per row of the copied luma plane.
    public let bytesPerLine: Int
    /// The camera's own compressed frame (a JPEG), byte for byte, when the whole of a compressed
    /// frame was copied; `nil` otherwise.
    public let cameraJPEG: [UInt8]?
    private let storage: UnsafeMutableRawBufferPointer
    private let byteCount: Int
    private let pool: FramePixelPool
    private let delivered = Atomic<Bool>(false)

    init(frame: FrameInfo, format: PixelFormat, region: PixelRect, bytesPerLine: Int, storage: UnsafeMutableRawBufferPointer,
         byteCount: Int, cameraJPEG: [UInt8]?, pool: FramePixelPool) {
        self.frame = frame
        self.region = region
        self.format = format
        self.cameraJPEG = cameraJPEG
        self.bytesPerLine = bytesPerLine
        self.storage = storage
        self.byteCount = byteCount
        self.pool = pool
    }

    deinit { pool.recycle(storage, of: frame.sequenceNumber, delivered: delivered.load(ordering: .acquiring)) }

    /// Calls `body` with the copied bytes; they must not be used after it returns.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in
            try body(UnsafeRawBufferPointer(rebasing: storage[0..<byteCount]))
        }
    }

    /// Marks the pixels as handed to the results handlers: from now on their pool slot frees
    /// itself without waiting for frames still being scanned (see `FramePixelPool`).
    public func markDelivered() {
        if !delivered.exchange(true, ordering: .acquiringAndReleasing) { pool.noteDelivered(frame.sequenceNumber) }
    }

    public static func == (a: FramePixels, b: FramePixels) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A bounded set of buffers frames' pixels are copied into, so the source's own buffers (mmap'd
/// V4L2 buffers, of which the driver has only `device.buffers`) go back at once.
///
/// At most `capacity` copies exist at a time. When all are taken, `copy` skips the frame and
/// counts it (`skipped`), unless asked to wait (a file source, whose every code is to have its
/// pixels): then it waits while some copy will come back without this frame's help, one that
/// has been delivered (`FramePixels.markDelivered`: a handler frees it), or one of an earlier
/// frame (delivered before this one, it then frees the same way). A frame earlier than every
/// undelivered copy is not waited for: the copies after it are delivered only after it, so
/// waiting could deadlock. It takes a copy beyond `capacity` instead, at most one per scanning
/// thread, and the copies after it follow once it is delivered.
public final class FramePixelPool: Sendable {
    /// Copies that may exist at once.
    public let capacity: Int
    /// The buffers and counts, under the pool's one lock (its condition wakes a waiting `copy`).
    private struct State {
        /// Buffers back from their copies, for the next ones (owned by the pool; only this lock hands them out).
        var free: [FreeBuffer] = []
        var lent = 0
        var lentDelivered = 0
        /// The frames (sequence numbers) of the copies lent and not yet delivered.
        var undelivered: [UInt64] = []
        var skipped = 0
        var copied = 0
    }

    private let state = LockedValue(State())

    private struct FreeBuffer: @unchecked Sendable {  // unchecked: a raw buffer no one else holds, kept under the pool's lock
        let storage: UnsafeMutableRawBufferPointer
    }

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    deinit { state.withLock { for buffer in $0.free { buffer.storage.deallocate() } } }

    /// Frames whose pixels were not copied because every buffer was taken.
    public var skipped: Int { state.withLock { $0.skipped } }
    /// Frames whose pixels were copied.
    public var copied: Int { state.withLock { $0.copied } }
    /// Copies that exist now.
    public var lentCount: Int { state.withLock { $0.lent } }

    /// Copies `region` of `frame` (the whole frame when `nil`; widened to `format.cropAlignment`
    /// and clamped to the frame), or returns `nil` and counts a skip when no buffer is free.
    /// - Parameters:
    ///   - wait: wait for a delivered copy to come back rather than skip (a file source).
    ///   - decodedFrom: for `frame` decoded from a compressed frame, that frame's info and bytes:
    ///     the copy is named after it, and a whole-frame copy keeps the bytes (`cameraJPEG`).
    public func copy(_ frame: VideoFrame, region: PixelRect? = nil, wait: Bool = false,
                     decodedFrom compressed: (info: FrameInfo, bytes: UnsafeRawBufferPointer)? = nil) -> FramePixels? {
        let rect = Self.aligned(region ?? PixelRect(x: 0, y: 0, width: frame.width, height: frame.height),
                                format: frame.format, width: frame.width, height: frame.height)
        guard rect.width > 0, rect.height > 0 else { return nil }
        let bytesPerLine = frame.format.minimumBytesPerLine(width: rect.width)
        let byteCount = frame.format.frameSize(width: rect.width, height: rect.height, bytesPerLine: bytesPerLine)
        guard let storage = take(byteCount: byteCount, wait: wait, for: compressed?.info.sequenceNumber ?? frame.sequenceNumber) else { return nil }
        let source = frame.format.planes(height: frame.height, bytesPerLine: frame.bytesPerLine)
        let destination = frame.format.planes(height: rect.height, bytesPerLine: bytesPerLine)
        frame.buffer.withUnsafeBytes { bytes in
            for (from, to) in zip(source, destination) {
                let columns = from.columnBytes(x: rect.x, width: rect.width)
                for (row, out) in zip(from.rowRange(y: rect.y, height: rect.height), 0...) {
                    let start = from.offset + row * from.bytesPerLine + columns.lowerBound
                    guard start + columns.count <= bytes.count else { continue }
                    UnsafeMutableRawBufferPointer(rebasing: storage[(to.offset + out * to.bytesPerLine)...])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + columns.count)]))
                }
            }
        }
        let whole = rect.width == frame.width && rect.height == frame.height
        return FramePixels(frame: compressed?.info ?? frame.info, format: frame.format, region: rect, bytesPerLine: bytesPerLine,
                           storage: storage, byteCount: byteCount, cameraJPEG: whole ? compressed.map { Array($0.bytes) } : nil, pool: self)
    }

    /// `rect` widened outwards to `format`'s crop alignment and clamped to a `width`×`height` frame.
    static func aligned(_ rect: PixelRect, format: PixelFormat, width: Int, height: Int) -> PixelRect {
        let (ax, ay) = format.cropAlignment
        let clamped = rect.clamped(width: width, height: height)
        let x0 = clamped.x / ax * ax, y0 = clamped.y / ay * ay
        let x1 = min(width, (clamped.x + clamped.width + ax - 1) / ax * ax)
        let y1 = min(height, (clamped.y + clamped.height + ay - 1) / ay * ay)
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// A buffer for a copy of frame `sequenceNumber`, or `nil` (counted) when every one is taken
    /// and `wait` is not set; with `wait`, see the type for what is waited for.
    private func take(byteCount: Int, wait: Bool, for sequenceNumber: UInt64) -> UnsafeMutableRawBufferPointer? {
        let capacity = self.capacity
        // Whether a taken copy will come back without frame `sequenceNumber` being delivered.
        func returnsWithoutThisFrame(_ state: State) -> Bool {
            state.lentDelivered > 0 || state.undelivered.contains { $0 < sequenceNumber }
        }
        let taken: (FreeBuffer?, Bool) = state.withLock(
            when: { !(wait && $0.lent >= capacity && returnsWithoutThisFrame($0)) }) { state, _ in
            guard state.lent < capacity || wait else {
                state.skipped += 1
                return (nil, false)
            }
            state.lent += 1
            state.copied += 1
            state.undelivered.append(sequenceNumber)
            return (state.free.popLast(), true)
        }
        guard taken.1 else { return nil }
        if let reused = taken.0?.storage, reused.count >= byteCount { return reused }
        taken.0?.storage.deallocate()
        return .allocate(byteCount: max(byteCount, 1), alignment: 64)
    }

    fileprivate func noteDelivered(_ sequenceNumber: UInt64) {
        state.withLock { state in
            state.lentDelivered += 1
            state.undelivered.removeFirst(sequenceNumber)
        }
    }

    fileprivate func recycle(_ storage: UnsafeMutableRawBufferPointer, of sequenceNumber: UInt64, delivered: Bool) {
        state.withLock { state in
            state.lent -= 1
            if delivered { state.lentDelivered -= 1 } else { state.undelivered.removeFirst(sequenceNumber) }
            state.free.append(FreeBuffer(storage: storage))
        }
        state.broadcast()
    }
}

extension Array where Element == UInt64 {
    /// Removes the first element equal to `value`, if any.
    fileprivate mutating func removeFirst(_ value: UInt64) {
        if let index = firstIndex(of: value) { remove(at: index) }
    }
}
