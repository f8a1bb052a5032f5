import Capture
import Decoders
import Foundation
import Media
import TestSupport
import Testing
@testable import Results

private func code(_ data: [UInt8], symbology: Symbology = .qrcode) -> MachineReadableCodeObject {
    let info = FrameInfo(sequenceNumber: 42, presentationTime: MediaTime(nanoseconds: 1_400_000_000), width: 640, height: 480, format: .yuyv)
    return MachineReadableCodeObject(symbology: symbology, data: data, text: String(validating: data, as: UTF8.self), quality: 1, orientation: .right,
                                     corners: [PixelPoint(x: 10, y: 20), PixelPoint(x: 10, y: 120), PixelPoint(x: 110, y: 120), PixelPoint(x: 110, y: 20)],
                                     frame: info, pass: .zbar)
}

private let fixedTime = WallClockTime(secondsSince1970: 1_795_000_000, milliseconds: 7)

/// Decodes one line with Foundation's JSON parser (an independent implementation).
private func parse(_ line: [UInt8]) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
}

@Suite(.offThePool) struct JSONLineEncoderTests {
    @Test func aCodeLineHasEveryDocumentedField() throws {
        let line = JSONLineEncoder().encode(code(Array("hello".utf8)), source: "y4m:/tmp/a.y4m", time: fixedTime)
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        let o = try parse(line)
        #expect(o["type"] as? String == "code")
        #expect(o["symbology"] as? String == "qrcode")
        #expect(o["text"] as? String == "hello")
        #expect(o["data_b64"] as? String == "aGVsbG8=")
        #expect(o["engine"] as? String == "zbar")
        #expect(o["pass"] as? String == "zbar")
        #expect(o["quality"] as? Int == 1)
        #expect(o["orientation"] as? String == "right")
        #expect(o["corners"] as? [[Int]] == [[10, 20], [10, 120], [110, 120], [110, 20]])
        #expect(o["bounds"] as? [String: Int] == ["x": 10, "y": 20, "width": 100, "height": 100])
        let frame = try #require(o["frame"] as? [String: Any])
        #expect(frame["seq"] as? Int == 42)
        #expect(frame["pts"] as? Double == 1.4)
        #expect(frame["width"] as? Int == 640 && frame["height"] as? Int == 480)
        #expect(frame["format"] as? String == "YUYV")
        #expect(frame.keys.contains("camera_time") == false, "no camera time: no field, not null")
        #expect(o["source"] as? String == "y4m:/tmp/a.y4m")
        #expect(o["time"] as? String == "2026-11-18T11:06:40.007Z")
    }

