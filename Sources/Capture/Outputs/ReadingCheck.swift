import Media
import SystemCalls

/// An engine's check of its readings of one frame: which it keeps, and which it cannot confirm
/// within the frame (`DecoderEngine.readingCheck` makes one per scanning thread).
///
/// `MetadataOutput` calls it once per frame, after the passes and before one reading per code is
/// kept; what it checks and how is the engine's (`Decoders`: `hybrid`'s check of zbar's 1-D readings).
public protocol ReadingCheck {
    /// `codes`, every reading of `frame` by every pass, checked: the codes kept (the readings the
    /// check replaced or added included), the unconfirmed ones passed on (`unconfirmed ==
    /// .passedOn` only), and what was done. `symbologies`: those the scan asked for.
    func check(_ codes: [MachineReadableCodeObject], frame: VideoFrame, symbologies: Set<Symbology>,
               unconfirmed: UnconfirmedReadings) -> CheckedReadings
}

/// What becomes of a reading nothing in its own frame confirms.
public enum UnconfirmedReadings: Sendable, Hashable {
    /// Dropped (a file without items).
    case dropped
    /// Held by the check until a later frame confirms it (a live source without items): in the
    /// state the output's checks share (`ReadingCheckKind.makeSharedState`).
    case held
    /// Passed on (`CheckedReadings.unconfirmed`) for the item tracker to confirm or not.
    case passedOn
}

/// One frame's readings after an engine's check (`ReadingCheck`).
public struct CheckedReadings {
    /// The readings kept, in the order given, then those the check added.
    public var codes: [MachineReadableCodeObject]
    /// Readings the check could not confirm within the frame, passed on for the items (`UnconfirmedReadings.passedOn`).
    public var unconfirmed: [MachineReadableCodeObject]
    public var counts: ReadingCheckCounts

    public init(codes: [MachineReadableCodeObject], unconfirmed: [MachineReadableCodeObject] = [], counts: ReadingCheckCounts = ReadingCheckCounts()) {
        (self.codes, self.unconfirmed, self.counts) = (codes, unconfirmed, counts)
    }
}

/// The kind of an engine's reading check: what `DecoderEngine.readingCheck` holds, a value.
///
/// Two engines whose kinds differ (`==`) are different engines. Its checks are made per scanning
/// thread (`makeCheck`); the state they share in one output (readings held from frame to frame)
/// is made once per output and kept there (`makeSharedState`), opaque to `MetadataOutput`.
public protocol ReadingCheckKind: Sendable, Hashable {
    /// The state one output's checks of this kind share, made when its first scanner needs it.
    func makeSharedState() -> any Sendable
    /// A check for one scanning thread of `engine` (the engine this kind is of), sharing `shared`
    /// (what `makeSharedState` made for the output); `nil` when the engine lacks what it needs.
    func makeCheck(engine: DecoderEngine, shared: any Sendable) -> (any ReadingCheck)?
}

extension ReadingCheckKind {
    /// Whether `other` is this kind, with the same value.
    public func isSame(as other: any ReadingCheckKind) -> Bool { (other as? Self) == self }
}

/// What an engine's reading check (`ReadingCheck`) did with readings awaiting confirmation:
/// confirmed, settled, held, dropped, and (items) found misread.
///
/// Counted per frame (`MetadataOutput.ScanReport.readingCheck`) and by the item tracker (a held
/// reading its item confirms or contradicts), added up in `CaptureStatistics`; the stats line,
/// STATUS= and the metrics show them. Only an engine with a check counts any: `hybrid`, whose
/// check of zbar's 1-D readings (`Decoders`' `LinearReadingCheck`) says what each means there.
public struct ReadingCheckCounts: Sendable, Hashable {
    /// Readings a check could not take as they stood, emitted once confirmed: in their own frame
    /// (another library's or a second look's same payload), in another frame, or by their item.
    public var confirmed = 0
    /// Readings another library read differently where they lie: that one stands, the reading is dropped.
    public var settled = 0
    /// Readings nothing in their frame confirmed, held back (live source) or passed on to the items.
    public var held = 0
    /// Readings never emitted: unconfirmed on a file, or held and not confirmed in time.
    public var dropped = 0
    /// Held readings an item's other frames contradicted: another payload read where the item is
    /// (`ItemTracker`, items only).
    public var misread = 0

    public init(confirmed: Int = 0, settled: Int = 0, held: Int = 0, dropped: Int = 0, misread: Int = 0) {
        (self.confirmed, self.settled, self.held, self.dropped, self.misread) = (confirmed, settled, held, dropped, misread)
    }

    public var isEmpty: Bool { self == ReadingCheckCounts() }

    public mutating func add(_ other: ReadingCheckCounts) {
        confirmed += other.confirmed; settled += other.settled; held += other.held; dropped += other.dropped; misread += other.misread
    }
}

/// The state each kind of reading check shares across one output's scanning threads
/// (`ReadingCheckKind.makeSharedState`), by kind: opaque here, made on first use.
final class ReadingCheckStates: Sendable {
    private let states = LockedValue<[AnyHashable: any Sendable]>([:])

    /// `kind`'s state in this output, made when first asked for.
    func state(for kind: any ReadingCheckKind) -> any Sendable {
        states.withLock { states in
            let key = AnyHashable(kind)
            if let state = states[key] { return state }
            let state = kind.makeSharedState()
            states[key] = state
            return state
        }
    }
}
