import Foundation
import Media
import Testing
import TestSupport
@testable import Y4M

/// Round trips through ffmpeg: the reader must see exactly the planes ffmpeg wrote.
@Suite("Y4M source with ffmpeg streams", .offThePool)
struct Y4MFFmpegTests {
    /// ffmpeg from PATH; records a failure naming what to install when it is missing.
    private func ffmpeg(sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        guard let path = y4mFindExecutable("ffmpeg") else {
            Issue.record("ffmpeg is not on PATH: install it (apt-get install ffmpeg) to run the Y4M round-trip tests",
                         sourceLocation: sourceLocation)
            return nil
        }
        return path
    }

    private func testSource(width: Int, height: Int) -> [String] {
        ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=5", "-frames:v", "3"]
    }

    @Test(arguments: [
        ("gray", PixelFormat.grey, 64, 48),
        ("yuv420p", .yuv420, 64, 48),
        ("yuv422p", .yuv422p, 64, 48),
        ("yuv444p", .yuv444p, 64, 48),
        ("yuv420p", .yuv420, 65, 49),
        ("yuv422p", .yuv422p, 33, 7),
    ])
    func ffmpegStreamMatchesFfmpegRawPlanes(pixelFormat: String, format: PixelFormat, width: Int, height: Int) throws {
        guard let ffmpeg = ffmpeg() else { return }
        let y4m = try y4mRun(ffmpeg, testSource(width: width, height: height)
                             + ["-pix_fmt", pixelFormat, "-f", "yuv4mpegpipe", "-"])
        let file = try Y4MTemporaryFile(bytes: y4m)
        // ffmpeg's own reading of the same file: every plane, and the luma plane alone.
        let rawFrames = try y4mRun(ffmpeg, ["-v", "error", "-i", file.path, "-f", "rawvideo", "-"])
        let rawLuma = try y4mRun(ffmpeg, ["-v", "error", "-i", file.path, "-vf", "extractplanes=y", "-f", "rawvideo", "-"])

        let source = Y4MSource(path: file.path, logger: y4mTestLogger)
        try source.start()
        #expect(source.header?.frameRate == Y4MRatio(5, 1))
        let frames = try y4mReadAllFrames(source)
        #expect(frames.count == 3)

        let frameBytes = format.frameSize(width: width, height: height, bytesPerLine: width)
        let lumaBytes = width * height
        #expect(rawFrames.count == 3 * frameBytes)
        #expect(rawLuma.count == 3 * lumaBytes)
        for (index, frame) in frames.enumerated() {
            #expect(frame.sequenceNumber == UInt64(index))
            #expect(frame.presentationTime == MediaTime(nanoseconds: Int64(index) * 200_000_000))
            #expect(frame.width == width)
            #expect(frame.height == height)
            #expect(frame.bytesPerLine == width)
            #expect(frame.format == format)
            let pixels = frame.buffer.copiedBytes
            #expect(pixels == Array(rawFrames[(index * frameBytes)..<((index + 1) * frameBytes)]), "frame \(index) planes")
            #expect(pixels.prefix(lumaBytes) == rawLuma[(index * lumaBytes)..<((index + 1) * lumaBytes)], "frame \(index) luma")
        }
    }

    /// The grey stream's luma equals ffmpeg's `-pix_fmt gray` raw output of the same test source.
    /// (Only for grey: ffmpeg's `gray` is full range, its 4:2:0/4:2:2/4:4:4 luma is limited range,
    /// so their luma bytes legitimately differ from `gray`; those are checked against the file above.)
    @Test func greyStreamEqualsFfmpegGrayRawvideo() throws {
        guard let ffmpeg = ffmpeg() else { return }
        let y4m = try y4mRun(ffmpeg, testSource(width: 64, height: 48) + ["-pix_fmt", "gray", "-f", "yuv4mpegpipe", "-"])
        let gray = try y4mRun(ffmpeg, testSource(width: 64, height: 48) + ["-pix_fmt", "gray", "-f", "rawvideo", "-"])
        let (source, _) = try y4mStartedSource(y4m)
        #expect(source.header?.colourSpace == "mono")
        let luma = try y4mReadAllFrames(source).flatMap { $0.buffer.copiedBytes }
        #expect(luma.count == 3 * 64 * 48)
        #expect(luma == gray)
    }
}
