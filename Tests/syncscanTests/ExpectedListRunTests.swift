import Foundation
import TestSupport
import Testing

/// `match.list` with quantities and a GS1 pattern, tallied by the built daemon over a clip of
/// several labels: per run in continuous mode, per read window in triggered mode, reset by the
/// TCP server's `RESET EXPECTED`.
@Suite(.serialized, .offThePool) struct ExpectedListRunTests {
    /// Five entries: BOX-A twice, BOX-B and BOX-C once, a GTIN with any serial twice, and one
    /// the clip never shows (three of it).
    static let list = """
        # parcels expected at this station
        BOX-A,2
        BOX-B
        BOX-C,1

        gs1:01=09506000134352,2
        NEVER-SHOWN,3

        """

    static let (width, height) = (420, 150)

    /// A frame of up to three labels, at the left, the middle and the right; `[01]…[21]SERIAL`
    /// is a GS1 QR code, anything else a plain one.
    static func scene(_ labels: [String?]) throws -> GreyFrame {
        var frame = GreyFrame(width: width, height: height)
        for (index, label) in labels.enumerated() {
            guard let label else { continue }
            let matrix = label.hasPrefix("[")
                ? try ModuleMatrix.zintSymbol("QRCODE", text: label, quietZone: 4, arguments: ["--gs1", "--notext"])
                : try ModuleMatrix.qrCode(label)
            frame.draw(matrix, centerX: Double(70 + 140 * index), centerY: 75, moduleSize: 3)
        }
        return frame
    }

    /// Three scenes, each a few frames: 8 labels (6 payloads), 7 of them on the list. Tallied: BOX-A 2 of 2,
    /// BOX-C 1 of 1, the GTIN 2 of 2 (two serials) correct; BOX-B 2 of 1 extra; NEVER-SHOWN 0 of
    /// 3 missing; OTHER-X wrong.
    static func scenes() throws -> [GreyFrame] {
        [try scene(["BOX-A", "BOX-A", "BOX-B"]), try scene(["BOX-C", "OTHER-X", "[01]09506000134352[21]SER1"]),
         try scene(["BOX-B", "[01]09506000134352[21]SER2", nil])]
    }

    /// The four counts of an `expected` object or a tally line: `[correct, wrong, missing, extra]`.
    static func counts(_ expected: [String: Any]?) -> [Int?] {
        ["correct", "wrong", "missing", "extra"].map { expected?[$0] as? Int }
    }

    /// The result messages among a client's lines (not replies to its commands).
    static func results(_ lines: [String]) -> [String] {
        lines.filter { line in !["OK ", "EXPECTED", "ERROR", "STATUS", "COUNTERS"].contains { line.hasPrefix($0) } }
    }

    /// The port logged on the line of `message` (`listen=127.0.0.1:PORT`).
    static func port(after message: String, in stderr: String) -> Int? {
        guard let line = stderr.split(separator: "\n").first(where: { $0.contains(message) }),
              let range = line.range(of: "listen=127.0.0.1:") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// A continuous run of a clip file: every label an item, each counted once however many
    /// frames show it; the summary's tally and each code's `match`.
    @Test func aClipIsTalliedAgainstTheListOnce() throws {
        let list = try TemporaryFile(contents: Array(Self.list.utf8), suffix: ".txt")
        let frames = try Self.scenes().flatMap { Array(repeating: $0, count: 4) }
        let video = try TemporaryFile(contents: Y4MWriter.bytes(frames), suffix: ".y4m")
        let metrics = try TemporaryDirectory()
        let yaml = "symbologies: [qrcode]\nmatch:\n  list: \(list.path)\nmetrics:\n  textfile: \(metrics.path)/syncscan.prom\n"
        let config = try TemporaryFile(contents: Array(yaml.utf8), suffix: ".yaml")
        let run = try SyncscanProcess.run(["run", "--config", config.path, "--source", video.path])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let texts = run.codes.compactMap { $0["text"] as? String }
        #expect(texts.count == 8 && Set(texts).count == 6, "8 items: \(texts)")
        #expect(run.codes.filter { $0["match"] as? Bool == false }.compactMap { $0["text"] as? String } == ["OTHER-X"], "\(run.codes)")
        #expect(run.stderr.contains("expected_correct=3 expected_wrong=1 expected_missing=1 expected_extra=1"), "summary: \(run.stderr.suffix(800))")
        let prom = try PrometheusText(path: metrics.path + "/syncscan.prom")
        #expect(["correct", "wrong", "missing", "extra"].map { prom.value("syncscan_expected_\($0)") } == [3, 1, 1, 1], "the metrics' gauges")
    }

    /// Triggered mode: each read window's `read_result` carries the window's tally, entry by entry,
    /// and the TCP message its four counts; the second window starts from nothing.
    @Test func eachReadWindowCarriesItsOwnTally() throws {
        let list = try TemporaryFile(contents: Array(Self.list.utf8), suffix: ".txt")
        let config = try TemporaryFile(contents: Array("""
            symbologies: [qrcode]
            match:
              list: \(list.path)
            tcp:
              listen: 127.0.0.1:0
              format: "{result};{count};{correct};{wrong};{missing};{extra}"
              no_read: "NOREAD;{correct};{wrong};{missing};{extra}"

            """.utf8), suffix: ".yaml")
        // Every frame fed is scanned (none dropped late on a loaded machine): the counts are the scenes'.
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--no-discard-late", "--config", config.path], environment: [
            "SYNCSCAN_TRIGGER_MODE": "triggered", "SYNCSCAN_TRIGGER_WINDOW_UNTIL_RELEASE": "true", "SYNCSCAN_TRIGGER_WINDOW_DURATION_MS": "60000"])
        let stream = Y4MStream(width: Self.width, height: Self.height)
        daemon.feed(stream.header)
        #expect(daemon.waitForStderr("TCP result server listening"), "stderr: \(daemon.stderr)")
        let port = try #require(Self.port(after: "TCP result server listening", in: daemon.stderr), "stderr: \(daemon.stderr)")
        let plc = try TCPTestClient(port: port)
        let blank = stream.frame(GreyFrame(width: Self.width, height: Self.height))

