import Logging
import SystemCalls

/// Log lines a component wrote, for asserting on (or waiting for) what it told the operator.
public final class LogRecorder: Sendable {
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]

        /// `message key=value …`, keys sorted: what a test searches for a path or an errno.
        public var line: String { message + metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined() }
    }
    private let entries = LockedValue<[Entry]>([])
    private let written = LockedValue<[String]>([])

    public init() {}

    public var all: [Entry] { entries.withLock { $0 } }

    /// Each entry as swift-log's `StreamLogHandler` writes it to stderr (the journal): one write a
    /// record, its newline last.
    public var records: [String] { written.withLock { $0 } }

    /// The records holding what a terminal acts on or what splits a record into more: a line end
    /// before the record's own, any other C0 control, DEL, a C1 control, U+2028, U+2029, a
    /// bidirectional control.
    public var recordsWithRawControls: [String] {
        records.filter { record in
            record.unicodeScalars.dropLast().contains { scalar in
                switch scalar.value {
                case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
                default: scalar.properties.isBidiControl
                }
            } || record.unicodeScalars.last != "\n"
        }
    }

    /// Whether any message so far contains `text`.
    public func contains(_ text: String) -> Bool { all.contains { $0.message.contains(text) } }

    /// The entries, as `line`s, that contain `text` in their message or metadata.
    public func lines(containing text: String) -> [String] { all.map(\.line).filter { $0.contains(text) } }

    public func messages(at level: Logger.Level) -> [String] { all.filter { $0.level == level }.map(\.message) }

    public var logger: Logger {
        var logger = Logger(label: "test") { label in
            MultiplexLogHandler([Handler(recorder: self), StreamLogHandler(label: label, stream: Stream(recorder: self))])
        }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            recorder.append(Entry(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }

    /// What `StreamLogHandler` writes, a record a write.
    private struct Stream: TextOutputStream, Sendable {
        let recorder: LogRecorder
        mutating func write(_ string: String) { recorder.written.withLock { $0.append(string) } }
    }
}
