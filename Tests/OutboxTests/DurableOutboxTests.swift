import Foundation
import Logging
import SystemPackage
import Testing
import TestSupport
@testable import Outbox

/// A code message whose payload is `code-N` plus `padding` bytes.
private func code(_ i: Int, padding: Int = 0) -> OutboxMessage {
    OutboxMessage(key: "t/codes", payload: Array("code-\(i)".utf8) + [UInt8](repeating: 0x2e, count: padding), kind: .code)
}

private func status(_ text: String) -> OutboxMessage {
    OutboxMessage(key: "t/status", payload: Array(text.utf8), kind: .status, retain: true)
}

/// A send that failed (a receiver's error).
private struct SendFailed: Error, Equatable {
    let call: String
}

/// The text before any padding of a message's payload.
private func name(_ message: OutboxMessage) -> String {
    String(decoding: message.payload.prefix { $0 != 0x2e }, as: UTF8.self)
}

/// A receiver stand-in: numbers every message sent, and acknowledges on request.
private struct FakeReceiver {
    var nextID: Int32 = 1
    var sent: [(id: Int32, name: String)] = []

    mutating func publish(_ message: OutboxMessage) -> Result<Int32, SendFailed> {
        defer { nextID += 1 }
        sent.append((nextID, name(message)))
        return .success(nextID)
    }

    /// Publishes what the outbox has pending and acknowledges everything, until it is drained; the names in order.
    mutating func deliverAll(_ outbox: inout DurableOutbox) -> [String] {
        var delivered: [String] = []
        while !outbox.isDrained {
            let before = sent.count
            #expect(outbox.publishPending { publish($0) } == nil)
            for (id, name) in sent[before...] {
                outbox.acknowledge(id)
                delivered.append(name)
            }
            outbox.place([])  // refills memory from the spool, as the thread's loop does
            if sent.count == before { break }
        }
        return delivered
    }
}

private func openSpool(_ directory: TemporaryDirectory, maxBytes: Int = 1 << 20) throws -> SpoolFile {
    try SpoolFile.open(directory: FilePath(directory.path), fileName: "cam.mqtt-spool", owner: .mqtt, maxBytes: maxBytes, logger: Logger(label: "test")).get()
}

@Suite(.offThePool) struct DurableOutboxTests {
    @Test func codesPastMemoryWaitInTheSpoolAndArriveInOrder() throws {
        let directory = try TemporaryDirectory()
        var outbox = DurableOutbox(bound: 3, spool: try openSpool(directory))
        outbox.place((0..<10).map { code($0) })
        #expect(outbox.memoryCount == 3 && outbox.spooledCount == 7)
        var receiver = FakeReceiver()
        #expect(receiver.deliverAll(&outbox) == (0..<10).map { "code-\($0)" })
        #expect(outbox.delivered == 10 && outbox.dropped == 0 && outbox.isDrained)
    }

    @Test func withoutASpoolTheOldestCodesAreDroppedAndCounted() {
        var outbox = DurableOutbox(bound: 3, spool: nil)
        outbox.place((0..<5).map { code($0) })
        #expect(outbox.memoryCount == 3 && outbox.dropped == 2)
        var receiver = FakeReceiver()
        #expect(receiver.deliverAll(&outbox) == ["code-2", "code-3", "code-4"])
        #expect(outbox.delivered == 3)
    }

    @Test func aLostConnectionSendsTheUnacknowledgedAgainInOrderAndKeepsTheAcknowledged() {
        var outbox = DurableOutbox(bound: 10, spool: nil)
        outbox.place((0..<5).map { code($0) })
        var receiver = FakeReceiver()
        #expect(outbox.publishPending { receiver.publish($0) } == nil)
        #expect(outbox.inflightCount == 5)
        outbox.acknowledge(2)  // code-1, behind an unacknowledged head: nothing leaves yet
        #expect(outbox.delivered == 0 && outbox.memoryCount == 5)
        outbox.connectionLost()
        #expect(outbox.inflightCount == 0)
        let before = receiver.sent.count
        #expect(outbox.publishPending { receiver.publish($0) } == nil)
        #expect(receiver.sent[before...].map(\.name) == ["code-0", "code-2", "code-3", "code-4"])
        for (id, _) in receiver.sent[before...] { outbox.acknowledge(id) }
        #expect(outbox.delivered == 5 && outbox.isDrained)
    }

