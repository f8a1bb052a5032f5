import ArgumentParser
import Foundation
import Daemon
import V4L2

extension Syncscan {
    /// `syncscan devices`: the capture devices, their formats, sizes and frame rates.
    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List V4L2 capture devices with their formats, sizes, frame rates and controls.")

        @Flag(help: "Print a JSON array instead of text.")
        var json = false

        func run() throws {
            let devices = listCaptureDevices()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(devices), as: UTF8.self))
            } else if devices.isEmpty {
                StandardError.writeLine("syncscan: no V4L2 capture devices found under /dev")
            } else {
                print(renderDeviceList(devices), terminator: "")
            }
        }
    }
}
