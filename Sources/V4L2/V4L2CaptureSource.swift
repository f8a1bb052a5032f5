import Logging
import Media
import SystemCalls
import SystemPackage

/// A camera read through libv4l2 with mmap streaming: a `FrameSource` that survives unplugs.
///
/// `start()` opens the device (non-blocking), checks it streams video capture, chooses the mode
/// by frame rate (`CaptureModeSelection`), maps the buffers and issues VIDIOC_STREAMON. `next()`
/// blocks in `poll` on the session's source thread and returns frames that wrap the mmap'd bytes
/// without a copy; releasing a frame requeues its buffer (VIDIOC_QBUF) from whatever thread
/// releases it. MJPEG frames (with a decoder given) carry it: a scanning thread decodes them to
/// grey and releases the buffer right after; one that does not decode is an `undecodable` drop.
///
/// Faults: an unplug (ENODEV, EIO, POLLERR) tears the stream down and reopens the path with
/// capped exponential backoff until the device is back; a stall (no buffer for
/// `stallTimeoutFrameIntervals` frame intervals, after `gracePeriod` from opening) reopens once;
/// frames that arrive but none decodable for as long also reopen once (`CompressedFrameTracking`);
/// EBUSY/EACCES, and at the first open a failure to set up streaming once the format is agreed
/// (REQBUFS, QBUF, STREAMON), are retried `busyRetryLimit` times, then thrown. `stop()` interrupts both a poll
/// and a backoff sleep at once (an eventfd in the poll set).
public final class V4L2CaptureSource: FrameSource, Sendable {
    /// The device path being captured (`/dev/video0`, `/dev/v4l/by-id/…`).
    public let path: String
    /// `v4l2:` followed by the path.
    public let uri: String
    public var isLive: Bool { true }
    public let configuration: Configuration
    private let kernel: any V4L2Kernel
    private let logger: Logger
    private let wake: WakeSignal
    /// Decodes MJPEG frames (if a decoder was given) and watches what does not decode.
    private let tracking: CompressedFrameTracking

    /// One open streaming device; replaced on every reopen.
    /// Touched only by the source thread (or by `stop()` when no source call is running).
    private final class Stream: @unchecked Sendable {  // unchecked: its `var`s are the source thread's alone (or `stop()`'s when no source call runs)
        let queue: V4L2BufferQueue
        let format: NegotiatedFormat
        let openedAt: ContinuousClock.Instant
        var lastBufferAt: ContinuousClock.Instant
        /// The last sequence number delivered or dropped, for a drop the driver gave no number.
        var lastSequence: UInt32?
        init(queue: V4L2BufferQueue, format: NegotiatedFormat, openedAt: ContinuousClock.Instant) {
            self.queue = queue
            self.format = format
            self.openedAt = openedAt
            self.lastBufferAt = openedAt
        }
        var device: V4L2Device { queue.device }
    }

    private struct Control {
        var stopped = false
        /// `start()` or `next()` is running on the source thread: it owns `stream` and tears down.
        var busy = false
        var stream: Stream?
        var opens = 0
        /// When the camera was lost, while it is being waited for.
        var missingSince: ContinuousClock.Instant?
        /// The card's name (VIDIOC_QUERYCAP) at the last open, for the source's label.
        var card: String?
    }
    private let control = LockedValue(Control())
    /// `device.controls`, set on every open; replaced by `setControls`.
    private let controls: CameraControls

