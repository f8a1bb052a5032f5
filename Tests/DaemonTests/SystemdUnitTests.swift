import Foundation
import TestSupport
import Testing

/// What a finished command printed.
struct CommandOutput {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `executable` with `arguments` in `directory`, capturing stdout and stderr through files
/// (so neither can fill a pipe and stall the child).
func runCommand(_ executable: String, _ arguments: [String], in directory: URL) throws -> CommandOutput {
    let outURL = directory.appendingPathComponent("command.stdout"), errURL = directory.appendingPathComponent("command.stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let process = try ChildProcess([executable] + arguments, stdout: .file(outURL.path), stderr: .file(errURL.path),
                                   directory: directory.path)
    let raw = process.wait(timeout: .seconds(120)) ?? -1   // a guard against a hung command, not a speed check
    return CommandOutput(status: ChildProcess.exitStatus(raw),
                         stdout: try String(contentsOf: outURL, encoding: .utf8),
                         stderr: try String(contentsOf: errURL, encoding: .utf8))
}

/// The shipped units, each copied into a temporary directory under the name systemd would load
/// it by (the template as the instance `syncscan@video0.service`), with ExecStart pointed at a
/// binary that exists.
///
/// `systemd-analyze verify` complains when an ExecStart binary does not exist, and the tests do
/// not install syncscan: the copy's `syncscan-start /usr/local/bin/syncscan` becomes `/bin/true`, everything
/// else is byte-for-byte the shipped unit.
final class VerifiableUnits {
    let directory: URL
    /// Shipped file name → path of the copy to verify.
    let units: [(shipped: String, copy: URL)]

    static let shipped = [("syncscan.service", "syncscan.service"), ("syncscan@.service", "syncscan@video0.service")]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-units-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var units: [(String, URL)] = []
        for (shipped, loadName) in Self.shipped {
            let text = try String(contentsOf: packageRoot.appendingPathComponent("systemd").appendingPathComponent(shipped), encoding: .utf8)
            let start = "ExecStart=/usr/local/libexec/syncscan/syncscan-start /usr/local/bin/syncscan "
            #expect(text.contains(start), "\(shipped) no longer starts /usr/local/bin/syncscan through syncscan-start")
            let copy = directory.appendingPathComponent(loadName)
            try text.replacingOccurrences(of: start, with: "ExecStart=/bin/true ")
                .write(to: copy, atomically: true, encoding: .utf8)
            units.append((shipped, copy))
        }
        self.units = units
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

let systemdAnalyze = "/usr/bin/systemd-analyze"

@Suite(.offThePool) struct SystemdUnitTests {
    @Test func systemdAnalyzeIsInstalled() {
        #expect(FileManager.default.isExecutableFile(atPath: systemdAnalyze),
                "install Debian's systemd package: the unit tests run \(systemdAnalyze)")
    }

    @Test func verifyPrintsNothingForEitherUnit() throws {
        let units = try VerifiableUnits()
        for (shipped, copy) in units.units {
            let result = try runCommand(systemdAnalyze, ["verify", copy.path], in: units.directory)
            #expect(result.status == 0, "systemd-analyze verify \(shipped) exited \(result.status)")
            #expect(result.stderr == "", "systemd-analyze verify \(shipped) complained")
            #expect(result.stdout == "", "systemd-analyze verify \(shipped) printed")
        }
    }

    /// The live view's socket unit verifies beside the instance it activates, listens on loopback
    /// only, and names that instance.
    @Test func theLiveViewSocketVerifiesBesideItsService() throws {
        let units = try VerifiableUnits()
        let text = try String(contentsOf: packageRoot.appendingPathComponent("systemd/syncscan-http@.socket"), encoding: .utf8)
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.isSuperset(of: ["Service=syncscan@%i.service", "ListenStream=127.0.0.1:8080"]))
        let copy = units.directory.appendingPathComponent("syncscan-http@video0.socket")
        try text.write(to: copy, atomically: true, encoding: .utf8)
        let result = try runCommand(systemdAnalyze, ["verify", copy.path], in: units.directory)
        #expect(result.status == 0 && result.stderr == "" && result.stdout == "", "\(result.stderr)\(result.stdout)")
        // Verify sees a socket naming a service that is not there.
        try text.replacingOccurrences(of: "Service=syncscan@%i.service", with: "Service=syncscan-missing@%i.service")
            .write(to: copy, atomically: true, encoding: .utf8)
        let broken = try runCommand(systemdAnalyze, ["verify", copy.path], in: units.directory)
        #expect(broken.status != 0 || !broken.stderr.isEmpty, "verify would not catch a missing service")
    }

