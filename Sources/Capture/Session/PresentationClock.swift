import Media

/// Turns the source's timestamps into the session's presentation times: zero at the first
/// frame, strictly increasing after (GStreamer's running time).
///
/// Each step is the source's own interval, measured with wrapping arithmetic, so a source clock
/// that wraps continues by the real interval: vivid's `wrap_timestamp` jumps from 2^63 − 16 s to
/// −2^63 ns (64-bit) and a 32-bit `tv_sec` wraps at 2^31 s. A step of zero or backwards (a
/// clock reset) is not time that passed: the presentation time advances by the previous step
/// instead, so duplicate suppression and consumers that sort by time never see time run back.
struct PresentationClock {
    private var last: (source: Int64, presentation: Int64)?
    /// The last positive step; one frame at 30 fps until one is seen.
    private var lastStep: Int64 = 33_333_333
    /// How many times the source's clock stood still or ran backwards.
    private(set) var resets = 0

    /// The presentation time for a frame the source stamped `source`.
    mutating func presentationTime(for source: MediaTime) -> MediaTime {
        let raw = source.nanoseconds
        guard let last else {
            self.last = (raw, 0)
            return .zero
        }
        var step = raw &- last.source
        if step > 0 {
            lastStep = step
        } else {
            resets += 1
            step = lastStep
        }
        let (presentation, overflow) = last.presentation.addingReportingOverflow(step)
        // 292 years of running time; a hostile step this large is held at the limit.
        let value = overflow ? Int64.max : presentation
        self.last = (raw, value)
        return MediaTime(nanoseconds: value)
    }
}
