#if canImport(Glibc)
import Glibc
import SystemCalls
import SystemPackage
#elseif canImport(Darwin)
import Darwin
#endif

/// What kind of file a descriptor or path refers to (`st_mode & S_IFMT`).
enum Y4MFileKind: String, Sendable {
    case regularFile = "a regular file"
    case directory = "a directory"
    case fifo = "a FIFO or pipe"
    case socket = "a socket"
    case characterDevice = "a character device"
    case blockDevice = "a block device"
    case other = "an unknown kind of file"

    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regularFile
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .other
        }
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

/// The system calls the Y4M input makes, each returning `Result<_, Errno>` with EINTR retried.
///
/// Capture has no C wrapper module of its own, so these call Glibc directly and nothing else
/// in the Y4M input does.
enum Y4MSystem {

    /// `open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)`: never blocks, also on a FIFO with no writer yet.
    static func openForReading(_ path: String) -> Result<Int32, Errno> {
        valueOrErrno { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
    }

    /// `close(fd)`. Not retried: on Linux the descriptor is gone even when close reports EINTR.
    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    /// `read(fd, buffer, count)`; `0` is end of file.
    static func readBytes(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        valueOrErrno { read(fd, buffer.baseAddress, buffer.count) }
    }

    /// `write(fd, buffer, count)`.
    static func writeBytes(_ fd: Int32, from buffer: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        valueOrErrno { write(fd, buffer.baseAddress, buffer.count) }
    }

    /// `poll(fds, count, -1)`: waits without a timeout.
    static func waitForEvents(_ fds: UnsafeMutablePointer<pollfd>, count: Int) -> Result<Int32, Errno> {
        valueOrErrno { poll(fds, nfds_t(count), -1) }
    }

    /// `fstat(fd)`, reduced to the kind of file.
    static func fileKind(of fd: Int32) -> Result<Y4MFileKind, Errno> {
        var info = stat()
        return valueOrErrno { fstat(fd, &info) }.map { _ in Y4MFileKind(mode: info.st_mode) }
    }

    /// `stat(path)`, reduced to the kind of file.
    static func fileKind(atPath path: String) -> Result<Y4MFileKind, Errno> {
        var info = stat()
        return valueOrErrno { stat(path, &info) }.map { _ in Y4MFileKind(mode: info.st_mode) }
    }

    /// `pipe(fds)` then `fcntl(F_SETFD, FD_CLOEXEC)` and `fcntl(F_SETFL, O_NONBLOCK)` on both ends.
    static func makeNonBlockingPipe() -> Result<(read: Int32, write: Int32), Errno> {
        var fds: [Int32] = [-1, -1]
        if case .failure(let error) = valueOrErrno({ pipe(&fds) }) { return .failure(error) }
        for fd in fds {
            let flags = valueOrErrno { fcntl(fd, F_SETFD, FD_CLOEXEC) }
                .flatMap { _ in valueOrErrno { fcntl(fd, F_GETFL) } }
                .flatMap { current in valueOrErrno { fcntl(fd, F_SETFL, current | O_NONBLOCK) } }
            if case .failure(let error) = flags {
                closeDescriptor(fds[0])
                closeDescriptor(fds[1])
                return .failure(error)
            }
        }
        return .success((fds[0], fds[1]))
    }
}
