import Capture
import Logging
import SystemCalls

/// A TCP server that sends every result to its clients as one message made from `tcp.format`,
/// and takes their line commands (`TRIGGER`, `COUNTERS`, `STATUS`, …), as a fixed-mount reader
/// does for a PLC.
///
/// Every result: each code line in `continuous` and `presentation` modes (an item's first reading);
/// each read window's result in `triggered` mode (`tcp.no_read` for a `no_read`). `handle` and
/// `readResult` only make the message and hand it to the server's thread (`syncscan-tcp`), which
/// waits in `poll(2)` on the listening socket, its `WakeSignal` and every client. Each client has
/// its own queue of `queueBytes`: one that stops reading is dropped when its queue is full and
/// counted, never waited for, so it slows neither the others nor the scan. A client past
/// `maxClients` is sent one error line and closed (counted). Trigger commands press and release
/// the scan's `TriggerSwitch` (origin `tcp`), as SIGUSR1 and MQTT do.
public final class TCPResultServer: ResultsHandler, ServiceHooks, CountsReporting, @unchecked Sendable {  // unchecked: `listener` is set in `start()` before the thread runs, then the thread's alone; the rest is behind `shared`'s lock
    public let settings: TCPSettings
    let logger: Logger
    let triggers: TriggerSwitch
    /// Whether the scan opens read windows (`trigger.mode: triggered`): only their results are sent.
    let readWindows: Bool
    /// The tally against `match.list` that `RESET EXPECTED` starts over and `EXPECTED` reports.
    let expected: ExpectedTally
    let shared = LockedValue(TCPServerShared())
    private let wake: WakeSignal?
    private var listener: TCPListener?
    private let clock: @Sendable () -> WallClockTime

    /// The kernel's send buffer asked for each client (it doubles it), before `queueBytes`.
    static let sendBufferBytes = 64 << 10

    /// Messages waiting for the thread; past this the oldest are dropped (`tcp_results_dropped`).
    static let pendingBound = 1024

    public init(settings: TCPSettings, triggers: TriggerSwitch, readWindows: Bool, logger: Logger, expected: ExpectedTally = ExpectedTally(),
                clock: @escaping @Sendable () -> WallClockTime = WallClockTime.now) {
        (self.settings, self.triggers, self.readWindows, self.logger, self.clock) = (settings, triggers, readWindows, logger, clock)
        self.expected = expected
        do {
            wake = try WakeSignal()
        } catch {
            wake = nil
            logger.warning("TCP results are sent within 50 ms instead of at once: no wake-up descriptor", metadata: ["error": "\(LogText.error(error))"])
        }
    }

    /// The port it listens on once started (the one the kernel picked for port 0); `nil`: not listening.
    public var port: Int? { shared.withLock { $0.port } }

    /// Binds `tcp.listen` and starts the server's thread (once); a socket that cannot be bound is
    /// logged with what to do, and the scan goes on without the server.
    public func start() {
        guard shared.withLock({ shared in
            defer { shared.started = true }
            return !shared.started
        }) else { return }
        do {
            let listener = try TCPListener(host: settings.listen.host, port: settings.listen.port)
            self.listener = listener
            shared.withLock { $0.port = listener.port }
        } catch {
            logger.error("TCP result server off: \(error)", metadata: ["listen": "\(settings.listen)"])
            shared.withLock { $0.finished = true }
            return
        }
        logger.notice("TCP result server listening", metadata: [
            "listen": "\(settings.listen.host.contains(":") ? "[\(settings.listen.host)]" : settings.listen.host):\(listener!.port)",
            "max_clients": "\(settings.maxClients)", "token": "\(settings.token == nil ? "none" : "required")"])
        startThread(name: "syncscan-tcp") { [self] in run() }
    }

    public func sourceStreaming() { shared.withLock { $0.streaming = true } }

