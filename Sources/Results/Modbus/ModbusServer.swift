import Capture
import Logging
import Modbus
import SystemCalls
import SystemPackage

/// A Modbus TCP server a PLC polls for the last result and the counters, and whose coil 0 it
/// writes to trigger a read window (`ModbusRegisterMap` is the map).
///
/// Every result: each code line in `continuous` and `presentation` modes (an item's first reading);
/// each read window's result in `triggered` mode, as the TCP result server sends them. `handle` and
/// `readResult` only record the result under a lock; the server's thread (`syncscan-modbus`)
/// waits in `poll(2)` on the listening socket, its `WakeSignal` and every client, reads what a
/// client sent without waiting for the rest of a frame (`ModbusFrameReader`), and answers each
/// whole request through libmodbus (`ModbusReplier`). A request outside the map is refused with
/// a Modbus exception (ILLEGAL DATA ADDRESS) and counted; malformed bytes close that client
/// (counted); a client silent for `idleTimeout` is closed (counted), so one that connects and
/// never sends delays no one. In `triggered` mode coil 0's rising edge presses the scan's
/// `TriggerSwitch` (origin `modbus`) and its falling edge releases it (a window held open with
/// `trigger.window.until_release`); outside it the coil is stored and opens nothing.
public final class ModbusServer: ResultsHandler, ServiceHooks, CountsReporting, @unchecked Sendable {  // unchecked: `listener` and `replier` are set in `start()` before the thread runs, then the thread's alone; the rest is behind `shared`'s lock
    public let settings: ModbusSettings
    let logger: Logger
    let triggers: TriggerSwitch
    /// Whether the scan opens read windows (`trigger.mode: triggered`): only their results are recorded.
    let readWindows: Bool
    /// The tally against `match.list`, read for every answer (so a reset shows at once).
    let expected: ExpectedTally
    private let shared = LockedValue(ModbusServerShared())
    private let wake: WakeSignal?
    private var listener: TCPListener?
    private var replier: ModbusReplier?

    public init(settings: ModbusSettings, triggers: TriggerSwitch, readWindows: Bool, logger: Logger, expected: ExpectedTally = ExpectedTally()) {
        (self.settings, self.triggers, self.readWindows, self.logger) = (settings, triggers, readWindows, logger)
        self.expected = expected
        do {
            wake = try WakeSignal()
        } catch {
            wake = nil
            logger.warning("the Modbus server stops within 100 ms instead of at once: no wake-up descriptor", metadata: ["error": "\(LogText.error(error))"])
        }
    }

    /// The port it listens on once started (the one the kernel picked for port 0); `nil`: not listening.
    public var port: Int? { shared.withLock { $0.port } }

    /// The register map as it stands (tests, the bench).
    public var registerMap: ModbusRegisterMap {
        var map = shared.withLock { $0.map }
        map.expected = expected.totals
        return map
    }

    /// Binds `modbus.listen`, makes libmodbus's context and map, and starts the server's thread
    /// (once); either failing is logged with what to do, and the scan goes on without the server.
    public func start() {
        guard shared.withLock({ shared in
            defer { shared.started = true }
            return !shared.started
        }) else { return }
        do {
            let replier = try ModbusReplier(size: ModbusMapSize(coils: ModbusRegisterMap.coils, inputRegisters: ModbusRegisterMap.inputRegisters))
            let listener = try TCPListener(host: settings.listen.host, port: settings.listen.port)
            (self.listener, self.replier) = (listener, replier)
            shared.withLock { $0.port = listener.port }
        } catch {
            logger.error("Modbus TCP server off: \(error)", metadata: ["listen": "\(settings.listen)"])
            shared.withLock { $0.finished = true }
            return
        }
        logger.notice("Modbus TCP server listening", metadata: [
            "listen": "\(settings.listen.host.contains(":") ? "[\(settings.listen.host)]" : settings.listen.host):\(listener!.port)",
            "max_clients": "\(settings.maxClients)", "libmodbus": "\(ModbusReplier.version)"])
        startThread(name: "syncscan-modbus") { [self] in run() }
    }

    public var counters: [ResultsCounter] {
        let (counts, clients, results) = shared.withLock { ($0.counts, $0.clients, $0.map.resultNumber) }
        return [
            ResultsCounter(name: "modbus_results", help: "Results the Modbus server put in its input registers.", value: results),
            ResultsCounter(name: "modbus_clients", metric: "modbus_clients_connected", help: "Clients connected to the Modbus server.",
                           kind: .gauge, value: clients),
            ResultsCounter(name: "modbus_requests", help: "Modbus requests answered.", value: counts.requests),
            ResultsCounter(name: "modbus_requests_refused",
                           help: "Modbus requests refused with an exception: outside the register map (ILLEGAL DATA ADDRESS), another function, a bad value.",
                           value: counts.refused),
            ResultsCounter(name: "modbus_clients_malformed", help: "Modbus clients closed because they sent bytes that are not Modbus TCP.",
                           value: counts.malformed),
            ResultsCounter(name: "modbus_clients_idle_closed", help: "Modbus clients closed because they sent nothing for modbus.idle_timeout_ms.",
                           value: counts.idleClosed),
            ResultsCounter(name: "modbus_clients_refused", help: "Modbus clients closed at once because modbus.max_clients were connected.",
                           value: counts.clientsRefused),
        ]
    }

