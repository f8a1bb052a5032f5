import Media
import SystemCalls
import Testing
import TestSupport
import V4L2

/// The mode chosen by frame rate for the UVC camera tables, under the default configuration and others.
@Suite(.offThePool) struct CaptureModeSelectionTests {
    /// The modes `driver` enumerates and the choice for `request`.
    private func choose(_ driver: FakeV4L2Kernel.Driver, _ request: CaptureModeRequest) throws -> Result<CaptureModeChoice, CaptureModeProblem> {
        let device = try V4L2Device(path: "/dev/video0", kernel: FakeV4L2Kernel(driver: driver))
        return CaptureModeSelection.choose(from: try device.captureModes(for: request), request: request)
    }

    private func chosen(_ driver: FakeV4L2Kernel.Driver, _ request: CaptureModeRequest) throws -> (mode: String, interval: V4L2Fraction?, summary: String) {
        let choice = try choose(driver, request).get()
        return ("\(choice.mode.fourcc) \(choice.mode.width)x\(choice.mode.height)", choice.interval, choice.summary)
    }

    private let fps30 = V4L2Fraction(numerator: 1, denominator: 30)

    @Test func logitechC615TakesMJPEGAt30RatherThanYUYVAt10() throws {
        let c = try chosen(.logitechC615(), CaptureModeRequest(decodesMJPEG: true))
        #expect(c.mode == "MJPG 1280x720" && c.interval == fps30)
        #expect(c.summary == "1280x720 MJPG at 30 fps; YUYV gives 10 fps at this size")
    }

    @Test func logitechC615WithoutADecoderTakesYUYVAtItsFastestAtTheLargestSize() throws {
        let c = try chosen(.logitechC615(), CaptureModeRequest(decodesMJPEG: false))
        #expect(c.mode == "YUYV 1280x720" && c.interval == V4L2Fraction(numerator: 1, denominator: 10))
    }

    @Test func aFloorAboveTheLargestSizesRateChoosesASmallerFasterSize() throws {
        let c = try chosen(.logitechC615(), CaptureModeRequest(minimumFramesPerSecond: 15, decodesMJPEG: false))
        #expect(c.mode == "YUYV 640x480" && c.interval == fps30)
        #expect(c.summary == "640x480 YUYV at 30 fps; 1280x720 gives at most 10 fps, under device.min_fps 15")
        // With no floor the largest size stays, however slow.
        let slow = try chosen(.logitechC615(), CaptureModeRequest(fourcc: .yuyv, minimumFramesPerSecond: 0, decodesMJPEG: true))
        #expect(slow.mode == "YUYV 1280x720")
    }

    @Test func theRateIsTheHighestNotAboveDeviceFPS() throws {
        let at8 = try chosen(.logitechC615(), CaptureModeRequest(fourcc: .yuyv, framesPerSecond: 8, decodesMJPEG: true))
        #expect(at8.mode == "YUYV 1280x720" && at8.interval == V4L2Fraction(numerator: 2, denominator: 15))
        let at6 = try chosen(.logitechC615(), CaptureModeRequest(fourcc: .yuyv, framesPerSecond: 6, decodesMJPEG: true))
        #expect(at6.interval == V4L2Fraction(numerator: 1, denominator: 5))
        // The floor never exceeds the rate asked for: 5 fps at 1280x720 is what device.fps 6 wants.
        #expect(at6.mode == "YUYV 1280x720")
    }

    @Test func fastMJPEGCameraIsCappedAt30UnlessAskedFor60() throws {
        let cam = FakeV4L2Kernel.Driver.fastMJPEGCamera()
        let standard = try chosen(cam, CaptureModeRequest(decodesMJPEG: true))
        #expect(standard.mode == "MJPG 1280x720" && standard.interval == fps30)
        #expect(standard.summary == "1280x720 MJPG at 30 fps; YUYV gives 9 fps at this size")
        let sixty = try chosen(cam, CaptureModeRequest(framesPerSecond: 60, decodesMJPEG: true))
        #expect(sixty.mode == "MJPG 1280x720" && sixty.interval == V4L2Fraction(numerator: 1, denominator: 60))
        let fullHD = try chosen(cam, CaptureModeRequest(maximumWidth: 1920, maximumHeight: 1080, decodesMJPEG: true))
        #expect(fullHD.mode == "MJPG 1920x1080" && fullHD.interval == fps30)
    }

