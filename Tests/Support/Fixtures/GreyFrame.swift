import Media

/// An 8-bit greyscale test frame (0 black … 255 white) whose rows may be padded.
///
/// Rows are `bytesPerLine` bytes long; the bytes past `width` in each row are padding that
/// a scanner must ignore. Draw codes into it with `draw(_:x:y:moduleSize:rotationDegrees:)`,
/// then hand it to zbar as is, convert it with `videoFrame(format:…)`, or save it with
/// `pgmBytes()` for `zbarimg`.
public struct GreyFrame: Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// Bytes per row, ≥ `width`.
    public var bytesPerLine: Int
    /// Row-major samples, `bytesPerLine * height` bytes, padding included.
    public var bytes: [UInt8]

    /// A frame filled with `background`, its row padding (if `bytesPerLine > width`) filled with `padding`.
    public init(width: Int, height: Int, bytesPerLine: Int? = nil, background: UInt8 = 255, padding: UInt8 = 0x80) {
        let stride = bytesPerLine ?? width
        precondition(width > 0 && height > 0 && stride >= width, "GreyFrame \(width)x\(height) with bytesPerLine \(stride) is not a valid geometry")
        self.width = width
        self.height = height
        self.bytesPerLine = stride
        var row = [UInt8](repeating: background, count: width)
        row.append(contentsOf: repeatElement(padding, count: stride - width))
        var all: [UInt8] = []
        all.reserveCapacity(stride * height)
        for _ in 0..<height { all.append(contentsOf: row) }
        self.bytes = all
    }

    /// The sample at column `x`, row `y` (padding included when `x >= width`).
    public subscript(x: Int, y: Int) -> UInt8 {
        get { bytes[y * bytesPerLine + x] }
        set { bytes[y * bytesPerLine + x] = newValue }
    }

    /// The visible `width`×`height` pixels without padding, row by row.
    public var packedPixels: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(width * height)
        for y in 0..<height { out.append(contentsOf: bytes[(y * bytesPerLine)..<(y * bytesPerLine + width)]) }
        return out
    }

    /// The same bytes seen as a narrower frame: columns `width..<bytesPerLine` become row padding.
    ///
    /// Use it to hide content (another code, stripes) in the padding: draw into a wide frame,
    /// then narrow it. No byte changes.
    public func narrowed(toWidth newWidth: Int) -> GreyFrame {
        precondition(newWidth > 0 && newWidth <= width, "cannot narrow a \(width)-pixel-wide frame to \(newWidth)")
        var copy = self
        copy.width = newWidth
        return copy
    }

    /// The same pixels with rows re-laid at `bytesPerLine`, new padding filled with `padding`.
    public func restrided(bytesPerLine newStride: Int, padding: UInt8 = 0x80) -> GreyFrame {
        var out = GreyFrame(width: width, height: height, bytesPerLine: newStride, padding: padding)
        for y in 0..<height {
            out.bytes.replaceSubrange((y * newStride)..<(y * newStride + width),
                                      with: bytes[(y * bytesPerLine)..<(y * bytesPerLine + width)])
        }
        return out
    }

    /// Light on dark: every visible pixel `v` becomes `255 - v`; padding is left alone.
    public func inverted() -> GreyFrame {
        var out = self
        out.bytes.withUnsafeMutableBufferPointer { dst in
            for y in 0..<height {
                for i in (y * bytesPerLine)..<(y * bytesPerLine + width) { dst[i] = 255 &- dst[i] }
            }
        }
        return out
    }

    /// The frame as a binary PGM (`P5`), padding dropped, for `zbarimg` and image viewers.
    public func pgmBytes() -> [UInt8] {
        Array("P5\n\(width) \(height)\n255\n".utf8) + packedPixels
    }

    /// Calls `body` with the raw bytes (padding included), as `ImageScanner.scan(luma:…)` takes them.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
}

extension GreyFrame {
    /// A `background` frame with `payload` as a QR code (from `qrencode`) centred in it: the one-liner most tests need.
    ///
    /// - Returns: the frame and where the code landed (see `RenderedCode`).
    public static func withQRCode(_ payload: [UInt8], width: Int = 320, height: Int = 240, moduleSize: Double = 4,
                                  rotationDegrees: Double = 0, bytesPerLine: Int? = nil,
                                  background: UInt8 = 255) throws -> (frame: GreyFrame, code: RenderedCode) {
        var frame = GreyFrame(width: width, height: height, bytesPerLine: bytesPerLine, background: background)
        let code = frame.draw(try ModuleMatrix.qrCode(payload), centerX: Double(width) / 2, centerY: Double(height) / 2,
                              moduleSize: moduleSize, rotationDegrees: rotationDegrees,
                              samplesPerAxis: rotationDegrees.truncatingRemainder(dividingBy: 90) == 0 ? 1 : 3)
        return (frame, code)
    }

    /// `withQRCode(_:…)` for the UTF-8 bytes of `text`.
    public static func withQRCode(_ text: String, width: Int = 320, height: Int = 240, moduleSize: Double = 4,
                                  rotationDegrees: Double = 0, bytesPerLine: Int? = nil,
                                  background: UInt8 = 255) throws -> (frame: GreyFrame, code: RenderedCode) {
        try withQRCode(Array(text.utf8), width: width, height: height, moduleSize: moduleSize,
                       rotationDegrees: rotationDegrees, bytesPerLine: bytesPerLine, background: background)
    }

    /// A 560x200 frame with `qrText` as a QR code (4-pixel modules) on the left and the EAN-13
    /// 5901234123457 (2-pixel modules) on the right: one 2-D and one 1-D code, for settings tests.
    public static func withQRCodeAndEAN13(_ qrText: String) throws -> GreyFrame {
        var frame = GreyFrame(width: 560, height: 200)
        frame.draw(try ModuleMatrix.qrCode(qrText), centerX: 110, centerY: 100, moduleSize: 4)
        frame.draw(try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: "590123412345").stretched(toRows: 30),
                   centerX: 390, centerY: 100, moduleSize: 2)
        return frame
    }
}
