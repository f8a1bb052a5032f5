import Capture
import Decoders
import Evdev
import Foundation
import Media
import SystemCalls
import Testing
import TestSupport
@testable import Results

/// Records what the wedge types, as text (the US keymap read backwards).
private final class RecordingTypist: KeyboardTypist, @unchecked Sendable {
    let devicePath: String? = "/dev/input/event99"
    private let typed = LockedValue<[KeyStroke]>([])
    /// Holds typing until opened (a slow program on the other side).
    let gate = LockedValue(true)
    /// Calls of `type`, counted before the gate.
    let calls = LockedValue(0)

    func type(_ strokes: [KeyStroke]) throws {
        calls.withLock { $0 += 1 }
        gate.withLock(when: { $0 }) { _, _ in }
        typed.withLock { $0 += strokes }
    }

    var strokes: [KeyStroke] { typed.withLock { $0 } }

    /// The strokes as the characters a US keyboard makes of them (`⏎` Enter, `⇥` Tab).
    var text: String {
        var byStroke: [KeyStroke: Character] = [.enter: "⏎", .tab: "⇥"]
        for value in UInt8(0x20)...UInt8(0x7E) {
            let character = Character(Unicode.Scalar(value))
            if case .success(let strokes) = USKeymap.strokes(for: String(character)) { byStroke[strokes[0]] = character }
        }
        return String(strokes.map { byStroke[$0] ?? "?" })
    }
}

/// A typist whose node's name and whose failure quote a line end and ESC (a kernel's, a driver's text).
private final class HostileTypist: KeyboardTypist, @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "write(/dev/uinput): bad\n2026-12-01T21:00:00+0000 critical syncscan: [Daemon] FORGED\u{1B}[2J" }
    }
    let devicePath: String? = "/dev/input/event9\n2026-12-01T21:00:00+0000 critical syncscan: FORGED\u{1B}]0;title\u{7}"
    func type(_ strokes: [KeyStroke]) throws { throw Failure() }
}

private func delivered(_ text: String?, seq: UInt64, data: [UInt8]? = nil) -> DeliveredCode {
    let frame = FrameInfo(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 1_000_000), width: 64, height: 64, format: .grey)
    return DeliveredCode(code: MachineReadableCodeObject(symbology: .qrcode, data: data ?? Array((text ?? "").utf8), text: text, quality: 1,
                                                         orientation: .up, corners: [], frame: frame, pass: .zbar))
}

@Suite(.offThePool) struct KeyboardResultsHandlerTests {
    @Test func eachCodeIsTypedWholeThenEnterAndCounted() throws {
        let typist = RecordingTypist()
        let handler = KeyboardResultsHandler(settings: KeyboardSettings(), logger: LogRecorder().logger, strokeInterval: .zero) { typist }
        handler.start()
        for (seq, text) in ["ABC-123", "https://example.com/?q=a b"].enumerated() {
            var code = delivered(text, seq: UInt64(seq))
            try handler.handle(&code)
        }
        try handler.finish()
        #expect(typist.text == "ABC-123⏎https://example.com/?q=a b⏎")
        #expect(handler.typed == 2 && handler.refused == 0 && handler.dropped == 0)
        #expect(handler.counters.map(\.name) == ["keyboard_typed", "keyboard_refused", "keyboard_dropped"])
    }

    @Test(arguments: [(KeyboardSettings.Suffix.tab, "x1⇥"), (.none, "x1")])
    func theSuffixIsTheConfiguredOne(suffix: KeyboardSettings.Suffix, expected: String) throws {
        let typist = RecordingTypist()
        var settings = KeyboardSettings()
        settings.suffix = suffix
        let handler = KeyboardResultsHandler(settings: settings, logger: LogRecorder().logger, strokeInterval: .zero) { typist }
        var code = delivered("x1", seq: 0)
        try handler.handle(&code)
        try handler.finish()
        #expect(typist.text == expected)
    }