    @Test func fastMJPEGCameraWithoutADecoderFallsToVGAUnderTheFloor() throws {
        let c = try chosen(.fastMJPEGCamera(), CaptureModeRequest(maximumWidth: 1920, maximumHeight: 1080, decodesMJPEG: false))
        #expect(c.mode == "YUYV 640x480" && c.interval == fps30)
        #expect(c.summary.contains("1920x1080 gives at most 6 fps") && c.summary.contains("1280x720 gives at most 9 fps"))
    }

    @Test func stepwiseIntervalsGiveTheStepNotAboveTheRateAskedFor() throws {
        let cam = FakeV4L2Kernel.Driver.mjpegOnlyCamera()
        let standard = try chosen(cam, CaptureModeRequest(maximumWidth: 640, maximumHeight: 480, decodesMJPEG: true))
        #expect(standard.mode == "MJPG 640x480" && standard.interval == fps30)
        let at12 = try chosen(cam, CaptureModeRequest(framesPerSecond: 12, decodesMJPEG: true))
        #expect(at12.mode == "MJPG 640x480" && at12.interval?.framesPerSecond == 10)
        let at2 = try chosen(cam, CaptureModeRequest(framesPerSecond: 2, decodesMJPEG: true))
        #expect(at2.interval == V4L2Fraction(numerator: 1, denominator: 5))
        // Without a decoder: libv4l2's conversion, at the same rate.
        let converted = try chosen(cam, CaptureModeRequest(decodesMJPEG: false))
        #expect(converted.mode == "YU12 640x480" && converted.interval == fps30)
    }

    @Test func tiesGoToGreyThenYUVThenMJPEGThenConversions() throws {
        let size: [V4L2FrameSize] = [.discrete(width: 640, height: 480)]
        let all: [FakeV4L2Kernel.Format] = [
            .init(.mjpeg, compressed: true, sizes: size), .init(.yu12, emulated: true, sizes: size),
            .init(.yuyv, sizes: size), .init(.grey, sizes: size),
        ]
        func winner(_ formats: [FakeV4L2Kernel.Format]) throws -> String {
            try chosen(FakeV4L2Kernel.Driver(formats: formats), CaptureModeRequest(decodesMJPEG: true)).mode
        }
        #expect(try winner(all) == "GREY 640x480")
        #expect(try winner(all.filter { $0.fourcc != .grey }) == "YUYV 640x480")
        #expect(try winner(all.filter { $0.fourcc == .mjpeg || $0.fourcc == .yu12 }) == "MJPG 640x480")
        #expect(try winner(all.filter { $0.fourcc == .yu12 }) == "YU12 640x480")
    }

