import Foundation
import TestSupport
import Testing

/// The TCP result server (`tcp.*`) of the built daemon, reached by plain socket clients as a PLC would.
@Suite(.serialized, .offThePool) struct TCPRunTests {
    /// `syncscan run` on a `y4m:-` pipe with `yaml` as its configuration, and the port its TCP server logs.
    static func start(_ yaml: String, arguments: [String] = [], environment: [String: String] = [:]) throws -> (RunningDaemon, Int, TemporaryFile) {
        let config = try TemporaryFile(contents: Array(("tcp:\n  listen: 127.0.0.1:0\n" + yaml).utf8), suffix: ".yaml")
        let daemon = try RunningDaemon(["run", "--source", "y4m:-", "--config", config.path] + arguments, environment: environment)
        daemon.feed(Y4MStream(width: 160, height: 120).header)
        #expect(daemon.waitForStderr("TCP result server listening"), "stderr: \(daemon.stderr)")
        guard let range = daemon.stderr.range(of: "listen=127.0.0.1:"), let port = Int(daemon.stderr[range.upperBound...].prefix { $0.isNumber }) else {
            daemon.send(SIGKILL)
            throw HarnessError("no TCP port in stderr: \(daemon.stderr)")
        }
        return (daemon, port, config)
    }

    /// Sends STATUS, again after each reply, until a reply holds `text`; whether one did.
    static func askStatus(_ client: TCPTestClient, until text: String) -> Bool {
        var asked = client.lines.filter { $0.hasPrefix("STATUS") }.count
        return client.waitUntil { client in
            let replies = client.lines.filter { $0.hasPrefix("STATUS") }
            if replies.contains(where: { $0.contains(text) }) { return true }
            if replies.count == asked {
                client.send(line: "STATUS")
                asked += 1
            }
            return false
        }
    }

    /// A client the server took (not refused while closed connections still held their slots).
    static func acceptedClient(port: Int) throws -> TCPTestClient {
        while true {
            let client = try TCPTestClient(port: port)
            client.send(line: "STATUS")
            client.waitUntil { !$0.lines.isEmpty }
            if client.lines.first?.hasPrefix("STATUS") == true { return client }
        }
    }

    static func blankFrame() -> [UInt8] { Y4MStream(width: 160, height: 120).frame(GreyFrame(width: 160, height: 120)) }

