import Foundation
import TestSupport
import Testing

/// A 24-frame 320x240 scene: codes appear, move and leave; one frame holds two codes and a Code 128.
private func scene() throws -> [GreyFrame] {
    let a = try ModuleMatrix.qrCode("scene-A"), b = try ModuleMatrix.qrCode("scene-B: second code")
    let c128 = try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "SCENE-128").stretched(toRows: 40)
    return (0..<24).map { i in
        var f = GreyFrame(width: 320, height: 240)
        if i < 10 { f.draw(a, x: 10 + Double(i) * 4, y: 20, moduleSize: 4) }
        if (6..<18).contains(i) { f.draw(b, centerX: 230, centerY: 120, moduleSize: 3, rotationDegrees: Double(i - 6) * 25) }
        if (14..<22).contains(i) { f.draw(c128, x: 10, y: 170, moduleSize: 2) }
        return f
    }
}

/// zbar's display names, as zbarimg prints them, to syncscan's config names.
private let zbarimgNames = ["QR-Code": "qrcode", "CODE-128": "code128"]

@Suite(.serialized, .offThePool) struct RunCommandTests {
    @Test func everyFrameOfAFileIsScannedAndTheCodesAreExactlyThoseZbarimgFinds() throws {
        let frames = try scene()
        let video = try TemporaryFile(contents: Y4MWriter.bytes(frames), suffix: ".y4m")
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--symbologies", "qrcode,code128",
                                           "--duplicate-window", "0", "--emit-frames"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.jsonLines.allSatisfy { $0 != nil }, "every stdout line is a JSON object")
        // Every frame scanned: 24 frame records, none dropped.
        #expect(run.frames.map { $0["seq"] as? Int } == Array(0..<24))
        #expect(run.frames.allSatisfy { $0["dropped"] is NSNull })

        var found = 0
        for (i, frame) in frames.enumerated() {
            let still = try TemporaryFile(contents: frame.pgmBytes(), suffix: ".pgm")
            let ref = try ExternalTool.run("zbarimg", ["-q", "-Sdisable", "-Sqrcode.enable", "-Scode128.enable", still.path])
            #expect(ref.status == 0 || ref.status == 4, "zbarimg failed: \(ref.describe())")
            let expected = String(decoding: ref.stdout, as: UTF8.self).split(separator: "\n").map { line -> String in
                let parts = line.split(separator: ":", maxSplits: 1)
                return "\(zbarimgNames[String(parts[0])] ?? String(parts[0])):\(parts.count > 1 ? String(parts[1]) : "")"
            }.sorted()
            let got = run.codes.filter { ($0["frame"] as? [String: Any])?["seq"] as? Int == i }
                .map { "\($0["symbology"] as? String ?? "?"):\($0["text"] as? String ?? "?")" }.sorted()
            #expect(got == expected, "frame \(i)")
            found += got.count
        }
        // The scene is built so most frames hold a code; an empty comparison would prove nothing.
        #expect(found >= 24)
        #expect(run.stderr.contains("frames=24 scanned=24 dropped=0"))
    }

    @Test func anFfmpegPipeIsReadFromStdinAsALiveSource() throws {
        let video = try TemporaryFile(contents: Y4MWriter.bytes(try scene()), suffix: ".y4m")
        for pixFmt in ["gray", "yuv420p"] {
            let run = try SyncscanProcess.shell(
                "ffmpeg -loglevel error -i '\(video.path)' -f yuv4mpegpipe -pix_fmt \(pixFmt) - | \"$SYNCSCAN\" run --source y4m:- --emit-frames --symbologies qrcode,code128")
            #expect(run.status == 0, "\(pixFmt): \(run.stderr)")
            // A pipe is live: late frames may be dropped, but every sequence number is accounted for.
            #expect(run.frames.map { $0["seq"] as? Int } == Array(0..<24), "\(pixFmt)")
            let texts = Set(run.codes.compactMap { $0["text"] as? String })
            #expect(!texts.isEmpty && texts.isSubset(of: ["scene-A", "scene-B: second code", "SCENE-128"]), "\(pixFmt): \(texts)")
            #expect(run.codes.allSatisfy { $0["source"] as? String == "y4m:-" })
        }
    }

    @Test func aTruncatedFileReportsTheFrameAndKeepsTheCodesBeforeIt() throws {
        let bytes = Y4MWriter.bytes(try scene())
        let header = bytes.firstIndex(of: UInt8(ascii: "\n"))! + 1
        let frameSize = 6 + 320 * 240
        // Cut in the middle of frame 5.
        let video = try TemporaryFile(contents: Array(bytes[0..<(header + 5 * frameSize + 1000)]), suffix: ".y4m")
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--duplicate-window", "0"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("frame 5"), "stderr: \(run.stderr)")
        let seqs = Set(run.codes.compactMap { ($0["frame"] as? [String: Any])?["seq"] as? Int })
        #expect(seqs == [0, 1, 2, 3, 4], "codes of the intact frames are still printed")
    }

    @Test(arguments: [
        ("YUV4MPEG2 W320 H240 F10:1 C444alpha\n", "444alpha"),
        ("P5\n320 240\n255\n", "YUV4MPEG2"),
        ("YUV4MPEG2 Wabc H240 F10:1\n", "W"),
    ])
    func aMalformedHeaderIsNamed(header: String, mentioned: String) throws {
        let video = try TemporaryFile(contents: Array(header.utf8) + [UInt8](repeating: 0, count: 100), suffix: ".y4m")
        let run = try SyncscanProcess.run(["run", "--source", video.path])
        #expect(run.status != 0)
        #expect(run.stderr.contains(mentioned), "stderr: \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func aMissingFileIsNamed() throws {
        let run = try SyncscanProcess.run(["run", "--source", "/nonexistent/clip.y4m"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("/nonexistent/clip.y4m"), "stderr: \(run.stderr)")
    }

    @Test func anUnknownSymbologyIsRejectedWithTheKnownNames() throws {
        let run = try SyncscanProcess.run(["run", "--source", "x.y4m", "--symbologies", "qrcode,qr"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("\"qr\"") && run.stderr.contains("code128"), "stderr: \(run.stderr)")
    }

    @Test func aClosedStdoutEndsTheRunWithAClearMessage() throws {
        let video = try TemporaryFile(contents: Y4MWriter.bytes(try scene()), suffix: ".y4m")
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--emit-frames"], stdout: pipe.fileHandleForWriting)
        #expect(run.status != 0)
        #expect(run.stderr.contains("stdout") && run.stderr.contains("closed the pipe"), "stderr: \(run.stderr)")
    }

    @Test func checkConfigNamesEveryProblemWithItsLineAndExitsTwo() throws {
        let bad = try TemporaryFile(contents: Array("source: /dev/video0\nsymbologys: [qrcode]\nscanning_threads: 0\n".utf8), suffix: ".yaml")
        let run = try SyncscanProcess.run(["check-config", bad.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(bad.path):2: symbologys"), "stderr: \(run.stderr)")
        #expect(run.stderr.contains("\(bad.path):3: scanning_threads"), "stderr: \(run.stderr)")
        let good = try TemporaryFile(contents: Array("symbologies: [qrcode, ean13]\n".utf8), suffix: ".yaml")
        let ok = try SyncscanProcess.run(["check-config", good.path])
        #expect(ok.status == 0, "stderr: \(ok.stderr)")
    }
}