    /// A source for the camera `path` names (`/dev/videoN`, `v4l2:/dev/videoN`, `v4l2:///dev/videoN`,
    /// `/dev/v4l/by-id/…`, parsed by `parseURI`); nothing is opened yet.
    /// - Parameter frameDecoder: decodes MJPEG to grey (the JPEG module's `JPEGLumaDecoder`); with
    ///   it MJPEG modes are captured as MJPEG, without it only through libv4l2's conversions.
    public init(path: String, configuration: Configuration = Configuration(), kernel: any V4L2Kernel = SystemV4L2Kernel(),
                frameDecoder: (any CompressedFrameDecoder)? = nil, logger: Logger) throws(IOError) {
        let parsed: SourceURI?
        do throws(SourceURIError) {
            parsed = try Self.parseURI(path)
        } catch {
            throw IOError(code: .invalidArgument, call: "V4L2CaptureSource.init", message: error.description)
        }
        guard let source = parsed else {
            throw IOError(code: .invalidArgument, call: "V4L2CaptureSource.init",
                          message: "\(SourceURI.redactingCredentials(path)) names no camera; \(Self.cameraForms)")
        }
        let devicePath = source.location
        self.path = devicePath
        if let problem = configuration.problem {
            throw IOError.v4l2(.invalidArgument, call: "V4L2CaptureSource.init", device: devicePath, problem: problem,
                               remedy: "fix the camera settings in the configuration")
        }
        uri = source.description
        self.configuration = configuration
        controls = CameraControls(configuration.controls, logger: logger)
        self.kernel = kernel
        self.logger = logger
        tracking = CompressedFrameTracking(decoder: frameDecoder, device: devicePath, logger: logger)
        wake = try WakeSignal()
    }

    deinit { stop() }

    /// The format negotiated on the current open, `nil` while not streaming.
    public var currentFormat: NegotiatedFormat? { control.withLock { $0.stream?.format } }

    /// The card's name (VIDIOC_QUERYCAP's `card`) at the last open; `nil` before the first.
    public var cardName: String? { control.withLock { $0.card } }

    /// Since when a lost camera is being waited for (reopen backoff); `nil` while streaming, and
    /// while a present camera is reopened after a stall.
    public var missingSince: ContinuousClock.Instant? { control.withLock { $0.missingSince } }

    /// How many times the device was opened successfully (1 after `start()`; +1 per reopen).
    public var openCount: Int { control.withLock { $0.opens } }

    /// Opens past the first: reopens after a fault or an unplug.
    public var reopens: Int { max(0, openCount - 1) }

    /// Control settings that failed to apply so far (at reopens and `setControls`).
    public var controlFailures: Int { controls.failures }

    /// The control settings in force: the configuration's, or the last `setControls`.
    public var controlSettings: [V4L2ControlSetting] { controls.settings }

    /// Sets `settings` on the streaming camera now, without restarting the stream, and on every
    /// later open; the errors of those that failed (each logged once per cause and counted).
    /// With no stream open they are only kept for the next open.
    @discardableResult
    public func setControls(_ settings: [V4L2ControlSetting]) -> [V4L2ControlError] {
        controls.settings = settings
        // This reference keeps the stream's device, and so its descriptor, open while it is used here.
        guard let device = control.withLock({ $0.stream })?.device else { return [] }
        return controls.apply(settings, on: device)
    }

    public func start() throws {
        guard enterSourceThread() else { return }
        defer { leaveSourceThread() }
        if control.withLock({ $0.stream }) != nil { return }
        guard let stream = try connect(initial: true) else { return }
        control.withLock { $0.stream = stream }
    }

