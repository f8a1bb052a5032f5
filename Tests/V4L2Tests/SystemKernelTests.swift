import SystemCalls
import Testing
import TestSupport
import V4L2

/// The real libv4l2 path, on what this machine has (no V4L2 devices): a non-V4L2 node.
@Suite struct SystemKernelTests {
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
