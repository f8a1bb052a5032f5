import CModbus
import SystemPackage

/// What a Modbus request is refused with (a Modbus exception response's code).
public enum ModbusException: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 01: the function code is not one the server takes.
    case illegalFunction = 1
    /// 02: an address (or address + quantity) outside the register map.
    case illegalDataAddress = 2
    /// 03: a value the function does not allow (a quantity out of its range, a coil neither 0xFF00 nor 0).
    case illegalDataValue = 3

    public var description: String {
        switch self {
        case .illegalFunction: "ILLEGAL FUNCTION"
        case .illegalDataAddress: "ILLEGAL DATA ADDRESS"
        case .illegalDataValue: "ILLEGAL DATA VALUE"
        }
    }
}

/// The sizes of a register map's four tables, each from address 0.
public struct ModbusMapSize: Sendable, Hashable {
    public var coils: Int, discreteInputs: Int, holdingRegisters: Int, inputRegisters: Int
    public init(coils: Int = 0, discreteInputs: Int = 0, holdingRegisters: Int = 0, inputRegisters: Int = 0) {
        (self.coils, self.discreteInputs, self.holdingRegisters, self.inputRegisters) = (coils, discreteInputs, holdingRegisters, inputRegisters)
    }
}

/// A libmodbus TCP context and its register map, which answer whole Modbus TCP requests on a
/// socket the caller read them from.
///
/// Owns both: `modbus_new_tcp` (a context that never connects or listens) and
/// `modbus_mapping_new_start_address` in `init`, `modbus_mapping_free` and `modbus_free` in
/// `deinit`. The caller owns the sockets and the framing; each reply is one `modbus_reply` or
/// `modbus_reply_exception` on the socket given (`modbus_set_socket` for that call only), which
/// `send(2)`s the response. Used by one thread at a time.
public final class ModbusReplier: @unchecked Sendable {  // unchecked: one thread at a time (the server's)
    private let context: OpaquePointer
    private let map: UnsafeMutablePointer<modbus_mapping_t>
    public let size: ModbusMapSize

    /// A context and a map of `size`, every bit and register 0.
    public init(size: ModbusMapSize) throws(ModbusError) {
        guard let context = cmodbus_new_replier() else { throw Self.error("modbus_new_tcp") }
        guard let map = cmodbus_mapping_new(UInt32(size.coils), UInt32(size.discreteInputs), UInt32(size.holdingRegisters),
                                            UInt32(size.inputRegisters)) else {
            let error = Self.error("modbus_mapping_new_start_address")
            cmodbus_free(context)
            throw error
        }
        (self.context, self.map, self.size) = (context, map, size)
    }

    deinit {
        cmodbus_mapping_free(map)
        cmodbus_free(context)
    }

    /// The running libmodbus's version, `major.minor.micro` (`libmodbus_version_major`, `_minor`, `_micro`).
    public static var version: String {
        var (major, minor, micro) = (UInt32(0), UInt32(0), UInt32(0))
        cmodbus_version(&major, &minor, &micro)
        return "\(major).\(minor).\(micro)"
    }

    /// Where `version` comes from, for `--version`.
    public static let versionOrigin = "libmodbus_version_major"

    /// Coil `address`'s state (a client's write lands here).
    public func coil(_ address: Int) -> Bool {
        precondition(address >= 0 && address < size.coils)
        return map.pointee.tab_bits[address] != 0
    }

    /// Sets the input registers from address 0 to `values` (at most `size.inputRegisters` of them).
    public func setInputRegisters(_ values: [UInt16]) {
        precondition(values.count <= size.inputRegisters)
        for (index, value) in values.enumerated() { map.pointee.tab_input_registers[index] = value }
    }

    /// Answers `request` (one whole ADU: MBAP header and PDU) from the map on `socket`
    /// (`modbus_reply`): reads, and writes into the map. The response's length in bytes.
    public func reply(to request: [UInt8], on socket: FileDescriptor) -> Result<Int, ModbusError> {
        // modbus_reply reads a request's fixed fields whatever its length: give it a full ADU's room.
        var padded = request
        if padded.count < Self.maxADU { padded += [UInt8](repeating: 0, count: Self.maxADU - padded.count) }
        let rc = padded.withUnsafeBufferPointer { cmodbus_reply(context, socket.rawValue, $0.baseAddress, CInt(request.count), map) }
        return rc < 0 ? .failure(Self.error("modbus_reply")) : .success(Int(rc))
    }

    /// Refuses `request` with `exception` on `socket` (`modbus_reply_exception`). The response's length in bytes.
    public func refuse(_ request: [UInt8], with exception: ModbusException, on socket: FileDescriptor) -> Result<Int, ModbusError> {
        var padded = request
        if padded.count < Self.maxADU { padded += [UInt8](repeating: 0, count: Self.maxADU - padded.count) }
        let rc = padded.withUnsafeBufferPointer { cmodbus_reply_exception(context, socket.rawValue, $0.baseAddress, UInt32(exception.rawValue)) }
        return rc < 0 ? .failure(Self.error("modbus_reply_exception")) : .success(Int(rc))
    }

    /// The longest Modbus TCP ADU (`MODBUS_TCP_MAX_ADU_LENGTH`): a 7-byte MBAP header and a 253-byte PDU.
    public static let maxADU = 260

    private static func error(_ call: String) -> ModbusError {
        let errno = cmodbus_errno()
        return ModbusError(call: call, errno: errno, reason: String(cString: cmodbus_strerror(errno)))
    }
}