    /// Records the code outside `triggered` mode (whose read windows' results are recorded instead); counts a mismatch in any mode.
    public func handle(_ code: inout DeliveredCode) throws {
        let first = code.code
        let mismatch = code.match == false
        shared.withLock { shared in
            if mismatch { shared.map.mismatch += 1 }
            if !readWindows { shared.map.record(.good, codes: 1, first: first) }
        }
    }

    /// Records a read window's result: its status, its codes and its first code.
    public func readResult(_ result: inout ReadResult) throws {
        let (kind, codes, first) = (result.kind, result.codes, result.read.first?.code)
        shared.withLock { $0.map.record(ModbusRegisterMap.Status(kind), codes: codes, first: first) }
    }

    /// Closes every client and stops the thread; safe to call more than once.
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
        guard let listener, let replier else { return }
        let pollSet = PollSet(count: 2 + settings.maxClients)
        var clients: [ModbusClient] = []
        var numbered = 0
        var acceptPausedUntil: ContinuousClock.Instant?
        var log = ModbusServerLog(logger: logger)
        var coil = false
        let started = ContinuousClock.now
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * ModbusReplier.maxADU, alignment: 1)
        defer { buffer.deallocate() }

        while !shared.withLock({ $0.closed }) {
            let now = ContinuousClock.now
            if let until = acceptPausedUntil, now >= until { acceptPausedUntil = nil }
            let listening = acceptPausedUntil == nil
            pollSet.watch(listening ? listener.descriptor : nil, for: .input, at: 0)
            pollSet.watch(wake?.descriptor, for: .input, at: 1)
            for index in 0..<settings.maxClients {
                pollSet.watch(index < clients.count ? clients[index].connection.descriptor : nil, for: .input, at: 2 + index)
            }
            // Until the next idle client's deadline, a second at most.
            let nextIdle = clients.map { $0.lastHeard + settings.idleTimeout }.min().map { $0 - now } ?? .seconds(1)
            _ = pollSet.wait(timeout: wake == nil || acceptPausedUntil != nil ? .milliseconds(100) : max(.milliseconds(1), min(nextIdle, .seconds(1))))
            wake?.drain()
            for (index, client) in clients.enumerated() where !pollSet.events(at: 2 + index).isDisjoint(with: [.input, .hangUp, .error]) {
                read(client, into: buffer, replier: replier, coil: &coil, started: started, log: &log)
            }
            let checked = ContinuousClock.now
            for client in clients where !client.dead && checked - client.lastHeard >= settings.idleTimeout {
                client.dead = true
                shared.withLock { $0.counts.idleClosed += 1 }
                log.idle(client, timeout: settings.idleTimeout)
            }
            clients.removeAll { $0.dead }
            if listening && !pollSet.events(at: 0).isEmpty {
                acceptPausedUntil = acceptAll(listener, into: &clients, numbered: &numbered, log: &log)
            }
            shared.withLock { $0.clients = clients.count }
        }
        clients.removeAll()
        shared.withLock { shared in
            shared.clients = 0
            shared.finished = true
        }
        shared.broadcast()
    }

    /// Accepts every connection waiting: a client while fewer than `maxClients` are, else closed
    /// at once (counted). When `accept4` fails (out of descriptors) it is logged and the listener
    /// rests 100 ms.
    private func acceptAll(_ listener: TCPListener, into clients: inout [ModbusClient], numbered: inout Int,
                           log: inout ModbusServerLog) -> ContinuousClock.Instant? {
        while true {
            switch listener.accept() {
            case .success(nil): return nil
            case .success(let connection?):
                guard clients.count < settings.maxClients else {
                    shared.withLock { $0.counts.clientsRefused += 1 }
                    log.refused(maxClients: settings.maxClients)
                    continue
                }
                numbered += 1
                connection.sendImmediately()
                clients.append(ModbusClient(connection, number: numbered))
                log.connected(numbered)
            case .failure(let errno):
                log.acceptFailed(errno)
                return .now + .milliseconds(100)
            }
        }
    }

    /// Reads what `client` sent (16 reads at most a turn) and answers each whole request.
    private func read(_ client: ModbusClient, into buffer: UnsafeMutableRawBufferPointer, replier: ModbusReplier, coil: inout Bool,
                      started: ContinuousClock.Instant, log: inout ModbusServerLog) {
        for _ in 0..<16 where !client.dead {
            switch client.connection.receive(into: buffer) {
            case .success(nil): return
            case .success(0), .failure:
                client.dead = true
                return
            case .success(let count?):
                client.lastHeard = .now
                switch client.reader.requests(adding: UnsafeRawBufferPointer(rebasing: buffer[..<count])) {
                case .failure(let error):
                    malformed(client, error, log: &log)
                case .success(let requests):
                    for request in requests where !client.dead {
                        answer(request, from: client, replier: replier, coil: &coil, started: started, log: &log)
                    }
                }
            }
        }
    }

    /// Answers one whole request: from the map as it stands (libmodbus's `modbus_reply`), or
    /// refused with an exception; a write to coil 0 presses or releases the trigger on its edges.
    private func answer(_ request: [UInt8], from client: ModbusClient, replier: ModbusReplier, coil: inout Bool,
                        started: ContinuousClock.Instant, log: inout ModbusServerLog) {
        let sent: Result<Int, ModbusError>
        switch ModbusRequestCheck(request, size: replier.size) {
        case .malformed(let error):
            return malformed(client, error, log: &log)
        case .refuse(let exception):
            shared.withLock { $0.counts.refused += 1 }
            log.refusedRequest(client, function: request[7], exception: exception)
            sent = replier.refuse(request, with: exception, on: client.connection.descriptor)
        case .answer:
            var map = shared.withLock { shared in
                shared.counts.requests += 1
                return shared.map
            }
            map.expected = expected.totals
            replier.setInputRegisters(map.inputRegisterValues(heartbeat: Int((ContinuousClock.now - started) / .seconds(1))))
            sent = replier.reply(to: request, on: client.connection.descriptor)
            let now = replier.coil(0)
            if now != coil {
                coil = now
                if readWindows {
                    if now { triggers.press(origin: "modbus") } else { triggers.release(origin: "modbus") }
                }
            }
        }
        if case .failure(let error) = sent {
            client.dead = true
            log.sendFailed(client, error)
        }
    }

    private func malformed(_ client: ModbusClient, _ error: ModbusFrameError, log: inout ModbusServerLog) {
        client.dead = true
        shared.withLock { $0.counts.malformed += 1 }
        log.malformed(client, error)
    }
}