    @Test func aClientGetsEveryCodeFramedByTheTemplate() throws {
        let (daemon, port, _) = try Self.start("""
              format: "{symbology}|{text}|{seq}|{result}|{count}|{item}"
              prefix: '\\x02'
              suffix: '\\x03'
            """, arguments: ["--duplicate-window", "0"])
        let client = try TCPTestClient(port: port)
        #expect(client.send(line: "STATUS"))
        #expect(client.waitUntil { $0.messages(endingWith: [0x03]).count >= 1 })
        let frames = try qrFrameBytes(3, prefix: "tcp")
        #expect(daemon.feedFrames(frames, every: .milliseconds(30)) {
            client.pump()
            return client.messages(endingWith: [0x03]).count >= 4
        }, "stderr: \(daemon.stderr)")
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        client.waitUntil { $0.closedByPeer }
        let messages = client.messages(endingWith: [0x03])
        #expect(messages.allSatisfy { $0.first == 0x02 }, "each message starts with STX")
        let texts = messages.map { String(decoding: $0.dropFirst(), as: UTF8.self) }
        #expect(texts.first?.hasPrefix("STATUS results=codes source=") == true && texts.first?.contains("clients=1 ") == true, "\(texts)")
        let codes = daemon.records("code")
        let expected = codes.map { "\($0["symbology"] as! String)|\($0["text"] as! String)|\(($0["frame"] as! [String: Any])["seq"] as! Int)|good|1|" }
        #expect(Array(texts.dropFirst()) == expected, "every code line is one message, in order: \(texts)")
        #expect(daemon.stderr.contains("tcp_results=\(codes.count)"), "stderr: \(daemon.stderr)")
    }

    @Test func triggerCommandsOpenWindowsAndANoReadSendsItsMessage() throws {
        let (daemon, port, _) = try Self.start("""
              format: "{result};{text};{count}"
              no_read: "NOREAD;{seq}"
              token: s3cret-token
            """, environment: ["SYNCSCAN_TRIGGER_MODE": "triggered", "SYNCSCAN_TRIGGER_WINDOW_DURATION_MS": "300"])
        let client = try TCPTestClient(port: port)
        client.send(line: "status")
        #expect(client.waitUntil { $0.closedByPeer }, "a command before the token closes the connection")
        #expect(client.lines == ["ERROR TOKEN first: send TOKEN and the token before other commands; closing"])
        let plc = try TCPTestClient(port: port)
        plc.send(line: "TOKEN s3cret-token")
        plc.send(line: "trigger")
        let frames = try qrFrameBytes(1, prefix: "window")
        #expect(daemon.feedFrames(frames, every: .milliseconds(30)) {
            plc.pump()
            return plc.lines.contains("good;window-0;1")
        }, "stderr: \(daemon.stderr)")
        plc.send(line: "Trigger On")
        #expect(daemon.feedFrames([Self.blankFrame()], every: .milliseconds(30)) {
            plc.pump()
            return plc.lines.contains { $0.hasPrefix("NOREAD;") }
        }, "stderr: \(daemon.stderr)")
        plc.send(line: "COUNTERS")
        plc.send(line: "RESET COUNTERS")
        plc.send(line: "counters")
        plc.send(line: "FLY AWAY")
        #expect(plc.waitUntil { $0.lines.contains { $0.hasPrefix("ERROR unknown command") } })
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        let lines = plc.lines
        #expect(Array(lines.prefix(2)) == ["OK TOKEN", "OK TRIGGER"], "\(lines)")
        #expect(lines.contains("OK TRIGGER ON") && lines.contains("OK RESET COUNTERS"), "\(lines)")
        #expect(lines.contains("COUNTERS results=2 good=1 no_read=1 multiple=0 refused=0 dropped_slow=0 commands=5 bad_commands=1"), "\(lines)")
        #expect(lines.contains("COUNTERS results=0 good=0 no_read=0 multiple=0 refused=0 dropped_slow=0 commands=1 bad_commands=0"), "\(lines)")
        #expect(lines.contains("ERROR unknown command: FLY AWAY (TRIGGER, TRIGGER ON, TRIGGER OFF, COUNTERS, RESET COUNTERS, EXPECTED, RESET EXPECTED, STATUS, TOKEN)"))
        let results = daemon.records("read_result")
        #expect(results.map { $0["trigger"] as? String } == ["tcp", "tcp"] && results.map { $0["result"] as? String } == ["good", "no_read"])
        let noRead = lines.first { $0.hasPrefix("NOREAD;") }
        #expect(noRead == "NOREAD;\(results[1]["closed_seq"] as? Int ?? -1)", "\(lines)")
        #expect(!daemon.stderr.contains("s3cret-token"), "the token is never logged")
        #expect(daemon.stderr.contains("tcp_bad_commands=2"), "stderr: \(daemon.stderr)")
    }

    /// 100 clients, 10 of which never read (a small receive buffer, never pumped): the 90 get every
    /// result, the 10 are dropped and counted, and the daemon's memory stays bounded.
    @Test func clientsThatStopReadingAreDroppedAndTheOthersGetEveryResult() throws {
        let padding = String(repeating: "x", count: 4000)
        let (daemon, port, _) = try Self.start("""
              format: "{seq} \(padding)"
              max_clients: 100
              queue_bytes: 16384
            """, arguments: ["--duplicate-window", "0"])
        let slow = try (0..<10).map { _ in try TCPTestClient(port: port, receiveBuffer: 2048) }
        let fast = try (0..<90).map { _ in try TCPTestClient(port: port) }
        #expect(Self.askStatus(fast[0], until: "clients=100"), "\(fast[0].lines)")
        let frames = try qrFrameBytes(2, prefix: "slow")
        var rss: [Int] = []
        #expect(daemon.feedFrames(frames, every: .milliseconds(20)) {
            for client in fast { client.pump() }
            if let bytes = daemon.residentBytes { rss.append(bytes) }
            fast[1].send(line: "COUNTERS")
            return fast[1].lines.contains { $0.contains("dropped_slow=10") }
        }, "stderr: \(daemon.stderr)")
        let end = daemon.framesFed + 20
        daemon.feedFrames(frames, every: .milliseconds(20)) {
            for client in fast { client.pump() }
            return daemon.framesFed >= end
        }
        daemon.closeStdin()
        // The 90 read on while the daemon stops, as a PLC does: what waits for them is written before they are closed.
        #expect(waitUntil(every: .milliseconds(10)) {
            for client in fast { client.pump() }
            return !daemon.process.isRunning
        }, "stderr: \(daemon.stderr)")
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        let expected = daemon.records("code").map { "\(($0["frame"] as! [String: Any])["seq"] as! Int) \(padding)" }
        for (index, client) in fast.enumerated() {
            client.waitUntil { $0.closedByPeer }
            let got = client.lines.filter { !$0.hasPrefix("STATUS") && !$0.hasPrefix("COUNTERS") }
            #expect(got == expected, "fast client \(index): \(got.count) of \(expected.count) results")
        }
        _ = slow
        #expect(daemon.stderr.contains("tcp_clients_dropped_slow=10"), "stderr: \(daemon.stderr)")
        let (first, most) = (rss.first ?? 0, rss.max() ?? 0)
        #expect(most - first < 64 << 20, "resident memory grew from \(first) to \(most) bytes")
    }

    /// A 1 MB command line, a client that never sends, a refused one past `max_clients` and 1,000
    /// connections in a burst: each is answered or counted, and a client then still gets results.
    @Test func badInputLeavesTheServerServing() throws {
        let (daemon, port, _) = try Self.start("  max_clients: 4\n", arguments: ["--duplicate-window", "0"])
        let silent = try TCPTestClient(port: port)
        do {
            let long = try TCPTestClient(port: port)
            #expect(long.send(Array(repeating: UInt8(ascii: "A"), count: 1 << 20)), "the server reads and drops the rest of the line")
            #expect(long.waitUntil { $0.closedByPeer })
            #expect(long.lines == ["ERROR line too long: at most 1024 bytes a line; closing"])
        }
        var burst = 0
        let start = ContinuousClock.now
        while burst < 1000 {
            if (try? TCPTestClient(port: port)) != nil { burst += 1 }
        }
        let burstTime = ContinuousClock.now - start
        let plc = try Self.acceptedClient(port: port)
        #expect(Self.askStatus(plc, until: "clients=2 "), "the burst's connections are gone: \(plc.lines)")
        let extra = try [TCPTestClient(port: port), TCPTestClient(port: port)]
        #expect(Self.askStatus(plc, until: "clients=4 "), "\(plc.lines)")
        let refused = try TCPTestClient(port: port)
        #expect(refused.waitUntil { $0.closedByPeer } && refused.lines == ["ERROR too many clients: 4 are connected (tcp.max_clients)"])
        let frames = try qrFrameBytes(1, prefix: "after")
        #expect(daemon.feedFrames(frames, every: .milliseconds(30)) {
            plc.pump()
            return plc.lines.contains("after-0")
        }, "stderr: \(daemon.stderr)")
        plc.send(line: "STATUS")
        #expect(plc.waitUntil { $0.lines.contains { $0.hasPrefix("STATUS results=codes source=streaming") } })
        daemon.closeStdin()
        #expect(daemon.wait() == 0, "stderr: \(daemon.stderr)")
        silent.pump()
        #expect(silent.lines.contains("after-0"), "the client that never sent got the results too")
        #expect(daemon.stderr.contains("tcp_bad_commands=1"), "stderr: \(daemon.stderr)")
        _ = extra
        let refusedCount = daemon.stderr.range(of: "tcp_clients_refused=").map { Int(daemon.stderr[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0
        #expect(refusedCount >= 1, "1000 connections in \(burstTime), then one past max_clients: \(daemon.stderr)")
    }

    @Test func checkConfigNamesUnknownTemplateFields() throws {
        let config = try TemporaryFile(contents: Array("""
            tcp:
              listen: 127.0.0.1:2001
              format: "{text} {colour} {gs1:01} {gs1:xyz}"
              no_read: "NOREAD {seq}"
            """.utf8), suffix: ".yaml")
        let out = try SyncscanProcess.run(["check-config", config.path])
        let said = out.stderr + String(decoding: out.stdout, as: UTF8.self)
        #expect(out.status == 2, "\(said)")
        #expect(said.contains("tcp.format") && said.contains("unknown fields {colour}, {gs1:xyz}"), "\(said)")
        #expect(!said.contains("tcp.no_read"), "\(said)")
        let good = try TemporaryFile(contents: Array("tcp:\n  listen: 127.0.0.1:2001\n  format: \"{gs1:01};{text}\"\n".utf8), suffix: ".yaml")
        let ok = try SyncscanProcess.run(["check-config", good.path])
        #expect(ok.status == 0, "stderr: \(ok.stderr)")
    }
}
