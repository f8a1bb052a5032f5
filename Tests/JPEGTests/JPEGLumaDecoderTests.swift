import CTurboJPEG
import Foundation
import JPEG
import Media
import SystemCalls
import Testing
import TestSupport

/// TurboJPEG's own grey decode of `jpeg` (tjInitDecompress, tjDecompressHeader3, tjDecompress2 to
/// TJPF_GRAY with no flags): the reference the decoder is compared with.
private func turboJPEGGrey(_ jpeg: [UInt8]) throws -> (width: Int, height: Int, grey: [UInt8]) {
    let handle = try #require(tjInitDecompress())
    defer { tjDestroy(handle) }
    var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
    var source = jpeg
    try #require(tjDecompressHeader3(handle, &source, UInt(jpeg.count), &width, &height, &subsampling, &colorspace) == 0)
    var grey = [UInt8](repeating: 0, count: Int(width * height))
    try #require(tjDecompress2(handle, &source, UInt(jpeg.count), &grey, width, width, height, Int32(TJPF_GRAY.rawValue), 0) == 0)
    return (Int(width), Int(height), grey)
}

/// What `JPEGLumaDecoder` makes of `jpeg` at `width`×`height`, and the plane.
private func decode(_ jpeg: [UInt8], width: Int, height: Int) -> (LumaDecodeResult, [UInt8]) {
    var plane = [UInt8](repeating: 0x55, count: width * height)
    let result = jpeg.withUnsafeBytes { bytes in
        plane.withUnsafeMutableBytes { JPEGLumaDecoder().decodeLuma(bytes, width: width, height: height, into: $0) }
    }
    return (result, plane)
}

@Suite(.offThePool) struct JPEGLumaDecoderTests {
    @Test("grey decoded from a camera-like 4:2:2 JPEG equals TurboJPEG's own grey decode, byte for byte",
          arguments: [(320, 240), (1280, 720), (1920, 1080)])
    func greyEqualsTurboJPEGsOwnDecode(size: (Int, Int)) throws {
        let (jpeg, _) = try CameraJPEG.make(width: size.0, height: size.1, text: "MJPEG \(size.0)x\(size.1)", moduleSize: 6)
        let reference = try turboJPEGGrey(jpeg)
        #expect(reference.width == size.0 && reference.height == size.1)
        let (result, grey) = decode(jpeg, width: size.0, height: size.1)
        #expect(result == .decoded(warning: nil))
        #expect(grey == reference.grey)
    }

    @Test func theGreyIsTheScenesLuma() throws {
        // JPEG is lossy: the decoded grey is near the scene, not equal; the code is read from it elsewhere.
        let (jpeg, scene) = try CameraJPEG.make(width: 160, height: 120, text: "near", moduleSize: 3)
        let (result, grey) = decode(jpeg, width: 160, height: 120)
        #expect(result == .decoded(warning: nil))
        let meanError = zip(grey, scene.packedPixels).map { abs(Int($0) - Int($1)) }.reduce(0, +) / grey.count
        #expect(meanError < 8, "mean absolute error \(meanError)")
    }

