import SystemCalls

/// A file a key names for a secret: `http.password_file`, `mqtt.password_file`, `webhook.token_file`.
public enum SecretFile {
    /// The largest secret file read (`BoundedFileRead`): a secret is one short line.
    static let maximumBytes = 65_536

    /// Why a secret file was not read: its `description` says why (never the secret).
    public struct ReadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The first line of the file at `path` (the secret; any further line is ignored), read
    /// within `maximumBytes` (`BoundedFileRead`): anything but a regular file (`/dev/zero`, a FIFO) is refused unread.
    public static func firstLine(of path: String) throws -> String {
        let bytes: [UInt8]
        do { bytes = try BoundedFileRead.bytes(of: path, limit: maximumBytes) } catch { throw ReadError(description: error.message) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw ReadError(description: "not valid UTF-8 text") }
        return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
    }
}
