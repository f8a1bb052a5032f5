import CZXing
import Media

/// A code zxing-cpp found in one image.
public struct ZXingBarcode: Sendable, Hashable {
    public var symbology: Symbology
    /// The payload exactly as encoded (`Result::bytes()`): no character-set conversion, no ECI
    /// markers, NUL and invalid UTF-8 kept.
    public var data: [UInt8]
    /// The nearest quarter turn to zxing's `Result::orientation()`.
    public var orientation: SymbolOrientation
    /// The code's own top-left, top-right, bottom-right and bottom-left corners
    /// (`Result::position()`), in full-frame pixels even when a region was read; empty when
    /// zxing-cpp gives no position (MaxiCode, in 1.4).
    public var corners: [(x: Int, y: Int)]

    public init(symbology: Symbology, data: [UInt8], orientation: SymbolOrientation, corners: [(x: Int, y: Int)]) {
        self.symbology = symbology; self.data = data; self.orientation = orientation; self.corners = corners
    }

    public static func == (a: ZXingBarcode, b: ZXingBarcode) -> Bool {
        a.symbology == b.symbology && a.data == b.data && a.orientation == b.orientation
            && a.corners.elementsEqual(b.corners, by: { $0 == $1 })
    }

    public func hash(into h: inout Hasher) {
        h.combine(symbology); h.combine(data)
    }
}

/// zxing-cpp failed on a frame: the call, its message and what to do.
///
/// `description` reads e.g. `ZXing::ReadBarcodes failed: std::bad_alloc — skip this frame;
/// if frames keep failing, turn off zxing.try-harder or zxing.try-downscale`.
public struct ZXingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed, e.g. `ZXing::ReadBarcodes`.
    public var call: String
    /// The exception's `what()`, or what was wrong with the arguments.
    public var message: String
    /// What to do about it.
    public var remedy: String

    public init(call: String, message: String, remedy: String) {
        self.call = call; self.message = message; self.remedy = remedy
    }

    public var description: String { "\(call) failed: \(message) — \(remedy)" }
}

/// A zxing-cpp reader with fixed hints (`ZXing::DecodeHints`): reads 8-bit luma planes in place.
///
/// zxing-cpp's `ReadBarcodes` is thread-safe and the hints are immutable, but `reconfigure`
/// is not, so use one reader per scanning thread. What Debian's zxing-cpp 1.4.0 does (pinned
/// by tests): Aztec and DataMatrix are found only where they cover the centre of the image read
/// (a `region` around the code helps), Aztec not when turned much past 10°, and MaxiCode only
/// on an otherwise blank image and without a position (`corners` empty).
public final class BarcodeReader {
    /// The symbologies zxing-cpp 1.4 reads.
    public static let readable: Set<Symbology> = Set(Symbology.allCases.filter { $0.zxingFormat != nil })

    private var hints: OpaquePointer
    public private(set) var configuration: ZXingHints

    public init(hints: ZXingHints = ZXingHints()) {
        self.hints = BarcodeReader.makeHints(hints)
        self.configuration = hints
    }

    deinit { czxing_hints_destroy(hints) }

    /// Replaces the hints; takes effect on the next read.
    public func reconfigure(_ hints: ZXingHints) {
        guard hints != configuration else { return }
        let fresh = BarcodeReader.makeHints(hints)
        czxing_hints_destroy(self.hints)
        self.hints = fresh
        configuration = hints
    }

    /// New zxing hints (`czxing_hints_create`) for `h`, downscaling as `effectiveTryDownscale` says.
    private static func makeHints(_ h: ZXingHints) -> OpaquePointer {
        guard let hints = czxing_hints_create(h.formatBits, h.tryHarder, h.tryRotate, h.effectiveTryDownscale) else {
            fatalError("czxing_hints_create returned NULL (out of memory)")
        }
        return hints
    }

    /// Reads every code in an 8-bit luma plane in place (`ZXing::ReadBarcodes` on an `ImageView`).
    ///
    /// Sample (x, y) is `luma[y * rowStride + x * pixelStride]`: a GREY frame or an NV12 Y plane
    /// has `pixelStride` 1, YUYV 2 (UYVY: pass the buffer from byte 1). `region`, the rect of
    /// interest, is clamped to the frame; corners are in full-frame pixels either way. A C++
    /// exception inside zxing-cpp is thrown as a `ZXingError`, never a crash.
    /// - Precondition: `(height - 1) * rowStride + (width - 1) * pixelStride + 1 <= luma.count`.
    public func read(luma: UnsafeRawBufferPointer, width: Int, height: Int, rowStride: Int, pixelStride: Int = 1,
                     region: PixelRect? = nil) throws(ZXingError) -> [ZXingBarcode] {
        guard width > 0, height > 0 else { return [] }
        precondition(pixelStride >= 1 && rowStride >= (width - 1) * pixelStride + 1
                         && (height - 1) * rowStride + (width - 1) * pixelStride + 1 <= luma.count,
                     "luma plane smaller than its geometry")
        precondition(rowStride <= Int(Int32.max) && width <= Int(Int32.max) && height <= Int(Int32.max),
                     "frame geometry beyond zxing-cpp's int")
        let crop = (region ?? PixelRect(x: 0, y: 0, width: width, height: height)).clamped(width: width, height: height)
        guard crop.width > 0, crop.height > 0, let base = luma.baseAddress else { return [] }

        var results: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let status = czxing_read(hints, base, Int32(width), Int32(height),
                                 Int32(rowStride), Int32(pixelStride),
                                 Int32(crop.x), Int32(crop.y), Int32(crop.width), Int32(crop.height),
                                 &results, &message, message.count)
        guard status == CZXING_OK, let results else {
            let text = String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ZXingError(call: "ZXing::ReadBarcodes", message: text.isEmpty ? "status \(status)" : text,
                             remedy: "skip this frame; if frames keep failing, turn off zxing.try-harder or zxing.try-downscale")
        }
        defer { czxing_results_destroy(results) }

        var found: [ZXingBarcode] = []
        for i in 0..<czxing_results_count(results) where czxing_result_is_valid(results, i) {
            guard let symbology = Symbology(zxingFormat: czxing_result_format(results, i)) else { continue }
            var length = 0
            let bytes = czxing_result_bytes(results, i, &length)
            let data = bytes.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
            var xy = [Int32](repeating: 0, count: 8)
            czxing_result_corners(results, i, &xy)
            let corners = czxing_result_has_position(results, i) ? (0..<4).map { (x: Int(xy[2 * $0]), y: Int(xy[2 * $0 + 1])) } : []
            found.append(ZXingBarcode(symbology: symbology, data: data,
                                      orientation: SymbolOrientation(clockwiseDegrees: Int(czxing_result_orientation(results, i))),
                                      corners: corners))
        }
        return found
    }
}
