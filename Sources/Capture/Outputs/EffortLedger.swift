import Media

/// What `effort: auto` decides from on a live source: each pass's recent cost, the codes read in
/// the last frames, and the source's frame interval. Shared by the scanning threads (under
/// `MetadataOutput`'s lock).
struct EffortLedger: Sendable {
    /// Frames (by sequence number) within which a code read is "recent".
    static let recentFrames: UInt64 = 5

    /// On a live source, the harder passes also run on every this many frames (by sequence
    /// number) without evidence of an unread code, when they fit in the frame's budget.
    static let sweepFrames: UInt64 = 3

    /// Each pass's recent durations (seconds).
    private(set) var passTimes: [DecoderPass: RecentDurations] = [:]
    /// Each code read, with the sequence number of the latest frame it was read in.
    private var lastRead: [CodeIdentity: UInt64] = [:]
    /// The latest frame seen (sequence number, presentation time in seconds).
    private var latest: (seq: UInt64, seconds: Double)?
    /// Recent frame intervals (seconds), from presentation times.
    private var intervals = RecentDurations(capacity: 32)

    /// Each harder pass's recent durations as multiples of the first pass's on the same frame.
    private var ratios: [DecoderPass: RecentDurations] = [:]

    /// Records that `pass` took `seconds` on a frame whose first (cheapest) pass took `firstPassSeconds`.
    mutating func add(_ pass: DecoderPass, seconds: Double, firstPassSeconds: Double?) {
        passTimes[pass, default: RecentDurations(capacity: 256)].add(seconds)
        if let firstPassSeconds, firstPassSeconds > 0 {
            ratios[pass, default: RecentDurations(capacity: 256)].add(seconds / firstPassSeconds)
        }
    }

    /// What `pass` is expected to cost on a frame whose first pass took `firstPassSeconds`. A
    /// pass's cost follows the frame's content (noise, texture, many candidate codes), and so
    /// does the first pass's, though not always in proportion (noise can slow the GlobalHistogram
    /// pass 30 times more than zxing-fast).
    ///
    /// With one scanner (`scanners` 1) a pass that runs long makes the next frame late, so the
    /// estimate errs long: the larger of the pass's recent 99th percentile and its largest recent
    /// multiple (99th percentile) of the first pass's time applied to this frame's; before it has
    /// run, `unknownRatio` times the first pass's time. With several, a frame never waits for a
    /// harder pass (`claimHarderPasses` keeps a scanner on the cheapest ones), so a long pass only
    /// delays its own frame's lines: the estimate is the typical cost (the medians), and before
    /// the pass has run, `typicalRatio` times the first pass's time. Erring long there would cut
    /// the pass for good, since a pass that never runs never shows its real cost.
    func expectedCost(of pass: DecoderPass, firstPassSeconds: Double, scanners: Int = 1) -> Double {
        let typical = scanners > 1
        guard let own = passTimes[pass]?.percentiles() else {
            return (typical ? Self.typicalRatio : Self.unknownRatio) * firstPassSeconds
        }
        let ratio = ratios[pass]?.percentiles()
        return typical ? max(own.p50, (ratio?.p50 ?? 0) * firstPassSeconds) : max(own.p99, (ratio?.p99 ?? 0) * firstPassSeconds)
    }

    /// A harder pass's cost, as a multiple of the first pass's, assumed before it has run, erring
    /// long: zxing-cpp's full passes and zbar measure 4–6 times zxing-fast's median on 1280x720
    /// frames, and up to 30 times on noisy ones, where zxing-fast itself is quick.
    static let unknownRatio = 20.0

    /// The same, typical: 4–6 times zxing-fast's median on 1280x720 frames.
    static let typicalRatio = 5.0

    /// The share of a frame's time budget the passes may plan to fill: the rest absorbs costs
    /// above the estimate and frames that arrive early.
    static let budgetShare = 0.8

    /// Scanners running harder passes now (each between `claimHarderPasses` and `releaseHarderPasses`).
    private(set) var scannersOnHarderPasses = 0

    /// Whether a scanner may run harder passes on its frame now, and if so holds its place until
    /// `releaseHarderPasses`: with one scanner, always (the frame's own budget decides); with
    /// several, only while the scanners left on the cheapest passes (`base`) keep up with the
    /// frames, by their recent 99th percentile (at most `budgetShare` of the frame interval times
    /// those scanners) and at least one is left. A frame then never waits for a harder pass, so
    /// `auto` drops no frame as late that `fast` would have scanned. `false` before the base
    /// passes' cost and the frame interval are known.
    mutating func claimHarderPasses(base: Set<DecoderPass>, scanners: Int) -> Bool {
        guard scanners > 1 else { return true }
        let left = scanners - scannersOnHarderPasses - 1
        guard left >= 1, let interval = intervals.median else { return false }
        var baseCost = 0.0
        for pass in base {
            guard let p99 = passTimes[pass]?.percentiles()?.p99 else { return false }
            baseCost += p99
        }
        guard baseCost <= Double(left) * interval * Self.budgetShare else { return false }
        scannersOnHarderPasses += 1
        return true
    }

    /// Gives back the place `claimHarderPasses` held.
    mutating func releaseHarderPasses() {
        scannersOnHarderPasses = max(0, scannersOnHarderPasses - 1)
    }

    /// Notes `frame`'s presentation time and returns the source's frame interval in seconds (the
    /// median of recent intervals between frames); `nil` until two frames in order were seen.
    mutating func frameInterval(noting frame: FrameInfo) -> Double? {
        let seconds = Double(frame.presentationTime.nanoseconds) / 1e9
        if let latest, frame.sequenceNumber > latest.seq {
            let interval = (seconds - latest.seconds) / Double(frame.sequenceNumber - latest.seq)
            if interval > 0 { intervals.add(interval) }
        }
        if latest.map({ frame.sequenceNumber > $0.seq }) ?? true { latest = (frame.sequenceNumber, seconds) }
        return intervals.median
    }

    /// The codes read in the `recentFrames` frames around `seq` (before or after it, scanned
    /// by any thread), not counting `seq` itself.
    func recentCodes(around seq: UInt64) -> Set<CodeIdentity> {
        Set(lastRead.filter { $0.value != seq && max($0.value, seq) - min($0.value, seq) <= Self.recentFrames }.keys)
    }

    /// Records the codes read in frame `seq`, forgetting codes not read for a while.
    mutating func noteRead(_ codes: some Sequence<CodeIdentity>, seq: UInt64) {
        for code in codes { lastRead[code] = max(lastRead[code] ?? 0, seq) }
        if lastRead.count > 64 || seq % 32 == 0 {
            lastRead = lastRead.filter { $0.value + 2 * Self.recentFrames >= seq }
        }
    }
}

/// What makes two code objects the same code: the symbology and the payload without an add-on
/// (`MachineReadableCodeObject.mainData`).
public struct CodeIdentity: Hashable, Sendable {
    public let symbology: Symbology
    public let data: [UInt8]

    public init(_ code: MachineReadableCodeObject) { (symbology, data) = (code.symbology, code.mainData) }
}
