import CEvdev

/// One key typed on a keyboard: its code, with or without Shift held.
public struct KeyStroke: Sendable, Hashable {
    public var key: KeyCode
    public var shift: Bool

    public init(key: KeyCode, shift: Bool = false) { (self.key, self.shift) = (key, shift) }

    /// Enter (`KEY_ENTER`) and Tab (`KEY_TAB`), the suffixes a typed code may end with.
    public static let enter = KeyStroke(key: KeyCode(rawValue: UInt16(KEY_ENTER)))
    public static let tab = KeyStroke(key: KeyCode(rawValue: UInt16(KEY_TAB)))
}

/// A character a keymap has no key for: the text's first such character and where it is.
public struct UntypableCharacter: Error, Sendable, Hashable, CustomStringConvertible {
    public var character: Character
    /// Its offset in the text, in characters.
    public var offset: Int

    /// `'ü' (U+00FC) at character 3`.
    public var description: String {
        let scalars = character.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true).leftPadded(to: 4) }
        let shown = character.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control } ? "'\(character)' " : ""
        return "\(shown)(\(scalars.joined(separator: " "))) at character \(offset + 1)"
    }
}

/// The US keyboard layout: each printable ASCII character (space to `~`) as a key of a US
/// keyboard, with Shift where the character needs it. Anything else has no key here.
public enum USKeymap {
    /// The strokes that type `text`, in order, or the first character it cannot type (then
    /// nothing of it is typed).
    public static func strokes(for text: String) -> Result<[KeyStroke], UntypableCharacter> {
        var strokes: [KeyStroke] = []
        strokes.reserveCapacity(text.utf8.count)
        for (offset, character) in text.enumerated() {
            guard let ascii = character.asciiValue, let stroke = table[Int(ascii)] else {
                return .failure(UntypableCharacter(character: character, offset: offset))
            }
            strokes.append(stroke)
        }
        return .success(strokes)
    }

    /// Every key the table uses, and Shift, Enter and Tab: what a virtual keyboard enables.
    public static var keys: [KeyCode] {
        Set(table.compactMap { $0?.key } + [KeyStroke.enter.key, KeyStroke.tab.key, shiftKey]).sorted { $0.rawValue < $1.rawValue }
    }

    /// The left Shift key.
    public static let shiftKey = KeyCode(rawValue: UInt16(KEY_LEFTSHIFT))

    /// The stroke of each ASCII value (index), `nil` for those without one (controls, DEL).
    static let table: [KeyStroke?] = {
        var table = [KeyStroke?](repeating: nil, count: 128)
        func put(_ characters: String, _ key: Int32, shifted: Bool = false) {
            for c in characters.unicodeScalars { table[Int(c.value)] = KeyStroke(key: KeyCode(rawValue: UInt16(key)), shift: shifted) }
        }
        let letters: [(String, Int32)] = [
            ("a", KEY_A), ("b", KEY_B), ("c", KEY_C), ("d", KEY_D), ("e", KEY_E), ("f", KEY_F), ("g", KEY_G),
            ("h", KEY_H), ("i", KEY_I), ("j", KEY_J), ("k", KEY_K), ("l", KEY_L), ("m", KEY_M), ("n", KEY_N),
            ("o", KEY_O), ("p", KEY_P), ("q", KEY_Q), ("r", KEY_R), ("s", KEY_S), ("t", KEY_T), ("u", KEY_U),
            ("v", KEY_V), ("w", KEY_W), ("x", KEY_X), ("y", KEY_Y), ("z", KEY_Z),
        ]
        for (letter, key) in letters {
            put(letter, key)
            put(letter.uppercased(), key, shifted: true)
        }
        // The digit row: each digit, and what Shift makes of it.
        let digits: [(String, String, Int32)] = [
            ("1", "!", KEY_1), ("2", "@", KEY_2), ("3", "#", KEY_3), ("4", "$", KEY_4), ("5", "%", KEY_5),
            ("6", "^", KEY_6), ("7", "&", KEY_7), ("8", "*", KEY_8), ("9", "(", KEY_9), ("0", ")", KEY_0),
        ]
        // The punctuation keys, unshifted and shifted.
        let punctuation: [(String, String, Int32)] = [
            ("-", "_", KEY_MINUS), ("=", "+", KEY_EQUAL), ("[", "{", KEY_LEFTBRACE), ("]", "}", KEY_RIGHTBRACE),
            ("\\", "|", KEY_BACKSLASH), (";", ":", KEY_SEMICOLON), ("'", "\"", KEY_APOSTROPHE), ("`", "~", KEY_GRAVE),
            (",", "<", KEY_COMMA), (".", ">", KEY_DOT), ("/", "?", KEY_SLASH),
        ]
        for (plain, shifted, key) in digits + punctuation {
            put(plain, key)
            put(shifted, key, shifted: true)
        }
        put(" ", KEY_SPACE)
        return table
    }()
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
