import CZBar

/// The zbar library syncscan runs with.
public enum ZBarLibrary {
    /// The running library's version, `major.minor.patch` (`zbar_version`).
    public static var version: String {
        var major: UInt32 = 0, minor: UInt32 = 0, patch: UInt32 = 0
        zbar_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }

    /// Where `version` comes from, for `syncscan --version`.
    public static let versionOrigin = "zbar_version"
}
