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

/// Scans frames with zbar, zxing-cpp or both, in passes ordered by cost, and emits
/// machine-readable code objects stamped with their frame and pass (AVFoundation's
/// `AVCaptureMetadataOutput`).
///
/// Each scanning thread has its own `Scanner` (a zbar scanner and a zxing-cpp reader per pass).
/// The settings can be replaced while running; scanners pick them up before their next frame.
/// `effort` (`ScanEffort`) picks each frame's passes; what `auto` decides from on a live source
/// (recent pass costs, recent codes, the frame interval) is shared by the threads.
public final class MetadataOutput: @unchecked Sendable {
    /// What to scan for, with which decoder, how hard, and where.
    public struct Settings: Sendable, Hashable {
        public var engine: DecoderEngine
        /// The symbologies (all engines) and zbar's own settings.
        public var scanner: ScannerSettings
        /// The full zxing-cpp passes' options (`zxing-full`, `zxing-histogram`).
        public var zxing: ZXingSettings
        public var effort: ScanEffort
        /// The engine's passes restricted to these (`passes`); `nil`: all of them.
        public var onlyPasses: Set<DecoderPass>?
        /// Only this part of the frame is scanned (a crop, not a copy).
        public var rectOfInterest: NormalizedRect
        /// The cheapest zxing-cpp pass also reports the codes it detected but could not decode
        /// (`ScanReport.undecoded`), whatever the effort (a live view outlines them); it does with
        /// `effort: auto` on a live source anyway.
        public var reportsUndecoded: Bool
        public init(engine: DecoderEngine = .zbar, scanner: ScannerSettings = ScannerSettings(),
                    zxing: ZXingSettings = ZXingSettings(), effort: ScanEffort = .auto, onlyPasses: Set<DecoderPass>? = nil,
                    rectOfInterest: NormalizedRect = .full, reportsUndecoded: Bool = false) {
            (self.engine, self.scanner, self.zxing, self.effort, self.rectOfInterest) = (engine, scanner, zxing, effort, rectOfInterest)
            (self.onlyPasses, self.reportsUndecoded) = (onlyPasses, reportsUndecoded)
        }

        /// zbar's settings for its part of the symbologies (`engine.zbarPart`).
        var zbarPart: ScannerSettings {
            var part = scanner
            part.symbologies = engine.zbarPart(of: scanner.symbologies)
            return part
        }

        /// The passes of the engine for the requested symbologies (those of `onlyPasses`), cheapest first.
        public var passes: [DecoderPass] {
            DecoderPass.passes(for: engine, symbologies: scanner.symbologies).filter { onlyPasses?.contains($0) ?? true }
        }
    }

    /// The settings in force, recent scan times, decoder failures, what `auto` decides from:
    /// read and written from any thread.
    private struct Shared {
        var settings: Settings
        var scanTimes = RecentDurations(capacity: 1024)
        var failures = (count: 0, last: nil as ZXingError?)
        var effort = EffortLedger()
        /// The scan each scanning thread has under way, by scanner.
        var inProgress: [Int: ScanInProgress] = [:]
        var nextScannerID = 0
    }

    /// A scan under way on one scanning thread: its frame, when it began, the pass running.
    public struct ScanInProgress: Sendable, Hashable {
        /// The scanner doing it (one per scanning thread).
        public var scanner: Int
        /// The frame's sequence number.
        public var sequenceNumber: UInt64
        public var startedAt: ContinuousClock.Instant
        /// The pass running now; `nil` before the first.
        public var pass: DecoderPass?
    }

    private let shared: LockedValue<Shared>
    /// `hybrid`'s zbar-only 1-D readings waiting for another frame (live sources; `LinearReadingCheck`).
    let heldReadings = LockedValue(HeldReadings())
    /// Threads scanning in parallel; each holds one `Scanner`.
    public let scanningThreads: Int
    /// Told every frame's scan duration, from the scanning thread (a metrics histogram).
    private let scanTimeObserver: (@Sendable (Duration) -> Void)?
    /// Told every pass's duration, from the scanning thread.
    private let passTimeObserver: (@Sendable (DecoderPass, Duration) -> Void)?
    /// Called on the scanning thread before each pass over a frame, with the frame's sequence
    /// number (a test seam: a test makes a scan block or take long).
    private let passWillRun: (@Sendable (UInt64, DecoderPass) -> Void)?

