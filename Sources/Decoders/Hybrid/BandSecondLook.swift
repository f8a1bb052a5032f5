import Capture
import Media

/// A second look at a 1-D code zbar read: zxing-cpp, then zbar, on a band of the frame around it,
/// turned upright and stretched 3 times along the bars' axis.
///
/// zbar reports a 1-D code as the points where its scan lines crossed it, which bound the code
/// across the bars but not always along them; the band is therefore the rows (or, for a code on
/// its side, the columns) zbar's points span, with a margin (at most `BandSecondLook.maxRows`
/// about their middle), across the whole frame. Stretching
/// gives zxing-cpp's row reader several pixels per module where the frame has about one, and
/// gives zbar samples at other places than the frame's.
public protocol SecondLook {
    /// The 1-D codes of `symbologies` read in the band around `code` in `frame`, in frame pixels,
    /// each with the library that read it (`engine`).
    func read(around code: MachineReadableCodeObject, in frame: VideoFrame, symbologies: Set<Symbology>) -> [MachineReadableCodeObject]
}

/// `SecondLook` through the libraries' own (`DecoderReader.readBand`): the checker's (zxing-cpp:
/// try-harder on; rotate, invert and downscale off, the band is upright), then, when it reads
/// nothing there, the checked library's on the code's symbology only (zbar).
public final class BandSecondLook: SecondLook {
    /// How many times the band is stretched along the bars' axis.
    public static let scale = 3
    /// The most rows (across the bars) a band has.
    public static let maxRows = 96
    private let checker: any DecoderReader, checked: any DecoderReader
    private var band: [UInt8] = []

    /// - Parameters:
    ///   - checker: the library whose second look is asked first (zxing-cpp).
    ///   - checked: the library whose readings are checked, asked when the checker reads nothing (zbar).
    public init(checker: any DecoderLibrary, checked: any DecoderLibrary) {
        (self.checker, self.checked) = (checker.makeReader(), checked.makeReader())
    }

    public func read(around code: MachineReadableCodeObject, in frame: VideoFrame, symbologies: Set<Symbology>) -> [MachineReadableCodeObject] {
        let sideways = code.orientation == .left || code.orientation == .right
        // Across the bars: zbar's span plus a margin; along them: the whole frame.
        let (across, acrossLimit, along) = sideways ? (code.bounds.x, frame.width, frame.height) : (code.bounds.y, frame.height, frame.width)
        let extent = sideways ? code.bounds.width : code.bounds.height
        let margin = max(12, extent / 2)
        // At most `maxRows` rows, about the middle of zbar's span: what the stretched band costs stays bounded.
        let middle = across + extent / 2, half = min(extent / 2 + margin, Self.maxRows / 2)
        let first = max(0, middle - half), last = min(acrossLimit, middle + half)
        let rows = last - first, width = along * Self.scale
        guard rows > 0, along > 1 else { return [] }
        if band.count < rows * width { band = [UInt8](repeating: 0, count: rows * width) }
        let (offset, step) = frame.format.lumaLayout
        frame.buffer.withUnsafeBytes { bytes in
            for r in 0..<rows {
                // Sample i along the bars of band row r; linear interpolation between frame samples.
                func sample(_ i: Int) -> Int {
                    let (x, y) = sideways ? (first + r, i) : (i, first + r)
                    return Int(bytes[offset + y * frame.bytesPerLine + x * step])
                }
                for i in 0..<width {
                    let position = min(Double(i) / Double(Self.scale), Double(along - 1)), left = min(Int(position), along - 2)
                    let t = position - Double(left)
                    band[r * width + i] = UInt8((Double(sample(left)) * (1 - t) + Double(sample(left + 1)) * t).rounded())
                }
            }
        }
        // Band pixels back to frame pixels: along / scale, across + first.
        func inFrame(_ object: MachineReadableCodeObject) -> MachineReadableCodeObject {
            var object = object
            object.corners = object.corners.map { p in
                sideways ? PixelPoint(x: first + p.y, y: p.x / Self.scale) : PixelPoint(x: p.x / Self.scale, y: first + p.y)
            }
            let xs = object.corners.map(\.x), ys = object.corners.map(\.y)
            object.bounds = PixelRect(x: xs.min() ?? 0, y: ys.min() ?? 0, width: (xs.max() ?? 0) - (xs.min() ?? 0),
                                      height: (ys.max() ?? 0) - (ys.min() ?? 0))
            object.orientation = code.orientation
            return object
        }
        func look(_ reader: any DecoderReader, _ symbologies: Set<Symbology>) -> [MachineReadableCodeObject] {
            let found = band.withUnsafeBytes { bytes in
                reader.readBand(LumaPlane(bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<(rows * width)]), width: width, height: rows,
                                          rowStride: width), symbologies: symbologies)
            }
            guard let found else { return [] }
            return found.codes.map { inFrame(MachineReadableCodeObject($0, frame: frame.info, pass: found.pass)) }
        }
        let byChecker = look(checker, symbologies.filter { !$0.isTwoDimensional })
        return byChecker.isEmpty ? look(checked, [code.symbology]) : byChecker
    }
}
