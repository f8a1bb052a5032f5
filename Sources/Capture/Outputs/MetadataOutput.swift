import Foundation
import Media
import SystemCalls
import ZBar
import ZXing

/// A rectangle in normalized frame coordinates (0–1, origin top-left), like AVFoundation's
/// `rectOfInterest`.
public struct NormalizedRect: Sendable, Hashable, Codable {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public static let full = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

    /// The rectangle at `x`,`y` of the given size inside the unit square, a missing side reaching
    /// the far edge; or, per wrong side (`x`, `y`, `width`, `height`), what is wrong with it.
    public static func fitting(x: Double, y: Double, width: Double?, height: Double?)
        -> (rect: NormalizedRect?, problems: [(side: String, message: String)]) {
        var problems: [(side: String, message: String)] = []
        for (origin, size, name, axis, edge) in [(x, width, "width", "x", "right"), (y, height, "height", "y", "bottom")] {
            let extent = size ?? 1 - origin
            if extent <= 0 { problems.append((axis, "leaves no \(name): \(axis) must be less than 1")) }
            if origin + extent > 1 + 1e-9 {
                let sum = DecimalText.string(origin + extent, fractionDigits: 6)
                problems.append((size != nil ? name : axis, "\(axis) + \(name) = \(sum) goes past the \(edge) edge (must be at most 1)"))
            }
        }
        guard problems.isEmpty else { return (nil, problems) }
        let (w, h) = (width ?? 1 - x, height ?? 1 - y)
        return (NormalizedRect(x: x, y: y, width: min(w, 1 - x), height: min(h, 1 - y)), [])
    }

