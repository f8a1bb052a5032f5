import Media

/// When frames are scanned: every frame (`continuous`, the default), only frames in which
/// something changed (`presentation`: a code shown to the camera wakes the scanner), or only
/// frames in a read window a trigger opened (`triggered`).
public struct TriggerSettings: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Every frame is scanned.
        case continuous
        /// A frame is scanned when its eighth-scale picture changed since the last frame scanned
        /// (`ChangeDetector`); the others are `idle` in the ledger.
        case presentation
        /// A press of the trigger (`TriggerSwitch`) opens a read window; frames in it are scanned,
        /// the others are `untriggered`; each window ends in one `ReadResult`.
        case triggered
    }

    /// How long a read window stays open and what closes it early (`trigger.mode: triggered`).
    public struct Window: Sendable, Hashable {
        /// Frame time from the window's first frame: frames stamped this much later are outside it.
        public var duration: MediaTime
        /// Distinct codes (items, when codes are reported as items) that close the window; 0: no limit.
        public var codes: Int
        /// A release of the trigger closes the window.
        public var untilRelease: Bool

        public static let defaultDurationMilliseconds = 1000

        public init(duration: MediaTime = MediaTime(nanoseconds: Int64(Window.defaultDurationMilliseconds) * 1_000_000), codes: Int = 0,
                    untilRelease: Bool = false) {
            (self.duration, self.codes, self.untilRelease) = (duration, max(0, codes), untilRelease)
        }
    }

    public var mode: Mode
    /// Grey levels an 8×8 block's mean must move, beyond what the whole picture's brightness
    /// change explains, to count as changed.
    public var changeLevel: Double
    /// Changed blocks that make a frame changed (an 8×8 block each).
    public var changeBlocks: Int
    /// The read window (`triggered`).
    public var window: Window
    /// A change in the scene presses the trigger (origin `motion`, `MotionTrigger`): a card
    /// presented opens a read window (`triggered` only).
    public var motion: Bool
    /// Codes a window is expected to read: 1 to this many is `good`, more is `multiple`.
    public var expected: Int
    /// Where a `no_read` window's diagnosis JPEG is written; `nil`: the snapshots directory when
    /// snapshots are on, else none is written.
    public var noReadDirectory: String?
    /// No-read JPEGs kept in their directory: the oldest beyond are deleted (only files named as
    /// no-read images).
    public var noReadKeep: Int

    public static let defaultChangeLevel = 8.0
    public static let defaultChangeBlocks = 4
    public static let defaultNoReadKeep = 100

    public init(mode: Mode = .continuous, changeLevel: Double = TriggerSettings.defaultChangeLevel,
                changeBlocks: Int = TriggerSettings.defaultChangeBlocks, window: Window = Window(), motion: Bool = false, expected: Int = 1,
                noReadDirectory: String? = nil, noReadKeep: Int = TriggerSettings.defaultNoReadKeep) {
        (self.mode, self.changeLevel, self.changeBlocks) = (mode, changeLevel, max(1, changeBlocks))
        (self.window, self.expected, self.noReadDirectory) = (window, max(1, expected), noReadDirectory)
        (self.motion, self.noReadKeep) = (motion, max(1, noReadKeep))
    }
}
