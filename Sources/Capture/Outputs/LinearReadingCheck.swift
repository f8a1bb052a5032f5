import Media
import SystemCalls

/// What `hybrid`'s checks of 1-D readings did: readings confirmed, settled, held back and dropped.
///
/// Counted per frame (`MetadataOutput.ScanReport.readingCheck`), added up in `CaptureStatistics`;
/// the stats line, STATUS= and the metrics show them.
public struct ReadingCheckCounts: Sendable, Hashable {
    /// zbar-only readings emitted after a check: zxing-cpp read the same payload in a second look,
    /// or (live source) zbar read it again in another frame.
    public var confirmed = 0
    /// zbar readings of a code zxing-cpp read differently: zbar's dropped, zxing-cpp's emitted.
    public var settled = 0
    /// zbar-only readings held back on a live source, waiting for another frame.
    public var held = 0
    /// zbar-only readings never emitted: unconfirmed on a file, or held and not read again in time.
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

/// zbar-only readings held back on a live source until zbar reads them again in another frame
/// (shared by the scanning threads under `MetadataOutput`'s lock for it).
public struct HeldReadings: Sendable {
    /// How long (frame time, seconds) a held reading waits for a second sighting: the default
    /// duplicate window.
    static let window = 1.0

    /// Each held reading: when (frame time) and in which frame it was read.
    private var held: [CodeIdentity: (seconds: Double, seq: UInt64)] = [:]

    public init() {}

    /// Whether `code`, read in a frame at `seconds`, confirms a reading held from another frame
    /// within the window (it is then forgotten); if not, it is held (`counts.held`). Readings
    /// held longer than the window before `seconds` are forgotten and counted as dropped.
    mutating func confirms(_ code: CodeIdentity, seq: UInt64, seconds: Double, counts: inout ReadingCheckCounts) -> Bool {
        let expired = held.filter { abs(seconds - $0.value.seconds) > Self.window }
        counts.dropped += expired.count
        for key in expired.keys { held[key] = nil }
        if let earlier = held[code], earlier.seq != seq {
            held[code] = nil
            return true
        }
        if held[code] == nil { counts.held += 1 }
        held[code] = (seconds, seq)
        return false
    }
}

/// A second look at a 1-D code zbar read: zxing-cpp, then zbar, on a band of the frame around it,
/// turned upright and stretched 3 times along the bars' axis.
///
/// zbar reports a 1-D code as the points where its scan lines crossed it, which bound the code
/// across the bars but not always along them; the band is therefore the rows (or, for a code on
/// its side, the columns) zbar's points span, with a margin (at most `BandSecondLook.maxRows`
/// about their middle), across the whole frame. Stretching
/// gives zxing-cpp's row reader several pixels per module where the frame has about one, and
/// gives zbar samples at other places than the frame's.
public protocol SecondLook {
    /// The 1-D codes of `symbologies` read in the band around `code` in `frame`, in frame pixels,
    /// each with the library that read it (`engine`).
    func read(around code: MachineReadableCodeObject, in frame: VideoFrame, symbologies: Set<Symbology>) -> [MachineReadableCodeObject]
}

/// `SecondLook` through the libraries' own (`DecoderReader.readBand`): the checker's (zxing-cpp:
/// try-harder on; rotate, invert and downscale off, the band is upright), then, when it reads
/// nothing there, the checked library's on the code's symbology only (zbar).
public final class BandSecondLook: SecondLook {
    /// How many times the band is stretched along the bars' axis.
    public static let scale = 3
    /// The most rows (across the bars) a band has.
    public static let maxRows = 96
    private let checker: any DecoderReader, checked: any DecoderReader
    private var band: [UInt8] = []

    /// - Parameters:
    ///   - checker: the library whose second look is asked first (zxing-cpp).
    ///   - checked: the library whose readings are checked, asked when the checker reads nothing (zbar).
    public init(checker: any DecoderLibrary, checked: any DecoderLibrary) {
        (self.checker, self.checked) = (checker.makeReader(), checked.makeReader())
    }

