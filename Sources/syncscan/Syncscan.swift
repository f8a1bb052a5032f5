import ArgumentParser
import ConfigurationKeys
import Daemon
import Foundation
import JPEG
import Logging
import SystemCalls

/// `syncscan`: watch a camera, a Y4M pipe, a network stream or a file, and report every barcode with its frame.
@main
struct Syncscan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "syncscan",
        abstract: "Report every barcode a camera sees, each paired with the frame it was seen in.",
        version: versionText,
        subcommands: [Run.self, Devices.self, CheckConfig.self])

    /// Opens stdin, stdout or stderr on `/dev/null` if closed (`StandardDescriptors`) before
    /// anything else opens a descriptor, then parses and runs the command.
    static func main() async {
        StandardDescriptors.reserve()
        await main(nil)
    }

    /// syncscan's own version.
    static let syncscanVersion = "0.1.0"

    /// `syncscan --version`: syncscan's version, then one line per C library it runs with: its
    /// name, version and where the version comes from (the library's own call, or pkg-config at
    /// build time), each from its wrapper module; the components' (decoder libraries, handlers'
    /// libraries, inputs') through their descriptors (`Components.standard`).
    static var versionText: String {
        let components = Components.standard
        return (["syncscan \(syncscanVersion)"] + components.decoderVersionLines
                + ["TurboJPEG \(TurboJPEGLibrary.version) (\(TurboJPEGLibrary.versionOrigin))"]
                + components.handlerVersionLines + components.inputVersionLines)
            .joined(separator: "\n")
    }

    /// Sets up stderr logging at `level`, changeable later through `level`; stdout is reserved for results.
    static func bootstrapLogging(level: ReloadableLogLevel) -> Logger {
        LoggingSystem.bootstrap { label in
            // Each log line cut to `StandardError.maximumLineBytes`: a long value never makes a long line.
            LevelFollowingLogHandler(stream: StreamLogHandler(label: label, stream: StandardError.LogStream()), shared: level)
        }
        return Logger(label: "syncscan")
    }

    /// Writes one `syncscan: error: …` line on stderr, a configuration error's problems a line each,
    /// each escaped (`LogText`): a value it quotes cannot add a line.
    static func report(_ error: any Error) {
        let lines = (error as? ConfigurationError)?.problems.map { LogText.untrusted($0, limit: LogText.errorLimit) } ?? [LogText.error(error)]
        StandardError.writeLine("syncscan: error: " + lines.joined(separator: "\n"))
    }
}
