import SystemCalls
import Testing

/// Untrusted text as a log line shows it: one line, no terminal control, bounded, and unambiguous.
@Suite struct LogTextTests {
    @Test func lineEndsAndTabsAreWrittenAsEscapes() {
        let forged = "X\n2026-12-01T21:00:00+0000 critical syncscan: [Daemon] FORGED"
        #expect(LogText.untrusted(forged) == "X\\n2026-12-01T21:00:00+0000 critical syncscan: [Daemon] FORGED")
        #expect(LogText.untrusted("a\r\nb\tc") == "a\\r\\nb\\tc")
    }

    @Test func otherControlsSeparatorsAndBidiControlsAreScalarEscapes() {
        #expect(LogText.untrusted("\u{1B}[2J\u{0}\u{7}\u{0B}\u{0C}\u{7F}") == "\\u{1B}[2J\\u{00}\\u{07}\\u{0B}\\u{0C}\\u{7F}")
        #expect(LogText.untrusted("\u{80}\u{85}\u{9B}\u{9F}\u{A0}") == "\\u{80}\\u{85}\\u{9B}\\u{9F}\u{A0}")
        #expect(LogText.untrusted("a\u{2028}b\u{2029}c") == "a\\u{2028}b\\u{2029}c")
        #expect(LogText.untrusted("\u{202E}evil\u{202C}\u{2066}\u{2069}\u{200E}\u{200F}\u{61C}")
                == "\\u{202E}evil\\u{202C}\\u{2066}\\u{2069}\\u{200E}\\u{200F}\\u{61C}")
        // A replacement character in text stands for bytes that were no UTF-8: it is named, not drawn.
        #expect(LogText.untrusted("a\u{FFFD}b") == "a\\u{FFFD}b")
    }

    @Test func aBackslashIsDoubledSoAnEscapeInTheTextIsNotTakenForOne() {
        #expect(LogText.untrusted("C:\\n") == "C:\\\\n")
        #expect(LogText.untrusted("C:\\n") != LogText.untrusted("C:\n"))
    }

    @Test func printableTextOfAnyScriptStandsAsItIs() {
        for text in ["", "ABC-123 (x=1) é ü 中文 🙂", "https://example.com/a?b=c", "/var/lib/syncscan/video0"] {
            #expect(LogText.untrusted(text) == text)
        }
    }

    @Test func bytesThatAreNoUTF8AreShownByteByByte() {
        #expect(LogText.untrusted(bytes: Array("é\n".utf8)) == "é\\n")
        // A lone byte, a surrogate (CESU-8), past U+10FFFF, a sequence cut short.
        #expect(LogText.untrusted(bytes: [0xC3, 0x28]) == "\\xC3(")
        #expect(LogText.untrusted(bytes: [0xED, 0xA0, 0x80]) == "\\xED\\xA0\\x80")
        #expect(LogText.untrusted(bytes: [0xF4, 0x90, 0x80, 0x80]) == "\\xF4\\x90\\x80\\x80")
        #expect(LogText.untrusted(bytes: [0x61, 0xE2, 0x82]) == "a\\xE2\\x82")
        #expect(LogText.untrusted(bytes: [0x1B, 0x5C, 0xFF]) == "\\u{1B}\\\\\\xFF")
    }

    @Test func longTextIsCutAtItsLimitAndSaysHowMuchMore() {
        let long = String(repeating: "a", count: 250)
        #expect(LogText.untrusted(long) == String(repeating: "a", count: LogText.limit) + "… (50 more)")
        #expect(LogText.untrusted(String(repeating: "a", count: LogText.limit)) == String(repeating: "a", count: LogText.limit))
        #expect(LogText.untrusted("\n\n\n", limit: 2) == "\\n\\n… (1 more)")
        #expect(LogText.untrusted(bytes: [UInt8](repeating: 0x41, count: 10), limit: 4) == "AAAA… (6 more bytes)")
        // One character of a thousand combining marks is a thousand scalars: the limit counts scalars.
        let marks = "e" + String(repeating: "\u{301}", count: 1000)
        #expect(LogText.untrusted(marks).unicodeScalars.count == LogText.limit + "… (801 more)".unicodeScalars.count)
    }

    @Test func anErrorIsEscapedAndKeptWholeFarLongerThanAPayload() {
        struct Failure: Error, CustomStringConvertible {
            var description: String { "open(/tmp/x\ny): No such file; " + String(repeating: "w", count: 300) }
        }
        let shown = LogText.error(Failure())
        #expect(shown.hasPrefix("open(/tmp/x\\ny): No such file; "))
        #expect(!shown.contains("\n") && !shown.contains("… ("))
    }
}
