import Foundation
import TestSupport
import Testing

/// The daemon's threads carry their names to the kernel (`top -H`, `ps -L`, backtraces): a name
/// set before a thread starts, or one over Linux's 15 bytes, silently never arrives.
@Suite(.offThePool) struct ThreadNamesTests {
    @Test func everyWorkingThreadIsNamedInProc() throws {
        var frame = GreyFrame(width: 160, height: 120)
        frame.draw(try ModuleMatrix.qrCode("names"), centerX: 80, centerY: 60, moduleSize: 3)
        let stream = Y4MStream(width: 160, height: 120)
        let shots = try TemporaryDirectory()
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--scanning-threads", "2", "--snapshot-dir", shots.path])
        daemon.feed(stream.header)
        daemon.feed(stream.frame(frame))
        #expect(waitUntil { !daemon.stdoutLines.isEmpty }, "a first code line")
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/task")) ?? []
        let names = Set(tasks.compactMap { try? String(contentsOfFile: "/proc/\(daemon.pid)/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .newlines) })
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        for expected in ["syncscan-source", "syncscan-scan-0", "syncscan-scan-1", "syncscan-output", "syncscan-shots"] {
            #expect(names.contains(expected), "threads: \(names.sorted())")
        }
    }
}
