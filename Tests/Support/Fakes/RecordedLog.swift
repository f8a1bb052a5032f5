import Foundation
import Logging

/// Log messages with their metadata, kept for tests to look at.
public final class RecordedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    public init() {}

    /// Each message followed by its metadata (`message key=value …`).
    public var all: [String] { lock.withLock { lines } }

    /// Lines containing `text`.
    public func lines(containing text: String) -> [String] { all.filter { $0.contains(text) } }

    /// A logger that records into this log.
    public var logger: Logger { Logger(label: "test") { _ in Handler(log: self) } }

    struct Handler: LogHandler {
        let log: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let line = "\(event.message)" + all.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
            log.lock.withLock { log.lines.append(line) }
        }
    }
}
