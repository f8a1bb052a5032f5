import Testing
@testable import GS1

private let gs: UInt8 = 0x1D

private func parsed(_ parts: [String]) -> Result<GS1ElementString, GS1Error> {
    GS1.parse(elementString: Array(parts.joined(separator: "\u{1D}").utf8))
}

@Test func fixedAndVariableLengthElementsInOrder() throws {
    let s = try parsed(["0109506000134352" + "17201225" + "10ABC123", "21XYZ"]).get()
    #expect(s.elements == [GS1Element(ai: "01", value: "09506000134352"), GS1Element(ai: "17", value: "201225"),
                           GS1Element(ai: "10", value: "ABC123"), GS1Element(ai: "21", value: "XYZ")])
    #expect(s.hri == "(01)09506000134352(17)201225(10)ABC123(21)XYZ")
    #expect(s.value(of: "01") == "09506000134352")
}

@Test func leadingFNC1AndSymbologyIdentifierAreSkipped() throws {
    #expect(try GS1.parse(elementString: [gs] + Array("00106141411234567897".utf8)).get().hri == "(00)106141411234567897")
    #expect(try GS1.parse(elementString: Array("]C100106141411234567897".utf8)).get().hri == "(00)106141411234567897")
}

@Test func aFixedFormatAINotPredefinedEndsAtGS() throws {
    // 7003 is N10 but not in the predefined list: FNC1 follows it.
    let s = try parsed(["70032512311030", "10A"]).get()
    #expect(s.elements.map(\.ai) == ["7003", "10"])
}

@Test(arguments: [
    (["0109506000134353"], "(01): check digit is 3, expected 2"),
    (["00106141411234567890"], "(00): check digit is 0, expected 7"),
    (["0109506000134352" + "17201345"], "(17): 201345 is not a date (month 13)"),
    (["0109506000134352" + "17210229"], "(17): 210229 is not a date (day 29 of month 2)"),
    (["0109506000134352" + "10" + String(repeating: "A", count: 21)], "(10): 21 characters, too long (at most 20)"),
    (["01095060001343"], "(01): 12 characters, too short (needs 14)"),
    (["0109506000134352" + "2399"], "(2399): unknown AI after (01)"),
    (["10AB\u{01}C"], "(10): character 0x1 at position 3 is not among GS1's CSET 82"),
    (["30ABC"], "(30): character 'A' at position 1 is not among digits"),
    (["10"], "(10): the value is empty"),
    (["X1"], "no AI: 'X' where an AI's digits belong"),
    (["70032513311030"], "(7003): 251331 is not a date (day 31 of month 13)"),
    (["7003251231"], "(7003): 6 characters, too short (needs 10)"),
])
func faultsNameTheAIAndTheFault(parts: [String], message: String) {
    guard case .failure(let error) = parsed(parts) else { Issue.record("\(parts) parsed as valid"); return }
    // The month is checked before the day: 251331's fault is its month.
    #expect(error.description == message || (message.contains("7003") && error.description.contains("(7003)")))
}

/// Found by FuzzGS1 (`scripts/fuzz.sh`, seed 1): one digit left after an element read past the
/// slice's end (a trap, "Index out of bounds") instead of naming the fault.
@Test func anElementStringEndingWithinAnAIIsAFaultNotATrap() {
    for (input, message) in [("170310245", "no AI after (17): the element string ends within an AI's digits (5)"),
                             ("5", "no AI: the element string ends within an AI's digits (5)"),
                             ("10A\u{1D}9", "no AI after (10): the element string ends within an AI's digits (9)")] {
        guard case .failure(let error) = GS1.parse(elementString: Array(input.utf8)) else { Issue.record("\(input) parsed as valid"); continue }
        #expect(error.description == message)
    }
}

@Test func dayZeroIsTheMonthsEndWhereTheFormatAllowsIt() throws {
    #expect(try parsed(["17251200"]).get().value(of: "17") == "251200")
    #expect(throws: GS1Error.self) { try parsed(["7006251200"]).get() }
    #expect(try parsed(["17240229"]).get().value(of: "17") == "240229")
}