    /// `what: results`: a good window's codes are typed when it closes, in their order; a
    /// no_read or multiple window's never.
    @Test func withResultsOnlyAGoodWindowsCodesAreTypedWhenItCloses() throws {
        let typist = RecordingTypist()
        var settings = KeyboardSettings()
        settings.what = .results
        let handler = KeyboardResultsHandler(settings: settings, logger: LogRecorder().logger, strokeInterval: .zero) { typist }
        handler.start()
        func window(_ number: UInt64, _ texts: [String], _ kind: ReadResult.Kind) throws {
            for text in texts {
                var code = delivered(text, seq: number)
                try handler.handle(&code)
            }
            let frame = ItemFrame(sequenceNumber: number, presentationTime: .zero)
            var result = ReadResult(kind: kind, window: number, trigger: "test", opened: frame, closed: frame, codes: texts.count, framesScanned: 1)
            try handler.readResult(&result)
        }
        try window(1, ["A1", "B2"], .multiple)
        try window(2, ["C3"], .good)
        try window(3, [], .noRead)
        try window(4, ["D4", "E5"], .good)
        try handler.finish()
        #expect(typist.text == "C3⏎D4⏎E5⏎")
        #expect(handler.typed == 3 && handler.refused == 0 && handler.dropped == 0)
    }

