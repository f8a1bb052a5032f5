// libFuzzer: small arbitrary frames → MetadataOutput.Scanner (our zbar/zxing-cpp wrappers).
// Bytes 0…5 choose engine, pixel format, width and height (1…96), extra row padding and the
// rect of interest; the rest are the pixels (zero-filled to the frame size, truncated beyond).
import Capture
import Decoders
import FuzzDriver
import Media

let formats = PixelFormat.allCases
let rects: [NormalizedRect] = [.full, NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5),
                               NormalizedRect(x: 0.9, y: 0.9, width: 0.1, height: 0.1),
                               NormalizedRect(x: 0, y: 0, width: 1, height: 0.01)]
nonisolated(unsafe) let rectScanners: [[Capture.MetadataOutput.Scanner]] = rects.map { rect in
    DecoderEngine.allCases.map { engine in
        var settings = MetadataOutput.Settings(engine: engine, rectOfInterest: rect)
        // Every symbology but SQ code: libzbar 0.23.92's SQ decoder leaks its border points (up
        // to 144 bytes in 3 allocations) on some frames that hold no SQ code, in plain C as well
        // (zbar_scan_image on a 17x17 Y800 image with only ZBAR_SQCODE enabled; upstream zbar
        // pull request 294, not merged). LeakSanitizer would stop every run on zbar's leak and
        // hide ours; the README says to enable sqcode only where SQ codes are read.
        settings.scanner.symbologies = Set(engine.readable).subtracting([.sqcode])
        return MetadataOutput(settings: settings).makeScanner()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 6 else { return 0 }
    let engine = Int(data[0]) % DecoderEngine.allCases.count
    let format = formats[Int(data[1]) % formats.count]
    let width = 1 + Int(data[2]) % 96, height = 1 + Int(data[3]) % 96
    let bytesPerLine = format.minimumBytesPerLine(width: width) + Int(data[4]) % 8
    let rect = Int(data[5]) % rects.count
    let count = format.frameSize(width: width, height: height, bytesPerLine: bytesPerLine)
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
    storage.initializeMemory(as: UInt8.self, repeating: 0)
    let pixels = min(count, size - 6)
    if pixels > 0 { storage.copyMemory(from: UnsafeRawBufferPointer(start: data + 6, count: pixels)) }
    let frame = VideoFrame(sequenceNumber: 1, presentationTime: .zero, width: width, height: height,
                           bytesPerLine: bytesPerLine, format: format,
                           buffer: PixelBuffer(bytes: UnsafeRawBufferPointer(storage), release: { storage.deallocate() }))
    for code in rectScanners[rect][engine].scan(frame) {
        precondition(code.frame.width == width && code.frame.height == height, "code frame geometry")
    }
    return 0
}

/// The debug build's entry point: SwiftPM links debug executables with `main` renamed to
/// `FuzzDecoders_main`, so libFuzzer's own `main` is not used there; this one starts its driver.
@_cdecl("FuzzDecoders_main")
public func FuzzDecodersMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzerDriver(argc, argv, fuzz)
}
