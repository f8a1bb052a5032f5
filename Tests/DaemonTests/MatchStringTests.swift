import Capture
import ConfigurationKeys
@testable import Daemon
import Foundation
import Logging
import Media
import Results
import SystemCalls
import SystemPackage
import TestSupport
import Testing

/// A QR clip of `text` scanned by a service configured by `environment` (`SYNCSCAN_MATCH_*`):
/// its stdout lines, the service, and its metrics file.
private func scan(_ text: String, frames: Int = 4, environment: [String: String]) async throws -> (lines: [String], service: ScanService, prom: PrometheusText) {
    let video = try TemporaryFile.qrClip(text, frames: frames)
    let metrics = try TemporaryDirectory()
    var configuration = try await SyncscanConfiguration.load(file: nil, environment: environment)
    configuration.source = video.path
    configuration.duplicateSuppression.mode = .off
    configuration.statsIntervalSeconds = 0
    configuration.metrics.textfile = metrics.path + "/syncscan.prom"
    let run = try await ServiceRun(configuration)
    return (run.lines, run.service, try PrometheusText(path: metrics.path + "/syncscan.prom"))
}

/// A code of text `text` (nil: a binary payload) as the handlers get it.
private func code(_ text: String?, seq: UInt64 = 1) -> DeliveredCode {
    let frame = GreyFrame(width: 16, height: 16).videoFrame(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 1_000_000))
    return DeliveredCode(code: MachineReadableCodeObject(symbology: .qrcode, data: Array((text ?? "\u{0}").utf8), text: text,
                                                         quality: 1, orientation: .up, corners: [], frame: frame.info, pass: .zbar))
}

/// What the match handler made of `text`.
private func verdict(_ handler: any ResultsHandler, _ text: String?) throws -> Bool? {
    var delivered = code(text)
    try handler.handle(&delivered)
    return delivered.match
}

