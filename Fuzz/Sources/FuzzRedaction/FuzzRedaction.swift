// libFuzzer: arbitrary text around a marked secret placed in each secret position → SecretRedaction.
// The secret's every character sits between two BEL markers (U+0007, which the surrounding text
// never holds), so any character of it that survives shows a marker. For each position (a URL's
// password, a secret query parameter, a pipeline's property, bare, quoted once or twice), neither
// redaction (user name kept, whole userinfo) nor the identity may hold a marker, and redacting a
// redacted text changes nothing. The text is ASCII (a combining mark after a delimiter would make
// it another Character: outside what the harness draws).
import FuzzDriver
import Media

let marker: Character = "\u{7}"
let secretNames = ["password", "pass", "pwd", "token", "key", "secret", "auth", "signature", "access_token", "api_key",
                   "X-Amz-Signature", "pass%77ord", "user-pw", "proxy-pw", "passphrase"]

/// `bytes` as ASCII text without the marker and without any byte of `excluded` (compared as bytes:
/// `"\r\n"` is one Character).
func text(_ bytes: ArraySlice<UInt8>, excluding excluded: String = "") -> String {
    let kept = bytes.map { $0 & 0x7F }.filter { $0 != 0x07 && !excluded.utf8.contains($0) }
    return String(decoding: kept, as: UTF8.self)
}

/// The blanks (ASCII's white space: what ends a URL or a property's bare value).
let blanks = " \t\n\u{0B}\u{0C}\r"

/// `secret` with a marker before, between and after its characters.
func marked(_ secret: String) -> String {
    String(marker) + secret.map(String.init).joined(separator: String(marker)) + String(marker)
}

func check(_ input: String) {
    for (name, output) in [("redacted", SecretRedaction.redacted(input)),
                           ("redacted(.userinfo)", SecretRedaction.redacted(input, hiding: .userinfo)),
                           ("identity", SecretRedaction.identity(input))] {
        if output.contains(marker) { fatalError("\(name) shows a part of the secret: \(input.debugDescription) → \(output.debugDescription)") }
    }
    for hiding in [URLAuthority.Redaction.password, .userinfo] {
        let once = SecretRedaction.redacted(input, hiding: hiding)
        let twice = SecretRedaction.redacted(once, hiding: hiding)
        if once != twice { fatalError("not idempotent (\(hiding)): \(input.debugDescription) → \(once.debugDescription) → \(twice.debugDescription)") }
    }
    if !SecretRedaction.holdsSecret(input) { fatalError("holdsSecret is false for \(input.debugDescription)") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = bytes.first else { return 0 }
    // Fields separated by NUL: before the URL, user, host, path, other parameters, secret, after.
    var fields = bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false)
    while fields.count < 7 { fields.append([]) }
    let (before, host, path, others, after) = (text(fields[0]), text(fields[2]), text(fields[3]), text(fields[4]), text(fields[6]))
    let user = text(fields[1], excluding: blanks + "/?#@:\"'")
    let name = secretNames[Int(selector >> 3) % secretNames.count]
    let scheme = ["rtsp", "http", "https", "rtsps"][Int(selector >> 6) % 4]
    let secret = fields[5]
    switch selector % 8 {
    case 0, 1:  // a URL's password: any character but a blank or a quote
        let password = marked(text(secret, excluding: blanks + "\"'").nonEmpty)
        let url = "\(scheme)://\(user.nonEmpty):\(password)@\(host)\(path)"
        check(before + (selector % 2 == 0 ? " " : "\"") + url + (selector % 2 == 0 ? " " : "\"") + after)
        check(url)
    case 2, 3:  // a secret query or fragment parameter: any character but a blank, a quote, & or ;
        let value = marked(text(secret, excluding: blanks + "\"'&;").nonEmpty)
        let separator = selector % 2 == 0 ? "?" : "#"
        let url = "\(scheme)://\(host)/\(path)\(separator)\(others)&\(name)=\(value)&\(after)"
        check(before + " " + url)
        check(url)
    case 4:  // a bare property: any character but a blank, a quote or !
        check(before + " \(name)=" + marked(text(secret, excluding: blanks + "\"'!").nonEmpty) + " " + after)
    case 5, 6:  // a quoted property: any character but its quote and a backslash
        let quote = selector % 8 == 5 ? "\"" : "'"
        check(before + " \(name)=\(quote)" + marked(text(secret, excluding: quote + "\\").nonEmpty) + quote + " " + after)
    default:  // a password in a URL inside a quoted property, the same secret as a parameter after it
        let password = marked(text(secret, excluding: blanks + "\"'&;").nonEmpty)
        check("gst:\(before) location=\"\(scheme)://\(user.nonEmpty):\(password)@\(host)\(path)?\(others)&\(name)=\(password)\" \(after)")
    }
    return 0
}

extension String {
    /// `self`, or `x` when empty (a position always holds a secret).
    var nonEmpty: String { isEmpty ? "x" : self }
}

/// The debug build's entry point: SwiftPM links debug executables with `main` renamed to
/// `FuzzRedaction_main`, so libFuzzer's own `main` is not used there; this one starts its driver.
@_cdecl("FuzzRedaction_main")
public func FuzzRedactionMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzerDriver(argc, argv, fuzz)
}
