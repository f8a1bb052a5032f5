import Modbus
import Testing

/// MBAP framing and what a request is answered or refused with, without a socket.
@Suite struct ModbusFramingTests {
    let size = ModbusMapSize(coils: 1, inputRegisters: 135)

    /// An ADU: transaction id 7, protocol 0, the length of unit + PDU, unit 1, `pdu`.
    static func adu(_ pdu: [UInt8], transaction: UInt16 = 7) -> [UInt8] {
        let length = pdu.count + 1
        return [UInt8(transaction >> 8), UInt8(transaction & 0xFF), 0, 0, UInt8(length >> 8), UInt8(length & 0xFF), 1] + pdu
    }

    @Test func requestsAreCutByTheirHeaderWhateverTheReadsSplitThem() throws {
        let one = Self.adu([4, 0, 0, 0, 10]), two = Self.adu([5, 0, 0, 0xFF, 0], transaction: 8)
        let bytes = one + two
        var reader = ModbusFrameReader()
        var got: [[UInt8]] = []
        for cut in [3, 9, 14, bytes.count] {
            let start = got.flatMap { $0 }.count + reader.buffered
            got += try reader.requests(adding: bytes[start..<cut]).get()
        }
        #expect(got == [one, two])
        #expect(reader.buffered == 0)
    }

    @Test func aHeaderThatIsNotModbusIsMalformed() {
        var reader = ModbusFrameReader()
        #expect(reader.requests(adding: [0, 1, 0, 1, 0, 6, 1, 4, 0, 0, 0, 1]) == .failure(.protocolID(1)))
        var long = ModbusFrameReader()
        #expect(long.requests(adding: [0, 1, 0, 0, 1, 0, 1]) == .failure(.length(256)))
        var short = ModbusFrameReader()
        #expect(short.requests(adding: [0, 1, 0, 0, 0, 1, 1]) == .failure(.length(1)))
        var http = ModbusFrameReader()
        #expect(http.requests(adding: Array("GET / HTTP/1.1\r\n".utf8)) == .failure(.protocolID(0x5420)), "\"T \" of GET")
    }

    @Test func readsInsideTheMapAreAnsweredAndOutsideRefusedWithIllegalDataAddress() {
        #expect(ModbusRequestCheck(Self.adu([4, 0, 0, 0, 125]), size: size) == .answer)
        #expect(ModbusRequestCheck(Self.adu([4, 0, 10, 0, 125]), size: size) == .answer, "registers 10 to 134")
        #expect(ModbusRequestCheck(Self.adu([4, 0, 11, 0, 125]), size: size) == .refuse(.illegalDataAddress), "register 135 does not exist")
        #expect(ModbusRequestCheck(Self.adu([4, 0, 135, 0, 1]), size: size) == .refuse(.illegalDataAddress))
        #expect(ModbusRequestCheck(Self.adu([3, 0, 0, 0, 1]), size: size) == .refuse(.illegalDataAddress), "no holding registers")
        #expect(ModbusRequestCheck(Self.adu([2, 0, 0, 0, 1]), size: size) == .refuse(.illegalDataAddress), "no discrete inputs")
        #expect(ModbusRequestCheck(Self.adu([1, 0, 0, 0, 1]), size: size) == .answer)
        #expect(ModbusRequestCheck(Self.adu([1, 0, 0, 0, 2]), size: size) == .refuse(.illegalDataAddress), "one coil")
        #expect(ModbusRequestCheck(Self.adu([4, 0, 0, 0, 126]), size: size) == .refuse(.illegalDataValue), "125 registers a read at most")
        #expect(ModbusRequestCheck(Self.adu([4, 0, 0, 0, 0]), size: size) == .refuse(.illegalDataValue))
    }

    @Test func writesOutsideCoilZeroAreRefused() {
        #expect(ModbusRequestCheck(Self.adu([5, 0, 0, 0xFF, 0]), size: size) == .answer)
        #expect(ModbusRequestCheck(Self.adu([5, 0, 0, 0, 0]), size: size) == .answer)
        #expect(ModbusRequestCheck(Self.adu([5, 0, 1, 0xFF, 0]), size: size) == .refuse(.illegalDataAddress))
        #expect(ModbusRequestCheck(Self.adu([5, 0, 0, 0x12, 0x34]), size: size) == .refuse(.illegalDataValue))
        #expect(ModbusRequestCheck(Self.adu([15, 0, 0, 0, 1, 1, 1]), size: size) == .answer)
        #expect(ModbusRequestCheck(Self.adu([15, 0, 0, 0, 2, 1, 3]), size: size) == .refuse(.illegalDataAddress))
        #expect(ModbusRequestCheck(Self.adu([6, 0, 0, 0, 1]), size: size) == .refuse(.illegalDataAddress))
        #expect(ModbusRequestCheck(Self.adu([16, 0, 0, 0, 1, 2, 0, 1]), size: size) == .refuse(.illegalDataAddress))
        #expect(ModbusRequestCheck(Self.adu([16, 0, 0, 0, 2, 2, 0, 1]), size: size) == .refuse(.illegalDataValue), "byte count 2 for 2 registers")
        #expect(ModbusRequestCheck(Self.adu([22, 0, 0, 0xFF, 0xFF, 0, 0]), size: size) == .refuse(.illegalDataAddress))
        #expect(ModbusRequestCheck(Self.adu([23, 0, 0, 0, 1, 0, 0, 0, 1, 2, 0, 1]), size: size) == .refuse(.illegalDataAddress))
        #expect(ModbusRequestCheck(Self.adu([8, 0, 0, 0x12, 0x34]), size: size) == .refuse(.illegalFunction))
        #expect(ModbusRequestCheck(Self.adu([0x2B, 0x0E, 1, 0]), size: size) == .refuse(.illegalFunction))
    }

    @Test func aPDUOfTheWrongLengthForItsFunctionIsMalformed() {
        #expect(ModbusRequestCheck(Self.adu([4, 0, 0, 0]), size: size) == .malformed(.pdu(function: 4, bytes: 4)))
        #expect(ModbusRequestCheck(Self.adu([4, 0, 0, 0, 1, 9]), size: size) == .malformed(.pdu(function: 4, bytes: 6)))
        #expect(ModbusRequestCheck(Self.adu([15, 0, 0, 0, 1, 2, 1]), size: size) == .malformed(.pdu(function: 15, bytes: 7)), "byte count 2, one byte sent")
        #expect(ModbusRequestCheck(Self.adu([16, 0, 0]), size: size) == .malformed(.pdu(function: 16, bytes: 3)))
    }

    @Test func theReplierHoldsItsMapAndRefusesWithoutASocketAsAValue() throws {
        let replier = try ModbusReplier(size: size)
        #expect(!replier.coil(0))
        #expect(!ModbusReplier.version.isEmpty)
        // A reply on a descriptor that is not open fails as a value naming the call.
        let result = replier.reply(to: Self.adu([4, 0, 0, 0, 1]), on: .init(rawValue: 1_000_000))
        guard case .failure(let error) = result else {
            Issue.record("a reply on a closed descriptor succeeded: \(result)")
            return
        }
        #expect(error.call == "modbus_reply" && error.errno == 9, "EBADF: \(error)")
    }
}
