// libFuzzer: YAML bytes plus environment → SyncscanConfiguration.load. Input layout: the YAML
// text, then optionally a NUL and up to four NUL-separated "NAME=VALUE" chunks, each becoming
// the variable SYNCSCAN_NAME. Every outcome must be a configuration or a thrown
// ConfigurationError (load's documented contract); anything else, or a trap, is a finding.
import ConfigurationKeys
import Daemon
import Foundation
import FuzzDriver

let path = NSTemporaryDirectory() + "fuzz-config-\(getpid()).yaml"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let parts = bytes.split(separator: 0, maxSplits: 5, omittingEmptySubsequences: false)
    let yaml = parts.first.map(Array.init) ?? []
    var environment: [String: String] = [:]
    for chunk in parts.dropFirst().prefix(4) {
        let text = String(decoding: chunk, as: UTF8.self)
        guard let eq = text.firstIndex(of: "=") else { continue }
        environment["SYNCSCAN_" + text[..<eq].uppercased()] = String(text[text.index(after: eq)...])
    }
    guard FileManager.default.createFile(atPath: path, contents: Data(yaml)) else { fatalError("cannot write \(path)") }
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var unexpected: (any Error)?
    Task {
        do { _ = try await SyncscanConfiguration.load(file: path, environment: environment) } catch is ConfigurationError {
        } catch { unexpected = error }
        done.signal()
    }
    done.wait()
    if let unexpected { fatalError("load threw something other than ConfigurationError: \(unexpected)") }
    return 0
}

/// The debug build's entry point: SwiftPM links debug executables with `main` renamed to
/// `FuzzConfiguration_main`, so libFuzzer's own `main` is not used there; this one starts its driver.
@_cdecl("FuzzConfiguration_main")
public func FuzzConfigurationMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzerDriver(argc, argv, fuzz)
}
