import Foundation
import Testing
import TestSupport
import Outbox
@testable import Results

/// The frame sequence numbers of `keys` (`<source>-<run>-<seq>-<index>`).
private func sequences(_ keys: [String]) -> [Int] {
    keys.compactMap { key in Int(key.split(separator: "-").dropLast().last ?? "") }
}

@Suite(.offThePool) struct WebhookReloadTests {
    /// A reload while the receiver is away, with codes in memory and in the spool: the URL's queue
    /// and spool move into the new bounds and spool directory, nothing is lost, and every code
    /// (those waiting included) goes out with the new token.
    @Test func aReloadKeepsWhatWaitsAndAppliesTheNewSettingsToIt() throws {
        let receiver = try WebhookReceiver()
        receiver.stop()
        let (firstSpool, secondSpool) = (try TemporaryDirectory(), try TemporaryDirectory())
        var settings = WebhookSettings(urls: [receiver.url])
        (settings.spoolDirectory, settings.queueMessages) = (firstSpool.path, 3)
        let logs = LogRecorder()
        let handler = WebhookResultsHandler(settings: settings, source: "/dev/video0", token: "old", logger: logs.logger, backoffCap: .seconds(1))
        handler.start()
        // One code at a time past the first three, each waited for in the spool: handed faster
        // than the thread takes them, codes past a whole queue (3) would be dropped before it.
        try send(handler, frames: 0..<3)
        #expect(waitUntil { counter(handler, "webhook_retried") > 0 && counter(handler, "webhook_queued") == 3 })
        for seq in UInt64(3)..<10 {
            try send(handler, frames: seq..<(seq + 1))
            #expect(waitUntil { counter(handler, "webhook_spooled") == Int(seq) - 2 }, "code \(seq) spooled")
        }
        #expect(counter(handler, "webhook_queued") == 3, "3 codes in memory, 7 in the spool")

        (settings.spoolDirectory, settings.queueMessages) = (secondSpool.path, 4)
        handler.apply(settings, token: "new")
        #expect(waitUntil { counter(handler, "webhook_spooled") == 6 && counter(handler, "webhook_queued") == 4 },
                "the same 10 codes: 4 in memory, 6 in the new spool")
        for seq in UInt64(10)..<15 {
            try send(handler, frames: seq..<(seq + 1))
            #expect(waitUntil { counter(handler, "webhook_spooled") == Int(seq) - 3 }, "code \(seq) spooled")
        }
        try receiver.start()
        #expect(waitUntil { handler.delivered == 15 })
        try handler.finish()

        let keys = deliveredKeys(receiver)
        #expect(keys.count == 15 && Set(keys).count == 15, "each code once: \(keys)")
        #expect(sequences(keys) == Array(0..<15), "in order: \(keys)")
        #expect(receiver.requests.allSatisfy { $0.authorization == "Bearer new" })
        #expect(counter(handler, "webhook_dropped") == 0 && counter(handler, "webhook_spooled") == 0)
        #expect(logs.lines(containing: "webhook settings reloaded in place").count == 1)
        // The first spool file was emptied into the second: only its header is left.
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: firstSpool.path).first { !$0.hasPrefix(".") })
        let size = try #require(try FileManager.default.attributesOfItem(atPath: firstSpool.path + "/" + name)[.size] as? Int)
        #expect(size == SpoolFile.Owner.webhook.header.count, "\(name): \(size) bytes")
    }

    /// A URL a reload removes delivers or spools what it held (here spools: its receiver is away)
    /// and the added URL gets the codes after the reload; when a later reload names the first URL
    /// again, its spooled codes reach it first. Every code once per receiver and key.
    @Test func aURLRemovedByAReloadKeepsItsCodesAndAnAddedOneGetsTheCodesAfter() throws {
        let (first, second) = (try WebhookReceiver(), try WebhookReceiver())
        let spool = try TemporaryDirectory()
        var settings = WebhookSettings(urls: [first.url])
        settings.spoolDirectory = spool.path
        let logs = LogRecorder()
        let handler = WebhookResultsHandler(settings: settings, source: "/dev/video0", token: nil, logger: logs.logger, backoffCap: .seconds(1))
        handler.start()
        try send(handler, frames: 0..<3)
        #expect(waitUntil { handler.delivered == 3 })
        first.stop()
        try send(handler, frames: 3..<6)
        #expect(waitUntil { counter(handler, "webhook_retried") > 0 })

        settings.urls = [second.url]
        handler.apply(settings)
        try send(handler, frames: 6..<9)
        #expect(waitUntil { deliveredKeys(second).count == 3 && logs.contains("spooled until webhook.url names it again") },
                "\(logs.all.map(\.line))")

        try first.start()
        settings.urls = [first.url, second.url]
        handler.apply(settings)
        try send(handler, frames: 9..<12)
        #expect(waitUntil { deliveredKeys(first).count == 9 && deliveredKeys(second).count == 6 })
        try handler.finish()

        #expect(sequences(deliveredKeys(first)) == [0, 1, 2, 3, 4, 5, 9, 10, 11], "\(deliveredKeys(first))")
        #expect(sequences(deliveredKeys(second)) == Array(6..<12), "\(deliveredKeys(second))")
        #expect(counter(handler, "webhook_delivered") == 15)
        #expect(counter(handler, "webhook_spooled") == 0 && counter(handler, "webhook_dropped") == 0)
        #expect(logs.lines(containing: "webhook settings reloaded in place").count == 2)
    }
}
