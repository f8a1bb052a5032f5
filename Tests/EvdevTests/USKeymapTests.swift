import Evdev
import Testing

@Suite struct USKeymapTests {
    /// The characters a US keyboard types with Shift held.
    static let shifted = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ~!@#$%^&*()_+{}|:\"<>?")

    @Test func everyPrintableASCIICharacterHasOneStrokeAndShiftWhereAUSKeyboardNeedsIt() throws {
        let printable = (0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }
        #expect(printable.count == 95)
        let strokes = try USKeymap.strokes(for: String(printable)).get()
        #expect(strokes.count == printable.count)
        for (character, stroke) in zip(printable, strokes) {
            #expect(stroke.shift == Self.shifted.contains(character), "\(character)")
        }
        // No two characters share a key and a shift state: each types back as itself.
        #expect(Set(strokes).count == printable.count)
        // Shifted and plain pairs share their key ('a'/'A', '1'/'!', '/'/'?').
        let pairs: [(Character, Character)] = [("a", "A"), ("1", "!"), ("0", ")"), ("/", "?"), ("'", "\""), ("`", "~")]
        for (plain, shifted) in pairs {
            let both = try USKeymap.strokes(for: String([plain, shifted])).get()
            #expect(both[0].key == both[1].key && !both[0].shift && both[1].shift, "\(plain) \(shifted)")
        }
    }

    @Test func theKernelsKeysAreUsed() throws {
        let strokes = try USKeymap.strokes(for: "a Z1").get()
        #expect(strokes.map(\.key.description) == ["KEY_A", "KEY_SPACE", "KEY_Z", "KEY_1"])
        #expect(USKeymap.keys.contains(KeyStroke.enter.key) && USKeymap.keys.contains(USKeymap.shiftKey))
        #expect(KeyStroke.enter.key.description == "KEY_ENTER" && KeyStroke.tab.key.description == "KEY_TAB")
    }

    @Test func aNonASCIICharacterIsRefusedWithItsPlaceAndNothingIsTyped() {
        guard case .failure(let refused) = USKeymap.strokes(for: "Grüße") else {
            Issue.record("'Grüße' was typed")
            return
        }
        #expect(refused.character == "ü" && refused.offset == 2)
        #expect(refused.description == "'ü' (U+00FC) at character 3")
    }

    @Test func controlCharactersAreRefusedUnprinted() {
        for text in ["a\tb", "line\n", "\u{1D}0101", "x\u{7F}"] {
            guard case .failure(let refused) = USKeymap.strokes(for: text) else {
                Issue.record("\(text.debugDescription) was typed")
                continue
            }
            #expect(!refused.description.contains("'"), "\(refused)")
        }
        if case .failure(let refused) = USKeymap.strokes(for: "\u{1D}0101") {
            #expect(refused.description == "(U+001D) at character 1")
        }
    }

    @Test func keysAreFoundByTheirKernelNames() {
        #expect(KeyCode(named: "KEY_F12")?.description == "KEY_F12")
        #expect(KeyCode(named: "key_f12") == KeyCode(named: "KEY_F12"))
        #expect(KeyCode(named: "BTN_0")?.description == "BTN_0")
        #expect(KeyCode(named: "KEY_NOPE") == nil)
        #expect(KeyCode(named: "F12") == nil)
    }
}
