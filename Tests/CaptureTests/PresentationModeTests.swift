import Foundation
import JPEG
import Logging
import Media
import SystemCalls
import TestSupport
import Testing
@testable import Capture

private let width = 640, height = 360

/// A textured 640x360 scene (levels 40–220, so an exposure step clips a third of it), times
/// `gain` (mains flicker, an exposure step), with `code` as a QR code held at a fixed place,
/// and sensor noise of ±`noise` grey levels that differs frame to frame (`seed`).
func scene(gain: Double = 1, seed: UInt64, code: String? = nil, at place: (x: Double, y: Double) = (380, 100), moduleSize: Double = 4,
           noise: Int = 6) throws -> GreyFrame {
    var frame = GreyFrame(width: width, height: height)
    for y in 0..<height {
        for x in 0..<width {
            let level = 40 + (x * 120) / width + ((x / 40 + y / 30) % 3) * 30
            frame[x, y] = UInt8(level)
        }
    }
    // A printed card under ordinary light: ink and paper well inside the sensor's range.
    if let code { frame.draw(try ModuleMatrix.qrCode(code), x: place.x, y: place.y, moduleSize: moduleSize, dark: 20, light: 225) }
    for y in 0..<height {
        for x in 0..<width { frame[x, y] = UInt8(clamping: Int((Double(frame[x, y]) * gain).rounded())) }
    }
    return frame.withNoise(amplitude: noise, seed: seed)
}

/// How a frame reaches the detector: as GREY pixels (a pipe) or as a camera's MJPEG frame.
enum PresentedFormat: String, CaseIterable, Sendable { case grey, mjpeg }

private let decoder = JPEGLumaDecoder()

/// `frame` as a `format` video frame; the pixels (or the JPEG) live as long as `body` runs.
func withVideoFrame<R>(_ frame: GreyFrame, as format: PresentedFormat, seq: UInt64,
                               _ body: (VideoFrame) throws -> R) throws -> R {
    let bytes: [UInt8]
    switch format {
    case .grey: bytes = frame.packedPixels
    case .mjpeg:
        let (yuyv, stride) = frame.bytes(as: .yuyv)
        bytes = try yuyv.withUnsafeBytes { try JPEGEncoder().encode($0, format: .yuyv, width: width, height: height, bytesPerLine: stride, quality: 88) }
    }
    return try bytes.withUnsafeBytes { raw in
        let video = VideoFrame(sequenceNumber: seq, presentationTime: MediaTime(nanoseconds: Int64(seq) * 33_333_333),
                               width: width, height: height, bytesPerLine: format == .grey ? width : 0,
                               format: format == .grey ? .grey : .mjpeg, buffer: PixelBuffer(bytes: raw) {},
                               decoder: format == .mjpeg ? decoder : nil)
        return try body(video)
    }
}

/// The detector's verdict on each of `frames`, after `reference` was scanned.
func verdicts(after reference: GreyFrame, _ frames: [GreyFrame], as format: PresentedFormat) throws -> [Bool] {
    var detector = ChangeDetector()
    let settings = TriggerSettings(mode: .presentation)
    let first = try withVideoFrame(reference, as: format, seq: 0) { detector.isIdle($0, settings: settings) }
    #expect(!first, "the first frame has nothing to compare with: it is scanned")
    detector.scanned()
    // Past the frames a change settles for.
    for i in 0..<ChangeDetector.settleFrames {
        let settling = try withVideoFrame(reference, as: format, seq: UInt64(1 + i)) { detector.isIdle($0, settings: settings) }
        #expect(!settling, "a changed frame is followed by \(ChangeDetector.settleFrames) frames scanned to settle")
        detector.scanned()
    }
    return try frames.enumerated().map { i, frame in
        let idle = try withVideoFrame(frame, as: format, seq: UInt64(10 + i)) { detector.isIdle($0, settings: settings) }
        if !idle { detector.scanned() }
        return idle
    }
}

@Suite(.offThePool) struct PresentationModeTests {
    @Test("sensor noise, mains flicker and an exposure step do not wake the scanner", arguments: PresentedFormat.allCases)
    func noiseFlickerAndExposureDoNotWake(format: PresentedFormat) throws {
        let reference = try scene(seed: 1)
        // 100 Hz flicker seen at 30 fps: a ±8 % brightness oscillation; then an exposure step of +35 %.
        let flicker = try (0..<12).map { try scene(gain: 1 + 0.08 * sin(Double($0) * 2.1), seed: UInt64(2 + $0)) }
        let step = try (0..<6).map { try scene(gain: 1.35, seed: UInt64(20 + $0)) }
        let noise = try (0..<6).map { try scene(seed: UInt64(30 + $0)) }
        let idle = try verdicts(after: reference, noise + flicker + step, as: format)
        #expect(idle.allSatisfy { $0 }, "frames that woke it: \(idle.indices.filter { !idle[$0] })")
    }