    /// - Parameter passWillRun: called on the scanning thread before each pass over a frame (tests).
    public init(settings: Settings = Settings(), scanningThreads: Int = 1, scanTimeObserver: (@Sendable (Duration) -> Void)? = nil,
                passTimeObserver: (@Sendable (DecoderPass, Duration) -> Void)? = nil,
                passWillRun: (@Sendable (UInt64, DecoderPass) -> Void)? = nil) {
        self.shared = LockedValue(Shared(settings: settings))
        self.scanningThreads = max(1, scanningThreads)
        self.scanTimeObserver = scanTimeObserver
        self.passTimeObserver = passTimeObserver
        self.passWillRun = passWillRun
    }

    /// The scans under way now, one per busy scanning thread, oldest first: what a monitor off
    /// the scanning threads reads to notice a scan that does not return.
    public func scansInProgress() -> [ScanInProgress] {
        shared.withLock { Array($0.inProgress.values) }.sorted { $0.startedAt < $1.startedAt }
    }

    fileprivate func newScannerID() -> Int {
        shared.withLock { s in defer { s.nextScannerID += 1 }; return s.nextScannerID }
    }

    fileprivate func noteScan(_ scan: ScanInProgress?, scanner: Int) {
        shared.withLock { $0.inProgress[scanner] = scan }
    }

