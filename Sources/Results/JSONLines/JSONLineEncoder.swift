import Capture
import Foundation
import Media

/// Encodes code objects and frame records as single-line JSON objects.
///
/// Written by hand rather than with `JSONEncoder` so the bytes are exact and no payload can break
/// a line: C0 control characters (NUL included), DEL, C1 control characters (U+0080 to U+009F, NEL
/// among them), U+2028 and U+2029 are escaped; every other character of the code's text is
/// written as is. Payloads without a text (see
/// `MachineReadableCodeObject.text`) appear only as `data_b64`.
public struct JSONLineEncoder: Sendable {
    public init() {}

    /// A delivered code's line: its code, item, `match` and the fields handlers attached, then `extra`.
    public func encode(_ delivered: DeliveredCode, source: String, time: WallClockTime,
                       extra: [(name: String, value: String)] = []) -> [UInt8] {
        encode(delivered.code, item: delivered.item, confirmed: delivered.confirmed, source: source, time: time, match: delivered.match,
               fields: delivered.fields + extra)
    }

    /// `{"type":"code",…}` followed by a newline. Field order is fixed (docs/outputs.md, "Output"):
    /// `symbology_id` when the library gave one, `addon` when an EAN/UPC code was read with its
    /// add-on (its digits; `text` ends with them), `gs1` or `gs1_error` when the code is GS1 (docs/gs1.md).
    /// - Parameters:
    ///   - item: the item the reading began, written after `type`; `nil`: none.
    ///   - confirmed: false writes `"confirmed":false` after `item` (an item that left unconfirmed).
    ///   - match: `match.*`'s verdict, written after `frame`; `nil`: none configured, no field.
    ///   - fields: string fields handlers attached (`snapshot`), written after `frame` and `match`.
    public func encode(_ code: MachineReadableCodeObject, item: UInt64? = nil, confirmed: Bool = true, source: String, time: WallClockTime,
                       match: Bool? = nil, fields: [(name: String, value: String)] = []) -> [UInt8] {
        var out = JSONBuffer()
        out.raw(item.map { "{\"type\":\"code\",\"item\":\($0)," + (confirmed ? "" : "\"confirmed\":false,") + "\"symbology\":" }
                ?? "{\"type\":\"code\",\"symbology\":")
        out.string(code.symbology.rawValue)
        if let id = code.symbologyIdentifier {
            out.raw(",\"symbology_id\":")
            out.string(id)
        }
        out.raw(",\"engine\":")
        out.string(code.engine.rawValue)
        out.raw(",\"pass\":")
        out.string(code.pass.rawValue)
        out.payload(text: code.text, data: code.data)
        if let addOn = code.addOn {
            out.raw(",\"addon\":")
            out.string(String(decoding: addOn, as: UTF8.self))
        }
        out.gs1(code)
        out.raw(code.quality.map { ",\"quality\":\($0),\"orientation\":" } ?? ",\"orientation\":")
        out.string(code.orientation.rawValue)
        out.corners(code.corners)
        let b = code.bounds
        out.raw(",\"bounds\":{\"x\":\(b.x),\"y\":\(b.y),\"width\":\(b.width),\"height\":\(b.height)}")
        out.raw(",\"frame\":")
        out.frame(code.frame)
        if let match { out.raw(match ? ",\"match\":true" : ",\"match\":false") }
        for field in fields {
            out.raw(",")
            out.string(field.name)
            out.raw(":")
            out.string(field.value)
        }
        out.end(source: source, time: time)
        return out.bytes
    }

    /// `{"type":"frame","seq":…,"pts":…,"dropped":…,"codes":…}`, then `camera_time` when the
    /// frame has one (never `null`): one per sequence number, for consumers that audit the ledger
    /// (`--emit-frames`).
    public func encode(_ collection: SynchronizedDataCollection) -> [UInt8] {
        var out = JSONBuffer()
        out.raw("{\"type\":\"frame\",\"seq\":\(collection.sequenceNumber),\"pts\":")
        if let pts = collection.video.presentationTime { out.raw(pts.description) } else { out.raw("null") }
        out.raw(",\"dropped\":")
        if let reason = collection.video.droppedReason { out.string(reason.rawValue) } else { out.raw("null") }
        out.raw(",\"codes\":\(collection.metadata?.metadataObjects.count ?? 0)")
        if let camera = collection.video.frame?.cameraTime {
            out.raw(",\"camera_time\":\"")
            out.raw(WallClockTime(camera).rfc3339)
            out.raw("\"")
        }
        out.raw("}\n")
        return out.bytes
    }

}

extension JSONLineEncoder {
    /// `{"type":"item_removed","item":…}` and a newline: an item that left, with what it carried
    /// (as its code line), when it was first and last seen, how long, and its read rate.
    public func encode(removed item: RemovedItem, source: String, time: WallClockTime) -> [UInt8] {
        var out = JSONBuffer()
        out.raw("{\"type\":\"item_removed\",\"item\":\(item.id),\"symbology\":")
        out.string(item.symbology.rawValue)
        out.payload(text: item.text, data: item.data)
        out.raw(",\"first\":{\"seq\":\(item.first.sequenceNumber),\"pts\":\(item.first.presentationTime)}")
        out.raw(",\"last\":{\"seq\":\(item.last.sequenceNumber),\"pts\":\(item.last.presentationTime)}")
        out.raw(",\"dwell\":\(item.dwell),\"frames_present\":\(item.framesPresent),\"frames_read\":\(item.framesRead)")
        out.raw(",\"read_rate\":" + DecimalText.string(item.readRate, fractionDigits: 3))
        out.corners(item.corners)
        out.end(source: source, time: time)
        return out.bytes
    }

