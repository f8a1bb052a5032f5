import Media
import Testing
import TestSupport
import ZXing

/// Reads a whole grey frame (padding included in the bytes) with `reader`.
func read(_ frame: GreyFrame, with reader: BarcodeReader, region: PixelRect? = nil) throws -> [ZXingBarcode] {
    try frame.bytes.withUnsafeBytes { bytes in
        try reader.read(luma: bytes, width: frame.width, height: frame.height, rowStride: frame.bytesPerLine, region: region)
    }
}

/// A reader for `symbologies` with zxing's default effort (try harder, rotate, downscale).
func reader(_ symbologies: Set<Symbology>) -> BarcodeReader {
    BarcodeReader(hints: ZXingHints(symbologies: symbologies))
}

/// A white frame with `matrix` centred at `moduleSize` pixels per module, plus where it landed.
func frameWithCode(_ matrix: ModuleMatrix, width: Int = 320, height: Int = 240, moduleSize: Double = 3,
                   rotationDegrees: Double = 0, bytesPerLine: Int? = nil) -> (GreyFrame, RenderedCode) {
    var frame = GreyFrame(width: width, height: height, bytesPerLine: bytesPerLine)
    let code = frame.draw(matrix, centerX: Double(width) / 2, centerY: Double(height) / 2, moduleSize: moduleSize,
                          rotationDegrees: rotationDegrees,
                          samplesPerAxis: rotationDegrees.truncatingRemainder(dividingBy: 90) == 0 ? 1 : 3)
    return (frame, code)
}

/// Checks zxing's corners against the rendered ones (the code's own top-left, top-right,
/// bottom-right, bottom-left), each within `modules` modules of `modulePixels` pixels.
func expectCorners(_ barcode: ZXingBarcode?, match code: RenderedCode, withinModules modules: Double = 2,
                   modulePixels: Double? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let barcode else {
        Issue.record("no barcode to compare with the rendered corners", sourceLocation: sourceLocation)
        return
    }
    #expect(barcode.corners.count == 4, sourceLocation: sourceLocation)
    let tolerance = modules * (modulePixels ?? code.moduleSize)
    for (point, corner) in zip(barcode.corners, code.corners) {
        let distance = corner.distance(toX: point.x, y: point.y)
        #expect(distance <= tolerance, "zxing corner \(point) is \(distance) px from rendered corner \(corner)",
                sourceLocation: sourceLocation)
    }
}

/// A named test input, so parameterized test output says which one failed.
struct Named<Value: Sendable>: CustomTestStringConvertible, Sendable {
    var name: String
    var value: Value
    init(_ name: String, _ value: Value) { self.name = name; self.value = value }
    var testDescription: String { name }
}
