import Media
import TestSupport
import Testing
@testable import V4L2

/// What a camera says of itself (`report`): the mode negotiated on the open, its label with the
/// card's name, its control settings and their failures, its reopens.
@Suite(.offThePool) struct CaptureSourceReportTests {
    @Test func aCamerasModeIsTheOneNegotiated() throws {
        let driver = FakeV4L2Kernel.Driver(formats: [FakeV4L2Kernel.Format(.yuyv, sizes: [.discrete(width: 64, height: 48)])],
                                           timePerFrame: V4L2Fraction(numerator: 1, denominator: 30))
        let source = try V4L2CaptureSource(path: "/dev/video0", kernel: FakeV4L2Kernel(driver: driver), logger: LogRecorder().logger)
        #expect(source.report.mode == nil, "not streaming yet")
        #expect(source.report.kind == "v4l2" && source.report.label == "V4L2 camera /dev/video0")
        try source.start()
        defer { source.stop() }
        let report = source.report
        #expect(report.mode == SourceMode(width: 64, height: 48, format: "YUYV", framesPerSecond: 30, origin: "negotiated"))
        #expect(report.label == "V4L2 camera /dev/video0 (Fake Camera)", "with the card's name (VIDIOC_QUERYCAP)")
        #expect(report.health == SourceHealth(missingSince: nil, reopens: 0))
        #expect(report.controls == SourceControls(settings: [], failures: 0))
    }

    /// The camera's control settings and the failures to apply them are the camera's part of its
    /// report (no other kind of source has any): two refused at two reopens.
    @Test func itsControlsAndTheirFailuresAreInItsReport() throws {
        let fake = FakeV4L2Kernel(driver: .cameraWithControls(), script: [.frame, .unplug(missingOpens: 0), .frame, .unplug(missingOpens: 0), .frame])
        var configuration = V4L2CaptureSource.Configuration.fast
        configuration.controls = [V4L2ControlSetting(name: "brightness", value: "9")]
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: configuration, kernel: fake, logger: LogRecorder().logger)
        try source.start()
        fake.inject(.ioError, into: .setControl, times: 2)
        let events = try readEvents(source, count: 3)
        let report = source.report
        source.stop()
        #expect(events.count == 3)
        #expect(report.controls == SourceControls(settings: [.init(name: "brightness", value: "9")], failures: 2))
        #expect(report.health.reopens == 2 && report.health.missingSince == nil)
    }
}
