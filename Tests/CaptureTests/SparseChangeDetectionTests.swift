import Foundation
import Media
import TestSupport
import Testing
@testable import Capture

/// The change detector on its sparse pattern (an eighth of a GREY frame's rows read) and on
/// MJPEG frames while idle (every other frame looked at).
@Suite(.offThePool) struct SparseChangeDetectionTests {
    @Test("a small code presented anywhere wakes the scanner, whichever of its rows fall between the rows read")
    func aSmallCodeAnywhereWakes() throws {
        let reference = try scene(seed: 1)
        // A version-1 QR code at 2 pixels a module: 58 pixels square with its quiet zone, placed at
        // every offset from the bands read (8 rows every 32) and across the frame.
        var missed: [String] = []
        for (i, y) in stride(from: 0.0, through: 300, by: 9.5).enumerated() {
            let x = Double(20 + (i * 97) % 560)
            let shown = try scene(gain: 1.03, seed: UInt64(400 + i), code: "small", at: (x, y), moduleSize: 2)
            if try verdicts(after: reference, [shown], as: .grey) != [false] { missed.append("(\(x), \(y))") }
        }
        #expect(missed.isEmpty, "codes not seen at \(missed)")
    }

    @Test("a change confined between the rows read is not seen, one over a band read is")
    func onlyTheBandsReadAreLookedAt() throws {
        let reference = GreyFrame(width: 640, height: 360, background: 90).withNoise(amplitude: 4, seed: 1)
        func withBar(rows: Range<Int>, seed: UInt64) -> GreyFrame {
            var frame = GreyFrame(width: 640, height: 360, background: 90)
            for y in rows { for x in 100..<400 { frame[x, y] = 230 } }
            return frame.withNoise(amplitude: 4, seed: seed)
        }
        // Rows 40–63 lie between the bands read at 32–39 and 64–71.
        #expect(try verdicts(after: reference, [withBar(rows: 40..<64, seed: 2)], as: .grey) == [true])
        #expect(try verdicts(after: reference, [withBar(rows: 40..<66, seed: 3)], as: .grey) == [false])
    }

    @Test("a noisier sensor, mains flicker and an exposure step do not wake it on the sparse pattern")
    func noiseFlickerAndExposureStayIdle() throws {
        let reference = try scene(seed: 1, noise: 9)
        let frames = try (0..<24).map { i in
            let gain: Double = (i >= 12 ? 1.3 : 1) * (1 + 0.06 * sin(Double(i) * 2.1))
            return try scene(gain: gain, seed: UInt64(500 + i), noise: 9)
        }
        let idle = try verdicts(after: reference, frames, as: .grey)
        #expect(idle.allSatisfy { $0 }, "frames that woke it: \(idle.indices.filter { !idle[$0] })")
    }

    @Test("on MJPEG, the frame after an idle one goes unseen: a code that comes in on it is seen on the next frame")
    func mjpegLooksAtEveryOtherIdleFrame() throws {
        let reference = try scene(seed: 1)
        let still = try (0..<5).map { try scene(seed: UInt64(600 + $0)) }
        // The code comes in on frame 5, the one after an idle frame looked at (of 0–4, 0, 2 and 4 are).
        let shown = try (0..<4).map { try scene(seed: UInt64(610 + $0), code: "presented") }
        let idle = try verdicts(after: reference, still + shown, as: .mjpeg)
        #expect(Array(idle[0..<5]) == [true, true, true, true, true])
        #expect(Array(idle[5...]) == [true, false, false, false], "unseen, then seen and settled: \(idle)")
        // A GREY frame costs no decode: every one is looked at.
        let grey = try verdicts(after: reference, still + shown, as: .grey)
        #expect(Array(grey[5...]) == [false, false, false, true], "\(grey)")
    }
}
