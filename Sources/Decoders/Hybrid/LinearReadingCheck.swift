import Capture
import Media
import SystemCalls

/// zbar-only readings held back on a live source until zbar reads them again in another frame
/// (shared by one output's scanning threads under its lock: the state
/// `LinearReadingCheck.Kind.makeSharedState` makes, which `MetadataOutput` keeps for them).
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
/// - otherwise (`UnconfirmedReadings`): with items, *held* and passed on to the item tracker, which emits
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
/// library is checked and which checks is the engine's data (`Kind`, `DecoderEngine.hybrid`'s
/// `readingCheck`); `MetadataOutput` knows it as a `ReadingCheck` only.
public struct LinearReadingCheck: ReadingCheck {
    /// The library whose 1-D readings are checked (zbar).
    public let checked: DecoderLibraryID
    /// The library that checks them (zxing-cpp).
    public let checker: DecoderLibraryID
    /// The symbologies the checker reads in the engine: a frame's requested ones it reads are checked.
    let checkerReadable: Set<Symbology>
    let secondLook: any SecondLook
    /// Readings held on a live source (`UnconfirmedReadings.held`), shared with the output's other scanning threads.
    let held: LockedValue<HeldReadings>

    /// - Parameters:
    ///   - checkerReadable: the symbologies `checker` reads in the engine (`DecoderEngine.part(of:for:)`).
    ///   - held: the readings held on a live source, shared by one output's checks.
    public init(checked: DecoderLibraryID, checker: DecoderLibraryID, checkerReadable: Set<Symbology>, secondLook: any SecondLook,
                held: LockedValue<HeldReadings> = LockedValue(HeldReadings())) {
        (self.checked, self.checker, self.checkerReadable, self.secondLook, self.held) = (checked, checker, checkerReadable, secondLook, held)
    }

    /// `hybrid`'s check as an engine's data: which library's readings are checked, which checks
    /// them (with its second look, `DecoderReader.readBand`); the state it makes for an output is
    /// the readings held on a live source.
    public struct Kind: ReadingCheckKind {
        /// The library whose 1-D readings are checked (zbar).
        public var checked: DecoderLibraryID
        /// The library that checks them (zxing-cpp).
        public var checker: DecoderLibraryID
        public init(checked: DecoderLibraryID, checker: DecoderLibraryID) { (self.checked, self.checker) = (checked, checker) }

        public func makeSharedState() -> any Sendable { LockedValue(HeldReadings()) }

        /// A check with a `BandSecondLook` of the engine's two libraries; `nil` when the engine lacks one of them.
        public func makeCheck(engine: DecoderEngine, shared: any Sendable) -> (any ReadingCheck)? {
            guard let checkerLibrary = engine.library(checker), let checkedLibrary = engine.library(checked) else { return nil }
            guard let held = shared as? LockedValue<HeldReadings> else { preconditionFailure("a shared state \(type(of: shared)) not made by LinearReadingCheck.Kind") }
            return LinearReadingCheck(checked: checked, checker: checker, checkerReadable: engine.part(of: engine.readable, for: checker),
                                      secondLook: BandSecondLook(checker: checkerLibrary, checked: checkedLibrary), held: held)
        }
    }

    /// `codes`, every reading of one frame by every pass, with the unconfirmed readings of the
    /// checked library taken out and the checker's readings of second looks added; the
    /// unconfirmed ones (with `.passedOn`); and what was done. The checker's part of
    /// `symbologies` (`checkerReadable`) is what is checked.
    public func check(_ codes: [MachineReadableCodeObject], frame: VideoFrame, symbologies: Set<Symbology>,
                      unconfirmed outcome: UnconfirmedReadings) -> CheckedReadings {
        let checkerReads = symbologies.intersection(checkerReadable)
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
                case .held:
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
        return CheckedReadings(codes: kept + added.filter { !checkerPayloads.contains(CodeIdentity($0)) }, unconfirmed: unconfirmed, counts: counts)
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
