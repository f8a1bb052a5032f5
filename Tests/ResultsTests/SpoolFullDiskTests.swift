import Capture
import Foundation
import Logging
import MQTT
import Testing
import TestSupport
@testable import Results

/// A results handler that forwards codes to a peer through a spool (MQTT, the webhook), its
/// counters by name, and the peer, which starts late.
private struct SpoolingHandler {
    let handler: any ResultsHandler & ServiceHooks & CountsReporting
    let delivered: String, queued: String, spooled: String, dropped: [String]
    let spoolDirectory: String
    let startPeer: () throws -> Void
    /// The distinct codes the peer has received.
    let received: () -> Int
    /// Whether the handler has logged that its spool cannot be used.
    let spoolFailureLogged: () -> Bool

    /// Every code emitted is delivered, waiting in memory or in the spool, or dropped:
    /// the four counters read in one call, as the stats line reads them.
    func counts() -> (delivered: Int, queued: Int, spooled: Int, dropped: Int) {
        let all = Dictionary(handler.counters.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        return (all[delivered] ?? 0, all[queued] ?? 0, all[spooled] ?? 0, dropped.reduce(0) { $0 + (all[$1] ?? 0) })
    }
}

/// The full-disk run: a peer that is away, a spool on a disk that fills and gets room again,
/// then the peer back. At every look, and at the end, emitted = delivered + queued + spooled +
/// dropped; the spool takes codes again once there is room and is drained in the same run.
private func fullDiskRun(_ disk: SmallFileSystem, _ subject: SpoolingHandler) throws {
    let memoryBound: UInt64 = 200
    var emitted: UInt64 = 0
    var violations: [String] = []
    func accounted() -> Bool {
        let c = subject.counts()
        let total = c.delivered + c.queued + c.spooled + c.dropped
        if total != Int(emitted) { violations.append("\(emitted) emitted, \(c)") }
        return total == Int(emitted)
    }
    func emit(_ count: UInt64) throws {
        for _ in 0..<count {
            try send(subject.handler, frames: emitted..<(emitted + 1))
            emitted += 1
            _ = accounted()
        }
    }

    subject.handler.start()
    // Memory holds `memoryBound` codes (the handlers' queue_messages), the spool the rest; should
    // the handler's thread fall a whole queue behind (a starved machine), the oldest waiting are
    // dropped, and counted.
    try emit(memoryBound + 100)
    #expect(waitUntil { accounted() && subject.counts().spooled + subject.counts().dropped >= 100 }, "\(subject.counts())")
    // The disk fills: the spool keeps what it holds (still counted), new codes wait in memory,
    // the oldest dropped and counted at once.
    try disk.fill()
    // The event: a code reached the spool and its write failed (logged), however far the
    // handler's thread had fallen behind.
    #expect(waitUntil(every: .milliseconds(20)) {
        try? emit(1)
        return subject.spoolFailureLogged()
    }, "the spool's failure was never logged: \(subject.counts())")
    try emit(300)
    #expect(waitUntil { accounted() && subject.counts().dropped > 0 }, "\(subject.counts())")
    let spooledWhileFull = subject.counts().spooled
    // Room again: the spool takes codes again, in this run (tried again after its backoff).
    disk.free()
    let recovered = waitUntil(every: .milliseconds(100)) {
        try? emit(1)
        // More than the slack of the spool file's last page (a full tmpfs still takes a few records there).
        return subject.counts().spooled > spooledWhileFull + 20
    }
    #expect(recovered, "the spool never took codes again: \(subject.counts())")
    // The peer back: what memory and the spool hold is delivered, in this run.
    try subject.startPeer()
    #expect(waitUntil { accounted() && subject.counts().queued == 0 && subject.counts().spooled == 0 }, "\(subject.counts())")
    try subject.handler.finish()
    #expect(accounted())
    let final = subject.counts()
    #expect(final.delivered > 0 && final.spooled == 0 && final.queued == 0)
    #expect(waitUntil { subject.received() == final.delivered }, "received \(subject.received()), delivered \(final.delivered)")
    let firstViolations = Array(violations.prefix(3))
    #expect(violations.count == 0, "counts that did not add up, the first: \(firstViolations)")
    // Nothing is left in the spool file for a next run.
    let files = try FileManager.default.contentsOfDirectory(atPath: subject.spoolDirectory).filter { $0.hasSuffix("-spool") }
    #expect(files.count == 1)
    for file in files {
        let size = try FileManager.default.attributesOfItem(atPath: subject.spoolDirectory + "/" + file)[.size] as? Int
        #expect(size == "syncscan MQTT spool 1\n".utf8.count || size == "syncscan webhook spool 1\n".utf8.count, "\(file): \(size ?? -1) bytes")
    }
}

@Suite(.offThePool, .enabled(if: SmallFileSystem.canMount, "mounting a small tmpfs needs root"))
struct SpoolFullDiskTests {
    @Test func mqttAccountsForEveryCodeThroughAFullDiskAndDrainsItsSpoolInTheSameRun() throws {
        let broker = try MosquittoBroker()
        let subscriber = try MosquittoSubscriber(broker: broker, topic: "syncscan/test/disk/codes")
        broker.stop()
        let disk = try SmallFileSystem(kibibytes: 256)
        var settings = MQTTSettings(url: try MQTTBrokerURL(parsing: broker.url))
        settings.topicPrefix = "syncscan/test/disk"
        settings.queueMessages = 200
        settings.spoolDirectory = disk.path + "/spool"  // missing: created
        let logs = LogRecorder()
        let handler = MQTTResultsHandler(settings: settings, source: "/dev/video0", hostname: "test", password: nil, softwareVersion: "0",
                                         logger: logs.logger, overflow: .drop)
        try fullDiskRun(disk, SpoolingHandler(
            handler: handler, delivered: "mqtt_published", queued: "mqtt_queued", spooled: "mqtt_spooled", dropped: ["mqtt_dropped"],
            spoolDirectory: disk.path + "/spool", startPeer: { try broker.start() },
            received: { Set(subscriber.messages.map(\.payload)).count }, spoolFailureLogged: { logs.contains("MQTT spool cannot be used now") }))
        #expect(logs.contains("MQTT spool works again"))
    }

    @Test func theWebhookAccountsForEveryCodeThroughAFullDiskAndDrainsItsSpoolInTheSameRun() throws {
        let receiver = try WebhookReceiver()
        receiver.stop()
        let disk = try SmallFileSystem(kibibytes: 256)
        var settings = WebhookSettings(urls: [receiver.url])
        settings.queueMessages = 200
        settings.spoolDirectory = disk.path + "/spool"
        let logs = LogRecorder()
        let handler = WebhookResultsHandler(settings: settings, source: "/dev/video0", token: nil, logger: logs.logger,
                                            backoffCap: .seconds(1))
        try fullDiskRun(disk, SpoolingHandler(
            handler: handler, delivered: "webhook_delivered", queued: "webhook_queued", spooled: "webhook_spooled",
            dropped: ["webhook_dropped", "webhook_failed"], spoolDirectory: disk.path + "/spool", startPeer: { try receiver.start() },
            received: { Set(deliveredKeys(receiver)).count }, spoolFailureLogged: { logs.contains("webhook spool cannot be used now") }))
        #expect(logs.contains("webhook spool works again"))
    }
}
