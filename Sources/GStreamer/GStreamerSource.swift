import Logging
import Media
import SystemCalls
import SystemPackage

/// Frames from a GStreamer pipeline (a network stream, a video file, a `gst:` description) as
/// 8-bit luma, pulled from its `appsink` on the source's own thread.
///
/// `pts` is the buffers' running time, kept strictly increasing across reconnects; a buffer
/// GStreamer flags DISCONT or GAP, and every reconnect, is a `discontinuity` in the ledger. A live
/// source (network, `gst:`) that fails or ends is reopened with a capped backoff until
/// `missingTimeout`, each loss logged once; a file ends at its end. Credentials never reach a log
/// or an error: every message goes through `shown(_:)`.
public final class GStreamerSource: FrameSource, @unchecked Sendable {  // unchecked: its `var`s are the source thread's alone; what `stop()` and readers touch is behind `control`'s lock
    public let uri: String
    public let isLive: Bool
    /// An `rtsp://`, `http://` stream (not a file or a `gst:` description): for advice in errors.
    private let isNetwork: Bool
    private let description: String
    /// An `rtsp://` source asked for the camera's wall clock (`rtsp.camera_time`).
    private let readsCameraTime: Bool
    private let missingTimeout: Duration?
    private let logger: Logger
    /// The secrets of the location (`SecretRedaction.secrets`), hidden in GStreamer's own messages too.
    private let secrets: [String]
    private let wake: WakeSignal

    /// The source for people (`report.label`), redacted.
    private let label: String
    /// Where the mode comes from: `file` for a video file, else `stream`.
    private let modeOrigin: String

    private struct Control {
        var stopped = false
        var missingSince: ContinuousClock.Instant?
        var reopens = 0
        /// The caps of the last frame (`report.mode`).
        var mode: SourceMode?
    }
    private let control = LockedValue(Control())

    // Touched only by the thread calling `start()` and `next()`.
    private var pipeline: GStreamerPipeline?
    private var nextSequenceNumber: UInt64 = 0
    private var lastTime: MediaTime?
    /// Added to the running time: the previous connections' span, so `pts` keeps increasing.
    private var timeOffset = MediaTime.zero
    private var pending: SourceEvent?
    private var lastFrameAt = ContinuousClock.now
    /// The camera's clock on this connection (`rtsp.camera_time`); a new one at each reopen.
    private var cameraClock = CameraClock()
    /// The mode last put in `control` (set again only when a frame's caps differ).
    private var lastMode: SourceMode?

    /// Backoff between reopen attempts: doubled from `backoffStart` up to `backoffCap`.
    static let backoffStart = Duration.milliseconds(250)
    static let backoffCap = Duration.seconds(4)

    /// A source for `uri` (parsed by `GStreamerURI.parse`); nothing is opened yet.
    /// - Parameters:
    ///   - missingTimeout: how long a live stream is reopened before `next()` throws (`nil`: forever).
    ///   - transport, latencyMilliseconds: RTSP's transport and jitter buffer (`rtspsrc protocols`, `latency`).
    ///   - cameraTime: for `rtsp://`, give frames the camera's wall-clock time from its RTCP sender
    ///     reports (`VideoFrame.cameraTime`; see `CameraClock`); other sources ignore it.
    /// - Parameter startTimeout: how long `start()` waits for the first frame or the stream's first error.
    public init(uri: SourceURI, missingTimeout: Duration?, transport: GStreamerURI.RTSPTransport = .tcp,
                latencyMilliseconds: Int = 200, cameraTime: Bool = false, startTimeout: Duration = GStreamerSource.defaultStartTimeout,
                logger: Logger) throws(IOError) {
        self.uri = uri.description
        self.startTimeout = startTimeout
        isLive = GStreamerURI.isLive(uri)
        if case .network = GStreamerURI.kind(of: uri) { isNetwork = true } else { isNetwork = false }
        if case .network(let scheme) = GStreamerURI.kind(of: uri), scheme.hasPrefix("rtsp") {
            readsCameraTime = cameraTime
        } else {
            readsCameraTime = false
        }
        description = GStreamerURI.pipelineDescription(uri, transport: transport, latencyMilliseconds: latencyMilliseconds,
                                                       cameraTime: readsCameraTime)
        switch GStreamerURI.kind(of: uri) {
        case .network(let scheme): (label, modeOrigin) = ("\(scheme.uppercased()) stream \(uri.description)", "stream")
        case .file(let path): (label, modeOrigin) = ("video file \(SourceURI.redactingCredentials(path))", "file")
        case .pipeline: (label, modeOrigin) = ("GStreamer pipeline \(uri.description)", "stream")
        }
        self.missingTimeout = missingTimeout
        self.logger = logger
        secrets = SecretRedaction.secrets(in: uri.location)
        wake = try WakeSignal()
    }

