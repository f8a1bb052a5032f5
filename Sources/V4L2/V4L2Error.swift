import SystemPackage

/// A failed V4L2 operation: the call, the device, the errno and what to do about it.
///
/// `description` reads e.g. `VIDIOC_STREAMON on /dev/video0 failed: Device or resource busy
/// (EBUSY) — device busy: another program is using it — stop it or pick another device`.
public struct V4L2Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem, for callers that react differently (retry, exit code).
    public enum Kind: String, Sendable, Hashable {
        /// EBUSY: another program holds the device.
        case busy
        /// EACCES/EPERM: no permission to open the device.
        case permissionDenied
        /// ENOENT: no such device node.
        case notFound
        /// ENODEV/ENXIO/EIO/POLLERR: the device went away (unplugged).
        case disconnected
        /// The node is not a streaming video-capture device.
        case missingCapabilities
        /// No pixel format the pipeline can read could be negotiated.
        case unsupportedFormat
        /// The device path or URI is malformed.
        case invalidPath
        /// A configuration value is out of range.
        case invalidConfiguration
        /// Anything else the kernel refused.
        case other
    }

    public var kind: Kind
    /// The call that failed, e.g. `VIDIOC_STREAMON`, `open`, `mmap`.
    public var call: String
    /// The device path it was made on.
    public var device: String
    public var errno: Errno?
    /// What went wrong, in words, when there is no errno or more to say than it.
    public var problem: String?
    /// What to do about it.
    public var remedy: String

    public init(kind: Kind, call: String, device: String, errno: Errno? = nil, problem: String? = nil, remedy: String) {
        self.kind = kind
        self.call = call
        self.device = device
        self.errno = errno
        self.problem = problem
        self.remedy = remedy
    }

    /// The error for `call` on `device` failing with `errno`, with the remedy that errno calls for.
    public init(call: String, device: String, errno: Errno) {
        let (kind, remedy) = Self.classify(errno, call: call, device: device)
        self.init(kind: kind, call: call, device: device, errno: errno, remedy: remedy)
    }

    public var description: String {
        var text = "\(call) on \(device) failed"
        if let errno { text += ": \(errno.description) (\(Self.symbol(errno)))" }
        if let problem { text += ": \(problem)" }
        return text + " — " + remedy
    }

    /// Whether retrying the same device later may succeed (busy, unplugged, permission being fixed).
    var isBusy: Bool { kind == .busy || kind == .permissionDenied }

    static func classify(_ errno: Errno, call: String, device: String) -> (Kind, String) {
        switch errno {
        case .resourceBusy:
            return (.busy, "device busy: another program is using it — stop it or pick another device")
        case .permissionDenied, .notPermitted:
            return (.permissionDenied, "permission denied: add the user to the 'video' group (or fix the udev rule) and restart")
        case .noSuchFileOrDirectory:
            return (.notFound, "no such device: check the path; `syncscan devices` lists the cameras present")
        case .operationNotSupportedByDevice, .noSuchAddressOrDevice, .ioError:
            return (.disconnected, "the device went away (unplugged or reset): reconnect it")
        case .inappropriateIOCTLForDevice where call == "VIDIOC_QUERYCAP" || call == "open":
            // libv4l2's open issues VIDIOC_QUERYCAP itself and fails with ENOTTY on a non-V4L2 node.
            return (.missingCapabilities, "not a V4L2 device: pick a /dev/videoN node")
        case .invalidArgument, .inappropriateIOCTLForDevice:
            return (.other, "the driver rejected the request: try another size, pixel format or frame rate")
        case .noMemory, .noBufferSpace:
            return (.other, "out of buffer memory: lower the buffer count or the frame size")
        default:
            return (.other, "check the device and its driver (`v4l2-ctl -d \(device) --all`)")
        }
    }

    /// The errno's symbolic name for the ones a camera produces, else its number.
    static func symbol(_ errno: Errno) -> String {
        switch errno {
        case .resourceBusy: "EBUSY"
        case .permissionDenied: "EACCES"
        case .notPermitted: "EPERM"
        case .noSuchFileOrDirectory: "ENOENT"
        case .operationNotSupportedByDevice: "ENODEV"
        case .noSuchAddressOrDevice: "ENXIO"
        case .ioError: "EIO"
        case .invalidArgument: "EINVAL"
        case .inappropriateIOCTLForDevice: "ENOTTY"
        case .resourceTemporarilyUnavailable: "EAGAIN"
        case .noMemory: "ENOMEM"
        case .badFileDescriptor: "EBADF"
        default: "errno \(errno.rawValue)"
        }
    }
}
