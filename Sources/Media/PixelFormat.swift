/// A pixel layout the pipeline can scan, named by its V4L2 fourcc, or a compressed format
/// (`mjpeg`) it decodes to luma first.
///
/// The raw value is the fourcc (the one map between V4L2 codes and layouts: `v4l2FourCC`,
/// `init?(v4l2FourCC:)`), except for `yuv444p`, which V4L2 has no single-planar code for.
///
/// A compressed frame (`isCompressed`) has no planes: a scanning thread decodes it to an 8-bit
/// grey plane through the `CompressedFrameDecoder` the frame carries, and scans that.
/// zbar reads 8-bit luma only. `lumaLayout` says where the luma samples of a row are, so a
/// planar or grey frame is scanned in place and a packed 4:2:2 frame needs one extraction pass.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 8-bit greyscale (`GREY`, Y4M `mono`).
    case grey = "GREY"
    /// Packed 4:2:2, Y0 U Y1 V.
    case yuyv = "YUYV"
    /// Packed 4:2:2, U Y0 V Y1.
    case uyvy = "UYVY"
    /// Planar 4:2:0, Y plane then interleaved CbCr.
    case nv12 = "NV12"
    /// Planar 4:2:0, Y plane then interleaved CrCb.
    case nv21 = "NV21"
    /// Planar 4:2:0, Y then U then V (`YU12`, I420, Y4M `420*`).
    case yuv420 = "YU12"
    /// Planar 4:2:0, Y then V then U.
    case yvu420 = "YV12"
    /// Planar 4:2:2, Y then U then V (Y4M `422`).
    case yuv422p = "422P"
    /// Planar 4:4:4, Y then U then V (Y4M `444`).
    case yuv444p = "YUV444P"
    /// Motion JPEG: one JPEG per frame, as UVC webcams send their fast modes.
    case mjpeg = "MJPG"

    public var description: String { rawValue }

    /// The V4L2 fourcc of this layout (`GREY`, `YU12`, …); `nil` for `yuv444p`.
    public var v4l2FourCC: String? { self == .yuv444p ? nil : rawValue }

    /// Whether frames of this format are compressed (variable size, no planes): `mjpeg`.
    public var isCompressed: Bool { self == .mjpeg }

    /// The layout a V4L2 fourcc names; `nil` for codes the pipeline cannot read (`RGB3`, `H264`, …).
    public init?(v4l2FourCC fourcc: String) {
        guard let format = PixelFormat(rawValue: fourcc), format.v4l2FourCC != nil else { return nil }
        self = format
    }

    /// Where luma sits in a row: byte offset of the first sample and the step between samples.
    public var lumaLayout: (offset: Int, step: Int) {
        switch self {
        case .yuyv: (0, 2)
        case .uyvy: (1, 2)
        default: (0, 1)
        }
    }

    /// Whether the luma plane is contiguous 8-bit samples that zbar can read without a copy.
    public var hasPlanarLuma: Bool { lumaLayout.step == 1 }

    /// Bytes of one whole frame with rows of `bytesPerLine` bytes (luma plane's stride); 0 for a
    /// compressed format, whose frames have no fixed size.
    ///
    /// For planar formats chroma planes follow the luma plane with strides derived from it,
    /// as V4L2 single-planar formats and Y4M lay them out.
    public func frameSize(width: Int, height: Int, bytesPerLine: Int) -> Int {
        let luma = bytesPerLine * height
        switch self {
        case .grey, .yuyv, .uyvy: return luma
        case .nv12, .nv21, .yuv420, .yvu420: return luma + 2 * ((bytesPerLine + 1) / 2) * ((height + 1) / 2)
        case .yuv422p: return luma + 2 * ((bytesPerLine + 1) / 2) * height
        case .yuv444p: return luma * 3
        case .mjpeg: return 0
        }
    }

    /// The minimal stride of a row of this format at `width` pixels (0 for a compressed format).
    public func minimumBytesPerLine(width: Int) -> Int {
        isCompressed ? 0 : lumaLayout.step * width
    }
}
