import Foundation
import TestSupport
import Testing

/// The Modbus TCP server (`modbus.*`) of the built daemon, reached by a real Modbus client
/// (`Scripts/modbus-client.py`, pymodbus) as a PLC would.
@Suite(.serialized, .offThePool) struct ModbusRunTests {
    /// `syncscan run` on a `y4m:-` pipe with `yaml` as its configuration, and the port its Modbus server logs.
    static func start(_ yaml: String = "", arguments: [String] = [], environment: [String: String] = [:]) throws -> (RunningDaemon, Int, TemporaryFile) {
        let config = try TemporaryFile(contents: Array(("modbus:\n  listen: 127.0.0.1:0\n" + yaml).utf8), suffix: ".yaml")
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--config", config.path] + arguments, environment: environment)
        daemon.feed(Y4MStream(width: 160, height: 120).header)
        #expect(daemon.waitForStderr("Modbus TCP server listening"), "stderr: \(daemon.stderr)")
        guard let range = daemon.stderr.range(of: "listen=127.0.0.1:"), let port = Int(daemon.stderr[range.upperBound...].prefix { $0.isNumber }) else {
            daemon.send(SIGKILL)
            throw HarnessError("no Modbus port in stderr: \(daemon.stderr)")
        }
        return (daemon, port, config)
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/Scripts/modbus-client.py").path

    /// One run of the Modbus client: its JSON answer. A missing pymodbus fails with what to install.
    static func client(_ port: Int, _ arguments: String...) throws -> [String: Any] {
        let result = try ExternalTool.run("python3", [script, "\(port)"] + arguments)
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any] else {
            throw HarnessError("modbus-client.py \(arguments.joined(separator: " ")): \(result.describe())")
        }
        return object
    }

    /// Every input register and coil 0, read again (up to 20 times) until `condition` holds; the last read.
    static func read(_ port: Int, until condition: ([Int], String) -> Bool) throws -> (registers: [Int], text: String, coil: Bool) {
        var last: (registers: [Int], text: String, coil: Bool) = ([], "", false)
        for _ in 0..<20 {
            let answer = try client(port, "read")
            last = (answer["registers"] as? [Int] ?? [], answer["text"] as? String ?? "", answer["coil"] as? Bool ?? false)
            if last.registers.count == 139 && condition(last.registers, last.text) { break }
        }
        return last
    }

    static func blankFrame() -> [UInt8] { Y4MStream(width: 160, height: 120).frame(GreyFrame(width: 160, height: 120)) }