    @Test func aCodeWithACharacterTheLayoutLacksIsRefusedWholeWithOneLineNamingIt() throws {
        let typist = RecordingTypist()
        let log = LogRecorder()
        let handler = KeyboardResultsHandler(settings: KeyboardSettings(), logger: log.logger, strokeInterval: .zero) { typist }
        var refused = delivered("Grüße", seq: 7)
        refused.item = 3
        try handler.handle(&refused)
        var binary = delivered(nil, seq: 8, data: [0xFF, 0x00])
        try handler.handle(&binary)
        var fine = delivered("ok", seq: 9)
        try handler.handle(&fine)
        try handler.finish()
        #expect(typist.text == "ok⏎", "nothing of the refused code typed")
        #expect(handler.refused == 2 && handler.typed == 1)
        let lines = log.lines(containing: "code not typed")
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first == "keyboard wedge: code not typed: 'ü' (U+00FC) at character 3 has no key on the us keyboard layout item=3 seq=7 symbology=qrcode text=Grüße",
                "\(lines)")
    }

    @Test func aFullQueueDropsCodesWithoutWaiting() throws {
        let typist = RecordingTypist()
        typist.gate.withLock { $0 = false }
        var settings = KeyboardSettings()
        settings.queueCodes = 2
        let handler = KeyboardResultsHandler(settings: settings, logger: LogRecorder().logger, strokeInterval: .zero) { typist }
        handler.start()
        var first = delivered("first", seq: 0)
        try handler.handle(&first)
        // The thread holds the first code (blocked typing it); two wait; the rest are dropped.
        #expect(waitUntil { typist.calls.withLock { $0 } > 0 })
        for seq in 1...6 {
            var code = delivered("c\(seq)", seq: UInt64(seq))
            try handler.handle(&code)
        }
        #expect(handler.dropped == 4, "handle never waits: the queue of 2 overflowed")
        typist.gate.withLock { $0 = true }
        typist.gate.broadcast()
        try handler.finish()
        #expect(handler.typed == 3 && handler.dropped == 4)
        #expect(typist.text == "first⏎c1⏎c2⏎")
    }

    @Test func aMissingUInputNodeIsOneErrorLineAtStartAndTheCodesAreDroppedNotTyped() throws {
        let log = LogRecorder()
        var settings = KeyboardSettings()
        settings.uinputPath = "/nonexistent/uinput"
        let handler = KeyboardResultsHandler(settings: settings, logger: log.logger, strokeInterval: .zero)
        handler.start()
        #expect(waitUntil { !log.messages(at: .error).isEmpty })
        var code = delivered("x", seq: 0)
        try handler.handle(&code)
        try handler.finish()
        let errors = log.messages(at: .error)
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.hasPrefix("keyboard wedge off: /nonexistent/uinput: cannot create the virtual keyboard 'syncscan keyboard': no such device: load the uinput module (modprobe uinput") == true, "\(errors)")
        #expect(errors.first?.hasSuffix("(open: No such file or directory, ENOENT); the scan goes on without it") == true, "\(errors)")
        #expect(handler.typed == 0 && handler.dropped == 1)
    }

    /// A QR code whose payload ends a log record and starts a forged one, then clears the screen:
    /// read by zbar from a real frame through the pipeline, the wedge refuses it (a line end has
    /// no key) with one warning record, the payload escaped in it: no record holds a raw line end
    /// or ESC, and none starts with the forged time.
    @Test func aPayloadThatForgesALogLineIsOneRecordWithItEscaped() async throws {
        let payload = "X\n2026-12-01T21:00:00+0000 critical syncscan: [Daemon] FORGED\u{1B}[2J"
        let frame = try GreyFrame.withQRCode(payload).0
        let source = ScriptedFrameSource(steps: [.frame(0, pixels: frame.packedPixels)], isLive: false, width: frame.width, height: frame.height)
        let (log, typist) = (LogRecorder(), RecordingTypist())
        let handler = KeyboardResultsHandler(settings: KeyboardSettings(), logger: log.logger, strokeInterval: .zero) { typist }
        let pipeline = CapturePipeline(input: source, videoDataOutput: VideoDataOutput(),
                                       metadataOutput: MetadataOutput(settings: .init(engine: .zbar)), handler: handler,
                                       reporting: .window(MediaTime(seconds: 1)), logger: log.logger)
        try await pipeline.run()
        try handler.finish()
        #expect(handler.refused == 1 && typist.text.isEmpty, "\(log.all.map(\.line))")
        #expect(log.recordsWithRawControls.isEmpty, "\(log.recordsWithRawControls)")
        let warnings = log.records.filter { $0.contains("code not typed") }
        #expect(warnings.count == 1, "\(log.records)")
        #expect(warnings.first?.contains("text=X\\n2026-12-01T21:00:00+0000 critical syncscan: [Daemon] FORGED\\u{1B}[2J") == true, "\(warnings)")
        #expect(warnings.first?.contains("(U+000A) at character 2 has no key") == true, "\(warnings)")
        #expect(!log.records.contains { $0.hasPrefix("2026-12-01T21:00:00+0000") }, "\(log.records)")
    }

    /// The wedge's other records that quote text from outside (the keyboard's name and node, a
    /// typing failure, a keyboard that cannot be made and the path it names) show it escaped.
    @Test func theWedgesOtherRecordsEscapeWhatTheyQuote() throws {
        let log = LogRecorder()
        var settings = KeyboardSettings()
        settings.deviceName = "kbd\n2026-12-01T21:00:00+0000 critical syncscan: FORGED\u{1B}[2J"
        let handler = KeyboardResultsHandler(settings: settings, logger: log.logger, strokeInterval: .zero) { HostileTypist() }
        handler.start()
        var code = delivered("x", seq: 0)
        try handler.handle(&code)
        try handler.finish()
        settings.uinputPath = "/nonexistent/u\ninput\u{1B}[2J"
        let off = KeyboardResultsHandler(settings: settings, logger: log.logger, strokeInterval: .zero)
        off.start()
        try off.finish()
        #expect(log.messages(at: .info).count == 1 && log.messages(at: .error).count == 2, "\(log.all.map(\.line))")
        #expect(log.recordsWithRawControls.isEmpty, "\(log.recordsWithRawControls)")
        #expect(log.lines(containing: "keyboard wedge off: /nonexistent/u\\ninput\\u{1B}[2J").count == 1, "\(log.all.map(\.line))")
    }
}
