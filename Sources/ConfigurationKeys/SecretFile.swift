import Foundation

/// A file a key names for a secret: `http.password_file`, `mqtt.password_file`, `webhook.token_file`.
public enum SecretFile {
    /// The first line of the file at `path` (the secret; any further line is ignored).
    public static func firstLine(of path: String) throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
    }
}
