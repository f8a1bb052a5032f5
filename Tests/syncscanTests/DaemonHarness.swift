import Foundation
import SystemCalls
import TestSupport

/// A running `syncscan run` fed through a pipe on stdin, as a supervisor or a camera bridge would.
final class RunningDaemon: @unchecked Sendable {
    let process: ChildProcess
    /// The pipe's write end; -1 once closed, so it is closed exactly once (a second `close` of
    /// the number could close another test's descriptor that reused it).
    private let stdinWrite: LockedValue<Int32>
    let stdoutPath: String?
    let stderrFile: TemporaryFile
    private let stdoutFile: TemporaryFile?
    /// Frames fed by `feedFrames` so far, and when each was written.
    private let fed = LockedValue<[ContinuousClock.Instant]>([])

    /// Starts `syncscan ARGS` with stdin from a pipe; stdout to a temporary file unless `stdout`
    /// or `stdoutTo` is given.
    /// - Parameters:
    ///   - stdoutTo: a path the child opens as its stdout (a FIFO: no end of it open in the test process).
    ///   - launcher: a program that runs syncscan in its place (`systemd-socket-activate -l ADDR`).
    init(_ arguments: [String], environment: [String: String] = [:], stdout: FileHandle? = nil, stdoutTo: String? = nil,
         launcher: [String] = []) throws {
        signal(SIGPIPE, SIG_IGN)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw HarnessError("pipe failed") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        stdinWrite = LockedValue(fds[1])
        stderrFile = try TemporaryFile(contents: [], suffix: ".err")
        let output: ChildProcess.Stream
        if let stdout {
            stdoutFile = nil
            stdoutPath = nil
            output = .descriptor(stdout.fileDescriptor)
        } else if let stdoutTo {
            stdoutFile = nil
            stdoutPath = nil
            output = .file(stdoutTo)
        } else {
            let f = try TemporaryFile(contents: [], suffix: ".jsonl")
            stdoutFile = f
            stdoutPath = f.path
            output = .file(f.path)
        }
        defer { close(fds[0]) }  // the child has its copy
        process = try ChildProcess(launcher + [SyncscanProcess.binary] + arguments, stdin: .descriptor(fds[0]), stdout: output,
                                   stderr: .file(stderrFile.path), environment: environment)
    }

    var pid: Int32 { process.pid }

