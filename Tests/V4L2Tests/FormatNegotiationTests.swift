import Media
import SystemCalls
import Testing
import TestSupport
import V4L2

@Suite(.offThePool) struct FormatNegotiationTests {
    @Test func fourCCsNameThePipelinesPixelFormats() {
        #expect(FourCC.yu12.pixelFormat == .yuv420 && FourCC.yuyv.pixelFormat == .yuyv && FourCC.yuv422p.pixelFormat == .yuv422p)
        #expect(FourCC.mjpeg.pixelFormat == .mjpeg && FourCC.mjpeg.pixelFormat?.isCompressed == true && FourCC.rgb24.pixelFormat == nil)
        #expect(FourCC(.yvu420) == .yv12 && FourCC(.yuv444p) == nil)
    }

    @Test func fitsStepwiseSizesToTheMaximumOnTheirGrid() throws {
        let driver = FakeV4L2Kernel.Driver(formats: [
            .init(.grey, sizes: [.stepwise(minWidth: 16, maxWidth: 4000, stepWidth: 16, minHeight: 16, maxHeight: 3000, stepHeight: 16,
                                           continuous: false)]),
            .init(.yuyv, sizes: [.stepwise(minWidth: 2, maxWidth: 800, stepWidth: 1, minHeight: 2, maxHeight: 600, stepHeight: 1,
                                           continuous: true)]),
        ])
        let fake = FakeV4L2Kernel(driver: driver)
        let device = try V4L2Device(path: "/dev/video0", kernel: fake)
        let modes = try device.captureModes(for: CaptureModeRequest(maximumWidth: 1000, maximumHeight: 700))
        #expect(modes.map { "\($0.fourcc) \($0.width)x\($0.height)" } == ["GREY 992x688", "YUYV 800x600"])
    }

    @Test func sourceAsksForGreyAtTheLargestSizeWithinTheMaximum() throws {
        let sizes: [V4L2FrameSize] = [.discrete(width: 1920, height: 1080), .discrete(width: 1280, height: 720),
                                       .discrete(width: 640, height: 480)]
        let driver = FakeV4L2Kernel.Driver(formats: [
            .init(.mjpeg, "Motion-JPEG", compressed: true, sizes: sizes),
            .init(.yuyv, "YUYV 4:2:2", sizes: sizes),
            .init(.grey, "8-bit Greyscale", sizes: sizes),
        ])
        let fake = FakeV4L2Kernel(driver: driver)
        let recorder = LogRecorder()
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: recorder.logger)
        try source.start()
        #expect(fake.setFormatRequests.last == V4L2PixelFormat(width: 1280, height: 720, fourcc: .grey))
        let format = try #require(source.currentFormat)
        #expect(format.pixelFormat == .grey && format.width == 1280 && format.height == 720 && format.bytesPerLine == 1280)
        let notice = try #require(recorder.all.first { $0.level == .notice })
        #expect(notice.metadata["size"] == "1280x720" && notice.metadata["fourcc"] == "GREY"
                && notice.metadata["bytesperline"] == "1280" && notice.metadata["fps"] == "1000")
        source.stop()

        var small = V4L2CaptureSource.Configuration.fast
        small.maximumWidth = 800
        small.maximumHeight = 600
        let second = try V4L2CaptureSource(path: "/dev/video0", configuration: small, kernel: fake, logger: recorder.logger)
        try second.start()
        #expect(fake.setFormatRequests.last == V4L2PixelFormat(width: 640, height: 480, fourcc: .grey))
        second.stop()
    }

    @Test func requestedFormatSizeAndRateAreAskedFor() throws {
        let fake = FakeV4L2Kernel()
        var configuration = V4L2CaptureSource.Configuration.fast
        configuration.pixelFormat = .yuyv
        configuration.width = 32
        configuration.height = 24
        configuration.framesPerSecond = 15
        let source = try V4L2CaptureSource(path: "v4l2:/dev/video0", configuration: configuration, kernel: fake,
                                           logger: LogRecorder().logger)
        try source.start()
        #expect(fake.setFormatRequests == [V4L2PixelFormat(width: 32, height: 24, fourcc: .yuyv)])
        // The camera offers only 30 fps: the slowest it has is asked for, and the mismatch is the caller's warning.
        #expect(fake.frameIntervalRequests == [V4L2Fraction(numerator: 1, denominator: 30)])
        let frame = try #require(try source.next()?.frame)
        #expect(frame.format == .yuyv && frame.width == 32 && frame.height == 24 && frame.bytesPerLine == 64)
        source.stop()
    }

    @Test func framesHaveTheGeometryTheDriverSetNotTheOneAskedFor() throws {
        // A driver that rounds every request to 48x40 with padded rows.
        let driver = FakeV4L2Kernel.Driver(formats: [.init(.grey, sizes: [.discrete(width: 64, height: 48)])]) { request, _ in
            FakeV4L2Kernel.completed(V4L2PixelFormat(width: 48, height: 40, fourcc: request.fourcc, bytesPerLine: 128))
        }
        let fake = FakeV4L2Kernel(driver: driver)
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        #expect(fake.setFormatRequests.last?.width == 64)
        let frame = try #require(try source.next()?.frame)
        #expect(frame.width == 48 && frame.height == 40 && frame.bytesPerLine == 128 && frame.format == .grey)
        #expect(frame.buffer.count == 128 * 40)
        source.stop()
    }

    @Test func aDriverThatSetsAnUnscannableFormatIsANamedError() throws {
        let driver = FakeV4L2Kernel.Driver(formats: [.init(.rgb24, "24-bit RGB", sizes: [.discrete(width: 64, height: 48)])])
        let fake = FakeV4L2Kernel(driver: driver)
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        let error = try #require(throws: IOError.self) { try source.start() }
        #expect(error.code == .notSupported && error.call == "VIDIOC_S_FMT")
        #expect(error.description.hasPrefix("/dev/video0: ") && error.description.contains("RGB3"))
        #expect(fake.liveDescriptors == 0 && fake.liveMappings == 0)
    }
}