    @Test func verifyWouldCatchAMistake() throws {
        // The check above is only worth something if verify reports a bad unit on stderr.
        let units = try VerifiableUnits()
        let broken = units.directory.appendingPathComponent("broken.service")
        let text = try String(contentsOf: units.units[0].copy, encoding: .utf8)
        try text.replacingOccurrences(of: "Type=notify\n", with: "Type=notfiy\n").write(to: broken, atomically: true, encoding: .utf8)
        let result = try runCommand(systemdAnalyze, ["verify", broken.path], in: units.directory)
        #expect(result.stderr.contains("notfiy"))
    }

    @Test func securityExposureIsAtMostOne() throws {
        let units = try VerifiableUnits()
        for (shipped, copy) in units.units {
            let result = try runCommand(systemdAnalyze, ["security", "--offline=yes", "--no-pager", copy.path], in: units.directory)
            let line = result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level for") }
            let level = line.flatMap { line in
                line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
            }
            let exposure = try #require(level, "no exposure level for \(shipped) in:\n\(result.stdout)\n\(result.stderr)")
            #expect(exposure <= 1.0, "\(shipped) exposure \(exposure):\n\(result.stdout.split(separator: "\n").filter { $0.hasPrefix("✗") }.joined(separator: "\n"))")
        }
    }