    /// `{"type":"item_updated","item":…,"seq":…,"pts":…,"frames_read":…,"corners":…}` and a newline.
    public func encode(updated update: ItemUpdate, source: String, time: WallClockTime) -> [UInt8] {
        var out = JSONBuffer()
        out.raw("{\"type\":\"item_updated\",\"item\":\(update.id),\"seq\":\(update.frame.sequenceNumber)")
        out.raw(",\"pts\":\(update.frame.presentationTime),\"frames_read\":\(update.framesRead)")
        out.corners(update.corners)
        out.end(source: source, time: time)
        return out.bytes
    }

    /// `text` as a JSON string literal, escaped as code lines escape theirs.
    public static func quoted(_ text: String) -> [UInt8] {
        var out = JSONBuffer()
        out.string(text)
        return out.bytes
    }
}

/// Accumulates one JSON line's bytes (the live view's events build theirs with it too).
public struct JSONBuffer {
    public var bytes: [UInt8] = []

    public init() { bytes.reserveCapacity(512) }

    public mutating func raw(_ s: String) { bytes.append(contentsOf: s.utf8) }

    /// `{seq, pts, width, height, format}`, then `camera_time` when the frame has one (never `null`).
    mutating func frame(_ f: FrameInfo) {
        raw("{\"seq\":\(f.sequenceNumber),\"pts\":\(f.presentationTime),\"width\":\(f.width),\"height\":\(f.height),\"format\":")
        string(f.format.rawValue)
        if let camera = f.cameraTime {
            raw(",\"camera_time\":\"")
            raw(WallClockTime(camera).rfc3339)
            raw("\"")
        }
        raw("}")
    }

    /// `,"text":…` when the payload has a text, then `,"data_b64":"…"`: its exact bytes.
    mutating func payload(text: String?, data: [UInt8]) {
        if let text {
            raw(",\"text\":")
            string(text)
        }
        raw(",\"data_b64\":\"")
        raw(Data(data).base64EncodedString())
        raw("\"")
    }

    /// `,"source":…,"time":"…"}` and the newline: how every line ends.
    mutating func end(source: String, time: WallClockTime) {
        raw(",\"source\":")
        string(source)
        raw(",\"time\":\"")
        raw(time.rfc3339)
        raw("\"}\n")
    }

    /// `,"corners":[[x,y],…]`.
    mutating func corners(_ corners: [PixelPoint]) {
        raw(",\"corners\":[")
        for (i, p) in corners.enumerated() {
            raw(i == 0 ? "[\(p.x),\(p.y)]" : ",[\(p.x),\(p.y)]")
        }
        raw("]")
    }

    /// A JSON string literal; `s` is valid Unicode by construction.
    public mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22: raw("\\\"")
            case 0x5C: raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case let v where Self.isEscapedAsUnicode(v): raw(Self.unicodeEscape(v))
            default: bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether `string` writes the scalar `v` as `\uXXXX`: a C0 control (but for `\n`, `\r` and
    /// `\t`, which have escapes of their own), DEL, a C1 control, U+2028 or U+2029, each a line
    /// break or an invisible control to some reader.
    static func isEscapedAsUnicode(_ v: UInt32) -> Bool {
        switch v {
        case 0x00..<0x20, 0x7F..<0xA0, 0x2028, 0x2029: true
        default: false
        }
    }

    /// `json`, a whole JSON text another encoder wrote (Foundation's `JSONEncoder`), with DEL, the
    /// C1 controls, U+2028 and U+2029 it left raw escaped as `string` escapes them. JSON has those
    /// only inside strings, where the escape is the same character; the text's own line breaks
    /// (a pretty-printed one's) and the C0 controls the encoder escaped are left as they are.
    public static func escapingRawControls(in json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        for scalar in String(decoding: json, as: UTF8.self).unicodeScalars {
            if scalar.value >= 0x7F && isEscapedAsUnicode(scalar.value) {
                out.append(contentsOf: unicodeEscape(scalar.value).utf8)
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }

    static func unicodeEscape(_ v: UInt32) -> String {
        let hex = String(v, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}

/// A wall-clock instant for the `time` field (RFC 3339, UTC, milliseconds).
public struct WallClockTime: Sendable, Hashable {
    public var secondsSince1970: Int64
    public var milliseconds: Int

    public init(secondsSince1970: Int64, milliseconds: Int) {
        self.secondsSince1970 = secondsSince1970
        self.milliseconds = milliseconds
    }

    /// A camera's wall-clock time, milliseconds truncated.
    public init(_ camera: CameraTime) {
        let (seconds, nanoseconds) = camera.nanosecondsSince1970.quotientAndRemainder(dividingBy: 1_000_000_000)
        self.init(secondsSince1970: seconds, milliseconds: Int(nanoseconds / 1_000_000))
    }

    /// Now, from CLOCK_REALTIME.
    public static func now() -> WallClockTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return WallClockTime(secondsSince1970: Int64(ts.tv_sec), milliseconds: Int(ts.tv_nsec / 1_000_000))
    }

    /// `20261122T030405.123Z`: RFC 3339's basic form, for file names that sort by time.
    public var basicFormat: String {
        rfc3339.filter { $0 != "-" && $0 != ":" }
    }

    /// `2026-11-22T03:04:05.123Z`.
    public var rfc3339: String {
        var t = time_t(secondsSince1970)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ n: Int) -> String { let s = String(v); return String(repeating: "0", count: max(0, n - s.count)) + s }
        let ms = String(milliseconds)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + String(repeating: "0", count: 3 - ms.count) + ms + "Z"
    }
}
