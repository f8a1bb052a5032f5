import Media
import SystemCalls
import Testing
import TestSupport
import V4L2

/// The real libv4l2 path, on what this machine has (no V4L2 devices): a non-V4L2 node.
@Suite(.offThePool) struct SystemKernelTests {
    /// vivid's `wrap_timestamp=1`: the nanosecond clock passes 2^63 and `tv_sec` turns to
    /// −9223372037; the conversion must not trap and the step across must be the real one.
    @Test func aTimestampAcrossTheSixtyFourBitWrapConvertsWithoutTrappingAndKeepsItsStep() {
        let before = V4L2DequeuedBuffer.timestamp(seconds: 9_223_372_036, microseconds: 838_000)
        let after = V4L2DequeuedBuffer.timestamp(seconds: -9_223_372_037, microseconds: 161_907)
        #expect(before.nanoseconds == 9_223_372_036_838_000_000)
        #expect(after.nanoseconds &- before.nanoseconds == 33_458_616)
        #expect(V4L2DequeuedBuffer.timestamp(seconds: 12, microseconds: 345_678).nanoseconds == 12_345_678_000)
    }

    /// A frame's capture time (what a trigger's press is compared with): the kernel's stamp when
    /// the driver flags it CLOCK_MONOTONIC and it is recent, else the dequeue time; a wrapped
    /// stamp (vivid's `wrap_timestamp=1`) or one from the future never traps and is not used.
    @Test func theCaptureTimeIsAMonotonicStampThatIsRecentElseTheDequeueTime() {
        let now = MediaTime(nanoseconds: 5_000_000_000_000)
        func buffer(_ flags: UInt32, _ stamp: MediaTime) -> V4L2DequeuedBuffer {
            V4L2DequeuedBuffer(index: 0, bytesUsed: 1, flags: flags, sequence: 0, timestamp: stamp)
        }
        let earlier = MediaTime(nanoseconds: now.nanoseconds - 40_000_000)
        #expect(buffer(0x2000, earlier).monotonicCaptureTime(now: now) == earlier)
        #expect(buffer(0x2000 | 0x1_0000, earlier).monotonicCaptureTime(now: now) == earlier, "start of exposure is monotonic too")
        #expect(buffer(0, earlier).monotonicCaptureTime(now: now) == now, "a stamp of unknown clock")
        #expect(buffer(0x4000, earlier).monotonicCaptureTime(now: now) == now, "a stamp copied from the output side")
        #expect(buffer(0x2000, MediaTime(nanoseconds: now.nanoseconds + 1)).monotonicCaptureTime(now: now) == now)
        #expect(buffer(0x2000, MediaTime(nanoseconds: Int64.min + 5)).monotonicCaptureTime(now: now) == now)
        #expect(buffer(0x2000, MediaTime(nanoseconds: Int64.max - 5)).monotonicCaptureTime(now: now) == now)
        #expect(buffer(0x2000, MediaTime(nanoseconds: now.nanoseconds - 11_000_000_000)).monotonicCaptureTime(now: now) == now,
                "older than the driver's queue holds a frame")
    }

    @Test func aNodeThatIsNotAV4L2DeviceIsRefusedByName() throws {
        let source = try V4L2CaptureSource(path: "/dev/null", configuration: .fast, logger: LogRecorder().logger)
        let error = try #require(throws: IOError.self) { try source.start() }
        #expect(error.code == .notSupported)
        // libv4l2's open issues VIDIOC_QUERYCAP itself, so the open is what fails.
        #expect(error.call == "open" && error.description.hasPrefix("/dev/null: "))
        #expect(error.description.hasSuffix(", ENOTTY)") && error.description.contains("not a V4L2 device"))
    }

    @Test func aMissingNodeIsNotFound() throws {
        let source = try V4L2CaptureSource(path: "/dev/video-does-not-exist", configuration: .fast, logger: LogRecorder().logger)
        let error = try #require(throws: IOError.self) { try source.start() }
        #expect(error.code == .notFound && error.description.hasSuffix(", ENOENT)"))
    }

    @Test func listingSkipsNodesThatAreNotCaptureDevices() {
        #expect(listCaptureDevices(paths: ["/dev/null", "/dev/video-does-not-exist"]).isEmpty)
        #expect(videoDevicePaths(in: "/nonexistent-directory").isEmpty)
    }
}
