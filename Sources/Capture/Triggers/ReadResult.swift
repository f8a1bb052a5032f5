import Media
import SystemCalls

/// What one read window of `trigger.mode: triggered` read, delivered once when it closes
/// (`ResultsHandler.readResult`): `good`, `no_read` (with its most promising frame) or `multiple`.
public struct ReadResult: Sendable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// 1 to `trigger.expected` codes read.
        case good
        /// No code read.
        case noRead = "no_read"
        /// More codes than `trigger.expected`.
        case multiple
    }

    public var kind: Kind
    /// The window's number, from 1 in a run of the service.
    public var window: UInt64
    /// The trigger that opened it (`sigusr1`, `mqtt`, `http`, `key`, `motion`).
    public var trigger: String
    /// The window's first and last frame.
    public var opened: ItemFrame
    public var closed: ItemFrame
    /// Distinct codes read: items added, when codes are reported as items, else distinct
    /// symbology and payload pairs.
    public var codes: Int
    /// The items the window added, in order (empty when codes are not reported as items).
    public var items: [UInt64]
    /// A code the window read: an item's first reading (reporting items), or a distinct code's.
    public struct Code: Sendable {
        public var item: UInt64?
        public var code: MachineReadableCodeObject
        public init(item: UInt64?, code: MachineReadableCodeObject) { (self.item, self.code) = (item, code) }
    }
    /// What the window read, in order, so a host needs no earlier line to know it (`codes` of them).
    public var read: [Code] = []
    /// Frames of the window that were scanned.
    public var framesScanned: Int
    /// A `no_read` window's most promising frame (`DiagnosisFrame`); `nil` for the others, or
    /// when no frame of it could be copied.
    public var diagnosis: DiagnosisFrame?
    /// The diagnosis JPEG's path, once a handler wrote it (for the handlers after it).
    public var snapshot: String?
    /// Why no diagnosis JPEG is written, when a handler knew it at once (`queue_full`, the
    /// directory's errno: `ENOSPC`); `nil` with `snapshot`, or when none was to be written.
    public var snapshotError: String?
    /// The diagnosis JPEG's bytes, once a handler encoded it (for the handlers after it).
    public var jpeg: [UInt8]?
    /// The window's tally against `match.list` (set by the match handler, first in the chain);
    /// `nil` when no list is configured.
    public var expected: ExpectedCounts?

    public init(kind: Kind, window: UInt64, trigger: String, opened: ItemFrame, closed: ItemFrame, codes: Int,
                items: [UInt64] = [], framesScanned: Int, diagnosis: DiagnosisFrame? = nil) {
        (self.kind, self.window, self.trigger, self.opened, self.closed) = (kind, window, trigger, opened, closed)
        (self.codes, self.items, self.framesScanned, self.diagnosis) = (codes, items, framesScanned, diagnosis)
    }

    /// The kind for `codes` read when `expected` were expected.
    public static func kind(codes: Int, expected: Int) -> Kind {
        codes == 0 ? .noRead : (codes <= expected ? .good : .multiple)
    }
}

/// A frame of a read window kept for diagnosis, with how promising it is.
public struct DiagnosisFrame: Sendable, Hashable {
    public var score: DiagnosisScore
    /// The whole frame, copied from the session's pool.
    public var pixels: FramePixels

    public init(score: DiagnosisScore, pixels: FramePixels) { (self.score, self.pixels) = (score, pixels) }
}

/// How promising a frame of a window that read nothing is for a person looking for why: more
/// codes detected and not decoded first, then sharper.
public struct DiagnosisScore: Sendable, Hashable, Comparable {
    /// Codes an engine detected in the frame and no pass read (`MetadataOutput.ScanReport.undecoded`).
    public var undecoded: Int
    /// Mean squared luma gradient over a subsampled grid (`Sharpness.gradientEnergy`).
    public var sharpness: Double

    public init(undecoded: Int, sharpness: Double) { (self.undecoded, self.sharpness) = (undecoded, sharpness) }

    public static func < (a: DiagnosisScore, b: DiagnosisScore) -> Bool {
        (a.undecoded, a.sharpness) < (b.undecoded, b.sharpness)
    }
}

/// The counts of the read windows over a run: results by kind and presses ignored, shared by
/// every session of a service (the stats line, STATUS=, `/status`, the metrics).
public final class ReadWindowCounts: Sendable {
    public struct Counts: Sendable, Hashable {
        public var good = 0, noRead = 0, multiple = 0
        /// Presses while a window was open (or in the same frame as the press that opened it).
        public var ignored = 0

        public init() {}
    }

    private let counts = LockedValue(Counts())

    public init() {}

    public var current: Counts { counts.withLock { $0 } }

    func count(_ kind: ReadResult.Kind) {
        counts.withLock { counts in
            switch kind {
            case .good: counts.good += 1
            case .noRead: counts.noRead += 1
            case .multiple: counts.multiple += 1
            }
        }
    }

    func countIgnored() { counts.withLock { $0.ignored += 1 } }
}
