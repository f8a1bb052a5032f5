import Foundation

/// Runs a command-line tool found on `PATH` and collects its output (qrencode, zint, zbarimg).
public enum ExternalTool {
    /// What a finished tool printed and how it exited.
    public struct Result: Sendable {
        public var command: [String]
        public var status: Int32
        public var stdout: [UInt8]
        public var stderr: String

        /// The command, its exit status and stderr, for error messages.
        public func describe() -> String {
            "`\(command.joined(separator: " "))` exited with status \(status): \(stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
    }

    /// Runs `tool` with `arguments` and waits for it; throws only if it cannot be started.
    public static func run(_ tool: String, _ arguments: [String]) throws -> Result {
        let out = try TemporaryFile(contents: [], suffix: ".stdout"), err = try TemporaryFile(contents: [], suffix: ".stderr")
        let child: ChildProcess
        do { child = try ChildProcess([tool] + arguments, stdout: .file(out.path), stderr: .file(err.path)) } catch {
            throw FixtureError.toolFailed("`\(tool)` is not installed (apt: qrencode, zint, zbar-tools): \(error)")
        }
        // A guard against a hung tool, not a speed check.
        guard let raw = child.wait(timeout: hangTimeout) else {
            throw FixtureError.toolFailed("`\(([tool] + arguments).joined(separator: " "))` did not finish in \(hangTimeout); killed")
        }
        let stdout = [UInt8](FileManager.default.contents(atPath: out.path) ?? Data())
        let stderr = (try? String(contentsOfFile: err.path, encoding: .utf8)) ?? ""
        return Result(command: [tool] + arguments, status: ChildProcess.exitStatus(raw), stdout: stdout, stderr: stderr)
    }
}

/// A file under the temporary directory, deleted when the value is released.
public final class TemporaryFile: @unchecked Sendable {
    public let path: String

    /// Creates a uniquely named file holding `contents`.
    public init(contents: [UInt8], suffix: String = "") throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("syncscan-fixture-\(UUID().uuidString)\(suffix)").path
        guard FileManager.default.createFile(atPath: path, contents: Data(contents)) else {
            throw FixtureError.toolFailed("cannot create temporary file \(path)")
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

extension GreyFrame {
    /// Writes the frame as a binary PGM (`pgmBytes()`) to `path`, e.g. to look at a failing fixture.
    public func writePGM(toPath path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(pgmBytes())) else {
            throw FixtureError.toolFailed("cannot write PGM to \(path)")
        }
    }
}

/// The `zbarimg` CLI, the reference zbar decoder our wrapper must agree with.
public enum ZBarImg {
    /// Decodes `frame` (saved as PGM) with `zbarimg --raw -q -Sbinary` plus `arguments`.
    ///
    /// Returns the raw payload bytes; with `-Sbinary` zbarimg adds no newline, so several codes
    /// come back concatenated. Returns `nil` when zbarimg found nothing (exit status 4).
    public static func decode(_ frame: GreyFrame, arguments: [String] = []) throws -> [UInt8]? {
        let image = try TemporaryFile(contents: frame.pgmBytes(), suffix: ".pgm")
        let result = try ExternalTool.run("zbarimg", ["--raw", "-q", "-Sbinary"] + arguments + [image.path])
        switch result.status {
        case 0: return result.stdout
        case 4: return nil
        default: throw FixtureError.toolFailed(result.describe())
        }
    }
}
