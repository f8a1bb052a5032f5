/// Modbus TCP requests cut from a client's bytes by their MBAP header (transaction id, protocol
/// id 0, length, unit id), one whole ADU each, without libmodbus: the caller reads the socket
/// when `poll(2)` says so and never waits for the rest of a frame.
///
/// Holds at most one ADU's bytes (`ModbusReplier.maxADU`). A header whose protocol id is not 0
/// or whose length is not 2 to 254 (a unit id and a PDU of 1 to 253 bytes) is malformed.
public struct ModbusFrameReader: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// Bytes received but not yet a whole request.
    public var buffered: Int { pending.count }

    /// The whole requests `bytes` completes, in order; a malformed header fails (nothing after it is read).
    public mutating func requests(adding bytes: some Collection<UInt8>) -> Result<[[UInt8]], ModbusFrameError> {
        pending += bytes
        var requests: [[UInt8]] = []
        while pending.count >= 7 {
            let protocolID = Int(pending[2]) << 8 | Int(pending[3])
            let length = Int(pending[4]) << 8 | Int(pending[5])
            guard protocolID == 0 else { return .failure(.protocolID(protocolID)) }
            guard (2...254).contains(length) else { return .failure(.length(length)) }
            guard pending.count >= 6 + length else { break }
            requests.append(Array(pending[..<(6 + length)]))
            pending.removeFirst(6 + length)
        }
        return .success(requests)
    }
}

/// Why a client's bytes are not Modbus TCP (the server closes it).
public enum ModbusFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The MBAP header's protocol id, which is 0 for Modbus.
    case protocolID(Int)
    /// The MBAP header's length field (unit id + PDU): 2 to 254.
    case length(Int)
    /// A PDU whose length is not its function's (`function`, the PDU's bytes).
    case pdu(function: UInt8, bytes: Int)

    public var description: String {
        switch self {
        case .protocolID(let id): "MBAP protocol id \(id), not 0 (not Modbus TCP)"
        case .length(let length): "MBAP length \(length), not 2 to 254"
        case .pdu(let function, let bytes): "function \(function) with a \(bytes)-byte PDU, not its length"
        }
    }
}

/// What a server with a map of `size` does with one whole request (`ModbusFrameReader`): answer
/// it (`ModbusReplier.reply`), refuse it with an exception, or close the client (malformed).
///
/// The functions taken: 1 read coils, 2 read discrete inputs, 3 read holding registers, 4 read
/// input registers, 5 write single coil, 6 write single register, 15 write multiple coils, 16
/// write multiple registers, 22 mask write register, 23 read/write multiple registers; any other
/// is refused (ILLEGAL FUNCTION). A quantity out of its function's range or a coil value neither
/// 0xFF00 nor 0 is ILLEGAL DATA VALUE; an address past its table ILLEGAL DATA ADDRESS: so what
/// libmodbus is given to answer is always in the map.
public enum ModbusRequestCheck: Sendable, Hashable {
    case answer
    case refuse(ModbusException)
    case malformed(ModbusFrameError)

    public init(_ adu: [UInt8], size: ModbusMapSize) {
        let pdu = adu.dropFirst(7)
        guard let function = pdu.first else {
            self = .malformed(.pdu(function: 0, bytes: 0))
            return
        }
        func word(_ at: Int) -> Int { Int(pdu[pdu.startIndex + at]) << 8 | Int(pdu[pdu.startIndex + at + 1]) }
        let malformed = Self.malformed(.pdu(function: function, bytes: pdu.count))
        func range(_ address: Int, _ quantity: Int, in table: Int, allowed: ClosedRange<Int>) -> Self {
            guard allowed.contains(quantity) else { return .refuse(.illegalDataValue) }
            return address + quantity <= table ? .answer : .refuse(.illegalDataAddress)
        }
        switch function {
        case 1, 2, 3, 4:
            guard pdu.count == 5 else { self = malformed; return }
            let table = [1: size.coils, 2: size.discreteInputs, 3: size.holdingRegisters, 4: size.inputRegisters][Int(function)]!
            self = range(word(1), word(3), in: table, allowed: function <= 2 ? 1...2000 : 1...125)
        case 5:
            guard pdu.count == 5 else { self = malformed; return }
            guard word(3) == 0xFF00 || word(3) == 0 else { self = .refuse(.illegalDataValue); return }
            self = word(1) < size.coils ? .answer : .refuse(.illegalDataAddress)
        case 6:
            guard pdu.count == 5 else { self = malformed; return }
            self = word(1) < size.holdingRegisters ? .answer : .refuse(.illegalDataAddress)
        case 15, 16:
            guard pdu.count >= 6, pdu.count == 6 + Int(pdu[pdu.startIndex + 5]) else { self = malformed; return }
            let (quantity, byteCount) = (word(3), Int(pdu[pdu.startIndex + 5]))
            guard byteCount == (function == 15 ? (quantity + 7) / 8 : quantity * 2) else { self = .refuse(.illegalDataValue); return }
            self = range(word(1), quantity, in: function == 15 ? size.coils : size.holdingRegisters, allowed: function == 15 ? 1...1968 : 1...123)
        case 22:
            guard pdu.count == 7 else { self = malformed; return }
            self = word(1) < size.holdingRegisters ? .answer : .refuse(.illegalDataAddress)
        case 23:
            guard pdu.count >= 10, pdu.count == 10 + Int(pdu[pdu.startIndex + 9]) else { self = malformed; return }
            let (writeQuantity, byteCount) = (word(7), Int(pdu[pdu.startIndex + 9]))
            guard byteCount == writeQuantity * 2 else { self = .refuse(.illegalDataValue); return }
            let read = range(word(1), word(3), in: size.holdingRegisters, allowed: 1...125)
            self = read != .answer ? read : range(word(5), writeQuantity, in: size.holdingRegisters, allowed: 1...121)
        default:
            self = .refuse(.illegalFunction)
        }
    }
}
