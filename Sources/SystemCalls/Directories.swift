import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `mkdir(2)` of one component of a path failed.
public struct MakeDirectoryError: Error, Sendable {
    /// The path up to the component that could not be made.
    public let component: String
    public let errno: Errno
}

/// Creates `path` and each missing parent, as `mkdir -p` does (`mkdir(2)` per component, an
/// existing one left as it is); on failure, the component whose `mkdir` failed and its errno.
public func makeDirectories(_ path: String, mode: mode_t) -> Result<Void, MakeDirectoryError> {
    var prefix = path.hasPrefix("/") ? "/" : ""
    for component in path.split(separator: "/") {
        prefix += prefix.isEmpty || prefix.hasSuffix("/") ? component : "/" + component
        if case .failure(let errno) = valueOrErrno({ mkdir(prefix, mode) }), errno != .fileExists {
            return .failure(MakeDirectoryError(component: prefix, errno: errno))
        }
    }
    return .success(())
}
