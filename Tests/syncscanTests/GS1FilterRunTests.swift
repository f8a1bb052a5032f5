import Foundation
import TestSupport
import Testing

@Suite(.offThePool) struct GS1FilterRunTests {
    /// A GS1 QR code with a GTIN beside a plain QR code, in 5 frames of a file: with
    /// `output.gs1_filter: ["01"]` only the GS1 code's line and its item's removal are written;
    /// without it, both codes'. The stats count what was emitted.
    @Test func onlyCodesWithTheAIAreEmitted() throws {
        var f = GreyFrame(width: 480, height: 200)
        f.draw(try ModuleMatrix.zintSymbol("QRCODE", text: "[01]09506000134352[10]LOT7", quietZone: 4, arguments: ["--gs1", "--notext"]),
               centerX: 120, centerY: 100, moduleSize: 4)
        f.draw(try ModuleMatrix.qrCode("plain label"), centerX: 360, centerY: 100, moduleSize: 4)
        let video = try TemporaryFile(contents: Y4MWriter.bytes(Array(repeating: f, count: 5)), suffix: ".y4m")
        func run(_ yaml: String) throws -> SyncscanProcess.Output {
            let config = try TemporaryFile(contents: Array(yaml.utf8), suffix: ".yaml")
            return try SyncscanProcess.run(["run", "--config", config.path, "--source", video.path])
        }
        let all = try run("symbologies: [qrcode]\n")
        #expect(all.status == 0, "stderr: \(all.stderr)")
        #expect(Set(all.codes.compactMap { $0["text"] as? String }).count == 2, "both read: \(all.codes)")

        let filtered = try run("symbologies: [qrcode]\noutput:\n  gs1_filter: [\"01\"]\n")
        #expect(filtered.status == 0, "stderr: \(filtered.stderr)")
        #expect(filtered.codes.count == 1 && (filtered.codes.first?["gs1"] as? [String: Any])?["hri"] as? String == "(01)09506000134352(10)LOT7",
                "\(filtered.codes)")
        let removed = filtered.jsonLines.compactMap { $0 }.filter { $0["type"] as? String == "item_removed" }
        #expect(removed.count == 1 && removed.first?["item"] as? Int == filtered.codes.first?["item"] as? Int, "\(removed)")
        #expect(filtered.stderr.contains("codes_emitted=1 "), "the summary: \(filtered.stderr.suffix(600))")
    }
}
