/// A line a TCP result server's client sent: letters in any case, words apart by spaces or tabs,
/// a CR before the LF ignored.
enum TCPCommand: Equatable {
    /// `TRIGGER ON`: a press (a window open until `TRIGGER OFF` with `trigger.window.until_release`).
    case triggerOn
    /// `TRIGGER OFF`: a release.
    case triggerOff
    /// `TRIGGER`: a press, as SIGUSR1: the window closes by its duration or its codes.
    case trigger
    case counters
    case resetCounters
    /// `EXPECTED`: the tally against `match.list` now.
    case expected
    /// `RESET EXPECTED`: the tally against `match.list` started over.
    case resetExpected
    case status
    /// `TOKEN xxx`: the token (compared as sent, its case kept).
    case token(String)
    /// Not a command: its first words, shown in the error reply.
    case unknown(String)

    init(line: [UInt8]) {
        let text = String(decoding: line, as: UTF8.self)
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
        let upper = words.map { $0.uppercased() }
        switch upper {
        case ["TRIGGER", "ON"]: self = .triggerOn
        case ["TRIGGER", "OFF"]: self = .triggerOff
        case ["TRIGGER"]: self = .trigger
        case ["COUNTERS"]: self = .counters
        case ["RESET", "COUNTERS"]: self = .resetCounters
        case ["EXPECTED"]: self = .expected
        case ["RESET", "EXPECTED"]: self = .resetExpected
        case ["STATUS"]: self = .status
        default:
            if upper.count == 2 && upper[0] == "TOKEN" { self = .token(words[1]); return }
            self = .unknown(upper.first == "TOKEN" ? "TOKEN" : String(words.joined(separator: " ").unicodeScalars
                .filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(32).map(Character.init)))
        }
    }
}

/// A client's bytes cut into lines, at most `limit` bytes each (the LF not counted).
struct TCPLineReader {
    let limit: Int
    private var pending: [UInt8] = []

    init(limit: Int) { self.limit = limit }

    /// The lines `bytes` completes (empty ones left out), or `nil` once a line runs past `limit`.
    mutating func lines(adding bytes: UnsafeRawBufferPointer) -> [[UInt8]]? {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == 0x0A {
                if pending.last == 0x0D { pending.removeLast() }
                guard pending.count <= limit else { return nil }
                if !pending.isEmpty { lines.append(pending) }
                pending.removeAll(keepingCapacity: true)
            } else {
                // One more byte is allowed for a CR before the LF.
                guard pending.count <= limit else { return nil }
                pending.append(byte)
            }
        }
        return lines
    }
}
