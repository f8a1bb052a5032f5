// libFuzzer: one byte stream → Y4MSource (header, then frames until the end or an error).
// Every outcome must be frames, drops, nil or a thrown error; never a trap or a sanitizer report.
import Foundation
import FuzzDriver
import Logging
import Media
import Y4M

let path = NSTemporaryDirectory() + "fuzz-y4m-\(getpid()).y4m"

/// Summed pixel bytes: keeps the reads of frame buffers from being optimised away.
nonisolated(unsafe) var checksum: UInt8 = 0

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
                // The buffer must hold the whole frame its geometry promises; read its last byte
                // so ASan sees a short one.
                let needed = frame.format.frameSize(width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine)
                precondition(frame.buffer.count >= needed, "frame buffer \(frame.buffer.count) < \(needed) bytes")
                frame.buffer.withUnsafeBytes { bytes in
                    if let last = bytes.last { checksum &+= last }
                }
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
