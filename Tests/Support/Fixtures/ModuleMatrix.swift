import Foundation

/// A barcode as a grid of modules (true = dark), without quiet zone, made by a real encoder.
///
/// QR codes come from the `qrencode` CLI and 1-D barcodes from the `zint` CLI, run when the
/// test runs; nothing is committed as an image. Render one with `GreyFrame.draw`.
public struct ModuleMatrix: Sendable, Hashable {
    /// Modules per row.
    public let columns: Int
    /// Rows of modules (1 for a 1-D barcode until `stretched(toRows:)`).
    public let rows: Int
    /// Row-major, `true` for a dark module.
    public let modules: [Bool]
    /// Light modules the symbology needs around the code (4 for QR, 10 or 11 for 1-D).
    public let quietZone: Int

    public init(columns: Int, rows: Int, modules: [Bool], quietZone: Int) {
        precondition(columns > 0 && rows > 0 && modules.count == columns * rows, "module count does not match \(columns)x\(rows)")
        self.columns = columns
        self.rows = rows
        self.modules = modules
        self.quietZone = quietZone
    }

    public subscript(column: Int, row: Int) -> Bool { modules[row * columns + column] }

    /// A 1-D barcode's single row repeated `rows` times, so it has bar height.
    public func stretched(toRows newRows: Int) -> ModuleMatrix {
        let firstRow = Array(modules[0..<columns])
        return ModuleMatrix(columns: columns, rows: newRows,
                            modules: Array([[Bool]](repeating: firstRow, count: newRows).joined()), quietZone: quietZone)
    }

    /// QR error-correction level (`qrencode -l`).
    public enum ErrorCorrection: String, Sendable { case low = "L", medium = "M", quartile = "Q", high = "H" }

    /// A QR code holding exactly `payload`, encoded in 8-bit mode by `qrencode -8`.
    ///
    /// The payload goes through a file (`qrencode -r`), so NUL bytes and invalid UTF-8 are
    /// kept byte for byte. `version` (1–40) forces a minimum symbol size. With `kanji`
    /// (`qrencode -k` instead of `-8`) the payload is Shift_JIS and its double-byte characters go
    /// in Kanji mode.
    public static func qrCode(_ payload: [UInt8], errorCorrection: ErrorCorrection = .medium,
                              version: Int? = nil, kanji: Bool = false) throws -> ModuleMatrix {
        let input = try TemporaryFile(contents: payload, suffix: ".bin")
        var arguments = [kanji ? "-k" : "-8", "-r", input.path, "-o", "-", "-t", "ASCII", "-m", "0", "-l", errorCorrection.rawValue]
        if let version { arguments += ["-v", String(version)] }
        let result = try ExternalTool.run("qrencode", arguments)
        guard result.status == 0 else { throw FixtureError.toolFailed(result.describe()) }
        return try parseASCIIArt(result.stdout)
    }

    /// A QR code holding the UTF-8 bytes of `text`.
    public static func qrCode(_ text: String, errorCorrection: ErrorCorrection = .medium, version: Int? = nil) throws -> ModuleMatrix {
        try qrCode(Array(text.utf8), errorCorrection: errorCorrection, version: version)
    }

    /// Parses `qrencode -t ASCII -m 0`: one line per row, `##` for a dark module, two spaces for a light one.
    static func parseASCIIArt(_ output: [UInt8]) throws -> ModuleMatrix {
        let lines = output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        let size = lines.count
        var modules: [Bool] = []
        modules.reserveCapacity(size * size)
        for (index, line) in lines.enumerated() {
            guard line.count == 2 * size else {
                throw FixtureError.unexpectedOutput("qrencode ASCII row \(index) has \(line.count) characters, expected \(2 * size) for a \(size)x\(size) code")
            }
            var i = line.startIndex
            while i < line.endIndex {
                switch (line[i], line[i + 1]) {
                case (UInt8(ascii: "#"), UInt8(ascii: "#")): modules.append(true)
                case (UInt8(ascii: " "), UInt8(ascii: " ")): modules.append(false)
                default: throw FixtureError.unexpectedOutput("qrencode ASCII row \(index) has a module that is neither '##' nor '  '")
                }
                i += 2
            }
        }
        guard size >= 21 else { throw FixtureError.unexpectedOutput("qrencode produced \(size) rows; a QR code has at least 21") }
        return ModuleMatrix(columns: size, rows: size, modules: modules, quietZone: 4)
    }

    /// A 1-D barcode made by `zint -b SYMBOLOGY --dump`, one row of modules (see `stretched(toRows:)`).
    ///
    /// `symbology` is a zint type name, e.g. `EANX` (EAN-13 from 12 digits, zint adds the check
    /// digit) or `CODE128`. The bar pattern is read from zint's hex dump (two hex digits per 8
    /// modules, one for a last group of 4); its width is the last bar, since a 1-D barcode ends
    /// with a bar.
    public static func linearBarcode(zintSymbology symbology: String, data: String, quietZone: Int = 11) throws -> ModuleMatrix {
        let result = try ExternalTool.run("zint", ["-b", symbology, "-d", data, "--dump"])
        guard result.status == 0 else { throw FixtureError.toolFailed(result.describe()) }
        let text = String(decoding: result.stdout, as: UTF8.self)
        let rows = text.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }
        guard rows.count == 1 else {
            throw FixtureError.unexpectedOutput("zint --dump for \(symbology) gave \(rows.count) rows; only single-row (1-D) symbologies are supported")
        }
        var bits: [Bool] = []
        for token in rows[0].split(separator: " ") {
            guard token.count <= 2, let byte = UInt8(token, radix: 16) else {
                throw FixtureError.unexpectedOutput("zint --dump token '\(token)' is not a hex byte")
            }
            // zint writes a row's last 4 modules as a single hex digit when that is all that is left.
            let count = 4 * token.count
            for shift in (0..<count).reversed() { bits.append((byte >> UInt8(shift)) & 1 == 1) }
        }
        guard let last = bits.lastIndex(of: true), bits.first == true else {
            throw FixtureError.unexpectedOutput("zint --dump for \(symbology) has no bars or does not start with one")
        }
        return ModuleMatrix(columns: last + 1, rows: 1, modules: Array(bits[...last]), quietZone: quietZone)
    }
}

/// Why a fixture could not be made.
public enum FixtureError: Error, CustomStringConvertible {
    /// An external tool is missing or exited with an error; the text says which and its stderr.
    case toolFailed(String)
    /// A tool's output was not in the expected format.
    case unexpectedOutput(String)

    public var description: String {
        switch self {
        case .toolFailed(let s): "fixture tool failed: \(s)"
        case .unexpectedOutput(let s): "fixture tool output unexpected: \(s)"
        }
    }
}
