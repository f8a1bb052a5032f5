import Capture
import GS1

extension JSONBuffer {
    /// `,"gs1":{"hri":…,"elements":[{"ai":…,"value":…},…]}` for a valid GS1 code,
    /// `,"gs1_error":"(AI): fault"` for an invalid one, nothing for a code that is not GS1
    /// (`GS1.reading`: an element string by its symbology identifier, a Digital Link by its text).
    mutating func gs1(_ code: MachineReadableCodeObject) {
        switch GS1.reading(symbologyIdentifier: code.symbologyIdentifier, data: code.data, text: code.text) {
        case nil:
            return
        case .failure(let error)?:
            raw(",\"gs1_error\":")
            string(error.description)
        case .success(let parsed)?:
            raw(",\"gs1\":{\"hri\":")
            string(parsed.hri)
            raw(",\"elements\":[")
            for (i, element) in parsed.elements.enumerated() {
                raw(i == 0 ? "{\"ai\":" : ",{\"ai\":")
                string(element.ai)
                raw(",\"value\":")
                string(element.value)
                raw("}")
            }
            raw("]}")
        }
    }
}