    public func read(around code: MachineReadableCodeObject, in frame: VideoFrame, symbologies: Set<Symbology>) -> [MachineReadableCodeObject] {
        let sideways = code.orientation == .left || code.orientation == .right
        // Across the bars: zbar's span plus a margin; along them: the whole frame.
        let (across, acrossLimit, along) = sideways ? (code.bounds.x, frame.width, frame.height) : (code.bounds.y, frame.height, frame.width)
        let extent = sideways ? code.bounds.width : code.bounds.height
        let margin = max(12, extent / 2)
        // At most `maxRows` rows, about the middle of zbar's span: what the stretched band costs stays bounded.
        let middle = across + extent / 2, half = min(extent / 2 + margin, Self.maxRows / 2)
        let first = max(0, middle - half), last = min(acrossLimit, middle + half)
        let rows = last - first, width = along * Self.scale
        guard rows > 0, along > 1 else { return [] }
        if band.count < rows * width { band = [UInt8](repeating: 0, count: rows * width) }
        let (offset, step) = frame.format.lumaLayout
        frame.buffer.withUnsafeBytes { bytes in
            for r in 0..<rows {
                // Sample i along the bars of band row r; linear interpolation between frame samples.
                func sample(_ i: Int) -> Int {
                    let (x, y) = sideways ? (first + r, i) : (i, first + r)
                    return Int(bytes[offset + y * frame.bytesPerLine + x * step])
                }
                for i in 0..<width {
                    let position = min(Double(i) / Double(Self.scale), Double(along - 1)), left = min(Int(position), along - 2)
                    let t = position - Double(left)
                    band[r * width + i] = UInt8((Double(sample(left)) * (1 - t) + Double(sample(left + 1)) * t).rounded())
                }
            }
        }
        // Band pixels back to frame pixels: along / scale, across + first.
        func inFrame(_ object: MachineReadableCodeObject) -> MachineReadableCodeObject {
            var object = object
            object.corners = object.corners.map { p in
                sideways ? PixelPoint(x: first + p.y, y: p.x / Self.scale) : PixelPoint(x: p.x / Self.scale, y: first + p.y)
            }
            let xs = object.corners.map(\.x), ys = object.corners.map(\.y)
            object.bounds = PixelRect(x: xs.min() ?? 0, y: ys.min() ?? 0, width: (xs.max() ?? 0) - (xs.min() ?? 0),
                                      height: (ys.max() ?? 0) - (ys.min() ?? 0))
            object.orientation = code.orientation
            return object
        }
        func look(_ reader: any DecoderReader, _ symbologies: Set<Symbology>) -> [MachineReadableCodeObject] {
            let found = band.withUnsafeBytes { bytes in
                reader.readBand(LumaPlane(bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<(rows * width)]), width: width, height: rows,
                                          rowStride: width), symbologies: symbologies)
            }
            guard let found else { return [] }
            return found.codes.map { inFrame(MachineReadableCodeObject($0, frame: frame.info, pass: found.pass)) }
        }
        let byChecker = look(checker, symbologies.filter { !$0.isTwoDimensional })
        return byChecker.isEmpty ? look(checked, [code.symbology]) : byChecker
    }
}