    public func next() throws -> SourceEvent? {
        guard enterSourceThread() else { return nil }
        defer { leaveSourceThread() }
        while !isStopped {
            guard let stream = control.withLock({ $0.stream }) else {
                guard let reopened = try connect(initial: false) else { return nil }
                control.withLock { $0.stream = reopened }
                continue
            }
            if configuration.stallTimeoutFrameIntervals > 0, stream.format.pixelFormat.isCompressed || stream.format.isEmulated,
               tracking.isStalled(timeout: stallTimeout(stream.format), notBefore: stream.openedAt + configuration.gracePeriod) {
                logger.warning("camera stalled: frames arrive but none decodable within the stall timeout; reopening it",
                               metadata: ["device": "\(LogText.untrusted(path))", "stallTimeout": "\(stallTimeout(stream.format))", "open": "\(stream.queue.generation)"])
                drop(stream)
                continue
            }
            let deadline = stallDeadline(stream)
            let timeout = deadline.map { ContinuousClock.now.duration(to: $0) } ?? .seconds(3600)
            switch kernel.poll(device: stream.device.descriptor, wakeDescriptor: wake.descriptor.rawValue, timeout: max(timeout, .zero)) {
            case .failure(let errno):
                lose(stream, IOError.v4l2(call: "poll", device: path, errno: errno))
            case .success(let events) where events.contains(.wakeUp):
                continue
            case .success(let events) where events.contains(.readable):
                switch stream.queue.dequeue() {
                case .success(let buffer):
                    return event(for: buffer, from: stream)
                case .failure(.resourceTemporarilyUnavailable):
                    continue
                case .failure(.ioError) where stream.format.isEmulated:
                    // libv4l2 gives EIO after failing to convert several frames in a row (each requeued).
                    return undecodable(from: stream, cause: "libv4l2 could not convert the camera's frames to \(stream.format.fourcc)")
                case .failure(let errno):
                    lose(stream, IOError.v4l2(call: "VIDIOC_DQBUF", device: path, errno: errno))
                }
            case .success(let events) where events.contains(.error):
                lose(stream, IOError.v4l2(.disconnected, call: "poll", device: path, problem: "POLLERR on the device",
                                          remedy: "the device went away (unplugged or reset): reconnect it"))
            case .success:
                if stream.queue.buffersInKernel == 0 {
                    // Every buffer is lent out as a frame: the pipeline is behind, the camera is not stalled.
                    stream.lastBufferAt = .now
                } else if let deadline, ContinuousClock.now >= deadline {
                    logger.warning("camera stalled: no frame within the stall timeout; reopening it", metadata: [
                        "device": "\(LogText.untrusted(path))", "stallTimeout": "\(stallTimeout(stream.format))", "open": "\(stream.queue.generation)",
                    ])
                    drop(stream)
                }
            }
        }
        return nil
    }

    public func stop() {
        let stream = control.withLock { control -> Stream? in
            control.stopped = true
            guard !control.busy else { return nil }
            defer { control.stream = nil }
            return control.stream
        }
        wake.signal()
        stream?.queue.retire()
    }

    // MARK: - Stream lifecycle

    private var isStopped: Bool { control.withLock { $0.stopped } }

    /// Marks the source thread as owning the stream; `false` once stopped.
    private func enterSourceThread() -> Bool {
        control.withLock { control in
            guard !control.stopped else { return false }
            control.busy = true
            return true
        }
    }

    /// Ends the source thread's turn; tears the stream down if `stop()` came meanwhile.
    private func leaveSourceThread() {
        let stream = control.withLock { control -> Stream? in
            control.busy = false
            guard control.stopped else { return nil }
            defer { control.stream = nil }
            return control.stream
        }
        stream?.queue.retire()
    }

    /// Stops streaming on `stream` and forgets it; the buffers are unmapped and the device closed
    /// when the last frame lent from it is released.
    private func drop(_ stream: Stream) {
        stream.queue.retire()
        control.withLock { control in
            if control.stream === stream { control.stream = nil }
        }
    }

    /// Drops a stream that failed; the next `next()` iteration reopens with backoff.
    private func lose(_ stream: Stream, _ error: IOError) {
        logger.warning("camera lost; reopening it", metadata: ["device": "\(LogText.untrusted(path))", "error": "\(LogText.error(error))"])
        control.withLock { $0.missingSince = $0.missingSince ?? .now }
        drop(stream)
    }

