import Logging
import SystemPackage
import Testing
import TestSupport
@testable import Outbox

/// A message on `t/<kind>` whose payload is `<kind>-<i>`: a code for `codes`, an item's message for `items`.
private func entry(_ kind: String, _ i: Int) -> OutboxMessage {
    OutboxMessage(key: "t/\(kind)", payload: Array("\(kind)-\(i)".utf8), kind: kind == "codes" ? .code : kind == "items" ? .item : .status)
}

@Suite(.offThePool) struct DurableOutboxItemsTests {
    /// Codes past memory go to the spool; items' messages stay in memory up to twice the bound,
    /// those past it are counted; at exit the codes join the spool and the items' messages are counted.
    @Test func itemsMessagesStayInMemoryAreNeverSpooledAndAreCountedWhenDropped() throws {
        let directory = try TemporaryDirectory()
        let spool = try SpoolFile.open(directory: FilePath(directory.path), fileName: "cam.mqtt-spool", owner: .mqtt, maxBytes: 1 << 20,
                                       logger: Logger(label: "test")).get()
        var outbox = DurableOutbox(bound: 2, spool: spool)
        outbox.place([entry("codes", 0), entry("codes", 1), entry("items", 0), entry("items", 1), entry("codes", 2),
                      entry("items", 2), entry("items", 3)])
        #expect(outbox.memoryCount == 4 && outbox.memoryCodes == 2 && outbox.spooledCount == 1)
        #expect(outbox.itemsDropped == 2 && outbox.dropped == 0)
        #expect(outbox.closeForExit() == 0)
        #expect(outbox.spooledCount == 3 && outbox.itemsDropped == 4 && outbox.dropped == 0)
        var names: [String] = []
        while case .success(let message?) = spool.removeFirst() { names.append(String(decoding: message.payload, as: UTF8.self)) }
        #expect(names == ["codes-0", "codes-1", "codes-2"], "only codes in the spool")
    }

    /// Without a spool a code takes the oldest message's room: an item's is counted apart; an
    /// acknowledged item's message is not a delivered code.
    @Test func aCodePushesOutTheOldestItemsMessageAndOnlyCodesAreDelivered() {
        var outbox = DurableOutbox(bound: 2, spool: nil)
        outbox.place([entry("items", 0), entry("codes", 0), entry("codes", 1)])
        #expect(outbox.memoryCount == 2 && outbox.itemsDropped == 1 && outbox.dropped == 0)
        outbox.place([entry("items", 1)])
        var id: Int32 = 0
        #expect(outbox.publishPending { _ -> Result<Int32, Never> in id += 1; return .success(id) } == nil)
        for m in 1...id { outbox.acknowledge(m) }
        #expect(id == 3 && outbox.delivered == 2 && outbox.isDrained && outbox.itemsDropped == 1)
    }
}
