import Capture
import Media

/// The Modbus server's register map (docs/outputs.md's table): coil 0 the trigger, input
/// registers 0 to 138 the heartbeat, the last result and the counters; nothing else exists.
///
/// Input registers (function 4), each 16 bits, counts wrapping at 65536:
/// 0 heartbeat (seconds since the server started), 1 result number (from 1, one more each result),
/// 2 status (`Status`), 3 codes the result has, 4 symbology (`symbologyID`), 5 payload bytes in
/// 10…, 6 good, 7 no_read, 8 multiple, 9 mismatch (codes `match.*` refused), 10 to 134 the first
/// code's payload, two bytes a register, the first in the high byte, cut at `maxPayloadBytes`,
/// a last odd byte padded with 0, the registers past it 0; 135 correct, 136 wrong, 137 missing,
/// 138 extra: the tally against `match.list` (`ExpectedCounts`: the run's, or the last read
/// window's), 0 without a list.
public struct ModbusRegisterMap: Sendable, Hashable {
    /// A result's status register.
    public enum Status: UInt16, Sendable {
        /// No result yet.
        case none = 0
        case good = 1
        case noRead = 2
        case multiple = 3

        public init(_ kind: ReadResult.Kind) {
            switch kind {
            case .good: self = .good
            case .noRead: self = .noRead
            case .multiple: self = .multiple
            }
        }
    }

    public static let heartbeat = 0, resultNumber = 1, status = 2, codeCount = 3, symbology = 4, payloadLength = 5
    public static let goodCount = 6, noReadCount = 7, multipleCount = 8, mismatchCount = 9
    /// The first payload register.
    public static let payload = 10
    /// Payload registers: one read of input registers takes at most 125.
    public static let payloadRegisters = 125
    public static let maxPayloadBytes = payloadRegisters * 2
    /// The tally against `match.list`, after the payload.
    public static let correctCount = payload + payloadRegisters, wrongCount = correctCount + 1, missingCount = correctCount + 2,
                      extraCount = correctCount + 3
    public static let inputRegisters = extraCount + 1
    /// Coil 0: the trigger.
    public static let coils = 1

    public var resultNumber = 0
    public var status = Status.none
    public var codeCount = 0
    public var symbology: Symbology?
    /// The first code's bytes (`data`), whole: cut when packed.
    public var payload: [UInt8] = []
    public var good = 0, noRead = 0, multiple = 0, mismatch = 0
    /// The tally against `match.list` now; `nil`: no list (its registers 0).
    public var expected: ExpectedCounts?

    public init() {}

    /// Records one result: the next result number, its status, codes and first code; and counts its status.
    public mutating func record(_ status: Status, codes: Int, first: MachineReadableCodeObject?) {
        resultNumber += 1
        (self.status, codeCount, symbology, payload) = (status, codes, first?.symbology, first?.data ?? [])
        switch status {
        case .good: good += 1
        case .noRead: noRead += 1
        case .multiple: multiple += 1
        case .none: break
        }
    }

    /// Every input register, from 0, with `heartbeat` in register 0.
    public func inputRegisterValues(heartbeat: Int) -> [UInt16] {
        let packed = Self.pack(payload)
        var values = [UInt16](repeating: 0, count: Self.inputRegisters)
        values[Self.heartbeat] = UInt16(truncatingIfNeeded: heartbeat)
        values[Self.resultNumber] = UInt16(truncatingIfNeeded: resultNumber)
        values[Self.status] = status.rawValue
        values[Self.codeCount] = UInt16(truncatingIfNeeded: codeCount)
        values[Self.symbology] = symbology.map(Self.symbologyID) ?? 0
        values[Self.payloadLength] = UInt16(min(payload.count, Self.maxPayloadBytes))
        values[Self.goodCount] = UInt16(truncatingIfNeeded: good)
        values[Self.noReadCount] = UInt16(truncatingIfNeeded: noRead)
        values[Self.multipleCount] = UInt16(truncatingIfNeeded: multiple)
        values[Self.mismatchCount] = UInt16(truncatingIfNeeded: mismatch)
        values.replaceSubrange(Self.payload..<(Self.payload + packed.count), with: packed)
        if let expected {
            values[Self.correctCount] = UInt16(truncatingIfNeeded: expected.correct)
            values[Self.wrongCount] = UInt16(truncatingIfNeeded: expected.wrong)
            values[Self.missingCount] = UInt16(truncatingIfNeeded: expected.missing)
            values[Self.extraCount] = UInt16(truncatingIfNeeded: expected.extra)
        }
        return values
    }

    /// `bytes` (their first `maxPayloadBytes`) two a register, the first in the high byte; an odd last byte padded with 0.
    public static func pack(_ bytes: [UInt8]) -> [UInt16] {
        let cut = bytes.prefix(maxPayloadBytes)
        return stride(from: cut.startIndex, to: cut.endIndex, by: 2).map { index in
            UInt16(cut[index]) << 8 | (index + 1 < cut.endIndex ? UInt16(cut[index + 1]) : 0)
        }
    }

    /// The symbology register's value (docs/outputs.md): fixed numbers, never renumbered; 0 for none.
    public static func symbologyID(_ symbology: Symbology) -> UInt16 {
        switch symbology {
        case .qrcode: 1
        case .sqcode: 2
        case .ean13: 3
        case .ean8: 4
        case .ean2: 5
        case .ean5: 6
        case .upca: 7
        case .upce: 8
        case .isbn10: 9
        case .isbn13: 10
        case .i25: 11
        case .databar: 12
        case .databarExp: 13
        case .codabar: 14
        case .code39: 15
        case .code93: 16
        case .code128: 17
        case .pdf417: 18
        case .aztec: 19
        case .datamatrix: 20
        case .maxicode: 21
        case .microqr: 22
        case .rmqr: 23
        case .databarLtd: 24
        case .dxfilmedge: 25
        }
    }
}
