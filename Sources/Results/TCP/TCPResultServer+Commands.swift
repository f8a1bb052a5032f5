import Capture
import Logging
import SystemCalls
import SystemPackage

/// What `TCPResultServer`'s `handle`, `readResult` and accessors share with its thread.
struct TCPServerShared {
    /// Framed messages for every client, oldest first.
    var pending: [[UInt8]] = []
    var started = false, closed = false, finished = false
    var port: Int?
    var clients = 0
    var streaming = false
    var counts = TCPServerCounts()
    /// `counts` at the last `RESET COUNTERS`: `COUNTERS` answers with what came since.
    var baseline = TCPServerCounts()
}

/// What the TCP result server counted since it started.
struct TCPServerCounts {
    var results = 0, good = 0, noRead = 0, multiple = 0
    var refused = 0, droppedSlow = 0, commands = 0, badCommands = 0, resultsDropped = 0

    mutating func count(_ kind: ReadResult.Kind) {
        switch kind {
        case .good: good += 1
        case .noRead: noRead += 1
        case .multiple: multiple += 1
        }
    }

    /// `name=value` fields of what came since `baseline`.
    func fields(since baseline: TCPServerCounts) -> String {
        [("results", results - baseline.results), ("good", good - baseline.good), ("no_read", noRead - baseline.noRead),
         ("multiple", multiple - baseline.multiple), ("refused", refused - baseline.refused),
         ("dropped_slow", droppedSlow - baseline.droppedSlow), ("commands", commands - baseline.commands),
         ("bad_commands", badCommands - baseline.badCommands)].map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }
}

extension TCPResultServer {
    /// The reply to `command` from `client`, and whether the connection closes after it. Before
    /// the token (`tcp.token`) only `TOKEN` is taken; a wrong token or another command closes it.
    func answer(_ command: TCPCommand, from client: TCPClient) -> (String, closing: Bool) {
        let bad: Bool
        switch command {
        case .unknown: bad = true
        case .token(let given): bad = settings.token.map { !Self.sameToken(given, $0) } ?? false
        default: bad = !client.authorized
        }
        shared.withLock { shared in
            shared.counts.commands += 1
            if bad { shared.counts.badCommands += 1 }
        }
        if !client.authorized {
            guard case .token = command else { return ("ERROR TOKEN first: send TOKEN and the token before other commands; closing", true) }
            guard !bad else { return ("ERROR wrong token; closing", true) }
            client.authorized = true
            return ("OK TOKEN", false)
        }
        let notTriggered = "ERROR trigger.mode is not triggered: no read window opens"
        switch command {
        case .token: return ("OK TOKEN", false)
        case .trigger:
            guard readWindows else { return (notTriggered, false) }
            triggers.press(origin: "tcp")
            return ("OK TRIGGER", false)
        case .triggerOn:
            guard readWindows else { return (notTriggered, false) }
            triggers.press(origin: "tcp")
            return ("OK TRIGGER ON", false)
        case .triggerOff:
            guard readWindows else { return (notTriggered, false) }
            triggers.release(origin: "tcp")
            return ("OK TRIGGER OFF", false)
        case .counters:
            return ("COUNTERS " + shared.withLock { $0.counts.fields(since: $0.baseline) }, false)
        case .resetCounters:
            shared.withLock { $0.baseline = $0.counts }
            return ("OK RESET COUNTERS", false)
        case .expected:
            guard let tally = expected.current else { return (Self.noList, false) }
            return ("EXPECTED " + Self.fields(tally), false)
        case .resetExpected:
            guard expected.reset() else { return (Self.noList, false) }
            return ("OK RESET EXPECTED", false)
        case .status:
            let (streaming, clients) = shared.withLock { ($0.streaming, $0.clients) }
            return ("STATUS results=\(readWindows ? "windows" : "codes") source=\(streaming ? "streaming" : "starting") clients=\(clients) "
                    + "trigger_pulls=\(triggers.counts.pulls)", false)
        case .unknown(let words):
            return ("ERROR unknown command: \(words) (TRIGGER, TRIGGER ON, TRIGGER OFF, COUNTERS, RESET COUNTERS, EXPECTED, RESET EXPECTED, STATUS, TOKEN)", false)
        }
    }

    static let noList = "ERROR no match.list: nothing is expected"

    /// `correct=N wrong=N missing=N extra=N`: `EXPECTED`'s reply.
    static func fields(_ tally: ExpectedCounts) -> String {
        "correct=\(tally.correct) wrong=\(tally.wrong) missing=\(tally.missing) extra=\(tally.extra)"
    }

    /// Whether `given` is `token`, comparing every byte whatever differs first.
    static func sameToken(_ given: String, _ token: String) -> Bool {
        let (a, b) = (Array(given.utf8), Array(token.utf8))
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) { difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0) }
        return difference == 0
    }
}

/// The server thread's log: each kind of trouble logged once a run, then only counted.
struct TCPServerLog {
    let logger: Logger
    private var logged: Set<String> = []

    init(logger: Logger) { self.logger = logger }

    private mutating func once(_ kind: String) -> Bool { logged.insert(kind).inserted }

    func connected(_ number: Int) { logger.debug("TCP client connected", metadata: ["client": "\(number)"]) }

    mutating func droppedSlow(_ client: TCPClient, queueBytes: Int) {
        guard once("slow") else { return logger.debug("TCP client dropped: it did not read", metadata: ["client": "\(client.number)"]) }
        logger.warning("TCP client dropped: it did not read its results and \(queueBytes) bytes waited for it (tcp.queue_bytes); further ones are counted in tcp_clients_dropped_slow, not logged", metadata: ["client": "\(client.number)"])
    }

    mutating func refused(maxClients: Int) {
        guard once("refused") else { return }
        logger.warning("TCP client refused: \(maxClients) are connected (tcp.max_clients); further ones are counted in tcp_clients_refused, not logged")
    }

    mutating func tooLong(_ client: TCPClient) {
        guard once("long") else { return }
        logger.warning("TCP client closed: a command line over \(TCPSettings.maxCommandBytes) bytes; further ones are counted in tcp_bad_commands, not logged",
                       metadata: ["client": "\(client.number)"])
    }

    mutating func acceptFailed(_ errno: Errno) {
        guard once("accept \(errno.rawValue)") else { return }
        logger.error("TCP result server cannot accept connections for now (accept4: \(errno.description), \(errno.symbol)): raise the open files limit (LimitNOFILE=); it tries again every 100 ms")
    }
}