    @Test func everyRegisterHoldsTheLastCodeAndTheCounters() throws {
        let (daemon, port, _) = try Self.start("match:\n  pattern: '^modbus-[01]$'\n", arguments: ["--duplicate-window", "0"])
        let frames = try qrFrameBytes(3, prefix: "modbus")
        // Until the third code (the one the pattern refuses) was read too: a live pipe may drop a
        // frame late, and the frames are fed again, cycled.
        #expect(daemon.feedFrames(frames, every: .milliseconds(30)) {
            let codes = daemon.records("code")
            return codes.count >= 3 && codes.contains { ($0["match"] as? Bool) == false }
        }, "stderr: \(daemon.stderr)")
        let before = try Self.read(port) { registers, _ in registers[1] == daemon.records("code").count }
        let codes = daemon.records("code")
        let (registers, text, coil) = before
        #expect(registers.count == 139, "registers 0 to 138: \(registers)")
        guard registers.count == 139, let last = codes.last else { return }
        let lastText = last["text"] as? String ?? ""
        #expect(registers[1] == codes.count, "result number = code lines: \(registers[1]) of \(codes.count)")
        #expect(Array(registers[2...5]) == [1, 1, 1, lastText.utf8.count], "good, 1 code, qrcode, its length: \(registers)")
        #expect(text == lastText, "the payload decoded from registers 10-: \(text) against \(lastText)")
        #expect(registers[6] == codes.count && registers[7] == 0 && registers[8] == 0, "good, no_read, multiple: \(registers[6...8])")
        let mismatches = codes.filter { ($0["match"] as? Bool) == false }.count
        #expect(mismatches >= 1 && registers[9] == mismatches, "mismatch: \(registers[9]) of \(mismatches)")
        let packed = stride(from: 0, to: lastText.utf8.count, by: 2).map { i -> Int in
            let bytes = Array(lastText.utf8)
            return Int(bytes[i]) << 8 | (i + 1 < bytes.count ? Int(bytes[i + 1]) : 0)
        }
        #expect(Array(registers[10..<(10 + packed.count)]) == packed && registers[(10 + packed.count)..<135].allSatisfy { $0 == 0 })
        #expect(registers[135...].allSatisfy { $0 == 0 }, "no match.list: the expected registers are 0: \(registers[135...])")
        #expect(!coil)
        Thread.sleep(forTimeInterval: 1.2)
        let later = try Self.read(port) { _, _ in true }
        #expect(later.registers.first.map { $0 > registers[0] } == true, "the heartbeat went on: \(registers[0]) then \(later.registers.first ?? -1)")
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        #expect(daemon.stderr.contains("modbus_results=\(daemon.records("code").count)"), "stderr: \(daemon.stderr)")
        #expect(daemon.stderr.contains("modbus_requests_refused=0"), "stderr: \(daemon.stderr)")
    }

    @Test func theTriggerCoilHoldsAWindowOpenAndItsResultFillsTheRegisters() throws {
        let (daemon, port, _) = try Self.start(environment: [
            "SYNCSCAN_TRIGGER_MODE": "triggered", "SYNCSCAN_TRIGGER_WINDOW_UNTIL_RELEASE": "true", "SYNCSCAN_TRIGGER_WINDOW_DURATION_MS": "60000"])
        let frames = try qrFrameBytes(1, prefix: "window")
        _ = try Self.client(port, "coil", "1")
        daemon.feedFrames(frames, count: 6, every: .milliseconds(30))
        #expect(daemon.records("read_result").isEmpty, "the coil held: the window stays open")
        #expect(try Self.read(port) { _, _ in true }.coil, "coil 0 reads as written")
        _ = try Self.client(port, "coil", "0")
        #expect(daemon.feedFrames([Self.blankFrame()], every: .milliseconds(30)) { daemon.records("read_result").count >= 1 }, "stderr: \(daemon.stderr)")
        let good = try Self.read(port) { registers, _ in registers[1] == 1 }
        #expect(Array(good.registers.prefix(10).dropFirst()) == [1, 1, 1, 1, 8, 1, 0, 0, 0], "\(good.registers.prefix(10))")
        #expect(good.text == "window-0" && !good.coil)
        // A window that reads nothing: no_read, no payload.
        _ = try Self.client(port, "coil", "1")
        daemon.feedFrames([Self.blankFrame()], count: 3, every: .milliseconds(30))
        _ = try Self.client(port, "coil", "0")
        #expect(daemon.feedFrames([Self.blankFrame()], every: .milliseconds(30)) { daemon.records("read_result").count >= 2 }, "stderr: \(daemon.stderr)")
        let noRead = try Self.read(port) { registers, _ in registers[1] == 2 }
        #expect(Array(noRead.registers.prefix(10).dropFirst()) == [2, 2, 0, 0, 0, 1, 1, 0, 0], "\(noRead.registers.prefix(10))")
        #expect(noRead.text == "" && noRead.registers[10...].allSatisfy { $0 == 0 })
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        let results = daemon.records("read_result")
        #expect(results.map { $0["trigger"] as? String } == ["modbus", "modbus"] && results.map { $0["result"] as? String } == ["good", "no_read"],
                "\(results)")
        #expect(daemon.stderr.contains("modbus_results=2"), "stderr: \(daemon.stderr)")
    }

    /// Writes outside coil 0, reads past the map, a malformed frame, a client that never sends,
    /// one that sends half a header, one past `max_clients`: refused or closed and counted, the
    /// others served, the scan going on.
    @Test func badRequestsAreRefusedAndCountedAndSilentClientsBlockNoOne() throws {
        // The two that send nothing must outlast the client's start (python3 importing pymodbus,
        // seconds on a loaded machine): 10 s before they are closed as idle.
        let (daemon, port, _) = try Self.start("  idle_timeout_ms: 10000\n  max_clients: 4\n", arguments: ["--duplicate-window", "0"])
        let silent = try TCPTestClient(port: port)
        let half = try TCPTestClient(port: port)
        #expect(half.send([0, 1, 0]), "three bytes of a header, then nothing")
        let answers = try Self.client(port, "abuse")
        silent.pump()
        half.pump()
        #expect(!silent.closedByPeer && !half.closedByPeer, "answered while the two that send nothing were still connected")
        for name in ["write_holding_0", "write_holdings_100", "write_coil_1", "write_coils_0_2", "read_input_139", "read_inputs_130_10", "read_inputs_135_5", "read_holding_0"] {
            #expect(answers[name] as? Int == 2, "\(name): exception \(answers[name] ?? "none"), not ILLEGAL DATA ADDRESS (2)")
        }
        #expect(answers["read_after"] as? Int == 0, "served after its refused requests: \(answers)")
        #expect(answers["malformed_closed"] as? Bool == true, "a frame with protocol id 0x1234 closes its connection: \(answers)")
        let frames = try qrFrameBytes(1, prefix: "after")
        #expect(daemon.feedFrames(frames, every: .milliseconds(30)) { !daemon.records("code").isEmpty }, "stderr: \(daemon.stderr)")
        let after = try Self.read(port) { _, text in text == "after-0" }
        #expect(after.text == "after-0", "the scan went on: \(after)")
        #expect(silent.waitUntil { $0.closedByPeer } && half.waitUntil { $0.closedByPeer }, "idle clients are closed after modbus.idle_timeout_ms")
        // Four connected (the fifth is closed at once, counted), then each closed as idle in turn.
        let four = try (0..<4).map { _ in try TCPTestClient(port: port) }
        let fifth = try TCPTestClient(port: port)
        #expect(fifth.waitUntil { $0.closedByPeer }, "past modbus.max_clients a client is closed")
        #expect(four.allSatisfy { $0.waitUntil { $0.closedByPeer } }, "the four are closed as idle too")
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        let stderr = daemon.stderr
        for counter in ["modbus_requests_refused=8", "modbus_clients_malformed=1", "modbus_clients_idle_closed=6", "modbus_clients_refused=1"] {
            #expect(stderr.contains(counter), "\(counter): \(stderr)")
        }
        #expect(stderr.contains("Modbus request refused with ILLEGAL DATA ADDRESS"), "stderr: \(stderr)")
    }

    @Test func checkConfigNamesABadListenAddress() throws {
        let bad = try TemporaryFile(contents: Array("modbus:\n  listen: plc-net:1502\n  max_clients: 0\n".utf8), suffix: ".yaml")
        let out = try SyncscanProcess.run(["check-config", bad.path])
        let said = out.stderr + String(decoding: out.stdout, as: UTF8.self)
        #expect(out.status == 2, "\(said)")
        #expect(said.contains("modbus.listen") && said.contains("\"plc-net:1502\" is not ADDRESS:PORT"), "\(said)")
        #expect(said.contains("modbus.max_clients"), "\(said)")
        let remote = try TemporaryFile(contents: Array("modbus:\n  listen: 0.0.0.0:1502\n".utf8), suffix: ".yaml")
        let refused = try SyncscanProcess.run(["check-config", remote.path])
        let saidRemote = refused.stderr + String(decoding: refused.stdout, as: UTF8.self)
        #expect(refused.status == 2 && saidRemote.contains("modbus.allow_remote"), "\(saidRemote)")
        let good = try TemporaryFile(contents: Array("modbus:\n  listen: 127.0.0.1:1502\n  idle_timeout_ms: 5000\n".utf8), suffix: ".yaml")
        let ok = try SyncscanProcess.run(["check-config", good.path])
        #expect(ok.status == 0, "stderr: \(ok.stderr)")
    }
}
