import Media

/// A point in frame pixels, origin top-left.
public struct PixelPoint: Sendable, Hashable, Codable {
    public var x: Int, y: Int
    public init(x: Int, y: Int) { self.x = x; self.y = y }
}

/// A code found in one frame (AVFoundation's `AVMetadataMachineReadableCodeObject`).
public struct MachineReadableCodeObject: Sendable, Hashable {
    public var symbology: Symbology
    /// The payload's exact bytes.
    public var data: [UInt8]
    /// The payload as its symbology decodes it to text (ECI, the symbology's default character
    /// set, Kanji mode): zxing-cpp's text, or zbar's (`DecodedSymbol.text`); `nil` for a payload
    /// with no text meaning.
    public var text: String?
    /// zbar's quality score; `nil` for a code zxing-cpp read (it has none).
    public var quality: Int?
    /// The library that decoded it: `zbar` or `zxing` (with `hybrid`, see `DecoderEngine.preferred(for:)`).
    public var engine: DecoderLibraryID
    /// The pass that read it (`zxing-fast`, `zxing-full`, `zxing-histogram`, `zbar`); of a code
    /// several passes of one frame read, the cheapest of the preferred library's.
    public var pass: DecoderPass
    public var orientation: SymbolOrientation
    /// The outline in frame pixels (for QR the four corners, in zbar's order).
    public var corners: [PixelPoint]
    /// The smallest upright rectangle holding `corners`.
    public var bounds: PixelRect
    /// The frame the code was seen in: its sequence number, timestamp and geometry.
    public var frame: FrameInfo
    /// The AIM symbology identifier the library reported or derived (`]Q1`, `]C1`, `]E3`): what the
    /// code is beyond its symbology (GS1, an add-on); `nil` for a symbology without one (SQ).
    public var symbologyIdentifier: String?
    /// An EAN/UPC code's add-on digits (`EANAddOn`), read with it: `data` and `text` end with a
    /// space and them (`9780735200449 51299`); `nil` for a code read without one.
    public var addOn: [UInt8]?

    /// - Parameter engine: the library that read it; `nil`: the pass's.
    public init(symbology: Symbology, data: [UInt8], text: String?, quality: Int?, orientation: SymbolOrientation,
                corners: [PixelPoint], frame: FrameInfo, engine: DecoderLibraryID? = nil, pass: DecoderPass,
                symbologyIdentifier: String? = nil, addOn: [UInt8]? = nil) {
        self.symbology = symbology
        self.symbologyIdentifier = symbologyIdentifier
        self.addOn = addOn
        self.engine = engine ?? pass.library
        self.pass = pass
        self.data = data
        self.text = text
        self.quality = quality
        self.orientation = orientation
        self.corners = corners
        self.frame = frame
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = xs.min() ?? 0, y0 = ys.min() ?? 0
        self.bounds = PixelRect(x: x0, y: y0, width: (xs.max() ?? 0) - x0, height: (ys.max() ?? 0) - y0)
    }

    /// The payload without its add-on (`data` when it has none): what tells readings of one code
    /// apart, so that a code read with its add-on in one frame or pass and without it in another
    /// is one code to the reading check, the items and duplicate suppression.
    public var mainData: [UInt8] {
        guard let addOn, data.count > addOn.count else { return data }
        return Array(data.dropLast(addOn.count + 1))
    }

    /// Whether `other` is a reading of this code rather than another code: either one's centre
    /// lies within the other's outline box widened on every side by 15 % of its longer side (at
    /// least 8 pixels). The margin joins readings of a 1-D code taken along different scan lines
    /// (an outline one line thin); two labels side by side stay two.
    public func overlaps(_ other: MachineReadableCodeObject) -> Bool {
        func near(_ box: PixelRect, _ point: (x: Int, y: Int)) -> Bool {
            let margin = max(8, max(box.width, box.height) * 15 / 100)
            return point.x >= box.x - margin && point.x <= box.x + box.width + margin
                && point.y >= box.y - margin && point.y <= box.y + box.height + margin
        }
        let (a, b) = (bounds, other.bounds)
        return near(a, (b.x + b.width / 2, b.y + b.height / 2)) || near(b, (a.x + a.width / 2, a.y + a.height / 2))
    }

    /// A library's reading, stamped with the frame it was read in and the pass that read it. A
    /// corner on the frame's right or bottom boundary (x == width, y == height: a code flush with
    /// the edge, its outline one past the last pixel) is moved onto the last pixel.
    public init(_ code: DecodedCode, frame: FrameInfo, pass: DecoderPass) {
        let corners = code.corners.map { corner in
            PixelPoint(x: corner.x == frame.width && frame.width > 0 ? frame.width - 1 : corner.x,
                       y: corner.y == frame.height && frame.height > 0 ? frame.height - 1 : corner.y)
        }
        self.init(symbology: code.symbology, data: code.data, text: code.text, quality: code.quality, orientation: code.orientation,
                  corners: corners, frame: frame, pass: pass, symbologyIdentifier: code.symbologyIdentifier, addOn: code.addOn)
    }
}

/// A code zxing-cpp detected in a frame but could not decode: where it is, never a payload.
///
/// Its finder or guard patterns were found, its data not (damaged, blurred, cut off by the frame's
/// edge). It becomes no code line and no count of codes: the live view outlines it in a colour of
/// its own, so whoever aims the camera sees that a code is there and not yet read.
public struct UndecodedCodeObject: Sendable, Hashable {
    public var symbology: Symbology
    /// Why zxing-cpp could not decode it: `format`, `checksum` or `unsupported`.
    public var error: String
    /// The pass that detected it.
    public var pass: DecoderPass
    /// The outline in frame pixels, in the order of `MachineReadableCodeObject.corners`; empty when
    /// zxing-cpp gave no position.
    public var corners: [PixelPoint]
    /// The smallest upright rectangle holding `corners`.
    public var bounds: PixelRect

    public init(symbology: Symbology, error: String, pass: DecoderPass, corners: [PixelPoint]) {
        (self.symbology, self.error, self.pass, self.corners) = (symbology, error, pass, corners)
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = xs.min() ?? 0, y0 = ys.min() ?? 0
        bounds = PixelRect(x: x0, y: y0, width: (xs.max() ?? 0) - x0, height: (ys.max() ?? 0) - y0)
    }

    /// A library's report, stamped with the pass that detected it.
    init(_ code: DetectedCode, pass: DecoderPass) {
        self.init(symbology: code.symbology, error: code.error, pass: pass, corners: code.corners)
    }

    /// Whether its centre lies within `code`'s bounds: the same code, read by a pass.
    func isRead(as code: MachineReadableCodeObject) -> Bool {
        let (cx, cy) = (bounds.x + bounds.width / 2, bounds.y + bounds.height / 2)
        return cx >= code.bounds.x && cx <= code.bounds.x + code.bounds.width && cy >= code.bounds.y && cy <= code.bounds.y + code.bounds.height
    }
}