    /// Opens and starts a stream, retrying per the configuration; `nil` if stopped meanwhile.
    ///
    /// `initial`: a missing device is an error at once (bad path); later it is waited for.
    private func connect(initial: Bool) throws(IOError) -> Stream? {
        var delay = configuration.reconnectBackoffInitial
        var attempt = 0
        var busyFailures = 0
        while !isStopped {
            attempt += 1
            let error: IOError
            do {
                let stream = try openStream(reopen: !initial)
                control.withLock { $0.missingSince = nil }
                return stream
            } catch let e {
                error = e
            }
            // A busy device, or at the first open a driver that took the format but failed to set up
            // streaming (buffers, queueing, stream on): transient; retried, up to a limit.
            let transient = error.code == .busy || error.code == .permissionDenied
                || (initial && Self.streamingSetupCalls.contains(error.call))
            switch error.code {
            case .notSupported, .invalidArgument:
                throw error
            case _ where transient:
                busyFailures += 1
                if busyFailures > configuration.busyRetryLimit {
                    var final = error
                    final.message = "gave up after \(busyFailures) attempts: " + error.message
                    logger.error("camera unavailable; giving up", metadata: ["device": "\(LogText.untrusted(path))", "error": "\(LogText.error(final))"])
                    throw final
                }
            default:
                if initial { throw error }
                if let limit = configuration.missingTimeout,
                   let since = control.withLock({ $0.missingSince }), ContinuousClock.now - since >= limit {
                    var final = error
                    final.message = "camera missing for \(since.duration(to: .now)) (longer than device.missing_timeout \(limit)); "
                        + "giving up so the supervisor can act: " + error.message
                    logger.error("camera missing too long; giving up", metadata: ["device": "\(LogText.untrusted(path))", "error": "\(LogText.error(final))"])
                    throw final
                }
            }
            logger.warning("cannot open the camera; retrying", metadata: [
                "device": "\(LogText.untrusted(path))", "attempt": "\(attempt)", "retryIn": "\(delay)", "error": "\(LogText.error(error))",
            ])
            guard sleep(delay) else { return nil }
            delay = min(delay * 2, configuration.reconnectBackoffMaximum)
        }
        return nil
    }

    /// The calls that set up streaming once the format is agreed; a failure of one at the first
    /// open is retried (up to `busyRetryLimit`), not taken as a wrong device or setting.
    static let streamingSetupCalls: Set<String> = ["VIDIOC_REQBUFS", "VIDIOC_QUERYBUF", "mmap", "VIDIOC_QBUF", "VIDIOC_STREAMON"]

    /// Waits `duration` unless `stop()` comes first; `false` if it did.
    private func sleep(_ duration: Duration) -> Bool {
        switch kernel.poll(device: nil, wakeDescriptor: wake.descriptor.rawValue, timeout: duration) {
        case .success(let events): return !events.contains(.wakeUp) && !isStopped
        case .failure: return !isStopped
        }
    }

    /// One attempt: open, check capabilities, negotiate, map, queue, stream on.
    private func openStream(reopen: Bool) throws(IOError) -> Stream {
        let device = try V4L2Device(path: path, kernel: kernel)
        let capability = try device.requireStreamingCapture()
        let format = try device.negotiateFormat(configuration, decodesMJPEG: tracking.decodesMJPEG)
        if reopen {
            controls.apply(on: device)  // again after an unplug or a driver reload, which reset them
        } else {
            try controls.applyAtStart(on: device)  // a control that cannot be set is an error to fix at start
        }
        let generation = control.withLock { $0.opens + 1 }
        let queue = try V4L2BufferQueue(device: device, count: configuration.bufferCount, generation: generation, logger: logger)
        do {
            try queue.queueAll()
            try device.streamOn()
        } catch {
            queue.retire()
            throw error
        }
        control.withLock { ($0.opens, $0.card) = (generation, capability.card) }
        let fps = format.frameInterval.map { DecimalText.string($0.framesPerSecond, fractionDigits: 3) } ?? "unknown"
        logger.notice(reopen ? "camera reopened and streaming" : "camera streaming", metadata: [
            "device": "\(LogText.untrusted(path))", "card": "\(LogText.untrusted(capability.card))", "driver": "\(LogText.untrusted(capability.driver))",
            "size": "\(format.width)x\(format.height)", "fourcc": "\(LogText.untrusted(format.fourcc))", "bytesperline": "\(format.bytesPerLine)",
            "fps": "\(fps)", "buffers": "\(queue.count)", "open": "\(generation)", "mode": "\(LogText.untrusted(format.modeSummary))",
        ])
        if let wanted = configuration.framesPerSecond,
           abs((format.frameInterval?.framesPerSecond ?? 0) - wanted) > wanted * 0.01 {
            logger.warning("the camera did not take the requested frame rate",
                           metadata: ["device": "\(LogText.untrusted(path))", "requested": "\(wanted)", "actual": "\(fps)"])
        }
        let stream = Stream(queue: queue, format: format, openedAt: .now)
        tracking.streamOpened(at: stream.openedAt)
        return stream
    }

