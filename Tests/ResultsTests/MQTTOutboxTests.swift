import Foundation
import Logging
import MQTT
import SystemPackage
import Testing
import TestSupport
@testable import Results

/// A code message whose payload is `code-N` plus `padding` bytes.
private func code(_ i: Int, padding: Int = 0) -> MQTTOutbox.Entry {
    MQTTOutbox.Entry(message: MQTTConnection.Message(topic: "t/codes", payload: Array("code-\(i)".utf8) + [UInt8](repeating: 0x2e, count: padding),
                                                     qos: 1), isCode: true)
}

private func status(_ text: String) -> MQTTOutbox.Entry {
    MQTTOutbox.Entry(message: MQTTConnection.Message(topic: "t/status", payload: Array(text.utf8), qos: 1, retain: true), isCode: false)
}

/// The text before any padding of a message's payload.
private func name(_ message: MQTTConnection.Message) -> String {
    String(decoding: message.payload.prefix { $0 != 0x2e }, as: UTF8.self)
}

/// A broker stand-in: numbers every publish, and acknowledges on request.
private struct FakeBroker {
    var nextMid: Int32 = 1
    var sent: [(mid: Int32, name: String)] = []

    mutating func publish(_ message: MQTTConnection.Message) -> Result<Int32, MQTTError> {
        defer { nextMid += 1 }
        sent.append((nextMid, name(message)))
        return .success(nextMid)
    }

    /// Publishes what the outbox has pending and acknowledges everything, until it is drained; the names in order.
    mutating func deliverAll(_ outbox: inout MQTTOutbox) -> [String] {
        var delivered: [String] = []
        while !outbox.isDrained {
            let before = sent.count
            #expect(outbox.publishPending { publish($0) } == nil)
            for (mid, name) in sent[before...] {
                outbox.acknowledge(mid)
                delivered.append(name)
            }
            outbox.place([])  // refills memory from the spool, as the thread's loop does
            if sent.count == before { break }
        }
        return delivered
    }
}

private func openSpool(_ directory: TemporaryDirectory, maxBytes: Int = 1 << 20) throws -> MQTTSpool {
    try MQTTSpool.open(directory: FilePath(directory.path), fileName: "cam.mqtt-spool", owner: .mqtt, maxBytes: maxBytes, logger: Logger(label: "test")).get()
}

@Suite(.offThePool) struct MQTTOutboxTests {
    @Test func codesPastMemoryWaitInTheSpoolAndArriveInOrder() throws {
        let directory = try TemporaryDirectory()
        var outbox = MQTTOutbox(bound: 3, spool: try openSpool(directory))
        outbox.place((0..<10).map { code($0) })
        #expect(outbox.memoryCount == 3 && outbox.spooledCount == 7)
        var broker = FakeBroker()
        #expect(broker.deliverAll(&outbox) == (0..<10).map { "code-\($0)" })
        #expect(outbox.published == 10 && outbox.dropped == 0 && outbox.isDrained)
    }

    @Test func withoutASpoolTheOldestCodesAreDroppedAndCounted() {
        var outbox = MQTTOutbox(bound: 3, spool: nil)
        outbox.place((0..<5).map { code($0) })
        #expect(outbox.memoryCount == 3 && outbox.dropped == 2)
        var broker = FakeBroker()
        #expect(broker.deliverAll(&outbox) == ["code-2", "code-3", "code-4"])
        #expect(outbox.published == 3)
    }

    @Test func aLostConnectionSendsTheUnacknowledgedAgainInOrderAndKeepsTheAcknowledged() {
        var outbox = MQTTOutbox(bound: 10, spool: nil)
        outbox.place((0..<5).map { code($0) })
        var broker = FakeBroker()
        #expect(outbox.publishPending { broker.publish($0) } == nil)
        #expect(outbox.inflightCount == 5)
        outbox.acknowledge(2)  // code-1, behind an unacknowledged head: nothing leaves yet
        #expect(outbox.published == 0 && outbox.memoryCount == 5)
        outbox.connectionLost()
        #expect(outbox.inflightCount == 0)
        let before = broker.sent.count
        #expect(outbox.publishPending { broker.publish($0) } == nil)
        #expect(broker.sent[before...].map(\.name) == ["code-0", "code-2", "code-3", "code-4"])
        for (mid, _) in broker.sent[before...] { outbox.acknowledge(mid) }
        #expect(outbox.published == 5 && outbox.isDrained)
    }

    @Test func aFailedPublishStopsInOrderAndIsReturned() {
        var outbox = MQTTOutbox(bound: 10, spool: nil)
        outbox.place((0..<3).map { code($0) })
        var calls = 0
        let failure = outbox.publishPending { _ in
            calls += 1
            return calls == 2 ? .failure(MQTTError(call: "mosquitto_publish", code: 4, reason: "no connection")) : .success(Int32(calls))
        }
        #expect(failure?.call == "mosquitto_publish" && outbox.inflightCount == 1)
    }

    @Test func statusMessagesStayInMemoryUpToTwiceTheBoundAndAreNotCounted() {
        var outbox = MQTTOutbox(bound: 2, spool: nil)
        outbox.place((0..<6).map { status("s\($0)") })
        #expect(outbox.memoryCount == 4 && outbox.dropped == 0)
        var broker = FakeBroker()
        _ = broker.deliverAll(&outbox)
        #expect(outbox.published == 0, "status messages are not codes")
    }

    @Test func atExitTheUntakenCodesGoToTheSpoolBeforeWhatIsThere() throws {
        let directory = try TemporaryDirectory()
        var outbox = MQTTOutbox(bound: 2, spool: try openSpool(directory))
        outbox.place((0..<4).map { code($0) })
        var broker = FakeBroker()
        #expect(outbox.publishPending { broker.publish($0) } == nil)
        outbox.acknowledge(broker.sent[0].mid)  // code-0 taken; code-1 sent, not acknowledged
        #expect(outbox.closeForExit() == 0)
        let reopened = try openSpool(directory)
        var names: [String] = []
        while let message = try reopened.removeFirst().get() { names.append(name(message)) }
        #expect(names == ["code-1", "code-2", "code-3"])
    }

    @Test func aFullSpoolDropsTheOldestCodeOfAllAndKeepsOrder() throws {
        let directory = try TemporaryDirectory()
        // Room for about two padded codes in the spool, one in memory.
        var outbox = MQTTOutbox(bound: 1, spool: try openSpool(directory, maxBytes: 4096))
        outbox.place((0..<6).map { code($0, padding: 1500) })
        #expect(outbox.dropped == 3, "dropped: \(outbox.dropped), memory \(outbox.memoryCount), spooled \(outbox.spooledCount)")
        var broker = FakeBroker()
        #expect(broker.deliverAll(&outbox) == ["code-3", "code-4", "code-5"])
    }

    @Test func withoutAnySpoolExitLosesWhatWasNotTaken() {
        var outbox = MQTTOutbox(bound: 5, spool: nil)
        outbox.place((0..<3).map { code($0) })
        #expect(outbox.closeForExit() == 3)
    }
}
