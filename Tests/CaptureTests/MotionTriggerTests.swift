import JPEG
import Media
import SystemCalls
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

    /// Each frame's eighth-scale picture is made once, however many of the trigger's detectors
    /// judge it (the frame before, the background, a background adopted): a card laid down and
    /// taken away, counted through the trigger's picture builder.
    @Test func eachFrameIsReducedOnce() throws {
        let reductions = LockedValue(0)
        var motion = MotionTrigger(makePicture: { picture, frame in
            reductions.withLock { $0 += 1 }
            return picture.make(from: frame)
        })
        let settings = TriggerSettings(mode: .triggered, motion: true)
        var perFrame: [Int] = []
        var presses: [Int] = []
        for i in 0..<60 {
            let frame = try desk(seed: UInt64(i), card: (10..<30).contains(i))
                .videoFrame(sequenceNumber: UInt64(i), presentationTime: MediaTime(nanoseconds: Int64(i) * 40_000_000))
            let before = reductions.withLock { $0 }
            if motion.startsMotion(frame, settings: settings) { presses.append(i) }
            perFrame.append(reductions.withLock { $0 } - before)
        }
        #expect(presses == [10], "the scenario exercises the trigger: the card pressed once")
        #expect(perFrame.allSatisfy { $0 == 1 }, "reductions per frame: \(perFrame)")
    }

    /// A camera's MJPEG frame that does not decode is no change: among still frames of the
    /// background it presses nothing, and the motion after it still presses.
    @Test func anUndecodableMJPEGFrameIsNoMotion() throws {
        let decoder = JPEGLumaDecoder()
        func jpeg(_ frame: GreyFrame) throws -> [UInt8] {
            let (yuyv, stride) = frame.bytes(as: .yuyv)
            return try yuyv.withUnsafeBytes {
                try JPEGEncoder().encode($0, format: .yuyv, width: frame.width, height: frame.height, bytesPerLine: stride, quality: 88)
            }
        }
        // A JPEG whose headers are overwritten: no marker after the start of image.
        var corrupt = try jpeg(try desk(seed: 99, card: false))
        for i in 2..<min(corrupt.count, 400) { corrupt[i] = 0x00 }
        let eighth = [UInt8](repeating: 0, count: 40 * 30)
        let decodes = corrupt.withUnsafeBytes { raw in
            var out = eighth
            return out.withUnsafeMutableBytes { decoder.decodeLumaEighth(raw, width: 320, height: 240, into: $0) }
        }
        #expect(!decodes, "the corrupt frame's eighth-scale picture cannot be made")
        var motion = MotionTrigger()
        let settings = TriggerSettings(mode: .triggered, motion: true)
        var presses: [Int] = []
        for i in 0..<30 {
            let bytes = i == 12 ? corrupt : try jpeg(try desk(seed: UInt64(i), card: i >= 20))
            let pressed = bytes.withUnsafeBytes { raw in
                let frame = VideoFrame(sequenceNumber: UInt64(i), presentationTime: MediaTime(nanoseconds: Int64(i) * 40_000_000),
                                       width: 320, height: 240, bytesPerLine: 0, format: .mjpeg, buffer: PixelBuffer(bytes: raw) {},
                                       decoder: decoder)
                return motion.startsMotion(frame, settings: settings)
            }
            if pressed { presses.append(i) }
        }
        #expect(presses == [20], "only the card laid down at frame 20 pressed, not the corrupt frame 12")
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
