/// syncscan's own version: the first line of `syncscan --version`, and the device's
/// `sw_version` in Home Assistant's discovery configs.
public enum SyncscanVersion {
    public static let current = "0.1.0"
}