    @Test func aFailedPublishStopsInOrderAndIsReturned() {
        var outbox = DurableOutbox(bound: 10, spool: nil)
        outbox.place((0..<3).map { code($0) })
        var calls = 0
        let failure = outbox.publishPending { _ in
            calls += 1
            return calls == 2 ? .failure(SendFailed(call: "send")) : .success(Int32(calls))
        }
        #expect(failure == SendFailed(call: "send") && outbox.inflightCount == 1)
    }

    @Test func statusMessagesStayInMemoryUpToTwiceTheBoundAndAreNotCounted() {
        var outbox = DurableOutbox(bound: 2, spool: nil)
        outbox.place((0..<6).map { status("s\($0)") })
        #expect(outbox.memoryCount == 4 && outbox.dropped == 0)
        var receiver = FakeReceiver()
        _ = receiver.deliverAll(&outbox)
        #expect(outbox.delivered == 0, "status messages are not codes")
    }

    @Test func atExitTheUntakenCodesGoToTheSpoolBeforeWhatIsThere() throws {
        let directory = try TemporaryDirectory()
        var outbox = DurableOutbox(bound: 2, spool: try openSpool(directory))
        outbox.place((0..<4).map { code($0) })
        var receiver = FakeReceiver()
        #expect(outbox.publishPending { receiver.publish($0) } == nil)
        outbox.acknowledge(receiver.sent[0].id)  // code-0 taken; code-1 sent, not acknowledged
        #expect(outbox.closeForExit() == 0)
        let reopened = try openSpool(directory)
        var names: [String] = []
        while let message = try reopened.removeFirst().get() { names.append(name(message)) }
        #expect(names == ["code-1", "code-2", "code-3"])
    }

    @Test func aFullSpoolDropsTheOldestCodeOfAllAndKeepsOrder() throws {
        let directory = try TemporaryDirectory()
        // Room for about two padded codes in the spool, one in memory.
        var outbox = DurableOutbox(bound: 1, spool: try openSpool(directory, maxBytes: 4096))
        outbox.place((0..<6).map { code($0, padding: 1500) })
        #expect(outbox.dropped == 3, "dropped: \(outbox.dropped), memory \(outbox.memoryCount), spooled \(outbox.spooledCount)")
        var receiver = FakeReceiver()
        #expect(receiver.deliverAll(&outbox) == ["code-3", "code-4", "code-5"])
    }

    @Test func withoutAnySpoolExitLosesWhatWasNotTaken() {
        var outbox = DurableOutbox(bound: 5, spool: nil)
        outbox.place((0..<3).map { code($0) })
        #expect(outbox.closeForExit() == 3)
    }
}

extension DurableOutboxTests {
    /// The rewrite that puts the untaken codes first cannot be made (here its temporary file's
    /// name is taken by a directory; on a full disk, no room for the copy): they are added after
    /// what is spooled instead, out of order, not lost.
    @Test func atExitWhenTheRewriteFailsTheCodesAreAddedAfterWhatIsThere() throws {
        let directory = try TemporaryDirectory()
        let spool = try openSpool(directory)
        var outbox = DurableOutbox(bound: 2, spool: spool)
        outbox.place((0..<4).map { code($0) })
        #expect(outbox.memoryCodes == 2 && outbox.spooledCount == 2)
        try FileManager.default.createDirectory(atPath: directory.path + "/.cam.mqtt-spool.tmp", withIntermediateDirectories: false)
        #expect(outbox.closeForExit() == 0)
        guard case .failed(let error) = outbox.takeSpoolEvents().first else { Issue.record("the failed rewrite is not reported"); return }
        #expect(error.call == "open" && error.cause == .isDirectory, "\(error)")
        var names: [String] = []
        while let message = try spool.removeFirst().get() { names.append(name(message)) }
        #expect(names == ["code-2", "code-3", "code-0", "code-1"])
    }
}