@Suite(.offThePool) struct MatchStringTests {
    /// `match.pattern` on real decoded frames through the pipeline: each code line carries
    /// `"match"` after `frame`, the pattern is anchored (`SN-\d{4}` is not found inside
    /// `SN-12345`), and the counts reach the stats line, STATUS=, `/status`, `<prefix>/stats`
    /// and the metrics; without a match configured there is no field and no counter.
    @Test func aPatternMarksEveryLineAndCountsMatchesAndMismatches() async throws {
        let matching = try await scan("SN-12345", environment: ["SYNCSCAN_MATCH_PATTERN": #"SN-\d{5}"#])
        #expect(matching.lines.count == 4 && matching.lines.allSatisfy { $0.contains(#"},"match":true,"source":"#) }, "\(matching.lines)")
        #expect(matching.service.statsLine().contains(" reads_matched=4 reads_mismatch=0"), "\(matching.service.statsLine())")

        let mismatching = try await scan("SN-12345", environment: ["SYNCSCAN_MATCH_PATTERN": #"SN-\d{4}"#])
        #expect(mismatching.lines.count == 4 && mismatching.lines.allSatisfy { $0.contains(#""match":false"#) }, "\(mismatching.lines)")
        let counters = mismatching.service.counters()
        #expect(mismatching.service.statsLine().contains(" reads_matched=0 reads_mismatch=4"), "\(mismatching.service.statsLine())")
        let status = ServiceStatus.scanning(source: "y4m:-", statistics: counters.statistics,
                                            handlerCounters: counters.handlers.joined().filter(\.inStatus)).line
        #expect(status.hasSuffix(" reads_matched=0 reads_mismatch=4"), "\(status)")
        let json = String(decoding: ServiceLines.statsJSON(counters), as: UTF8.self)
        #expect(json.contains(#""reads_matched":0,"reads_mismatch":4"#) && !json.contains("reads_match_timeouts"), "\(json)")
        let statusJSON = String(decoding: mismatching.service.statusJSON(), as: UTF8.self)
        #expect(statusJSON.contains(#""reads_mismatch":4"#) && statusJSON.contains(#"{"kind":"handler","name":"match","pattern":"SN-\\d{4}"}"#),
                "\(statusJSON)")
        #expect(mismatching.prom.value("syncscan_reads_mismatch_total") == 4 && mismatching.prom.value("syncscan_reads_matched_total") == 0)

        let off = try await scan("SN-12345", frames: 1, environment: [:])
        #expect(off.lines.count == 1 && !off.lines[0].contains("\"match\""), "\(off.lines)")
        #expect(!off.service.statsLine().contains("reads_"), "\(off.service.statsLine())")
        #expect(!String(decoding: off.service.statusJSON(), as: UTF8.self).contains(#""name":"match""#))
    }

    /// `match.list` with comments, blank lines, CRLF and spaces around values; with a pattern too,
    /// a code matches when it matches either; a code without text matches neither.
    @Test func aListFileWithCommentsAndAPatternMatchEither() async throws {
        let list = try TemporaryFile(contents: Array("# expected parcels\r\n\n  SN-1  \r\n#SN-2\nSN 3\n\t\n".utf8), suffix: ".txt")
        #expect(try ListFile.entries(of: list.path) == ["SN-1", "SN 3"])
        let configuration = try await SyncscanConfiguration.load(file: nil, environment: [
            "SYNCSCAN_MATCH_LIST": list.path, "SYNCSCAN_MATCH_PATTERN": #"LOT-\d+"#])
        let handler = try #require(ResultsHandlerRegistry.make(configuration, context: .init(source: "y4m:-", logger: LogRecorder().logger))
            .handler(named: "match"))
        #expect(try verdict(handler, "SN-1") == true && verdict(handler, "SN 3") == true && verdict(handler, "LOT-77") == true)
        #expect(try verdict(handler, "SN-2") == false && verdict(handler, "#SN-2") == false && verdict(handler, " SN-1") == false)
        #expect(try verdict(handler, nil) == false, "a binary payload has no text to match")
        #expect(counter(handler, "reads_matched") == 3 && counter(handler, "reads_mismatch") == 4)
    }

    /// A list that cannot be read, or a bad pattern, stops the start (and `check-config`) with
    /// the key, the file and the errno, or the parser's fault.
    @Test func anUnreadableListOrABadPatternIsAConfigurationError() async throws {
        let directory = try TemporaryDirectory()
        let missing = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_MATCH_LIST": directory.path + "/absent.txt"])
        #expect(missing.count == 1 && missing[0].contains("match.list: cannot read \(directory.path)/absent.txt: No such file or directory (open: ENOENT)"),
                "\(missing)")
        let isDirectory = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_MATCH_LIST": directory.path])
        #expect(isDirectory.count == 1 && isDirectory[0].contains("match.list: cannot read \(directory.path): it is a directory, not a regular file"),
                "\(isDirectory)")
        let notText = try TemporaryFile(contents: Array("SN-1\n".utf8) + [0xFF, 0x0A], suffix: ".txt")
        let binary = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_MATCH_LIST": notText.path])
        #expect(binary.count == 1 && binary[0].contains("match.list: cannot read \(notText.path): line 2 is not valid UTF-8 text"), "\(binary)")

        let unbalanced = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_MATCH_PATTERN": "SN-(\\d+"])
        #expect(unbalanced.count == 1 && unbalanced[0].contains("match.pattern: not a valid regular expression (ICU syntax): expected ')'"),
                "\(unbalanced)")
        let quoted = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_MATCH_PATTERN": #"\QSN-1)"#])
        #expect(quoted.count == 1 && quoted[0].contains("match.pattern: it cannot be anchored to the whole text"), "\(quoted)")
    }

    /// ICU takes a lookbehind of bounded length and refuses an unbounded one: the message says
    /// which is refused and what is taken, not that lookbehind is unsupported.
    @Test func anUnboundedLookbehindIsRefusedAndABoundedOneTaken() async throws {
        for pattern in [#".*(?<=SN-\d+)X"#, #".*(?<!x*)y"#] {
            let lines = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_MATCH_PATTERN": pattern])
            #expect(lines.count == 1 && lines[0].contains("match.pattern: not a valid regular expression (ICU syntax): a lookbehind, (?<=…) or (?<!…), "
                                                          + "must match a bounded length: one with *, + or {n,} inside is refused; bound it"), "\(lines)")
            #expect(!lines.joined().contains("not currently supported"), "\(lines)")
        }
        let bounded = try MatchPattern(#".*(?<=SN-\d{1,12})X"#)
        #expect(bounded.match("SN-123X") == .matched && bounded.match("SN-X") == .notMatched)
        // Another fault beside a bounded lookbehind is named as Swift's parser names it.
        let unbalanced = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_MATCH_PATTERN": #"(?<=a)(b"#])
        #expect(unbalanced.count == 1 && unbalanced[0].contains("match.pattern: not a valid regular expression (ICU syntax): expected ')'"), "\(unbalanced)")
    }

    /// The SIGHUP path (`ReloadOnHangup.reloadOnce`, the daemon's reload closure reading the file
    /// again): a changed list file is read again though the configuration file did not change;
    /// one that cannot be read keeps the running list and says why.
    @Test func aReloadReadsTheListAgainAndKeepsItWhenUnreadable() async throws {
        let directory = try TemporaryDirectory()
        let (listPath, configPath) = (directory.path + "/expected.txt", directory.path + "/syncscan.yaml")
        try Data("SN-1\n".utf8).write(to: URL(fileURLWithPath: listPath))
        try Data("match:\n  list: \(listPath)\n".utf8).write(to: URL(fileURLWithPath: configPath))
        let load = { @Sendable in PipelineOptions(try await SyncscanConfiguration.load(file: configPath, environment: [:])) }
        let logs = LogRecorder()
        let writer = LineWriter(fileDescriptor: .standardError, name: "unused", capacity: 4, overflow: .drop)
        let service = ScanService(options: try await load(), writer: writer, logger: logs.logger) { _ in }
        let reload = ReloadOnHangup(scan: service, services: [], reload: load, logger: logs.logger)
        let handler = try #require(service.configuredHandlers.handler(named: "match"))
        #expect(try verdict(handler, "SN-1") == true && verdict(handler, "SN-2") == false)

        try Data("SN-1\nSN-2\n".utf8).write(to: URL(fileURLWithPath: listPath))
        await reload.reloadOnce()
        #expect(try verdict(handler, "SN-2") == true)
        #expect(logs.lines(containing: "match.list read again").count == 1, "\(logs.all.map(\.line))")

        try FileManager.default.removeItem(atPath: listPath)
        await reload.reloadOnce()
        #expect(try verdict(handler, "SN-2") == true && verdict(handler, "SN-3") == false, "the running list is kept")
        let failed = logs.lines(containing: "configuration reload failed; keeping the running configuration")
        #expect(failed.count == 1 && failed[0].contains("match.list: cannot read \(listPath): No such file or directory (open: ENOENT)"), "\(failed)")
    }

    /// A pattern that backtracks without end (`(a+)+$` on 40 `a` and a `!`: 2^40 ways) is stopped
    /// at its time limit: each code costs about 50 ms, counts as a mismatch and a timeout, the first
    /// is logged, and the run ends as usual.
    @Test func aCatastrophicPatternIsStoppedAndTheScanGoesOn() async throws {
        let text = String(repeating: "a", count: 40) + "!"
        let pattern = try MatchPattern("(a+)+$")
        let start = ContinuousClock.now
        #expect(pattern.match(text) == .timedOut)
        let one = ContinuousClock.now - start
        #expect(one >= .milliseconds(50), "not stopped before its limit: \(one)")
        #expect(pattern.match(String(repeating: "a", count: 40)) == .matched, "a text it matches at once")

        let logs = LogRecorder()
        let handler = MatchResultsHandler(settings: MatchSettings(pattern: pattern), logger: logs.logger)
        #expect(try verdict(handler, text) == false && verdict(handler, text) == false)
        #expect(counter(handler, "reads_mismatch") == 2 && counter(handler, "reads_match_timeouts") == 2)
        #expect(logs.lines(containing: "match.pattern took too long on a code's text and was stopped").count == 1)

        let run = try await scan(text, frames: 6, environment: ["SYNCSCAN_MATCH_PATTERN": "(a+)+$"])
        #expect(run.lines.count == 6 && run.lines.allSatisfy { $0.contains(#""match":false"#) }, "\(run.lines)")
        #expect(run.prom.value("syncscan_reads_match_timeouts_total") == 6)
    }

    /// A 10 MB list (700,000 GTIN-14s) is read with the configuration; one past the limits is refused.
    @Test func aTenMegabyteListIsReadAndOneOverTheLimitsIsRefused() async throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10_600_000)
        for n in 0..<700_000 { bytes += Array("0\(9_506_000_000_000 + n)\n".utf8) }
        let list = try TemporaryFile(contents: bytes, suffix: ".txt")
        let configuration = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_MATCH_LIST": list.path])
        let settings = try #require(configuration.match)
        #expect(bytes.count > 10_000_000 && settings.list.count == 700_000)
        #expect(settings.match("09506000699999") == .matched && settings.match("09506000700000") == .notMatched)

        #expect(throws: ListFile.ReadError.self) { try ListFile.entries(in: Array("a\nb\nc\n".utf8), maximumEntries: 2) }
        #expect(throws: ListFile.ReadError.self) { try ListFile.entries(of: list.path, maximumBytes: 1 << 20) }
    }

    /// A list of more values than the limit is refused with the file, its count and the limit.
    @Test func aListOverTheEntryLimitIsRefusedWithItsCount() async throws {
        let list = try TemporaryFile(contents: [UInt8](repeating: UInt8(ascii: "\n"), count: 10) + Array(String(repeating: "a\n", count: 1_000_001).utf8),
                                     suffix: ".txt")
        let lines = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_MATCH_LIST": list.path])
        #expect(lines == ["environment SYNCSCAN_MATCH_LIST: match.list: cannot read \(list.path): it has 1000001 values, over the limit of 1000000 values: "
                          + "split the list, or match with a pattern"])
    }
}

/// A handler's counter by name (0 when it has none), found as the service finds it (`CountsReporting`).
private func counter(_ handler: any ResultsHandler, _ name: String) -> Int {
    (handler as? any CountsReporting)?.counters.first { $0.name == name }?.value ?? 0
}
