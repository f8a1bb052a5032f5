import Foundation
import TestSupport
import Testing

/// Runs `syncscan run` on `frames` (10 fps) with a YAML configuration.
private func run(_ frames: [GreyFrame], config yaml: String, extra: [String] = []) throws -> SyncscanProcess.Output {
    let video = try TemporaryFile(contents: Y4MWriter.bytes(frames), suffix: ".y4m")
    let config = try TemporaryFile(contents: Array(yaml.utf8), suffix: ".yaml")
    return try SyncscanProcess.run(["run", "--config", config.path, "--source", video.path] + extra)
}

private func seqs(_ codes: [[String: Any]]) -> [Int] {
    codes.compactMap { ($0["frame"] as? [String: Any])?["seq"] as? Int }
}

@Suite(.serialized, .offThePool) struct ConfiguredRunTests {
    /// A code in view for frames 0–9, gone for 10–24 (1.5 s of frame time), back for 25–29.
    private func comingAndGoing() throws -> [GreyFrame] {
        let code = try ModuleMatrix.qrCode("dup-check")
        return (0..<30).map { i in
            var f = GreyFrame(width: 240, height: 160)
            if i < 10 || i >= 25 { f.draw(code, centerX: 120, centerY: 80, moduleSize: 3) }
            return f
        }
    }

    @Test func aCodeStayingInViewIsReportedOnceAndAgainAfterAnAbsenceLongerThanTheWindow() throws {
        let out = try run(try comingAndGoing(), config: "duplicate_suppression:\n  window_seconds: 1.0\n")
        #expect(out.status == 0, "stderr: \(out.stderr)")
        #expect(seqs(out.codes) == [0, 25])
    }

    @Test func anAbsenceShorterThanTheWindowIsNotReportedAgain() throws {
        let out = try run(try comingAndGoing(), config: "duplicate_suppression:\n  window_seconds: 2.0\n")
        #expect(out.status == 0, "stderr: \(out.stderr)")
        #expect(seqs(out.codes) == [0])
    }

    @Test func turningSuppressionOffReportsEverySighting() throws {
        let out = try run(try comingAndGoing(), config: "duplicate_suppression:\n  enabled: false\n")
        #expect(seqs(out.codes) == Array(0..<10) + Array(25..<30))
    }

    @Test func onlyTheRectOfInterestIsScannedAndCornersStayInFramePixels() throws {
        var f = GreyFrame(width: 320, height: 160)
        f.draw(try ModuleMatrix.qrCode("left half"), centerX: 80, centerY: 80, moduleSize: 3)
        let right = f.draw(try ModuleMatrix.qrCode("right half"), centerX: 240, centerY: 80, moduleSize: 3)
        let everything = try run([f], config: "symbologies: [qrcode]\n")
        #expect(Set(everything.codes.compactMap { $0["text"] as? String }) == ["left half", "right half"])

        let out = try run([f], config: "rect_of_interest: {x: 0.5, y: 0.0, width: 0.5, height: 1.0}\n")
        #expect(out.status == 0, "stderr: \(out.stderr)")
        #expect(out.codes.compactMap { $0["text"] as? String } == ["right half"])
        let corners = try #require(out.codes.first?["corners"] as? [[Int]])
        // Full-frame coordinates: the right code's corners, not offsets within the crop.
        #expect(corners.count == 4)
        for (c, expected) in zip(corners, [right.topLeft, right.bottomLeft, right.bottomRight, right.topRight]) {
            #expect(expected.distance(toX: c[0], y: c[1]) <= 3, "corner \(c) vs rendered \(expected)")
        }
    }

    @Test func aRectOfInterestOutOfRangeIsRejectedNamingTheKey() throws {
        let out = try run([GreyFrame(width: 32, height: 32)], config: "rect_of_interest: {x: 0.8, y: 0, width: 0.5, height: 1}\n")
        #expect(out.status == 2)
        #expect(out.stderr.contains("rect_of_interest"), "stderr: \(out.stderr)")
    }
}
