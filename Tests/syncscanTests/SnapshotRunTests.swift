import Foundation
import TestSupport
import Testing

/// 20 frames 320x240 at 10 fps: "snap-A" drifts across frames 0–11, "snap-B: second" sits in 6–19,
/// so frames 6–11 hold two codes (one snapshot each, named by both lines).
private func scene() throws -> [GreyFrame] {
    let a = try ModuleMatrix.qrCode("snap-A"), b = try ModuleMatrix.qrCode("snap-B: second")
    return (0..<20).map { i in
        var f = GreyFrame(width: 320, height: 240)
        if i < 12 { f.draw(a, x: 10 + Double(i) * 5, y: 30, moduleSize: 4) }
        if i >= 6 { f.draw(b, centerX: 240, centerY: 150, moduleSize: 3) }
        return f
    }
}

/// The payloads zbarimg reads from the image at `path`, one per line.
private func zbarimgTexts(_ path: String) throws -> Set<String> {
    let result = try ExternalTool.run("zbarimg", ["-q", "--raw", "-Sdisable", "-Sqrcode.enable", path])
    return Set(String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map(String.init))
}

@Suite(.serialized, .offThePool) struct SnapshotRunTests {
    @Test(arguments: ["frame", "code"])
    func eachCodeLineNamesAJPEGInTheDirectoryFromWhichZbarimgReadsTheSamePayload(crop: String) throws {
        let video = try TemporaryFile(contents: Y4MWriter.bytes(try scene()), suffix: ".y4m")
        let directory = try TemporaryDirectory()
        let run = try SyncscanProcess.shell("SYNCSCAN_SNAPSHOTS_CROP=\(crop) \"$SYNCSCAN\" run --source '\(video.path)' "
                                            + "--snapshot-dir '\(directory.path)' --duplicate-window 0")
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let codes = run.codes
        #expect(codes.count == 12 + 14, "every sighting of both codes")
        var byFrame: [Int: String] = [:]
        for line in codes {
            let text = line["text"] as? String ?? "?"
            let seq = (line["frame"] as? [String: Any])?["seq"] as? Int ?? -1
            let name = try #require(line["snapshot"] as? String, "line without snapshot: \(line); stderr: \(run.stderr)")
            // One snapshot per frame: both codes of a frame name the same file.
            #expect(byFrame[seq, default: name] == name, "frame \(seq)")
            byFrame[seq] = name
            #expect(name.hasSuffix(String(format: "-seq%06d.jpg", seq)), "\(name)")
            let path = directory.path + "/" + name
            #expect(FileManager.default.fileExists(atPath: path), "\(name) is not in the directory")
            #expect(try zbarimgTexts(path).contains(text), "zbarimg does not read \"\(text)\" from \(name) (crop \(crop))")
        }
        #expect(try directory.fileNames() == byFrame.values.sorted(), "exactly one file per frame with codes, nothing else left")
        #expect(run.stderr.contains("snapshots_written=20 snapshots_skipped=0 snapshots_failed=0"), "stderr: \(run.stderr)")
    }

    @Test func maxFilesKeepsAtMostThatManyAcrossTwoRuns() throws {
        let video = try TemporaryFile(contents: Y4MWriter.bytes(try scene()), suffix: ".y4m")
        let directory = try TemporaryDirectory()
        var names: [[String]] = []
        for _ in 0..<2 {
            let run = try SyncscanProcess.run(["run", "--source", video.path, "--snapshot-dir", directory.path,
                                               "--snapshot-max-files", "10", "--duplicate-window", "0"])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            let files = try directory.fileNames()
            #expect(files.count == 10, "\(files)")
            names.append(files)
            // The newest are kept: this run's last ten frames.
            let lastNamed = Set(run.codes.compactMap { $0["snapshot"] as? String }).sorted().suffix(10)
            #expect(files == Array(lastNamed))
        }
        #expect(Set(names[0]).isDisjoint(with: names[1]), "the second run deleted the first run's files, oldest first")
    }

    @Test func anUnusableDirectoryIsLoggedAndCountedAndEveryLineStillGoesOut() throws {
        let video = try TemporaryFile(contents: Y4MWriter.bytes(try scene()), suffix: ".y4m")
        // A file where the directory should be: every snapshot fails (ENOTDIR), like a read-only mount would (EROFS).
        let notADirectory = try TemporaryFile(contents: Array("in the way".utf8))
        let run = try SyncscanProcess.run(["run", "--source", video.path, "--snapshot-dir", notADirectory.path,
                                           "--duplicate-window", "0"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.codes.count == 26, "every JSON line is still emitted")
        let logged = run.stderr.split(separator: "\n").filter { $0.contains("snapshot") && $0.contains("ENOTDIR") }
        #expect(!logged.isEmpty && logged.allSatisfy { $0.contains(notADirectory.path) }, "stderr: \(run.stderr)")
        #expect(logged.count <= 2, "logged once per kind, not per frame: \(logged)")
        // The directory is known unusable before the first snapshot: no line names one; each is a trial, counted as skipped.
        #expect(run.codes.allSatisfy { $0["snapshot"] == nil }, "no line names a snapshot that was not written")
        #expect(run.stderr.contains("snapshots_written=0 snapshots_skipped=20 snapshots_failed=0"), "stderr: \(run.stderr)")
    }
}
