import SystemPackage

/// What kind of file a Y4M input is, from `fstat(2)` or `stat(2)` (swift-system's `Stat`).
enum Y4MFileKind: String, Sendable {
    case regularFile = "a regular file"
    case directory = "a directory"
    case fifo = "a FIFO or pipe"
    case socket = "a socket"
    case characterDevice = "a character device"
    case blockDevice = "a block device"
    case other = "an unknown kind of file"

    init(_ type: FileType) {
        switch type {
        case .regular: self = .regularFile
        case .directory: self = .directory
        case .fifo: self = .fifo
        case .socket: self = .socket
        case .characterSpecial: self = .characterDevice
        case .blockSpecial: self = .blockDevice
        default: self = .other
        }
    }

    /// The kind of the open file `descriptor` (`fstat(2)`).
    init(of descriptor: FileDescriptor) throws(Errno) {
        self.init(try descriptor.stat().type)
    }

    /// The kind of the file at `path`, following symlinks (`stat(2)`).
    init(atPath path: String) throws(Errno) {
        self.init(try FilePath(path).stat().type)
    }

    /// Whether data arrives in real time: pipes, FIFOs, sockets and character devices are live;
    /// regular files and block devices are read as fast as the pipeline wants.
    var isLive: Bool {
        switch self {
        case .fifo, .socket, .characterDevice, .other: true
        case .regularFile, .directory, .blockDevice: false
        }
    }
}
