import Foundation
import Logging
import SystemCalls
import SystemPackage
import Testing
import TestSupport
@testable import Outbox

/// A fresh directory under the temporary directory, removed when released.
private final class SpoolDirectory {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-spool-\(UUID().uuidString)").path
    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    var file: String { path + "/cam.mqtt-spool" }
}

private func message(_ i: Int, size: Int = 10) -> OutboxMessage {
    let number = String(i)
    return OutboxMessage(key: "syncscan/test/codes", payload: Array("code-\(String(repeating: "0", count: max(0, 4 - number.count)))\(number)-".utf8) + [UInt8](repeating: UInt8(i & 0xff), count: size),
                         kind: .code, qos: 1)
}

private func open(_ directory: SpoolDirectory, maxBytes: Int = 1 << 20, logger: Logger = Logger(label: "test")) throws -> SpoolFile {
    try SpoolFile.open(directory: FilePath(directory.path), fileName: "cam.mqtt-spool", owner: .mqtt, maxBytes: maxBytes, logger: logger).get()
}

private func drain(_ spool: SpoolFile) throws -> [OutboxMessage] {
    var out: [OutboxMessage] = []
    while let m = try spool.removeFirst().get() { out.append(m) }
    return out
}

@Suite(.offThePool) struct SpoolFileTests {
    @Test func messagesComeBackInOrderWithTheirExactBytes() throws {
        let directory = try SpoolDirectory()
        var written = (0..<50).map { message($0) }
        written.append(OutboxMessage(key: "a/b", payload: [0, 0xff, 10, 13, 0], kind: .code, qos: 2, retain: true))
        let spool = try open(directory)
        for m in written { #expect(try spool.append(m).get()) }
        #expect(spool.count == 51)
        #expect(try drain(spool) == written)
    }

    @Test func aRecordTakenButNeverRewrittenComesBackAfterACrash() throws {
        // Taking only moves an offset in memory: a process killed before its exit rewrite loses nothing
        // (the broker may then get that code twice; its id tells).
        let directory = try SpoolDirectory()
        do {
            let spool = try open(directory)
            for i in 0..<3 { _ = try spool.append(message(i)).get() }
            #expect(try spool.removeFirst().get() == message(0))
        }
        #expect(try drain(try open(directory)) == (0..<3).map { message($0) })
    }

    @Test func aReopenedSpoolHoldsWhatWasNotYetTaken() throws {
        let directory = try SpoolDirectory()
        let written = (0..<20).map { message($0) }
        do {
            let spool = try open(directory)
            for m in written { _ = try spool.append(m).get() }
        }
        let reopened = try open(directory)
        #expect(reopened.count == 20)
        #expect(try drain(reopened) == written)
        #expect(reopened.isEmpty)
        let size = try FileManager.default.attributesOfItem(atPath: directory.file)[.size] as? Int
        #expect(size == SpoolFile.Owner.mqtt.header.count, "an emptied spool is cut back to its header")
    }

    @Test func aFullSpoolRefusesWithoutWriting() throws {
        let directory = try SpoolDirectory()
        let record = SpoolFile.record(message(0)).count
        let spool = try open(directory, maxBytes: record * 3 + record / 2)
        for i in 0..<3 { #expect(try spool.append(message(i)).get()) }
        #expect(try spool.append(message(3)).get() == false)
        #expect(spool.count == 3)
        _ = try spool.removeFirst().get()
        #expect(try spool.append(message(3)).get(), "room again after one is taken")
        #expect(try drain(spool).map(\.payload) == (1...3).map { message($0).payload })
    }

    @Test func prependPutsOlderMessagesFirstAndKeepsTheNewestThatFit() throws {
        let directory = try SpoolDirectory()
        let record = SpoolFile.record(message(0)).count
        let spool = try open(directory, maxBytes: record * 4)
        for i in 10..<12 { _ = try spool.append(message(i)).get() }
        let notFitting = try spool.prepend((0..<4).map { message($0) }).get()
        #expect(notFitting == 2, "4 older + 2 spooled, room for 4: the 2 oldest go")
        let reopened = try open(directory, maxBytes: record * 4)
        #expect(try drain(reopened).map(\.payload) == [2, 3, 10, 11].map { message($0).payload })
    }

    @Test func aTailCutShortByACrashIsDroppedAndLogged() throws {
        let directory = try SpoolDirectory()
        do {
            let spool = try open(directory)
            for i in 0..<5 { _ = try spool.append(message(i)).get() }
        }
        // A sixth record half written.
        let partial = SpoolFile.record(message(5)).prefix(9)
        let handle = try #require(FileHandle(forWritingAtPath: directory.file))
        handle.seekToEndOfFile()
        handle.write(Data(partial))
        try handle.close()
        let log = LogRecorder()
        let reopened = try open(directory, logger: log.logger)
        #expect(reopened.count == 5)
        #expect(log.lines(containing: "damaged record").count == 1, "\(log.lines)")
        #expect(try drain(reopened).map(\.payload) == (0..<5).map { message($0).payload })
    }

    @Test func aRecordWithABadChecksumEndsTheSpoolThere() throws {
        let directory = try SpoolDirectory()
        do {
            let spool = try open(directory)
            for i in 0..<4 { _ = try spool.append(message(i)).get() }
        }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file)))
        let record = SpoolFile.record(message(0)).count
        bytes[SpoolFile.Owner.mqtt.header.count + 2 * record + 12] ^= 0x40  // inside the third record's topic
        try Data(bytes).write(to: URL(fileURLWithPath: directory.file))
        let log = LogRecorder()
        let reopened = try open(directory, logger: log.logger)
        #expect(reopened.count == 2)
        #expect(log.lines(containing: "damaged record").first?.contains("kept=2") == true, "\(log.lines)")
    }

    @Test func aFileThatIsNotASpoolIsRefusedNamingIt() throws {
        let directory = try SpoolDirectory()
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: directory.file))
        let result = SpoolFile.open(directory: FilePath(directory.path), fileName: "cam.mqtt-spool", owner: .mqtt, maxBytes: 1 << 20, logger: Logger(label: "t"))
        guard case .failure(let error) = result else { Issue.record("opened a file that is not a spool"); return }
        #expect(error.description.contains(directory.file) && error.description.contains("is not a syncscan MQTT spool"), "\(error)")
        #expect(try String(contentsOfFile: directory.file, encoding: .utf8) == "hello\n", "left as it was")
    }

    @Test func aMissingDirectoryIsCreatedWithItsParents() throws {
        let directory = try SpoolDirectory()
        let nested = FilePath(directory.path).appending("state/mqtt")
        let spool = try SpoolFile.open(directory: nested, fileName: "x.mqtt-spool", owner: .mqtt, maxBytes: 1 << 20, logger: Logger(label: "t")).get()
        #expect(try spool.append(message(1)).get())
        #expect(FileManager.default.fileExists(atPath: nested.appending("x.mqtt-spool").string))
    }

    @Test func aDirectoryThatCannotBeMadeSaysWhatIsWrong() throws {
        let directory = try SpoolDirectory()
        let file = FilePath(directory.path).appending("a-file")
        #expect(FileManager.default.createFile(atPath: file.string, contents: Data("x".utf8)))
        let result = SpoolFile.open(directory: file.appending("spool"), fileName: "x.mqtt-spool", owner: .mqtt, maxBytes: 1 << 20, logger: Logger(label: "t"))
        guard case .failure(let error) = result else { Issue.record("opened under a file"); return }
        #expect(error.call == "mkdir" && error.cause == .notDirectory)
        #expect(error.description.contains("is a file, not a directory: point mqtt.spool_directory at a directory"), "\(error)")
    }

    @Test func takenRecordsAreCompactedAwayOnceTheyAreMostOfTheFile() throws {
        let directory = try SpoolDirectory()
        let spool = try open(directory, maxBytes: 8 << 20)
        let big = (0..<600).map { message($0, size: 4000) }
        for m in big { _ = try spool.append(m).get() }
        for i in 0..<400 { #expect(try spool.removeFirst().get() == big[i]) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: directory.file)[.size] as? Int)
        // Rewritten once the taken records outweighed the rest (at the 301st), then 99 more taken.
        #expect(size == 299 * SpoolFile.record(big[0]).count + SpoolFile.Owner.mqtt.header.count, "file size \(size): the taken records were cut")
        #expect(spool.count == 200)
        #expect(try drain(spool) == Array(big[400...]))
    }

    @Test func aWebhookSpoolNamesTheWebhookInItsFileHeaderAndMessages() throws {
        // MQTT's own are unchanged, so the files of earlier runs are read.
        #expect(SpoolFile.Owner.mqtt.header == Array("syncscan MQTT spool 1\n".utf8))
        let directory = try SpoolDirectory()
        let spool = try SpoolFile.open(directory: FilePath(directory.path), fileName: "w.webhook-spool", owner: .webhook, maxBytes: 1 << 20,
                                       logger: Logger(label: "t")).get()
        #expect(try spool.append(message(1)).get())
        let bytes = try #require(FileManager.default.contents(atPath: directory.path + "/w.webhook-spool"))
        #expect(bytes.starts(with: Array("syncscan webhook spool 1\n".utf8)))

        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: directory.path + "/x.webhook-spool"))
        let notASpool = SpoolFile.open(directory: FilePath(directory.path), fileName: "x.webhook-spool", owner: .webhook, maxBytes: 1 << 20,
                                       logger: Logger(label: "t"))
        guard case .failure(let error) = notASpool else { Issue.record("opened a file that is not a spool"); return }
        #expect(error.description.contains("is not a syncscan webhook spool") && error.description.contains("webhook.spool_directory"), "\(error)")
        let underAFile = FilePath(directory.path).appending("x.webhook-spool/spool")
        let unusable = SpoolFile.open(directory: underAFile, fileName: "y.webhook-spool", owner: .webhook, maxBytes: 1 << 20,
                                      logger: Logger(label: "t"))
        guard case .failure(let error) = unusable else { Issue.record("opened under a file"); return }
        #expect(error.description.contains("the webhook spool \(underAFile)/y.webhook-spool failed")
                && error.description.contains("point webhook.spool_directory"), "\(error)")
    }

    /// A webhook spool an earlier version wrote as `.mqtt-spool` (MQTT's header) is renamed and
    /// read, its codes kept in order; rewritten, it gets the webhook's header.
    @Test func aWebhookSpoolOfTheEarlierNameIsTakenOver() throws {
        let directory = try SpoolDirectory()
        let old = try open(directory)  // cam.mqtt-spool, MQTT's header
        for i in 0..<3 { #expect(try old.append(message(i)).get()) }
        let log = LogRecorder()
        let spool = try SpoolFile.open(directory: FilePath(directory.path), fileName: "cam.webhook-spool", owner: .webhook, maxBytes: 1 << 20,
                                       logger: log.logger).get()
        #expect(!FileManager.default.fileExists(atPath: directory.file))
        #expect(log.lines(containing: "taken over under its new name").count == 1, "\(log.lines)")
        #expect(spool.count == 3)
        #expect(try spool.prepend([message(9)]).get() == 0)
        let bytes = try #require(FileManager.default.contents(atPath: directory.path + "/cam.webhook-spool"))
        #expect(bytes.starts(with: Array("syncscan webhook spool 1\n".utf8)))
        #expect(try drain(spool) == [message(9)] + (0..<3).map { message($0) })
    }

    @Test func fileNamesKeepOnlySafeCharacters() {
        #expect(SpoolFile.fileName(for: "syncscan-dock1-video0", owner: .mqtt) == "syncscan-dock1-video0.mqtt-spool")
        #expect(SpoolFile.fileName(for: "../a b/c", owner: .mqtt) == ".._a_b_c.mqtt-spool")
        #expect(SpoolFile.fileName(for: "webhook-h_8080_hook", owner: .webhook) == "webhook-h_8080_hook.webhook-spool")
    }
}

