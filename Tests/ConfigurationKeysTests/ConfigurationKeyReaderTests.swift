import ConfigurationKeys
import Foundation
import TestSupport
import Testing

/// A component reading its keys by their relative names through a scoped reader: problems and
/// unknown keys still name the full key with its file and line, variable or flag.
@Suite struct ConfigurationKeyReaderTests {
    /// Reads `yaml` (and `environment`) as a configuration of one `GadgetSettings` under `gadget`.
    private func read(_ yaml: String, environment: [String: String] = [:]) async throws -> GadgetSettings? {
        let file = try TemporaryFile(contents: Array(yaml.utf8), suffix: ".yaml")
        return try await ConfigurationKeyReader.read(file: file.path, environment: environment, overrides: [:]) {
            GadgetSettings(reading: $0.scoped(to: "gadget"))
        }
    }

    /// The problems `yaml` has, each as printed, with `FILE` for the file's path.
    private func problems(_ yaml: String, environment: [String: String] = [:]) async throws -> [String] {
        let file = try TemporaryFile(contents: Array(yaml.utf8), suffix: ".yaml")
        do {
            _ = try await ConfigurationKeyReader.read(file: file.path, environment: environment, overrides: [:]) {
                GadgetSettings(reading: $0.scoped(to: "gadget"))
            }
            Issue.record("expected a configuration error")
            return []
        } catch let error as ConfigurationError {
            #expect(error.exitCode == 2)
            return error.problems.map { $0.description.replacingOccurrences(of: file.path, with: "FILE") }
        }
    }

    @Test func scopedKeysAreReadByTheirRelativeNames() async throws {
        let settings = try await read("gadget:\n  speed: 7\n  name: g1\n  lamp:\n    on: true\n")
        #expect(settings?.speed == 7 && settings?.name == "g1" && settings?.lampOn == true)
    }

    @Test func aSectionLeftOffIsNilWithItsKeysStillKnown() async throws {
        let settings = try await read("gadget:\n  speed: 3\n")
        #expect(settings == nil)
    }

    @Test func problemsNameTheFullKeyWithItsFileLine() async throws {
        let lines = try await problems("gadget:\n  speed: 11\n  token: t\n  lamp:\n    on: maybe\n")
        #expect(lines == [
            "FILE:2: gadget.speed: 11 is out of range: must be from 1 to 10 (turns a second)",
            "FILE:3: gadget.token: needs gadget.name too",
            "FILE:5: gadget.lamp.on: expected true or false, found \"maybe\"",
        ])
    }

    @Test func unknownKeysUnderAScopeNameTheKnownOnes() async throws {
        let lines = try await problems("gadget:\n  name: g1\n  sped: 3\n  lamp:\n    of: true\n")
        #expect(lines == [
            "FILE:3: gadget.sped: unknown key \"sped\" (did you mean \"speed\"?) (known: speed, name, token, lamp)",
            "FILE:5: gadget.lamp.of: unknown key \"of\" (did you mean \"on\"?) (known: on)",
        ])
    }

    @Test func environmentVariablesReachScopedKeys() async throws {
        let settings = try await read("gadget:\n  name: g1\n", environment: ["SYNCSCAN_GADGET_SPEED": "9"])
        #expect(settings?.speed == 9)
        let lines = try await problems("gadget:\n  name: g1\n", environment: ["SYNCSCAN_GADGET_SPEED": "fast"])
        #expect(lines == ["environment SYNCSCAN_GADGET_SPEED: gadget.speed: expected an integer, found \"fast\""])
    }
}
