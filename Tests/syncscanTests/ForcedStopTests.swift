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

    /// A file run whose stdout reader stopped reading: stdout is a FIFO whose only reader is a
    /// process that never reads it, so its scan waits for stdout (a file's lines wait) once the
    /// pipe and the queue are full. No end of that pipe is open in this process, whose other tests'
    /// descriptors come and go. The daemon, that reader, the file and the FIFO.
    private func fileRunWithAStuckStdout(environment: [String: String]) throws -> (RunningDaemon, ChildProcess, TemporaryFile, TemporaryFIFO) {
        let fifo = try TemporaryFIFO()
        // `<>` opens the FIFO for reading and writing, which on Linux does not wait for a writer.
        let reader = try ChildProcess(["/bin/sh", "-c", "exec sleep 600 <>\"$0\"", fifo.path])
        // 60 codes, cycled: each frame's code is a new item (its last sighting is 6 s of pts back),
        // so every frame adds lines, far more than the FIFO's 64 KiB and the queue's 16 lines.
        let codes = try qrFrameBytes(60, prefix: "file-stuck")
        let frames = (0..<600).flatMap { codes[$0 % codes.count] }
        let file = try TemporaryFile(contents: Y4MStream(width: 160, height: 120).header + frames, suffix: ".y4m")
        // Opening the FIFO for writing waits for the reader's shell to open it.
        let daemon = try RunningDaemon(["run", "--source", file.path, "--duplicate-window", "0", "--emit-frames"],
                                       environment: ["SYNCSCAN_OUTPUT_QUEUE_LINES": "16"].merging(environment) { $1 },
                                       stdoutTo: fifo.path)
        let stdout = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(daemon.pid)/fd/1")) ?? ""
        #expect(stdout == fifo.path, "the daemon's stdout is the FIFO")
        #expect(waitUntil(every: .milliseconds(10)) { writesToAFullPipe(daemon.pid) }, "stdout's pipe filled: \(daemon.stderr)")
        #expect(!daemon.stderr.contains("summary:"), "the scan waits for stdout: \(daemon.stderr)")
        return (daemon, reader, file, fifo)
    }

    @Test func aFileRunWithAStuckStdoutEndsAtTheShutdownLimit() throws {
        let (daemon, reader, file, fifo) = try fileRunWithAStuckStdout(environment: ["SYNCSCAN_SHUTDOWN_TIMEOUT_SECONDS": "2"])
        defer { reader.signal(SIGKILL); reader.wait(); withExtendedLifetime((file, fifo)) {} }
        daemon.send(SIGTERM)
        // The event: the process ends though nothing reads its stdout (the deadline is a hang's).
        let status = daemon.wait(timeout: hangTimeout)
        #expect(status == 1, "stderr: \(daemon.stderr)")
        // The limit finds the scan waiting for room in stdout's queue, or (the signal came before
        // the queue filled) the scan returned and stdout's flush waiting on the pipe.
        #expect(daemon.stderr.contains("shutdown_timeout_seconds (2 s): ") && daemon.stderr.contains("lines not written"),
                "stderr: \(daemon.stderr)")
        #expect(daemon.stderr.contains("summary: frames="), "the summary is still written: \(daemon.stderr)")
    }

    @Test func aFileRunWithAStuckStdoutEndsAtASecondSignal() throws {
        let (daemon, reader, file, fifo) = try fileRunWithAStuckStdout(environment: [:])
        defer { reader.signal(SIGKILL); reader.wait(); withExtendedLifetime((file, fifo)) {} }
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
