import SystemPackage

/// Why an input or output failed: a camera (V4L2), a Y4M file or pipe, or the results output.
///
/// Modelled on swift-nio's `FileSystemError`: a broad `code` callers branch on (retry a busy
/// device, reopen a disconnected one), the `call` that failed, a `message` that says what
/// happened and what to do, and the underlying `cause`. `description` combines them, e.g.
/// `/dev/video0: device busy: another program is using it — stop it or pick another device
/// (VIDIOC_STREAMON: Device or resource busy, EBUSY)`.
public struct IOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure, for callers that react differently (retry, reopen, exit).
    public enum Code: String, Sendable, Hashable, CustomStringConvertible {
        /// ENOENT: no such file or device node.
        case notFound
        /// EACCES/EPERM: no permission to open or use it.
        case permissionDenied
        /// EBUSY: another program holds the device.
        case busy
        /// ENODEV/ENXIO, or a camera's EIO/POLLERR: the device went away (unplugged, reset).
        case disconnected
        /// It is not something syncscan can read: not a V4L2 capture node, a pixel format or
        /// Y4M colour space the scanner cannot take, frames beyond the size limit.
        case notSupported
        /// A value syncscan was given cannot be used: a source URI, a setting, a directory as a stream.
        case invalidArgument
        /// The driver refused a request (EINVAL/ENOTTY from an ioctl): another size, format or rate may do.
        case refused
        /// The bytes are not what the format requires: a malformed or truncated Y4M header or frame.
        case malformedInput
        /// ENOMEM/ENOBUFS/EMFILE/ENFILE/ENOSPC: out of memory, buffers, descriptors or space.
        case resourceExhausted
        /// EPIPE/EBADF: the other end is gone (a reader closed the pipe) or the descriptor was closed.
        case closed
        /// A call made out of order: reading before `start()`, two threads reading one source.
        case invalidState
        /// Any other failure of the call (EIO on a file, an errno with no better code).
        case io

        public var description: String { rawValue }

        /// The code an errno calls for, where nothing more specific is known about the call.
        public init(_ errno: Errno) {
            switch errno {
            case .noSuchFileOrDirectory: self = .notFound
            case .permissionDenied, .notPermitted: self = .permissionDenied
            case .resourceBusy: self = .busy
            case .operationNotSupportedByDevice, .noSuchAddressOrDevice: self = .disconnected
            case .invalidArgument, .isDirectory: self = .invalidArgument
            case .inappropriateIOCTLForDevice, .notSupported: self = .notSupported
            case .noMemory, .noBufferSpace, .tooManyOpenFiles, .tooManyOpenFilesInSystem, .noSpace:
                self = .resourceExhausted
            case .brokenPipe, .badFileDescriptor: self = .closed
            default: self = .io
            }
        }
    }

    public var code: Code
    /// The system or library call that failed, e.g. `VIDIOC_STREAMON`, `open`, `read`, `write`.
    public var call: String
    /// What happened, naming the device, file or stream, and what to do about it.
    public var message: String
    /// The errno the call failed with; `nil` when the call succeeded but its result was unusable
    /// (a node without capture capability, a malformed Y4M header).
    public var cause: Errno?

    public init(code: Code, call: String, message: String, cause: Errno? = nil) {
        self.code = code
        self.call = call
        self.message = message
        self.cause = cause
    }

    /// `call` failed with `errno`; the code is the one the errno calls for (`Code.init(_:)`).
    public init(call: String, message: String, errno: Errno) {
        self.init(code: Code(errno), call: call, message: message, cause: errno)
    }

    /// The message, then the call and its errno: `… (open: No such file or directory, ENOENT)`.
    public var description: String {
        guard let cause else { return "\(message) (\(call))" }
        return "\(message) (\(call): \(cause.description), \(cause.symbol))"
    }
}

extension Errno {
    /// The symbolic name (`EBUSY`) of the errnos syncscan meets, else `errno N`.
    public var symbol: String {
        switch self {
        case .notPermitted: "EPERM"
        case .noSuchFileOrDirectory: "ENOENT"
        case .interrupted: "EINTR"
        case .ioError: "EIO"
        case .noSuchAddressOrDevice: "ENXIO"
        case .badFileDescriptor: "EBADF"
        case .resourceTemporarilyUnavailable: "EAGAIN"
        case .noMemory: "ENOMEM"
        case .permissionDenied: "EACCES"
        case .resourceBusy: "EBUSY"
        case .operationNotSupportedByDevice: "ENODEV"
        case .isDirectory: "EISDIR"
        case .invalidArgument: "EINVAL"
        case .tooManyOpenFilesInSystem: "ENFILE"
        case .tooManyOpenFiles: "EMFILE"
        case .inappropriateIOCTLForDevice: "ENOTTY"
        case .noSpace: "ENOSPC"
        case .brokenPipe: "EPIPE"
        case .notSupported: "EOPNOTSUPP"
        case .noBufferSpace: "ENOBUFS"
        case .readOnlyFileSystem: "EROFS"
        case .notDirectory: "ENOTDIR"
        case .diskQuotaExceeded: "EDQUOT"
        case .fileExists: "EEXIST"
        default: "errno \(rawValue)"
        }
    }
}