extension SpoolFileTests {
    /// The format on disk, written out byte by byte here (length, FNV-1a checksum, flags, key
    /// length, key, payload after the owner's header line): a file an earlier version left is
    /// read, and records are written as they were.
    @Test func theFormatOnDiskIsTheOneEarlierRunsWrote() throws {
        let records: [(message: OutboxMessage, bytes: [UInt8])] = [
            (OutboxMessage(key: "t/c", payload: Array("x".utf8), kind: .code, qos: 1),
             [0x07, 0x00, 0x00, 0x00, 0x61, 0xec, 0xf6, 0xc5, 0x01, 0x03, 0x00, 0x74, 0x2f, 0x63, 0x78]),
            (OutboxMessage(key: "id-7", payload: Array("{\"a\":1}".utf8), kind: .code, qos: 2, retain: true),
             [0x0e, 0x00, 0x00, 0x00, 0xae, 0x55, 0x4a, 0x17, 0x06, 0x04, 0x00, 0x69, 0x64, 0x2d, 0x37, 0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d]),
        ]
        for record in records { #expect(SpoolFile.record(record.message) == record.bytes) }
        for (owner, header) in [(SpoolFile.Owner.mqtt, "syncscan MQTT spool 1\n"), (.webhook, "syncscan webhook spool 1\n")] {
            let directory = try SpoolDirectory()
            let name = SpoolFile.fileName(for: "cam", owner: owner)
            #expect(name == "cam.\(owner.keys)-spool")
            try Data(Array(header.utf8) + records.flatMap(\.bytes)).write(to: URL(fileURLWithPath: directory.path + "/" + name))
            let spool = try SpoolFile.open(directory: FilePath(directory.path), fileName: name, owner: owner, maxBytes: 1 << 20,
                                           logger: Logger(label: "t")).get()
            #expect(try drain(spool) == records.map(\.message), "\(owner.name)")
        }
    }
}
