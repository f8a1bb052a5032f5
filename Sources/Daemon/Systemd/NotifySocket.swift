#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SystemCalls
import SystemPackage

/// Where `$NOTIFY_SOCKET` points: a filesystem path or a Linux abstract socket name.
public enum NotifySocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// `/run/systemd/notify`.
    case path(String)
    /// `@name`: an abstract-namespace socket (the name without the `@`).
    case abstract(String)

    /// Parses `$NOTIFY_SOCKET`; `nil` for an empty value, a relative path, an unsupported kind
    /// (such as `vsock:`) or a name too long for `sockaddr_un`.
    public init?(_ value: String) {
        let bytes = Array(value.utf8)
        // sun_path is 108 bytes: a path needs its NUL, an abstract name its leading NUL.
        guard bytes.count >= 2, bytes.count < 108 else { return nil }
        if value.hasPrefix("/") {
            self = .path(value)
        } else if value.hasPrefix("@") {
            self = .abstract(String(value.dropFirst()))
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .path(let path): path
        case .abstract(let name): "@" + name
        }
    }

    /// Calls `body` with this address as a `sockaddr_un` and its length.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        let length: Int
        switch self {
        case .path(let path):
            let bytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
                sunPath.copyBytes(from: bytes)
                sunPath[bytes.count] = 0
            }
            length = pathOffset + bytes.count + 1
        case .abstract(let name):
            let bytes = Array(name.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
                sunPath[0] = 0
                UnsafeMutableRawBufferPointer(rebasing: sunPath[1...]).copyBytes(from: bytes)
            }
            // No trailing NUL: every byte of an abstract name counts.
            length = pathOffset + 1 + bytes.count
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }
}

/// `socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)`: swift-system opens no sockets, so this
/// and `system_sendDatagram` are the notifier's only libc calls; the descriptor is a
/// swift-system `FileDescriptor`, closed with its `close()`.
func system_unixDatagramSocket() -> Result<FileDescriptor, Errno> {
    valueOrErrno { socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0) }.map(FileDescriptor.init(rawValue:))
}

/// `sendto(fd, bytes, MSG_NOSIGNAL | MSG_DONTWAIT, address)`: never blocks, never raises SIGPIPE.
func system_sendDatagram(_ socket: FileDescriptor, _ bytes: [UInt8], to address: NotifySocketAddress) -> Result<Int, Errno> {
    address.withSockaddr { sockaddrPointer, length in
        bytes.withUnsafeBytes { buffer in
            valueOrErrno {
                sendto(socket.rawValue, buffer.baseAddress, buffer.count, CInt(MSG_NOSIGNAL) | CInt(MSG_DONTWAIT), sockaddrPointer, length)
            }
        }
    }
}