/// What `ModbusServer`'s `handle`, `readResult` and accessors share with its thread.
struct ModbusServerShared {
    var map = ModbusRegisterMap()
    var started = false, closed = false, finished = false
    var port: Int?
    var clients = 0
    var counts = ModbusServerCounts()
}

/// What the Modbus server counted since it started.
struct ModbusServerCounts {
    var requests = 0, refused = 0, malformed = 0, idleClosed = 0, clientsRefused = 0
}

/// One client of the Modbus server, the server thread's alone.
final class ModbusClient {
    let connection: TCPConnection
    /// Its number in the log, from 1 in a run.
    let number: Int
    var reader = ModbusFrameReader()
    /// When it last sent bytes (or connected).
    var lastHeard = ContinuousClock.now
    /// Gone: removed at the end of the thread's turn.
    var dead = false

    init(_ connection: TCPConnection, number: Int) { (self.connection, self.number) = (connection, number) }
}

/// The server thread's log: each kind of trouble logged once a run, then only counted.
struct ModbusServerLog {
    let logger: Logger
    private var logged: Set<String> = []

    init(logger: Logger) { self.logger = logger }

    private mutating func once(_ kind: String) -> Bool { logged.insert(kind).inserted }

    func connected(_ number: Int) { logger.debug("Modbus client connected", metadata: ["client": "\(number)"]) }

    mutating func refused(maxClients: Int) {
        guard once("refused") else { return }
        logger.warning("Modbus client closed: \(maxClients) are connected (modbus.max_clients); further ones are counted in modbus_clients_refused, not logged")
    }

    mutating func refusedRequest(_ client: ModbusClient, function: UInt8, exception: ModbusException) {
        guard once("exception \(exception.rawValue)") else { return }
        let why = switch exception {
        case .illegalDataAddress: "an address outside the register map (docs/outputs.md)"
        case .illegalFunction: "a function the server does not take"
        case .illegalDataValue: "a quantity or value the function does not allow"
        }
        logger.warning("Modbus request refused with \(exception): function \(function), \(why); further ones are counted in modbus_requests_refused, not logged",
                       metadata: ["client": "\(client.number)"])
    }

    mutating func malformed(_ client: ModbusClient, _ error: ModbusFrameError) {
        guard once("malformed") else { return }
        logger.warning("Modbus client closed: \(error); further ones are counted in modbus_clients_malformed, not logged",
                       metadata: ["client": "\(client.number)"])
    }

    mutating func idle(_ client: ModbusClient, timeout: Duration) {
        guard once("idle") else { return logger.debug("Modbus client closed: idle", metadata: ["client": "\(client.number)"]) }
        logger.notice("Modbus client closed: it sent nothing for \(timeout) (modbus.idle_timeout_ms); further ones are counted in modbus_clients_idle_closed, not logged",
                      metadata: ["client": "\(client.number)"])
    }

    mutating func sendFailed(_ client: ModbusClient, _ error: ModbusError) {
        guard once("send \(error.errno)") else { return }
        logger.info("Modbus client closed: \(error)", metadata: ["client": "\(client.number)"])
    }

    mutating func acceptFailed(_ errno: Errno) {
        guard once("accept \(errno.rawValue)") else { return }
        logger.error("Modbus server cannot accept connections for now (accept4: \(errno.description), \(errno.symbol)): raise the open files limit (LimitNOFILE=); it tries again every 100 ms")
    }
}
