import Foundation
import TestSupport

/// Runs the built `syncscan` binary as a user would, capturing stdout and stderr in files.
struct SyncscanProcess {
    struct Output {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        /// stdout split into lines, each parsed as a JSON object (nil for a line that is not one).
        var jsonLines: [[String: Any]?] {
            stdout.split(separator: UInt8(ascii: "\n")).map { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
        }
        var codes: [[String: Any]] { jsonLines.compactMap { $0 }.filter { $0["type"] as? String == "code" } }
        var frames: [[String: Any]] { jsonLines.compactMap { $0 }.filter { $0["type"] as? String == "frame" } }
    }

    /// The binary under test: `$SYNCSCAN_BIN`, else `syncscan` beside the test bundle.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["SYNCSCAN_BIN"] { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("syncscan").path
    }

    /// Runs `syncscan ARGS` (`environment` added to the test's); `stdinPath` feeds stdin from a file, `shell` runs a whole pipeline
    /// through `/bin/sh -c` with `$SYNCSCAN` set to the binary.
    static func run(_ arguments: [String], stdinPath: String? = nil, stdout: FileHandle? = nil,
                    environment: [String: String] = [:]) throws -> Output {
        try launch(executable: binary, arguments: arguments, stdinPath: stdinPath, stdout: stdout, environment: environment)
    }

    static func shell(_ script: String) throws -> Output {
        try launch(executable: "/bin/sh", arguments: ["-c", script], stdinPath: nil, stdout: nil,
                   environment: ["SYNCSCAN": binary])
    }

    private static func launch(executable: String, arguments: [String], stdinPath: String?, stdout: FileHandle?,
                               environment: [String: String] = [:]) throws -> Output {
        let out = try TemporaryFile(contents: [], suffix: ".out"), err = try TemporaryFile(contents: [], suffix: ".err")
        let process = try ChildProcess([executable] + arguments, stdin: stdinPath.map(ChildProcess.Stream.file) ?? .null,
                                       stdout: stdout.map { .descriptor($0.fileDescriptor) } ?? .file(out.path),
                                       stderr: .file(err.path), environment: environment)
        // A guard against a hung run, not a speed check.
        let raw = process.wait(timeout: hangTimeout)
        return Output(status: raw.map(ChildProcess.exitStatus) ?? -1,
                      stdout: [UInt8](FileManager.default.contents(atPath: out.path) ?? Data()),
                      stderr: (try? String(contentsOfFile: err.path, encoding: .utf8)) ?? "")
    }
}

/// Writes greyscale frames as a `C mono` Y4M stream.
enum Y4MWriter {
    static func bytes(_ frames: [GreyFrame], fps: String = "10:1") -> [UInt8] {
        guard let first = frames.first else { return [] }
        var out = Array("YUV4MPEG2 W\(first.width) H\(first.height) F\(fps) Ip A1:1 Cmono\n".utf8)
        for f in frames {
            out += Array("FRAME\n".utf8)
            for row in 0..<f.height {
                out += f.bytes[(row * f.bytesPerLine)..<(row * f.bytesPerLine + f.width)]
            }
        }
        return out
    }
}
