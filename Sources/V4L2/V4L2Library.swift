/// The libv4l2 library syncscan was built against.
public enum V4L2Library {
    /// libv4l2's version as pkg-config gave it when this module was built (libv4l2 has no version
    /// call; the PkgConfigVersion build plugin writes it).
    public static let version = pkgConfigVersion

    /// Where `version` comes from, for `syncscan --version`.
    public static let versionOrigin = "pkg-config at build time; libv4l2 has no version call"
}
