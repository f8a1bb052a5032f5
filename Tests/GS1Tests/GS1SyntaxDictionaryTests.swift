import Testing
@testable import ZXing
@testable import GS1

/// The AI table against GS1's Barcode Syntax Dictionary as zxing-cpp's checker (libzint's,
/// generated from the dictionary) knows it, and faults only the dictionary names.
@Suite struct GS1SyntaxDictionaryTests {
    /// Whether libzint knows `ai` (its refusal of a one-digit value is not "Invalid AI").
    private static func dictionaryKnows(_ ai: String) -> Bool {
        guard let fault = GS1SyntaxCheck.fault(of: "[\(ai)]1") else { return true }
        return !fault.message.hasPrefix("Invalid AI")
    }

    /// Every AI GS1 can assign: two digits 00–99, three 100–999, four 1000–9999 (GS1's AIs are
    /// prefix-free, so none of these is read as another).
    private static let candidates: [String] =
        (0...99).map { String($0).leftPadded(to: 2) } + (100...999).map(String.init) + (1000...9999).map(String.init)

    @Test func theCheckerIsBuiltIn() {
        #expect(GS1SyntaxCheck.isAvailable, "zxing-cpp built without its writers (scripts/setup.sh builds it with ZXING_WRITERS=NEW)")
    }

    /// The table has every AI of the dictionary, and no AI the dictionary lacks.
    @Test func theTableHoldsTheDictionarysAIs() {
        let known = Self.candidates.filter(Self.dictionaryKnows)
        let table = Set(GS1.formats.keys)
        #expect(known.count > 400, "the dictionary as the checker knows it: \(known.count) AIs")
        let missing = known.filter { !table.contains($0) }
        #expect(missing.isEmpty, "AIs of the dictionary missing from the table: \(missing)")
        let extra = table.filter { !known.contains($0) }.sorted()
        #expect(extra.isEmpty, "AIs of the table the dictionary does not have: \(extra)")
    }

    /// Each AI's value one character past the table's maximum is refused by the dictionary too, and
    /// a value at the table's maximum is not refused for its length.
    @Test func theTablesMaximumLengthsAreTheDictionarys() {
        var disagreements: [String] = []
        for (ai, format) in GS1.formats.sorted(by: { $0.key < $1.key }) {
            let max = format.maxLength
            let tooLong = GS1SyntaxCheck.fault(of: "[\(ai)]" + String(repeating: "1", count: max + 1))
            let atMax = GS1SyntaxCheck.fault(of: "[\(ai)]" + String(repeating: "1", count: max))
            if tooLong?.message.contains("length") != true || atMax?.message.contains("length") == true {
                disagreements.append("\(ai) (max \(max)): \(tooLong?.message ?? "accepted") / \(atMax?.message ?? "accepted")")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements)")
    }

    /// The AIs added from the dictionary parse with their formats: a date with its century, an
    /// optional component, a range.
    @Test func theDictionarysLaterAIsParse() throws {
        let s = try GS1.parse(elementString: Array("0109506000134352725020240229\u{1D}7011250101\u{1D}7233XYABC\u{1D}8043123456789012345678".utf8)).get()
        #expect(s.elements.map(\.ai) == ["01", "7250", "7011", "7233", "8043"])
        #expect(s.value(of: "7250") == "20240229" && s.value(of: "7011") == "250101")
        guard case .failure(let error) = GS1.parse(elementString: Array("725020230229".utf8)) else { Issue.record("2023-02-29 passed"); return }
        #expect(error.description == "(7250): 20230229 is not a date (day 29 of month 2)")
    }

    @Test func libzintsMessagesAreReadForTheirAI() {
        #expect(GS1SyntaxCheck.parse("Error 261: AI (17) position 3: Invalid month '13' (retval: 6)")
                == .init(ai: "17", message: "Invalid month '13' (character 3 of the value)"))
        #expect(GS1SyntaxCheck.parse("Error 260: Invalid AI (99) (retval: 6)") == .init(ai: "99", message: "Invalid AI (99)"))
        #expect(GS1SyntaxCheck.parse("Error 258: Empty data field in input") == .init(ai: nil, message: "Empty data field in input"))
    }
}
