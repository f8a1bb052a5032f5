import Logging
import MQTT
import Outbox
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

    mutating func failed(_ error: MQTTError, spool: SpoolFile?) {
        guard reported.insert(error.kind).inserted else {
            logger.debug("MQTT broker connection failed again", metadata: ["url": "\(LogText.untrusted(settings.url))", "error": "\(LogText.error(error))"])
            return
        }
        let waiting = spool.map { "codes wait in memory, then in \(LogText.untrusted($0.path))" } ?? "codes wait in memory"
        logger.error("MQTT broker connection failed; \(waiting), and stdout goes on; retrying", metadata: [
            "url": "\(LogText.untrusted(settings.url))", "error": "\(LogText.error(error))", "later": "further \(error.kind) failures are logged at debug level"])
    }

    mutating func connected() {
        guard !reported.isEmpty else { return }
        logger.notice("MQTT broker connected", metadata: ["url": "\(LogText.untrusted(settings.url))"])
        reported.removeAll()
    }

    /// Logs the spool's failures and recoveries (`DurableOutbox.takeSpoolEvents`).
    mutating func spool(_ events: [SpoolEvent]) {
        spoolLog.report(events, metadata: ["url": "\(LogText.untrusted(settings.url))"], logger: logger)
    }
}