        plc.send(line: "TRIGGER ON")
        #expect(plc.waitUntil { $0.lines.contains("OK TRIGGER ON") })
        for scene in try Self.scenes() { daemon.feedFrames([stream.frame(scene)], count: 4, every: .milliseconds(40)) }
        plc.send(line: "TRIGGER OFF")
        #expect(daemon.feedFrames([blank], every: .milliseconds(40)) { daemon.records("read_result").count >= 1 }, "stderr: \(daemon.stderr)")
        plc.send(line: "EXPECTED")
        #expect(plc.waitUntil { $0.lines.contains { $0.hasPrefix("EXPECTED ") } })

        plc.send(line: "TRIGGER ON")
        #expect(plc.waitUntil { $0.lines.filter { $0 == "OK TRIGGER ON" }.count == 2 })
        daemon.feedFrames([stream.frame(try Self.scene(["BOX-C", nil, nil]))], count: 4, every: .milliseconds(40))
        plc.send(line: "TRIGGER OFF")
        #expect(daemon.feedFrames([blank], every: .milliseconds(40)) { daemon.records("read_result").count >= 2 }, "stderr: \(daemon.stderr)")
        plc.send(line: "TRIGGER ON")
        #expect(plc.waitUntil { $0.lines.filter { $0 == "OK TRIGGER ON" }.count == 3 })
        daemon.feedFrames([blank], count: 2, every: .milliseconds(40))
        plc.send(line: "TRIGGER OFF")
        #expect(daemon.feedFrames([blank], every: .milliseconds(40)) { daemon.records("read_result").count >= 3 }, "stderr: \(daemon.stderr)")
        #expect(plc.waitUntil { $0.lines.contains { $0.hasPrefix("NOREAD;") } }, "\(plc.lines)")
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        plc.waitUntil { $0.closedByPeer }

