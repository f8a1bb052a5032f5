extension ModuleMatrix {
    /// A 2-D symbol made by `zint -b SYMBOLOGY`, read back from zint's 1-bit BMP raster.
    ///
    /// Each raster pixel is one entry of the matrix. At the default `scale` 0.5 zint draws one
    /// pixel per module, so the matrix is the symbol's modules (PDF417 rows are 3 entries tall).
    /// MaxiCode's hexagons need a finer raster: use `scale` 1 (about 10 pixels per module) and
    /// draw it at a `moduleSize` of 1 or 2. zint draws no quiet zone; `quietZone` (in entries) is
    /// what `GreyFrame.draw` paints light around it.
    ///
    /// The payload goes through a file (`--input`). With `binary` (`--binary`) zint encodes the
    /// bytes as they are, NUL and invalid UTF-8 included; without it the input must be UTF-8,
    /// which zint converts to ISO 8859-1 where it can and otherwise tags with ECI 26 (UTF-8).
    public static func zintSymbol(_ symbology: String, payload: [UInt8], binary: Bool = true, scale: Double = 0.5,
                                  quietZone: Int = 4, arguments: [String] = []) throws -> ModuleMatrix {
        let input = try TemporaryFile(contents: payload, suffix: ".bin")
        let result = try ExternalTool.run("zint", ["-b", symbology, "--input=\(input.path)", "--scale=\(scale)",
                                                   "--filetype=bmp", "--direct"] + (binary ? ["--binary"] : []) + arguments)
        guard result.status == 0 else { throw FixtureError.toolFailed(result.describe()) }
        return try parseBMP(result.stdout, quietZone: quietZone, source: "zint -b \(symbology)")
    }

    /// `zintSymbol(_:payload:…)` for the UTF-8 bytes of `text`, which zint may tag with an ECI.
    public static func zintSymbol(_ symbology: String, text: String, scale: Double = 0.5, quietZone: Int = 4,
                                  arguments: [String] = []) throws -> ModuleMatrix {
        try zintSymbol(symbology, payload: Array(text.utf8), binary: false, scale: scale, quietZone: quietZone,
                       arguments: arguments)
    }

    /// Parses an uncompressed 1-bit BMP (zint's): dark where the palette colour is darker than mid-grey.
    static func parseBMP(_ bmp: [UInt8], quietZone: Int, source: String) throws -> ModuleMatrix {
        func u32(_ at: Int) -> Int { Int(bmp[at]) | Int(bmp[at + 1]) << 8 | Int(bmp[at + 2]) << 16 | Int(bmp[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bmp[at]) | Int(bmp[at + 1]) << 8 }
        guard bmp.count >= 62, bmp[0] == UInt8(ascii: "B"), bmp[1] == UInt8(ascii: "M") else {
            throw FixtureError.unexpectedOutput("\(source) did not write a BMP (\(bmp.count) bytes)")
        }
        let dataOffset = u32(10), headerSize = u32(14), width = u32(18)
        let rawHeight = Int32(truncatingIfNeeded: UInt32(u32(22))), bitsPerPixel = u16(28), compression = u32(30)
        guard bitsPerPixel == 1, compression == 0, width > 0, rawHeight != 0 else {
            throw FixtureError.unexpectedOutput("\(source) wrote a \(bitsPerPixel)-bit BMP (compression \(compression)); expected 1-bit uncompressed")
        }
        let height = Int(rawHeight.magnitude), bottomUp = rawHeight > 0
        let palette = 14 + headerSize
        // Palette entries are B, G, R, reserved; an entry is dark if its grey is below 128.
        let dark = (0..<2).map { i in
            let b = Int(bmp[palette + 4 * i]), g = Int(bmp[palette + 4 * i + 1]), r = Int(bmp[palette + 4 * i + 2])
            return (299 * r + 587 * g + 114 * b) / 1000 < 128
        }
        let rowBytes = (width + 31) / 32 * 4
        guard bmp.count >= dataOffset + rowBytes * height else {
            throw FixtureError.unexpectedOutput("\(source) wrote a truncated BMP: \(bmp.count) bytes for \(width)x\(height)")
        }
        var modules: [Bool] = []
        modules.reserveCapacity(width * height)
        for y in 0..<height {
            let row = dataOffset + (bottomUp ? height - 1 - y : y) * rowBytes
            for x in 0..<width {
                let bit = (bmp[row + x / 8] >> UInt8(7 - x % 8)) & 1
                modules.append(dark[Int(bit)])
            }
        }
        return ModuleMatrix(columns: width, rows: height, modules: modules, quietZone: quietZone)
    }
}
