import Daemon
import Logging
import SystemCalls
import Testing

/// No line syncscan writes to stderr, a log line included, is longer than `StandardError.maximumLineBytes`.
@Suite struct StandardErrorLineTests {
    @Test func aLongLineIsCutAndTheCutMarked() {
        let cut = StandardError.bounded(String(repeating: "x", count: 100_000) + "\n")
        #expect(cut.utf8.count <= StandardError.maximumLineBytes)
        // Its first 4055 bytes, and how many were cut: room for the marker and the newline.
        #expect(cut == String(repeating: "x", count: 4055) + "… [95945 bytes cut]\n", "\(cut.suffix(40))")
    }

    @Test func shortLinesAreLeftAndEachLineOfManyIsCutAlone() {
        #expect(StandardError.bounded("a\nb\n") == "a\nb\n")
        let two = StandardError.bounded(String(repeating: "y", count: 10_000) + "\nshort\n" + String(repeating: "z", count: 10_000))
        let lines = two.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[1] == "short")
        #expect(lines.allSatisfy { $0.utf8.count < StandardError.maximumLineBytes })
    }

    @Test func aCutNeverSplitsACharacter() {
        let cut = StandardError.bounded(String(repeating: "é", count: 10_000))
        #expect(cut.utf8.count < StandardError.maximumLineBytes)
        #expect(!cut.contains("\u{FFFD}") && cut.hasPrefix("éé") && cut.hasSuffix(" bytes cut]"))
    }

    /// The log handler's stream: a log line with a megabyte message is written cut, once.
    @Test func aLogLineIsCut() {
        let written = LockedValue<[String]>([])
        let handler = StreamLogHandler(label: "test", stream: StandardError.LogStream { text in written.withLock { $0.append(text) } })
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .info
        logger.error("reload failed", metadata: ["error": "\(String(repeating: "v", count: 1_000_000))"])
        let lines = written.withLock { $0 }
        #expect(lines.count == 1 && lines[0].utf8.count <= StandardError.maximumLineBytes && lines[0].hasSuffix(" bytes cut]\n"),
                "\(lines.map(\.utf8.count))")
    }
}
