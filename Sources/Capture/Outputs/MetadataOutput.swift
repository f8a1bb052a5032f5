import Foundation
import Media
import SystemCalls

/// Scans frames with an engine's decoder passes, ordered by cost, and emits machine-readable
/// code objects stamped with their frame and pass (AVFoundation's `AVCaptureMetadataOutput`).
///
/// The libraries come in through `DecoderLibrary` (`DecoderEngine.libraries`); each scanning
/// thread has its own `Scanner`, with a reader of each library (`DecoderLibrary.makeReader`).
/// The settings can be replaced while running; scanners pick them up before their next frame.
/// `effort` (`ScanEffort`) picks each frame's passes; what `auto` decides from on a live source
/// (recent pass costs, recent codes, the frame interval) is shared by the threads.
public final class MetadataOutput: Sendable {
    /// What to scan for, with which decoder, how hard, and where.
    public struct Settings: Sendable, Hashable {
        /// The passes and the libraries that run them (`Decoders` builds `zbar`, `zxing`, `hybrid`).
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
        /// The first pass of a library that can (zxing-cpp's cheapest) also reports the codes it detected but could not decode
        /// (`ScanReport.undecoded`), whatever the effort (a live view outlines them); it does with
        /// `effort: auto` on a live source anyway.
        public var reportsUndecoded: Bool
        /// Readings an engine's reading check cannot confirm within their frame are passed on
        /// (`ScanReport.unconfirmed`) for the items to confirm, rather than dropped or held here;
        /// so are those `confirmation` asks items to confirm that no second library read here.
        public var confirmsByItem: Bool
        public var confirmation = ItemConfirmation.none
        /// Each library's own settings, by library, passed through unread to its reader
        /// (`DecoderRequest.options`): a library with settings of its own needs no field here.
        public var libraryOptions: [DecoderLibraryID: OpaqueSettings] = [:]
        /// Which frames are scanned: all, or those that changed (`presentation`; the capture session decides).
        public var trigger = TriggerSettings()
        public init(engine: DecoderEngine, scanner: ScannerSettings = ScannerSettings(),
                    zxing: ZXingSettings = ZXingSettings(), effort: ScanEffort = .auto, onlyPasses: Set<DecoderPass>? = nil,
                    rectOfInterest: NormalizedRect = .full, reportsUndecoded: Bool = false, confirmsByItem: Bool = false) {
            (self.engine, self.scanner, self.zxing, self.effort, self.rectOfInterest) = (engine, scanner, zxing, effort, rectOfInterest)
            (self.onlyPasses, self.reportsUndecoded, self.confirmsByItem) = (onlyPasses, reportsUndecoded, confirmsByItem)
        }