    /// The pixel rectangle this covers in a `width`×`height` frame.
    public func pixels(width: Int, height: Int) -> PixelRect {
        let x0 = Int((x * Double(width)).rounded(.down)), y0 = Int((y * Double(height)).rounded(.down))
        let x1 = Int(((x + self.width) * Double(width)).rounded(.up)), y1 = Int(((y + self.height) * Double(height)).rounded(.up))
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// Scans frames with zbar, zxing-cpp or both and emits machine-readable code objects stamped
/// with their frame (AVFoundation's `AVCaptureMetadataOutput`).
///
/// Each scanning thread has its own `Scanner` (a zbar scanner and a zxing-cpp reader). The
/// settings can be replaced while running; scanners pick them up before their next frame.
public final class MetadataOutput: @unchecked Sendable {
    /// What to scan for, with which decoder, and where.
    public struct Settings: Sendable, Hashable {
        public var engine: DecoderEngine
        /// The symbologies (all engines) and zbar's own settings.
        public var scanner: ScannerSettings
        public var zxing: ZXingSettings
        /// Only this part of the frame is scanned (a crop, not a copy).
        public var rectOfInterest: NormalizedRect
        public init(engine: DecoderEngine = .zbar, scanner: ScannerSettings = ScannerSettings(),
                    zxing: ZXingSettings = ZXingSettings(), rectOfInterest: NormalizedRect = .full) {
            (self.engine, self.scanner, self.zxing, self.rectOfInterest) = (engine, scanner, zxing, rectOfInterest)
        }

        /// zbar's settings for its part of the symbologies (`engine.zbarPart`).
        var zbarPart: ScannerSettings {
            var part = scanner
            part.symbologies = engine.zbarPart(of: scanner.symbologies)
            return part
        }

        /// zxing-cpp's hints for its part of the symbologies.
        var zxingPart: ZXingHints {
            ZXingHints(symbologies: engine.zxingPart(of: scanner.symbologies), tryHarder: zxing.tryHarder,
                       tryRotate: zxing.tryRotate, tryDownscale: zxing.tryDownscale)
        }
    }

    /// The settings in force, recent scan times, decoder failures: read and written from any thread.
    private struct Shared {
        var settings: Settings
        var scanTimes = RecentDurations(capacity: 1024)
        var failures = (count: 0, last: nil as ZXingError?)
    }

    private let shared: LockedValue<Shared>
    /// Threads scanning in parallel; each holds one `Scanner`.
    public let scanningThreads: Int
    /// Told every frame's scan duration, from the scanning thread (a metrics histogram).
    private let scanTimeObserver: (@Sendable (Duration) -> Void)?

    public init(settings: Settings = Settings(), scanningThreads: Int = 1, scanTimeObserver: (@Sendable (Duration) -> Void)? = nil) {
        self.shared = LockedValue(Shared(settings: settings))
        self.scanningThreads = max(1, scanningThreads)
        self.scanTimeObserver = scanTimeObserver
    }

    /// The settings in force; assigning them takes effect on the following frames.
    public var settings: Settings {
        get { shared.withLock { $0.settings } }
        set { shared.withLock { $0.settings = newValue } }
    }

    /// Median and 99th percentile of recent scan times, in seconds.
    public func scanTimePercentiles() -> (p50: Double, p99: Double)? {
        shared.withLock { $0.scanTimes.percentiles() }
    }

    /// Frames on which a decoder library failed (zxing-cpp threw), and the latest failure. Such a
    /// frame still yields what the other engine read, and the session goes on.
    public var decoderFailures: (count: Int, last: ZXingError?) { shared.withLock { $0.failures } }

    fileprivate func record(scanTime: Duration) {
        let seconds = Double(scanTime.components.seconds) + Double(scanTime.components.attoseconds) / 1e18
        shared.withLock { $0.scanTimes.add(seconds) }
        scanTimeObserver?(scanTime)
    }

    fileprivate func record(failure: ZXingError) {
        shared.withLock { $0.failures = ($0.failures.count + 1, failure) }
    }

    /// A scanner for one thread.
    public func makeScanner() -> Scanner { Scanner(output: self) }

    /// One thread's decoders: a zbar scanner with its luma scratch plane (for packed formats),
    /// and a zxing-cpp reader, which reads every format in place.
    public final class Scanner {
        private let output: MetadataOutput
        private let zbar: ImageScanner
        private let zxing: BarcodeReader
        private var scratch: UnsafeMutableRawBufferPointer = UnsafeMutableRawBufferPointer(start: nil, count: 0)

        init(output: MetadataOutput) {
            self.output = output
            let settings = output.settings
            self.zbar = ImageScanner(settings: settings.zbarPart)
            self.zxing = BarcodeReader(hints: settings.zxingPart)
        }

        deinit { scratch.deallocate() }

        /// Scans `frame` and returns the codes found, stamped with the frame: one per symbology
        /// and payload (zbar and zxing-cpp each read their part of the symbologies; a code both
        /// read is the reading of `DecoderEngine.preferred(for:)`).
        public func scan(_ frame: VideoFrame) -> [MachineReadableCodeObject] {
            let settings = output.settings
            let region = settings.rectOfInterest == .full ? nil
                : settings.rectOfInterest.pixels(width: frame.width, height: frame.height)
            let start = ContinuousClock.now
            var codes: [MachineReadableCodeObject] = []
            let info = frame.info
            let zxingPart = settings.zxingPart
            if !zxingPart.symbologies.isEmpty {
                zxing.reconfigure(zxingPart)
                switch readWithZXing(frame, region: region) {
                case .success(let found): codes += found.map { MachineReadableCodeObject($0, frame: info) }
                case .failure(let error): output.record(failure: error)
                }
            }
            let zbarPart = settings.zbarPart
            if !zbarPart.symbologies.isEmpty {
                zbar.reconfigure(zbarPart)
                let symbols = withLumaPlane(of: frame) { luma, bytesPerLine in
                    zbar.scan(luma: luma, width: frame.width, height: frame.height, bytesPerLine: bytesPerLine, region: region)
                }
                codes += symbols.map { MachineReadableCodeObject($0, frame: info) }
            }
            let elapsed = ContinuousClock.now - start
            output.record(scanTime: elapsed)
            var kept: [CodeIdentity: Int] = [:], unique: [MachineReadableCodeObject] = []
            for code in codes {
                let identity = CodeIdentity(symbology: code.symbology, data: code.data)
                if let index = kept[identity] {
                    if code.engine == DecoderEngine.preferred(for: code.symbology) { unique[index] = code }
                } else {
                    kept[identity] = unique.count
                    unique.append(code)
                }
            }
            return unique
        }

        /// zxing-cpp on the frame's luma in place: the Y plane of grey and planar formats, every
        /// second byte of packed 4:2:2 (pixel stride 2, from the first luma byte).
        private func readWithZXing(_ frame: VideoFrame, region: PixelRect?) -> Result<[ZXingBarcode], ZXingError> {
            let (offset, step) = frame.format.hasPlanarLuma ? (0, 1) : frame.format.lumaLayout
            return frame.buffer.withUnsafeBytes { bytes in
                Result { () throws(ZXingError) in
                    try zxing.read(luma: UnsafeRawBufferPointer(rebasing: bytes[offset...]), width: frame.width, height: frame.height,
                                   rowStride: frame.bytesPerLine, pixelStride: step, region: region)
                }
            }
        }

        /// Calls `body` with the frame's 8-bit luma plane and its stride: in place for grey and
        /// planar formats, extracted once into the scratch plane for packed 4:2:2 (zbar has no
        /// pixel stride). The frame's bytes (mmap'd for a camera) are read as raw bytes, never
        /// bound to a type.
        private func withLumaPlane<R>(of frame: VideoFrame, _ body: (UnsafeRawBufferPointer, Int) -> R) -> R {
            frame.buffer.withUnsafeBytes { bytes in
                if frame.format.hasPlanarLuma {
                    return body(UnsafeRawBufferPointer(rebasing: bytes[0..<(frame.bytesPerLine * frame.height)]), frame.bytesPerLine)
                }
                let (offset, step) = frame.format.lumaLayout
                let count = frame.width * frame.height
                if scratch.count < count {
                    scratch.deallocate()
                    scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 64)
                }
                for row in 0..<frame.height {
                    let source = row * frame.bytesPerLine + offset
                    let destination = row * frame.width
                    for x in 0..<frame.width { scratch[destination &+ x] = bytes[source &+ x &* step] }
                }
                return body(UnsafeRawBufferPointer(rebasing: scratch[0..<count]), frame.width)
            }
        }
    }
}

/// What makes two code objects of one frame the same code.
private struct CodeIdentity: Hashable {
    let symbology: Symbology
    let data: [UInt8]
}