    /// Each unit with a shipped drop-in added (its sections appended, as systemd merges them)
    /// still verifies cleanly: `metrics.conf` writes only the textfile directory and rates ≤ 1.0,
    /// `mqtt.conf` opens IPv4/IPv6 to the allowed addresses only and rates ≤ 1.6, `http.conf`
    /// `tcp.conf` and `modbus.conf` bind one TCP port only and rate ≤ 1.4, `ipcamera.conf` opens IPv4/IPv6 as `mqtt.conf` does
    /// (plus GStreamer's cache directory) and rates ≤ 1.6, `keyboard.conf` adds `/dev/uinput` and the
    /// input devices to the device policy only and rates ≤ 1.0.
    @Test(arguments: ["metrics.conf", "mqtt.conf", "http.conf", "tcp.conf", "modbus.conf", "ipcamera.conf", "keyboard.conf"])
    func aDropInKeepsEachUnitVerifiedAndExposureAtMostOne(dropInName: String) throws {
        let units = try VerifiableUnits()
        let dropIn = try String(contentsOf: packageRoot.appendingPathComponent("systemd/\(dropInName)"), encoding: .utf8)
        let lines = Set(dropIn.split(separator: "\n").map(String.init))
        if dropInName == "metrics.conf" {
            #expect(lines.isSuperset(of: ["ReadWritePaths=-/var/lib/prometheus/node-exporter",
                                          "Environment=SYNCSCAN_METRICS_TEXTFILE=/var/lib/prometheus/node-exporter/%N.prom"]))
        } else if dropInName == "keyboard.conf" {
            let settings = lines.filter { !$0.hasPrefix("#") && $0.contains("=") }
            #expect(Set(settings) == ["DeviceAllow=/dev/uinput rw", "DeviceAllow=char-input r", "SupplementaryGroups=input"], "\(settings)")
        } else if ["http.conf", "tcp.conf", "modbus.conf"].contains(dropInName) {
            #expect(lines.isSuperset(of: ["PrivateNetwork=no", "RestrictAddressFamilies=", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
                                          "IPAddressAllow=localhost", "SocketBindAllow=tcp:\(["http.conf": 8080, "tcp.conf": 2001, "modbus.conf": 1502][dropInName]!)", "SocketBindDeny=any"]))
            #expect(!lines.contains { $0.hasPrefix("IPAddressDeny=") }, "the unit's IPAddressDeny=any stays")
        } else {
            #expect(lines.isSuperset(of: ["PrivateNetwork=no", "RestrictAddressFamilies=", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
                                          "IPAddressAllow=localhost", "After=network-online.target", "Wants=network-online.target"]))
            #expect(!lines.contains { $0.hasPrefix("IPAddressDeny=") }, "the unit's IPAddressDeny=any stays")
            if dropInName == "ipcamera.conf" {
                #expect(lines.isSuperset(of: ["Environment=ORC_CODE=backup", "CacheDirectory=syncscan/%i"]))
                #expect(!lines.contains { $0.hasPrefix("MemoryDenyWriteExecute=") }, "the unit's MemoryDenyWriteExecute=yes stays")
            }
        }
        for (shipped, copy) in units.units {
            try (try String(contentsOf: copy, encoding: .utf8) + "\n" + dropIn).write(to: copy, atomically: true, encoding: .utf8)
            let verify = try runCommand(systemdAnalyze, ["verify", copy.path], in: units.directory)
            #expect(verify.status == 0 && verify.stderr == "" && verify.stdout == "", "\(shipped) + \(dropInName): \(verify.stderr)\(verify.stdout)")
            let result = try runCommand(systemdAnalyze, ["security", "--offline=yes", "--no-pager", copy.path], in: units.directory)
            let line = result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level for") }
            let exposure = try #require(line.flatMap { $0.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) } },
                                        "no exposure level for \(shipped) + \(dropInName) in:\n\(result.stdout)\n\(result.stderr)")
            // The network MQTT needs costs 0.5 (PrivateNetwork=no) + 0.3 (AF_INET/AF_INET6) − 0.3 (IPAddressAllow= localhost only);
            // listening by itself the same, less PrivateMounts=yes (the socket unit instead leaves the unit at its own rating).
            // Each also carries the units' 0.2 for setpriority (in @resources), allowed so that libdispatch stops logging
            // the filter's refusals (the units alone: 0.9); the ratings are rounded to a tenth.
            let limit = ["mqtt.conf": 1.6, "http.conf": 1.4, "tcp.conf": 1.4, "modbus.conf": 1.4, "ipcamera.conf": 1.6][dropInName] ?? 1.0
            #expect(exposure <= limit, "\(shipped) + \(dropInName) exposure \(exposure)")
        }
    }

    @Test func unitsKeepTheCameraReachableAndTheCrashHelperWhereMakeInstallsIt() throws {
        let makefile = try String(contentsOf: packageRoot.appendingPathComponent("Makefile"), encoding: .utf8)
        for (shipped, _) in VerifiableUnits.shipped {
            let text = try String(contentsOf: packageRoot.appendingPathComponent("systemd").appendingPathComponent(shipped), encoding: .utf8)
            let lines = Set(text.split(separator: "\n").map(String.init))
            // PrivateDevices=yes would hide /dev/video*; the device cgroup allows V4L2 only.
            #expect(!lines.contains { $0.hasPrefix("PrivateDevices=") }, "\(shipped)")
            #expect(lines.isSuperset(of: ["Type=notify", "DeviceAllow=char-video4linux rw", "DevicePolicy=closed",
                                          "SupplementaryGroups=video", "ExecReload=/bin/kill -HUP $MAINPID"]), "\(shipped)")
            let backtrace = try #require(lines.first { $0.hasPrefix("Environment=SWIFT_BACKTRACE=") }, "\(shipped)")
            // Full symbolication (the default) took 0.70 s against fast's 0.25 s here and over 30 s
            // under emulation, where the watchdog killed the backtracer before it printed a frame.
            #expect(backtrace.split(separator: ",").contains("symbolicate=fast"), "\(shipped)")
            let helper = try #require(backtrace.split(separator: ",").first { $0.hasPrefix("swift-backtrace=") }?.dropFirst("swift-backtrace=".count))
            // The Makefile installs the helper to $(LIBEXECDIR)/swift/linux with LIBEXECDIR = $(PREFIX)/libexec.
            #expect(helper == "/usr/local/libexec/swift/linux/swift-backtrace-static")
            #expect(makefile.contains("PREFIX ?= /usr/local") && makefile.contains("$(LIBEXECDIR)/swift/linux/swift-backtrace-static"))
        }
    }
    /// Snapshots under systemd go to the instance's state directory (writable under
    /// ProtectSystem=strict, kept across restarts); the unit does not turn snapshots on.
    @Test func eachUnitHasAStateDirectoryForSnapshotsAndTheSpool() throws {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("systemd/syncscan@.service"), encoding: .utf8)
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.isSuperset(of: ["StateDirectory=syncscan/%i", "ProtectSystem=strict"]))
        let single = try String(contentsOf: packageRoot.appendingPathComponent("systemd/syncscan.service"), encoding: .utf8)
        #expect(Set(single.split(separator: "\n").map(String.init)).isSuperset(of: ["StateDirectory=syncscan", "ProtectSystem=strict"]))
        #expect(!text.contains("SYNCSCAN_SNAPSHOTS") && !text.contains("--snapshot-dir"))
        let example = try String(contentsOf: packageRoot.appendingPathComponent("config/video0.yaml"), encoding: .utf8)
        #expect(example.contains("#   directory: /var/lib/syncscan/video0/snapshots"))
    }
}
