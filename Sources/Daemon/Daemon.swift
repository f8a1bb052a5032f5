import Foundation
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
    /// - Throws: what stopped the run abnormally (source, device or output failure).
    public static func run(options: PipelineOptions, logger: Logger, events: any ServiceEvents = NoServiceEvents(),
                           reload: (@Sendable () async throws -> PipelineOptions)? = nil) async throws {
        // A closed stdout must surface as EPIPE from write(2), not kill the process.
        signal(SIGPIPE, SIG_IGN)
        let live = options.configuration.alwaysDiscardLateVideoFrames ?? isLive(options.source)
        let writer = LineWriter(fileDescriptor: .standardOutput, name: "stdout",
                                capacity: options.configuration.output.queueLines, overflow: live ? .drop : .wait)
        let scan = ScanService(options: options, writer: writer, logger: logger, events: events) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: scan, successTerminationBehavior: .gracefullyShutdownGroup,
                  failureTerminationBehavior: .gracefullyShutdownGroup),
        ]
        if let reload {
            services.append(.init(service: ReloadOnHangup(scan: scan, reload: reload, logger: logger),
                                  successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore))
        }
        let group = ServiceGroup(configuration: .init(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// Whether lines may be dropped for a slow reader: only when frames are live anyway.
    static func isLive(_ uri: String) -> Bool {
        switch try? SourceFactory.kind(of: uri) {
        case .v4l2: return true
        case .y4m(let path):
            var st = stat()
            return path == "-" || stat(path, &st) != 0 || (st.st_mode & S_IFMT) != S_IFREG
        case nil: return false
        }
    }
}

/// Reloads the configuration on SIGHUP; a broken file keeps the running configuration.
struct ReloadOnHangup: Service {
    let scan: ScanService
    let reload: @Sendable () async throws -> PipelineOptions
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            do {
                let options = try await reload()
                scan.reload(options)
            } catch {
                logger.error("configuration reload failed; keeping the running configuration", metadata: ["error": "\(error)"])
            }
        }
    }
}
