import Capture
import ConfigurationKeys
@testable import Daemon
import Foundation
import Logging
import Media
import Results
import TestSupport
import Testing

/// A code as the handlers get it: `text` (its bytes the data), with `symbologyIdentifier`.
private func code(_ text: String, data: [UInt8]? = nil, symbologyIdentifier: String? = nil) -> DeliveredCode {
    let frame = GreyFrame(width: 16, height: 16).videoFrame(sequenceNumber: 1, presentationTime: MediaTime(nanoseconds: 1_000_000))
    return DeliveredCode(code: MachineReadableCodeObject(symbology: .qrcode, data: data ?? Array(text.utf8), text: text, quality: 1, orientation: .up,
                                                         corners: [], frame: frame.info, pass: .zbar, symbologyIdentifier: symbologyIdentifier))
}

/// `match.list` as expected codes with quantities (`ExpectedList`) and their tally (`ExpectedTally`).
@Suite(.offThePool) struct ExpectedListTests {
    /// Quantities after the last comma, payloads with commas, duplicates adding up, blanks around
    /// the quantity; a comma not followed by only digits is part of the payload.
    @Test func linesCarryQuantitiesAfterTheirLastComma() throws {
        let list = try ExpectedList(["SN-1", "SN-2,3", "A,B", "A,B,2", "LOT,7,1", "X , 4", "SN-9,3x", "SN-8,-2", "gs1:01=09506000134352,2"])
        let entries = list.entries.map { "\($0.name)=\($0.quantity)@\($0.line)" }
        #expect(entries == ["SN-1=1@1", "SN-2=3@2", "A,B=3@3", "LOT,7=1@5", "X=4@6", "SN-9,3x=1@7", "SN-8,-2=1@8", "gs1:01=09506000134352=2@9"], "\(entries)")
        #expect(list.count == 8 && list.entries.last?.key == .gs1(ai: "01", value: "09506000134352"))
        #expect(list.entry(text: "A,B") == 2 && list.entry(text: "A,B,2") == nil && list.entry(text: "LOT,7") == 3 && list.entry(text: "X ") == nil)
    }

    /// Comments and blank lines are skipped and the line numbers kept as the file has them.
    @Test func aListFileKeepsItsLineNumbers() throws {
        let file = try TemporaryFile(contents: Array("# expected\n\nSN-1,2\r\n#SN-2,3\n  gs1:01=09506000134352 , 5 \n".utf8), suffix: ".txt")
        let list = try ExpectedList(lines: try ListFile.lines(of: file.path))
        #expect(list.entries.map { "\($0.name)=\($0.quantity)@\($0.line)" } == ["SN-1=2@3", "gs1:01=09506000134352=5@5"])
    }

    /// A bad quantity or GS1 entry is a problem of `match.list` naming the file and the line
    /// (so `check-config` and the start name it; a reload keeps the running list).
    @Test func badLinesAreNamedWithTheirLineNumber() async throws {
        let cases: [(String, String)] = [
            ("SN-1\nSN-2,0\n", "line 2: the quantity 0 is not 1 to 1000000 (a line is ENTRY or ENTRY,QUANTITY)"),
            ("# c\nSN-1,12345678\n", "line 2: the quantity 12345678 is not 1 to 1000000"),
            ("SN-1\n\n , 3\n", "line 3: the quantity 3 has no entry before its comma"),
            ("gs1:01\n", "line 1: gs1:01 has no = (a GS1 entry is gs1:AI=VALUE, like gs1:01=09506000134352)"),
            ("SN\ngs1:ZZ=1,2\n", "line 2: gs1:ZZ=1: ZZ is not a GS1 application identifier"),
            ("gs1:01=,2\n", "line 1: gs1:01= has no value after ="),
            ("gs1:01=09506000134353\n", "line 1: gs1:01=09506000134353: (01): "),
        ]
        for (contents, message) in cases {
            let file = try TemporaryFile(contents: Array(contents.utf8), suffix: ".txt")
            let lines = await expectConfigurationError(file: nil, environment: ["SYNCSCAN_MATCH_LIST": file.path])
            #expect(lines.count == 1 && lines[0].contains("match.list: \(file.path): \(message)"), "\(contents.debugDescription): \(lines)")
        }
    }

