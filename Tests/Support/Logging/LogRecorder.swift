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

    public init() {}

    public var all: [Entry] { entries.withLock { $0 } }

    /// Whether any message so far contains `text`.
    public func contains(_ text: String) -> Bool { all.contains { $0.message.contains(text) } }

    /// The entries, as `line`s, that contain `text` in their message or metadata.
    public func lines(containing text: String) -> [String] { all.map(\.line).filter { $0.contains(text) } }

    public func messages(at level: Logger.Level) -> [String] { all.filter { $0.level == level }.map(\.message) }

    public var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(recorder: self) }
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
}
