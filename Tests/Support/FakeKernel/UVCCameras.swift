import Media
import V4L2

/// UVC webcams from users' published tables, as fake drivers: formats, sizes and the intervals at
/// each size; S_PARM takes the interval asked for, as UVC cameras do.
extension FakeV4L2Kernel.Driver {
    private static func fps(_ rates: Double...) -> [V4L2FrameInterval] {
        rates.map { rate in
            rate == 7.5 ? .discrete(V4L2Fraction(numerator: 2, denominator: 15)) : .discrete(V4L2Fraction(numerator: 1, denominator: UInt32(rate)))
        }
    }

    private static func format(_ fourcc: FourCC, _ description: String, compressed: Bool = false, emulated: Bool = false,
                               _ table: [(Int, Int, [V4L2FrameInterval])]) -> FakeV4L2Kernel.Format {
        var format = FakeV4L2Kernel.Format(fourcc, description, compressed: compressed, emulated: emulated,
                                           sizes: table.map { .discrete(width: $0.0, height: $0.1) })
        format.intervalsBySize = Dictionary(uniqueKeysWithValues: table.map { ("\($0.0)x\($0.1)", $0.2) })
        return format
    }

    /// A Logitech C615 (OpenCV issue 9540): YUYV 1280x720 at 10, 7.5 and 5 fps, MJPEG 1280x720
    /// at 30; both 640x480 at 30 and 15, as every UVC camera offers VGA.
    public static func logitechC615() -> Self {
        var driver = Self(formats: [
            format(.yuyv, "YUYV 4:2:2", [(640, 480, fps(30, 15)), (1280, 720, fps(10, 7.5, 5))]),
            format(.mjpeg, "Motion-JPEG", compressed: true, [(640, 480, fps(30, 15)), (1280, 720, fps(30))]),
        ], timePerFrame: V4L2Fraction(numerator: 1, denominator: 30))
        driver.setsFrameInterval = true
        return driver
    }

    /// The camera of ViSP issue 931: YUYV 1280x720 at 9 fps and 1920x1080 at 6, MJPEG 1280x720 at
    /// 60 and 1920x1080 at 30; both 640x480 at 30.
    public static func fastMJPEGCamera() -> Self {
        var driver = Self(formats: [
            format(.yuyv, "YUYV 4:2:2", [(640, 480, fps(30)), (1280, 720, fps(9)), (1920, 1080, fps(6))]),
            format(.mjpeg, "Motion-JPEG", compressed: true, [(640, 480, fps(30)), (1280, 720, fps(60, 30)), (1920, 1080, fps(30))]),
        ], timePerFrame: V4L2Fraction(numerator: 1, denominator: 30))
        driver.setsFrameInterval = true
        return driver
    }

    /// A camera with MJPEG only, its intervals stepwise (1/30 s to 1/5 s in steps of 1/30 s: 30,
    /// 15, 10, 7.5, 6 and 5 fps) at 320x240 and 640x480, and libv4l2's emulated YU12 of it.
    /// `frames`: its JPEGs by sequence number.
    public static func mjpegOnlyCamera(frames: (@Sendable (UInt32) -> [UInt8])? = nil) -> Self {
        let stepwise: [V4L2FrameInterval] = [.stepwise(minimum: V4L2Fraction(numerator: 1, denominator: 30),
                                                       maximum: V4L2Fraction(numerator: 1, denominator: 5),
                                                       step: V4L2Fraction(numerator: 1, denominator: 30))]
        var driver = Self(formats: [
            format(.mjpeg, "Motion-JPEG", compressed: true, [(320, 240, stepwise), (640, 480, stepwise)]),
            format(.yu12, "Planar YUV 4:2:0", emulated: true, [(320, 240, stepwise), (640, 480, stepwise)]),
        ], timePerFrame: V4L2Fraction(numerator: 1, denominator: 30))
        driver.setsFrameInterval = true
        driver.compressedFrame = frames
        return driver
    }
}
