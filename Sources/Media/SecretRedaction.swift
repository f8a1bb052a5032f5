/// The one redaction every output goes through (code lines, logs, STATUS=, `/status`, metrics
/// labels, MQTT, webhooks, errors, `check-config`): each secret a URL or a setting can hold is
/// replaced by `***`.
///
/// The secrets, wherever a text holds them (a URL ends at a blank or a quote; a quoted one at its
/// closing quote):
/// - a URL's userinfo (`URLAuthority`): its password (`user:***@`) or all of it (`***@`), as the
///   caller says. A password may hold any character but a blank or a quote: with a `user:` and an
///   `@` later in the URL (a raw `/`, `?` or `#` in the password), everything up to the URL's last
///   `@` is hidden too — a path or query holding an `@` is then hidden with it, never shown whole;
/// - the value of each query or fragment parameter whose name means a secret (`isSecretName`:
///   `password`, `token`, `key`, `signature`…), up to the next `&` or `;`;
/// - the value of each `name=value` property (a GStreamer pipeline's `user-pw=`, `proxy-pw=`, quoted
///   or not) whose name means a secret.
///
/// Redacting is idempotent: a text is redacted again until nothing changes (a span hidden in the
/// middle of a property's value, a URL's password, can leave the value read further once the
/// `***` stands there), so a redacted text holds nothing a second redaction would hide.
/// `identity(_:)` is the form for metrics labels and MQTT topics: no userinfo and no query or
/// fragment at all.
public enum SecretRedaction {
    /// What each secret is replaced by.
    public static let mask = "***"

    /// `text` with every secret replaced by `***`; `hiding` says how much of a URL's userinfo goes.
    public static func redacted(_ text: String, hiding: URLAuthority.Redaction = .password) -> String {
        var current = text
        // A text without a secret is read once; one with a secret once more to confirm it is
        // done. Each pass that changes the text hides more of it, so a few passes always settle.
        for _ in 0..<maximumPasses {
            let next = render(current, spans(in: current, hiding: hiding), dropping: false)
            if next == current { break }
            current = next
        }
        return current
    }

    /// The most passes `redacted(_:hiding:)` makes.
    static let maximumPasses = 8

    /// `text` as a source's identity (a metrics label, an MQTT topic's part): each URL without its
    /// userinfo, query and fragment, every other secret `***`.
    ///
    /// The parts are dropped from the text redacted (`redacted(_:hiding: .userinfo)`, every pass),
    /// never from `text` itself: one pass over it may take a secret property's value for another's
    /// and leave that one in view (`user-pw="a user-pw="SECRET"`), which a further pass hides.
    public static func identity(_ text: String) -> String {
        let redacted = redacted(text, hiding: .userinfo)
        return render(redacted, spans(in: redacted, hiding: .userinfo), dropping: true)
    }

    /// Whether `text` holds a secret `redacted(_:hiding:)` would hide (a password, a token), not
    /// yet `***`.
    public static func holdsSecret(_ text: String, hiding: URLAuthority.Redaction = .password) -> Bool {
        spans(in: text, hiding: hiding).hidden.contains { text[$0] != mask }
    }

    /// The secrets `text` holds, longest first: what to look for in a library's own messages,
    /// which may quote them apart from their URL.
    public static func secrets(in text: String) -> [String] {
        Set(spans(in: text, hiding: .password).hidden.map { String(text[$0]) }.filter { $0 != mask }).sorted { $0.count > $1.count }
    }

    /// Words that make a parameter or property name a secret's, whole (`pw`, `api_key`) or, for
    /// the longer ones, within a word (`access_token`, `apikey`, `X-Amz-Signature`).
    static let secretWords: Set<String> = ["pw", "pwd", "pass", "key", "sig"]
    static let secretParts = ["password", "passwd", "passphrase", "secret", "token", "apikey", "signature", "credential", "auth"]

    /// Whether a query parameter or property named `name` holds a secret: a word of it (split at
    /// anything not a letter or digit, case ignored, percent-escapes decoded) is one of
    /// `secretWords`, or it contains one of `secretParts`.
    public static func isSecretName(_ name: some StringProtocol) -> Bool {
        let lowered = percentDecoded(String(name)).lowercased()
        if secretParts.contains(where: lowered.contains) { return true }
        return lowered.split { !($0.isLetter || $0.isNumber) }.contains { secretWords.contains(String($0)) }
    }

    /// What `render` hides (`***`) and, for an identity, drops.
    struct Spans {
        var hidden: [Range<String.Index>] = []
        var dropped: [Range<String.Index>] = []
    }

    /// The secrets of every URL and property in `text`.
    static func spans(in text: String, hiding: URLAuthority.Redaction) -> Spans {
        var spans = Spans()
        var from = text.startIndex
        while let found = URLAuthority(text[from...]) {
            let separator = text.index(found.prefix.endIndex, offsetBy: -3)
            let schemeStart = text[from..<separator].lastIndex { !isSchemeCharacter($0) }.map(text.index(after:)) ?? from
            let opener = schemeStart > text.startIndex ? text[text.index(before: schemeStart)] : nil
            let quoted = opener == "\"" || opener == "'"
            let end = text[found.prefix.endIndex...].firstIndex {
                quoted ? $0 == opener : $0.isWhitespace || $0 == "\"" || $0 == "'"
            } ?? text.endIndex
            addURL(text[schemeStart..<end], hiding: hiding, to: &spans)
            from = found.prefix.endIndex  // a URL within this one's span is read too
        }
        addProperties(text, to: &spans)
        return spans
    }

