import Foundation
import Media
import ZBar

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

/// Scans frames with zbar and emits machine-readable code objects stamped with their frame
/// (AVFoundation's `AVCaptureMetadataOutput`).
///
/// Each scanning thread has its own zbar scanner (`Scanner`). The configuration can be
/// replaced while running; scanners pick it up before their next frame.
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
    }

    private let lock = NSLock()
    private var _settings: Settings
    private var scanTimes = ScanTimeRecorder()
    /// Threads scanning in parallel; each holds one zbar scanner.
    public let scanningThreads: Int

    public init(settings: Settings = Settings(), scanningThreads: Int = 1) {
        self._settings = settings
        self.scanningThreads = max(1, scanningThreads)
    }

    /// The settings in force; assigning them takes effect on the following frames.
    public var settings: Settings {
        get { lock.withLock { _settings } }
        set { lock.withLock { _settings = newValue } }
    }

    /// Median and 99th percentile of recent scan times, in seconds.
    public func scanTimePercentiles() -> (p50: Double, p99: Double)? {
        lock.withLock { scanTimes.percentiles() }
    }

    fileprivate func record(scanTime: Double) {
        lock.withLock { scanTimes.add(scanTime) }
    }

    /// A scanner for one thread.
    public func makeScanner() -> Scanner { Scanner(output: self) }

    /// One thread's zbar scanner and its luma scratch plane (for packed formats).
    public final class Scanner {
        private let output: MetadataOutput
        private let zbar: ImageScanner
        private var scratch: UnsafeMutableRawBufferPointer = UnsafeMutableRawBufferPointer(start: nil, count: 0)

        init(output: MetadataOutput) {
            self.output = output
            self.zbar = ImageScanner(settings: output.settings.scanner)
        }

        deinit { scratch.deallocate() }

        /// Scans `frame` and returns the codes found, stamped with the frame.
        public func scan(_ frame: VideoFrame) -> [MachineReadableCodeObject] {
            let settings = output.settings
            zbar.reconfigure(settings.scanner)
            let region = settings.rectOfInterest == .full ? nil
                : settings.rectOfInterest.pixels(width: frame.width, height: frame.height)
            let start = ContinuousClock.now
            let symbols = withLumaPlane(of: frame) { luma, bytesPerLine in
                zbar.scan(luma: luma, width: frame.width, height: frame.height, bytesPerLine: bytesPerLine, region: region)
            }
            let elapsed = ContinuousClock.now - start
            output.record(scanTime: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            let info = frame.info
            return symbols.map { MachineReadableCodeObject($0, frame: info) }
        }

        /// Calls `body` with the frame's 8-bit luma plane and its stride: in place for grey and
        /// planar formats, extracted once into the scratch plane for packed 4:2:2. The frame's
        /// bytes (mmap'd for a camera) are read as raw bytes, never bound to a type.
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

/// The most recent scan durations, for p50/p99 in the stats line.
struct ScanTimeRecorder: Sendable {
    private var samples: [Double] = []
    private var next = 0
    private let capacity = 1024

    mutating func add(_ seconds: Double) {
        if samples.count < capacity { samples.append(seconds) } else { samples[next] = seconds }
        next = (next + 1) % capacity
    }

    func percentiles() -> (p50: Double, p99: Double)? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))] }
        return (at(0.5), at(0.99))
    }
}
