import Foundation
import LiveView
import Logging
import Results
import ServiceLifecycle
import SystemPackage
import UnixSignals

/// Runs the pipeline as a service group: SIGTERM/SIGINT shut it down gracefully, SIGHUP reloads.
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
        // The scan service switches a live source's output to dropping once the source is open.
        let writer = LineWriter(fileDescriptor: .standardOutput, name: "stdout",
                                capacity: options.configuration.output.queueLines, overflow: .wait)
        let scan = ScanService(options: options, writer: writer, logger: logger, events: events) { line in
            StandardError.writeLine(line)
        }
        // The live view: its handler is one of the scan's results handlers, its server a service.
        var liveViewService: LiveViewHTTPService?
        if let http = options.configuration.http,
           let liveView = scan.configuredHandlers.liveView {
            liveViewService = LiveViewHTTPService(settings: http, liveView: liveView, scan: scan, logger: logger,
                                                  inheritedSocket: sockets.liveViewSocket)
        }
        var between: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let reload {
            between.append(.init(service: ReloadOnHangup(scan: scan, liveView: liveViewService, reload: reload, logger: logger),
                                 successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore))
        }
        if let liveViewService {
            between.append(.init(service: liveViewService, successTerminationBehavior: .ignore,
                                 failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        let group = serviceGroup(scan: scan, between: between, signals: [.sigterm, .sigint], logger: logger)
        do {
            try await group.run()
        } catch let error as ServiceGroupError {
            throw DaemonError.servicesEndedOutOfOrder(detail: "\(error)")
        }
    }
}

extension Daemon {
    /// The daemon's service group: the scan's results handlers first, then `between` (the reload
    /// listener, the live view's server), the scan last; `signals` shut it down gracefully, within
    /// `shutdown_timeout_seconds` when set.
    ///
    /// A graceful shutdown (a signal, or the scan ending by itself) reaches the services in reverse
    /// order, each once the one before has returned: the scan is told first, and the results
    /// handlers flush last, once every code has reached them. In the other order the scan could end
    /// on its own (end of input at the moment of the signal) while the group waited for the
    /// listener, and the group took that for a failure: exit 1 on an ordinary stop. Past the limit
    /// the group cancels every service: the results handlers' service then gives up its flush and
    /// throws `ShutdownTimeoutError`.
    static func serviceGroup(scan: ScanService, between: [ServiceGroupConfiguration.ServiceConfiguration] = [],
                             signals: [UnixSignal] = [], logger: Logger) -> ServiceGroup {
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: scan.makeResultsHandlersService(), successTerminationBehavior: .ignore,
                  failureTerminationBehavior: .gracefullyShutdownGroup),
        ] + between + [
            .init(service: scan, successTerminationBehavior: .gracefullyShutdownGroup,
                  failureTerminationBehavior: .gracefullyShutdownGroup),
        ]
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: signals, logger: logger)
        let limit = scan.shutdownTimeoutSeconds
        if limit > 0 { configuration.maximumGracefulShutdownDuration = .milliseconds(Int64((limit * 1000).rounded())) }
        return ServiceGroup(configuration: configuration)
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
public enum StandardError {
    public static func writeLine(_ line: String) {
        _ = try? (line + "\n").utf8.withContiguousStorageIfAvailable { try FileDescriptor.standardError.writeAll($0) }
    }
}

/// Reloads the configuration on SIGHUP; a broken file keeps the running configuration.
struct ReloadOnHangup: Service {
    let scan: ScanService
    /// The live view's server, when `http.listen` was set at start (`http.*` apply to it).
    let liveView: LiveViewHTTPService?
    let reload: @Sendable () async throws -> PipelineOptions
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            do {
                let options = try await reload()
                scan.reload(options)
                liveView?.reload(options.configuration.http)
            } catch {
                logger.error("configuration reload failed; keeping the running configuration", metadata: ["error": "\(error)"])
            }
        }
    }
}
