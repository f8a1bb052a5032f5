import Foundation
import TestSupport
import Testing

/// An EAN-13 (and a QR code beside it) in `framesWithCode` frames of a 12-frame file, blank frames around them.
private func video(framesWithCode: Int) throws -> TemporaryFile {
    let both = try GreyFrame.withQRCodeAndEAN13("confirmation run"), blank = GreyFrame(width: 560, height: 200)
    let frames = (0..<12).map { $0 >= 2 && $0 < 2 + framesWithCode ? both : blank }
    return try TemporaryFile(contents: Y4MWriter.bytes(frames), suffix: ".y4m")
}

/// An item's payload confirmed across its frames, as a user runs it on a file.
@Suite(.serialized, .offThePool) struct ItemConfirmationRunTests {
    @Test func anEANSeenInOneFrameIsNoLineAndIsCountedUnconfirmedAQRCodeIsReportedAtOnce() throws {
        let file = try video(framesWithCode: 1)
        let run = try SyncscanProcess.run(["run", "--source", file.path, "--symbologies", "qrcode,ean13"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.codes.map { $0["symbology"] as? String } == ["qrcode"], "\(run.codes)")
        #expect(run.stderr.contains("items_unconfirmed=1"), "\(run.stderr)")
    }

    @Test func anEANSeenInThreeFramesIsOneLineFromItsSecondFrame() throws {
        let file = try video(framesWithCode: 3)
        let run = try SyncscanProcess.run(["run", "--source", file.path, "--symbologies", "qrcode,ean13"])
        #expect(run.status == 0, "\(run.stderr)")
        let ean = run.codes.filter { $0["symbology"] as? String == "ean13" }
        #expect(ean.count == 1 && ean.first?["text"] as? String == "5901234123457", "\(run.codes)")
        #expect((ean.first?["frame"] as? [String: Any])?["seq"] as? Int == 3, "confirmed by the second frame that read it: \(ean)")
        let qr = run.codes.filter { $0["symbology"] as? String == "qrcode" }
        #expect((qr.first?["frame"] as? [String: Any])?["seq"] as? Int == 2, "\(qr)")
        #expect(!run.stderr.contains("items_unconfirmed"), "\(run.stderr)")
    }

    @Test func reportUnconfirmedWritesTheItemAsItLeavesAndConfirmReadingsOneTurnsItOff() throws {
        let file = try video(framesWithCode: 1)
        let reported = try SyncscanProcess.run(["run", "--source", file.path, "--symbologies", "qrcode,ean13"],
                                               environment: ["SYNCSCAN_DUPLICATE_SUPPRESSION_REPORT_UNCONFIRMED": "true"])
        let ean = reported.codes.filter { $0["symbology"] as? String == "ean13" }
        #expect(ean.count == 1 && ean.first?["confirmed"] as? Bool == false, "\(reported.codes)")
        #expect(reported.codes.filter { $0["symbology"] as? String == "qrcode" }.allSatisfy { $0["confirmed"] == nil })
        let removed = reported.jsonLines.compactMap { $0 }.filter { $0["type"] as? String == "item_removed" }
        #expect(removed.contains { $0["item"] as? Int == ean.first?["item"] as? Int }, "its removal follows: \(removed)")
        let off = try SyncscanProcess.run(["run", "--source", file.path, "--symbologies", "qrcode,ean13"],
                                          environment: ["SYNCSCAN_DUPLICATE_SUPPRESSION_CONFIRM_READINGS": "1"])
        #expect(off.codes.filter { $0["symbology"] as? String == "ean13" }.count == 1, "\(off.codes)")
    }
}