    @Test("a plain scene that flashes between dark and bright (no block clear of black and white in both) does not wake it",
          arguments: PresentedFormat.allCases)
    func aFlashingPlainSceneDoesNotWake(format: PresentedFormat) throws {
        func plain(_ level: UInt8, seed: UInt64) -> GreyFrame { GreyFrame(width: width, height: height, background: level).withNoise(amplitude: 4, seed: seed) }
        let flashes = (0..<10).map { plain($0 % 2 == 0 ? 240 : 18, seed: UInt64(50 + $0)) }
        let idle = try verdicts(after: plain(18, seed: 49), flashes, as: format)
        #expect(idle.allSatisfy { $0 }, "frames that woke it: \(idle.indices.filter { !idle[$0] })")
        // A code shown on the plain scene still wakes it.
        var card = plain(240, seed: 70)
        card.draw(try ModuleMatrix.qrCode("on a plain wall"), x: 300, y: 100, moduleSize: 4, dark: 20, light: 225)
        #expect(try verdicts(after: plain(18, seed: 49), [card], as: format) == [false])
    }

    @Test("a code presented wakes the scanner; the frames after it settle, then it idles", arguments: PresentedFormat.allCases)
    func aCodePresentedWakes(format: PresentedFormat) throws {
        let reference = try scene(seed: 1)
        let shown = try (0..<6).map { try scene(gain: 1.04, seed: UInt64(40 + $0), code: "presented") }
        let idle = try verdicts(after: reference, shown, as: format)
        // The code's frame changed, the next two are scanned to settle, then nothing changes.
        #expect(idle == [false, false, false, true, true, true])
    }

    @Test("on a camera's MJPEG frames (the eighth-scale decode) it wakes on the frames it wakes on in the full grey picture")
    func scaledDecodeWakesAsTheFullPicture() throws {
        let reference = try scene(seed: 1)
        // Noise and flicker, a code shown for 5 frames, gone, shown again, then an exposure step.
        let frames = try (0..<30).map { i in
            let gain = (i >= 22 ? 1.3 : 1) * (1 + 0.06 * sin(Double(i) * 2.1))
            return try scene(gain: gain, seed: UInt64(50 + i), code: (6..<11).contains(i) || (16..<19).contains(i) ? "presented" : nil)
        }
        let grey = try verdicts(after: reference, frames, as: .grey), mjpeg = try verdicts(after: reference, frames, as: .mjpeg)
        #expect(mjpeg == grey, "woke on MJPEG: \(mjpeg.indices.filter { !mjpeg[$0] }), on GREY: \(grey.indices.filter { !grey[$0] })")
        // Woken by the code coming and going, twice (each followed by frames to settle), by nothing else.
        #expect(grey.indices.filter { !grey[$0] } == [6, 7, 8, 11, 12, 13, 16, 17, 18, 19, 20, 21])
    }

    @Test("the picture of a GREY frame is the mean of each 8x8 block of every fourth block row over its even rows, for any frame size")
    func blockMeans() throws {
        var frame = GreyFrame(width: 21, height: 34, background: 10)
        for y in 0..<34 { for x in 16..<21 { frame[x, y] = 250 } }
        frame[0, 0] = 74  // one sample 64 above the rest, in an even row: the mean of the block's 32 samples read rises by 2
        frame[1, 1] = 250  // odd rows are not read
        for x in 0..<16 { frame[x, 8] = 250 }  // block rows 1 to 3 are not read
        frame[8, 32] = 138  // block row 4 has rows 32 and 33 only, and 32 is read: 8 samples, the mean up by 16
        frame[9, 33] = 250  // an odd row of the last block row: not read
        var picture = EighthScalePicture()
        let made = try withVideoFrame(frame, as: .grey, seq: 0) { video in
            var video = video
            (video.width, video.height, video.bytesPerLine) = (21, 34, 21)
            return picture.make(from: video)
        }
        #expect(made)
        #expect(picture.width == 3 && picture.height == 2 && picture.blockRowStep == 4)
        #expect(picture.pixels == [12, 10, 250, 10, 26, 250])
    }

