import Foundation
import Media

/// A frame source that plays a script of events, for pipeline tests.
///
/// Frames are blank greyscale unless the script supplies bytes. It counts the pixel buffers
/// still alive, so tests can prove that dropped frames are released at once and that nothing
/// queues without bound.
public final class ScriptedFrameSource: FrameSource, @unchecked Sendable {
    /// One step of the script.
    public enum Step: Sendable {
        /// A frame with this source sequence number (pts = seq / 30 s unless given).
        case frame(UInt64, pixels: [UInt8]? = nil, pts: MediaTime? = nil)
        /// A frame the source itself lost (an error-flagged buffer, say).
        case dropped(UInt64, DroppedReason)
        /// `next()` throws this error.
        case fail(String)
    }

    public struct ScriptError: Error, CustomStringConvertible {
        public var description: String
    }

    public let uri: String
    public let isLive: Bool
    public let width: Int
    public let height: Int
    private let lock = NSLock()
    private var steps: [Step]
    private var index = 0
    private var stopped = false
    private var _liveBuffers = 0
    private var _maximumLiveBuffers = 0
    private let interval: Duration?
    private let described: SourceReport?
    private let decoder: (any CompressedFrameDecoder)?
    private let stampsCapture: Bool

    /// - Parameters:
    ///   - interval: pause before each step, as a camera's frame interval; `nil` for none.
    ///   - report: what the source says of itself (`report`); `nil`: kind `scripted`, its size in
    ///     `GREY` at the interval's rate (origin `script`).
    ///   - decoder: frames are MJPEG (the script's bytes a JPEG each, of any length) carrying this
    ///     decoder, as a camera's; `nil`: GREY.
    ///   - stampsCapture: each frame's `capturedAt` is the monotonic time `next()` made it, as a
    ///     live camera's; `false`: none, as a file's.
    public init(steps: [Step], isLive: Bool, width: Int = 64, height: Int = 48, interval: Duration? = nil, report: SourceReport? = nil,
                decoder: (any CompressedFrameDecoder)? = nil, stampsCapture: Bool = false) {
        self.stampsCapture = stampsCapture
        self.described = report
        self.decoder = decoder
        self.steps = steps
        self.isLive = isLive
        self.width = width
        self.height = height
        self.interval = interval
        self.uri = "scripted:\(steps.count)"
    }

    /// `count` consecutive frames starting at `first`.
    public static func frames(_ count: Int, from first: UInt64 = 0) -> [Step] {
        (0..<UInt64(count)).map { .frame(first + $0) }
    }

    public func start() throws {}

    public var report: SourceReport {
        described ?? SourceReport(kind: "scripted", label: "scripted frames (\(lock.withLock { steps.count }) steps)", mode: SourceMode(
            width: width, height: height, format: "GREY", framesPerSecond: interval.map { 1 / (Double($0.components.attoseconds) / 1e18
                + Double($0.components.seconds)) }, origin: "script"))
    }

    public func next() throws -> SourceEvent? {
        if let interval { Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18) }
        let step: Step? = lock.withLock {
            guard !stopped, index < steps.count else { return nil }
            defer { index += 1 }
            return steps[index]
        }
        guard let step else { return nil }
        switch step {
        case .frame(let seq, let pixels, let pts):
            let bytes = pixels ?? [UInt8](repeating: 0xFF, count: width * height)
            precondition(decoder != nil || bytes.count == width * height, "scripted frame has the wrong size")
            return .frame(VideoFrame(sequenceNumber: seq, presentationTime: pts ?? MediaTime(nanoseconds: Int64(seq) * 33_333_333),
                                     width: width, height: height, bytesPerLine: decoder == nil ? width : 0,
                                     format: decoder == nil ? .grey : .mjpeg, buffer: makeBuffer(bytes), decoder: decoder,
                                     capturedAt: stampsCapture ? .monotonicNow() : nil))
        case .dropped(let seq, let reason):
            return .dropped(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 33_333_333),
                            reason: reason, detail: "scripted")
        case .fail(let message):
            throw ScriptError(description: message)
        }
    }

    public func stop() { lock.withLock { stopped = true } }

    /// Pixel buffers handed out and not yet released.
    public var liveBuffers: Int { lock.withLock { _liveBuffers } }
    /// The most pixel buffers alive at once during the run.
    public var maximumLiveBuffers: Int { lock.withLock { _maximumLiveBuffers } }

    private func makeBuffer(_ bytes: [UInt8]) -> PixelBuffer {
        lock.withLock {
            _liveBuffers += 1
            _maximumLiveBuffers = max(_maximumLiveBuffers, _liveBuffers)
        }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 64)
        storage.copyBytes(from: bytes)
        return PixelBuffer(bytes: UnsafeRawBufferPointer(storage)) { [self] in
            storage.deallocate()
            lock.withLock { _liveBuffers -= 1 }
        }
    }
}
