import Media

/// When frames are scanned: every frame (`continuous`, the default), or only frames in which
/// something changed (`presentation`: a code shown to the camera wakes the scanner).
public struct TriggerSettings: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Every frame is scanned.
        case continuous
        /// A frame is scanned when its eighth-scale picture changed since the last frame scanned
        /// (`ChangeDetector`); the others are `idle` in the ledger.
        case presentation
    }

    public var mode: Mode
    /// Grey levels an 8×8 block's mean must move, beyond what the whole picture's brightness
    /// change explains, to count as changed.
    public var changeLevel: Double
    /// Changed blocks that make a frame changed (an 8×8 block each).
    public var changeBlocks: Int

    public static let defaultChangeLevel = 8.0
    public static let defaultChangeBlocks = 4

    public init(mode: Mode = .continuous, changeLevel: Double = TriggerSettings.defaultChangeLevel,
                changeBlocks: Int = TriggerSettings.defaultChangeBlocks) {
        (self.mode, self.changeLevel, self.changeBlocks) = (mode, changeLevel, max(1, changeBlocks))
    }
}