    fileprivate func notePass(_ pass: DecoderPass, seq: UInt64, scanner: Int) {
        shared.withLock { $0.inProgress[scanner]?.pass = pass }
        passWillRun?(seq, pass)
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

    /// Median and 99th percentile of each pass's recent durations, in seconds (passes that ran).
    public func passTimePercentiles() -> [DecoderPass: (p50: Double, p99: Double)] {
        shared.withLock { $0.effort.passTimes.compactMapValues { $0.percentiles() } }
    }

    /// Frames on which a decoder library failed (zxing-cpp threw), and the latest failure. Such a
    /// frame still yields what the other passes read, and the session goes on.
    public var decoderFailures: (count: Int, last: ZXingError?) { shared.withLock { $0.failures } }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    fileprivate func record(scanTime: Duration) {
        shared.withLock { $0.scanTimes.add(Self.seconds(scanTime)) }
        scanTimeObserver?(scanTime)
    }

    fileprivate func record(_ pass: DecoderPass, time: Duration, firstPass: Duration?) {
        shared.withLock { $0.effort.add(pass, seconds: Self.seconds(time), firstPassSeconds: firstPass.map(Self.seconds)) }
        passTimeObserver?(pass, time)
    }

    fileprivate func record(failure: ZXingError) {
        shared.withLock { $0.failures = ($0.failures.count + 1, failure) }
    }

    fileprivate func withEffortLedger<R>(_ body: (inout EffortLedger) -> R) -> R {
        shared.withLock { body(&$0.effort) }
    }

    /// A scanner for one thread; `live`: the frames come from a live source (camera, pipe), where
    /// `effort: auto` runs harder passes only on evidence and within the frame's time budget.
    public func makeScanner(live: Bool = false) -> Scanner { Scanner(output: self, live: live) }

    /// What one frame's scan found and did.
    public struct ScanReport: Sendable {
        /// The codes, one per symbology and payload.
        public var codes: [MachineReadableCodeObject]
        /// The passes that ran, in order.
        public var passesRun: [DecoderPass]
        /// The harder passes the evidence asked for that did not fit in the frame's time budget.
        public var passesCut: [DecoderPass]
        /// What each pass that ran read by itself, before one reading per code was kept.
        public var readings: [DecoderPass: [MachineReadableCodeObject]] = [:]
        /// The codes the cheapest zxing-cpp pass detected but could not decode and no pass read
        /// (asked for with `effort: auto` on a live source, or `Settings.reportsUndecoded`).
        public var undecoded: [UndecodedCodeObject] = []
        /// What `hybrid`'s check of zbar's 1-D readings did on this frame (`LinearReadingCheck`).
        public var readingCheck = ReadingCheckCounts()
    }

    /// One thread's decoders: a zbar scanner with its luma scratch plane (for packed formats),
    /// and a zxing-cpp reader per pass, which read every format in place.
    public final class Scanner {
        private let output: MetadataOutput
        private let live: Bool
        /// This scanner's key in the output's record of scans under way.
        private let id: Int
        private let zbar: ImageScanner
        private var zxing: [DecoderPass: BarcodeReader] = [:]
        private let readingCheck = LinearReadingCheck(secondLook: BandSecondLook())
        private var scratch: UnsafeMutableRawBufferPointer = UnsafeMutableRawBufferPointer(start: nil, count: 0)

        init(output: MetadataOutput, live: Bool) {
            self.output = output
            self.live = live
            self.id = output.newScannerID()
            self.zbar = ImageScanner(settings: output.settings.zbarPart)
        }

        deinit { scratch.deallocate() }

        /// Scans `frame` and returns the codes found, stamped with the frame (`scanReport`'s codes).
        public func scan(_ frame: VideoFrame) -> [MachineReadableCodeObject] { scanReport(frame).codes }

        /// Scans `frame` with the passes `effort` picks, cheapest first, and returns the codes
        /// found, one per symbology and payload: a code several passes read is the reading of
        /// the preferred library (`DecoderEngine.preferred(for:)`), by its cheapest pass.
        ///
        /// `fast` runs the base passes (`ScanEffort.basePasses`); `max`, and `auto` on a file,
        /// every pass. `auto` on a live source runs a harder pass only while there is evidence
        /// of an unread code — zxing-cpp's detected-but-undecoded results from the cheapest
        /// zxing-cpp pass, or a code read within `EffortLedger.recentFrames` frames and not yet
        /// in this one — and only when its expected cost (`EffortLedger.expectedCost`: scaled by
        /// this frame's first-pass time) fits in what is left of the frame's budget (frame
        /// interval × scanning threads × `EffortLedger.budgetShare`) and, with several scanners,
        /// while the others keep up with the frames on the cheapest passes
        /// (`EffortLedger.claimHarderPasses`); one that does not fit is cut.
        ///
        /// A compressed frame (MJPEG) is decoded to its grey plane before it is scanned
        /// (`CaptureSession`); one given here as it came has no pixels to read: no codes.
        public func scanReport(_ frame: VideoFrame) -> ScanReport {
            guard !frame.format.isCompressed else { return ScanReport(codes: [], passesRun: [], passesCut: []) }
            let settings = output.settings
            let region = settings.rectOfInterest == .full ? nil
                : settings.rectOfInterest.pixels(width: frame.width, height: frame.height)
            let start = ContinuousClock.now
            output.noteScan(ScanInProgress(scanner: id, sequenceNumber: frame.info.sequenceNumber, startedAt: start), scanner: id)
            defer { output.noteScan(nil, scanner: id) }
            let passes = settings.passes
            let base = Set(ScanEffort.basePasses(of: passes, engine: settings.engine, symbologies: settings.scanner.symbologies))
            let adaptive = settings.effort == .auto && live
            let info = frame.info
            let (budget, recent) = adaptive
                ? output.withEffortLedger { ($0.frameInterval(noting: info).map { $0 * Double(output.scanningThreads) * EffortLedger.budgetShare },
                                             $0.recentCodes(around: info.sequenceNumber)) }
                : (nil, [])
            var codes: [MachineReadableCodeObject] = [], read: Set<CodeIdentity> = []
            var report = ScanReport(codes: [], passesRun: [], passesCut: [])
            var undecoded = 0, detected: [UndecodedCodeObject] = []
            var firstPassTime: Duration?
            var holdsHarderPlace = false
            defer { if holdsHarderPlace { output.withEffortLedger { $0.releaseHarderPasses() } } }
            for pass in passes {
                if !base.contains(pass) {
                    if settings.effort == .fast { continue }
                    if adaptive {
                        guard undecoded > 0 || !recent.isSubset(of: read) else { continue }
                        let first = MetadataOutput.seconds(firstPassTime ?? .zero)
                        let expected = output.withEffortLedger { $0.expectedCost(of: pass, firstPassSeconds: first, scanners: output.scanningThreads) }
                        let elapsed = MetadataOutput.seconds(ContinuousClock.now - start)
                        guard let budget, elapsed + expected <= budget else { report.passesCut.append(pass); continue }
                        if !holdsHarderPlace {
                            holdsHarderPlace = output.withEffortLedger { $0.claimHarderPasses(base: base, scanners: output.scanningThreads) }
                            guard holdsHarderPlace else { report.passesCut.append(pass); continue }
                        }
                    }
                }
                output.notePass(pass, seq: info.sequenceNumber, scanner: id)
                let passStart = ContinuousClock.now
                let found = run(pass, on: frame, settings: settings, region: region,
                                returnErrors: (adaptive || settings.reportsUndecoded) && pass == passes.first { $0.engine == .zxing })
                let passTime = ContinuousClock.now - passStart
                output.record(pass, time: passTime, firstPass: firstPassTime)
                if firstPassTime == nil { firstPassTime = passTime }
                report.passesRun.append(pass)
                report.readings[pass] = found.codes
                let fresh = found.codes.filter { !read.contains(CodeIdentity($0)) }
                if !base.contains(pass) { undecoded = max(0, undecoded - fresh.count) }
                undecoded += found.undecoded.count
                detected += found.undecoded
                read.formUnion(found.codes.map(CodeIdentity.init))
                codes += found.codes
            }
            output.record(scanTime: ContinuousClock.now - start)
            if adaptive { output.withEffortLedger { $0.noteRead(read, seq: info.sequenceNumber) } }
            if settings.engine == .hybrid {
                (codes, report.readingCheck) = readingCheck.check(codes, frame: frame, zxingReads: settings.engine.zxingPart(of: settings.scanner.symbologies),
                                                                  held: live ? output.heldReadings : nil)
            }
            var kept: [CodeIdentity: Int] = [:]
            for code in codes {
                let identity = CodeIdentity(code)
                if let index = kept[identity] {
                    let preferred = DecoderEngine.preferred(for: code.symbology)
                    if code.engine == preferred && report.codes[index].engine != preferred { report.codes[index] = code }
                } else {
                    kept[identity] = report.codes.count
                    report.codes.append(code)
                }
            }
            report.undecoded = detected.filter { code in !report.codes.contains { code.isRead(as: $0) } }
            return report
        }

        /// One pass over `frame`: its codes, and (zxing-cpp with `returnErrors`) those it
        /// detected but could not decode. A zxing-cpp failure is recorded and reads nothing.
        private func run(_ pass: DecoderPass, on frame: VideoFrame, settings: Settings, region: PixelRect?,
                         returnErrors: Bool) -> (codes: [MachineReadableCodeObject], undecoded: [UndecodedCodeObject]) {
            let info = frame.info
            guard let hints = pass.zxingHints(symbologies: settings.engine.zxingPart(of: settings.scanner.symbologies),
                                              settings: settings.zxing, returnErrors: returnErrors) else {
                zbar.reconfigure(settings.zbarPart)
                let symbols = withLumaPlane(of: frame) { luma, bytesPerLine in
                    zbar.scan(luma: luma, width: frame.width, height: frame.height, bytesPerLine: bytesPerLine, region: region)
                }
                return (symbols.map { MachineReadableCodeObject($0, frame: info) }, [])
            }
            let reader = zxing[pass] ?? BarcodeReader(hints: hints)
            zxing[pass] = reader
            reader.reconfigure(hints)
            switch readWithZXing(reader, frame, region: region) {
            case .success(let found):
                return (found.barcodes.map { MachineReadableCodeObject($0, frame: info, pass: pass) },
                        found.undecoded.map { UndecodedCodeObject($0, pass: pass) })
            case .failure(let error):
                output.record(failure: error)
                return ([], [])
            }
        }

        /// zxing-cpp on the frame's luma in place: the Y plane of grey and planar formats, every
        /// second byte of packed 4:2:2 (pixel stride 2, from the first luma byte).
        private func readWithZXing(_ reader: BarcodeReader, _ frame: VideoFrame,
                                   region: PixelRect?) -> Result<(barcodes: [ZXingBarcode], undecoded: [ZXingUndecodedCode]), ZXingError> {
            let (offset, step) = frame.format.hasPlanarLuma ? (0, 1) : frame.format.lumaLayout
            return frame.buffer.withUnsafeBytes { bytes in
                Result { () throws(ZXingError) in
                    try reader.readReporting(luma: UnsafeRawBufferPointer(rebasing: bytes[offset...]), width: frame.width, height: frame.height,
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
