import Foundation
import TestSupport
import Testing

/// 160x120 Y4M frames for a `y4m:-` pipe, each holding one QR code (`prefix-i`).
func qrFrameBytes(_ count: Int, prefix: String) throws -> [[UInt8]] {
    let stream = Y4MStream(width: 160, height: 120)
    return try (0..<count).map { i in
        var f = GreyFrame(width: 160, height: 120)
        f.draw(try ModuleMatrix.qrCode("\(prefix)-\(i)"), centerX: 80, centerY: 60, moduleSize: 3)
        return stream.frame(f)
    }
}

/// A stop always ends: a second SIGTERM or SIGINT forces it, even when stdout's reader has
/// stopped reading and the flush of the last lines can never finish.
@Suite(.serialized, .offThePool) struct ForcedStopTests {

    /// Bytes waiting in the pipe whose read end is `fd` (`FIONREAD`).
    private func queuedBytes(_ fd: Int32) -> Int32 {
        var count: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &count) == 0 ? count : -1
    }

    @Test func sigtermThenSigintWithAStuckStdoutEndsNamingTheLinesNotWritten() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        #expect(fcntl(fds[1], 1031 /* F_SETPIPE_SZ, Linux */, 4096) >= 4096, "a pipe of one page: a few lines fill it")
        let stream = Y4MStream(width: 160, height: 120)
        // stdout: the pipe, which the test never reads.
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--duplicate-window", "0", "--emit-frames"],
                                       stdout: FileHandle(fileDescriptor: fds[1], closeOnDealloc: true))
        daemon.feed(stream.header)
        let codes = try qrFrameBytes(4, prefix: "stuck")
        #expect(daemon.feedFrames(codes) { queuedBytes(fds[0]) > 3000 }, "stdout's pipe filled")
        // More lines than the pipe can take: they wait in the writer's queue.
        daemon.feedFrames(codes, count: 40)
        daemon.send(SIGTERM)
        #expect(daemon.waitForStderr("SIGTERM: stopping after the frames in flight"), "the first signal is logged: \(daemon.stderr)")
        pause(.seconds(1))
        #expect(daemon.process.isRunning, "the graceful stop waits for stdout's reader: \(daemon.stderr)")
        daemon.send(SIGINT)
        // The event: the process ends while its stdout is still stuck (this test never reads the
        // pipe). The deadline is only a hang's: a starved machine stretches any wall-clock bound
        // (idle, the stop takes milliseconds: the README's figures).
        let status = daemon.wait(timeout: hangTimeout)
        #expect(status == 1, "stderr: \(daemon.stderr)")
        #expect(queuedBytes(fds[0]) > 3000, "nothing read the pipe: the stop did not wait for its reader")
        let line = daemon.stderr.split(separator: "\n").first { $0.contains("a second SIGINT forced the stop") }.map(String.init) ?? ""
        let left = line.firstRange(of: "stdout had ").map { Int(line[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0
        #expect(left > 0 && line.contains("lines not written"), "stderr: \(daemon.stderr)")
    }

    /// Whether a thread of process `pid` waits in the kernel writing a pipe (`pipe_write`, `anon_pipe_write`: `/proc/PID/task/*/wchan`).
    private func writesToAFullPipe(_ pid: Int32) -> Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/wchan", encoding: .utf8))?.hasSuffix("pipe_write") == true }
    }

    /// A file run whose stdout reader stopped reading: the pipe's read end is held by a process
    /// that never reads it (not by this one, whose other tests' descriptors come and go), so its
    /// scan waits for stdout (a file's lines wait) once the pipe and the queue are full. The daemon and that reader.
    private func fileRunWithAStuckStdout(environment: [String: String]) throws -> (RunningDaemon, ChildProcess, TemporaryFile) {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        #expect(fcntl(fds[1], 1031 /* F_SETPIPE_SZ, Linux */, 4096) >= 4096, "a pipe of one page: a few lines fill it")
        let reader = try ChildProcess(["/bin/sleep", "600"], stdin: .descriptor(fds[0]))
        close(fds[0])
        let frames = try qrFrameBytes(300, prefix: "file-stuck")
        let file = try TemporaryFile(contents: Y4MStream(width: 160, height: 120).header + frames.flatMap { $0 }, suffix: ".y4m")
        let daemon = try RunningDaemon(["run", "--source", file.path, "--duplicate-window", "0", "--emit-frames"],
                                       environment: ["SYNCSCAN_OUTPUT_QUEUE_LINES": "16"].merging(environment) { $1 },
                                       stdout: FileHandle(fileDescriptor: fds[1], closeOnDealloc: true))
        #expect(waitUntil(every: .milliseconds(10)) { writesToAFullPipe(daemon.pid) }, "stdout's pipe filled: \(daemon.stderr)")
        #expect(!daemon.stderr.contains("summary:"), "the scan waits for stdout: \(daemon.stderr)")
        return (daemon, reader, file)
    }

    @Test func aFileRunWithAStuckStdoutEndsAtTheShutdownLimit() throws {
        let (daemon, reader, file) = try fileRunWithAStuckStdout(environment: ["SYNCSCAN_SHUTDOWN_TIMEOUT_SECONDS": "2"])
        defer { reader.signal(SIGKILL); reader.wait(); withExtendedLifetime(file) {} }
        daemon.send(SIGTERM)
        // The event: the process ends though nothing reads its stdout (the deadline is a hang's).
        let status = daemon.wait(timeout: hangTimeout)
        #expect(status == 1, "stderr: \(daemon.stderr)")
        #expect(daemon.stderr.contains("shutdown_timeout_seconds (2 s): the scan had not finished its last frames")
                && daemon.stderr.contains("lines not written"), "stderr: \(daemon.stderr)")
        #expect(daemon.stderr.contains("summary: frames="), "the summary is still written: \(daemon.stderr)")
    }

    @Test func aFileRunWithAStuckStdoutEndsAtASecondSignal() throws {
        let (daemon, reader, file) = try fileRunWithAStuckStdout(environment: [:])
        defer { reader.signal(SIGKILL); reader.wait(); withExtendedLifetime(file) {} }
        daemon.send(SIGTERM)
        #expect(daemon.waitForStderr("SIGTERM: stopping after the frames in flight"), "stderr: \(daemon.stderr)")
        daemon.send(SIGTERM)
        let status = daemon.wait(timeout: hangTimeout)
        #expect(status == 1, "stderr: \(daemon.stderr)")
        // Ended by the group's cancellation, not by the last-resort exit 3 s later.
        #expect(daemon.stderr.contains("a second SIGTERM forced the stop") && !daemon.stderr.contains("which had not ended"),
                "stderr: \(daemon.stderr)")
    }
}