    /// One URL's userinfo and secret parameters, read as `URLAuthority` reads it and, when its
    /// userinfo may run further (a `user:` before an `@` past the authority), as that longer one.
    private static func addURL(_ url: Substring, hiding: URLAuthority.Redaction, to spans: inout Spans) {
        guard let strict = URLAuthority(url) else { return }
        var last = strict
        if let long = URLAuthority(url, userinfoToLastAt: true), let userinfo = long.userinfo,
           userinfo.endIndex > (strict.userinfo?.endIndex ?? strict.prefix.endIndex),
           let colon = userinfo.firstIndex(of: ":"), !userinfo[..<colon].contains(where: { "/?#".contains($0) }) {
            last = long
        }
        for parsed in [strict, last] {
            if let userinfo = parsed.userinfo {
                let colon = userinfo.firstIndex(of: ":")
                switch (hiding, colon) {
                case (.password, let colon?): spans.hidden.append(userinfo.index(after: colon)..<userinfo.endIndex)
                case (.password, nil): break
                case (.userinfo, _): spans.hidden.append(userinfo.startIndex..<userinfo.endIndex)
                }
            }
            addParameters(parsed.rest, to: &spans)
        }
        // The identity: the last reading's userinfo (with its `@`) and everything after its path.
        if let userinfo = last.userinfo { spans.dropped.append(userinfo.startIndex..<last.hostAndPort.startIndex) }
        if let query = last.rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { spans.dropped.append(query..<url.endIndex) }
        spans.hidden.removeAll { $0.isEmpty }
    }

    /// The values of the secret parameters of `rest` (a URL's path, query and fragment): each
    /// `name=value` after a `?`, `&`, `;` or `#` past the path; a secret's value runs to the next `&` or `;`.
    private static func addParameters(_ rest: Substring, to spans: inout Spans) {
        guard var index = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return }
        while index < rest.endIndex {
            let nameStart = rest.index(after: index)
            let nameEnd = rest[nameStart...].firstIndex { "=&;#?".contains($0) } ?? rest.endIndex
            guard nameEnd < rest.endIndex, rest[nameEnd] == "=", isSecretName(rest[nameStart..<nameEnd]) else {
                index = nameEnd
                continue
            }
            let valueStart = rest.index(after: nameEnd)
            let valueEnd = rest[valueStart...].firstIndex { $0 == "&" || $0 == ";" } ?? rest.endIndex
            spans.hidden.append(valueStart..<valueEnd)
            index = valueEnd
        }
    }

    /// The values of the secret `name=value` properties of `text`. After a blank or at the start (a
    /// pipeline's property) a quoted value runs to its closing quote (`\\` escaping), else to a
    /// blank, a quote or `!`; elsewhere (a parameter of a URL not read as one) to a blank, a quote, `&` or `;`.
    private static func addProperties(_ text: String, to spans: inout Spans) {
        var index = text.startIndex
        while let equals = text[index...].firstIndex(of: "=") {
            let nameStart = text[..<equals].lastIndex { !isNameCharacter($0) }.map(text.index(after:)) ?? text.startIndex
            let atBoundary = nameStart == text.startIndex || text[text.index(before: nameStart)].isWhitespace
            let valueStart = text.index(after: equals)
            index = valueStart
            guard nameStart < equals, isSecretName(text[nameStart..<equals]), valueStart < text.endIndex else { continue }
            let ends = atBoundary ? "!\"'" : "&;\"'"
            var valueEnd = text[valueStart...].firstIndex { $0.isWhitespace || ends.contains($0) } ?? text.endIndex
            let quote = text[valueStart]
            if atBoundary && (quote == "\"" || quote == "'") {
                var cursor = text.index(after: valueStart)
                valueEnd = text.endIndex
                while cursor < text.endIndex {
                    if text[cursor] == "\\" { cursor = text.index(cursor, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex; continue }
                    if text[cursor] == quote { valueEnd = text.index(after: cursor); break }
                    cursor = text.index(after: cursor)
                }
            }
            if valueStart < valueEnd { spans.hidden.append(valueStart..<valueEnd) }
            index = valueEnd
        }
    }

    /// `text` with each run of hidden characters as one `***` and, with `dropping`, the dropped ones left out.
    private static func render(_ text: String, _ spans: Spans, dropping: Bool) -> String {
        if spans.hidden.isEmpty && (!dropping || spans.dropped.isEmpty) { return text }
        var out = ""
        var masking = false
        for index in text.indices {
            if dropping && spans.dropped.contains(where: { $0.contains(index) }) { continue }
            if spans.hidden.contains(where: { $0.contains(index) }) {
                if !masking { out += mask }
                masking = true
            } else {
                out.append(text[index])
                masking = false
            }
        }
        return out
    }

    private static func isSchemeCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "+" || c == "-" || c == ".")
    }

    private static func isNameCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == "." || c == "%")
    }

    /// `text` with its `%XX` escapes decoded (a name like `pass%77ord`); invalid ones kept.
    private static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
