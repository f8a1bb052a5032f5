import ArgumentParser
import ConfigurationKeys
import Foundation
import Daemon
import Results
import SystemCalls
import V4L2

extension Syncscan {
    /// `syncscan devices`: the capture devices, their formats, sizes and frame rates, and the mode
    /// `run` would choose for each with the current configuration.
    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List V4L2 capture devices with their formats, sizes, frame rates and controls, and the mode run would choose.",
            discussion: """
                The mode run would choose follows the device.* settings of the --config file (or $SYNCSCAN_CONFIG) \
                and SYNCSCAN_DEVICE_* variables, as run reads them.
                """)

        @Flag(help: "Print a JSON array instead of text.")
        var json = false

        @Option(help: "YAML configuration file whose device.* settings the choice follows (default: $SYNCSCAN_CONFIG, else none).")
        var config: String?

        func run() async throws {
            // Not the daemon: a signal takes its default action (the executable's start-up trapped them).
            ProcessSignals.restoreDefaults()
            let environment = ProcessInfo.processInfo.environment
            let settings: SyncscanConfiguration
            do {
                settings = try await SyncscanConfiguration.load(file: config ?? environment["SYNCSCAN_CONFIG"], environment: environment)
            } catch let error as ConfigurationError {
                Syncscan.report(error)
                throw ExitCode(error.exitCode)
            }
            let devices = listCaptureDevices(configuration: settings.device)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                // JSONEncoder leaves DEL, C1 controls, U+2028 and U+2029 raw: escaped as the JSON lines escape them.
                print(String(decoding: JSONBuffer.escapingRawControls(in: Array(try encoder.encode(devices))), as: UTF8.self))
            } else if devices.isEmpty {
                StandardError.writeLine("syncscan: no V4L2 capture devices found under /dev")
            } else {
                print(renderDeviceList(devices), terminator: "")
            }
        }
    }
}
