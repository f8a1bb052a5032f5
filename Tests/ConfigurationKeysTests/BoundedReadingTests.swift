import ConfigurationKeys
import Foundation
import TestSupport
import Testing

/// A configuration file, a value or a secret file too large to be one is refused before it is
/// taken whole, with a message that shows only its beginning.
@Suite struct BoundedReadingTests {
    /// The problems of reading `gadget.*` from `yaml` (and `environment`), with `FILE` for the path.
    private func problems(_ yaml: [UInt8], environment: [String: String] = [:]) async throws -> [String] {
        let file = try TemporaryFile(contents: yaml, suffix: ".yaml")
        return try await problems(path: file.path, environment: environment).map { $0.replacingOccurrences(of: file.path, with: "FILE") }
    }

    private func problems(path: String, environment: [String: String] = [:]) async throws -> [String] {
        do {
            _ = try await ConfigurationKeyReader.read(file: path, environment: environment, overrides: [:]) {
                GadgetSettings(reading: $0.scoped(to: "gadget"))
            }
            return []
        } catch let error as ConfigurationError {
            return error.problems.map(\.description)
        }
    }

    @Test func aFileOverTheLimitIsRefusedBeforeItIsRead() async throws {
        let lines = try await problems(Array("gadget:\n  name: ".utf8) + [UInt8](repeating: UInt8(ascii: "n"), count: 5_000_000))
        #expect(lines == ["FILE: cannot read the configuration file: the file is 5000016 bytes, over the limit of 4194304 bytes (4 MiB): is it the right file?"])
    }

    @Test func aDeviceIsRefusedUnread() async throws {
        // Refused before a byte is read: the run test bounds its time (`ulimit -t`).
        let lines = try await problems(path: "/dev/zero")
        #expect(lines == ["/dev/zero: cannot read the configuration file: it is a character device, not a regular file: name a regular file"])
    }

    @Test func aValueOverTheLengthLimitIsRefusedShowingItsFirstBytes() async throws {
        let lines = try await problems(Array("gadget:\n  name: ".utf8) + [UInt8](repeating: UInt8(ascii: "n"), count: 100_000) + [10])
        #expect(lines == ["FILE:2: gadget.name: the value is 100000 bytes long, over the limit of 65536 bytes: \"\(String(repeating: "n", count: 40))…\" (100000 bytes)"])
    }

    @Test func aLongValueInTheEnvironmentIsRefusedToo() async throws {
        let lines = try await problems(Array("gadget:\n  speed: 3\n".utf8), environment: ["SYNCSCAN_GADGET_NAME": String(repeating: "é", count: 40_000)])
        // Cut at a character's boundary: 20 two-byte characters.
        #expect(lines == ["environment SYNCSCAN_GADGET_NAME: gadget.name: the value is 80000 bytes long, over the limit of 65536 bytes: \"\(String(repeating: "é", count: 20))…\" (80000 bytes)"])
    }

    @Test func aLongSecretIsRefusedWithoutShowingIt() async throws {
        let lines = try await problems(Array("gadget:\n  name: g\n  token: ".utf8) + [UInt8](repeating: UInt8(ascii: "s"), count: 70_000) + [10])
        #expect(lines == ["FILE:3: gadget.token: the value is 70000 bytes long, over the limit of 65536 bytes"])
    }

    @Test func aLongValueThatDoesNotConvertIsShownCut() async throws {
        let lines = try await problems(Array("gadget:\n  name: g\n  speed: ".utf8) + [UInt8](repeating: UInt8(ascii: "9"), count: 1000) + Array("x\n".utf8))
        #expect(lines == ["FILE:3: gadget.speed: expected an integer, found \"\(String(repeating: "9", count: 40))…\" (1001 bytes)"])
    }

    @Test func aSecretFileIsReadWithinItsLimit() throws {
        let file = try TemporaryFile(contents: Array("s3cret\nmore\n".utf8), suffix: ".txt")
        #expect(try SecretFile.firstLine(of: file.path) == "s3cret")
        let error = #expect(throws: SecretFile.ReadError.self) { try SecretFile.firstLine(of: "/dev/zero") }
        #expect(error?.description == "it is a character device, not a regular file: name a regular file", "\(String(describing: error))")
        let large = try TemporaryFile(contents: [UInt8](repeating: UInt8(ascii: "s"), count: 70_000), suffix: ".txt")
        let tooLarge = #expect(throws: SecretFile.ReadError.self) { try SecretFile.firstLine(of: large.path) }
        #expect(tooLarge?.description == "the file is 70000 bytes, over the limit of 65536 bytes (64 KiB): is it the right file?",
                "\(String(describing: tooLarge))")
    }
}
