import Media
import SystemCalls
import SystemPackage

/// An open V4L2 device node: owns the descriptor and closes it in `deinit`.
///
/// Every method issues one ioctl (named in its doc) through the `V4L2Kernel` seam and throws a
/// `IOError` naming that ioctl and the device.
public final class V4L2Device: Sendable {
    /// The path it was opened by (a `/dev/v4l/by-id/…` symlink stays as given).
    public let path: String
    public let descriptor: CInt
    let kernel: any V4L2Kernel

    /// Opens `path` read/write, non-blocking, close-on-exec (`v4l2_open`).
    public init(path: String, kernel: any V4L2Kernel = SystemV4L2Kernel()) throws(IOError) {
        self.path = path
        self.kernel = kernel
        descriptor = try Self.check(kernel.open(path), "open", path)
    }

    deinit { _ = kernel.close(descriptor) }

    /// VIDIOC_QUERYCAP.
    public func capability() throws(IOError) -> V4L2Capability {
        try check(kernel.queryCapability(descriptor), "VIDIOC_QUERYCAP")
    }

    /// Throws unless this node streams video capture (VIDIOC_QUERYCAP; `device_caps` when
    /// V4L2_CAP_DEVICE_CAPS is set): the error names the device and the missing capabilities.
    @discardableResult
    public func requireStreamingCapture() throws(IOError) -> V4L2Capability {
        let capability = try capability()
        let missing = V4L2Capabilities([.videoCapture, .streaming]).subtracting(capability.nodeCapabilities)
        if !missing.isEmpty {
            var problem = "\(capability.card.isEmpty ? "the device" : "'\(capability.card)'") (driver \(capability.driver)) lacks \(missing.names.joined(separator: " and "))"
            if capability.nodeCapabilities.contains(.videoCaptureMultiplanar) {
                problem += " (it is a multi-planar capture device, which is not supported)"
            } else if capability.nodeCapabilities.contains(.metadataCapture) {
                problem += " (it is a metadata node)"
            }
            throw IOError.v4l2(.notSupported, call: "VIDIOC_QUERYCAP", device: path, problem: problem,
                               remedy: "pick the camera's video capture node (`syncscan devices` lists them)")
        }
        return capability
    }

    /// Every capture format, by VIDIOC_ENUM_FMT until EINVAL.
    public func formats() throws(IOError) -> [V4L2FormatDescription] {
        try enumerate("VIDIOC_ENUM_FMT") { kernel.enumerateFormat(descriptor, index: $0) }
    }

    /// Every frame size of `fourcc`, by VIDIOC_ENUM_FRAMESIZES until EINVAL; empty if the driver
    /// does not enumerate sizes (ENOTTY).
    public func frameSizes(for fourcc: FourCC) throws(IOError) -> [V4L2FrameSize] {
        try enumerate("VIDIOC_ENUM_FRAMESIZES") { kernel.enumerateFrameSize(descriptor, fourcc: fourcc, index: $0) }
    }

    /// Every frame interval of `fourcc` at a size, by VIDIOC_ENUM_FRAMEINTERVALS until EINVAL.
    public func frameIntervals(for fourcc: FourCC, width: Int, height: Int) throws(IOError) -> [V4L2FrameInterval] {
        try enumerate("VIDIOC_ENUM_FRAMEINTERVALS") {
            kernel.enumerateFrameInterval(descriptor, fourcc: fourcc, width: width, height: height, index: $0)
        }
    }

    /// VIDIOC_S_FMT; returns what the driver chose, which is what the frames will have.
    public func setFormat(_ format: V4L2PixelFormat) throws(IOError) -> V4L2PixelFormat {
        try check(kernel.setFormat(descriptor, format), "VIDIOC_S_FMT")
    }

    /// VIDIOC_G_PARM: the time per frame, `nil` if the driver does not say.
    public func frameInterval() throws(IOError) -> V4L2Fraction? {
        try check(kernel.getFrameInterval(descriptor), "VIDIOC_G_PARM")
    }

    /// VIDIOC_S_PARM: asks for a time per frame; returns what the driver chose.
    public func setFrameInterval(_ interval: V4L2Fraction) throws(IOError) -> V4L2Fraction? {
        try check(kernel.setFrameInterval(descriptor, interval), "VIDIOC_S_PARM")
    }

    /// VIDIOC_STREAMON.
    public func streamOn() throws(IOError) {
        try check(kernel.streamOn(descriptor), "VIDIOC_STREAMON")
    }

    /// VIDIOC_STREAMOFF.
    public func streamOff() throws(IOError) {
        try check(kernel.streamOff(descriptor), "VIDIOC_STREAMOFF")
    }

    func check<T>(_ result: Result<T, Errno>, _ call: String) throws(IOError) -> T {
        try Self.check(result, call, path)
    }

    static func check<T>(_ result: Result<T, Errno>, _ call: String, _ path: String) throws(IOError) -> T {
        switch result {
        case .success(let value): return value
        case .failure(let errno): throw IOError.v4l2(call: call, device: path, errno: errno)
        }
    }

    private func enumerate<T>(_ call: String, _ entry: (Int) -> Result<T, Errno>) throws(IOError) -> [T] {
        var entries: [T] = []
        while entries.count < 1024 {
            switch entry(entries.count) {
            case .success(let value): entries.append(value)
            case .failure(.invalidArgument): return entries
            case .failure(.inappropriateIOCTLForDevice) where call != "VIDIOC_ENUM_FMT": return entries
            case .failure(let errno): throw IOError.v4l2(call: call, device: path, errno: errno)
            }
        }
        return entries
    }
}