/// `hybrid`'s check of its 1-D readings: a payload only zbar read is not emitted unchecked.
///
/// On photographed 1-D codes zbar misreads where zxing-cpp does not (`bench/misread.py`): EAN and
/// UPC digits swapped for others that still satisfy the check digit, ITF read short, Code 39 Full
/// ASCII given as its plain characters (`C39X+A+B` for `c39xab`). A zbar reading of a 1-D
/// symbology zxing-cpp reads is therefore
/// - emitted as before when a zxing-cpp pass of the frame read the same payload;
/// - *settled* when a zxing-cpp pass, or the second look, read a different payload where zbar's
///   lies: zbar's reading is dropped, zxing-cpp's stands (and is emitted);
/// - *confirmed* when the second look (`SecondLook`) read the same payload;
/// - *confirmed* too when zbar read it along at least `trustedQuality` scan lines (its `quality`)
///   and read no other payload of a symbology it could be confused with there along more than a
///   third as many: a single frame's evidence, so stills keep such readings (zbar's misreadings
///   of photographed EAN/UPC codes come from a few scan lines, `bench/misread.py`);
/// - otherwise (`Unconfirmed`): with items, *held* and passed on to the item tracker, which emits
///   it once the same item is read again in another frame (`ItemTracker`: *confirmed*, or
///   *misread* when another payload is read where it lies), on files and live sources alike;
///   without items, on a file *dropped*, on a live source *held* until zbar reads the same payload
///   in another frame within `HeldReadings.window` of frame time (then emitted with that frame:
///   *confirmed*), else dropped. A held reading costs at least one frame interval of latency.
///
/// zbar's Code 39 readings are first given Full ASCII's text where they are Full ASCII
/// (`fullASCII`), as zxing-cpp gives it, so both libraries' readings of one code are one payload.
///
/// zbar's readings of symbologies zxing-cpp does not read, and 2-D ones, pass unchecked. Which
/// library is checked and which checks is the engine's data (`DecoderEngine.ReadingCheck`).
public struct LinearReadingCheck {
    /// The library whose 1-D readings are checked (zbar).
    public let checked: DecoderLibraryID
    /// The library that checks them (zxing-cpp).
    public let checker: DecoderLibraryID
    let secondLook: any SecondLook

    public init(checked: DecoderLibraryID, checker: DecoderLibraryID, secondLook: any SecondLook) {
        (self.checked, self.checker, self.secondLook) = (checked, checker, secondLook)
    }

    /// What becomes of a reading nothing in its own frame confirms.
    public enum Unconfirmed {
        /// Dropped (a file without items).
        case dropped
        /// Held until zbar reads the same payload in another frame (a live source without items).
        case held(LockedValue<HeldReadings>)
        /// Passed on (`CheckedReadings.unconfirmed`) for the item tracker to confirm or not.
        case passedOn
    }

    /// `codes`, every reading of one frame by every pass, with the unconfirmed readings of the
    /// checked library taken out and the checker's readings of second looks added; the
    /// unconfirmed ones (with `.passedOn`); and what was done. `checkerReads`: the symbologies
    /// the checker reads in the engine.
    public func check(_ codes: [MachineReadableCodeObject], frame: VideoFrame, checkerReads: Set<Symbology>,
                      unconfirmed outcome: Unconfirmed) -> (codes: [MachineReadableCodeObject], unconfirmed: [MachineReadableCodeObject],
                                                           counts: ReadingCheckCounts) {
        var counts = ReadingCheckCounts(), kept: [MachineReadableCodeObject] = [], added: [MachineReadableCodeObject] = []
        var unconfirmed: [MachineReadableCodeObject] = []
        let byChecker = codes.filter { $0.engine == checker }
        let checkerPayloads = Set(byChecker.map(CodeIdentity.init))
        for var code in codes {
            guard code.engine == checked, !code.symbology.isTwoDimensional, checkerReads.contains(code.symbology) else { kept.append(code); continue }
            if code.symbology == .code39 { code = Self.fullASCII(code) }
            guard !checkerPayloads.contains(CodeIdentity(code)) else { kept.append(code); continue }
            if byChecker.contains(where: { Self.covers($0, code) }) { counts.settled += 1; continue }
            let second = secondLook.read(around: code, in: frame, symbologies: checkerReads)
                .map { $0.engine == checked && $0.symbology == .code39 ? Self.fullASCII($0) : $0 }
            if second.contains(where: { CodeIdentity($0) == CodeIdentity(code) }) {
                counts.confirmed += 1
                kept.append(code)
            } else if let other = second.first(where: { $0.engine == checker && Self.covers($0, code) }) {
                counts.settled += 1
                if !added.contains(where: { CodeIdentity($0) == CodeIdentity(other) }) { added.append(other) }
            } else if Self.trusted(code, among: codes) {
                counts.confirmed += 1
                kept.append(code)
            } else {
                switch outcome {
                case .held(let held):
                    let seconds = Double(frame.info.presentationTime.nanoseconds) / 1e9
                    if held.withLock({ $0.confirms(CodeIdentity(code), seq: frame.info.sequenceNumber, seconds: seconds, counts: &counts) }) {
                        counts.confirmed += 1
                        kept.append(code)
                    }
                case .passedOn:
                    counts.held += 1
                    unconfirmed.append(code)
                case .dropped:
                    counts.dropped += 1
                }
            }
        }
        return (kept + added.filter { !checkerPayloads.contains(CodeIdentity($0)) }, unconfirmed, counts)
    }

