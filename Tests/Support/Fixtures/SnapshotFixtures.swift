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