    /// `text` (GStreamer's own messages may quote the location, or a part of it) with every
    /// secret redacted: each secret of the location wherever it appears.
    public func shown(_ text: String) -> String {
        secrets.reduce(SourceURI.redactingCredentials(text)) { $0.replacing($1, with: SecretRedaction.mask) }
    }

    public var missingSince: ContinuousClock.Instant? { control.withLock { $0.missingSince } }
    public var reopens: Int { control.withLock { $0.reopens } }

    /// The stream as it says of itself: `gst`, its label (`RTSP stream URL`, `video file PATH`,
    /// `GStreamer pipeline gst:…`, redacted), the mode of the last frame's caps (size, GStreamer's
    /// video format, frame rate; origin `file` or `stream`), its reopens and since when it is lost.
    public var report: SourceReport {
        let (mode, missingSince, reopens) = control.withLock { ($0.mode, $0.missingSince, $0.reopens) }
        return SourceReport(kind: "gst", label: label, mode: mode, health: SourceHealth(missingSince: missingSince, reopens: reopens))
    }

    /// How long `start()` waits for the first frame or the stream's first error, by default.
    public static let defaultStartTimeout = Duration.seconds(20)
    private let startTimeout: Duration

    /// Builds the pipeline, sets it playing and waits for its first frame (kept for `next()`) or
    /// its first error, which it throws: a missing file or plugin, a refused connection, a wrong
    /// path or wrong credentials are each named at start, not retried.
    public func start() throws {
        guard !control.withLock({ $0.stopped }) else { return }
        let pipeline = try open()
        self.pipeline = pipeline
        let deadline = ContinuousClock.now + startTimeout
        while !control.withLock({ $0.stopped }) {
            switch pipeline.pull(timeoutNanoseconds: 100_000_000) {
            case .none:
                guard ContinuousClock.now < deadline else {
                    throw IOError(code: .io, call: "gst_app_sink_try_pull_sample",
                                  message: "\(uri): no frame within \(startTimeout); check that the stream has video")
                }
                continue
            case .frame(let luma):
                pending = frame(luma, gap: nil)
                logger.info("gstreamer input opened", metadata: [
                    "source": "\(LogText.untrusted(uri))", "live": "\(isLive)", "size": "\(luma.width)x\(luma.height)"])
                return
            case .endOfStream:
                ended = true
                logger.notice("gstreamer input ended before its first frame", metadata: ["source": "\(LogText.untrusted(uri))"])
                return
            case .failed(let failure):
                self.pipeline = nil
                throw IOError(code: failure.cause.code, call: "gst_element_set_state",
                              message: "\(uri): \(shown(failure.message)); \(Self.advice(failure.cause, network: isNetwork))")
            }
        }
    }

    /// What to do about a failure at start, by its cause.
    static func advice(_ cause: GStreamerFailure.Cause, network: Bool) -> String {
        switch cause {
        case .notAuthorized: "the server refused the credentials: check the user name and password in the URI"
        case .notFound where network: "the server has no stream at that path: check the path in the URI"
        case .notFound: "no such file: check the path"
        case .cannotOpen where network: "cannot connect: check the address and port, and that the camera or server is up"
        case .cannotOpen: "cannot open the file: check its permissions"
        case .other: "check the address, the path, the credentials and the plugins"
        }
    }

    private func open() throws(IOError) -> GStreamerPipeline {
        do throws(IOError) {
            return try GStreamerPipeline(description: description, shown: uri, maxBuffers: 2, readsCameraTime: readsCameraTime) { [isNetwork] in
                Self.advice($0, network: isNetwork)
            }
        } catch {
            throw IOError(code: error.code, call: error.call, message: shown(error.message))
        }
    }

    /// The next frame, a discontinuity, or `nil` at a file's end or after `stop()`. A live
    /// stream that fails or ends is reopened here, with backoff, until `missingTimeout`.
    public func next() throws -> SourceEvent? {
        if let event = pending {
            pending = nil
            return event
        }
        while !control.withLock({ $0.stopped }), !ended {
            guard let pipeline else {
                try reopen()
                continue
            }
            switch pipeline.pull(timeoutNanoseconds: 100_000_000) {
            case .none:
                continue
            case .frame(let luma):
                return frame(luma, gap: regained())
            case .endOfStream where !isLive:
                logger.debug("gstreamer input ended", metadata: ["source": "\(LogText.untrusted(uri))", "frames": "\(nextSequenceNumber)"])
                ended = true
            case .failed(let failure) where !isLive:
                ended = true
                throw IOError(code: .io, call: "gst_app_sink_try_pull_sample", message: "\(uri): \(shown(failure.message))")
            case .endOfStream:
                lose("the stream ended")
            case .failed(let failure):
                lose(shown(failure.message))
            }
        }
        pipeline = nil  // stopped or ended: the connection or file is closed now, not when the source goes
        return nil
    }

