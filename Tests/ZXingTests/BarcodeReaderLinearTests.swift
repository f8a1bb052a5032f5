import Media
import Testing
import TestSupport
@testable import ZXing

/// A 1-D code zint makes, and the symbology and payload zxing-cpp 3.1.1 gives for it.
struct LinearCase: CustomTestStringConvertible, Sendable {
    var zint: String
    var input: String
    var symbology: Symbology
    var data: String
    var testDescription: String { "zint \(zint) \(input)" }
}

/// UPC-A and UPC-E as their symbols' digits (12 and 8), a UPC-A as `upca` with EAN-13 requested
/// too: as zbar and zxing-cpp 1.4 gave them (3.1.1 gives the 13-digit EAN-13 form; see `UPCDigits`).
let linearCases: [LinearCase] = [
    LinearCase(zint: "EANX", input: "1234567", symbology: .ean8, data: "12345670"),
    LinearCase(zint: "UPCA", input: "01234567890", symbology: .upca, data: "012345678905"),
    LinearCase(zint: "UPCE", input: "0123456", symbology: .upce, data: "01234565"),
    LinearCase(zint: "UPCE", input: "0123450", symbology: .upce, data: "01234505"),
    LinearCase(zint: "C25INTER", input: "12345678", symbology: .i25, data: "12345678"),
    LinearCase(zint: "CODABAR", input: "A123456B", symbology: .codabar, data: "A123456B"),
    LinearCase(zint: "CODE39", input: "SYNC-39", symbology: .code39, data: "SYNC-39"),
    LinearCase(zint: "CODE93", input: "SYNC93", symbology: .code93, data: "SYNC93"),
]

/// A 640x160 frame with zint's `symbology` code of `input`, 2 px per module.
private func linearFrame(_ zint: String, _ input: String) throws -> GreyFrame {
    frameWithCode(try ModuleMatrix.linearBarcode(zintSymbology: zint, data: input).stretched(toRows: 40),
                  width: 640, height: 160, moduleSize: 2).0
}

@Suite(.offThePool) struct BarcodeReaderLinearTests {
    @Test("each 1-D symbology zxing-cpp 3.1.1 reads comes back as syncscan's symbology, all requested at once",
          arguments: linearCases)
    func readsAs(c: LinearCase) throws {
        let found = try read(try linearFrame(c.zint, c.input), with: reader(BarcodeReader.readable))
        #expect(found.map(\.symbology) == [c.symbology])
        #expect(found.map { String(decoding: $0.data, as: UTF8.self) } == [c.data])
    }

    @Test("an EAN-13 not starting with 0 stays ean13 with UPC-A requested too; one starting with 0 is a UPC-A")
    func eanAndUPC() throws {
        let all = reader(BarcodeReader.readable)
        #expect(try read(try linearFrame("EANX", "590123412345"), with: all).map { "\($0.symbology) \(String(decoding: $0.data, as: UTF8.self))" }
                == ["ean13 5901234123457"])
        let eanOnly = try read(try linearFrame("UPCA", "01234567890"), with: reader([.ean13]))
        #expect(eanOnly.map { "\($0.symbology) \(String(decoding: $0.data, as: UTF8.self))" } == ["ean13 0012345678905"])
        #expect(eanOnly.first?.text == "0012345678905")
    }

    @Test("UPC-E compression undoes each zero-suppression rule and refuses a UPC-A with no UPC-E form")
    func compression() {
        func digits(_ s: String) -> [UInt8] { Array(s.utf8) }
        // One UPC-A per rule: last UPC-E digit 0-2, 3, 4, 5-9 (the check digit is carried, not computed).
        for (a, e) in [("012000003455", "01234505"), ("012300000457", "01234537"), ("012340000057", "01234547"),
                       ("012345000065", "01234565")] {
            #expect(UPCDigits.compressed(digits(a)) == digits(e), "\(a)")
        }
        #expect(UPCDigits.compressed(digits("012345678905")) == nil)
    }
}
