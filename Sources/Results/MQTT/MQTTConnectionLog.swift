import Logging
import MQTT
import SystemCalls

/// The broker connection's failures as the log shows them: each kind once (then at debug
/// level) until the connection is up again, and each spool failure once.
struct MQTTConnectionLog {
    let settings: MQTTSettings
    let logger: Logger
    private var reported: Set<String> = []
    private var spoolLog = SpoolEventLog(owner: .mqtt)

    init(settings: MQTTSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    mutating func failed(_ error: MQTTError, spool: MQTTSpool?) {
        guard reported.insert(error.kind).inserted else {
            logger.debug("MQTT broker connection failed again", metadata: ["url": "\(settings.url)", "error": "\(error)"])
            return
        }
        let waiting = spool.map { "codes wait in memory, then in \($0.path)" } ?? "codes wait in memory"
        logger.error("MQTT broker connection failed; \(waiting), and stdout goes on; retrying", metadata: [
            "url": "\(settings.url)", "error": "\(error)", "later": "further \(error.kind) failures are logged at debug level"])
    }

    mutating func connected() {
        guard !reported.isEmpty else { return }
        logger.notice("MQTT broker connected", metadata: ["url": "\(settings.url)"])
        reported.removeAll()
    }

    /// Logs the spool's failures and recoveries (`MQTTOutbox.takeSpoolEvents`).
    mutating func spool(_ events: [MQTTOutbox.SpoolEvent]) {
        spoolLog.report(events, metadata: ["url": "\(settings.url)"], logger: logger)
    }
}

/// A spool's failures and recoveries (`MQTTOutbox.SpoolEvent`) as the log shows them: each
/// failure once per call and errno until the spool works again, then that it works again.
struct SpoolEventLog {
    let owner: MQTTSpool.Owner
    private var reported: Set<String> = []

    init(owner: MQTTSpool.Owner) { self.owner = owner }

    mutating func report(_ events: [MQTTOutbox.SpoolEvent], metadata: Logger.Metadata, logger: Logger) {
        for event in events {
            switch event {
            case .failed(let error):
                guard reported.insert("\(error.call) \(error.cause?.rawValue ?? 0)").inserted else { continue }
                logger.error("\(owner.name) spool cannot be used now; codes wait in memory (past \(owner.keys).queue_messages the oldest are dropped and counted), and the spool is tried again by itself",
                             metadata: metadata.merging(["error": "\(error)"]) { $1 })
            case .recovered:
                if !reported.isEmpty { logger.notice("\(owner.name) spool works again", metadata: metadata) }
                reported.removeAll()
            }
        }
    }
}
