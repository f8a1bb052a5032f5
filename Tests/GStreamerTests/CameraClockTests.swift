@testable import GStreamer
import Media
import Testing

/// `CameraClock`: a buffer's NTP stamp as it is; an unstamped buffer after a stamped one carried
/// over by the running-time (RTP) distance; nothing before the first stamp.
@Suite struct CameraClockTests {
    @Test func unstampedFramesBeforeTheFirstReportHaveNoneAndAfterItFollowTheRTPClock() {
        var clock = CameraClock()
        let t = { (ns: Int64) in CameraTime(nanosecondsSince1970: ns) }
        #expect(clock.time(stamped: nil, runningTime: 0) == nil, "before the first report: none")
        #expect(clock.time(stamped: nil, runningTime: 100_000_000) == nil)
        #expect(clock.time(stamped: t(5_000_000_000), runningTime: 200_000_000) == t(5_000_000_000))
        #expect(clock.time(stamped: nil, runningTime: 300_000_000) == t(5_100_000_000), "a keyframe the depayloader left unstamped")
        #expect(clock.time(stamped: nil, runningTime: nil) == nil, "no timestamp: nothing to carry over")
        #expect(clock.time(stamped: t(5_200_000_003), runningTime: 400_000_000) == t(5_200_000_003), "a stamp is taken as it is")
        #expect(clock.time(stamped: nil, runningTime: 500_000_000) == t(5_300_000_003), "from the latest stamp")
    }
}