    /// A GS1 entry matches a GS1 QR code's element string and a Digital Link whatever their other
    /// AIs; a payload entry matches the text exactly; the tally counts each against its entry.
    @Test func gs1EntriesMatchAGTINWithAnySerial() async throws {
        let file = try TemporaryFile(contents: Array("gs1:01=09506000134352,2\nSN-1\n".utf8), suffix: ".txt")
        let configuration = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_MATCH_LIST": file.path])
        let tally = ExpectedTally()
        let handler = MatchResultsHandler(settings: try #require(configuration.match), logger: LogRecorder().logger, tally: tally)
        var element = code("0109506000134352" + "21SER1", symbologyIdentifier: "]Q3")
        try handler.handle(&element)
        #expect(element.match == true && element.expected == ExpectedCounts(correct: 0, wrong: 0, missing: 2, extra: 0, entries: [
            .init(entry: "gs1:01=09506000134352", quantity: 2, seen: 1), .init(entry: "SN-1", quantity: 1, seen: 0)]))
        var link = code("https://id.gs1.org/01/09506000134352/21/SER2")
        try handler.handle(&link)
        #expect(link.match == true && link.expected?.correct == 1 && link.expected?.missing == 1)
        var other = code("0109506000134369" + "21SER1", symbologyIdentifier: "]Q3")
        try handler.handle(&other)
        #expect(other.match == false && other.expected?.wrong == 1, "another GTIN is on no entry")
        var plain = code("0109506000134352")
        try handler.handle(&plain)
        #expect(plain.match == false && plain.expected?.wrong == 2, "the same digits without a GS1 symbology identifier are no GS1 reading")
        var sn = code("SN-1")
        try handler.handle(&sn)
        #expect(sn.expected.map { [$0.correct, $0.wrong, $0.missing, $0.extra] } == [2, 2, 0, 0])
        let counters = handler.counters.filter { $0.name.hasPrefix("expected_") }.map { "\($0.name)=\($0.value)" }
        #expect(counters == ["expected_correct=2", "expected_wrong=2", "expected_missing=0", "expected_extra=0"], "\(counters)")
        #expect(handler.counters.first { $0.name == "expected_missing" }?.kind == .gauge)
    }

    /// The tally: entries move from missing to correct to extra as they are seen; a reset starts it
    /// over; per window, each window is tallied alone and `current` is the last closed window's.
    @Test func theTallyCountsEntriesAndStartsOver() throws {
        let list = try ExpectedList(["A,2", "B", "C,3"])
        let run = ExpectedTally()
        #expect(run.current == nil && run.count(0) == nil && !run.reset(), "no list: nothing counted")
        run.apply(list)
        #expect(run.totals == ExpectedCounts(missing: 3))
        for index in [0, 1, 1, nil, 0, nil] { _ = run.count(index) }
        #expect(run.totals == ExpectedCounts(correct: 1, wrong: 2, missing: 1, extra: 1))
        #expect(run.current?.entries?.map(\.seen) == [2, 2, 0])
        run.apply(list)
        #expect(run.totals?.wrong == 2, "the same list again keeps the tally")
        #expect(run.reset() && run.totals == ExpectedCounts(missing: 3) && run.resets == 1)
        run.apply(try ExpectedList(["A,2"]))
        _ = run.count(0)
        run.apply(try ExpectedList(["A,2", "D"]))
        #expect(run.totals == ExpectedCounts(missing: 2), "a changed list starts over")

        let windows = ExpectedTally(perWindow: true)
        windows.apply(list)
        _ = windows.count(1)
        #expect(windows.totals == ExpectedCounts(missing: 3), "before a window closes: an empty tally")
        let first = windows.closeWindow()
        #expect(first.map { [$0.correct, $0.wrong, $0.missing, $0.extra] } == [1, 0, 2, 0] && windows.totals?.correct == 1)
        _ = windows.count(nil)
        #expect(windows.reset() && windows.totals?.correct == 1, "a reset starts the open window over; the last window's tally stays shown")
        #expect(windows.closeWindow() == ExpectedCounts(missing: 3, entries: [.init(entry: "A", quantity: 2, seen: 0), .init(entry: "B", quantity: 1, seen: 0),
                                                                               .init(entry: "C", quantity: 3, seen: 0)]))
    }

    /// The SIGHUP path (`ReloadOnHangup.reloadOnce`): the same list read again keeps the tally; a
    /// changed one (a new quantity) starts it over against the new quantities; a bad line keeps the
    /// running list and its tally, and says which line.
    @Test func aReloadReadsTheQuantitiesAgain() async throws {
        let directory = try TemporaryDirectory()
        let (listPath, configPath) = (directory.path + "/expected.txt", directory.path + "/syncscan.yaml")
        try Data("BOX-A,2\nBOX-B\n".utf8).write(to: URL(fileURLWithPath: listPath))
        try Data("match:\n  list: \(listPath)\n".utf8).write(to: URL(fileURLWithPath: configPath))
        let load = { @Sendable in PipelineOptions(try await SyncscanConfiguration.load(file: configPath, environment: [:])) }
        let logs = LogRecorder()
        let writer = LineWriter(fileDescriptor: .standardError, name: "unused", capacity: 4, overflow: .drop)
        let service = ScanService(options: try await load(), writer: writer, logger: logs.logger) { _ in }
        let reload = ReloadOnHangup(scan: service, services: [], reload: load, logger: logs.logger)
        let handler = try #require(service.configuredHandlers.handler(named: "match"))
        for text in ["BOX-A", "BOX-B", "OTHER"] {
            var delivered = code(text)
            try handler.handle(&delivered)
        }
        #expect(service.expected.totals == ExpectedCounts(correct: 1, wrong: 1, missing: 1))

        await reload.reloadOnce()
        #expect(service.expected.totals == ExpectedCounts(correct: 1, wrong: 1, missing: 1), "the same list: the tally goes on")
        try Data("BOX-A,1\nBOX-B\n".utf8).write(to: URL(fileURLWithPath: listPath))
        await reload.reloadOnce()
        #expect(service.expected.totals == ExpectedCounts(missing: 2), "a changed list starts over")
        var again = code("BOX-A")
        try handler.handle(&again)
        #expect(again.expected?.entries == [.init(entry: "BOX-A", quantity: 1, seen: 1), .init(entry: "BOX-B", quantity: 1, seen: 0)])

        try Data("BOX-A,1\nBOX-B,zero\nBOX-C,0\n".utf8).write(to: URL(fileURLWithPath: listPath))
        await reload.reloadOnce()
        let failed = logs.lines(containing: "configuration reload failed; keeping the running configuration")
        #expect(failed.count == 1 && failed[0].contains("match.list: \(listPath): line 3: the quantity 0 is not 1 to 1000000"), "\(failed)")
        #expect(service.expected.totals == ExpectedCounts(correct: 1, missing: 1), "the running list and its tally are kept")
    }

    /// A list longer than `ExpectedCounts.listedEntriesLimit` carries only the counts.
    @Test func aLongListCarriesOnlyItsCounts() throws {
        let tally = ExpectedTally()
        tally.apply(try ExpectedList((0...ExpectedCounts.listedEntriesLimit).map { "SN-\($0)" }))
        let after = tally.count(3)
        #expect(after?.entries == nil && after?.correct == 1 && after?.missing == ExpectedCounts.listedEntriesLimit)
    }
}