    public var counters: [ResultsCounter] {
        let (counts, clients) = shared.withLock { ($0.counts, $0.clients) }
        return [
            ResultsCounter(name: "tcp_results", help: "Results sent to the TCP result server's clients (one message each, to every client).",
                           value: counts.results),
            ResultsCounter(name: "tcp_clients", metric: "tcp_clients_connected", help: "Clients connected to the TCP result server.",
                           kind: .gauge, value: clients),
            ResultsCounter(name: "tcp_clients_refused", help: "TCP clients refused because tcp.max_clients were connected.", value: counts.refused),
            ResultsCounter(name: "tcp_clients_dropped_slow",
                           help: "TCP clients dropped because they did not read their messages (their queue of tcp.queue_bytes was full).",
                           value: counts.droppedSlow),
            ResultsCounter(name: "tcp_commands", help: "Command lines TCP clients sent.", value: counts.commands),
            ResultsCounter(name: "tcp_bad_commands",
                           help: "TCP command lines refused: unknown, too long, before or with a wrong token (the last three close the connection).",
                           value: counts.badCommands),
            ResultsCounter(name: "tcp_results_dropped", help: "Results dropped before the TCP server's thread took them (it fell behind).",
                           value: counts.resultsDropped, inLines: false),
        ]
    }

    /// Sends the code (`tcp.format`) outside `triggered` mode, whose read windows' results are sent instead.
    public func handle(_ code: inout DeliveredCode) throws {
        guard !readWindows else { return }
        let values = TCPMessageTemplate.Values(code: code.code, item: code.item, result: ReadResult.Kind.good.rawValue, count: 1,
                                               seq: code.code.frame.sequenceNumber, time: clock(), match: code.match,
                                               expected: code.expected)
        enqueue(settings.format.render(values), kind: .good)
    }

    /// Sends a read window's result: `tcp.format` with its first code for `good` and `multiple`, `tcp.no_read` for `no_read`.
    public func readResult(_ result: inout ReadResult) throws {
        let first = result.read.first
        let values = TCPMessageTemplate.Values(code: first?.code, item: first?.item, result: result.kind.rawValue, count: result.codes,
                                               seq: first?.code.frame.sequenceNumber ?? result.closed.sequenceNumber, time: clock(), match: nil,
                                               expected: result.expected)
        enqueue((result.kind == .noRead ? settings.noRead : settings.format).render(values), kind: result.kind)
    }

    /// Frames `message` and hands it to the thread.
    private func enqueue(_ message: [UInt8], kind: ReadResult.Kind) {
        let framed = settings.prefix + message + settings.suffix
        let taken = shared.withLock { shared -> Bool in
            guard !shared.closed, !shared.finished else { return false }
            shared.counts.results += 1
            shared.counts.count(kind)
            shared.pending.append(framed)
            if shared.pending.count > Self.pendingBound {
                shared.pending.removeFirst()
                shared.counts.resultsDropped += 1
            }
            return true
        }
        if taken { wake?.signal() }
    }

    /// Sends what waits (2 s at most), closes every client and stops the thread; safe to call more than once.
    public func finish() throws {
        let running = shared.withLock { shared -> Bool in
            shared.closed = true
            return shared.started && !shared.finished
        }
        wake?.signal()
        if running { shared.withLock(when: { $0.finished }) { _, _ in } }
    }

    // MARK: - The server's thread

