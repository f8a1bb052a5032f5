import Logging
import Media
import SystemCalls

/// The decoder a camera's compressed (MJPEG) frames carry: the injected decoder, watched.
///
/// Every outcome is noted, from whichever scanning thread decoded the frame: an undecodable frame
/// (and, from the source thread, an empty MJPEG buffer or a frame libv4l2 failed to convert) is
/// logged once per cause, a decoder warning that lost no pixel once per cause too. The source asks
/// `isStalled` on every turn: frames that keep arriving with none decodable for a stall timeout
/// end in the same reopen as a camera that sends nothing.
final class CompressedFrameTracking: CompressedFrameDecoder, Sendable {
    private let decoder: (any CompressedFrameDecoder)?
    private let logger: Logger
    private let device: String

    private struct State {
        /// Since when the current stream has had no decodable frame (its opening, or the last good frame).
        var lastDecodedAt: ContinuousClock.Instant = .now
        /// Undecodable frames since then.
        var failuresSinceDecoded = 0
        /// Causes already logged (digits left out, so "3 bytes" and "5 bytes" are one cause), across reopens.
        var logged: Set<String> = []
    }
    private let state = LockedValue(State())

    /// - Parameter decoder: decodes the camera's JPEGs; `nil` when only libv4l2's conversions are tracked.
    init(decoder: (any CompressedFrameDecoder)?, device: String, logger: Logger) {
        self.decoder = decoder
        self.device = device
        self.logger = logger
    }

    /// Whether MJPEG can be captured as MJPEG.
    var decodesMJPEG: Bool { decoder != nil }

    /// A new stream opened at `instant`: nothing undecodable yet.
    func streamOpened(at instant: ContinuousClock.Instant) {
        state.withLock { $0.lastDecodedAt = instant; $0.failuresSinceDecoded = 0 }
    }

    func decodeLuma(_ compressed: UnsafeRawBufferPointer, width: Int, height: Int,
                    into luma: UnsafeMutableRawBufferPointer) -> LumaDecodeResult {
        guard let decoder else { return .undecodable(cause: "no decoder for compressed frames") }
        let result = decoder.decodeLuma(compressed, width: width, height: height, into: luma)
        switch result {
        case .decoded(let warning):
            noteDecoded()
            if let warning, firstTime("warning " + warning) {
                logger.notice("camera JPEG decoded with a warning that loses no pixel; frames like it are scanned (logged once)",
                              metadata: ["device": "\(LogText.untrusted(device))", "warning": "\(LogText.untrusted(warning))"])
            }
        case .undecodable(let cause):
            noteUndecodable(cause)
        }
        return result
    }

    /// A frame gave a picture (decoded here, or converted by libv4l2).
    func noteDecoded() {
        state.withLock { $0.lastDecodedAt = .now; $0.failuresSinceDecoded = 0 }
    }

    /// Counts a frame that gave no picture and logs its cause the first time it is seen.
    func noteUndecodable(_ cause: String) {
        state.withLock { $0.failuresSinceDecoded += 1 }
        if firstTime(cause) {
            logger.warning("camera frame undecodable; dropped (counted as undecodable; each cause logged once)",
                           metadata: ["device": "\(LogText.untrusted(device))", "cause": "\(LogText.untrusted(cause))"])
        }
    }

    /// Whether undecodable frames have kept coming with no decodable one for `timeout` (counted from
    /// `notBefore` at the earliest: the grace period after opening).
    func isStalled(timeout: Duration, notBefore: ContinuousClock.Instant) -> Bool {
        state.withLock { $0.failuresSinceDecoded > 0 && ContinuousClock.now >= max($0.lastDecodedAt + timeout, notBefore) }
    }

    private func firstTime(_ cause: String) -> Bool {
        let key = String(cause.filter { !$0.isNumber })
        return state.withLock { $0.logged.insert(key).inserted }
    }
}
