import ArgumentParser
import Capture
import Daemon
import Foundation
import Logging
import ZBar

/// `syncscan`: watch a camera (or a Y4M stream) and print every barcode with its frame.
@main
struct Syncscan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "syncscan",
        abstract: "Report every barcode a camera sees, each paired with the frame it was seen in.",
        version: "0.1.0",
        subcommands: [Run.self],
        defaultSubcommand: nil)
}

extension Syncscan {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scan a source and write one JSON line per code on stdout.")

        @Option(help: "y4m:PATH, y4m:- (stdin), a .y4m file, /dev/videoN or v4l2:/dev/videoN.")
        var source: String = "/dev/video0"

        @Option(help: "Comma-separated zbar symbology names (qrcode, ean13, code128, …) or 'all'.")
        var symbologies: String = "qrcode"

        @Option(help: "Frame-time window in seconds within which a code seen again is not reported again; 0 reports every sighting.")
        var duplicateWindow: Double = 1.0

        @Flag(inversion: .prefixedNo, help: "Drop frames that arrive while the scanner is busy (default: on for cameras and pipes, off for files).")
        var discardLate: Bool?

        @Option(help: "Threads scanning with zbar in parallel.")
        var scanningThreads: Int = 1

        @Flag(help: "Also write one {\"type\":\"frame\"} record per frame: scanned or dropped, and why.")
        var emitFrames = false

        @Option(help: "Stop after this many frames (scanned or dropped).")
        var maxFrames: Int?

        @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
        var logLevel: Logger.Level = .info

        func validate() throws {
            _ = try Self.parseSymbologies(symbologies)
            guard scanningThreads >= 1 else { throw ValidationError("--scanning-threads must be at least 1") }
            guard duplicateWindow >= 0 else { throw ValidationError("--duplicate-window must not be negative") }
            if let maxFrames, maxFrames < 1 { throw ValidationError("--max-frames must be at least 1") }
        }

        static func parseSymbologies(_ list: String) throws -> Set<Symbology> {
            if list.lowercased() == "all" { return Set(Symbology.allCases) }
            var result = Set<Symbology>()
            for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
                guard let s = Symbology(configName: name) else {
                    throw ValidationError("unknown symbology \"\(name)\" (known: \(Symbology.allCases.map(\.rawValue).joined(separator: ", ")), or all)")
                }
                result.insert(s)
            }
            guard !result.isEmpty else { throw ValidationError("--symbologies needs at least one name") }
            return result
        }

        func run() async throws {
            let logger = Syncscan.bootstrapLogging(level: logLevel)
            var options = PipelineOptions(source: source)
            options.metadata.scanner.symbologies = try Self.parseSymbologies(symbologies)
            options.duplicateWindow = duplicateWindow
            options.video.alwaysDiscardsLateVideoFrames = discardLate
            options.scanningThreads = scanningThreads
            options.emitFrames = emitFrames
            options.frameLimit = maxFrames
            try await Syncscan.runDaemon(options: options, logger: logger)
        }
    }

    static func bootstrapLogging(level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "syncscan")
    }

    /// Runs the daemon; a failure becomes one clear line on stderr and exit status 1.
    static func runDaemon(options: PipelineOptions, logger: Logger) async throws {
        do {
            try await Daemon.run(options: options, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("syncscan: error: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