/// A clock a test moves by hand: the outbox's spool retries.
private final class ManualClock: @unchecked Sendable {
    private(set) var now = ContinuousClock.now
    func advance(_ duration: Duration) { now += duration }
}

@Suite(.offThePool, .enabled(if: SmallFileSystem.canMount, "mounting a small tmpfs needs root"))
struct DurableOutboxFullDiskTests {
    @Test func aFullDiskKeepsEveryCodeCountedAndTheSpoolTakesCodesAgainOnceThereIsRoom() throws {
        let disk = try SmallFileSystem(kibibytes: 256)
        let clock = ManualClock()
        let spool = try SpoolFile.open(directory: FilePath(disk.path), fileName: "cam.mqtt-spool", owner: .mqtt, maxBytes: 1 << 20,
                                       logger: Logger(label: "test")).get()
        var outbox = DurableOutbox(bound: 3, spool: spool, clock: { clock.now })
        var placed = 0
        func place(_ count: Int) {
            outbox.place((placed..<(placed + count)).map { code($0, padding: 1000) })
            placed += count
        }
        func accounted() -> Bool { outbox.memoryCodes + outbox.spooledCount + outbox.delivered + outbox.dropped == placed }

        place(10)
        #expect(outbox.memoryCodes == 3 && outbox.spooledCount == 7 && accounted())
        try disk.fill()
        place(20)
        let failed = outbox.takeSpoolEvents()
        #expect(failed.count == 1, "one failure event, not one per code: \(failed)")
        guard case .failed(let error) = failed.first else { Issue.record("no failure event"); return }
        #expect(error.cause == .noSpace && error.description.contains("is full: free space there"), "\(error)")
        #expect(outbox.spooledCount >= 7, "the spooled codes stay counted: \(outbox.spooledCount)")
        #expect(outbox.dropped > 0 && accounted(), "memory \(outbox.memoryCodes) spooled \(outbox.spooledCount) dropped \(outbox.dropped) of \(placed)")

        // Room again; before the backoff has passed the spool is not tried, after it it takes codes again.
        disk.free()
        let spooledBefore = outbox.spooledCount
        place(5)
        #expect(outbox.spooledCount == spooledBefore && accounted())
        clock.advance(SpoolRetry.cap)
        place(5)
        #expect(outbox.spooledCount == spooledBefore + 5 && accounted())
        guard case .recovered = outbox.takeSpoolEvents().first else { Issue.record("no recovery event"); return }

        // Everything counted is delivered or was dropped; nothing is left in the file.
        var receiver = FakeReceiver()
        let delivered = receiver.deliverAll(&outbox)
        #expect(outbox.isDrained && spool.isEmpty && accounted())
        #expect(delivered.count == outbox.delivered && outbox.delivered + outbox.dropped == placed)
        #expect(Set(delivered).count == delivered.count, "each code once")
    }

    @Test func aSpoolDirectoryOnAFullDiskIsOpenedOnceThereIsRoom() throws {
        let disk = try SmallFileSystem(kibibytes: 64)
        let clock = ManualClock()
        try disk.fill()
        let directory = FilePath(disk.path).appending("spool")
        var outbox = DurableOutbox(bound: 2, openingSpool: {
            SpoolFile.open(directory: directory, fileName: "cam.mqtt-spool", owner: .mqtt, maxBytes: 1 << 20, logger: Logger(label: "test"))
        }, clock: { clock.now })
        #expect(outbox.spool == nil)
        guard case .failed = outbox.takeSpoolEvents().first else { Issue.record("no failure event"); return }
        outbox.place((0..<4).map { code($0) })
        #expect(outbox.memoryCodes == 2 && outbox.dropped == 2)
        disk.free()
        clock.advance(SpoolRetry.cap)
        outbox.place((4..<8).map { code($0) })
        #expect(outbox.spool != nil && outbox.spooledCount == 4 && outbox.dropped == 2)
        var receiver = FakeReceiver()
        #expect(receiver.deliverAll(&outbox) == (2..<8).map { "code-\($0)" })
    }

}
