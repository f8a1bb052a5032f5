import CZXing
import Media

/// A code zxing-cpp found in one image.
public struct ZXingBarcode: Sendable, Hashable {
    public var symbology: Symbology
    /// The payload exactly as encoded (`ZXing_Barcode_bytes`): no character-set conversion, no ECI
    /// markers, NUL and invalid UTF-8 kept.
    public var data: [UInt8]
    /// The payload as the symbology decodes it (`ZXing_Barcode_text`, plain text mode): ECI
    /// designators honoured, else the symbology's default character set (ISO-8859-1 for QR byte
    /// mode, Shift_JIS for Kanji mode); `nil` when zxing-cpp finds no text meaning in it
    /// (`ZXing_ContentType_Binary`), and when the payload holds a NUL byte (the C API gives the
    /// text as a C string, which would end there).
    public var text: String?
    /// The nearest quarter turn to `ZXing_Barcode_orientation`.
    public var orientation: SymbolOrientation
    /// The code's own top-left, top-right, bottom-right and bottom-left corners
    /// (`ZXing_Barcode_position`), in full-frame pixels even when a region was read; empty when
    /// zxing-cpp gives no position (all four at the origin).
    public var corners: [(x: Int, y: Int)]
    /// The AIM symbology identifier (`ZXing_Barcode_symbologyIdentifier`): `]Q1`, `]C1` (GS1-128),
    /// `]E3` (EAN/UPC with add-on); `nil` when zxing-cpp gives none.
    public var symbologyIdentifier: String?
    /// An EAN-13, UPC-A or UPC-E code's add-on (2 or 5 digits), read with it (`ZXingHints.eanAddOn`):
    /// `data` is then the main code's digits, a space and these, as zxing-cpp's HRI gives them.
    public var addOn: [UInt8]?

    public init(symbology: Symbology, data: [UInt8], text: String? = nil, orientation: SymbolOrientation,
                corners: [(x: Int, y: Int)], symbologyIdentifier: String? = nil, addOn: [UInt8]? = nil) {
        self.symbology = symbology; self.data = data; self.text = text; self.orientation = orientation
        self.corners = corners; self.symbologyIdentifier = symbologyIdentifier; self.addOn = addOn
    }

    public static func == (a: ZXingBarcode, b: ZXingBarcode) -> Bool {
        a.symbology == b.symbology && a.data == b.data && a.text == b.text && a.orientation == b.orientation
            && a.symbologyIdentifier == b.symbologyIdentifier && a.addOn == b.addOn
            && a.corners.elementsEqual(b.corners, by: { $0 == $1 })
    }

    public func hash(into h: inout Hasher) {
        h.combine(symbology); h.combine(data)
    }
}

/// A code zxing-cpp detected but could not decode: where it is, never a payload.
///
/// A result with `ZXing_Barcode_isValid` false, returned only with `ZXingHints.returnErrors`.
public struct ZXingUndecodedCode: Sendable, Equatable {
    public var symbology: Symbology
    /// As `ZXingBarcode.corners`: top-left, top-right, bottom-right, bottom-left, in full-frame
    /// pixels; empty when zxing-cpp gives no position.
    public var corners: [(x: Int, y: Int)]
    /// Why it was not decoded (`ZXing_Barcode_errorType`): `format`, `checksum` or `unsupported`.
    public var error: String

    public init(symbology: Symbology, corners: [(x: Int, y: Int)], error: String) {
        (self.symbology, self.corners, self.error) = (symbology, corners, error)
    }

    public static func == (a: ZXingUndecodedCode, b: ZXingUndecodedCode) -> Bool {
        a.symbology == b.symbology && a.error == b.error && a.corners.elementsEqual(b.corners, by: { $0 == $1 })
    }
}

/// zxing-cpp failed on a frame: the call, its message and what to do.
///
/// `description` reads e.g. `ZXing_ReadBarcodes failed: std::bad_alloc — skip this frame;
/// if frames keep failing, turn off zxing.try-harder or zxing.try-downscale`.
public struct ZXingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed, e.g. `ZXing_ReadBarcodes`.
    public var call: String
    /// `ZXing_LastErrorMsg()`, or what was wrong with the arguments.
    public var message: String
    /// What to do about it.
    public var remedy: String

    public init(call: String, message: String, remedy: String) {
        self.call = call; self.message = message; self.remedy = remedy
    }

    public var description: String { "\(call) failed: \(message) — \(remedy)" }
}

