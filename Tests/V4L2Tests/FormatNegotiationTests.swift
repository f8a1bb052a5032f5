import Media
import SystemCalls
import Testing
import TestSupport
import V4L2

@Suite(.offThePool) struct FormatNegotiationTests {
    private func format(_ fourcc: FourCC, compressed: Bool = false, emulated: Bool = false) -> V4L2FormatDescription {
        V4L2FormatDescription(index: 0, fourcc: fourcc, description: "\(fourcc)", isCompressed: compressed, isEmulated: emulated)
    }

    @Test func prefersGreyThenYUYVOverOtherNativeFormats() {
        let all = [format(.mjpeg, compressed: true), format(.rgb24), format(.nv12), format(.yuyv), format(.grey)]
        #expect(FormatNegotiation.chooseFourCC(from: all, requested: nil) == .grey)
        #expect(FormatNegotiation.chooseFourCC(from: all.filter { $0.fourcc != .grey }, requested: nil) == .yuyv)
        #expect(FormatNegotiation.chooseFourCC(from: [format(.rgb24), format(.uyvy), format(.nv12)], requested: nil) == .uyvy)
    }

    @Test func mjpegOnlyCameraAsksLibv4l2ForYU12() {
        let mjpegOnly = [format(.mjpeg, compressed: true), format(.rgb24, emulated: true), format(.yu12, emulated: true)]
        #expect(FormatNegotiation.chooseFourCC(from: mjpegOnly, requested: nil) == .yu12)
        // Emulated formats rank below native ones even when preferred.
        #expect(FormatNegotiation.chooseFourCC(from: [format(.yu12, emulated: true), format(.nv12)], requested: nil) == .nv12)
    }

    @Test func fourCCsNameThePipelinesPixelFormats() {
        #expect(FourCC.yu12.pixelFormat == .yuv420 && FourCC.yuyv.pixelFormat == .yuyv && FourCC.yuv422p.pixelFormat == .yuv422p)
        #expect(FourCC.mjpeg.pixelFormat == nil && FourCC.rgb24.pixelFormat == nil)
        #expect(FourCC(.yvu420) == .yv12 && FourCC(.yuv444p) == nil)
    }

    @Test func requestedFourCCWins() {
        #expect(FormatNegotiation.chooseFourCC(from: [format(.grey)], requested: .yuyv) == .yuyv)
    }

    @Test func picksLargestDiscreteSizeNotAboveMaximum() throws {
        let sizes: [V4L2FrameSize] = [.discrete(width: 1920, height: 1080), .discrete(width: 640, height: 480),
                                       .discrete(width: 1280, height: 720), .discrete(width: 320, height: 240)]
        let chosen = try #require(FormatNegotiation.chooseSize(from: sizes, requested: (nil, nil), maximum: (1280, 720)))
        #expect(chosen.width == 1280 && chosen.height == 720)
        let smaller = try #require(FormatNegotiation.chooseSize(from: sizes, requested: (nil, nil), maximum: (800, 600)))
        #expect(smaller.width == 640 && smaller.height == 480)
        let tooSmall = try #require(FormatNegotiation.chooseSize(from: sizes, requested: (nil, nil), maximum: (100, 100)))
        #expect(tooSmall.width == 320 && tooSmall.height == 240)
    }

    @Test func fitsStepwiseSizesToTheMaximumOnTheirGrid() throws {
        let stepwise: [V4L2FrameSize] = [.stepwise(minWidth: 16, maxWidth: 4000, stepWidth: 16,
                                                   minHeight: 16, maxHeight: 3000, stepHeight: 16, continuous: false)]
        let chosen = try #require(FormatNegotiation.chooseSize(from: stepwise, requested: (nil, nil), maximum: (1000, 700)))
        #expect(chosen.width == 992 && chosen.height == 688)
        let capped = try #require(FormatNegotiation.chooseSize(
            from: [.stepwise(minWidth: 2, maxWidth: 800, stepWidth: 1, minHeight: 2, maxHeight: 600, stepHeight: 1, continuous: true)],
            requested: (nil, nil), maximum: (1280, 720)))
        #expect(capped.width == 800 && capped.height == 600)
    }

    @Test func requestedSizeIsPassedThroughForTheDriverToAdjust() throws {
        let chosen = try #require(FormatNegotiation.chooseSize(from: [.discrete(width: 640, height: 480)],
                                                                requested: (1024, 768), maximum: (1280, 720)))
        #expect(chosen.width == 1024 && chosen.height == 768)
        #expect(FormatNegotiation.chooseSize(from: [], requested: (nil, nil), maximum: (1280, 720)) == nil)
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
        #expect(fake.frameIntervalRequests == [V4L2Fraction(numerator: 1, denominator: 15)])
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
