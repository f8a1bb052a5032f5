import ConfigurationKeys
import Foundation
import TestSupport
import Testing

/// A FIFO, a directory or a device named as the configuration file, a list file or a secret
/// file is refused at once, naming what it is: never opened for good or read until a writer comes.
@Suite(.offThePool) struct NonRegularFileTests {
    /// The problems of reading `gadget.*` from the file at `path`, on a thread of their own:
    /// `nil` when the reading has not returned (a hang).
    private func problems(path: String) async -> [String]? {
        await unlessHung {
            do {
                _ = try await ConfigurationKeyReader.read(file: path, environment: [:], overrides: [:]) { GadgetSettings(reading: $0.scoped(to: "gadget")) }
                return []
            } catch let error as ConfigurationError {
                return error.problems.map(\.description)
            } catch {
                return ["\(error)"]
            }
        }
    }

    /// What reading `path` with `read` threw (`nil`: it read, or it has not returned).
    private func failure(_ read: @escaping @Sendable (String) throws -> Void, _ path: String) async -> String? {
        await unlessHung { () -> String? in
            do { try read(path); return "read" } catch { return "\(error)" }
        } ?? nil
    }

    @Test func aFIFOWithoutAWriterAsTheConfigurationFileIsRefused() async throws {
        let fifo = try TemporaryFIFO()
        let lines = await problems(path: fifo.path)
        #expect(lines == ["\(fifo.path): cannot read the configuration file: it is a FIFO, not a regular file: name a regular file"])
    }

    @Test func aFIFOWithASilentWriterAsTheConfigurationFileIsRefused() async throws {
        let fifo = try TemporaryFIFO()
        let writer = try SilentFIFOWriter(fifo)
        let lines = await problems(path: fifo.path)
        #expect(lines == ["\(fifo.path): cannot read the configuration file: it is a FIFO, not a regular file: name a regular file"])
        withExtendedLifetime(writer) {}
    }

    @Test func aDirectoryOrDevNullAsTheConfigurationFileIsRefused() async throws {
        let directory = try TemporaryDirectory()
        #expect(await problems(path: directory.path)
                == ["\(directory.path): cannot read the configuration file: it is a directory, not a regular file: name a regular file"])
        #expect(await problems(path: "/dev/null")
                == ["/dev/null: cannot read the configuration file: it is a character device, not a regular file: name a regular file"])
    }

    @Test func aFIFOAsAListFileIsRefusedWithOrWithoutAWriter() async throws {
        let fifo = try TemporaryFIFO()
        let read: @Sendable (String) throws -> Void = { _ = try ListFile.entries(of: $0) }
        #expect(await failure(read, fifo.path) == "it is a FIFO, not a regular file: name a regular file")
        let writer = try SilentFIFOWriter(fifo)
        #expect(await failure(read, fifo.path) == "it is a FIFO, not a regular file: name a regular file")
        withExtendedLifetime(writer) {}
    }

    @Test func aFIFOAsASecretFileIsRefusedWithOrWithoutAWriter() async throws {
        let fifo = try TemporaryFIFO()
        let read: @Sendable (String) throws -> Void = { _ = try SecretFile.firstLine(of: $0) }
        #expect(await failure(read, fifo.path) == "it is a FIFO, not a regular file: name a regular file")
        let writer = try SilentFIFOWriter(fifo)
        #expect(await failure(read, fifo.path) == "it is a FIFO, not a regular file: name a regular file")
        withExtendedLifetime(writer) {}
    }

    /// A key naming a file read later (a password file) is checked where it is read: a FIFO is a
    /// problem of the key, found without blocking; a regular file or a missing one is not.
    @Test func aFilePathKeyNamingAFIFOIsAProblem() async throws {
        let fifo = try TemporaryFIFO(), file = try TemporaryFile(contents: Array("s3cret\n".utf8), suffix: ".txt")
        let yaml = try TemporaryFile(contents: Array("pass: \(fifo.path)\nkey: \(file.path)\nmissing: /nonexistent/x\n".utf8), suffix: ".yaml")
        let lines = await unlessHung { () -> [String] in
            do {
                _ = try await ConfigurationKeyReader.read(file: yaml.path, environment: [:], overrides: [:]) { keys in
                    _ = (keys.filePath("pass"), keys.filePath("key"), keys.filePath("missing"))
                }
                return []
            } catch { return (error as? ConfigurationError)?.problems.map(\.description) ?? ["\(error)"] }
        }
        #expect(lines == ["\(yaml.path):1: pass: \(fifo.path) is a FIFO, not a regular file: name a regular file"])
    }
}