        /// What `pass` asks of its library's reader: the library's part of the symbologies.
        func request(for pass: DecoderPass, reportsUndecoded: Bool) -> DecoderRequest {
            DecoderRequest(symbologies: engine.part(of: scanner.symbologies, for: pass.library), scanner: scanner, zxing: zxing,
                           reportsUndecoded: reportsUndecoded, options: libraryOptions[pass.library])
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
        var failures = (count: 0, last: nil as DecoderFailure?)
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
    /// What the scanners' reading checks share, by kind (readings held for another frame on a live source).
    let readingCheckStates = ReadingCheckStates()
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
    public init(settings: Settings, scanningThreads: Int = 1, scanTimeObserver: (@Sendable (Duration) -> Void)? = nil,
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
    public var decoderFailures: (count: Int, last: DecoderFailure?) { shared.withLock { $0.failures } }

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

    fileprivate func record(failure: DecoderFailure) {
        shared.withLock { $0.failures = ($0.failures.count + 1, failure) }
    }

    fileprivate func withEffortLedger<R>(_ body: (inout EffortLedger) -> R) -> R {
        shared.withLock { body(&$0.effort) }
    }

    /// A scanner for one thread; `live`: the frames come from a live source (camera, pipe), where
    /// `effort: auto` runs harder passes only on evidence and within the frame's time budget.
    public func makeScanner(live: Bool = false) -> Scanner { Scanner(output: self, live: live) }

    /// One thread's decoders: a reader of each library, made on first use, and a luma scratch plane for a library that reads no pixel stride.
    public final class Scanner {
        private let output: MetadataOutput
        private let live: Bool
        /// This scanner's key in the output's record of scans under way.
        private let id: Int
        private var readers: [DecoderLibraryID: any DecoderReader] = [:]
        private let upscaler = RegionUpscaler()
        /// The engine's reading check, made by the kind and of the libraries it was made with.
        private var readingCheck: (kind: any ReadingCheckKind, check: any ReadingCheck)?
        private var scratch: UnsafeMutableRawBufferPointer = UnsafeMutableRawBufferPointer(start: nil, count: 0)

        init(output: MetadataOutput, live: Bool) {
            self.output = output
            self.live = live
            self.id = output.newScannerID()
        }

        deinit { scratch.deallocate() }

        /// Scans `frame` and returns the codes found, stamped with the frame (`scanReport`'s codes).
        public func scan(_ frame: VideoFrame) -> [MachineReadableCodeObject] { scanReport(frame).codes }

        /// Scans `frame` with the passes `effort` picks, cheapest first, and returns the codes
        /// found, one per symbology and payload: a code several passes read is the reading of
        /// the preferred library (`DecoderEngine.preferred(for:)`), by its cheapest pass, and a
        /// reading with an EAN/UPC add-on stands over one without (`MachineReadableCodeObject.mainData`).
        /// An engine with a reading check (`DecoderEngine.readingCheck`) has it applied first.
        ///
        /// `fast` runs the base passes (`ScanEffort.basePasses`); `max`, and `auto` on a file,
        /// every pass. `auto` on a live source runs a harder pass only while there is evidence
        /// of an unread code — the detected-but-undecoded codes of the first pass of a library that
        /// reports them (zxing-cpp's), or a code read within `EffortLedger.recentFrames` frames and not yet
        /// in this one — and only when its expected cost (`EffortLedger.expectedCost`: scaled by
        /// this frame's first-pass time) fits in what is left of the frame's budget (frame
        /// interval × scanning threads × `EffortLedger.budgetShare`) and, with several scanners,
        /// while the others keep up with the frames on the cheapest passes
        /// (`EffortLedger.claimHarderPasses`); one that does not fit is cut. Every
        /// `EffortLedger.sweepFrames`th frame (by sequence number) the harder passes run without
        /// evidence, within the same budget: a 1-D code the first pass cannot read leaves none, and
        /// once a sweep reads it, the frames after it chase it as a code read recently.
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
            let reportingPass = passes.first { settings.engine.library($0.library)?.reportsUndecoded == true }
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
            // An upscaling pass's regions need the undecoded codes of the first reporting pass.
            let upscales = passes.contains { $0.scale > 1 }
            var unread: [UndecodedCodeObject] = [], regions: [PixelRect] = []
            // Every `EffortLedger.sweepFrames`th frame the harder passes run without evidence, if they fit.
            let sweep = adaptive && info.sequenceNumber % EffortLedger.sweepFrames == 0
            for pass in passes {
                let harder = !base.contains(pass)
                let evidence = undecoded > 0 || !recent.isSubset(of: read)
                if harder && (settings.effort == .fast || adaptive && !evidence && !sweep) { continue }
                if pass.scale > 1 {
                    regions = RegionUpscaler.regions(in: frame, region: region, detected: unread, read: codes)
                    guard !regions.isEmpty else { continue }
                }
                if harder && adaptive {
                    let first = MetadataOutput.seconds(firstPassTime ?? .zero)
                    let expected = output.withEffortLedger { $0.expectedCost(of: pass, firstPassSeconds: first, scanners: output.scanningThreads) }
                    let elapsed = MetadataOutput.seconds(ContinuousClock.now - start)
                    // A sweep's pass that does not fit is not counted cut: no evidence asked for it.
                    guard let budget, elapsed + expected <= budget else { if evidence { report.passesCut.append(pass) }; continue }
                    if !holdsHarderPlace {
                        holdsHarderPlace = output.withEffortLedger { $0.claimHarderPasses(base: base, scanners: output.scanningThreads) }
                        guard holdsHarderPlace else { if evidence { report.passesCut.append(pass) }; continue }
                    }
                }
                output.notePass(pass, seq: info.sequenceNumber, scanner: id)
                let passStart = ContinuousClock.now
                let asked = adaptive || settings.reportsUndecoded
                var found = run(pass, on: frame, settings: settings, region: pass.scale > 1 ? nil : region, upscaling: regions,
                                reportsUndecoded: (asked || upscales) && pass == reportingPass)
                if pass == reportingPass { unread = found.undecoded }
                if !asked || pass.scale > 1 { found.undecoded = [] }
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
            // An add-on the frame's edge may have cut is not trusted: the code is kept without it.
            codes = codes.map { $0.droppingAddOnAtFrameEdge() }
            output.record(scanTime: ContinuousClock.now - start)
            if adaptive { output.withEffortLedger { $0.noteRead(read, seq: info.sequenceNumber) } }
            if let check = readingCheck(for: settings.engine) {
                let outcome: UnconfirmedReadings = settings.confirmsByItem ? .passedOn : live ? .held : .dropped
                let checked = check.check(codes, frame: frame, symbologies: settings.scanner.symbologies, unconfirmed: outcome)
                (codes, report.unconfirmed, report.readingCheck) = (checked.codes, checked.unconfirmed, checked.counts)
            }
            report.keepOnePerCode(codes, engine: settings.engine)
            report.undecoded = detected.filter { code in !report.codes.contains { code.isRead(as: $0) } }
            if settings.confirmsByItem { report.passOnUnconfirmed(settings.confirmation) }
            return report
        }

        /// The engine's reading check, made on first use (and again when the engine's kind of check
        /// changes), sharing the output's state for its kind; `nil` for an engine without one.
        private func readingCheck(for engine: DecoderEngine) -> (any ReadingCheck)? {
            guard let kind = engine.readingCheck else { return nil }
            if let readingCheck, readingCheck.kind.isSame(as: kind) { return readingCheck.check }
            guard let check = kind.makeCheck(engine: engine, shared: output.readingCheckStates.state(for: kind)) else { return nil }
            readingCheck = (kind, check)
            return check
        }

        /// This thread's reader of `library`, made on first use.
        private func reader(of library: any DecoderLibrary) -> any DecoderReader {
            if let reader = readers[library.id] { return reader }
            let reader = library.makeReader()
            readers[library.id] = reader
            return reader
        }

        /// One pass over `frame`: its codes, and (when asked, of a library that reports them) those
        /// it detected but could not decode. A library's failure is recorded and reads nothing.
        private func run(_ pass: DecoderPass, on frame: VideoFrame, settings: Settings, region: PixelRect?, upscaling regions: [PixelRect],
                         reportsUndecoded: Bool) -> (codes: [MachineReadableCodeObject], undecoded: [UndecodedCodeObject]) {
            guard let library = settings.engine.library(pass.library) else { return ([], []) }
            let reader = reader(of: library)
            let request = settings.request(for: pass, reportsUndecoded: reportsUndecoded)
            let result = pass.scale > 1
                ? upscaler.read(frame, regions: regions, scale: pass.scale) { reader.read(pass, in: $0, region: nil, request: request) }
                : library.readsPixelStride
                ? withLumaInPlace(of: frame) { reader.read(pass, in: $0, region: region, request: request) }
                : withLumaPlane(of: frame) { luma, bytesPerLine in
                    reader.read(pass, in: LumaPlane(bytes: luma, width: frame.width, height: frame.height, rowStride: bytesPerLine),
                                region: region, request: request)
                }
            switch result {
            case .success(let found):
                return (found.codes.map { MachineReadableCodeObject($0, frame: frame.info, pass: pass) },
                        found.undecoded.map { UndecodedCodeObject($0, pass: pass) })
            case .failure(let failure):
                output.record(failure: failure)
                return ([], [])
            }
        }

        /// Calls `body` with the frame's luma in place: the Y plane of grey and planar formats,
        /// every second byte of packed 4:2:2 (pixel stride 2, from the first luma byte).
        private func withLumaInPlace<R>(of frame: VideoFrame, _ body: (LumaPlane) -> R) -> R {
            let (offset, step) = frame.format.hasPlanarLuma ? (0, 1) : frame.format.lumaLayout
            return frame.buffer.withUnsafeBytes { bytes in
                body(LumaPlane(bytes: UnsafeRawBufferPointer(rebasing: bytes[offset...]), width: frame.width, height: frame.height,
                               rowStride: frame.bytesPerLine, pixelStride: step))
            }
        }

        /// Calls `body` with the frame's 8-bit luma plane and its stride: in place for grey and
        /// planar formats, extracted once into the scratch plane for packed 4:2:2 (for a library
        /// with no pixel stride, such as zbar). The frame's bytes (mmap'd for a camera) are read as raw bytes, never
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
