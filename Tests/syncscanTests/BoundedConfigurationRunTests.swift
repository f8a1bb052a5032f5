import Foundation
import TestSupport
import Testing

/// A configuration file or value too large to be one is refused at once, with a short message;
/// so is a FIFO named as the configuration file or a file it names, with or without a writer.
@Suite(.offThePool) struct BoundedConfigurationRunTests {
    /// Within a second of the processor's time (`ulimit -t 1`: past it the kernel stops the
    /// process with SIGXCPU) and 1 GiB of address space (`ulimit -v`): a read of the whole device
    /// reaches either. Not the wall clock, which a loaded machine stretches.
    @Test func checkConfigOfDevZeroIsRefusedWithinASecond() throws {
        let run = try SyncscanProcess.shell("ulimit -t 1 -v 1048576; exec \"$SYNCSCAN\" check-config /dev/zero")
        #expect(run.status == 2, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("/dev/zero: cannot read the configuration file: it is a character device, not a regular file"),
                "stderr: \(run.stderr)")
    }

    @Test func aFiftyMegabyteSourceValueIsRefusedWithAShortMessage() throws {
        let file = try TemporaryFile(contents: Array("source: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 50_000_000) + [10],
                                     suffix: ".yaml")
        let run = try SyncscanProcess.run(["check-config", file.path])
        #expect(run.status == 2, "stderr: \(run.stderr.prefix(500))")
        #expect(run.stderr.utf8.count < 1024, "a short message: \(run.stderr.utf8.count) bytes")
        #expect(run.stderr.contains("the file is 50000009 bytes, over the limit of 4194304 bytes"), "stderr: \(run.stderr.prefix(500))")
    }

    /// A reload onto a file over the limit keeps the running configuration and logs one short line.
    @Test func aReloadOntoAnOversizedFileKeepsTheRunningConfiguration() throws {
        let config = try TemporaryFile(contents: Array("duplicate_suppression:\n  enabled: false\n".utf8), suffix: ".yaml")
        let daemon = try RunningDaemon(["run", "--config", config.path, "--source", "y4m:-"])
        daemon.feed(Y4MStream(width: 160, height: 120).header)
        // A code line: the daemon runs, its SIGHUP handler installed.
        #expect(daemon.feedFrames(try qrFrameBytes(1, prefix: "reload")) { !daemon.records("code").isEmpty })
        try (Array("source: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 5_000_000) + [10])
            .withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: config.path)) }
        daemon.send(SIGHUP)
        #expect(daemon.waitForStderr("configuration reload failed"), "stderr: \(daemon.stderr.prefix(500))")
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr.prefix(500))")
        let line = daemon.stderr.split(separator: "\n").first { $0.contains("configuration reload failed") } ?? ""
        #expect(line.utf8.count < 1024 && line.contains("over the limit of 4194304 bytes"), "\(line.prefix(500))")
    }

    /// A guard against a hang (`SyncscanProcess` kills a run past `hangTimeout`: status -1), not a speed check.
    @Test func checkConfigOfAFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let fifo = try TemporaryFIFO()
        let run = try SyncscanProcess.run(["check-config", fifo.path])
        #expect(run.status == 2, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("\(fifo.path): cannot read the configuration file: it is a FIFO, not a regular file"), "stderr: \(run.stderr)")
    }

    @Test func checkConfigAndRunNameAFIFOMatchListAndPasswordFile() throws {
        let list = try TemporaryFIFO(), password = try TemporaryFIFO()
        let writers = try [SilentFIFOWriter(list), SilentFIFOWriter(password)]
        let config = try TemporaryFile(contents: Array("""
            match:
              list: \(list.path)
            mqtt:
              url: mqtt://127.0.0.1:1
              username: scanner
              password_file: \(password.path)

            """.utf8), suffix: ".yaml")
        for arguments in [["check-config", config.path], ["run", "--config", config.path, "--source", "y4m:-"]] {
            let run = try SyncscanProcess.run(arguments)
            #expect(run.status == 2, "\(arguments[0]) stderr: \(run.stderr)")
            #expect(run.stderr.contains("match.list: cannot read \(list.path): it is a FIFO, not a regular file"), "\(arguments[0]) stderr: \(run.stderr)")
            #expect(run.stderr.contains("mqtt.password_file: \(password.path) is a FIFO, not a regular file"), "\(arguments[0]) stderr: \(run.stderr)")
        }
        withExtendedLifetime(writers) {}
    }

    /// A reload onto a configuration whose `match.list` is a FIFO with a silent writer keeps the
    /// running configuration and says why; the daemon goes on to its end.
    @Test func aReloadOntoAFIFOMatchListKeepsTheRunningConfiguration() throws {
        let list = try TemporaryFIFO()
        let writer = try SilentFIFOWriter(list)
        let config = try TemporaryFile(contents: Array("duplicate_suppression:\n  enabled: false\n".utf8), suffix: ".yaml")
        let daemon = try RunningDaemon(["run", "--config", config.path, "--source", "y4m:-"])
        daemon.feed(Y4MStream(width: 160, height: 120).header)
        #expect(daemon.feedFrames(try qrFrameBytes(1, prefix: "reload")) { !daemon.records("code").isEmpty })
        try Data("duplicate_suppression:\n  enabled: false\nmatch:\n  list: \(list.path)\n".utf8).write(to: URL(fileURLWithPath: config.path))
        daemon.send(SIGHUP)
        #expect(daemon.waitForStderr("configuration reload failed"), "stderr: \(daemon.stderr.prefix(2000))")
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr.prefix(2000))")
        let line = daemon.stderr.split(separator: "\n").first { $0.contains("configuration reload failed") } ?? ""
        #expect(line.contains("match.list: cannot read \(list.path): it is a FIFO, not a regular file"), "\(line.prefix(2000))")
        withExtendedLifetime(writer) {}
    }
}
