import Foundation
import SystemPackage

/// The listening sockets systemd passed to this process (socket activation), read from
/// `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` as `sd_listen_fds(3)` does, without libsystemd.
///
/// Descriptors start at 3. They count only when `LISTEN_PID` is this process (a child started by
/// it would see its parent's variables).
public struct SocketActivation: Sendable {
    /// The passed descriptors with their names (`FileDescriptorName=`, by default the socket unit's name).
    public var sockets: [(name: String?, descriptor: FileDescriptor)] {
        zip(names, descriptors).map { ($0, $1) }
    }

    private var descriptors: [FileDescriptor] = []
    private var names: [String?] = []

    /// - Parameter pid: this process's id (`getpid()`).
    public init(environment: [String: String], pid: Int32 = getpid()) {
        guard environment["LISTEN_PID"].flatMap(Int32.init) == pid,
              let count = environment["LISTEN_FDS"].flatMap(Int32.init), count > 0 else { return }
        descriptors = (0..<count).map { FileDescriptor(rawValue: 3 + $0) }
        let given = environment["LISTEN_FDNAMES"]?.split(separator: ":", omittingEmptySubsequences: false).map(String.init) ?? []
        names = (0..<Int(count)).map { $0 < given.count ? given[$0] : nil }
    }

    /// The socket for the live view: the one named after a `syncscan-http@….socket` unit, else the
    /// only one passed; `nil` when none fits.
    public var liveViewSocket: FileDescriptor? {
        if let named = sockets.first(where: { $0.name?.hasPrefix("syncscan-http") == true }) { return named.descriptor }
        return descriptors.count == 1 ? descriptors[0] : nil
    }
}