    // MARK: - Frames

    private func event(for buffer: V4L2DequeuedBuffer, from stream: Stream) -> SourceEvent {
        stream.lastBufferAt = .now
        let queue = stream.queue
        let format = stream.format
        let sequence = UInt64(buffer.sequence)
        stream.lastSequence = buffer.sequence
        let mapping = queue.bytes(of: buffer.index)
        let compressed = format.pixelFormat.isCompressed
        if compressed, !buffer.hasErrorFlag, buffer.bytesUsed == 0 {
            queue.requeue(buffer.index)
            return undecodable(from: stream, cause: "empty frame (no JPEG data)", sequence: buffer.sequence, time: buffer.timestamp)
        }
        let detail: String? =
            if buffer.hasErrorFlag { "error flag" }
            else if buffer.bytesUsed == 0 { "empty" }
            else if min(buffer.bytesUsed, mapping.count) < format.frameSize {
                "short: \(buffer.bytesUsed) of \(format.frameSize) bytes"
            } else { nil }
        if let detail {
            queue.requeue(buffer.index)
            return .dropped(sequenceNumber: sequence, presentationTime: buffer.timestamp, reason: .discontinuity, detail: detail)
        }
        if format.isEmulated { tracking.noteDecoded() }  // libv4l2 converted it
        let index = buffer.index
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(mapping)[0..<min(buffer.bytesUsed, mapping.count)])
        let pixels = PixelBuffer(bytes: bytes) { queue.requeue(index) }
        return .frame(VideoFrame(sequenceNumber: sequence, presentationTime: buffer.timestamp, width: format.width,
                                 height: format.height, bytesPerLine: format.bytesPerLine, format: format.pixelFormat,
                                 buffer: pixels, decoder: compressed ? tracking : nil,
                                 capturedAt: buffer.monotonicCaptureTime(now: .monotonicNow())))
    }

    /// An `undecodable` drop, counted and its cause logged once; `sequence`: the buffer's, else the one after the last.
    private func undecodable(from stream: Stream, cause: String, sequence: UInt32? = nil, time: MediaTime? = nil) -> SourceEvent {
        tracking.noteUndecodable(cause)
        let seq = sequence ?? stream.lastSequence.map { $0 &+ 1 } ?? 0
        stream.lastSequence = seq
        return .dropped(sequenceNumber: UInt64(seq), presentationTime: time, reason: .undecodable, detail: cause)
    }

    private func stallTimeout(_ format: NegotiatedFormat) -> Duration {
        let interval = format.frameInterval?.duration ?? .nanoseconds(1_000_000_000 / 30)
        return interval * configuration.stallTimeoutFrameIntervals
    }

    /// When the current stream counts as stalled; `nil` with stall detection off.
    private func stallDeadline(_ stream: Stream) -> ContinuousClock.Instant? {
        guard configuration.stallTimeoutFrameIntervals > 0 else { return nil }
        return max(stream.openedAt + configuration.gracePeriod, stream.lastBufferAt + stallTimeout(stream.format))
    }
}