    private func run() {
        guard let listener else { return }
        let pollSet = PollSet(count: 2 + settings.maxClients)
        var clients: [TCPClient] = []
        var numbered = 0
        var acceptPausedUntil: ContinuousClock.Instant?
        var closingDeadline: ContinuousClock.Instant?
        var log = TCPServerLog(logger: logger)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { buffer.deallocate() }

        while true {
            let now = ContinuousClock.now
            let listening = closingDeadline == nil && (acceptPausedUntil.map { now >= $0 } ?? true)
            pollSet.watch(listening ? listener.descriptor : nil, for: .input, at: 0)
            pollSet.watch(wake?.descriptor, for: .input, at: 1)
            for index in 0..<settings.maxClients {
                let client = index < clients.count ? clients[index] : nil
                pollSet.watch(client?.connection.descriptor, for: client.map { $0.queued > 0 ? [.input, .output] : .input } ?? [], at: 2 + index)
            }
            let timed = wake == nil || acceptPausedUntil != nil || closingDeadline != nil || clients.contains { $0.drainUntil != nil }
            _ = pollSet.wait(timeout: timed ? .milliseconds(50) : .seconds(1))
            wake?.drain()
            let (messages, closed) = shared.withLock { shared in
                defer { shared.pending.removeAll(keepingCapacity: true) }
                return (shared.pending, shared.closed)
            }
            for message in messages {
                for client in clients where client.authorized && !client.dead && !client.closeAfterFlush
                    && !client.enqueue(message, bound: settings.queueBytes) {
                    client.dead = true
                    shared.withLock { $0.counts.droppedSlow += 1 }
                    log.droppedSlow(client, queueBytes: settings.queueBytes)
                }
            }
            for (index, client) in clients.enumerated() where !client.dead {
                let events = pollSet.events(at: 2 + index)
                if !events.isDisjoint(with: [.input, .hangUp, .error]) { read(client, into: buffer, log: &log) }
                if !client.dead && client.queued > 0 && !client.flush() { client.dead = true }
                if let until = client.drainUntil, ContinuousClock.now >= until { client.dead = true }
            }
            clients.removeAll { $0.dead }
            if listening && !pollSet.events(at: 0).isEmpty {
                acceptPausedUntil = acceptAll(listener, into: &clients, numbered: &numbered, log: &log)
            } else if let until = acceptPausedUntil, ContinuousClock.now >= until {
                acceptPausedUntil = nil
            }
            clients.removeAll { $0.dead }
            shared.withLock { $0.clients = clients.count }
            if closed {
                if closingDeadline == nil { closingDeadline = .now + .seconds(2) }
                if clients.allSatisfy({ $0.queued == 0 }) || ContinuousClock.now >= closingDeadline! { break }
            }
        }
        clients.removeAll()
        shared.withLock { shared in
            shared.clients = 0
            shared.finished = true
        }
        shared.broadcast()
    }

    /// Accepts every connection waiting: a client while fewer than `maxClients` are, else one error
    /// line and closed. When `accept4` fails (out of descriptors) it is logged and the listener
    /// rests 100 ms: the time to resume accepting.
    private func acceptAll(_ listener: TCPListener, into clients: inout [TCPClient], numbered: inout Int,
                           log: inout TCPServerLog) -> ContinuousClock.Instant? {
        while true {
            switch listener.accept() {
            case .success(nil): return nil
            case .success(let connection?):
                guard clients.count < settings.maxClients else {
                    let line = settings.prefix + Array("ERROR too many clients: \(settings.maxClients) are connected (tcp.max_clients)".utf8) + settings.suffix
                    _ = line.withUnsafeBytes { connection.send($0) }
                    shared.withLock { $0.counts.refused += 1 }
                    log.refused(maxClients: settings.maxClients)
                    continue
                }
                numbered += 1
                connection.limitSendBuffer(to: Self.sendBufferBytes)
                // A reply and the result after it each go out at once, not held for the reply's ACK.
                connection.sendImmediately()
                clients.append(TCPClient(connection, number: numbered, authorized: settings.token == nil))
                log.connected(numbered)
            case .failure(let errno):
                log.acceptFailed(errno)
                return .now + .milliseconds(100)
            }
        }
    }

    /// Reads what `client` sent (16 reads at most a turn) and answers its commands.
    private func read(_ client: TCPClient, into buffer: UnsafeMutableRawBufferPointer, log: inout TCPServerLog) {
        for _ in 0..<16 {
            switch client.connection.receive(into: buffer) {
            case .success(nil): return
            case .success(0), .failure:
                client.dead = true
                return
            case .success(let count?):
                // Past its last reply, what it sends is read and dropped.
                if client.closeAfterFlush { continue }
                guard let lines = client.reader.lines(adding: UnsafeRawBufferPointer(rebasing: buffer[..<count])) else {
                    shared.withLock { $0.counts.badCommands += 1 }
                    log.tooLong(client)
                    reply("ERROR line too long: at most \(TCPSettings.maxCommandBytes) bytes a line; closing", to: client, closing: true)
                    continue
                }
                for line in lines where !client.closeAfterFlush {
                    let (text, closing) = answer(TCPCommand(line: line), from: client)
                    reply(text, to: client, closing: closing)
                }
            }
        }
    }

    /// Queues `text` framed as a message for `client` (a reply too large for its queue drops it).
    func reply(_ text: String, to client: TCPClient, closing: Bool = false) {
        if !client.enqueue(settings.prefix + Array(text.utf8) + settings.suffix, bound: settings.queueBytes + 4096) { client.dead = true }
        if closing { client.closeAfterFlush = true }
    }
}
