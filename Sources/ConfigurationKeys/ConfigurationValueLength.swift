import Media

extension ConfigurationKeyReader {
    /// The longest string value taken, in bytes (each element of a YAML list alone): a longer one
    /// is refused, its first bytes shown (`shown(_:)`), before anything parses or logs it.
    public static let maximumValueBytes = 65_536

    /// The most entries a list holds (a YAML list, a comma-separated value, `device.controls`).
    public static let maximumListEntries = 10_000

    /// Whether a list of `count` entries, the value of `key`, is within `maximumListEntries`; if
    /// not, a problem naming the count (at `origin`, for a mapping the reader does not read as a value).
    func isWithinEntryLimit(_ key: String, _ count: Int, origin: ConfigurationOrigin? = nil) -> Bool {
        guard count > Self.maximumListEntries else { return true }
        problem(key, "\(count) entries, over the limit of \(Self.maximumListEntries) entries in one list", origin: origin)
        return false
    }

    /// Bytes of a long value a problem shows: its beginning, enough to recognise it.
    static let shownValueBytes = 40

    /// Whether `text`, the value of `key`, is within `maximumValueBytes`; if not, a problem
    /// naming its length and (unless a secret) its first bytes.
    func isWithinLengthLimit(_ key: String, _ text: String, isSecret: Bool) -> Bool {
        let length = text.utf8.count
        guard length > Self.maximumValueBytes else { return true }
        problem(key, "the value is \(length) bytes long, over the limit of \(Self.maximumValueBytes) bytes"
                + (isSecret ? "" : ": \(Self.shown(text))"))
        return false
    }

    /// `text` in quotes as a problem shows a value: credentials redacted
    /// (`SourceURI.redactingCredentials`), and past `shownValueBytes` only its beginning, then
    /// `…` and its length.
    static func shown(_ text: String) -> String {
        let redacted = SourceURI.redactingCredentials(text)
        let length = redacted.utf8.count
        guard length > shownValueBytes else { return "\"\(redacted)\"" }
        var end = redacted.utf8.index(redacted.utf8.startIndex, offsetBy: shownValueBytes)
        // Back to a whole character: a cut inside a UTF-8 sequence would show a broken one.
        while end.samePosition(in: redacted.unicodeScalars) == nil { end = redacted.utf8.index(before: end) }
        return "\"\(redacted[..<end])…\" (\(length) bytes)"
    }
}
