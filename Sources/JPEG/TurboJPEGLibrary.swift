/// The TurboJPEG library syncscan was built against.
public enum TurboJPEGLibrary {
    /// libturbojpeg's version as pkg-config gave it when this module was built (the TurboJPEG API
    /// has no version call; the PkgConfigVersion build plugin writes it).
    public static let version = pkgConfigVersion

    /// Where `version` comes from, for `syncscan --version`.
    public static let versionOrigin = "pkg-config at build time; TurboJPEG has no version call"
}