/// The zxing-cpp library syncscan runs with.
public enum ZXingLibrary {
    /// zxing-cpp's version as the linked library reports it (`ZXing_Version`), e.g. `3.1.1`.
    public static var version: String { String(cString: ZXing_Version()) }

    /// Where `version` comes from, for `syncscan --version`.
    public static let versionOrigin = "ZXing_Version"
}

/// A zxing-cpp reader with fixed options (`ZXing_ReaderOptions`): reads 8-bit luma planes in place.
///
/// `ZXing_ReadBarcodes` is thread-safe and the options are only read by it, but `reconfigure`
/// replaces them, so use one reader per scanning thread. The reader owns its options and frees
/// them in `deinit`; every image view, result list and string zxing-cpp returns is freed before
/// `read` returns.
public final class BarcodeReader {
    /// The symbologies zxing-cpp 3.1.1 reads that syncscan names.
    public static let readable: Set<Symbology> = Set(Symbology.allCases.filter { !$0.zxingFormats.isEmpty })

    private var options: OpaquePointer
    /// No readable symbology requested: a read finds nothing without calling zxing-cpp (whose empty format list means all).
    private var readsNothing: Bool
    public private(set) var configuration: ZXingHints

    public init(hints: ZXingHints = ZXingHints()) {
        self.options = BarcodeReader.makeOptions(hints)
        self.readsNothing = hints.formats.isEmpty
        self.configuration = hints
    }

    deinit { ZXing_ReaderOptions_delete(options) }

    /// Replaces the options; takes effect on the next read.
    public func reconfigure(_ hints: ZXingHints) {
        guard hints != configuration else { return }
        let fresh = BarcodeReader.makeOptions(hints)
        ZXing_ReaderOptions_delete(options)
        options = fresh
        readsNothing = hints.formats.isEmpty
        configuration = hints
    }

    /// New reader options (`ZXing_ReaderOptions_new`, `_setFormats`, `_setTryHarder`,
    /// `_setTryRotate`, `_setTryInvert`, `_setTryDownscale`, `_setBinarizer`, `_setReturnErrors`,
    /// `_setEanAddOnSymbol`, `_setTextMode` plain) for `h`.
    private static func makeOptions(_ h: ZXingHints) -> OpaquePointer {
        guard let options = ZXing_ReaderOptions_new() else {
            fatalError("ZXing_ReaderOptions_new returned NULL (out of memory)")
        }
        let formats = h.formats
        formats.withUnsafeBufferPointer { ZXing_ReaderOptions_setFormats(options, $0.baseAddress, Int32($0.count)) }
        ZXing_ReaderOptions_setTryHarder(options, h.tryHarder)
        ZXing_ReaderOptions_setTryRotate(options, h.tryRotate)
        ZXing_ReaderOptions_setTryDownscale(options, h.tryDownscale)
        ZXing_ReaderOptions_setTryInvert(options, h.tryInvert)
        ZXing_ReaderOptions_setBinarizer(options, h.binarizer == .globalHistogram ? ZXing_Binarizer_GlobalHistogram : ZXing_Binarizer_LocalAverage)
        ZXing_ReaderOptions_setReturnErrors(options, h.returnErrors)
        ZXing_ReaderOptions_setEanAddOnSymbol(options, h.eanAddOn.zxing)
        ZXing_ReaderOptions_setTextMode(options, ZXing_TextMode_Plain)
        return options
    }

    /// Reads every code in an 8-bit luma plane in place (`ZXing_ImageView_new`, `ZXing_ImageView_crop`,
    /// `ZXing_ReadBarcodes`).
    ///
    /// Sample (x, y) is `luma[y * rowStride + x * pixelStride]`: a GREY frame or an NV12 Y plane
    /// has `pixelStride` 1, YUYV 2 (UYVY: pass the buffer from byte 1). `region`, the rect of
    /// interest, is clamped to the frame and read as a crop of the same view (no copy); corners
    /// are in full-frame pixels either way. A failure inside zxing-cpp is thrown as a
    /// `ZXingError` carrying `ZXing_LastErrorMsg()`, never a crash.
    /// - Precondition: `(height - 1) * rowStride + (width - 1) * pixelStride + 1 <= luma.count`.
    public func read(luma: UnsafeRawBufferPointer, width: Int, height: Int, rowStride: Int, pixelStride: Int = 1,
                     region: PixelRect? = nil) throws(ZXingError) -> [ZXingBarcode] {
        try readCounting(luma: luma, width: width, height: height, rowStride: rowStride, pixelStride: pixelStride, region: region).barcodes
    }

