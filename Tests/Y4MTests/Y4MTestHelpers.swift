import Foundation
import TestSupport
import Logging
import Media
import SystemCalls
import SystemPackage
import Testing
@testable import Y4M

/// A logger that drops everything, so test output stays readable.
let y4mTestLogger = Logger(label: "y4m-tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// A Y4M stream: `header` (without its newline), then each frame behind a `FRAME` line, then `trailing`.
func y4mStream(header: String, frames: [[UInt8]], trailing: [UInt8] = []) -> [UInt8] {
    var bytes = Array((header + "\n").utf8)
    for frame in frames {
        bytes += Array("FRAME\n".utf8)
        bytes += frame
    }
    return bytes + trailing
}

/// A frame of `count` bytes whose byte `i` is `(seed + i) % 251`, so frames and offsets differ.
func y4mPattern(count: Int, seed: Int) -> [UInt8] {
    (0..<count).map { UInt8((seed + $0) % 251) }
}

/// A file in the temporary directory holding `bytes`; removed when this is deinitialised.
final class Y4MTemporaryFile {
    let path: String

    init(bytes: [UInt8], suffix: String = ".y4m") throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("syncscan-y4m-\(UUID().uuidString)\(suffix)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Reads events until the end, returning the frames (their buffers are held).
func y4mReadAllFrames(_ source: Y4MSource) throws -> [VideoFrame] {
    var frames: [VideoFrame] = []
    while let event = try source.next() {
        guard case .frame(let frame) = event else {
            Issue.record("a Y4M source reported a dropped frame: \(event)")
            continue
        }
        frames.append(frame)
    }
    return frames
}

/// Opens `bytes` as a started source over a temporary file.
func y4mStartedSource(_ bytes: [UInt8]) throws -> (Y4MSource, Y4MTemporaryFile) {
    let file = try Y4MTemporaryFile(bytes: bytes)
    let source = Y4MSource(path: file.path, logger: y4mTestLogger)
    try source.start()
    return (source, file)
}

/// The error `body` throws as an `IOError`, recording an issue if it throws nothing or something else.
func y4mError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> IOError? {
    do {
        try body()
        Issue.record("expected an IOError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as IOError {
        return error
    } catch {
        Issue.record("expected an IOError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// An anonymous pipe; closes whichever ends are still open when deinitialised.
final class Y4MTestPipe: @unchecked Sendable {
    let readEnd: FileDescriptor
    private(set) var writeEnd: FileDescriptor?

    init() throws {
        (readEnd, writeEnd) = try FileDescriptor.pipe()
    }

    /// A path that opens this pipe's read side.
    var path: String { "/dev/fd/\(readEnd.rawValue)" }

    /// Writes all of `bytes`, blocking while the pipe is full.
    func write(_ bytes: [UInt8]) {
        do {
            _ = try writeEnd?.writeAll(bytes)
        } catch {
            preconditionFailure("write to test pipe failed: \(error)")
        }
    }

    func closeWriteEnd() {
        try? writeEnd?.close()
        writeEnd = nil
    }

    deinit {
        try? readEnd.close()
        closeWriteEnd()
    }
}

/// A value set by one thread and awaited by another.
final class Y4MResultBox<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value?

    func set(_ newValue: Value) {
        condition.lock()
        value = newValue
        condition.broadcast()
        condition.unlock()
    }

    /// The value if it was set, without waiting.
    var current: Value? {
        condition.lock()
        defer { condition.unlock() }
        return value
    }

    /// Waits up to `seconds` (a guard against a hang, not a speed check); `nil` if nothing came.
    func wait(seconds: Double) -> Value? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while value == nil && condition.wait(until: deadline) {}
        return value
    }
}

/// The first executable named `name` on `PATH`.
func y4mFindExecutable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

/// Runs `executable` with `arguments` and returns its standard output; throws when it fails.
func y4mRun(_ executable: String, _ arguments: [String]) throws -> [UInt8] {
    struct CommandFailed: Error, CustomStringConvertible {
        var description: String
    }
    let result = try ExternalTool.run(executable, arguments)
    guard result.status == 0 else { throw CommandFailed(description: result.describe()) }
    return result.stdout
}
