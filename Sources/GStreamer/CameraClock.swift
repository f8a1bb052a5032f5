import Media

/// The camera's wall clock for one RTSP connection's frames: each buffer's NTP stamp, or, for a
/// buffer without one after a stamped one, that stamp carried over by the RTP-time difference.
///
/// rtph264depay leaves the stamp off some frames even after the first sender report (in our
/// tests every keyframe; the frames between them were stamped). With `buffer-mode=none` the
/// running times are the RTP clock, so `last stamp + (running time − its running time)` is the
/// jitter buffer's own arithmetic (sender report's NTP + RTP distance). Before the first stamp:
/// `nil`, never a guess. One per connection: a reopen starts a new one.
struct CameraClock {
    private var last: (time: CameraTime, runningTime: Int64)?

    /// The camera time of a buffer with `stamped` (its meta, if any) at `runningTime`.
    mutating func time(stamped: CameraTime?, runningTime: Int64?) -> CameraTime? {
        if let stamped {
            if let runningTime { last = (stamped, runningTime) }
            return stamped
        }
        guard let last, let runningTime else { return nil }
        return last.time + MediaTime(nanoseconds: runningTime - last.runningTime)
    }
}
