import CTurboJPEG
import Media

/// Encodes frames' pixels as JPEG with libjpeg-turbo's TurboJPEG API, from their own layout:
/// grey as a one-component JPEG, YUV as Y, Cb and Cr planes (no RGB conversion in between).
///
/// Planar 4:2:0, 4:2:2 and 4:4:4 frames are encoded in place; NV12/NV21 chroma is split into
/// two planes and packed YUYV/UYVY into three, in scratch planes the encoder keeps. One encoder
/// per thread: it owns a TurboJPEG handle and its buffers, freed in `deinit`.
public final class JPEGEncoder {
    private let handle: tjhandle
    private var output = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var scratch = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// - Throws: `JPEGError` when `tjInitCompress` fails.
    public init() throws(JPEGError) {
        handle = try TurboJPEG.initCompress().get()
    }

    deinit {
        TurboJPEG.destroy(handle)
        output.deallocate()
        scratch.deallocate()
    }

    /// The JPEG of a `width`×`height` image laid out as a single-planar frame of `format` with
    /// luma rows of `bytesPerLine` (`PixelFormat.planes(height:bytesPerLine:)`).
    /// - Parameter quality: 1 (smallest) to 100 (best).
    public func encode(_ bytes: UnsafeRawBufferPointer, format: PixelFormat, width: Int, height: Int, bytesPerLine: Int,
                       quality: Int) throws(JPEGError) -> [UInt8] {
        let needed = format.frameSize(width: width, height: height, bytesPerLine: bytesPerLine)
        guard width > 0, height > 0, bytes.count >= needed else {
            throw JPEGError(call: "encode", reason: "\(width)x\(height) \(format) needs \(needed) bytes, got \(bytes.count)")
        }
        guard !format.isCompressed else {
            throw JPEGError(call: "encode", reason: "\(format) is compressed already: encode the grey plane it was decoded to")
        }
        let subsampling = Self.subsampling(of: format)
        let capacity = TurboJPEG.bufferSize(width: width, height: height, subsampling: subsampling)
        if output.count < capacity {
            output.deallocate()
            output = .allocate(byteCount: capacity, alignment: 64)
        }
        let quality = min(100, max(1, quality))
        let size: Int
        let planes = format.planes(height: height, bytesPerLine: bytesPerLine)
        let base = bytes.baseAddress!
        switch format {
        case .grey:
            size = try TurboJPEG.compressGrey(handle, rows: bytes, width: width, bytesPerLine: bytesPerLine, height: height,
                                              quality: quality, into: output).get()
        case .yuv420, .yuv422p, .yuv444p, .yvu420:
            let (cb, cr) = format == .yvu420 ? (planes[2], planes[1]) : (planes[1], planes[2])
            size = try TurboJPEG.compressPlanes(handle, y: base, cb: base + cb.offset, cr: base + cr.offset, width: width,
                                                lumaBytesPerLine: bytesPerLine, chromaBytesPerLine: cb.bytesPerLine, height: height,
                                                subsampling: subsampling, quality: quality, into: output).get()
        case .nv12, .nv21:
            let chroma = planes[1]
            let (columns, rows) = ((width + 1) / 2, chroma.rows)
            let split = scratchPlanes(count: 2, bytes: columns * rows)
            TurboJPEG.splitInterleavedChroma(base + chroma.offset, columns: columns, rows: rows, bytesPerLine: chroma.bytesPerLine,
                                             cbFirst: format == .nv12, cb: split[0], cr: split[1])
            size = try TurboJPEG.compressPlanes(handle, y: base, cb: UnsafeRawPointer(split[0]), cr: UnsafeRawPointer(split[1]),
                                                width: width, lumaBytesPerLine: bytesPerLine, chromaBytesPerLine: columns,
                                                height: height, subsampling: subsampling, quality: quality, into: output).get()
        case .yuyv, .uyvy:
            let columns = (width + 1) / 2
            let split = scratchPlanes(count: 3, bytes: max(width * height, columns * height))
            TurboJPEG.splitPacked422(base, width: width, height: height, bytesPerLine: bytesPerLine,
                                     offsets: format == .yuyv ? (0, 1, 3) : (1, 0, 2), y: split[0], cb: split[1], cr: split[2])
            size = try TurboJPEG.compressPlanes(handle, y: UnsafeRawPointer(split[0]), cb: UnsafeRawPointer(split[1]),
                                                cr: UnsafeRawPointer(split[2]), width: width, lumaBytesPerLine: width,
                                                chromaBytesPerLine: columns, height: height, subsampling: subsampling,
                                                quality: quality, into: output).get()
        case .mjpeg:
            preconditionFailure("refused above")
        }
        return Array(UnsafeRawBufferPointer(rebasing: output[0..<size]))
    }

    /// TurboJPEG's subsampling for `format`: grey, 4:2:0, 4:2:2 or 4:4:4.
    static func subsampling(of format: PixelFormat) -> TJSAMP {
        switch format {
        case .grey: TJSAMP_GRAY
        case .nv12, .nv21, .yuv420, .yvu420: TJSAMP_420
        case .yuyv, .uyvy, .yuv422p: TJSAMP_422
        case .yuv444p: TJSAMP_444
        case .mjpeg: TJSAMP_GRAY  // never encoded: `encode` refuses it
        }
    }

    /// `count` scratch planes of `bytes` bytes each, one after the other in the scratch buffer.
    private func scratchPlanes(count: Int, bytes: Int) -> [UnsafeMutableRawPointer] {
        if scratch.count < count * bytes {
            scratch.deallocate()
            scratch = .allocate(byteCount: count * bytes, alignment: 64)
        }
        return (0..<count).map { scratch.baseAddress! + $0 * bytes }
    }
}
