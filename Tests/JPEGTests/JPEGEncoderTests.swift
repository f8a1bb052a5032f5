import Foundation
import JPEG
import Media
import Testing
import TestSupport

/// A 320x240 frame with a QR code of `text` in the middle.
private func frameWithCode(_ text: String, width: Int = 320, height: Int = 240) throws -> GreyFrame {
    var frame = GreyFrame(width: width, height: height)
    frame.draw(try ModuleMatrix.qrCode(text), centerX: Double(width) / 2, centerY: Double(height) / 2, moduleSize: 4)
    return frame
}

/// The components and their sampling factors (h, v) in a baseline JPEG's SOF0 segment.
private func frameComponents(_ jpeg: [UInt8]) -> [(h: UInt8, v: UInt8)]? {
    var i = 2
    while i + 4 < jpeg.count, jpeg[i] == 0xFF {
        let marker = jpeg[i + 1], length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
        if marker == 0xC0 {
            let count = Int(jpeg[i + 9])
            return (0..<count).map { c in (jpeg[i + 11 + 3 * c] >> 4, jpeg[i + 11 + 3 * c] & 0x0F) }
        }
        i += 2 + length
    }
    return nil
}

@Suite(.offThePool) struct JPEGEncoderTests {
    @Test("each pixel format encodes to a JPEG zbarimg reads the code from, with the format's own subsampling",
          arguments: PixelFormat.allCases.filter { !$0.isCompressed })
    func everyFormatRoundTripsThroughZbarimg(format: PixelFormat) throws {
        let text = "jpeg \(format.rawValue)"
        let frame = try frameWithCode(text)
        let (bytes, stride) = frame.neutralChromaBytes(as: format)
        let encoder = try JPEGEncoder()
        let jpeg = try bytes.withUnsafeBytes {
            try encoder.encode($0, format: format, width: frame.width, height: frame.height, bytesPerLine: stride, quality: 85)
        }
        #expect(jpeg.starts(with: [0xFF, 0xD8]) && jpeg.suffix(2) == [0xFF, 0xD9])
        let components = try #require(frameComponents(jpeg), "no baseline SOF0 segment")
        let expected: [(UInt8, UInt8)] = switch format {
        case .grey: [(1, 1)]
        case .nv12, .nv21, .yuv420, .yvu420: [(2, 2), (1, 1), (1, 1)]
        case .yuyv, .uyvy, .yuv422p: [(2, 1), (1, 1), (1, 1)]
        case .yuv444p: [(1, 1), (1, 1), (1, 1)]
        case .mjpeg: []
        }
        #expect(components.map { "\($0.h)x\($0.v)" } == expected.map { "\($0.0)x\($0.1)" })
        let file = try TemporaryFile(contents: jpeg, suffix: ".jpg")
        #expect(try ZBarImg.decode(path: file.path, arguments: ["-Sdisable", "-Sqrcode.enable"]) == Array(text.utf8))
    }

    @Test("odd sizes and padded rows encode (chroma rounds up, padding is skipped)",
          arguments: [PixelFormat.grey, .yuyv, .uyvy, .nv12, .yuv420, .yuv422p])
    func oddSizesAndPaddedRows(format: PixelFormat) throws {
        let frame = try frameWithCode("odd", width: 241, height: 179)
        let stride = format.minimumBytesPerLine(width: frame.width) + 14
        var (bytes, _) = frame.neutralChromaBytes(as: format)
        // Re-lay the rows at a padded stride, plane by plane.
        let tight = format.planes(height: frame.height, bytesPerLine: format.minimumBytesPerLine(width: frame.width))
        let padded = format.planes(height: frame.height, bytesPerLine: stride)
        var out = [UInt8](repeating: 0x33, count: format.frameSize(width: frame.width, height: frame.height, bytesPerLine: stride))
        for (from, to) in zip(tight, padded) {
            for row in 0..<from.rows {
                out[(to.offset + row * to.bytesPerLine)..<(to.offset + row * to.bytesPerLine + from.bytesPerLine)] =
                    bytes[(from.offset + row * from.bytesPerLine)..<(from.offset + (row + 1) * from.bytesPerLine)]
            }
        }
        bytes = out
        let encoder = try JPEGEncoder()
        let jpeg = try bytes.withUnsafeBytes {
            try encoder.encode($0, format: format, width: frame.width, height: frame.height, bytesPerLine: stride, quality: 90)
        }
        let file = try TemporaryFile(contents: jpeg, suffix: ".jpg")
        #expect(try ZBarImg.decode(path: file.path, arguments: ["-Sdisable", "-Sqrcode.enable"]) == Array("odd".utf8))
    }

    @Test("quality changes the size: 20 is smaller than 95")
    func qualityIsApplied() throws {
        let frame = try frameWithCode("quality")
        let encoder = try JPEGEncoder()
        let sizes = try [20, 95].map { quality in
            try frame.bytes.withUnsafeBytes {
                try encoder.encode($0, format: .grey, width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine,
                                   quality: quality).count
            }
        }
        #expect(sizes[0] < sizes[1], "\(sizes)")
    }

    @Test("too few bytes for the geometry is an error naming the call, not a read past the end")
    func shortInputIsRefused() throws {
        let encoder = try JPEGEncoder()
        let bytes = [UInt8](repeating: 0, count: 100)
        let error = #expect(throws: JPEGError.self) {
            try bytes.withUnsafeBytes { try encoder.encode($0, format: .grey, width: 20, height: 20, bytesPerLine: 20, quality: 80) }
        }
        #expect(error?.call == "encode" && error?.description.contains("400 bytes") == true, "\(String(describing: error))")
    }
}
