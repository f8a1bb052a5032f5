import CMosquitto

/// The libmosquitto library syncscan runs with.
public enum MosquittoLibrary {
    /// The running library's version, `major.minor.revision` (`mosquitto_lib_version`).
    public static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }

    /// Where `version` comes from, for `syncscan --version`.
    public static let versionOrigin = "mosquitto_lib_version"
}
