import Logging
import MQTT
import Outbox
import SystemCalls
import SystemPackage

/// The handler's thread's parts beside its loop: the outbox and its spool, what is left at exit,
/// and the trigger's subscription.
extension MQTTResultsHandler {
    /// The outbox, over the spool file (`mqtt.spool_directory`) when one is set: opened now, and
    /// again while it fails to open (its failures are the outbox's spool events).
    func openOutbox() -> DurableOutbox {
        guard let directory = settings.spoolDirectory else { return DurableOutbox(bound: bound, spool: nil) }
        let (name, maxBytes, logger) = (SpoolFile.fileName(for: connectionOptions.clientID ?? "syncscan", owner: .mqtt), settings.spoolMaxBytes, logger)
        return DurableOutbox(bound: bound, openingSpool: {
            SpoolFile.open(directory: FilePath(directory), fileName: name, owner: .mqtt, maxBytes: maxBytes, logger: logger).map { spool in
                if !spool.isEmpty {
                    logger.notice("MQTT codes spooled by an earlier run are delivered first", metadata: [
                        "file": "\(LogText.untrusted(spool.path))", "codes": "\(spool.count)"])
                }
                return spool
            }
        })
    }

    /// Publishes the counters the accessors read, and wakes `handle` waiting for room.
    func publishCounts(_ outbox: DurableOutbox) {
        shared.withLock { $0.intake.record(outbox, delivered: outbox.delivered) }
        shared.broadcast()
    }

    /// Closes `outbox` at exit: codes the broker did not take go to the spool (before what is
    /// there), the rest are dropped; each logged. The codes lost.
    func closeForExit(_ outbox: inout DurableOutbox, log: inout MQTTConnectionLog) -> Int {
        // What the broker did not take: codes to the spool (before what is there), the rest dropped.
        let itemsDroppedBefore = outbox.itemsDropped
        let lostAtExit = outbox.closeForExit()
        log.spool(outbox.takeSpoolEvents())
        if let spool = outbox.spool, spool.count > 0 {
            logger.notice("MQTT codes the broker has not taken are spooled for the next run", metadata: [
                "url": "\(LogText.untrusted(settings.url))", "file": "\(LogText.untrusted(spool.path))", "codes": "\(spool.count)"])
        }
        if lostAtExit > 0 {
            logger.error("MQTT codes not delivered at exit: the broker did not take them in time and no spool kept them", metadata: [
                "url": "\(LogText.untrusted(settings.url))", "codes": "\(lostAtExit)",
                "fix": settings.spoolDirectory == nil ? "set mqtt.spool_directory (under systemd the unit's StateDirectory= is the default)"
                                                      : "the spool could not take them: see the spool's error above"])
        }
        if outbox.itemsDropped > itemsDroppedBefore {
            logger.warning("MQTT item messages not delivered at exit: the broker did not take them in time, and they are not spooled", metadata: [
                "url": "\(LogText.untrusted(settings.url))", "messages": "\(outbox.itemsDropped - itemsDroppedBefore)"])
        }
        return lostAtExit
    }

    /// Subscribes to `<prefix>/trigger` at QoS 1 (the SUBSCRIBE's id), or logs why not: the
    /// connection's later failure, if any, is logged as such.
    func subscribeTrigger(_ client: MQTTConnection) -> Int32? {
        switch client.subscribe(triggerTopic, qos: 1) {
        case .success(let mid): return mid
        case .failure(let error):
            logger.error("MQTT trigger not subscribed: \(LogText.untrusted(triggerTopic)) does not press until the next connection", metadata: [
                "url": "\(LogText.untrusted(settings.url))", "error": "\(LogText.error(error))"])
            return nil
        }
    }

    /// The broker's SUBACK for `<prefix>/trigger`: subscribed, or refused (QoS 128: the broker's
    /// access rules) and logged.
    func triggerSubscribed(_ granted: [Int]) {
        guard let qos = granted.first, qos <= 2 else {
            logger.error("MQTT broker refused the trigger subscription: messages on \(LogText.untrusted(triggerTopic)) do not press", metadata: [
                "url": "\(LogText.untrusted(settings.url))", "fix": "let this client read \(LogText.untrusted(triggerTopic)) in the broker's access rules (acl_file)"])
            return
        }
        shared.withLock { $0.triggerSubscribed = true }
    }
}