    /// `read`, and how many codes of the requested symbologies zxing-cpp detected but could not
    /// decode (results with `ZXing_Barcode_isValid` false): always 0 unless the hints set
    /// `returnErrors`. Evidence that a harder pass may read what this one could not.
    public func readCounting(luma: UnsafeRawBufferPointer, width: Int, height: Int, rowStride: Int, pixelStride: Int = 1,
                             region: PixelRect? = nil) throws(ZXingError) -> (barcodes: [ZXingBarcode], undecoded: Int) {
        let found = try readReporting(luma: luma, width: width, height: height, rowStride: rowStride, pixelStride: pixelStride, region: region)
        return (found.barcodes, found.undecoded.count)
    }

    /// `read`, and the codes of the requested symbologies zxing-cpp detected but could not decode,
    /// with their positions: always none unless the hints set `returnErrors`.
    public func readReporting(luma: UnsafeRawBufferPointer, width: Int, height: Int, rowStride: Int, pixelStride: Int = 1,
                              region: PixelRect? = nil) throws(ZXingError) -> (barcodes: [ZXingBarcode], undecoded: [ZXingUndecodedCode]) {
        guard width > 0, height > 0 else { return ([], []) }
        precondition(pixelStride >= 1 && rowStride >= (width - 1) * pixelStride + 1
                         && (height - 1) * rowStride + (width - 1) * pixelStride + 1 <= luma.count,
                     "luma plane smaller than its geometry")
        precondition(rowStride <= Int(Int32.max) && width <= Int(Int32.max) && height <= Int(Int32.max),
                     "frame geometry beyond zxing-cpp's int")
        let crop = (region ?? PixelRect(x: 0, y: 0, width: width, height: height)).clamped(width: width, height: height)
        guard !readsNothing, crop.width > 0, crop.height > 0,
              let base = luma.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return ([], []) }

        guard let view = ZXing_ImageView_new(base, Int32(width), Int32(height), ZXing_ImageFormat_Lum,
                                             Int32(rowStride), Int32(pixelStride)) else {
            throw Self.failure("ZXing_ImageView_new")
        }
        defer { ZXing_ImageView_delete(view) }
        if crop != PixelRect(x: 0, y: 0, width: width, height: height) {
            ZXing_ImageView_crop(view, Int32(crop.x), Int32(crop.y), Int32(crop.width), Int32(crop.height))
        }
        guard let barcodes = ZXing_ReadBarcodes(view, options) else { throw Self.failure("ZXing_ReadBarcodes") }
        defer { ZXing_Barcodes_delete(barcodes) }