    /// Scan lines (zbar's `quality` of a 1-D code: the lines that decoded it) from which a zbar
    /// reading nothing else confirms is trusted on its own frame.
    public static let trustedQuality = 10

    /// Whether `code` was read along at least `trustedQuality` scan lines, and no other payload of
    /// a symbology it could be confused with (`ItemTracker.comparable`) was read where it lies
    /// (`MachineReadableCodeObject.overlaps`) by as many as a third of them.
    static func trusted(_ code: MachineReadableCodeObject, among codes: [MachineReadableCodeObject]) -> Bool {
        guard let quality = code.quality, quality >= trustedQuality else { return false }
        return !codes.contains { other in
            other.mainData != code.mainData && ItemTracker.comparable(other.symbology, code.symbology) && other.overlaps(code)
                && 3 * (other.quality ?? quality) > quality
        }
    }

    /// A Code 39 reading of zbar's with its Full ASCII pairs decoded, as zxing-cpp gives them (`+A`
    /// is `a`, `$A` is 0x01, `/A` is `!`, `%U` is NUL, …); as it is when a pair is not one of
    /// Full ASCII's (it is then plain Code 39) or there is none.
    static func fullASCII(_ code: MachineReadableCodeObject) -> MachineReadableCodeObject {
        var decoded: [UInt8] = [], bytes = code.data.makeIterator()
        let percent: [UInt8] = Array(0x1B...0x1F) + Array(";<=>?".utf8) + Array("[\\]^_".utf8) + Array("{|}~".utf8) + [0x7F, 0x00, 0x40, 0x60, 0x7F, 0x7F, 0x7F]
        while let byte = bytes.next() {
            guard "$%/+".utf8.contains(byte) else { decoded.append(byte); continue }
            guard let next = bytes.next(), (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(next) else { return code }
            let letter = Int(next - UInt8(ascii: "A"))
            switch byte {
            case UInt8(ascii: "$"): decoded.append(UInt8(letter + 1))
            case UInt8(ascii: "%"): decoded.append(percent[letter])
            case UInt8(ascii: "/"):
                guard letter < 15 || next == UInt8(ascii: "Z") else { return code }
                decoded.append(next == UInt8(ascii: "Z") ? UInt8(ascii: ":") : UInt8(letter + 0x21))
            default: decoded.append(next + 32)
            }
        }
        guard decoded != code.data else { return code }
        var converted = code
        converted.data = decoded
        converted.text = String(decoding: decoded, as: UTF8.self)
        return converted
    }

    /// Whether zxing-cpp's 1-D `reading` lies where zbar's `code` does: the centre of zbar's
    /// points within zxing-cpp's bounds, a few pixels of slack around them.
    static func covers(_ reading: MachineReadableCodeObject, _ code: MachineReadableCodeObject) -> Bool {
        guard !reading.symbology.isTwoDimensional else { return false }
        let slack = 4
        let (cx, cy) = (code.bounds.x + code.bounds.width / 2, code.bounds.y + code.bounds.height / 2)
        return cx >= reading.bounds.x - slack && cx <= reading.bounds.x + reading.bounds.width + slack
            && cy >= reading.bounds.y - slack && cy <= reading.bounds.y + reading.bounds.height + slack
    }
}
