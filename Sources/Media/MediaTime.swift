#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A presentation timestamp in nanoseconds on the source's clock.
///
/// For a camera it is the kernel's buffer timestamp (CLOCK_MONOTONIC); for a Y4M file it is
/// `sequence / frameRate`; for a live pipe the monotonic arrival time. Never a wall clock.
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public init(seconds: Double) { self.nanoseconds = Int64((seconds * 1e9).rounded()) }

    public static let zero = MediaTime(nanoseconds: 0)

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime { MediaTime(nanoseconds: lhs.nanoseconds - rhs.nanoseconds) }
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime { MediaTime(nanoseconds: lhs.nanoseconds + rhs.nanoseconds) }

    /// Seconds in decimal, exact to the nanosecond, without trailing zeros: `12.0333`, `0`, `-1.5`
    /// (the `pts` of JSON lines).
    public var description: String { DecimalText.string(units: nanoseconds, fractionDigits: 9) }

    /// The current CLOCK_MONOTONIC time, the clock V4L2 stamps buffers with.
    public static func monotonicNow() -> MediaTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MediaTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}