        var found: [ZXingBarcode] = []
        var undecoded: [ZXingUndecodedCode] = []
        for i in 0..<ZXing_Barcodes_size(barcodes) {
            guard let barcode = ZXing_Barcodes_at(barcodes, i),
                  let reported = Symbology(zxingFormat: ZXing_Barcode_format(barcode)) else { continue }
            guard ZXing_Barcode_isValid(barcode) else {
                undecoded.append(ZXingUndecodedCode(symbology: reported,
                                                    corners: Self.corners(of: barcode, origin: crop),
                                                    error: Self.errorName(of: barcode)))
                continue
            }
            let bytes = Self.bytes(of: barcode), identifier = Self.symbologyIdentifier(of: barcode)
            let (main, addOn) = UPCDigits.addOnSplit(bytes, symbologyIdentifier: identifier)
            var (symbology, data) = UPCDigits.symbolDigits(reported, main, requested: configuration.symbologies)
            guard configuration.symbologies.contains(symbology) else { continue }
            if let addOn { data = EANAddOn.joined(data, addOn) }
            let text = data != bytes ? String(decoding: data, as: UTF8.self) : data.contains(0) ? nil : Self.text(of: barcode)
            found.append(ZXingBarcode(symbology: symbology, data: data, text: text,
                                      orientation: SymbolOrientation(clockwiseDegrees: Int(ZXing_Barcode_orientation(barcode))),
                                      corners: Self.corners(of: barcode, origin: crop),
                                      symbologyIdentifier: identifier, addOn: addOn))
        }
        return (Self.withoutAddOnTwins(found), undecoded)
    }

    /// `found` without the readings of a main code, alone, where the same code was read with its
    /// add-on: zxing-cpp's `Read` returns both when some of its scan lines cross the main code above
    /// the add-on (whose bars are shorter) and others cross both.
    static func withoutAddOnTwins(_ found: [ZXingBarcode]) -> [ZXingBarcode] {
        let withAddOn = found.filter { $0.addOn != nil }
        guard !withAddOn.isEmpty else { return found }
        return found.filter { code in
            code.addOn != nil || !withAddOn.contains { other in
                other.symbology == code.symbology && other.data.starts(with: code.data + [UInt8(ascii: " ")])
                    && (code.corners.isEmpty || other.corners.isEmpty || Self.near(code.corners, other.corners))
            }
        }
    }

    /// Whether the centre of `a` lies within the box of `b` widened by 15 % of its longer side
    /// (`MachineReadableCodeObject.overlaps`' margin).
    private static func near(_ a: [(x: Int, y: Int)], _ b: [(x: Int, y: Int)]) -> Bool {
        let cx = a.map(\.x).reduce(0, +) / a.count, cy = a.map(\.y).reduce(0, +) / a.count
        let x0 = b.map(\.x).min()!, x1 = b.map(\.x).max()!, y0 = b.map(\.y).min()!, y1 = b.map(\.y).max()!
        let margin = max(8, max(x1 - x0, y1 - y0) * 15 / 100)
        return cx >= x0 - margin && cx <= x1 + margin && cy >= y0 - margin && cy <= y1 + margin
    }

    /// `ZXing_Barcode_bytes`, copied and freed.
    private static func bytes(of barcode: OpaquePointer) -> [UInt8] {
        var length: Int32 = 0
        guard let bytes = ZXing_Barcode_bytes(barcode, &length) else { return [] }
        defer { ZXing_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }

    /// `ZXing_Barcode_symbologyIdentifier`, copied and freed; `nil` when empty.
    private static func symbologyIdentifier(of barcode: OpaquePointer) -> String? {
        guard let id = ZXing_Barcode_symbologyIdentifier(barcode) else { return nil }
        defer { ZXing_free(id) }
        return id.pointee == 0 ? nil : String(cString: id)
    }

    /// `ZXing_Barcode_text` (UTF-8), copied and freed; `nil` for binary content.
    private static func text(of barcode: OpaquePointer) -> String? {
        guard ZXing_Barcode_contentType(barcode) != ZXing_ContentType_Binary,
              let text = ZXing_Barcode_text(barcode) else { return nil }
        defer { ZXing_free(text) }
        return String(cString: text)
    }

    /// `ZXing_Barcode_errorType` as a word.
    private static func errorName(of barcode: OpaquePointer) -> String {
        switch ZXing_Barcode_errorType(barcode) {
        case ZXing_ErrorType_Format: "format"
        case ZXing_ErrorType_Checksum: "checksum"
        case ZXing_ErrorType_Unsupported: "unsupported"
        default: "unknown"
        }
    }

    /// `ZXing_Barcode_position` in full-frame pixels (zxing-cpp's are the crop's); empty when all four are at the origin.
    private static func corners(of barcode: OpaquePointer, origin: PixelRect) -> [(x: Int, y: Int)] {
        let p = ZXing_Barcode_position(barcode)
        let points = [p.topLeft, p.topRight, p.bottomRight, p.bottomLeft]
        guard points.contains(where: { $0.x != 0 || $0.y != 0 }) else { return [] }
        return points.map { (x: Int($0.x) + origin.x, y: Int($0.y) + origin.y) }
    }

    /// A `ZXingError` for `call` with `ZXing_LastErrorMsg()` (freed).
    private static func failure(_ call: String) -> ZXingError {
        var message = "no message"
        if let last = ZXing_LastErrorMsg() {
            defer { ZXing_free(last) }
            if last.pointee != 0 { message = String(cString: last) }
        }
        return ZXingError(call: call, message: message,
                          remedy: "skip this frame; if frames keep failing, turn off zxing.try-harder or zxing.try-downscale")
    }
}