    @Test("the block means equal the plain mean of each block's samples read, for planar and packed luma, any width, stride and pattern")
    func blockMeansMatchThePlainMean() {
        var generator = SystemRandomNumberGenerator()
        let patterns: [EighthScalePicture.Sampling] = [.sparse, .evenRows, .every, .init(blockRowStep: 2, firstRow: 5, rowStep: 3)]
        for (width, height, step, offset) in [(1283, 21, 1, 0), (77, 17, 1, 0), (77, 39, 1, 0), (86, 9, 2, 0), (86, 35, 2, 1)] {
            for sampling in patterns {
                let bytesPerLine = width * step + 13
                let bytes = (0..<(bytesPerLine * height)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let (w, h) = sampling.size(width: width, height: height)
                var out = [UInt8](repeating: 0, count: w * h), scratch: [UInt64] = []
                bytes.withUnsafeBytes { raw in
                    out.withUnsafeMutableBufferPointer {
                        EighthScalePicture.blockMeans(of: raw, width: width, height: height, bytesPerLine: bytesPerLine,
                                                      luma: (offset, step), sampling: sampling, scratch: &scratch, into: $0)
                    }
                }
                let plain = (0..<h).flatMap { row in
                    let by = row * sampling.blockRowStep, end = min(height, by * 8 + 8)
                    return (0..<w).map { bx in
                        let samples = stride(from: min(by * 8 + sampling.firstRow, end - 1), to: end, by: sampling.rowStep).flatMap { y in
                            (bx * 8..<min(width, bx * 8 + 8)).map { x in Int(bytes[y * bytesPerLine + offset + x * step]) }
                        }
                        return UInt8((samples.reduce(0, +) + samples.count / 2) / samples.count)
                    }
                }
                #expect(out == plain, "\(width)x\(height), step \(step), \(sampling)")
            }
        }
    }

    /// `source` through zbar in presentation mode, codes reported as items: its statistics and what the handler saw.
    private func runInPresentationMode(_ source: ScriptedFrameSource) async throws -> (CaptureStatistics, ItemRecorder) {
        var settings = MetadataOutput.Settings(engine: .zbar)
        settings.trigger = TriggerSettings(mode: .presentation)
        let handler = ItemRecorder()
        let pipeline = CapturePipeline(input: source, videoDataOutput: VideoDataOutput(), metadataOutput: MetadataOutput(settings: settings),
                                       handler: handler, reporting: .items(ItemTracker.Settings()), logger: Logger(label: "test"))
        return (try await pipeline.run(), handler)
    }

    @Test("idle frames are counted with reason idle, a code presented is read, and held still it stays one item")
    func heldCodeStaysOneItem() async throws {
        // 20 frames of an empty scene (noise, flicker), 45 with a code held still, 25 without it.
        let frames = try (0..<90).map { i in
            try scene(gain: 1 + 0.06 * sin(Double(i) * 2.1), seed: UInt64(100 + i), code: (20..<65).contains(i) ? "held still" : nil)
        }
        let source = ScriptedFrameSource(steps: frames.enumerated().map { .frame(UInt64($0.offset), pixels: $0.element.packedPixels) },
                                         isLive: false, width: width, height: height)
        let (statistics, handler) = try await runInPresentationMode(source)

        let reasons = handler.reasons
        #expect(reasons.count == 90)
        let idle = reasons.indices.filter { reasons[$0] == .idle }
        #expect(statistics.dropped[.idle] == idle.count && statistics.scanned + idle.count == 90)
        #expect(idle.count >= 70, "scanned: \(reasons.indices.filter { reasons[$0] == nil })")
        // The code's arrival and its leaving woke it.
        #expect(reasons[20] == nil && reasons[65] == nil)
        #expect(handler.added.map(\.text) == ["held still"], "one item, added when the code came")
        #expect(handler.added.first?.seq == 20)
        let removed = handler.removed
        #expect(removed.count == 1)
        // Idle frames kept it alive to the last frame it was held in; it left after its grace.
        #expect(removed.first?.last.sequenceNumber == 64)
    }

    @Test("an idle MJPEG frame is never decoded whole: only the frames scanned are, and the ledger counts the others idle")
    func idleMJPEGFramesAreNotDecodedWhole() async throws {
        let frames = try (0..<60).map { i in
            try scene(gain: 1 + 0.06 * sin(Double(i) * 2.1), seed: UInt64(200 + i), code: (20..<40).contains(i) ? "held still" : nil)
        }
        let jpegs = try frames.map { frame in
            let (yuyv, stride) = frame.bytes(as: .yuyv)
            return try yuyv.withUnsafeBytes { try JPEGEncoder().encode($0, format: .yuyv, width: width, height: height, bytesPerLine: stride, quality: 88) }
        }
        let counting = CountingDecoder(JPEGLumaDecoder())
        let source = ScriptedFrameSource(steps: jpegs.enumerated().map { .frame(UInt64($0.offset), pixels: $0.element) },
                                         isLive: false, width: width, height: height, decoder: counting)
        let (statistics, handler) = try await runInPresentationMode(source)

        let reasons = handler.reasons
        let idle = reasons.indices.filter { reasons[$0] == .idle }
        #expect(reasons.count == 60 && statistics.scanned + idle.count == 60 && statistics.dropped[.idle] == idle.count)
        #expect(idle.count >= 45, "scanned: \(reasons.indices.filter { reasons[$0] == nil })")
        // An idle frame looked at leaves the next unseen (its size as the last one's): at most every other idle frame is looked at.
        let looked = counting.eighth
        #expect(looked < 60 && looked <= statistics.scanned + (idle.count + 1) / 2, "eighth-scale pictures made: \(looked)")
        #expect(counting.full == statistics.scanned, "a full decode for each frame scanned, none for an idle one")
        // The code came in on frame 20; an idle MJPEG frame's successor may go unseen: read at 20 or 21.
        #expect(handler.added.map(\.text) == ["held still"] && [20, 21].contains(handler.added.first?.seq), "\(handler.added)")
    }

    @Test("an MJPEG frame that does not decode is no change: it stays undecodable in the ledger and the still frames after it stay idle")
    func anUndecodableMJPEGFrameDoesNotWake() async throws {
        var jpegs = try (0..<16).map { i in
            let (yuyv, stride) = try scene(seed: UInt64(300 + i)).bytes(as: .yuyv)
            return try yuyv.withUnsafeBytes { try JPEGEncoder().encode($0, format: .yuyv, width: width, height: height, bytesPerLine: stride, quality: 88) }
        }
        // Frames 0–2 are scanned (the first and the two that settle it); from 3 on, every other
        // one is looked at (3, 5, 7, 9…) and the ones between go unseen, idle.
        for i in 2..<400 { jpegs[9][i] = 0x00 }  // its headers overwritten: no marker after the start of image
        let source = ScriptedFrameSource(steps: jpegs.enumerated().map { .frame(UInt64($0.offset), pixels: $0.element) },
                                         isLive: false, width: width, height: height, decoder: JPEGLumaDecoder())
        let (_, handler) = try await runInPresentationMode(source)
        let reasons = handler.reasons
        #expect(reasons.count == 16)
        #expect(reasons[9] == .undecodable, "looked at, handed to the scan, which finds it undecodable, as before")
        let scanned = reasons.indices.filter { reasons[$0] == nil }
        #expect(scanned == [0, 1, 2], "the first frame and the two that settle it; none woken by the corrupt frame")
        #expect(reasons[3..<9].allSatisfy { $0 == .idle }, "\(reasons)")
        #expect(reasons[10...].allSatisfy { $0 == .idle }, "\(reasons)")
    }
}

/// Counts a decoder's full and eighth-scale decodes, passing each on.
private final class CountingDecoder: CompressedFrameDecoder, @unchecked Sendable {
    private let decoder: any CompressedFrameDecoder
    private let counts = LockedValue((full: 0, eighth: 0))
    init(_ decoder: any CompressedFrameDecoder) { self.decoder = decoder }

