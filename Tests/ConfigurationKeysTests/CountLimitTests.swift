import ConfigurationKeys
import Foundation
import TestSupport
import Testing

/// A configuration file of more keys than any configuration has, or a list of more entries, is
/// refused with the count and the limit.
@Suite struct CountLimitTests {
    /// The problems of `read` over `yaml` (and `environment`), with `FILE` for the path.
    private func problems(_ yaml: String, environment: [String: String] = [:],
                          _ read: @escaping (ConfigurationKeyReader) -> Void) async throws -> [String] {
        let file = try TemporaryFile(contents: Array(yaml.utf8), suffix: ".yaml")
        do {
            _ = try await ConfigurationKeyReader.read(file: file.path, environment: environment, overrides: [:], read)
            return []
        } catch let error as ConfigurationError {
            return error.problems.map { $0.description.replacingOccurrences(of: file.path, with: "FILE") }
        }
    }

    @Test func aFileOverTheKeyLimitIsRefusedWholeWithItsCount() async throws {
        let yaml = "gadget:\n" + (0..<100_000).map { "  k\($0): 1\n" }.joined()
        let lines = try await problems(yaml) { _ = GadgetSettings(reading: $0.scoped(to: "gadget")) }
        #expect(lines == ["FILE: the file has 100001 keys, over the limit of 100000 keys: is it the right file?"])
    }

    @Test func aListOverTheEntryLimitIsAProblemOfItsKey() async throws {
        let within = try await problems("tags:\n" + String(repeating: "  - a\n", count: 10_000)) { #expect($0.list("tags", of: "tags")?.count == 10_000) }
        #expect(within == [])
        let over = try await problems("name: x\ntags:\n" + String(repeating: "  - a\n", count: 10_001)) { keys in
            _ = keys.string("name")
            #expect(keys.list("tags", of: "tags") == nil)
        }
        #expect(over == ["FILE:2: tags: 10001 entries, over the limit of 10000 entries in one list"])
    }

    @Test func aCommaSeparatedListOverTheEntryLimitIsAProblemToo() async throws {
        let lines = try await problems("name: x\n", environment: ["SYNCSCAN_TAGS": String(repeating: "a,", count: 10_000) + "a"]) { keys in
            _ = keys.string("name")
            #expect(keys.list("tags", of: "tags") == nil)
        }
        #expect(lines == ["environment SYNCSCAN_TAGS: tags: 10001 entries, over the limit of 10000 entries in one list"])
    }

    /// `device.controls`' kind of mapping: its names are the user's, so its entries are a list.
    @Test func aMappingOfEntriesOverTheLimitIsAProblemOfItsKeyWithNoneReportedUnknown() async throws {
        let yaml = "gadget:\n  controls:\n" + (0..<10_001).map { "    c\($0): 1\n" }.joined()
        let lines = try await problems(yaml) { #expect($0.scoped(to: "gadget").entries(of: "controls").isEmpty) }
        #expect(lines == ["FILE:2: gadget.controls: 10001 entries, over the limit of 10000 entries in one list"])
    }
}
