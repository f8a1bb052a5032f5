import CSystemCalls
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on a numeric IPv4 or IPv6 address: non-blocking, close-on-exec,
/// `SO_REUSEADDR`; closed in `deinit`.
///
/// swift-system opens no sockets: `socket(2)`, `setsockopt(2)`, `bind(2)`, `listen(2)`,
/// `getsockname(2)` are issued here and `accept4(2)` through the CSystemCalls shim, each through `valueOrErrno`.
public final class TCPListener: @unchecked Sendable {  // unchecked: used by one thread at a time
    public let descriptor: FileDescriptor
    /// The port it listens on (the one the kernel picked for port 0).
    public let port: Int

    /// Binds `host:port` and listens with `backlog` connections waiting.
    public init(host: String, port: Int, backlog: CInt = 128) throws(IOError) {
        let isIPv6 = host.contains(":")
        let fd: CInt
        switch valueOrErrno({ socket(isIPv6 ? AF_INET6 : AF_INET, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0) }) {
        case .success(let value): fd = value
        case .failure(let errno):
            throw IOError(call: "socket", message: "cannot open a TCP socket; raise the open files limit (LimitNOFILE=)", errno: errno)
        }
        var one: CInt = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<CInt>.size))
        let where_ = isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
        var storage = sockaddr_storage()
        let length = withUnsafeMutableBytes(of: &storage) { raw -> socklen_t in
            if isIPv6 {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = in_port_t(UInt16(port).bigEndian)
                guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return 0 }
                withUnsafeBytes(of: address) { raw.copyMemory(from: $0) }
                return socklen_t(MemoryLayout<sockaddr_in6>.size)
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return 0 }
            withUnsafeBytes(of: address) { raw.copyMemory(from: $0) }
            return socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        guard length > 0 else {
            close(fd)
            throw IOError(code: .invalidArgument, call: "inet_pton", message: "\(where_) is not a numeric address: give 127.0.0.1:PORT or [::1]:PORT")
        }
        let bound = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                valueOrErrno { bind(fd, address, length) }.flatMap { _ in valueOrErrno { listen(fd, backlog) } }
            }
        }
        if case .failure(let errno) = bound {
            close(fd)
            let fix = errno == .addressInUse ? "another program listens there: stop it or pick another port"
                : errno == .permissionDenied ? "ports below 1024 need CAP_NET_BIND_SERVICE: pick a port from 1024 up" : "check the address"
            throw IOError(call: "bind", message: "cannot listen on \(where_): \(fix)", errno: errno)
        }
        var name = sockaddr_storage()
        var nameLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &name) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &nameLength) } }
        let portBytes = withUnsafeBytes(of: name) { raw in
            isIPv6 ? raw.load(fromByteOffset: MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_port)!, as: UInt16.self)
                : raw.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_port)!, as: UInt16.self)
        }
        self.port = Int(UInt16(bigEndian: portBytes))
        descriptor = FileDescriptor(rawValue: fd)
    }

    deinit { try? descriptor.close() }

    /// The next waiting connection (`accept4(2)`, non-blocking and close-on-exec); `nil`: none waits (EAGAIN).
    public func accept() -> Result<TCPConnection?, Errno> {
        switch valueOrErrno({ csystemcalls_accept(descriptor.rawValue) }) {
        case .success(let fd): return .success(TCPConnection(FileDescriptor(rawValue: fd)))
        case .failure(.resourceTemporarilyUnavailable): return .success(nil)
        case .failure(let errno): return .failure(errno)
        }
    }
}

/// One accepted TCP connection, non-blocking; closed in `deinit`.
public final class TCPConnection: @unchecked Sendable {  // unchecked: used by one thread at a time
    public let descriptor: FileDescriptor

    init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

    deinit { try? descriptor.close() }

    /// Bytes of `bytes` the kernel took (`send(2)` with MSG_NOSIGNAL | MSG_DONTWAIT: never blocks,
    /// never raises SIGPIPE); 0 when its buffer is full (EAGAIN).
    public func send(_ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .success(0) }
        switch valueOrErrno({ Glibc.send(descriptor.rawValue, base, bytes.count, CInt(MSG_NOSIGNAL) | CInt(MSG_DONTWAIT)) }) {
        case .success(let sent): return .success(sent)
        case .failure(.resourceTemporarilyUnavailable): return .success(0)
        case .failure(let errno): return .failure(errno)
        }
    }

    /// Bytes read into `buffer` (`recv(2)`, MSG_DONTWAIT); 0: the peer closed; `nil`: nothing to read now (EAGAIN).
    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int?, Errno> {
        switch valueOrErrno({ recv(descriptor.rawValue, buffer.baseAddress, buffer.count, CInt(MSG_DONTWAIT)) }) {
        case .success(let count): return .success(count)
        case .failure(.resourceTemporarilyUnavailable): return .success(nil)
        case .failure(let errno): return .failure(errno)
        }
    }

    /// Sends small messages at once, without waiting for the peer's acknowledgement of the last
    /// (`setsockopt(2)` TCP_NODELAY: Nagle's algorithm off).
    public func sendImmediately() {
        var one: CInt = 1
        _ = setsockopt(descriptor.rawValue, CInt(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))
    }

    /// Caps the kernel's send buffer at `bytes` (`setsockopt(2)` SO_SNDBUF, which the kernel
    /// doubles and no longer grows by itself): what a peer that stops reading can hold there.
    public func limitSendBuffer(to bytes: Int) {
        var size = CInt(clamping: bytes)
        _ = setsockopt(descriptor.rawValue, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<CInt>.size))
    }

    /// Ends the sending side (`shutdown(2)` SHUT_WR): the peer reads what was sent, then the end.
    public func shutdownSending() { _ = shutdown(descriptor.rawValue, CInt(SHUT_WR)) }
}