    @Test func emptyTruncatedAndGarbageFramesAreUndecodableWithTheDecodersWords() throws {
        let (jpeg, _) = try CameraJPEG.make(width: 320, height: 240, text: "cut")
        let (empty, _) = decode([], width: 320, height: 240)
        #expect(empty == .undecodable(cause: "empty frame (no JPEG data)"))
        let (truncated, _) = decode(Array(jpeg.prefix(jpeg.count / 2)), width: 320, height: 240)
        guard case .undecodable(let cause) = truncated else { Issue.record("truncated: \(truncated)"); return }
        #expect(cause.hasPrefix("damaged: ") && cause.contains("Premature end of JPEG file"), "\(cause)")
        var noise = SystemRandomNumberGenerator()
        let garbage = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &noise) }
        let (notJPEG, _) = decode(garbage, width: 320, height: 240)
        guard case .undecodable(let reason) = notJPEG else { Issue.record("garbage: \(notJPEG)"); return }
        #expect(!reason.isEmpty)
        let (endOnly, _) = decode([0xFF, 0xD9], width: 320, height: 240)
        #expect(endOnly != .decoded(warning: nil))
    }

    @Test func aJPEGOfAnotherSizeThanTheStreamIsUndecodable() throws {
        let (jpeg, _) = try CameraJPEG.make(width: 320, height: 240, text: nil)
        let (result, _) = decode(jpeg, width: 640, height: 480)
        #expect(result == .undecodable(cause: "the JPEG is 320x240, the stream 640x480"))
    }

    @Test func aCameraJPEGWithoutHuffmanTablesDecodesWithTheStandardOnes() throws {
        // "MJPEG without DHT", as some UVC cameras send: TurboJPEG wrote the standard tables, so
        // the frame without them must decode to the same grey.
        let (jpeg, _) = try CameraJPEG.make(width: 320, height: 240, text: "no DHT")
        var stripped: [UInt8] = [0xFF, 0xD8]
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF, jpeg[at + 1] != 0xDA {
            let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            if jpeg[at + 1] != 0xC4 { stripped += jpeg[at..<(at + 2 + length)] }
            at += 2 + length
        }
        stripped += jpeg[at...]
        #expect(stripped.count < jpeg.count && !zip(stripped, stripped.dropFirst()).contains { $0 == 0xFF && $1 == 0xC4 })
        let (result, grey) = decode(stripped, width: 320, height: 240)
        #expect(result == .decoded(warning: nil))
        #expect(grey == decode(jpeg, width: 320, height: 240).1)
    }

    @Test func extraneousBytesBetweenSegmentsLoseNoPixelAndAreScanned() throws {
        // Two stray bytes before the end marker, as some UVC cameras send: libjpeg warns, every pixel is decoded.
        let (jpeg, _) = try CameraJPEG.make(width: 320, height: 240, text: "stray")
        let padded = Array(jpeg.dropLast(2)) + [0x00, 0x00, 0xFF, 0xD9]
        let (result, grey) = decode(padded, width: 320, height: 240)
        guard case .decoded(let warning?) = result else { Issue.record("\(result)"); return }
        #expect(warning.contains("extraneous bytes before marker"))
        #expect(grey == decode(jpeg, width: 320, height: 240).1)
    }

    /// A bad frame spoils no later one: with one decoder (as a camera's frames share it), every
    /// kind of bad frame is undecodable and the good frame after it decodes to its own grey. A
    /// JPEG cut inside its headers (before the scan's SOS marker) once left TurboJPEG's handle
    /// answering the next header with 0x0, so a good frame after it was dropped too.
    @Test func aGoodFrameAfterEachKindOfBadFrameDecodes() throws {
        let (jpeg, _) = try CameraJPEG.make(width: 320, height: 240, text: "after a bad one")
        let reference = try turboJPEGGrey(jpeg).grey
        let sos = try #require(zip(jpeg.indices, jpeg.dropFirst()).first { jpeg[$0.0] == 0xFF && $0.1 == 0xDA }?.0)
        var noise = SystemRandomNumberGenerator()
        let bad: [(String, [UInt8])] = [
            ("empty", []),
            ("cut in its first segment", Array(jpeg.prefix(100))),
            ("cut before its scan (no SOS)", Array(jpeg.prefix(sos))),
            ("cut in its data", Array(jpeg.prefix(jpeg.count / 2))),
            ("garbage", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &noise) }),
            ("an end marker alone", [0xFF, 0xD9]),
        ]
        let decoder = JPEGLumaDecoder()
        var plane = [UInt8](repeating: 0, count: 320 * 240)
        func decode(_ bytes: [UInt8]) -> LumaDecodeResult {
            bytes.withUnsafeBytes { b in plane.withUnsafeMutableBytes { decoder.decodeLuma(b, width: 320, height: 240, into: $0) } }
        }
        #expect(decode(jpeg) == .decoded(warning: nil))
        for (name, frame) in bad {
            guard case .undecodable = decode(frame) else { Issue.record("\(name): decoded"); continue }
            plane = [UInt8](repeating: 0, count: 320 * 240)
            let after = decode(jpeg)
            #expect(after == .decoded(warning: nil) && plane == reference, "the good frame after one \(name): \(after)")
        }
    }

    /// One decoder shared by two threads, as the scanning threads share the camera's: every
    /// frame decoded on either thread is the grey of its own JPEG (a handle is never used by two
    /// calls at once), and a bad frame on one thread spoils nothing on the other. Under
    /// ThreadSanitizer the handle set's lock is seen (a pthread mutex): it once was a futex that
    /// ThreadSanitizer reported here as a race.
    @Test func twoThreadsDecodingWithOneDecoderEachGetTheirOwnFrame() throws {
        let frames = try (0..<2).map { try CameraJPEG.make(width: 320, height: 240, text: "thread \($0)").0 }
        let references = try frames.map { try turboJPEGGrey($0).grey }
        let decoder = JPEGLumaDecoder()
        let mismatches = LockedValue(0)
        let threads = (0..<2).map { index in
            Thread {
                var plane = [UInt8](repeating: 0, count: 320 * 240)
                for round in 0..<200 {
                    // Every fourth call is a truncated frame: its failure returns the handle too.
                    let jpeg = round % 4 == 3 ? Array(frames[index].prefix(600)) : frames[index]
                    let result = jpeg.withUnsafeBytes { bytes in
                        plane.withUnsafeMutableBytes { decoder.decodeLuma(bytes, width: 320, height: 240, into: $0) }
                    }
                    switch result {
                    case .decoded: if plane != references[index] { mismatches.withLock { $0 += 1 } }
                    case .undecodable: if round % 4 != 3 { mismatches.withLock { $0 += 1 } }
                    }
                }
            }
        }
        threads.forEach { $0.start() }
        #expect(waitUntil { threads.allSatisfy(\.isFinished) }, "both threads finished")
        let wrong = mismatches.withLock { $0 }
        #expect(wrong == 0, "frames decoded wrongly or refused: \(wrong) of 400")
    }
}

