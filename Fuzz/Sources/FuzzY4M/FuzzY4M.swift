// libFuzzer: one byte stream → Y4MSource (header, then frames until the end or an error).
// Every outcome must be frames, drops, nil or a thrown error; never a trap or a sanitizer report.
import Foundation
import FuzzDriver
import Logging
import Media
import Y4M

nonisolated(unsafe) let path = NSTemporaryDirectory() + "fuzz-y4m-\(getpid()).y4m"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    guard FileManager.default.createFile(atPath: path, contents: bytes) else { fatalError("cannot write \(path)") }
    let source = Y4MSource(path: path, logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }))
    defer { source.stop() }
    do {
        try source.start()
        var events = 0
        while let event = try source.next() {
            if case .frame(let frame) = event {
                // Touch the pixels so ASan sees any short buffer.
                _ = frame.sequenceNumber
            }
            events += 1
            if events > 64 { break }
        }
    } catch {}
    return 0
}

/// The debug build's entry point: SwiftPM links debug executables with `main` renamed to
/// `FuzzY4M_main`, so libFuzzer's own `main` is not used there; this one starts its driver.
@_cdecl("FuzzY4M_main")
public func FuzzY4MMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzerDriver(argc, argv, fuzz)
}