    /// Writes all of `bytes` to the daemon's stdin; false once the daemon stopped reading.
    @discardableResult
    func feed(_ bytes: [UInt8]) -> Bool {
        let stdinWrite = self.stdinWrite.withLock { $0 }
        guard stdinWrite >= 0 else { return false }
        return bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(stdinWrite, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
    }

    /// Frames fed by `feedFrames`: on a `y4m:-` source, the sequence number the next one gets.
    var framesFed: Int { fed.withLock { $0.count } }

    /// When each frame `feedFrames` fed was written, in order.
    var feedTimes: [ContinuousClock.Instant] { fed.withLock { $0 } }

    /// Feeds `frames`, cycled, one every `interval` (a camera's pace), until `condition` holds
    /// (checked before each frame); whether it held before `hangTimeout`.
    ///
    /// A test waits for its event this way, never for a span of time: on a loaded or stopped
    /// machine the same frames only take longer. False also when the daemon stopped reading.
    @discardableResult
    func feedFrames(_ frames: [[UInt8]], every interval: Duration = .milliseconds(50), until condition: () -> Bool) -> Bool {
        requireOffThePool()
        let deadline = ContinuousClock.now + hangTimeout
        while !condition() {
            guard ContinuousClock.now < deadline, feed(frames[framesFed % frames.count]) else { return false }
            fed.withLock { $0.append(ContinuousClock.now) }
            pause(interval)
        }
        return true
    }

    /// Feeds `count` more frames of `frames`, cycled, one every `interval`.
    func feedFrames(_ frames: [[UInt8]], count: Int, every interval: Duration = .milliseconds(50)) {
        let end = framesFed + count
        feedFrames(frames, every: interval) { framesFed >= end }
    }

    /// The stdout objects of `type` (`"code"`, `"frame"`), in order.
    func records(_ type: String) -> [[String: Any]] {
        stdoutLines.compactMap { $0 }.filter { $0["type"] as? String == type }
    }

    /// Waits until stderr holds `text` at least `count` times; whether it did before `hangTimeout`.
    @discardableResult
    func waitForStderr(_ text: String, count: Int = 1) -> Bool {
        waitUntil(every: .milliseconds(20)) { stderr.components(separatedBy: text).count > count }
    }

    func closeStdin() {
        stdinWrite.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    func send(_ signal: Int32) { process.signal(signal) }

    /// Waits for exit (at most `timeout`: a hang guard); kills it if it does not exit (-1).
    func wait(timeout: Duration = hangTimeout) -> Int32 {
        process.wait(timeout: timeout).map(ChildProcess.exitStatus) ?? -1
    }

    var stderr: String { (try? String(contentsOfFile: stderrFile.path, encoding: .utf8)) ?? "" }

    var stdoutLines: [[String: Any]?] {
        guard let stdoutPath, let data = FileManager.default.contents(atPath: stdoutPath) else { return [] }
        return [UInt8](data).split(separator: UInt8(ascii: "\n")).map {
            try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
        }
    }

    /// Resident set size now, from /proc, in bytes.
    var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kb * 1024
    }

    deinit {
        closeStdin()
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A mono Y4M stream: its header and frames, for feeding a pipe.
struct Y4MStream {
    let width: Int, height: Int
    var header: [UInt8] { Array("YUV4MPEG2 W\(width) H\(height) F10:1 Ip A1:1 Cmono\n".utf8) }
    func frame(_ f: GreyFrame) -> [UInt8] {
        var out = Array("FRAME\n".utf8)
        for row in 0..<height { out += f.bytes[(row * f.bytesPerLine)..<(row * f.bytesPerLine + width)] }
        return out
    }
}

/// Collects sd_notify datagrams sent to a socket it binds in a temporary directory.
///
/// A thread receives until the listener is released; then it closes the socket itself, so the
/// descriptor is closed exactly once and never while `recv` uses it.
final class NotifySocketListener: @unchecked Sendable {
    let path: String
    private let inbox = Inbox()

    /// What the receiving thread shares with the listener.
    private final class Inbox: @unchecked Sendable {
        let lock = NSLock()
        var messages: [(at: ContinuousClock.Instant, text: String)] = []
        var stopped = false
    }

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString.prefix(8)).sock").path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket failed") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else { close(fd); throw HarnessError("bind \(path) failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let inbox = self.inbox
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !inbox.lock.withLock({ inbox.stopped }) {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    let text = String(decoding: buffer[0..<n], as: UTF8.self)
                    inbox.lock.withLock { inbox.messages.append((ContinuousClock.now, text)) }
                }
            }
            close(fd)
        }.start()
    }

    var messages: [(at: ContinuousClock.Instant, text: String)] { inbox.lock.withLock { inbox.messages } }

    /// Sends `text` to this listener's socket from the test: a datagram the daemon sent before
    /// this call is received before it (one queue, in the order sent), however late it is read.
    func mark(_ text: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket failed") }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let sent = withUnsafePointer(to: &addr) { address in
            address.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                Array(text.utf8).withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, target, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
        guard sent >= 0 else { throw HarnessError("sendto \(path) failed: errno \(errno)") }
    }

    /// The messages received after the one that holds `marker` (all of them without it).
    func messages(after marker: String) -> [String] {
        let texts = messages.map(\.text)
        guard let i = texts.firstIndex(where: { $0 == marker }) else { return [] }
        return Array(texts[(i + 1)...])
    }

    /// The times at which a datagram containing `line` arrived.
    func times(of line: String) -> [ContinuousClock.Instant] {
        messages.filter { $0.text.split(separator: "\n").contains(Substring(line)) }.map(\.at)
    }

    deinit {
        inbox.lock.withLock { inbox.stopped = true }
        unlink(path)
    }
}
