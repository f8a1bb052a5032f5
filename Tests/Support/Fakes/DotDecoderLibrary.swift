import Capture
import Media

/// A decoder library added through `DecoderLibrary` alone: one pass that reads a dot (a sample of 7) as a code.
///
/// Its pass (`dot`) finds the first sample of exactly 7 in the plane's region, row by row, and
/// reports it as a Code 93 whose payload is `dot x,y` (plane pixels) with the dot's 1×1 outline.
/// It reads no pixel stride, so packed frames reach it through `MetadataOutput`'s luma plane.
public struct DotDecoderLibrary: DecoderLibrary {
    public static let pass = DecoderPass("dot", library: "dot", cost: .light)

    public init() {}
    public var id: DecoderLibraryID { "dot" }
    public var readable: Set<Symbology> { [.code93] }
    public var passes: [DecoderPass] { [Self.pass] }
    public var version: DecoderLibraryVersion { DecoderLibraryVersion(name: "dot", version: "1.0", origin: "a test") }
    public var readsPixelStride: Bool { false }
    public var reportsUndecoded: Bool { false }
    public func makeReader() -> any DecoderReader { Reader() }

    final class Reader: DecoderReader {
        func read(_ pass: DecoderPass, in luma: LumaPlane, region: PixelRect?, request: DecoderRequest) -> Result<DecoderReading, DecoderFailure> {
            precondition(luma.pixelStride == 1, "the dot library reads no pixel stride")
            let area = (region ?? PixelRect(x: 0, y: 0, width: luma.width, height: luma.height)).clamped(width: luma.width, height: luma.height)
            guard request.symbologies.contains(.code93) else { return .success(DecoderReading(codes: [])) }
            for y in area.y..<(area.y + area.height) {
                for x in area.x..<(area.x + area.width) where luma.bytes[y * luma.rowStride + x] == 7 {
                    let text = "dot \(x),\(y)", corners = [PixelPoint(x: x, y: y), PixelPoint(x: x, y: y + 1),
                                                           PixelPoint(x: x + 1, y: y + 1), PixelPoint(x: x + 1, y: y)]
                    return .success(DecoderReading(codes: [DecodedCode(symbology: .code93, data: Array(text.utf8), text: text, quality: nil,
                                                                       orientation: .up, corners: corners)]))
                }
            }
            return .success(DecoderReading(codes: []))
        }
    }
}
