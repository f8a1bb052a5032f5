import Logging
import SystemCalls

/// What happened to an outbox's spool, for its owner's log (`DurableOutbox.takeSpoolEvents`).
public enum SpoolEvent: Sendable {
    /// It could not be opened or written: codes wait in memory; it is tried again by itself.
    case failed(IOError)
    /// It was opened or written again after failing.
    case recovered
}

/// A spool's failures and recoveries (`SpoolEvent`) as the log shows them: each failure once
/// per call and errno until the spool works again, then that it works again.
public struct SpoolEventLog {
    public let owner: SpoolFile.Owner
    private var reported: Set<String> = []

    public init(owner: SpoolFile.Owner) { self.owner = owner }

    public mutating func report(_ events: [SpoolEvent], metadata: Logger.Metadata, logger: Logger) {
        for event in events {
            switch event {
            case .failed(let error):
                guard reported.insert("\(error.call) \(error.cause?.rawValue ?? 0)").inserted else { continue }
                logger.error("\(owner.name) spool cannot be used now; codes wait in memory (past \(owner.keys).queue_messages the oldest are dropped and counted), and the spool is tried again by itself",
                             metadata: metadata.merging(["error": "\(LogText.error(error))"]) { $1 })
            case .recovered:
                if !reported.isEmpty { logger.notice("\(owner.name) spool works again", metadata: metadata) }
                reported.removeAll()
            }
        }
    }
}

/// When a failed spool is tried again: 0.5 s after the first failure, doubling to 8 s while
/// it keeps failing; at once again after it works.
struct SpoolRetry {
    static let first: Duration = .milliseconds(500)
    static let cap: Duration = .seconds(8)

    private let clock: () -> ContinuousClock.Instant
    private var next: ContinuousClock.Instant?
    private var wait = SpoolRetry.first

    init(clock: @escaping () -> ContinuousClock.Instant) { self.clock = clock }

    /// The spool failed and has not worked since.
    var isFailing: Bool { next != nil }
    /// The spool may be tried now: it has not failed, or its backoff has passed.
    var isDue: Bool { next.map { clock() >= $0 } ?? true }

    mutating func failed() {
        next = clock() + wait
        wait = min(wait * 2, Self.cap)
    }

    mutating func worked() {
        next = nil
        wait = Self.first
    }
}
