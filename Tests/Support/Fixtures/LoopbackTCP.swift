import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The tests' TCP client sockets on IPv4 (loopback): connecting and writing, for the HTTP and the
/// TCP result server's test clients.
enum LoopbackTCP {
    /// A socket connected to `destination`:`port` (from `source`, with SO_RCVBUF `receiveBuffer` and
    /// SO_RCVTIMEO as given), closed here if the connect fails. Only a connected descriptor is
    /// returned: a client's `deinit` runs even when its initializer throws after its `fd` is set, so
    /// a close here and another there would close a number that another test may have been given
    /// meanwhile (a spool's file, a pipe).
    static func connected(port: Int, receiveBuffer: Int? = nil, source: String? = nil, destination: String = "127.0.0.1",
                          receiveTimeoutMicroseconds: Int? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FixtureError.toolFailed("socket failed: errno \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            let bound = inet_pton(AF_INET, source, &local.sin_addr) == 1 && withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
            guard bound else {
                let error = errno
                close(fd)
                throw FixtureError.toolFailed("bind \(source) failed: errno \(error)")
            }
        }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let microseconds = receiveTimeoutMicroseconds {
            var timeout = timeval(tv_sec: microseconds / 1_000_000, tv_usec: microseconds % 1_000_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, destination, &address.sin_addr) == 1 else {
            close(fd)
            throw FixtureError.toolFailed("\(destination) is not an IPv4 address")
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            throw FixtureError.toolFailed("connect \(destination):\(port) failed: errno \(error)")
        }
        return fd
    }

    /// Writes all of `bytes` to `fd` (blocking, no SIGPIPE); false once the peer is gone.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
    }
}