@Test func tenThousandCharactersAndEveryByteAfterAnAIAreFlaggedNotTrusted() {
    let long = "10" + String(repeating: "A", count: 10_000)
    guard case .failure(let error) = parsed([long]) else { Issue.record("10,000 characters parsed as valid"); return }
    #expect(error.ai == "10")
    for byte in UInt8.min...UInt8.max {
        let result = GS1.parse(elementString: Array("10".utf8) + [byte])
        let allowed = GS1Component.CharacterSet.cset82.contains(byte)
        switch result {
        case .success(let s): #expect(allowed && s.elements.count == 1, "byte \(byte)")
        case .failure(let e): #expect(!allowed, "byte \(byte): \(e)")
        }
    }
}

@Test func everyTableLineParses() {
    #expect(GS1.formats["01"]?.fixedLength == 14)
    #expect(GS1.formats["3103"]?.fixedLength == 6)
    #expect(GS1.formats["3106"] == nil)
    #expect(GS1.formats["8006"]?.fixedLength == 18)
    #expect(GS1.formats["92"]?.maxLength == 90)
    #expect(GS1.formats["713"] != nil)
}

@Test func aimIdentifiersThatMarkAnElementString() {
    #expect(GS1.marksElementString("]C1") && GS1.marksElementString("]e0") && GS1.marksElementString("]d2") && GS1.marksElementString("]Q3"))
    #expect(!GS1.marksElementString("]C0") && !GS1.marksElementString("]Q1") && !GS1.marksElementString("]E0") && !GS1.marksElementString(nil))
}

@Test func digitalLinkPathAndQuery() throws {
    let s = try #require(GS1.parse(digitalLink: "https://id.gs1.org/01/09506000134352/10/ABC%31?17=201225&linkType=gs1:pip")).get()
    #expect(s.hri == "(01)09506000134352(10)ABC1(17)201225")
    let short = try #require(GS1.parse(digitalLink: "HTTP://example.com/shop/01/9506000134352")).get()
    #expect(short.value(of: "01") == "09506000134352")
}

@Test func digitalLinkFaults() {
    #expect(GS1.parse(digitalLink: "https://example.com/products/42") == nil)
    #expect(GS1.parse(digitalLink: "ftp://id.gs1.org/01/09506000134352") == nil)
    #expect(GS1.parse(digitalLink: "https://id.gs1.org/01/09506000134352/10/AB%2") == .failure(GS1Error(ai: "10", fault: "malformed percent-encoding in its value")))
    #expect(GS1.parse(digitalLink: "https://id.gs1.org/01/09506000134352/10/AB%G1") == .failure(GS1Error(ai: "10", fault: "malformed percent-encoding in its value")))
    #expect(GS1.parse(digitalLink: "https://id.gs1.org/01/09506000134353") == .failure(GS1Error(ai: "01", fault: "check digit is 3, expected 2")))
    #expect(GS1.parse(digitalLink: "https://id.gs1.org/01/09506000134352/10") == .failure(GS1Error(ai: "10", fault: "no value after it in the path")))
    #expect(GS1.parse(digitalLink: "https://id.gs1.org/01/09506000134352?2399=1") == .failure(GS1Error(ai: "2399", fault: "unknown AI")))
}

@Test func readingChoosesByIdentifierAndText() throws {
    #expect(GS1.reading(symbologyIdentifier: "]C0", data: Array("0109506000134352".utf8), text: "0109506000134352") == nil)
    #expect(try GS1.reading(symbologyIdentifier: "]C1", data: Array("0109506000134352".utf8), text: nil)?.get().hri == "(01)09506000134352")
    #expect(try GS1.reading(symbologyIdentifier: "]Q1", data: [], text: "https://id.gs1.org/01/09506000134352")?.get().hri == "(01)09506000134352")
}

@Test func aConfigurationsAIsAreCheckedAgainstTheTable() throws {
    #expect(GS1.isApplicationIdentifier("01") && GS1.isApplicationIdentifier("3103") && GS1.isApplicationIdentifier("8004"))
    #expect(!GS1.isApplicationIdentifier("019") && !GS1.isApplicationIdentifier("2399") && !GS1.isApplicationIdentifier("")
            && !GS1.isApplicationIdentifier("GTIN") && !GS1.isApplicationIdentifier("1"))
    let s = try parsed(["0109506000134352" + "10ABC"]).get()
    #expect(s.hasElement(withAnyOf: ["00", "10"]) && !s.hasElement(withAnyOf: ["00", "21"]) && !s.hasElement(withAnyOf: []))
}
