import Foundation
import Media
import TestSupport
import Testing
@testable import Y4M

/// What a Y4M input says of itself (`report`): the mode its header gives, a label, no controls.
@Suite(.offThePool) struct Y4MSourceReportTests {
    @Test(arguments: [("F30000:1001 ", 30000.0 / 1001, "file"), ("", 25, "assumed")])
    func aY4MStreamsModeIsItsHeaders(rate: String, fps: Double, origin: String) throws {
        let file = try TemporaryFile(contents: Array("YUV4MPEG2 W32 H16 \(rate)C420jpeg\nFRAME\n".utf8) + [UInt8](repeating: 128, count: 32 * 16 * 3 / 2),
                                     suffix: ".y4m")
        let source = Y4MSource(path: file.path, logger: LogRecorder().logger)
        #expect(source.report.mode == nil, "no header read yet")
        try source.start()
        defer { source.stop() }
        let report = source.report
        #expect(report.mode == SourceMode(width: 32, height: 16, format: "YU12", framesPerSecond: fps, origin: origin))
        #expect(report.kind == "y4m" && report.label == "Y4M file \(file.path)")
        #expect(report.controls == nil && report.health == SourceHealth())
    }

    @Test func standardInputIsNamedSo() {
        #expect(Y4MSource(path: "-", logger: LogRecorder().logger).report.label == "Y4M stream on standard input")
    }
}