        let results = daemon.records("read_result")
        #expect(results.count == 3, "\(results)")
        guard results.count == 3 else { return }
        let first = results[0]["expected"] as? [String: Any]
        #expect(results[0]["codes"] as? Int == 8 && results[0]["result"] as? String == "multiple", "\(results[0])")
        #expect(Self.counts(first) == [3, 1, 1, 1], "\(first ?? [:])")
        let entries = (first?["entries"] as? [[String: Any]] ?? []).map { "\($0["entry"] as? String ?? "?") \($0["seen"] as? Int ?? -1)/\($0["quantity"] as? Int ?? -1)" }
        #expect(entries == ["BOX-A 2/2", "BOX-B 2/1", "BOX-C 1/1", "gs1:01=09506000134352 2/2", "NEVER-SHOWN 0/3"], "\(entries)")
        let second = results[1]["expected"] as? [String: Any]
        #expect(Self.counts(second) == [1, 0, 4, 0], "the second window starts from nothing: \(second ?? [:])")
        #expect(Self.counts(results[2]["expected"] as? [String: Any]) == [0, 0, 5, 0], "a no-read: every entry missing")
        let messages = plc.lines.filter { !$0.hasPrefix("OK ") && !$0.hasPrefix("EXPECTED") }
        #expect(messages == ["multiple;8;3;1;1;1", "good;1;1;0;4;0", "NOREAD;0;0;5;0"], "\(plc.lines)")
        #expect(plc.lines.contains("EXPECTED correct=3 wrong=1 missing=1 extra=1"), "EXPECTED shows the last closed window: \(plc.lines)")
        #expect(daemon.stderr.contains("expected_correct=0 expected_wrong=0 expected_missing=5 expected_extra=0"), "the last window's, in the summary: \(daemon.stderr)")
    }

    /// Continuous mode: each TCP message carries the run's tally after its code; `RESET EXPECTED`
    /// starts it over (and the Modbus registers 135–138 show it at once); without a list both
    /// commands say so.
    @Test func resetExpectedStartsTheRunsTallyOver() throws {
        let list = try TemporaryFile(contents: Array(Self.list.utf8), suffix: ".txt")
        let config = try TemporaryFile(contents: Array("""
            symbologies: [qrcode]
            match:
              list: \(list.path)
            tcp:
              listen: 127.0.0.1:0
              format: "{text};{correct};{wrong};{missing};{extra}"
            modbus:
              listen: 127.0.0.1:0

            """.utf8), suffix: ".yaml")
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--config", config.path])
        let stream = Y4MStream(width: Self.width, height: Self.height)
        daemon.feed(stream.header)
        #expect(daemon.waitForStderr("TCP result server listening") && daemon.waitForStderr("Modbus TCP server listening"), "stderr: \(daemon.stderr)")
        let port = try #require(Self.port(after: "TCP result server listening", in: daemon.stderr), "stderr: \(daemon.stderr)")
        let modbusPort = try #require(Self.port(after: "Modbus TCP server listening", in: daemon.stderr), "stderr: \(daemon.stderr)")
        let plc = try TCPTestClient(port: port)
        plc.send(line: "EXPECTED")
        #expect(plc.waitUntil { $0.lines.contains("EXPECTED correct=0 wrong=0 missing=5 extra=0") }, "\(plc.lines)")
        let scenes = try Self.scenes()
        #expect(daemon.feedFrames([stream.frame(scenes[0])], every: .milliseconds(40)) {
            plc.pump()
            return Self.results(plc.lines).count >= 3
        }, "stderr: \(daemon.stderr)")
        // Three items, in some order: the last message has them all.
        let firstScene = Self.results(plc.lines)
        #expect(firstScene.count == 3 && firstScene.last?.hasSuffix(";2;0;3;0") == true, "BOX-A 2/2, BOX-B 1/1: \(firstScene)")
        let registers = try ModbusRunTests.read(modbusPort) { registers, _ in registers.count == 139 && registers[1] == 3 }.registers
        #expect(Array(registers.suffix(4)) == [2, 0, 3, 0], "registers 135-138: \(registers.suffix(4))")

        plc.send(line: "reset expected")
        plc.send(line: "EXPECTED")
        #expect(plc.waitUntil { $0.lines.contains("OK RESET EXPECTED") && $0.lines.filter { $0.hasPrefix("EXPECTED ") }.count == 2 }, "\(plc.lines)")
        #expect(plc.lines.filter { $0.hasPrefix("EXPECTED ") }.last == "EXPECTED correct=0 wrong=0 missing=5 extra=0", "\(plc.lines)")
        let reset = try ModbusRunTests.read(modbusPort) { registers, _ in registers.count == 139 }.registers
        #expect(Array(reset.suffix(4)) == [0, 0, 5, 0], "the registers show the reset at once: \(reset.suffix(4))")

        #expect(daemon.feedFrames([stream.frame(scenes[1])], every: .milliseconds(40)) {
            plc.pump()
            return Self.results(plc.lines).count >= 6
        }, "stderr: \(daemon.stderr)")
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        plc.waitUntil { $0.closedByPeer }
        let secondScene = Array(Self.results(plc.lines).dropFirst(3))
        #expect(secondScene.count == 3 && secondScene.last?.hasSuffix(";1;1;4;0") == true,
                "after the reset: BOX-C 1/1, the GTIN 1/2, OTHER-X wrong: \(secondScene)")
        #expect(daemon.stderr.contains("expected_correct=1 expected_wrong=1 expected_missing=4 expected_extra=0"), "stderr: \(daemon.stderr)")

        // Without a list: nothing to reset.
        let (bare, barePort, _) = try TCPRunTests.start("", arguments: [])
        let client = try TCPTestClient(port: barePort)
        client.send(line: "RESET EXPECTED")
        client.send(line: "EXPECTED")
        #expect(client.waitUntil { $0.lines.count >= 2 })
        #expect(client.lines == ["ERROR no match.list: nothing is expected", "ERROR no match.list: nothing is expected"], "\(client.lines)")
        bare.closeStdin()
        #expect(bare.wait() == 0, "stderr: \(bare.stderr)")
        #expect(!bare.stderr.contains("expected_"), "no tally without a list: \(bare.stderr)")
    }

    /// `check-config` names a bad quantity's file and line, and exits 2.
    @Test func checkConfigNamesABadQuantitysLine() throws {
        let list = try TemporaryFile(contents: Array("# parcels\nBOX-A,2\nBOX-B,0\n".utf8), suffix: ".txt")
        let config = try TemporaryFile(contents: Array("match:\n  list: \(list.path)\n".utf8), suffix: ".yaml")
        let check = try SyncscanProcess.run(["check-config", config.path])
        #expect(check.status == 2, "stderr: \(check.stderr)")
        #expect(check.stderr.contains("match.list: \(list.path): line 3: the quantity 0 is not 1 to 1000000"), "stderr: \(check.stderr)")
    }
}
