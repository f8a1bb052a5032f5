import ArgumentParser
import Configuration
import ConfigurationKeys
import Daemon
import SystemCalls
import Foundation
import Logging
import SystemCalls

extension Syncscan {
    /// `syncscan run`: scan a source and write JSON lines until it ends or a signal stops it.
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scan a source and write one JSON line per code on stdout.",
            discussion: """
                Settings come from, highest first: these flags, SYNCSCAN_* environment variables, \
                the --config file (or $SYNCSCAN_CONFIG), built-in defaults. SIGHUP reloads the file; \
                SIGTERM and SIGINT stop after the frames in flight.
                """)

        @Option(help: "YAML configuration file (default: $SYNCSCAN_CONFIG, else none).")
        var config: String?

        @Option(help: ArgumentHelp("The input: \(Components.standard.sourceForms). [default: /dev/video0]"))
        var source: String?

        @Option(help: "Comma-separated symbology names (qrcode, ean13, code128, aztec, datamatrix, …) or 'all' the engine reads. [default: qrcode]")
        var symbologies: String?

        @Option(help: "Report a payload again only after this many seconds of frame time without it, instead of each physical code once as an item; 0 reports every reading. [default: items]")
        var duplicateWindow: Double?

        @Option(help: "Seconds of frame time an item unseen stays in view before it is removed. [default: 1]")
        var itemGrace: Double?

        @Option(help: "At most this many item_updated lines a second per item (its place, for consumers that draw); 0: none. [default: 0]")
        var itemUpdates: Double?

        @Flag(inversion: .prefixedNo, help: "Drop frames that arrive while the scanner is busy. [default: on for cameras and pipes, off for files]")
        var discardLate: Bool?

        @Option(help: "Threads scanning in parallel: a number, or 'auto' for one per processor this process may use, at most 8. [default: auto]")
        var scanningThreads: String?

        @Option(help: "Decoder: zbar, zxing (zxing-cpp), or hybrid (both: reads what either reads). [default: zxing]")
        var engine: String?

        @Option(help: "Decoder passes per frame: fast (the cheapest), auto (every pass on a file; harder passes on a live source only where a code went unread, within the frame's time), max (every pass). [default: auto]")
        var effort: String?

        @Option(help: "Comma-separated decoder passes to keep of the engine's (zxing-fast, zbar, zxing-full, zxing-histogram, zxing-upscale, zbar-upscale), for benchmarks. [default: all]")
        var passes: String?

        @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical. [default: info]")
        var logLevel: String?

        @Option(help: "Camera pixel format to ask for (GREY, YUYV, UYVY, NV12, YU12, MJPG, …); narrows the mode chosen by frame rate. [default: the fastest, ties to GREY, YUV, then MJPG]")
        var fourcc: String?

        @Option(help: "Camera frame width to ask for. [default: the largest within the maximum]")
        var width: Int?

        @Option(help: "Camera frame height to ask for. [default: the largest within the maximum]")
        var height: Int?

        @Option(help: "Highest camera frame rate wanted: the mode and interval with the highest rate not above it are chosen and set. [default: 30]")
        var fps: Double?

        @Option(help: "Frame-rate floor: when the largest size is slower, a smaller size at a higher rate is chosen; 0: none. [default: 10]")
        var minFps: Double?

        @Option(help: "Largest camera frame width chosen when none is asked for. [default: 1280]")
        var maxWidth: Int?

        @Option(help: "Largest camera frame height chosen when none is asked for. [default: 720]")
        var maxHeight: Int?

        @Option(help: "mmap buffers to request from the camera driver. [default: 4]")
        var buffers: Int?

        @Option(help: "Save the frame each code was seen in as a JPEG in this directory; the code's line names the file. [default: none]")
        var snapshotDir: String?

        @Option(help: "Snapshots kept in the directory (oldest deleted first; 0: no limit). [default: 10000]")
        var snapshotMaxFiles: Int?

        @Option(help: "Write Prometheus metrics to this node_exporter textfile (*.prom), replaced atomically every stats interval and at exit. [default: none]")
        var metricsFile: String?

        @Option(help: "Also publish every code, the status and the counters to this MQTT broker: mqtt://HOST:PORT, or mqtts://HOST:PORT with mqtt.ca_file. [default: none]")
        var mqttUrl: String?

        @Option(help: "MQTT topics under this prefix: PREFIX/codes, PREFIX/status, PREFIX/stats. [default: syncscan/<hostname>/<source name>]")
        var mqttTopicPrefix: String?

        @Option(help: "Also POST every code as JSON to this http:// or https:// URL (repeat for more; retried, spooled; see webhook.*). [default: none]")
        var webhookUrl: [String] = []

        @Option(help: "Serve the live view over HTTP on this ADDRESS:PORT (a loopback address unless http.allow_remote and http.password_file). [default: none]")
        var http: String?

        @Flag(help: "Also write one {\"type\":\"frame\"} record per frame: scanned or dropped, and why.")
        var emitFrames = false

        @Option(help: "Stop after this many frames (scanned or dropped).")
        var maxFrames: Int?

        func validate() throws {
            if let maxFrames, maxFrames < 1 { throw ValidationError("--max-frames must be at least 1") }
        }

        /// The flags the user gave, as typed values of configuration keys (they override file and environment).
        var overrides: [String: ConfigValue] {
            var o: [String: ConfigContent?] = [
                "source": source.map(ConfigContent.string),
                "symbologies": symbologies.map(ConfigContent.string),
                "always_discard_late_video_frames": discardLate.map(ConfigContent.bool),
                "scanning_threads": scanningThreads.map(ConfigContent.string),
                "engine": engine.map(ConfigContent.string),
                "effort": effort.map(ConfigContent.string),
                "passes": passes.map(ConfigContent.string),
                "log_level": logLevel.map(ConfigContent.string),
                "device.fourcc": fourcc.map(ConfigContent.string),
                "device.width": width.map(ConfigContent.int),
                "device.height": height.map(ConfigContent.int),
                "device.fps": fps.map(ConfigContent.double),
                "device.min_fps": minFps.map(ConfigContent.double),
                "device.max_width": maxWidth.map(ConfigContent.int),
                "device.max_height": maxHeight.map(ConfigContent.int),
                "device.buffers": buffers.map(ConfigContent.int),
                "snapshots.directory": snapshotDir.map(ConfigContent.string),
                "snapshots.max_files": snapshotMaxFiles.map(ConfigContent.int),
                "metrics.textfile": metricsFile.map(ConfigContent.string),
                "mqtt.url": mqttUrl.map(ConfigContent.string),
                "mqtt.topic_prefix": mqttTopicPrefix.map(ConfigContent.string),
                "http.listen": http.map(ConfigContent.string),
                "webhook.url": webhookUrl.isEmpty ? nil : .string(webhookUrl.joined(separator: ",")),
            ]
            if let duplicateWindow {
                o["duplicate_suppression.mode"] = .string(duplicateWindow > 0 ? "window" : "off")
                if duplicateWindow > 0 { o["duplicate_suppression.window_seconds"] = .double(duplicateWindow) }
            }
            if let itemGrace { o["duplicate_suppression.item_grace_seconds"] = .double(itemGrace) }
            if let itemUpdates { o["duplicate_suppression.item_updates_per_second"] = .double(itemUpdates) }
            // A webhook URL may hold a password (user:password@): secret, like the token file's contents.
            return o.compactMapValues { $0 }.reduce(into: [:]) { $0[$1.key] = ConfigValue($1.value, isSecret: $1.key == "webhook.url") }
        }

        func run() async throws {
            for warning in CommandLineSecrets.warnings(source: source, mqttURL: mqttUrl, webhookURLs: webhookUrl) {
                StandardError.writeLine("syncscan: warning: \(LogText.untrusted(warning, limit: LogText.errorLimit))")
            }
            let environment = ProcessInfo.processInfo.environment
            let file = config ?? environment["SYNCSCAN_CONFIG"]
            let overrides = self.overrides
            let configuration: SyncscanConfiguration
            do {
                configuration = try await SyncscanConfiguration.load(file: file, environment: environment, overrides: overrides)
            } catch let error as ConfigurationError {
                Syncscan.report(error)
                throw ExitCode(error.exitCode)
            }
            try StandardDescriptors.refuseClosedStdout(writesCodes: configuration.output.stdout)
            let logLevel = ReloadableLogLevel(configuration.logLevel)
            let logger = Syncscan.bootstrapLogging(level: logLevel)
            let (emitFrames, maxFrames) = (self.emitFrames, self.maxFrames)
            let options = PipelineOptions(configuration, emitFrames: emitFrames, frameLimit: maxFrames, softwareVersion: Syncscan.syncscanVersion)
            let notifier = SystemdNotifier(environment: environment, logger: logger)
            do {
                try await Daemon.run(options: options, logger: logger, events: SystemdServiceEvents(notifier: notifier),
                                     sockets: SocketActivation(environment: environment)) {
                    let reloaded = try await SyncscanConfiguration.load(file: file, environment: environment, overrides: overrides)
                    logLevel.current = reloaded.logLevel
                    return PipelineOptions(reloaded, emitFrames: emitFrames, frameLimit: maxFrames, softwareVersion: Syncscan.syncscanVersion)
                }
            } catch {
                Syncscan.report(error)
                // A run that failed (a forced stop among them) may leave a scanning thread inside a
                // decoder: exit(3) would run the C++ libraries' static destructors under it (zxing-cpp's
                // Reed-Solomon tables, a SIGSEGV seen). Every line and the summary went out through
                // write(2) already, so the process ends at once.
                _exit(1)
            }
        }
    }

    /// `syncscan check-config FILE`: validate a configuration file without running.
    struct CheckConfig: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-config",
            abstract: "Validate a configuration file; exit 0 when it is usable, 2 with every problem named when not.")

        @Argument(help: "The YAML configuration file.")
        var file: String

        func run() async throws {
            // Not the daemon: a signal takes its default action (the executable's start-up trapped them).
            ProcessSignals.restoreDefaults()
            switch await SyncscanConfiguration.checkConfig(path: file) {
            case .success(let c):
                print("\(file): OK (source \(InputRegistry.shown(c.source))\(InputRegistry.isLive(c.source) == true ? ", live" : ""), engine \(c.engine), effort \(c.effort), symbologies \(c.scanner.symbologies.map(\.rawValue).sorted().joined(separator: ",")), scanning threads \(c.scanningThreads))")
            case .failure(let error):
                Syncscan.report(error)
                throw ExitCode(error.exitCode)
            }
        }
    }
}