    @Test func aCombinationTheCameraLacksIsAnErrorNamingItsModes() throws {
        let problem = try #require(throws: CaptureModeProblem.self) {
            try choose(.logitechC615(), CaptureModeRequest(fourcc: .mjpeg, width: 1920, height: 1080, decodesMJPEG: true)).get()
        }
        #expect(problem.description.hasPrefix("the camera has no MJPG 1920x1080; it offers "))
        #expect(problem.description.contains("YUYV 1280x720 at 10, 7.5, 5 fps") && problem.description.contains("MJPG 1280x720 at 30 fps"))
        #expect(problem.description.contains("MJPG 640x480 at 30, 15 fps"))
    }

    /// The table in docs/inputs.md (Cameras: mode and MJPEG), row by row: camera, settings, what is chosen.
    static let readmeTable: [(camera: String, request: CaptureModeRequest, chosen: String)] = [
        ("C615", CaptureModeRequest(decodesMJPEG: true), "MJPG 1280x720 at 30"),
        ("C615", CaptureModeRequest(fourcc: .yuyv, decodesMJPEG: true), "YUYV 1280x720 at 10"),
        ("C615", CaptureModeRequest(fourcc: .yuyv, framesPerSecond: 8, decodesMJPEG: true), "YUYV 1280x720 at 7.5"),
        ("C615", CaptureModeRequest(fourcc: .yuyv, minimumFramesPerSecond: 15, decodesMJPEG: true), "YUYV 640x480 at 30"),
        ("ViSP931", CaptureModeRequest(decodesMJPEG: true), "MJPG 1280x720 at 30"),
        ("ViSP931", CaptureModeRequest(framesPerSecond: 60, decodesMJPEG: true), "MJPG 1280x720 at 60"),
        ("ViSP931", CaptureModeRequest(maximumWidth: 1920, maximumHeight: 1080, decodesMJPEG: true), "MJPG 1920x1080 at 30"),
        ("ViSP931", CaptureModeRequest(fourcc: .yuyv, maximumWidth: 1920, maximumHeight: 1080, decodesMJPEG: true), "YUYV 640x480 at 30"),
        ("ViSP931", CaptureModeRequest(fourcc: .yuyv, minimumFramesPerSecond: 0, maximumWidth: 1920, maximumHeight: 1080, decodesMJPEG: true),
         "YUYV 1920x1080 at 6"),
        ("MJPEG-only", CaptureModeRequest(decodesMJPEG: true), "MJPG 640x480 at 30"),
        ("MJPEG-only", CaptureModeRequest(framesPerSecond: 12, decodesMJPEG: true), "MJPG 640x480 at 10"),
    ]

    @Test(arguments: 0..<readmeTable.count) func theREADMETableIsWhatIsChosen(row: Int) throws {
        let (camera, request, expected) = Self.readmeTable[row]
        let driver: FakeV4L2Kernel.Driver = switch camera {
        case "C615": .logitechC615()
        case "ViSP931": .fastMJPEGCamera()
        default: .mjpegOnlyCamera()
        }
        let choice = try choose(driver, request).get()
        let fps = choice.interval.map { CaptureModeSelection.fpsText($0.framesPerSecond) } ?? "?"
        #expect("\(choice.mode.fourcc) \(choice.mode.width)x\(choice.mode.height) at \(fps)" == expected, "\(camera) \(request.settingsText)")
    }

    @Test func theSourceSetsTheChosenIntervalAndLogsWhatItBeat() throws {
        let fake = FakeV4L2Kernel(driver: .logitechC615())
        let recorder = LogRecorder()
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, frameDecoder: JPEGTablesDecoder(),
                                           logger: recorder.logger)
        try source.start()
        defer { source.stop() }
        #expect(fake.setFormatRequests.last == V4L2PixelFormat(width: 1280, height: 720, fourcc: .mjpeg))
        #expect(fake.frameIntervalRequests == [fps30])
        let format = try #require(source.currentFormat)
        #expect(format.pixelFormat == .mjpeg && format.frameInterval == fps30)
        let notice = try #require(recorder.all.first { $0.level == .notice })
        #expect(notice.metadata["mode"] == "1280x720 MJPG at 30 fps; YUYV gives 10 fps at this size" && notice.metadata["fps"] == "30")
    }

    @Test func withoutDeviceFPSTheIntervalIsSetAnyway() throws {
        let fake = FakeV4L2Kernel(driver: .logitechC615())
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: .fast, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        defer { source.stop() }
        #expect(fake.frameIntervalRequests == [V4L2Fraction(numerator: 1, denominator: 10)])
        #expect(source.currentFormat?.fourcc == .yuyv)
    }

    @Test func aRequestedModeTheCameraLacksStopsTheStartNamingTheModes() throws {
        var configuration = V4L2CaptureSource.Configuration.fast
        configuration.pixelFormat = .yuyv
        configuration.width = 1920
        configuration.height = 1080
        let fake = FakeV4L2Kernel(driver: .logitechC615())
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: configuration, kernel: fake, logger: LogRecorder().logger)
        let error = try #require(throws: IOError.self) { try source.start() }
        #expect(error.code == .notSupported && error.description.contains("the camera has no YUYV 1920x1080")
                && error.description.contains("YUYV 1280x720 at 10, 7.5, 5 fps"))
        #expect(fake.liveDescriptors == 0 && fake.setFormatRequests.isEmpty)
    }
}

/// A decoder that is never asked to decode here: only its presence matters (MJPEG may be chosen).
private struct JPEGTablesDecoder: CompressedFrameDecoder {
    func decodeLuma(_ compressed: UnsafeRawBufferPointer, width: Int, height: Int, into luma: UnsafeMutableRawBufferPointer) -> LumaDecodeResult {
        .undecodable(cause: "not used in these tests")
    }
}
