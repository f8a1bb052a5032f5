import Capture
import GS1

/// `output.gs1_filter`: only codes whose GS1 reading (`GS1.reading`: an element string by its
/// symbology identifier, a Digital Link by its text) is valid and has an element of one of the
/// listed AIs are emitted. A code that is not GS1, or whose element string is at fault
/// (`gs1_error`), has no AI to match and is not emitted.
enum GS1CodeFilter {
    /// The filter keeping codes with one of `ais`.
    static func make(_ ais: [String]) -> CodeFilter {
        let wanted = Set(ais)
        return CodeFilter(name: "gs1_filter=" + ais.joined(separator: ",")) { code in
            guard case .success(let reading)? = GS1.reading(symbologyIdentifier: code.symbologyIdentifier, data: code.data, text: code.text)
            else { return false }
            return reading.hasElement(withAnyOf: wanted)
        }
    }

    /// What is wrong with `ais` as a filter (empty, or naming what is not an AI of GS1's table); `nil`: nothing.
    static func problem(_ ais: [String]) -> String? {
        if ais.isEmpty || ais == [""] { return "an empty list would emit no code; list AIs (01, 00) or remove the key" }
        let unknown = ais.filter { !GS1.isApplicationIdentifier($0) }
        guard !unknown.isEmpty else { return nil }
        return "not a GS1 Application Identifier: \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")) (AIs are 2 to 4 digits: 01, 00, 10, 3103, 8004)"
    }
}
