import Logging
import SystemCalls

/// The stderr log level, shared by every logger so a SIGHUP reload can change it in place.
final class ReloadableLogLevel: Sendable {
    private let level: LockedValue<Logger.Level>
    init(_ level: Logger.Level) { self.level = LockedValue(level) }
    var current: Logger.Level {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }
}

/// A stderr stream handler whose level is the shared `ReloadableLogLevel`.
struct LevelFollowingLogHandler: LogHandler {
    var stream: StreamLogHandler
    let shared: ReloadableLogLevel

    var logLevel: Logger.Level {
        get { shared.current }
        set { shared.current = newValue }
    }

    var metadata: Logger.Metadata {
        get { stream.metadata }
        set { stream.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { stream[metadataKey: key] }
        set { stream[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= shared.current else { return }
        stream.log(event: event)
    }
}
