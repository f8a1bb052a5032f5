import Media

/// Decides, in `trigger.mode: presentation`, whether a frame is scanned: whether its
/// eighth-scale luma picture changed since the last frame scanned by more than the scene's own
/// flutter (AVFoundation has no such thing; fixed-mount readers call it presentation mode).
///
/// The picture (`EighthScalePicture`) holds each 8×8 block's mean: sensor noise averages down
/// eightfold, and an MJPEG frame gives it from its DC coefficients without a full decode. It is
/// compared with the reference, the picture of the last frame scanned, after taking out what
/// changed globally: a least-squares fit `current ≈ gain × reference + offset` over the blocks
/// of the rect of interest that cannot hold clipped pixels (within `4 × changeLevel` of black
/// or white in either picture),
/// refitted once without the blocks that differ by more than twice `changeLevel` (so a moving
/// object does not bend the fit), absorbs mains flicker and
/// auto-exposure steps, which scale the whole picture. A block whose residual (against the
/// prediction clipped to 0–255) exceeds `changeLevel` grey levels has changed, with room near
/// white and black for pixels clipped in either picture (a highlight an exposure step saturates
/// has a mean short of the prediction; one saturated in the reference says only that it was at
/// least that bright); the frame has changed when `changeBlocks` blocks have.
///
/// Compared with the last frame *scanned*, not the previous one, a slow drift is seen once it
/// adds up, and every idle frame is within the threshold of a frame that was scanned (so its
/// codes may be taken as still there). After a change, the next `settleFrames` frames are scanned
/// too: a hand that brings a code and stops leaves a still, sharp picture that a blurred frame of
/// the motion may not have read. A frame whose picture cannot be made (a JPEG that does not
/// decode, a format without one) is scanned, so the scan says what it is (`undecodable`), and is
/// no change: the reference and the frames left to settle stay as they were.
///
/// A compressed frame (MJPEG) costs a partial decode to look at, so while the scene is idle only
/// every other one is looked at: the frame after one judged idle is idle unseen. A change is then
/// caught within two frame intervals; once one is, every frame is looked at until the scene is
/// idle again. A frame unseen is idle whatever it holds (one that would not decode too). The
/// compressed size is no guide: mains flicker moves it as much as a card brought into view.
///
/// Used by one thread (the session's source thread); its two pictures are reused frame to frame.
/// Several detectors judging the same frame share one picture of it (`isIdle(picture:settings:rect:)`).
public struct ChangeDetector: Sendable {
    /// Frames scanned after a changed one even when they did not change.
    public static let settleFrames = 2

    private var reference = EighthScalePicture()
    private var current = EighthScalePicture()
    private var hasReference = false
    private var settleLeft = 0
    /// Whether `current` holds a picture to keep as the reference if the frame is scanned.
    private var candidate = false
    /// Whether the frame judged last changed (else it is scanned to settle, or had no reference).
    private var changed = false
    /// `changedBlocks`'s table, kept so that judging a frame allocates nothing.
    private var bounds = [(low: Int, span: UInt)](repeating: (0, 0), count: 256)
    /// Whether the next frame, if compressed, goes unseen (the last one was looked at and judged idle).
    private var nextUnseen = false

    public init() {}

    /// Whether `frame` is idle (not to be scanned) under `settings`, looking at `rect` of it.
    /// When it is not, call `scanned()` once it is handed to a scanner.
    public mutating func isIdle(_ frame: borrowing VideoFrame, settings: TriggerSettings, rect: NormalizedRect = .full) -> Bool {
        let compressed = frame.format.isCompressed
        if nextUnseen && compressed {
            (nextUnseen, candidate, changed) = (false, false, false)
            return true
        }
        candidate = current.make(from: frame)
        let idle = judged(settings: settings, rect: rect)
        nextUnseen = idle && compressed
        return idle
    }

    /// `isIdle(_:settings:rect:)` for a frame whose picture was made already (`nil`: it could not
    /// be), so one reduction serves every detector judging the frame.
    public mutating func isIdle(picture: EighthScalePicture?, settings: TriggerSettings, rect: NormalizedRect = .full) -> Bool {
        if let picture { current.copy(from: picture) }
        candidate = picture != nil
        return judged(settings: settings, rect: rect)
    }

    /// Whether the frame whose picture is in `current` (when `candidate`) is idle.
    private mutating func judged(settings: TriggerSettings, rect: NormalizedRect) -> Bool {
        changed = false
        guard candidate else { return false }  // no picture: scanned, and no change
        guard hasReference, reference.width == current.width, reference.height == current.height else {
            changed = true  // a first picture: all of it is new
            return false
        }
        changed = Self.changedBlocks(current, against: reference, in: current.blocks(covering: rect), level: settings.changeLevel,
                                     bounds: &bounds)
            >= settings.changeBlocks
        return !changed && settleLeft == 0
    }

    /// The frame judged last was handed to a scanner: its picture becomes the reference, and a
    /// changed frame starts `settleFrames` more (a frame without a picture changes nothing).
    public mutating func scanned() {
        guard candidate else { return }
        swap(&reference, &current)
        settleLeft = changed ? Self.settleFrames : max(0, settleLeft - 1)
        hasReference = true
        candidate = false
    }

    /// Forgets the reference: the next frame is scanned (the mode was switched, the source reopened).
    public mutating func reset() {
        (hasReference, settleLeft, candidate, changed, nextUnseen) = (false, 0, false, false, false)
    }

