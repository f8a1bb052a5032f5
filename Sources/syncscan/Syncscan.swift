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

    /// Sets up stderr logging at `level`, changeable later through `level`; stdout is reserved for results.
    static func bootstrapLogging(level: ReloadableLogLevel) -> Logger {
        LoggingSystem.bootstrap { label in
            LevelFollowingLogHandler(stream: StreamLogHandler.standardError(label: label), shared: level)
        }
        return Logger(label: "syncscan")
    }

    /// Writes one `syncscan: error: …` line on stderr.
    static func report(_ error: any Error) {
        StandardError.writeLine("syncscan: error: \(error)")
    }
}
