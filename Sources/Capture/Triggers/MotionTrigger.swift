import Media

/// Motion as a trigger (`trigger.motion` with `trigger.mode: triggered`): says at which frame a
/// presentation starts, so the session presses the trigger there (origin `motion`) and the read
/// window opens at it, ending in `good`, `no_read` or `multiple` as any press's.
///
/// Two `ChangeDetector`s (the presentation mode's: an eighth-scale picture, global brightness
/// changes fitted out) judge the frames. One compares each frame with the one before: a motion
/// lasts while frames change and `ChangeDetector.settleFrames` after, and a slow drift
/// (daylight) is never one. The other holds the background: the first still scene after the
/// source opened (or the setting was switched on). A motion presses at its first frame only when
/// the scene it starts from is the background, so a card brought in presses once however long it
/// moves, and taking it away (a motion from a scene with the card) presses nothing. A scene that
/// stays still and unlike the background for `backgroundAfter` of frame time (an object left in
/// view, the camera moved) becomes the background: the trigger never stays blind.
///
/// Each frame's eighth-scale picture is made once and handed to both detectors. A frame whose
/// picture cannot be made (an MJPEG frame that does not decode) is no change: it presses nothing
/// and leaves the trigger as it was.
///
/// Used by one thread (the session's source thread).
public struct MotionTrigger: Sendable {
    /// The origin of the presses it makes.
    public static let origin = "motion"
    /// Frame time a still scene unlike the background takes to become the background.
    public static let backgroundAfter = MediaTime(seconds: 30)

    private var frameToFrame = ChangeDetector()
    private var background = ChangeDetector()
    private var hasBackground = false
    /// Whether the last frame judged was in a motion (true at first: a first frame never presses).
    private var moving = true
    /// Whether the last still scene was the background.
    private var atBackground = false
    /// When the still scene unlike the background began.
    private var stillSince: MediaTime?
    /// The frame's picture, kept from frame to frame.
    private var picture = EighthScalePicture()
    /// Makes a frame's picture (`EighthScalePicture.make(from:)`); a seam for tests that count them.
    private let makePicture: @Sendable (inout EighthScalePicture, borrowing VideoFrame) -> Bool

    public init() { self.init(makePicture: { $0.make(from: $1) }) }

    init(makePicture: @escaping @Sendable (inout EighthScalePicture, borrowing VideoFrame) -> Bool) { self.makePicture = makePicture }

    /// Whether a presentation starts at `frame` under `settings`, looking at `rect` of it.
    public mutating func startsMotion(_ frame: borrowing VideoFrame, settings: TriggerSettings, rect: NormalizedRect = .full) -> Bool {
        let make = makePicture
        guard make(&picture, frame) else { return false }
        let still = frameToFrame.isIdle(picture: picture, settings: settings, rect: rect)
        frameToFrame.scanned()
        let wasMoving = moving
        moving = !still
        guard still else { return !wasMoving && hasBackground && atBackground }
        if !hasBackground {
            adopt(settings: settings, rect: rect)
        } else if wasMoving {
            // A motion ended: on the background again (a card taken away), or on something new.
            atBackground = background.isIdle(picture: picture, settings: settings, rect: rect)
            stillSince = atBackground ? nil : frame.presentationTime
        } else if let since = stillSince, frame.presentationTime - since >= Self.backgroundAfter {
            adopt(settings: settings, rect: rect)
        }
        return false
    }

    /// Forgets the scene: the next still scene is the background (the mode or the setting changed).
    public mutating func reset() {
        frameToFrame.reset()
        background.reset()
        (hasBackground, moving, atBackground, stillSince) = (false, true, false, nil)
    }

    /// Makes the scene in `picture` the background: judged and taken as scanned until the detector
    /// has settled on it (`settleFrames` after its first picture), then only judged against.
    private mutating func adopt(settings: TriggerSettings, rect: NormalizedRect) {
        background.reset()
        for _ in 0...ChangeDetector.settleFrames {
            _ = background.isIdle(picture: picture, settings: settings, rect: rect)
            background.scanned()
        }
        (hasBackground, atBackground, stillSince) = (true, true, nil)
    }
}