    // Touched only by the reading thread: the loss being recovered from.
    private var ended = false
    private var lostSince: ContinuousClock.Instant?
    private var lossReason = ""
    private var delay = GStreamerSource.backoffStart

    /// Drops the pipeline after a failure or an end. The first loss is logged; failures while
    /// reopening only lengthen the backoff.
    private func lose(_ reason: String) {
        pipeline = nil
        lossReason = reason
        guard lostSince == nil else {
            delay = min(delay * 2, Self.backoffCap)
            return
        }
        let now = ContinuousClock.now
        lostSince = now
        delay = Self.backoffStart
        control.withLock { $0.missingSince = now }
        logger.warning("gstreamer input lost; reopening", metadata: ["source": "\(LogText.untrusted(uri))", "reason": "\(LogText.untrusted(reason, limit: LogText.errorLimit))"])
    }

    /// Waits out the backoff (`stop()` ends the wait), then builds the pipeline again; throws once
    /// the stream has been gone longer than `missingTimeout`.
    private func reopen() throws {
        let since = lostSince ?? .now
        if let limit = missingTimeout, since.duration(to: .now) > limit {
            ended = true
            throw IOError(code: .disconnected, call: "GStreamerSource.next",
                          message: "\(uri) gone for longer than device.missing_timeout \(limit): \(lossReason); check the camera and the network")
        }
        _ = PollSet([wake.descriptor]).wait(timeout: delay)
        guard !control.withLock({ $0.stopped }) else { return }
        do {
            pipeline = try open()
        } catch {
            lose(error.message)
        }
    }

    /// After a loss, at the first frame again: the gap's description, the loss cleared and logged.
    private func regained() -> String? {
        guard let since = lostSince else { return nil }
        lostSince = nil
        let gone = since.duration(to: .now)
        control.withLock { $0.missingSince = nil; $0.reopens += 1 }
        logger.notice("gstreamer input reopened", metadata: ["source": "\(LogText.untrusted(uri))", "gone": "\(gone)"])
        return "stream reopened after \(gone): \(lossReason)"
    }

    /// The event for `luma`; after a `gap` (a reopen) or a buffer flagged DISCONT/GAP, a
    /// discontinuity first, the frame then pending.
    private func frame(_ luma: GStreamerLuma, gap: String?) -> SourceEvent {
        let arrival = ContinuousClock.now
        let mode = SourceMode(width: luma.width, height: luma.height, format: luma.formatName, framesPerSecond: luma.framesPerSecond,
                              origin: modeOrigin)
        if mode != lastMode {
            lastMode = mode
            control.withLock { $0.mode = mode }
        }
        if gap != nil, let last = lastTime, let running = luma.runningTime {
            // A new connection's clock starts again: continue from the last frame, plus the time gone.
            timeOffset = last + Self.mediaTime(lastFrameAt.duration(to: arrival)) - MediaTime(nanoseconds: running)
        }
        if gap != nil { cameraClock = CameraClock() }
        let cameraTime = readsCameraTime ? cameraClock.time(stamped: luma.cameraTime, runningTime: luma.runningTime) : nil
        // A buffer without a timestamp is placed by its arrival after the previous frame.
        var time = luma.runningTime.map { MediaTime(nanoseconds: $0) + timeOffset }
            ?? ((lastTime ?? .zero) + Self.mediaTime(lastFrameAt.duration(to: arrival)))
        if let last = lastTime, time <= last { time = last + MediaTime(nanoseconds: 1) }
        lastTime = time
        lastFrameAt = arrival
        let detail = gap ?? (luma.isDiscontinuity && nextSequenceNumber > 0 ? "GStreamer flagged a discontinuity (lost or damaged packets)" : nil)
        let skipped: UInt64 = detail == nil ? 0 : 1
        let event = SourceEvent.frame(VideoFrame(
            sequenceNumber: nextSequenceNumber + skipped, presentationTime: time,
            width: luma.width, height: luma.height, bytesPerLine: luma.bytesPerLine, format: .grey, buffer: luma.pixelBuffer(),
            cameraTime: cameraTime, capturedAt: isLive ? MediaTime.monotonicNow() : nil))
        guard let detail else {
            nextSequenceNumber += 1
            return event
        }
        let dropped = SourceEvent.dropped(sequenceNumber: nextSequenceNumber, presentationTime: nil, reason: .discontinuity, detail: detail)
        nextSequenceNumber += 2
        pending = event
        return dropped
    }

    static func mediaTime(_ duration: Duration) -> MediaTime {
        let (seconds, attoseconds) = duration.components
        return MediaTime(nanoseconds: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    public func stop() {
        let first = control.withLock { control in
            defer { control.stopped = true }
            return !control.stopped
        }
        if first {
            wake.signal()
            logger.debug("gstreamer input stopping", metadata: ["source": "\(LogText.untrusted(uri))"])
        }
    }
}