    var full: Int { counts.withLock { $0.full } }
    var eighth: Int { counts.withLock { $0.eighth } }

    func decodeLuma(_ compressed: UnsafeRawBufferPointer, width: Int, height: Int,
                    into luma: UnsafeMutableRawBufferPointer) -> LumaDecodeResult {
        counts.withLock { $0.full += 1 }
        return decoder.decodeLuma(compressed, width: width, height: height, into: luma)
    }

    func decodeLumaEighth(_ compressed: UnsafeRawBufferPointer, width: Int, height: Int,
                          into luma: UnsafeMutableRawBufferPointer) -> Bool {
        counts.withLock { $0.eighth += 1 }
        return decoder.decodeLumaEighth(compressed, width: width, height: height, into: luma)
    }
}

/// Records the codes added, the items removed and every frame's ledger reason.
private final class ItemRecorder: ResultsHandler, @unchecked Sendable {
    private let seen = LockedValue<(added: [(text: String?, seq: UInt64)], removed: [RemovedItem], reasons: [DroppedReason?])>(([], [], []))

    func handle(_ code: inout DeliveredCode) throws {
        let entry = (code.code.text, code.code.frame.sequenceNumber)
        seen.withLock { $0.added.append(entry) }
    }

    func itemRemoved(_ item: RemovedItem) throws { seen.withLock { $0.removed.append(item) } }
    func frameCompleted(_ collection: SynchronizedDataCollection) throws { seen.withLock { $0.reasons.append(collection.video.droppedReason) } }

    var added: [(text: String?, seq: UInt64)] { seen.withLock { $0.added } }
    var removed: [RemovedItem] { seen.withLock { $0.removed } }
    var reasons: [DroppedReason?] { seen.withLock { $0.reasons } }
}
