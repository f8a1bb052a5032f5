import Capture
import Media
import Testing
@testable import Results

private func code(_ text: String, symbologyIdentifier: String? = nil) -> MachineReadableCodeObject {
    let info = FrameInfo(sequenceNumber: 7, presentationTime: MediaTime(nanoseconds: 0), width: 64, height: 64, format: .grey)
    return MachineReadableCodeObject(symbology: .qrcode, data: Array(text.utf8), text: text, quality: nil, orientation: .up,
                                     corners: [], frame: info, pass: .zbar, symbologyIdentifier: symbologyIdentifier)
}

private let fixedTime = WallClockTime(secondsSince1970: 1_795_000_000, milliseconds: 7)

private func render(_ template: String, _ code: MachineReadableCodeObject?, result: String = "good", match: Bool? = nil) throws -> String {
    let values = TCPMessageTemplate.Values(code: code, item: code == nil ? nil : 3, result: result, count: code == nil ? 0 : 1, seq: 7,
                                           time: fixedTime, match: match)
    return String(decoding: try TCPMessageTemplate(parsing: template).render(values), as: UTF8.self)
}

/// The TCP result server's message templates (`tcp.format`), its framing escapes and its command lines.
@Suite struct TCPMessageTemplateTests {
    @Test func everyFieldIsFilledFromTheCodeAndTheResult() throws {
        let gs1 = code("0109501101020917\u{1D}10ABC", symbologyIdentifier: "]Q3")
        #expect(try render("{symbology}|{symbology_id}|{item}|{result}|{count}|{seq}|{match}|{gs1:01}|{gs1:10}|{gs1:21}", gs1, match: false)
                == "qrcode|]Q3|3|good|1|7|false|09501101020917|ABC|")
        #expect(try render("{{{text}}} at {time}", code("A")) == "{A} at \(fixedTime.rfc3339)")
        #expect(try render("NOREAD {seq} [{text}{item}]", nil, result: "no_read") == "NOREAD 7 []")
    }

    /// `{correct}`, `{wrong}`, `{missing}`, `{extra}`: the tally the message carries; empty without a list.
    @Test func theExpectedTallyFillsItsFields() throws {
        let template = try TCPMessageTemplate(parsing: "{text};{correct};{wrong};{missing};{extra}")
        var values = TCPMessageTemplate.Values(code: code("BOX-A"), item: 1, result: "good", count: 1, seq: 7, time: fixedTime, match: true,
                                               expected: ExpectedCounts(correct: 3, wrong: 1, missing: 12, extra: 2))
        #expect(String(decoding: template.render(values), as: UTF8.self) == "BOX-A;3;1;12;2")
        values.expected = nil
        #expect(String(decoding: template.render(values), as: UTF8.self) == "BOX-A;;;;")
        #expect(TCPCommand(line: Array("reset  Expected\r".utf8)) == .resetExpected && TCPCommand(line: Array("expected".utf8)) == .expected)
    }

    @Test func payloadBytesThatWouldBreakFramingAreEscaped() throws {
        #expect(try render("{text}", code("a\r\nb\u{02}c\u{03}d\\e\u{1D}f")) == "a\\x0D\\x0Ab\\x02c\\x03d\\x5Ce\u{1D}f")
        #expect(TCPFraming.bytes(unescaping: Array(#"\x02A\r\n\t\\\q\x0"#.utf8)) == [0x02, 0x41, 0x0D, 0x0A, 0x09, 0x5C] + Array(#"\q\x0"#.utf8))
    }

    @Test func unknownFieldsAndStrayBracesAreNamed() {
        #expect(throws: TCPMessageTemplate.Problem.self) { try TCPMessageTemplate(parsing: "{text") }
        #expect(throws: TCPMessageTemplate.Problem.self) { try TCPMessageTemplate(parsing: "text}") }
        do {
            _ = try TCPMessageTemplate(parsing: "{text} {colour} {gs1:1} {seq}")
            Issue.record("unknown fields accepted")
        } catch {
            #expect(error.description.hasPrefix("unknown fields {colour}, {gs1:1}: the fields are"), "\(error)")
        }
    }

    @Test func commandLinesAreReadInAnyCaseAndBounded() {
        #expect(TCPCommand(line: Array("trigger on\r".utf8)) == .triggerOn)
        #expect(TCPCommand(line: Array(" Trigger\tOFF ".utf8)) == .triggerOff)
        #expect(TCPCommand(line: Array("TRIGGER".utf8)) == .trigger)
        #expect(TCPCommand(line: Array("reset counters".utf8)) == .resetCounters)
        #expect(TCPCommand(line: Array("token AbC".utf8)) == .token("AbC"))
        #expect(TCPCommand(line: Array("TOKEN a b".utf8)) == .unknown("TOKEN"), "a token's words are never echoed")
        #expect(TCPCommand(line: Array("jump\u{07}".utf8)) == .unknown("jump"))
        var reader = TCPLineReader(limit: 8)
        let lines = Array("STATUS\r\n\nCOUNT".utf8).withUnsafeBytes { reader.lines(adding: $0) }
        #expect(lines == [Array("STATUS".utf8)])
        #expect(Array("ERS\n".utf8).withUnsafeBytes { reader.lines(adding: $0) } == [Array("COUNTERS".utf8)])
        #expect(Array("123456789\n".utf8).withUnsafeBytes { reader.lines(adding: $0) } == nil)
        #expect(TCPResultServer.sameToken("s3cret", "s3cret") && !TCPResultServer.sameToken("s3cre", "s3cret") && !TCPResultServer.sameToken("s3creT", "s3cret"))
    }
}
