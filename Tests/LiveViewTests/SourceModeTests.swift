@testable import LiveView
import Foundation
import Logging
import TestSupport
import Testing
import V4L2
import Y4M

/// The mode the live view shows: a camera's as negotiated, a Y4M stream's as its header gives it.
@Suite(.offThePool) struct SourceModeTests {
    @Test func aCamerasModeIsTheOneNegotiated() throws {
        let driver = FakeV4L2Kernel.Driver(formats: [FakeV4L2Kernel.Format(.yuyv, sizes: [.discrete(width: 64, height: 48)])],
                                           timePerFrame: V4L2Fraction(numerator: 1, denominator: 30))
        let source = try V4L2CaptureSource(path: "/dev/video0", kernel: FakeV4L2Kernel(driver: driver), logger: LogRecorder().logger)
        #expect(SourceMode(of: source) == nil, "not streaming yet")
        try source.start()
        defer { source.stop() }
        let mode = try #require(SourceMode(of: source))
        #expect(mode == SourceMode(width: 64, height: 48, format: "YUYV", framesPerSecond: 30, origin: "negotiated"))
        #expect(mode.json == "{\"width\":64,\"height\":48,\"format\":\"YUYV\",\"fps\":30,\"origin\":\"negotiated\"}")
    }

    @Test(arguments: [("F30000:1001 ", 30000.0 / 1001, "file"), ("", 25, "assumed")])
    func aY4MStreamsModeIsItsHeaders(rate: String, fps: Double, origin: String) throws {
        let file = try TemporaryFile(contents: Array("YUV4MPEG2 W32 H16 \(rate)C420jpeg\nFRAME\n".utf8) + [UInt8](repeating: 128, count: 32 * 16 * 3 / 2),
                                     suffix: ".y4m")
        let source = Y4MSource(path: file.path, logger: LogRecorder().logger)
        try source.start()
        defer { source.stop() }
        let mode = try #require(SourceMode(of: source))
        #expect(mode == SourceMode(width: 32, height: 16, format: "YU12", framesPerSecond: fps, origin: origin))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(mode.json.utf8)) as? [String: Any])
        #expect(abs((json["fps"] as? Double ?? 0) - fps) < 0.001 && json["origin"] as? String == origin)
    }
}