    /// Blocks of `current` in `blocks` whose mean moved by more than `level` beyond the global
    /// gain and offset fitted against `reference` (the type's summary says how). The fit looks
    /// at every other block each way of a region at least `fitStrideMinimum` blocks across
    /// (a quarter of the blocks fix a global gain and offset as well); every block is judged.
    /// `table` is the caller's storage for the per-level bounds (256 entries).
    static func changedBlocks(_ current: EighthScalePicture, against reference: EighthScalePicture,
                              in blocks: (x: Range<Int>, y: Range<Int>), level: Double,
                              bounds table: inout [(low: Int, span: UInt)]) -> Int {
        let width = current.width
        let (top, bottom) = (255 - 4 * level, 4 * level)
        // Blocks that may hold clipped pixels bend the gain (an exposure step saturates a highlight).
        let (usableLow, usableHigh) = (Int(bottom.rounded(.up)), Int(top.rounded(.down)))
        let strideX = blocks.x.count >= Self.fitStrideMinimum ? 2 : 1, strideY = blocks.y.count >= Self.fitStrideMinimum ? 2 : 1
        return reference.pixels.withUnsafeBufferPointer { ref in
            current.pixels.withUnsafeBufferPointer { cur in
                // Per reference level (a block is a byte), the current levels a block may take, as
                // the lowest and the span above it (a level below wraps to a large unsigned
                // difference; an empty set is the lowest 256, which no level reaches): one compare a block.
                if table.count < 256 { table = [(low: Int, span: UInt)](repeating: (0, 0), count: 256) }
                return table.withUnsafeMutableBufferPointer { bounds in
                    var fit = (gain: 1.0, offset: 0.0), fitted = false
                    for round in 0..<2 {
                        for r in 0..<256 {
                            var (low, high) = (usableLow, usableHigh)
                            if round == 1 {
                                let p = Self.predicted(Double(r), fit)
                                (low, high) = (max(low, Int((p - 2 * level).rounded(.up))), min(high, Int((p + 2 * level).rounded(.down))))
                            }
                            if r < usableLow || r > usableHigh || high < low { (low, high) = (256, 256) }  // none: no level is 256
                            bounds[r] = (low, UInt(bitPattern: high &- low))
                        }
                        var (n, sx, sy, sxx, sxy) = (0, 0, 0, 0, 0)
                        for y in stride(from: blocks.y.lowerBound, to: blocks.y.upperBound, by: strideY) {
                            let row = y * width
                            for x in stride(from: blocks.x.lowerBound, to: blocks.x.upperBound, by: strideX) {
                                let r = Int(ref[row &+ x]), c = Int(cur[row &+ x])
                                let b = bounds[r]
                                let m = UInt(bitPattern: c &- b.low) <= b.span ? 1 : 0
                                let (mr, mc) = (m &* r, m &* c)
                                (n, sx, sy, sxx, sxy) = (n &+ m, sx &+ mr, sy &+ mc, sxx &+ mr &* r, sxy &+ mr &* c)
                            }
                        }
                        guard n > 0 else { break }
                        let count = Double(n), mx = Double(sx) / count, my = Double(sy) / count
                        let variance = Double(sxx) / count - mx * mx, covariance = Double(sxy) / count - mx * my
                        let gain = variance > 1 ? min(4, max(0.25, covariance / variance)) : 1
                        (fit, fitted) = ((gain, my - gain * mx), true)
                    }
                    // No block far enough from black and white in both pictures (a flash over a
                    // plain scene): the whole picture's shift is the offset, at a gain of 1.
                    if !fitted { fit = (1, Self.meanShift(cur, against: ref, width: width, in: blocks)) }
                    // Near white (black), a block's pixels may clip: in this frame its mean then falls
                    // short of (exceeds) the prediction by up to what the prediction reaches into the top
                    // (bottom) `4 × level` levels; in the reference, the prediction is as much too low (high).
                    for r in 0..<256 {
                        let unclipped = fit.gain * Double(r) + fit.offset, p = min(255, max(0, unclipped))
                        let up = level + max(0, bottom - unclipped) + fit.gain * max(0, Double(r) - top)
                        let down = level + max(0, unclipped - top) + fit.gain * max(0, bottom - Double(r))
                        let (low, high) = (Int((p - down).rounded(.up)), Int((p + up).rounded(.down)))
                        bounds[r] = high < low ? (256, 0) : (low, UInt(bitPattern: high &- low))  // none fits: every level changed
                    }
                    var changed = 0
                    for y in blocks.y {
                        let row = y * width
                        for x in blocks.x {
                            let r = Int(ref[row &+ x]), c = Int(cur[row &+ x])
                            let b = bounds[r]
                            changed &+= UInt(bitPattern: c &- b.low) > b.span ? 1 : 0
                        }
                    }
                    return changed
                }
            }
        }
    }

    /// The mean of `current` less that of `reference` over `blocks`.
    private static func meanShift(_ current: UnsafeBufferPointer<UInt8>, against reference: UnsafeBufferPointer<UInt8>, width: Int,
                                  in blocks: (x: Range<Int>, y: Range<Int>)) -> Double {
        var (sum, n) = (0, 0)
        for y in blocks.y {
            for x in blocks.x { sum += Int(current[y * width + x]) - Int(reference[y * width + x]) }
            n += blocks.x.count
        }
        return n > 0 ? Double(sum) / Double(n) : 0
    }

    /// Blocks across (each way) from which the gain and offset are fitted on every other block.
    static let fitStrideMinimum = 16

    /// The fit's prediction for a reference block, clipped as pixels are.
    private static func predicted(_ reference: Double, _ fit: (gain: Double, offset: Double)) -> Double {
        min(255, max(0, fit.gain * reference + fit.offset))
    }
}
