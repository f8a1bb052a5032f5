import Media
import SystemCalls
import TestSupport
import Testing
@testable import Y4M

@Suite("Y4M header", .offThePool)
struct Y4MHeaderTests {
    private func parse(_ line: String) throws(IOError) -> Y4MHeader {
        try Y4MHeader.parse(line: Array(line.utf8), path: "test.y4m")
    }

    /// Each colour space at an odd size, with its payload counted by hand:
    /// 7x5 luma = 35; 4:2:0 chroma 4x3 x2 = 24; 4:2:2 chroma 4x5 x2 = 40; 4:4:4 chroma 35 x2 = 70.
    @Test(arguments: [
        ("Cmono", PixelFormat.grey, 35),
        ("C420", .yuv420, 59),
        ("C420jpeg", .yuv420, 59),
        ("C420paldv", .yuv420, 59),
        ("C420mpeg2", .yuv420, 59),
        ("", .yuv420, 59),
        ("C422", .yuv422p, 75),
        ("C444", .yuv444p, 105),
    ])
    func colourSpaceSelectsFormatAndFrameSize(tag: String, format: PixelFormat, bytes: Int) throws {
        let header = try parse("YUV4MPEG2 W7 H5 F25:1 Ip A1:1 \(tag)")
        #expect(header.width == 7)
        #expect(header.height == 5)
        #expect(header.pixelFormat == format)
        #expect(header.colourSpace == (tag.isEmpty ? "420jpeg" : String(tag.dropFirst())))
        #expect(header.bytesPerLine == 7)
        #expect(header.frameByteCount == bytes)
    }

    @Test func readsEveryTagFfmpegWrites() throws {
        let header = try parse("YUV4MPEG2 W64 H48 F30000:1001 It A10:11 C420jpeg XYSCSS=420JPEG XCOLORRANGE=LIMITED")
        #expect(header.frameRate == Y4MRatio(30000, 1001))
        #expect(header.frameRateIsFromHeader)
        #expect(header.interlacing == .topFieldFirst)
        #expect(header.pixelAspectRatio == Y4MRatio(10, 11))
    }

    @Test func toleratesTagsInAnyOrderAndUnknownTags() throws {
        let header = try parse("YUV4MPEG2 C444 Zfuture H3 I? W2")
        #expect(header.width == 2)
        #expect(header.height == 3)
        #expect(header.pixelFormat == .yuv444p)
        #expect(header.interlacing == .unknown)
    }

    @Test func missingOrUnknownFrameRateDefaultsTo25() throws {
        for line in ["YUV4MPEG2 W2 H2", "YUV4MPEG2 W2 H2 F0:0"] {
            let header = try parse(line)
            #expect(header.frameRate == Y4MRatio(25, 1))
            #expect(!header.frameRateIsFromHeader)
        }
    }

    @Test(arguments: ["444alpha", "mono16", "420p10", "411", "yuv420p"])
    func unsupportedColourSpaceIsNamed(colourSpace: String) {
        let error = y4mError { _ = try parse("YUV4MPEG2 W4 H4 C\(colourSpace)") }
        #expect(error == .unsupportedColourSpace(colourSpace))
        #expect(error?.code == .notSupported)
        #expect(error?.description.contains("'C\(colourSpace)'") == true)
        #expect(error?.description.contains("ffmpeg -i INPUT -pix_fmt yuv420p") == true)
    }

    @Test(arguments: ["Wabc", "W0", "W-4", "W99999", "Hx", "F30", "F30:0", "F:1", "Fa:b", "Ix", "A1", "C"])
    func malformedTagIsNamed(tag: String) {
        let error = y4mError { _ = try parse("YUV4MPEG2 W4 H4 \(tag)") }
        #expect(error?.code == .malformedInput)
        // The tag as written, then a reason.
        let prefix = "malformed Y4M header tag '\(tag)': "
        #expect(error?.message.hasPrefix(prefix) == true, "\(tag): \(String(describing: error))")
        #expect((error?.message.count ?? 0) > prefix.count)
    }

    @Test func missingWidthOrHeightIsNamed() {
        #expect(y4mError { _ = try parse("YUV4MPEG2 H4") } == .missingTag("W"))
        #expect(y4mError { _ = try parse("YUV4MPEG2 W4 F25:1") } == .missingTag("H"))
        #expect(IOError.missingTag("W").description.contains("'W' tag (frame width)"))
    }

    @Test func oversizedFramesAreRejected() {
        let error = y4mError { _ = try parse("YUV4MPEG2 W16384 H16384 C444") }
        #expect(error == .frameTooLarge(width: 16384, height: 16384, bytes: 3 * 16384 * 16384,
                                        limit: Y4MHeader.maximumFrameByteCount))
    }

    @Test func presentationTimeFollowsFrameRate() throws {
        let ntsc = try parse("YUV4MPEG2 W2 H2 F30000:1001")
        #expect(ntsc.presentationTime(ofFrame: 0) == .zero)
        #expect(ntsc.presentationTime(ofFrame: 3) == MediaTime(nanoseconds: 100_100_000))
        #expect(ntsc.presentationTime(ofFrame: 30000) == MediaTime(nanoseconds: 1_001_000_000_000))
        // Large numbers do not overflow: 10^9 frames at 30000/1001 fps is 33366666.666… s.
        #expect(ntsc.presentationTime(ofFrame: 1_000_000_000) == MediaTime(nanoseconds: 33_366_666_666_666_666))
        let pal = try parse("YUV4MPEG2 W2 H2 F25:1")
        #expect(pal.presentationTime(ofFrame: 7) == MediaTime(nanoseconds: 280_000_000))
    }

    @Test func quotingShowsBinaryBytes() {
        #expect(quotedBytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A]) == "'\\x89PNG\\r\\n'")
        #expect(quotedBytes(Array("abcdef".utf8), limit: 3) == "'abc…'")
    }
}
