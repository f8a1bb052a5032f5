import Media

/// A decoder library plugged into `MetadataOutput`: what it reads, its passes, its version, a reader per thread.
///
/// An adapter over a wrapper module (the only module importing the library's C shim) conforms to
/// it; `Capture` knows libraries through it alone. An engine (`DecoderEngine`) is an ordered
/// list of passes of one or more libraries. zbar's and zxing-cpp's adapters are in `Decoders`.
public protocol DecoderLibrary: Sendable {
    /// The library's name in code lines (`"engine":"zbar"`) and in `DecoderPass.library`.
    var id: DecoderLibraryID { get }
    /// The symbologies it reads.
    var readable: Set<Symbology> { get }
    /// Its passes, cheapest first.
    var passes: [DecoderPass] { get }
    /// Its line in `syncscan --version`.
    var version: DecoderLibraryVersion { get }
    /// Whether it reads a luma plane with a pixel stride (packed 4:2:2 in place); if not, it is
    /// given the luma extracted into a plane of its own (one pass over the frame).
    var readsPixelStride: Bool { get }
    /// Whether its reader can report codes detected but not decoded (`DecoderRequest.reportsUndecoded`):
    /// `effort: auto`'s evidence and the live view's outlines, asked of its first pass.
    var reportsUndecoded: Bool { get }
    /// A reader for one scanning thread (it is used from that thread only).
    func makeReader() -> any DecoderReader
}

/// One scanning thread's instance of a library: reads a pass over a luma plane.
public protocol DecoderReader: AnyObject {
    /// Reads `luma` (its `region` only, in plane pixels; `nil`: all of it) as `pass` asks, for
    /// `request.symbologies`; corners in plane pixels, in zbar's order (`MachineReadableCodeObject.corners`).
    func read(_ pass: DecoderPass, in luma: LumaPlane, region: PixelRect?, request: DecoderRequest) -> Result<DecoderReading, DecoderFailure>

    /// A second look at a 1-D code (a capability: `nil` when the library has none): the codes of
    /// `symbologies` in `band`, an upright strip of the frame stretched along the bars (an engine's
    /// reading check asks it: `hybrid`'s, in `Decoders`), in band pixels, with the pass to stamp them with.
    func readBand(_ band: LumaPlane, symbologies: Set<Symbology>) -> (pass: DecoderPass, codes: [DecodedCode])?
}

extension DecoderReader {
    public func readBand(_ band: LumaPlane, symbologies: Set<Symbology>) -> (pass: DecoderPass, codes: [DecodedCode])? { nil }
}

/// A decoder library's name, as code lines give it (`engine`): `zbar`, `zxing`.
public struct DecoderLibraryID: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public var description: String { rawValue }
}

/// A library's line in `syncscan --version`: its name, version and where the version comes from.
public struct DecoderLibraryVersion: Sendable, Hashable {
    /// The name shown (`zxing-cpp`), which may differ from `DecoderLibraryID`.
    public var name: String
    public var version: String
    /// The library's own call it comes from (`zbar_version`).
    public var origin: String
    public init(name: String, version: String, origin: String) { (self.name, self.version, self.origin) = (name, version, origin) }

    /// `zbar 0.23.92 (zbar_version)`.
    public var line: String { "\(name) \(version) (\(origin))" }
}

/// An 8-bit luma plane read in place: `width`×`height` samples, `rowStride` bytes from row to
/// row and `pixelStride` from sample to sample (2 for packed 4:2:2), from the first sample.
public struct LumaPlane {
    public var bytes: UnsafeRawBufferPointer
    public var width: Int, height: Int, rowStride: Int, pixelStride: Int
    public init(bytes: UnsafeRawBufferPointer, width: Int, height: Int, rowStride: Int, pixelStride: Int = 1) {
        (self.bytes, self.width, self.height, self.rowStride, self.pixelStride) = (bytes, width, height, rowStride, pixelStride)
    }
}

/// What one pass asks of a reader: the symbologies the engine gives the library, the scan's settings.
public struct DecoderRequest: Sendable, Hashable {
    /// The part of the requested symbologies this library reads in the engine (`DecoderEngine.part(of:for:)`).
    public var symbologies: Set<Symbology>
    /// zbar's settings (`zbar.*`; its `symbologies` are the whole request's, not this library's part).
    public var scanner: ScannerSettings
    /// zxing-cpp's full passes' hints (`zxing.*`).
    public var zxing: ZXingSettings
    /// Also report the codes detected but not decoded (`DecoderReading.undecoded`).
    public var reportsUndecoded: Bool
    /// This library's own settings, as its descriptor read them (`MetadataOutput.Settings.libraryOptions`),
    /// opaque to `Capture`; `nil`: it has none, or none were set.
    public var options: OpaqueSettings?
    public init(symbologies: Set<Symbology>, scanner: ScannerSettings = ScannerSettings(), zxing: ZXingSettings = ZXingSettings(),
                reportsUndecoded: Bool = false, options: OpaqueSettings? = nil) {
        (self.symbologies, self.scanner, self.zxing, self.reportsUndecoded) = (symbologies, scanner, zxing, reportsUndecoded)
        self.options = options
    }
}

/// A code a library read, before `MetadataOutput` stamps it with its frame, library and pass.
public struct DecodedCode: Sendable, Hashable {
    public var symbology: Symbology
    public var data: [UInt8]
    public var text: String?
    /// The library's quality score, if it has one (zbar's).
    public var quality: Int?
    public var orientation: SymbolOrientation
    /// The outline in plane pixels, in zbar's order: top-left, bottom-left, bottom-right, top-right.
    public var corners: [PixelPoint]
    /// The AIM symbology identifier (ISO/IEC 15424), e.g. `]Q1`, `]C1`; `nil` when the symbology has none.
    public var symbologyIdentifier: String?
    /// An EAN/UPC code's add-on digits, read with it: `data` ends with a space and them (`EANAddOn`).
    public var addOn: [UInt8]?
    public init(symbology: Symbology, data: [UInt8], text: String?, quality: Int?, orientation: SymbolOrientation, corners: [PixelPoint],
                symbologyIdentifier: String? = nil, addOn: [UInt8]? = nil) {
        (self.symbology, self.data, self.text, self.quality, self.orientation, self.corners) = (symbology, data, text, quality, orientation, corners)
        (self.symbologyIdentifier, self.addOn) = (symbologyIdentifier, addOn)
    }
}

/// A code a library detected but could not decode: where it is and why, never a payload.
public struct DetectedCode: Sendable, Hashable {
    public var symbology: Symbology
    /// Why it was not decoded, in the library's words (`format`, `checksum`, `unsupported`).
    public var error: String
    /// As `DecodedCode.corners`.
    public var corners: [PixelPoint]
    public init(symbology: Symbology, error: String, corners: [PixelPoint]) {
        (self.symbology, self.error, self.corners) = (symbology, error, corners)
    }
}

/// What one pass read: its codes, and those it detected but could not decode (when asked).
public struct DecoderReading: Sendable, Hashable {
    public var codes: [DecodedCode]
    public var undecoded: [DetectedCode]
    public init(codes: [DecodedCode], undecoded: [DetectedCode] = []) { (self.codes, self.undecoded) = (codes, undecoded) }
}

/// A library failed on a frame: its message (the call, what failed, what to do). The frame keeps
/// what the other passes read.
public struct DecoderFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var library: DecoderLibraryID
    public var description: String
    public init(library: DecoderLibraryID, description: String) { (self.library, self.description) = (library, description) }
}
