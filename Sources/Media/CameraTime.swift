/// When the camera saw a frame, on the camera's own wall clock: nanoseconds since 1970-01-01 UTC.
///
/// From an RTSP camera's RTCP sender reports (NTP time paired with RTP time), so it is only as right
/// as the camera's clock; never the receiving machine's clock, never a guess before the first report.
public struct CameraTime: Sendable, Hashable, Comparable {
    public var nanosecondsSince1970: Int64

    public init(nanosecondsSince1970: Int64) { self.nanosecondsSince1970 = nanosecondsSince1970 }

    /// Seconds from the NTP epoch (1900-01-01) to the Unix epoch (1970-01-01).
    public static let ntpToUnixSeconds: Int64 = 2_208_988_800

    /// An NTP timestamp in nanoseconds since 1900; `nil` before 1970 (a camera whose clock was never set).
    public init?(ntpNanoseconds: Int64) {
        let unix = ntpNanoseconds - Self.ntpToUnixSeconds * 1_000_000_000
        guard unix >= 0 else { return nil }
        nanosecondsSince1970 = unix
    }

    /// This instant moved by `offset` (a frame's distance in RTP time from the stamped frame).
    public static func + (time: CameraTime, offset: MediaTime) -> CameraTime {
        CameraTime(nanosecondsSince1970: time.nanosecondsSince1970 + offset.nanoseconds)
    }

    public static func < (lhs: CameraTime, rhs: CameraTime) -> Bool { lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970 }
}
