import Foundation
import Media

extension ZBarImg {
    /// Decodes the image file at `path` (PGM, JPEG, …) with `zbarimg --raw -q -Sbinary` plus
    /// `arguments`; `nil` when zbarimg found nothing (exit status 4).
    public static func decode(path: String, arguments: [String] = []) throws -> [UInt8]? {
        let result = try ExternalTool.run("zbarimg", ["--raw", "-q", "-Sbinary"] + arguments + [path])
        switch result.status {
        case 0: return result.stdout
        case 4: return nil
        default: throw FixtureError.toolFailed(result.describe())
        }
    }
}

extension GreyFrame {
    /// The frame's pixels laid out as `format` (as `bytes(as:)`), with neutral chroma (128), so
    /// a colour image of them looks like the grey frame.
    public func neutralChromaBytes(as format: PixelFormat) -> (bytes: [UInt8], bytesPerLine: Int) {
        var (out, stride) = bytes(as: format)
        switch format {
        case .grey: break
        case .yuyv, .uyvy:
            let chroma = 1 - format.lumaLayout.offset
            for row in 0..<height { for x in 0..<width { out[row * stride + 2 * x + chroma] = 128 } }
        default:
            for i in (stride * height)..<out.count { out[i] = 128 }
        }
        return (out, stride)
    }
}

/// A directory under the temporary directory, deleted with its contents when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("syncscan-fixture-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    /// The names of the files in the directory, sorted.
    public func fileNames() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

extension TemporaryFile {
    /// A mono 160x120 Y4M file at 10 fps: `frames` frames, each showing the QR code `text` in the middle.
    public static func qrClip(_ text: String, frames: Int) throws -> TemporaryFile {
        var frame = GreyFrame(width: 160, height: 120)
        frame.draw(try ModuleMatrix.qrCode(text), centerX: 80, centerY: 60, moduleSize: 3)
        var bytes = Array("YUV4MPEG2 W160 H120 F10:1 Ip A1:1 Cmono\n".utf8)
        for _ in 0..<frames { bytes += Array("FRAME\n".utf8) + frame.bytes }
        return try TemporaryFile(contents: bytes, suffix: ".y4m")
    }
}
