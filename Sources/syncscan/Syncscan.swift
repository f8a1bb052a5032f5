import ArgumentParser
import Daemon
import Foundation
import Logging

/// `syncscan`: watch a camera (or a Y4M stream) and print every barcode with its frame.
@main
struct Syncscan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "syncscan",
        abstract: "Report every barcode a camera sees, each paired with the frame it was seen in.",
        version: "0.1.0",
        subcommands: [Run.self, Devices.self, CheckConfig.self])

    /// Sets up stderr logging at `level`; stdout is reserved for results.
    static func bootstrapLogging(level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "syncscan")
        logger.logLevel = level
        return logger
    }

    /// Writes one `syncscan: error: …` line on stderr.
    static func report(_ error: any Error) {
        StandardError.writeLine("syncscan: error: \(error)")
    }
}
