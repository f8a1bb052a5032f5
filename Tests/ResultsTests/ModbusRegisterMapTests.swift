import Capture
import Media
import Testing
@testable import Results

private func code(_ data: [UInt8], symbology: Symbology = .qrcode) -> MachineReadableCodeObject {
    let info = FrameInfo(sequenceNumber: 3, presentationTime: MediaTime(nanoseconds: 0), width: 64, height: 64, format: .grey)
    return MachineReadableCodeObject(symbology: symbology, data: data, text: String(validating: data, as: UTF8.self), quality: nil,
                                     orientation: .up, corners: [], frame: info, pass: .zbar)
}

/// The Modbus server's register map: the payload packed two bytes a register, the result fields and counters.
@Suite struct ModbusRegisterMapTests {
    @Test func payloadBytesArePackedHighByteFirstAndAnOddLastOnePadded() {
        #expect(ModbusRegisterMap.pack(Array("AB".utf8)) == [0x4142])
        #expect(ModbusRegisterMap.pack(Array("ABC".utf8)) == [0x4142, 0x4300])
        #expect(ModbusRegisterMap.pack([]) == [])
        #expect(ModbusRegisterMap.pack([0xFF, 0x00, 0x01]) == [0xFF00, 0x0100])
        let long = [UInt8](repeating: 0x5A, count: 300)
        #expect(ModbusRegisterMap.pack(long).count == 125, "cut at 250 bytes")
        #expect(ModbusRegisterMap.pack(long + [1]).allSatisfy { $0 == 0x5A5A })
    }

    @Test func aResultFillsItsRegistersAndCountsItsStatus() {
        var map = ModbusRegisterMap()
        #expect(map.inputRegisterValues(heartbeat: 0) == [UInt16](repeating: 0, count: 139), "no result yet: all 0")
        map.record(.good, codes: 1, first: code(Array("HELLO".utf8), symbology: .code128))
        var values = map.inputRegisterValues(heartbeat: 70_000)
        #expect(values.count == ModbusRegisterMap.inputRegisters && values.count == 139)
        #expect(Array(values[0..<10]) == [UInt16(70_000 - 65_536), 1, 1, 1, 17, 5, 1, 0, 0, 0])
        #expect(Array(values[10..<14]) == [0x4845, 0x4C4C, 0x4F00, 0], "HELLO, then zeros")
        map.record(.noRead, codes: 0, first: nil)
        map.mismatch += 2
        values = map.inputRegisterValues(heartbeat: 5)
        #expect(Array(values[0..<10]) == [5, 2, 2, 0, 0, 0, 1, 1, 0, 2])
        #expect(values[10...].allSatisfy { $0 == 0 }, "a no-read's payload registers are 0, not the last code's")
        map.record(.multiple, codes: 3, first: code(Array(repeating: 0x41, count: 400)))
        values = map.inputRegisterValues(heartbeat: 6)
        #expect(Array(values[0..<10]) == [6, 3, 3, 3, 1, 250, 1, 1, 1, 2], "length is what the registers hold: 250 of 400 bytes")
        #expect(values[10..<135].allSatisfy { $0 == 0x4141 } && values[135...].allSatisfy { $0 == 0 }, "no list: the expected registers are 0")
        map.expected = ExpectedCounts(correct: 3, wrong: 1, missing: 65_537, extra: 2)
        values = map.inputRegisterValues(heartbeat: 7)
        #expect(Array(values[135...]) == [3, 1, 1, 2], "correct, wrong, missing (wrapped), extra: \(values[135...])")
    }

    @Test func countersWrapAt65536() {
        var map = ModbusRegisterMap()
        map.good = 65_535
        map.record(.good, codes: 1, first: code([0x31]))
        #expect(map.inputRegisterValues(heartbeat: 0)[ModbusRegisterMap.goodCount] == 0)
    }

    @Test func everySymbologyHasItsOwnNumber() {
        let ids = Symbology.allCases.map(ModbusRegisterMap.symbologyID)
        #expect(Set(ids).count == Symbology.allCases.count && !ids.contains(0), "\(ids)")
        #expect(ModbusRegisterMap.symbologyID(.qrcode) == 1 && ModbusRegisterMap.symbologyID(.datamatrix) == 20)
    }
}
