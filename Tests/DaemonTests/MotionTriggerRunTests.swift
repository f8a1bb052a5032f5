import Capture
@testable import Daemon
import Foundation
import Media
import TestSupport
import Testing

private let width = 320, height = 240

/// A mono Y4M file of `frames` at 25 fps.
private func y4mFile(_ frames: [GreyFrame]) throws -> TemporaryFile {
    var bytes = Array("YUV4MPEG2 W\(width) H\(height) F25:1 Ip A1:1 Cmono\n".utf8)
    for frame in frames {
        bytes += Array("FRAME\n".utf8)
        for row in 0..<height { bytes += frame.bytes[(row * frame.bytesPerLine)..<(row * frame.bytesPerLine + width)] }
    }
    return try TemporaryFile(contents: bytes, suffix: ".y4m")
}

/// A grey desk with sensor noise of ±6 grey levels that differs frame to frame (`seed`), and
/// `code` as a printed card on it.
private func desk(seed: UInt64, code: String? = nil) throws -> GreyFrame {
    var frame = GreyFrame(width: width, height: height, background: 120)
    if let code { frame.draw(try ModuleMatrix.qrCode(code), centerX: 160, centerY: 120, moduleSize: 4) }
    return frame.withNoise(amplitude: 6, seed: seed)
}

/// `trigger.mode: triggered` with `trigger.motion`, a window closed by its first code.
private func motionRun(_ frames: [GreyFrame]) async throws -> (results: [[String: Any]], run: ServiceRun) {
    let video = try y4mFile(frames)
    var c = SyncscanConfiguration()
    c.source = "y4m:" + video.path
    c.statsIntervalSeconds = 0
    c.trigger = TriggerSettings(mode: .triggered, window: .init(duration: MediaTime(seconds: 1), codes: 1), motion: true)
    let run = try await ServiceRun(c)
    let results = run.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        .filter { $0["type"] as? String == "read_result" }
    return (results, run)
}

@Suite(.serialized, .offThePool) struct MotionTriggerRunTests {
    /// A card laid on the desk at frame 10 and left there: one window, opened by motion at that
    /// frame, reads it (good); the card lying still after it opens no other.
    @Test func aCardPresentedOpensOneWindowByMotionThatReadsIt() async throws {
        let frames = try (0..<10).map { try desk(seed: UInt64($0)) } + (10..<60).map { try desk(seed: UInt64($0), code: "card") }
        let (results, run) = try await motionRun(frames)
        #expect(results.count == 1, "\(results)")
        let result = try #require(results.first)
        #expect(result["trigger"] as? String == "motion" && result["result"] as? String == "good" && result["opened_seq"] as? Int == 10,
                "\(result)")
        #expect(run.lines.filter { $0.contains("\"type\":\"code\"") && $0.contains("\"text\":\"card\"") }.count == 1)
        #expect(run.service.statsLine().contains("reads_good=1 reads_no_read=0 reads_multiple=0 triggers=1 "), "\(run.service.statsLine())")
    }

    /// A card laid down, taken away, and another laid down: a window for each card, none for
    /// taking the first away (a motion that starts from a scene unlike the background).
    @Test func takingACardAwayOpensNoWindowAndTheNextCardOpensOne() async throws {
        let frames = try (0..<70).map { i in
            try desk(seed: UInt64(i), code: (10..<30).contains(i) ? "first" : (50..<70).contains(i) ? "second" : nil)
        }
        let (results, run) = try await motionRun(frames)
        #expect(results.map { $0["opened_seq"] as? Int } == [10, 50], "\(results)")
        #expect(results.allSatisfy { $0["trigger"] as? String == "motion" && $0["result"] as? String == "good" }, "\(results)")
        let texts = run.lines.filter { $0.contains("\"type\":\"code\"") }.map { $0.contains("\"text\":\"first\"") ? "first" : "other" }
        #expect(texts.count == 2 && texts.first == "first")
        #expect(run.service.statsLine().contains("triggers=2 "), "\(run.service.statsLine())")
    }

    /// A desk with nothing on it but sensor noise opens no window: every frame is untriggered.
    @Test func aStillSceneWithNoiseOpensNoWindow() async throws {
        let (results, run) = try await motionRun(try (0..<60).map { try desk(seed: UInt64($0)) })
        #expect(results.isEmpty, "\(results)")
        #expect(run.service.statsLine().contains("triggers=0 "), "\(run.service.statsLine())")
        #expect(run.summary.contains("untriggered=60"), "\(run.summary)")
    }
}
