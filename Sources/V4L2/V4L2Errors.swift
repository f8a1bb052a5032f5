import SystemCalls
import SystemPackage

extension IOError {
    /// `call` on `device` failed with `errno`: the code and the remedy that errno calls for on a
    /// camera, e.g. `/dev/video0: device busy: another program is using it — stop it or pick
    /// another device (VIDIOC_STREAMON: Device or resource busy, EBUSY)`.
    public static func v4l2(call: String, device: String, errno: Errno) -> IOError {
        let (code, remedy) = v4l2Classification(of: errno, call: call, device: device)
        return IOError(code: code, call: call, message: "\(device): \(remedy)", cause: errno)
    }

    /// `call` on `device` returned something unusable: `problem`, then what to do about it.
    static func v4l2(_ code: Code, call: String, device: String, problem: String, remedy: String) -> IOError {
        IOError(code: code, call: call, message: "\(device): \(problem) — \(remedy)")
    }

    /// On a camera EIO means it went away, ENOTTY from `open` or VIDIOC_QUERYCAP that the node
    /// is not V4L2, EINVAL that the driver refused the values asked for.
    static func v4l2Classification(of errno: Errno, call: String, device: String) -> (Code, String) {
        switch errno {
        case .resourceBusy:
            (.busy, "device busy: another program is using it — stop it or pick another device")
        case .permissionDenied, .notPermitted:
            (.permissionDenied, "permission denied: add the user to the 'video' group (or fix the udev rule) and restart")
        case .noSuchFileOrDirectory:
            (.notFound, "no such device: check the path; `syncscan devices` lists the cameras present")
        case .operationNotSupportedByDevice, .noSuchAddressOrDevice, .ioError:
            (.disconnected, "the device went away (unplugged or reset): reconnect it")
        case .inappropriateIOCTLForDevice where call == "VIDIOC_QUERYCAP" || call == "open":
            // libv4l2's open issues VIDIOC_QUERYCAP itself and fails with ENOTTY on a non-V4L2 node.
            (.notSupported, "not a V4L2 device: pick a /dev/videoN node")
        case .invalidArgument, .inappropriateIOCTLForDevice:
            (.refused, "the driver rejected the request: try another size, pixel format or frame rate")
        case .noMemory, .noBufferSpace:
            (.resourceExhausted, "out of buffer memory: lower the buffer count or the frame size")
        default:
            (.io, "check the device and its driver (`v4l2-ctl -d \(device) --all`)")
        }
    }
}