    /// A frame with the camera's time (RTCP sender reports) has it last in `frame`, RFC 3339 UTC,
    /// milliseconds truncated; the fields before it unchanged.
    @Test func aFrameWithTheCamerasTimeHasCameraTimeInItsFrameObject() throws {
        var stamped = code(Array("hello".utf8))
        // 2026-11-18T11:06:40.0079999Z, from NTP nanoseconds (1900 epoch).
        let ntp = (1_795_000_000 + CameraTime.ntpToUnixSeconds) * 1_000_000_000 + 7_999_999
        stamped.frame.cameraTime = try #require(CameraTime(ntpNanoseconds: ntp))
        let line = String(decoding: JSONLineEncoder().encode(stamped, source: "s", time: fixedTime), as: UTF8.self)
        #expect(line.contains("\"frame\":{\"seq\":42,\"pts\":1.4,\"width\":640,\"height\":480,\"format\":\"YUYV\",\"camera_time\":\"2026-11-18T11:06:40.007Z\"}"),
                "\(line)")
        #expect(CameraTime(ntpNanoseconds: CameraTime.ntpToUnixSeconds * 1_000_000_000 - 1) == nil, "before 1970: none")
        #expect(CameraTime(ntpNanoseconds: CameraTime.ntpToUnixSeconds * 1_000_000_000)?.nanosecondsSince1970 == 0)
    }

    @Test func aZXingCodeNamesItsEngineAndHasNoQuality() throws {
        var zxing = code(Array("hi".utf8), symbology: .aztec)
        (zxing.engine, zxing.pass, zxing.quality) = (.zxing, .zxingHistogram, nil)
        let o = try parse(JSONLineEncoder().encode(zxing, source: "s", time: fixedTime))
        #expect(o["engine"] as? String == "zxing")
        #expect(o["pass"] as? String == "zxing-histogram")
        #expect(o["symbology"] as? String == "aztec")
        #expect(o.keys.contains("quality") == false)
        #expect(o["orientation"] as? String == "right")
    }

    @Test func invalidUTF8HasNoTextButExactBytesInBase64() throws {
        let bytes: [UInt8] = [0xFF, 0xFE, 0x00, 0x41, 0xC3]
        let o = try parse(JSONLineEncoder().encode(code(bytes), source: "s", time: fixedTime))
        #expect(o["text"] == nil)
        #expect(Data(base64Encoded: try #require(o["data_b64"] as? String)) == Data(bytes))
    }

    @Test func noPayloadCanBreakTheLine() throws {
        // NUL, every C0 control, DEL, quotes, backslash, the JSON-hostile line separators.
        var text = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }.joined()
        text += "\u{7F}\"\\\u{2028}\u{2029}end✓"
        let line = JSONLineEncoder().encode(code(Array(text.utf8)), source: "s", time: fixedTime)
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(line.allSatisfy { $0 >= 0x20 || $0 == UInt8(ascii: "\n") })
        let raw = String(decoding: line, as: UTF8.self)
        #expect(!raw.contains("\u{2028}") && !raw.contains("\u{2029}"))
        #expect(raw.contains("\\u0000") && raw.contains("\\u2028") && raw.contains("\\u007f"))
        let o = try parse(line)
        #expect(o["text"] as? String == text)
    }

    /// C1 controls (NEL among them) and U+2028/U+2029 are written as `\\u` escapes, in the
    /// payload's `text` and in every other string field (`source`): no raw one is left, and the
    /// line decodes to the same text.
    @Test func c1ControlsAndUnicodeLineSeparatorsAreEscaped() throws {
        let text = "a" + (0x80..<0xA0).map { String(UnicodeScalar(UInt8($0))) }.joined() + "\u{2028}b\u{2029}c\u{A0}é"
        let line = JSONLineEncoder().encode(code(Array(text.utf8)), source: "cam\u{85}era\u{2029}", time: fixedTime)
        let raw = String(decoding: line, as: UTF8.self)
        #expect(!raw.unicodeScalars.contains { (0x80..<0xA0).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029 }, "\(raw)")
        for escape in ["\\u0080", "\\u0085", "\\u009f", "\\u2028", "\\u2029", "\"source\":\"cam\\u0085era\\u2029\""] {
            #expect(raw.contains(escape), "\(escape) in \(raw)")
        }
        #expect(raw.contains("c\u{A0}é"), "U+00A0 and later are written as they are")
        let o = try parse(line)
        #expect(o["text"] as? String == text)
        #expect(o["source"] as? String == "cam\u{85}era\u{2029}")
    }

    /// Python's `str.splitlines()` breaks at NEL, U+2028, U+2029 and the C0 separators (FS, GS,
    /// RS, VT, FF) besides `\n`: a file of encoded lines, one with all of them in its payload and
    /// source, is exactly one line per JSON line to it, each decoding to its text.
    @Test func pythonsSplitlinesSeesOneLinePerJSONLine() throws {
        let hostile = "one\u{85}two\u{2028}three\u{2029}four\u{1C}\u{1D}\u{1E}\u{0B}\u{0C}five\rsix"
        let encoder = JSONLineEncoder()
        let lines = [encoder.encode(code(Array(hostile.utf8)), source: "y4m:\u{85}\u{2028}", time: fixedTime),
                     encoder.encode(code(Array("hello".utf8)), source: "y4m:/tmp/a.y4m", time: fixedTime),
                     encoder.encode(SynchronizedDataCollection(video: SynchronizedVideoData(sequenceNumber: 9, presentationTime: nil, frame: nil,
                                                                                         droppedReason: .discontinuity), metadata: nil))]
        let file = try TemporaryFile(contents: lines.flatMap { $0 }, suffix: ".jsonl")
        let script = """
            import json, sys
            out = []
            for line in open(sys.argv[1], encoding="utf-8", newline="").read().splitlines():
                try:
                    out.append(json.loads(line).get("text", "(none)"))
                except ValueError:
                    out.append("(not JSON: %r)" % line)
            print(json.dumps(out))
            """
        let run = try ExternalTool.run("/usr/bin/python3", ["-c", script, file.path])
        #expect(run.status == 0, "\(run.describe())")
        let texts = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String], "\(run.describe())")
        #expect(texts == [hostile, "hello", "(none)"], "\(texts)")
    }

    /// Foundation's `JSONEncoder` (`syncscan devices --json`) leaves DEL, C1 controls and
    /// U+2028/U+2029 raw; `escapingRawControls` escapes them as the lines do, keeping the
    /// pretty-printed text's own line breaks, and the text decodes to the same value.
    @Test func anotherEncodersTextIsEscapedAsTheLinesAre() throws {
        struct Device: Codable, Equatable { var card: String; var formats: [String] }
        let device = Device(card: "Cam\u{85}era\u{2028}\u{7F}\u{9F}\u{1}\n✓", formats: ["YUYV", "x\u{2029}"])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let encoded = Array(try encoder.encode(device))
        let escaped = JSONBuffer.escapingRawControls(in: encoded)
        let text = String(decoding: escaped, as: UTF8.self)
        #expect(!text.unicodeScalars.contains { (0x7F..<0xA0).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029 }, "\(text)")
        #expect(text.contains("Cam\\u0085era\\u2028\\u007f\\u009f") && text.contains("x\\u2029"), "\(text)")
        #expect(text.split(separator: "\n").count == String(decoding: encoded, as: UTF8.self).split(separator: "\n").count, "its own lines kept")
        #expect(try JSONDecoder().decode(Device.self, from: Data(escaped)) == device)
    }

    @Test func aFrameRecordCarriesTheLedgerEntry() throws {
        let dropped = SynchronizedDataCollection(
            video: SynchronizedVideoData(sequenceNumber: 9, presentationTime: nil, frame: nil, droppedReason: .discontinuity),
            metadata: nil)
        let o = try parse(JSONLineEncoder().encode(dropped))
        #expect(o["type"] as? String == "frame")
        #expect(o["seq"] as? Int == 9)
        #expect(o["pts"] is NSNull)
        #expect(o["dropped"] as? String == "discontinuity")
        #expect(o["codes"] as? Int == 0)
        #expect(o.keys.contains("camera_time") == false, "no camera time: no field, not null")
    }

    /// A frame record of a frame with the camera's time has it after `codes`, as code lines' `frame` has it.
    @Test func aFrameRecordCarriesTheCamerasTime() throws {
        var info = code(Array("x".utf8)).frame
        let ntp = (1_795_000_000 + CameraTime.ntpToUnixSeconds) * 1_000_000_000 + 7_999_999
        info.cameraTime = try #require(CameraTime(ntpNanoseconds: ntp))
        let late = SynchronizedDataCollection(
            video: SynchronizedVideoData(sequenceNumber: 42, presentationTime: info.presentationTime, frame: info, droppedReason: .lateData),
            metadata: nil)
        let line = String(decoding: JSONLineEncoder().encode(late), as: UTF8.self)
        #expect(line == "{\"type\":\"frame\",\"seq\":42,\"pts\":1.4,\"dropped\":\"lateData\",\"codes\":0,\"camera_time\":\"2026-11-18T11:06:40.007Z\"}\n", "\(line)")
    }

    @Test func timestampsKeepNanosecondsWithoutTrailingZeros() {
        let expected: [(Int64, String)] = [(0, "0"), (33_333_333, "0.033333333"), (12_500_000_000, "12.5"), (-1_500_000_000, "-1.5")]
        for (nanoseconds, text) in expected {
            let scanned = SynchronizedDataCollection(
                video: SynchronizedVideoData(sequenceNumber: 1, presentationTime: MediaTime(nanoseconds: nanoseconds), frame: nil,
                                             droppedReason: .lateData),
                metadata: nil)
            let line = String(decoding: JSONLineEncoder().encode(scanned), as: UTF8.self)
            #expect(line.contains(",\"pts\":\(text),"), "\(line)")
            var withCode = code(Array("x".utf8))
            withCode.frame.presentationTime = MediaTime(nanoseconds: nanoseconds)
            let codeLine = String(decoding: JSONLineEncoder().encode(withCode, source: "s", time: fixedTime), as: UTF8.self)
            #expect(codeLine.contains("\"pts\":\(text),"), "\(codeLine)")
        }
    }
}
