import Media
import TestSupport
import Testing
@testable import Capture

/// A grey desk with sensor noise (±6 levels, `seed`), and a QR card on it when `card`.
private func desk(seed: UInt64, card: Bool) throws -> GreyFrame {
    var frame = GreyFrame(width: 320, height: 240, background: 120)
    if card { frame.draw(try ModuleMatrix.qrCode("card"), centerX: 160, centerY: 120, moduleSize: 4) }
    return frame.withNoise(amplitude: 6, seed: seed)
}

@Suite struct MotionTriggerTests {
    /// The frames (at 25 fps) at which a presentation starts when a card lies on the desk from
    /// frame 10 until `removedAt`.
    private func presses(cardUntil removedAt: Int, frames: Int) throws -> [Int] {
        var motion = MotionTrigger()
        let settings = TriggerSettings(mode: .triggered, motion: true)
        let (empty, card) = (try (0..<4).map { try desk(seed: $0, card: false) }, try (0..<4).map { try desk(seed: 10 + $0, card: true) })
        return try (0..<frames).filter { i in
            let scene = (10..<removedAt).contains(i) ? card[i % 4] : empty[i % 4]
            let frame = scene.videoFrame(sequenceNumber: UInt64(i), presentationTime: MediaTime(nanoseconds: Int64(i) * 40_000_000))
            return motion.startsMotion(frame, settings: settings)
        }
    }

    /// A card laid down presses once; taking it away 20 s later presses nothing: the desk is
    /// still the background.
    @Test func takingACardAwayIsNoPresentation() throws {
        #expect(try presses(cardUntil: 10 + 500, frames: 540) == [10])
    }

    /// A card left 31 s becomes the background: taking it away is then a change from the
    /// background, and presses (the trigger never stays blind to a scene that changed for good).
    @Test func aSceneStillForThirtySecondsBecomesTheBackground() throws {
        #expect(try presses(cardUntil: 10 + 775, frames: 800) == [10, 785])
    }

    /// The first frame, with nothing to compare with, is the scene, not a motion; switching off
    /// (`reset`) forgets the background.
    @Test func theFirstFrameNeverPresses() throws {
        var motion = MotionTrigger()
        let settings = TriggerSettings(mode: .triggered, motion: true)
        let card = try desk(seed: 1, card: true).videoFrame(sequenceNumber: 0)
        let first = motion.startsMotion(card, settings: settings)
        motion.reset()
        let afterReset = motion.startsMotion(card, settings: settings)
        #expect(!first && !afterReset)
    }
}
