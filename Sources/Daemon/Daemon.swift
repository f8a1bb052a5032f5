import Foundation
import Logging
import Results
import ServiceLifecycle
import SystemCalls
import SystemPackage
import SystemCalls
import UnixSignals

/// Runs the pipeline as a service group: SIGTERM/SIGINT shut it down gracefully (a second one
/// forces the stop), SIGHUP reloads, SIGUSR1 presses the trigger (`TriggerDescriptor.signal`).
public enum Daemon {
    /// Runs until the source ends or a shutdown signal arrives.
    /// - Parameters:
    ///   - events: lifecycle notifications (systemd notify), if supervised.
    ///   - reload: re-reads the configuration on SIGHUP; an error keeps the running configuration.
    ///   - sockets: listening sockets systemd passed; the live view serves `liveViewSocket` instead of binding.
    /// - Throws: what stopped the run abnormally (source, device or output failure).
    public static func run(options: PipelineOptions, logger: Logger, events: any ServiceEvents = NoServiceEvents(),
                           sockets: SocketActivation = SocketActivation(environment: [:]),
                           reload: (@Sendable () async throws -> PipelineOptions)? = nil) async throws {
        // A closed stdout must surface as EPIPE from write(2), not kill the process.
        signal(SIGPIPE, SIG_IGN)
        // SIGTERM, SIGINT, SIGHUP and SIGUSR1 are counted from the executable's first code on
        // (`ProcessSignals`); trapped here too for a program without that start-up (a test).
        try? ProcessSignals.trap()
        // The scan service switches a live source's output to dropping once the source is open.
        let writer = LineWriter(fileDescriptor: .standardOutput, name: "stdout",
                                capacity: options.configuration.output.queueLines, overflow: .wait)
        let scan = ScanService(options: options, writer: writer, logger: logger, events: events) { line in
            StandardError.writeLine(line)
        }
        // The services the handlers' and triggers' descriptors run beside the scan (the live view's HTTP server, SIGUSR1's listener).
        let context = ComponentServiceContext(scan: scan, sockets: sockets, logger: logger)
        let services = scan.configuredHandlers.services(options.configuration, context: context)
        var between: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let reload {
            between.append(.init(service: ReloadOnHangup(scan: scan, services: services, reload: reload, logger: logger),
                                 successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore))
        }
        for component in services {
            between.append(.init(service: component.service, successTerminationBehavior: .ignore,
                                 failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        let forced = ForcedStop()
        let group = serviceGroup(scan: scan, between: between, forcedStop: forced, logger: logger)
        do {
            try await runUntilForced(group, stop: StopSignals(group: group, forced: forced, writer: writer, logger: logger))
        } catch let error as ServiceGroupError {
            throw DaemonError.servicesEndedOutOfOrder(detail: "\(error)")
        }
        // A group that returned after a forced stop or past its limit may have dropped stdout's error.
        if let failure = scan.shutdownProgress.stdoutFailure { throw failure }
    }

    /// Runs `group` beside `stop`'s listener: when the listener returns (a second signal), the
    /// group is cancelled and its end (the results handlers' `ShutdownTimeoutError`) awaited;
    /// when the group ends first, the listener is cancelled.
    private static func runUntilForced(_ group: ServiceGroup, stop: StopSignals) async throws {
        enum Ended { case run, forced }
        let signals = StopSignals.trap()
        try await withThrowingTaskGroup(of: Ended.self) { tasks in
            tasks.addTask { try await group.run(); return .run }
            tasks.addTask { await stop.run(signals); return .forced }
            // A throw of the group's run leaves the listener to the task group, which cancels it.
            let first = try await tasks.next()
            tasks.cancelAll()
            if first == .forced { _ = try await tasks.next() }
        }
    }
}

extension Daemon {
    /// The daemon's service group: the scan's outputs first (stdout's service, then one service
    /// for each results handler with threads, `ScanService.makeOutputServices`), then `between`
    /// (the reload listener, the live view's server), then the parts that report on the scan
    /// (`reporters`), the scan last; `signals` shut it down gracefully, within
    /// `shutdown_timeout_seconds` when set. (The daemon gives none: `StopSignals` traps SIGTERM and
    /// SIGINT and triggers the shutdown, so that it also sees a second one; `forcedStop` tells
    /// stdout's service which one forced the stop.)
    ///
    /// A graceful shutdown (a signal, or the scan ending by itself) reaches the services in reverse
    /// order, each once the one before has returned: the scan is told first, its reporters stop
    /// once it has returned, the results handlers flush once every code has reached them, one
    /// after another in delivery order, and stdout's lines last. In the other order the scan could
    /// end on its own (end of input at the moment of the signal) while the group waited for the
    /// listener, and the group took that for a failure: exit 1 on an ordinary stop. Past the limit
    /// the group cancels every service: the handlers' services give up their flushes and stdout's
    /// throws `ShutdownTimeoutError`, naming the stage the shutdown was in.
    static func serviceGroup(scan: ScanService, between: [ServiceGroupConfiguration.ServiceConfiguration] = [],
                             signals: [UnixSignal] = [], forcedStop: ForcedStop? = nil, logger: Logger) -> ServiceGroup {
        let textfile = MetricsTextfilePublisher(scan: scan, writer: scan.textfileWriter)
        let outputs = scan.makeOutputServices(forcedStop: forcedStop) { final in await textfile.finish(final) }
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = outputs.map {
            .init(service: $0, successTerminationBehavior: .ignore, failureTerminationBehavior: .gracefullyShutdownGroup)
        } + between + reporters(scan: scan, textfile: textfile, logger: logger).map {
            .init(service: $0, successTerminationBehavior: .ignore, failureTerminationBehavior: .gracefullyShutdownGroup)
        } + [
            .init(service: scan, successTerminationBehavior: .gracefullyShutdownGroup,
                  failureTerminationBehavior: .gracefullyShutdownGroup),
        ]
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: signals, logger: logger)
        let limit = scan.shutdownTimeoutSeconds
        if limit > 0 { configuration.maximumGracefulShutdownDuration = .milliseconds(Int64((limit * 1000).rounded())) }
        return ServiceGroup(configuration: configuration)
    }

    /// The parts that report on `scan` while it runs, each a service reading it through
    /// `ScanReadings`: the stats line, STATUS=, `metrics.textfile`, the stuck-scan watch.
    static func reporters(scan: ScanService, textfile: MetricsTextfilePublisher, logger: Logger) -> [any Service] {
        [
            StatsLineReporter(scan: scan, handlers: scan.hooked.map(\.handler), logger: logger),
            StatusReporter(scan: scan, events: scan.events),
            textfile,
            StuckScanWatch(scan: scan, stuckScans: scan.stuckScans, events: scan.events, logger: scan.logger,
                           endRun: { [scan] in scan.endRun($0) }),
        ]
    }
}

/// A failure of the daemon's own structure, not of its source or outputs.
public enum DaemonError: Error, CustomStringConvertible {
    /// The service group ended in a way it should not (a service returned while another was
    /// being stopped); what was captured has been written.
    case servicesEndedOutOfOrder(detail: String)

    public var description: String {
        switch self {
        case .servicesEndedOutOfOrder(let detail):
            "the daemon's services ended out of order (\(detail)); everything captured was written. This is a bug in syncscan: please report it with this line"
        }
    }
}

/// Lines to stderr with write(2): unlike `FileHandle.write`, a closed stderr does not trap.
///
/// No line written is longer than `maximumLineBytes` (`bounded(_:)`): a value of megabytes in an
/// error or a log line is cut, never written whole.
public enum StandardError {
    /// The longest line written to stderr, its newline included.
    public static let maximumLineBytes = 4096

    /// Writes `text` and a newline (each of its lines cut to `maximumLineBytes`).
    public static func writeLine(_ text: String) {
        write(bounded(text + "\n"))
    }

    /// Writes `text` as it is with one `write(2)` (retried on a short write).
    public static func write(_ text: String) {
        var text = text
        _ = try? text.withUTF8 { try FileDescriptor.standardError.writeAll($0) }
    }

    /// `text` with each of its lines cut to `maximumLineBytes` (newline included): a cut line
    /// keeps its beginning, at a character's boundary, and ends with `… [N bytes cut]`.
    public static func bounded(_ text: String) -> String {
        guard text.utf8.count > maximumLineBytes - 1 else { return text }
        // Most texts have no line to cut: one pass over the bytes says so, before any line is copied.
        var (longest, current) = (0, 0)
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\n") { (longest, current) = (max(longest, current), 0) } else { current += 1 }
        }
        guard max(longest, current) > maximumLineBytes - 1 else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(boundedLine).joined(separator: "\n")
    }

    /// One line (without its newline) cut so that it and a newline fit in `maximumLineBytes`.
    private static func boundedLine(_ part: Substring) -> String {
        let line = String(part), length = line.utf8.count
        guard length > maximumLineBytes - 1 else { return line }
        // The marker's own length is at most this: "… [" + up to 20 digits + " bytes cut]".
        var end = line.utf8.index(line.utf8.startIndex, offsetBy: maximumLineBytes - 1 - 40)
        while end.samePosition(in: line.unicodeScalars) == nil { end = line.utf8.index(before: end) }
        let kept = line[..<end]
        return kept + "… [\(length - kept.utf8.count) bytes cut]"
    }

    /// stderr as swift-log's `StreamLogHandler` writes to it: each line cut by `bounded(_:)`.
    public struct LogStream: TextOutputStream, Sendable {
        private let output: @Sendable (String) -> Void

        /// - Parameter output: where the cut text goes: stderr (a test passes its own).
        public init(output: @escaping @Sendable (String) -> Void = StandardError.write) { self.output = output }

        public mutating func write(_ string: String) { output(StandardError.bounded(string)) }
    }
}

/// Reloads the configuration on SIGHUP; a broken file keeps the running configuration.
struct ReloadOnHangup: Service {
    let scan: ScanService
    /// The components' services made at start (the live view's server: `http.*` apply to it).
    let services: [ComponentService]
    let reload: @Sendable () async throws -> PipelineOptions
    let logger: Logger

    func run() async throws {
        // SIGHUPs that came while the daemon started are one reload now; a batch is one reload.
        for await _ in ProcessSignals.shared.arrivals(of: [.hangUp]).cancelOnGracefulShutdown() { await reloadOnce() }
    }

    /// One SIGHUP's reload: the configuration read again (files it names, `match.list`, too) and
    /// applied; when it cannot be read the running one is kept, and the error logged.
    func reloadOnce() async {
        do {
            let options = try await reload()
            scan.reload(options)
            for component in services { component.reload(options.configuration) }
        } catch {
            logger.error("configuration reload failed; keeping the running configuration", metadata: ["error": "\(LogText.error(error))"])
        }
    }
}
