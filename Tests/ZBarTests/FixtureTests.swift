import Testing
import TestSupport

/// The fixtures other tests rely on: real encoders, exact geometry, honest padding.
@Suite(.offThePool) struct FixtureTests {
    @Test("qrencode's matrix is a QR code: 21+4k modules with finder patterns in three corners")
    func qrMatrixShape() throws {
        let m = try ModuleMatrix.qrCode("fixture")
        #expect(m.columns == m.rows && (m.columns - 21) % 4 == 0)
        #expect(m.quietZone == 4)
        func isFinder(atColumn c0: Int, row r0: Int) -> Bool {
            (0..<7).allSatisfy { r in
                (0..<7).allSatisfy { c in
                    let ring = max(abs(c - 3), abs(r - 3))  // 3 outer ring, 2 light ring, ≤1 centre
                    return m[c0 + c, r0 + r] == (ring != 2)
                }
            }
        }
        #expect(isFinder(atColumn: 0, row: 0))
        #expect(isFinder(atColumn: m.columns - 7, row: 0))
        #expect(isFinder(atColumn: 0, row: m.rows - 7))
        #expect(!isFinder(atColumn: m.columns - 7, row: m.rows - 7))
    }

    @Test("a forced version gives its size; a payload too large for any version is a clear error")
    func qrVersionAndOverflow() throws {
        #expect(try ModuleMatrix.qrCode("v5", version: 5).columns == 37)
        do {
            _ = try ModuleMatrix.qrCode([UInt8](repeating: 0x41, count: 4000), errorCorrection: .high)
            Issue.record("4000 bytes at level H cannot fit a QR code, yet qrencode produced one")
        } catch let error as FixtureError {
            #expect(error.description.contains("qrencode"))
        }
    }

    @Test("zint's EAN-13 is 95 modules between 101 guards; Code 128 ends with its stop bar")
    func linearMatrix() throws {
        let ean = try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: "590123412345")
        #expect(ean.columns == 95 && ean.rows == 1)
        #expect([ean[0, 0], ean[1, 0], ean[2, 0]] == [true, false, true])
        #expect([ean[92, 0], ean[93, 0], ean[94, 0]] == [true, false, true])
        let stretched = ean.stretched(toRows: 5)
        #expect(stretched.rows == 5 && (0..<95).allSatisfy { stretched[$0, 4] == ean[$0, 0] })
        let code128 = try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "Hello-128")
        #expect((code128.columns - 2) % 11 == 0)  // 11 modules a character, 13-module stop pattern
        // zint dumps this one's last 4 modules as a single hex digit, which is 4 modules, not 8.
        let odd = try ModuleMatrix.linearBarcode(zintSymbology: "CODE128", data: "A1b2C3d4")
        #expect((odd.columns - 2) % 11 == 0)
        let stop: [Bool] = [1, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1].map { $0 == 1 }
        #expect((odd.columns - 13..<odd.columns).map { odd[$0, 0] } == stop)
    }

    @Test("an upright code covers exactly its modules; a quarter turn moves the corners")
    func renderingGeometry() throws {
        let m = try ModuleMatrix.qrCode("geometry")
        var frame = GreyFrame(width: 200, height: 200, background: 128)
        let code = frame.draw(m, x: 40, y: 30, moduleSize: 3)
        #expect(code.topLeft == FixturePoint(x: 40, y: 30))
        #expect(code.bottomRight == FixturePoint(x: 40 + Double(3 * m.columns), y: 30 + Double(3 * m.rows)))
        // Module (0,0) is dark: pixels 40…42 × 30…32; the quiet zone left of it is light.
        #expect(frame[40, 30] == 0 && frame[42, 32] == 0)
        #expect(frame[39, 30] == 255 && frame[40 - 12, 30] == 255 && frame[40 - 13, 30] == 128)

        var turned = GreyFrame(width: 200, height: 200)
        let quarter = turned.draw(m, x: 40, y: 30, moduleSize: 3, rotationDegrees: 90)
        #expect(quarter.topLeft == FixturePoint(x: 40 + Double(3 * m.columns), y: 30))
        #expect(quarter.topRight == code.bottomRight)  // square code: turning about its centre keeps the box
        #expect(quarter.bottomLeft == code.topLeft)
    }

    @Test("padding survives inversion and narrowing; restriding keeps the pixels")
    func padding() {
        var frame = GreyFrame(width: 3, height: 2, bytesPerLine: 5, background: 10, padding: 0x80)
        frame[1, 1] = 200
        #expect(frame.bytes == [10, 10, 10, 0x80, 0x80, 10, 200, 10, 0x80, 0x80])
        #expect(frame.inverted().bytes == [245, 245, 245, 0x80, 0x80, 245, 55, 245, 0x80, 0x80])
        #expect(frame.restrided(bytesPerLine: 4, padding: 1).bytes == [10, 10, 10, 1, 10, 200, 10, 1])
        #expect(frame.narrowed(toWidth: 2).packedPixels == [10, 10, 10, 200])
        #expect(frame.pgmBytes() == Array("P5\n3 2\n255\n".utf8) + [10, 10, 10, 10, 200, 10])
    }

    @Test("the one-line QR frame decodes with zbarimg after a round trip through a PGM file")
    func oneLinerAndPGMFile() throws {
        let (frame, code) = try GreyFrame.withQRCode("one-liner", rotationDegrees: 30)
        #expect(abs(code.center.x - 160) < 0.001 && abs(code.center.y - 120) < 0.001)
        let file = try TemporaryFile(contents: [], suffix: ".pgm")
        try frame.writePGM(toPath: file.path)
        let result = try ExternalTool.run("zbarimg", ["--raw", "-q", "-Sbinary", file.path])
        #expect(result.status == 0)
        #expect(result.stdout == Array("one-liner".utf8))
    }
}
